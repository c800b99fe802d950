// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param rows => []
// In a participant's deletion: facts and attributes whose deleted person's name the system had
// written (participant_delete_named_texts) get the text without it, its caption and embedding
// (computed before the transaction); a row whose text changed since it was read is left alone.
// Params: $space, $rows [{id, old, text, display, embedding}]
// The embedding is a packed float32 VECTOR on a Cypher 25 server (Database.vector, run through
// Database.vector_query), a list of floats on 5.26: toFloatList reads either.
UNWIND $rows AS row
MATCH (n {space: $space, id: row.id})
WHERE (n:Fact OR n:Attribute) AND coalesce(n.content, n.text) = row.old
FOREACH (_ IN CASE WHEN n:Fact THEN [1] ELSE [] END | SET n.content = row.text)
FOREACH (_ IN CASE WHEN n:Attribute THEN [1] ELSE [] END | SET n.text = row.text)
SET n.display = row.display
WITH n, row
CALL db.create.setNodeVectorProperty(n, 'embedding', toFloatList(row.embedding))
RETURN count(n) AS updated;
