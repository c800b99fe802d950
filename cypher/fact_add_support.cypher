// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param message_id => null
// One more message supports an existing fact (same content or same slot value).
// Params: $space, $id, $message_id
MATCH (f:Fact {space: $space, id: $id}), (m:Message {space: $space, id: $message_id})
MERGE (f)-[:DERIVED_FROM]->(m)
RETURN f.id AS id;
