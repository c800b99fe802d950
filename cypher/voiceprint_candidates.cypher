// Candidate speakers through their voiceprint exemplars (voiceprint_embedding index),
// for the k-nearest-neighbour policy. Params: $space, $encoder, $embedding, $fetch, $k
CALL db.index.vector.queryNodes('voiceprint_embedding', $fetch, $embedding) YIELD node, score
WHERE node.space = $space AND node.encoder = $encoder
MATCH (node)-[:OF]->(s:Speaker {space: $space})
WHERE s.merged_into IS NULL
RETURN s.id AS id, max(score) AS score
ORDER BY score DESC LIMIT $k;
