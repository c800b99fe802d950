// Mark a recording as finished: re-posting it is then refused (409) instead of resumed.
// Params: $space, $recording_id, $session, $turns, $duration_s, $resumed_turns
MERGE (r:Recording {space: $space, id: $recording_id})
SET r.session = $session, r.turns = $turns, r.duration_s = $duration_s,
    r.resumed_turns = $resumed_turns, r.completed_at = datetime()
RETURN r.id AS id;
