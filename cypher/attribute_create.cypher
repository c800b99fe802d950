// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param message_id => null
// :param holder => null
// :param attr => {}
// :param embedding => [x IN range(1, 384) | 0.05]
// Create one profile Attribute of a participant, DERIVED_FROM its message, with embedding.
// Params: $space, $message_id, $holder, $attr {id, kind, text, slot, extractor, confidence},
//         $embedding
MATCH (m:Message {space: $space, id: $message_id}), (p:Participant {space: $space, id: $holder})
CREATE (a:Attribute {space: $space, id: $attr.id, kind: $attr.kind, text: $attr.text, slot: $attr.slot,
                     current: true, valid_from: m.ts, valid_to: null, extractor: $attr.extractor,
                     confidence: $attr.confidence, created_at: datetime()})
CREATE (p)-[:HAS_ATTRIBUTE]->(a)
CREATE (a)-[:DERIVED_FROM]->(m)
WITH a
CALL db.create.setNodeVectorProperty(a, 'embedding', $embedding)
RETURN a.id AS id;
