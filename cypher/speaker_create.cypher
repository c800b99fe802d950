// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param encoder => 'resemblyzer'
// :param embedding => [x IN range(1, 256) | 0.0625]
// :param pid => null
// :param label => 'browser'
// A new anonymous voice: the Speaker (centroid = first observation) and an unnamed
// Participant it is IDENTIFIED_AS (name and key null, like participant_ensure_for_speaker,
// so identity mapping can name it later; `label` is only a display handle).
// Params: $space, $id, $encoder, $embedding, $pid, $label
CREATE (s:Speaker {space: $space, id: $id, encoder: $encoder, n_obs: 1, created_at: datetime(),
                   updated_at: datetime()})
WITH s
CALL db.create.setNodeVectorProperty(s, 'centroid', $embedding)
CREATE (p:Participant {space: $space, id: $pid, label: $label, names_text: '', aliases: [],
                       name_evidence: [], created_at: datetime()})
CREATE (s)-[:IDENTIFIED_AS {confidence: 1.0, source: 'voice'}]->(p)
RETURN s.id AS id, p.id AS participant_id;
