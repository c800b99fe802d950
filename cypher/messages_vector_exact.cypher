// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param embedding => [x IN range(1, 384) | 0.05]
// :param k => 10
// Exact nearest messages by cosine within one space: the fallback when the shared
// index's over-fetch leaves fewer than $k hits for this space.
// Params: $space, $embedding, $k
MATCH (m:Message {space: $space})
WHERE m.embedding IS NOT NULL
WITH m, vector.similarity.cosine(m.embedding, $embedding) AS cosine
RETURN m.id AS id, (1.0 + cosine) / 2.0 AS score
ORDER BY score DESC LIMIT $k;
