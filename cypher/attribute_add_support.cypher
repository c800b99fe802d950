// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param message_id => null
// One more message supports an existing attribute.
// Params: $space, $id, $message_id
MATCH (a:Attribute {space: $space, id: $id}), (m:Message {space: $space, id: $message_id})
MERGE (a)-[:DERIVED_FROM]->(m)
RETURN a.id AS id;
