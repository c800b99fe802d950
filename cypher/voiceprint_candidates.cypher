// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param index => 'speaker_centroid'
// :param fetch => 100
// :param embedding => [x IN range(1, 256) | 0.0625]
// :param space => 'demo-household'
// :param encoder => 'resemblyzer'
// :param k => 10
// Candidate speakers through their voiceprint exemplars ($index: 'voiceprint_embedding', or
// 'voiceprint_embedding_fused' for the fused encoder), for the k-nearest-neighbour policy.
// Params: $index, $space, $encoder, $embedding, $fetch, $k
CALL db.index.vector.queryNodes($index, $fetch, $embedding) YIELD node, score
WHERE node.space = $space AND node.encoder = $encoder
MATCH (node)-[:OF]->(s:Speaker {space: $space})
WHERE s.merged_into IS NULL
RETURN s.id AS id, max(score) AS score
ORDER BY score DESC LIMIT $k;
