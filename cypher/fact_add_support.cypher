// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param rows => []
// More messages support existing facts (same content or same slot value said again).
// Params: $space, $rows [{id (fact), message_id}]
UNWIND $rows AS row
MATCH (f:Fact {space: $space, id: row.id}), (m:Message {space: $space, id: row.message_id})
MERGE (f)-[:DERIVED_FROM]->(m)
RETURN count(f) AS supported;
