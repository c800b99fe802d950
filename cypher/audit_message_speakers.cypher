// Audit: messages attributed to more than one participant (SPEAKS). Must be zero.
// Params: $space
MATCH (m:Message {space: $space})
WITH m, COUNT { (:Participant)-[:SPEAKS]->(m) } AS speakers
WHERE speakers > 1
RETURN count(m) AS violations, collect(m.id)[..10] AS sample;
