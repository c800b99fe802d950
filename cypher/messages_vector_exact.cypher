// Exact nearest messages by cosine within one space: the fallback when the shared
// index's over-fetch leaves fewer than $k hits for this space.
// Params: $space, $embedding, $k
MATCH (m:Message {space: $space})
WHERE m.embedding IS NOT NULL
WITH m, vector.similarity.cosine(m.embedding, $embedding) AS cosine
RETURN m.id AS id, (1.0 + cosine) / 2.0 AS score
ORDER BY score DESC LIMIT $k;
