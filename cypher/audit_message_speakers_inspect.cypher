// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => []
// Inspect audit_message_speakers: the listed messages and every participant said to speak them.
// Params: $space, $ids (message ids from the audit's sample)
MATCH (p:Participant)-[r:SPEAKS]->(m:Message {space: $space})
WHERE m.id IN $ids
RETURN m, r, p
LIMIT 100;
