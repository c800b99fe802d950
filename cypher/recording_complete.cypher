// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param recording_id => null
// :param session => 'kitchen-monday'
// :param turns => 0
// :param duration_s => 1.5
// :param resumed_turns => 0
// Mark a recording as finished: re-posting it is then refused (409) instead of resumed.
// Params: $space, $recording_id, $session, $turns, $duration_s, $resumed_turns
MERGE (r:Recording {space: $space, id: $recording_id})
SET r.session = $session, r.turns = $turns, r.duration_s = $duration_s,
    r.resumed_turns = $resumed_turns, r.completed_at = datetime()
RETURN r.id AS id;
