// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param attributes => []
// Create profile Attributes of participants, each DERIVED_FROM its message, with embedding.
// Params: $space, $attributes [{id, message_id, seq, holder, kind, text, slot, extractor,
//         confidence, embedding}]
// The embedding is a packed float32 VECTOR on a Cypher 25 server (Database.vector, run through
// Database.vector_query), a list of floats on 5.26: toFloatList reads either.
UNWIND $attributes AS row
MATCH (m:Message {space: $space, id: row.message_id}), (p:Participant {space: $space, id: row.holder})
CREATE (a:Attribute {space: $space, id: row.id, kind: row.kind, text: row.text, slot: row.slot,
                     current: true, valid_from: m.ts, valid_to: null, extractor: row.extractor,
                     confidence: row.confidence, created_at: datetime() + duration({nanoseconds: row.seq})})
CREATE (p)-[:HAS_ATTRIBUTE]->(a)
CREATE (a)-[:DERIVED_FROM]->(m)
WITH a, row
CALL db.create.setNodeVectorProperty(a, 'embedding', toFloatList(row.embedding))
RETURN count(a) AS created;
