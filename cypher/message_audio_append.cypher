// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param session => 'kitchen-monday'
// :param speaker_id => null
// :param id => null
// :param idx => 0
// :param text => 'Tom, the plumber is coming on Thursday.'
// :param ts => datetime()
// :param duration => 1.5
// :param source => 'text'
// :param audio_uri => null
// :param start => 0.0
// :param embedding => [x IN range(1, 384) | 0.05]
// :param voiceprint_id => null
// :param vocabulary => []
// Append one audio turn after session_lock and routing, in the same transaction: the
// Message (text from ASR, timing, audio fields), SPOKEN_AS its Speaker, SPEAKS from the
// participant that speaker is IDENTIFIED_AS, PARTICIPATED_IN, HAS_MESSAGE and NEXT;
// memory_pending until its memory is derived (message_memory_done); the text counted into the
// session's BM25 statistics (@keyword.count, migration 0013).
// Params: $space, $session, $idx, $id, $text, $ts, $duration, $source, $audio_uri,
//         $start (recording offset s, or null), $embedding, $speaker_id, $voiceprint_id,
//         $vocabulary (the names the ASR was told to expect; stored only when given)
MATCH (s:Session {space: $space, id: $session})
MATCH (sk:Speaker {space: $space, id: $speaker_id})
CREATE (m:Message {space: $space, id: $id, session: $session, session_key: @access.session_key($space, $session),
                   idx: $idx, text: $text,
                   ts: datetime($ts), duration: $duration, source: $source, audio_uri: $audio_uri,
                   start: $start, created_at: datetime(), memory_pending: true,
                   asr_vocabulary: CASE WHEN size($vocabulary) > 0 THEN $vocabulary END})
CREATE (s)-[:HAS_MESSAGE]->(m)
CREATE (m)-[:SPOKEN_AS]->(sk)
SET s.n_messages = $idx + 1, s.last_ts = datetime($ts)
@keyword.count(m)
WITH s, m, sk
CALL db.create.setNodeVectorProperty(m, 'embedding', $embedding)
WITH s, m, sk
CALL (s, m, sk) {
  MATCH (sk)-[:IDENTIFIED_AS]->(p:Participant)
  WITH p LIMIT 1
  CREATE (p)-[:SPEAKS]->(m)
  MERGE (p)-[:PARTICIPATED_IN]->(s)
}
CALL (s, m) {
  MATCH (prev:Message {space: $space, session: $session, idx: $idx - 1})
  CREATE (prev)-[:NEXT]->(m)
}
CALL (m) {
  MATCH (v:Voiceprint {space: $space, id: $voiceprint_id})
  SET v.message_id = m.id
  CREATE (v)-[:FROM]->(m)
}
RETURN m.id AS id;
