// voxmem schema v11 (issue 17, selective scopes at 1M messages): every Message gets
// `session_key` = space + '~' + session (the fragment cypher/access/session_key.cypher), and the
// message vector index filters on [space, session_key] instead of [space, session], so the
// participant and private searches (`WHERE m.session_key IN …`, @access.message_search) return
// only the asker's own sessions: a bare session id repeats across spaces, and other spaces'
// same-named sessions crowded the candidates (docs/scaling.md "Migration 0011"). Messages stored
// before this migration get their key here, in batches (an auto-commit statement, as in 0010);
// the index is rebuilt after, so it is populated once. Idempotent: only messages without a key.
// On Neo4j 5.26 the runner drops `CYPHER 25` and the `WITH [...]` list (no filter properties).
MATCH (m:Message) WHERE m.session IS NOT NULL AND m.session_key IS NULL
CALL (m) {
  SET m.session_key = m.space + '~' + m.session
} IN TRANSACTIONS OF 10000 ROWS;
DROP INDEX message_embedding IF EXISTS;
CYPHER 25 CREATE VECTOR INDEX message_embedding IF NOT EXISTS FOR (m:Message) ON m.embedding
  WITH [m.space, m.session_key]
  OPTIONS {indexConfig: {`vector.dimensions`: $text_dim, `vector.similarity_function`: 'cosine'}};
