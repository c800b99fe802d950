// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param message_id => null
// :param fact => {}
// :param embedding => [x IN range(1, 384) | 0.05]
// :param speaker => null
// :param addressees => []
// :param about => null
// Create one Fact with its provenance (DERIVED_FROM the message), STATED_BY the speaker,
// ADDRESSED_TO the message's addressees, ABOUT its subject and other people, and its
// text embedding. Params: $space, $message_id, $fact {id, content, subject_key, slot,
// value, event_time, time_text, extractor, confidence}, $speaker, $addressees (ids),
// $about (ids), $embedding
MATCH (m:Message {space: $space, id: $message_id})
CREATE (f:Fact {space: $space, id: $fact.id, content: $fact.content, subject_key: $fact.subject_key,
                slot: $fact.slot, value: $fact.value, event_time: $fact.event_time,
                time_text: $fact.time_text, valid_from: m.ts, valid_to: null, current: true,
                conflict: false, extractor: $fact.extractor, confidence: $fact.confidence,
                created_at: datetime()})
CREATE (f)-[:DERIVED_FROM]->(m)
WITH f
CALL db.create.setNodeVectorProperty(f, 'embedding', $embedding)
CALL (f) { MATCH (p:Participant {space: $space, id: $speaker}) MERGE (f)-[:STATED_BY]->(p) }
CALL (f) { UNWIND $addressees AS a MATCH (p:Participant {space: $space, id: a}) MERGE (f)-[:ADDRESSED_TO]->(p) }
CALL (f) { UNWIND $about AS a MATCH (p:Participant {space: $space, id: a}) MERGE (f)-[:ABOUT]->(p) }
RETURN f.id AS id;
