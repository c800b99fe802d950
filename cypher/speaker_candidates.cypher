// Candidate speakers for a voice embedding through a speaker-centroid vector index
// ($index: 'speaker_centroid', or 'speaker_centroid_fused' for the 512-d fused encoder;
// approximate, shared by all spaces, so it over-fetches and filters). The router then
// re-scores the returned centroids exactly. Params: $index, $space, $encoder, $embedding, $fetch, $k
CALL db.index.vector.queryNodes($index, $fetch, $embedding) YIELD node, score
WHERE node.space = $space AND node.encoder = $encoder AND node.merged_into IS NULL
RETURN node.id AS id, score
ORDER BY score DESC LIMIT $k;
