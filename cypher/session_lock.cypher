// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param session => 'kitchen-monday'
// :param ts => datetime()
// First statement of a turn's transaction: create the session if new and take its write
// lock (the SET), so concurrent appends to one session queue here and each sees the
// committed message count. Returns the idx the new message gets.
// Params: $space, $session, $ts (ISO-8601 string)
MATCH (sp:Space {id: $space})
MERGE (s:Session {space: $space, id: $session})
  ON CREATE SET s.started_at = datetime($ts), s.n_messages = 0
SET s.locked_at = datetime()
RETURN s.n_messages AS next_idx;
