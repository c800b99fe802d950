// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param session => 'kitchen-monday'
// Message ids of one session (or, with $session null, of every session of the space) in
// conversation order: what reprocessing replays.
// Params: $space, $session (may be null)
MATCH (m:Message {space: $space})
WHERE $session IS NULL OR m.session = $session
OPTIONAL MATCH (s:Session {space: $space, id: m.session})
RETURN m.id AS id, m.session AS session
ORDER BY s.started_at, m.session, m.idx;
