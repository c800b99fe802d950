// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => []
// Inspect audit_next_chain: the listed messages with their NEXT neighbours (compare session and idx).
// Params: $space, $ids (message ids from the audit's sample)
MATCH (m:Message {space: $space})
WHERE m.id IN $ids
OPTIONAL MATCH (m)-[r:NEXT]-(n:Message)
RETURN m, r, n
LIMIT 100;
