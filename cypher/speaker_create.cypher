// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param encoder => 'resemblyzer'
// :param embedding => [x IN range(1, 256) | 0.0625]
// A new anonymous voice: the Speaker, its centroid the first observation. Its unnamed
// Participant is created next in the same transaction by participant_for_speaker
// (voxmem.stores.participants), so identity mapping can name it later.
// Params: $space, $id, $encoder, $embedding
CREATE (s:Speaker {space: $space, id: $id, encoder: $encoder, n_obs: 1, created_at: datetime(),
                   updated_at: datetime()})
WITH s
CALL db.create.setNodeVectorProperty(s, 'centroid', $embedding)
RETURN s.id AS id;
