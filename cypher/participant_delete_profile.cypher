// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// Delete a participant's whole profile: every Attribute they hold (whoever stated it).
// Params: $space, $id
MATCH (p:Participant {space: $space, id: $id})-[:HAS_ATTRIBUTE]->(a:Attribute)
DETACH DELETE a
RETURN count(*) AS deleted;
