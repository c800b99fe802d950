// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Audit: messages attributed to more than one participant (SPEAKS). Must be zero.
// Params: $space
MATCH (m:Message {space: $space})
WITH m, COUNT { (:Participant)-[:SPEAKS]->(m) } AS speakers
WHERE speakers > 1
RETURN count(m) AS violations, collect(m.id)[..10] AS sample;
