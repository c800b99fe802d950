// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Audit (informational): messages whose speaker is not yet a known participant,
// e.g. a voice heard only once. Not an error, but worth a look in Browser.
// Params: $space
MATCH (m:Message {space: $space})
WHERE NOT EXISTS { (:Participant)-[:SPEAKS]->(m) }
RETURN count(m) AS violations, collect(m.id)[..10] AS sample;
