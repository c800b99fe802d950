// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param fetch => 100
// :param embedding => [x IN range(1, 384) | 0.05]
// :param space => 'demo-household'
// :param k => 10
// Approximate nearest messages by embedding (HNSW vector index), restricted to one space.
// The index is shared by all spaces, so it over-fetches ($fetch) and filters.
// Params: $space, $embedding, $fetch, $k
CALL db.index.vector.queryNodes('message_embedding', $fetch, $embedding) YIELD node, score
WHERE node.space = $space
RETURN node.id AS id, score
ORDER BY score DESC LIMIT $k;
