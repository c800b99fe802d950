// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param facts => []
// Create Facts, each with its provenance (DERIVED_FROM its message), STATED_BY the speaker,
// ADDRESSED_TO the message's addressees, ABOUT its subject and other people, and its text
// embedding. One statement per turn or batch chunk; `seq` (the order the rules created them
// in) keeps created_at in that order within the statement.
// Params: $space, $facts [{id, message_id, seq, content, subject_key, slot, value, event_time,
//         time_text, extractor, confidence, speaker, addressees (ids), about (ids), embedding}]
// The embedding is a packed float32 VECTOR on a Cypher 25 server (Database.vector, run through
// Database.vector_query), a list of floats on 5.26: toFloatList reads either.
UNWIND $facts AS row
MATCH (m:Message {space: $space, id: row.message_id})
CREATE (f:Fact {space: $space, id: row.id, content: row.content, subject_key: row.subject_key,
                slot: row.slot, value: row.value, event_time: row.event_time,
                time_text: row.time_text, valid_from: m.ts, valid_to: null, current: true,
                conflict: false, extractor: row.extractor, confidence: row.confidence,
                created_at: datetime() + duration({nanoseconds: row.seq})})
CREATE (f)-[:DERIVED_FROM]->(m)
WITH f, row
CALL db.create.setNodeVectorProperty(f, 'embedding', toFloatList(row.embedding))
CALL (f, row) { MATCH (p:Participant {space: $space, id: row.speaker}) MERGE (f)-[:STATED_BY]->(p) }
CALL (f, row) { UNWIND row.addressees AS a MATCH (p:Participant {space: $space, id: a}) MERGE (f)-[:ADDRESSED_TO]->(p) }
CALL (f, row) { UNWIND row.about AS a MATCH (p:Participant {space: $space, id: a}) MERGE (f)-[:ABOUT]->(p) }
RETURN count(f) AS created;
