// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => []
// Inspect audit_unattributed_messages: the listed messages and the voice (Speaker) they were heard as.
// Params: $space, $ids (message ids from the audit's sample)
MATCH (m:Message {space: $space})
WHERE m.id IN $ids
OPTIONAL MATCH (m)-[r:SPOKEN_AS]->(s:Speaker)
RETURN m, r, s
LIMIT 100;
