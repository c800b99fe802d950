// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param rows => []
// :param space => 'demo-household'
// Message indexing (voxmem.passages): store the speaker-aware passage, its dense embedding and
// its SPLADE terms (space-separated `t<vocabulary id>`, full-text indexed by
// 'message_scoped_sparse' with the space and session)
// with the aligned weights.
// Params: $space, $rows [{id, passage, embedding, sparse_terms, sparse_weights}]
// The embedding is a packed float32 VECTOR on a Cypher 25 server (Database.vector, run through
// Database.vector_query), a list of floats on 5.26: toFloatList reads either.
UNWIND $rows AS row
MATCH (m:Message {id: row.id})
WHERE m.space = $space
SET m.passage = row.passage, m.sparse_terms = row.sparse_terms, m.sparse_weights = row.sparse_weights,
    m.sparse_head = @sparse.head($space, row.sparse_terms, row.sparse_weights)
WITH m, row
CALL db.create.setNodeVectorProperty(m, 'embedding', toFloatList(row.embedding))
RETURN count(m) AS indexed;
