// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param messages => []
// :param space => 'demo-household'
// Take a write transaction's locks up front, in one fixed order: the sessions of $messages (by
// id), then every participant of those sessions (by id).
// Why: concurrent turns that name the same people locked them in whatever order each turn's
// steps reached them (one turn's SPEAKS edge to Caroline then an ADDRESSES edge to Melanie,
// the other turn the other way round); Neo4j broke each cycle by aborting a transaction
// (DeadlockDetected, retried ~1 s later). Locked in one order, the turns queue instead.
// Sessions come first because the message transaction locks its session (session_lock) before
// its people. Params: $space, $messages (message ids)
CALL () {
  UNWIND $messages AS mid
  MATCH (m:Message {space: $space, id: mid})
  WITH DISTINCT m.session AS session
  ORDER BY session
  MATCH (s:Session {space: $space, id: session})
  SET s.locked_at = datetime()
  RETURN count(s) AS sessions
}
CALL () {
  UNWIND $messages AS mid
  MATCH (m:Message {space: $space, id: mid})
  MATCH (p:Participant)-[:PARTICIPATED_IN]->(:Session {space: $space, id: m.session})
  RETURN DISTINCT p
}
WITH sessions, p
ORDER BY p.id
SET p.locked_at = datetime()
RETURN sessions, count(p) AS participants;
