// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => []
// Inspect audit_speaker_identity: the listed voices and every participant they are identified as.
// Params: $space, $ids (speaker ids from the audit's sample)
MATCH (s:Speaker {space: $space})-[r:IDENTIFIED_AS]->(p:Participant)
WHERE s.id IN $ids
RETURN s, r, p
LIMIT 100;
