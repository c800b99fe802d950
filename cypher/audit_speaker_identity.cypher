// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Audit: an anonymous voice (Speaker) identified as more than one participant at once.
// Must be zero: conflicting evidence belongs in an AuditItem, never two identities.
// Params: $space
MATCH (s:Speaker {space: $space})
WITH s, COUNT { (s)-[:IDENTIFIED_AS]->(:Participant) } AS people
WHERE people > 1
RETURN count(s) AS violations, collect(s.id)[..10] AS sample;
