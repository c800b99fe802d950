// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param person => 'maya'
// Browser: everything one person said (by name key or participant id) and to whom, in time order.
// Params: $space, $person
MATCH (p:Participant {space: $space})-[s:SPEAKS]->(m:Message)
WHERE p.key = $person OR p.id = $person
OPTIONAL MATCH (m)-[a:ADDRESSES]->(q:Participant)
RETURN p, s, m, a, q
ORDER BY m.ts, m.session, m.idx
LIMIT 300;
