// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param encoder => 'resemblyzer'
// :param embedding => [x IN range(1, 256) | 0.0625]
// :param k => 10
// Exact nearest speakers of one space (the fallback when the shared index's over-fetch
// leaves fewer than $k speakers of this space). Params: $space, $encoder, $embedding, $k
MATCH (s:Speaker {space: $space})
WHERE s.encoder = $encoder AND s.centroid IS NOT NULL AND s.merged_into IS NULL
RETURN s.id AS id, vector.similarity.cosine(s.centroid, $embedding) AS score
ORDER BY score DESC LIMIT $k;
