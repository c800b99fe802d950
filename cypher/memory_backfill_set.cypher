// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param rows => []
// :param space => 'demo-household'
// Replace the text and embedding of back-filled facts and attributes.
// Params: $space, $rows [{id, text, embedding}]
UNWIND $rows AS row
MATCH (n {space: $space, id: row.id}) WHERE n:Fact OR n:Attribute
FOREACH (_ IN CASE WHEN n:Fact THEN [1] ELSE [] END | SET n.content = row.text)
FOREACH (_ IN CASE WHEN n:Attribute THEN [1] ELSE [] END | SET n.text = row.text)
WITH n, row
CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
RETURN count(n) AS updated;
