// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param id => null
// :param space => 'demo-household'
// One message with its speaker and addressees.
// Params: $space, $id
MATCH (m:Message {id: $id, space: $space})
OPTIONAL MATCH (p:Participant)-[:SPEAKS]->(m)
OPTIONAL MATCH (m)-[:ADDRESSES]->(a:Participant)
RETURN m {.id, .session, .idx, .text, ts: toString(m.ts)} AS message,
       p {.id, .name} AS speaker,
       collect(a {.id, .name}) AS addressees;
