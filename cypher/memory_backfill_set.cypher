// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param rows => []
// :param space => 'demo-household'
// Replace the text and embedding of back-filled facts and attributes.
// Params: $space, $rows [{id, text, embedding}]
// The embedding is a packed float32 VECTOR on a Cypher 25 server (Database.vector, run through
// Database.vector_query), a list of floats on 5.26: toFloatList reads either.
UNWIND $rows AS row
MATCH (n {space: $space, id: row.id}) WHERE n:Fact OR n:Attribute
FOREACH (_ IN CASE WHEN n:Fact THEN [1] ELSE [] END | SET n.content = row.text)
FOREACH (_ IN CASE WHEN n:Attribute THEN [1] ELSE [] END | SET n.text = row.text)
WITH n, row
CALL db.create.setNodeVectorProperty(n, 'embedding', toFloatList(row.embedding))
RETURN count(n) AS updated;
