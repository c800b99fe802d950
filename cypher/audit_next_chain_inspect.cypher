// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => []
// Inspect audit_next_chain: the listed messages with their NEXT neighbours and, as `expected`,
// the session's next stored message (the one each listed message's NEXT should reach).
// Params: $space, $ids (message ids from the audit's sample)
MATCH (m:Message {space: $space})
WHERE m.id IN $ids
OPTIONAL MATCH (m)-[r:NEXT]-(n:Message)
OPTIONAL MATCH (e:Message {space: $space, session: m.session})
WHERE e.idx > m.idx
WITH m, r, n, e
ORDER BY e.idx
WITH m, r, n, collect(e)[0] AS expected
RETURN m, r, n, expected
LIMIT 100;
