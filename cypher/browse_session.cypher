// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param session => 'kitchen-monday'
// Browser: who said what to whom in one session, as a graph (speaker -SPEAKS-> turn -ADDRESSES-> person).
// Params: $space, $session
MATCH (m:Message {space: $space, session: $session})
OPTIONAL MATCH (p:Participant)-[s:SPEAKS]->(m)
OPTIONAL MATCH (m)-[a:ADDRESSES]->(q:Participant)
RETURN p, s, m, a, q
ORDER BY m.idx
LIMIT 300;
