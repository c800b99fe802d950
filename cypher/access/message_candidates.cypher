// @access.message_candidates(m, guard): UNION branches of a CALL subquery returning `m`, the
// messages the asker could possibly read, each found from its narrowest anchor (the asker's
// own turns and the turns addressed to them, the asker's sessions, or the whole space), only
// when `guard` holds. A shortcut for exact scans, never the gate: the query still applies
// @access.message to every candidate. The subquery must import `asker` and `asker_sessions`.
// `m.idx IS NOT NULL` (every writer sets idx) lets the planner seek the composite index
// message_session_idx (space, session, idx) per session; without it, it scanned every Message
// once per session (17.6 s p50 at 1M messages for a 19-session asker, docs/scaling.md).
// Params: $space, $access_policy
WITH asker WHERE guard AND $access_policy = 'private' AND asker IS NOT NULL
MATCH (asker)-[:SPEAKS]->(m:Message)
RETURN m
UNION
WITH asker WHERE guard AND $access_policy = 'private' AND asker IS NOT NULL
MATCH (m:Message)-[:ADDRESSES]->(asker)
RETURN m
UNION
WITH asker_sessions WHERE guard AND $access_policy = 'participant'
UNWIND asker_sessions AS sid
MATCH (m:Message {space: $space, session: sid})
WHERE m.idx IS NOT NULL
RETURN m
UNION
WITH asker WHERE guard AND $access_policy = 'open'
MATCH (m:Message {space: $space})
RETURN m
