// Candidate speakers for a voice embedding through the speaker_centroid vector index
// (approximate; shared by all spaces, so it over-fetches and filters). The router then
// re-scores the returned centroids exactly. Params: $space, $encoder, $embedding, $fetch, $k
CALL db.index.vector.queryNodes('speaker_centroid', $fetch, $embedding) YIELD node, score
WHERE node.space = $space AND node.encoder = $encoder AND node.merged_into IS NULL
RETURN node.id AS id, score
ORDER BY score DESC LIMIT $k;
