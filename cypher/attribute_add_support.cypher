// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param rows => []
// More messages support existing attributes (the same text said again).
// Params: $space, $rows [{id (attribute), message_id}]
UNWIND $rows AS row
MATCH (a:Attribute {space: $space, id: row.id}), (m:Message {space: $space, id: row.message_id})
MERGE (a)-[:DERIVED_FROM]->(m)
RETURN count(a) AS supported;
