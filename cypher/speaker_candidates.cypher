// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param index => 'speaker_centroid'
// :param fetch => 100
// :param embedding => [x IN range(1, 256) | 0.0625]
// :param space => 'demo-household'
// :param encoder => 'resemblyzer'
// :param k => 10
// Candidate speakers for a voice embedding through a speaker-centroid vector index
// ($index: 'speaker_centroid', or 'speaker_centroid_fused' for the 512-d fused encoder;
// approximate, shared by all spaces, so it over-fetches and filters). The router then
// re-scores the returned centroids exactly. Params: $index, $space, $encoder, $embedding, $fetch, $k
CALL db.index.vector.queryNodes($index, $fetch, $embedding) YIELD node, score
WHERE node.space = $space AND node.encoder = $encoder AND node.merged_into IS NULL
RETURN node.id AS id, score
ORDER BY score DESC LIMIT $k;
