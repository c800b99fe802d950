// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param new_id => null
// :param encoder => 'resemblyzer'
// :param centroid => [x IN range(1, 256) | 0.0625]
// :param message_ids => []
// Split: the given messages (and their voiceprints) of speaker $id move to a new Speaker
// $new_id with centroid $centroid; its new unnamed participant is created next in the same
// transaction by participant_for_speaker (voxmem.stores.participants).
// Params: $space, $id, $message_ids, $new_id, $centroid, $encoder
MATCH (s:Speaker {space: $space, id: $id})
CREATE (n:Speaker {space: $space, id: $new_id, encoder: $encoder, n_obs: 0, created_at: datetime(),
                   updated_at: datetime(), split_from: $id})
SET n:$(labels(s))  // FusedSpeaker too when the source has it: the same vector index
WITH s, n
CALL db.create.setNodeVectorProperty(n, 'centroid', $centroid)
CALL (s, n) {
  MATCH (m:Message {space: $space})-[r:SPOKEN_AS]->(s) WHERE m.id IN $message_ids
  CREATE (m)-[:SPOKEN_AS]->(n)
  DELETE r
}
CALL (s, n) {
  MATCH (v:Voiceprint)-[r:OF]->(s) WHERE v.message_id IN $message_ids
  CREATE (v)-[:OF]->(n)
  DELETE r
  SET n.n_obs = n.n_obs + 1, s.n_obs = s.n_obs - 1
}
RETURN n.id AS id;
