// How many messages of a space came from one recording (re-ingestion guard).
// Params: $space, $recording_id
MATCH (m:Message {space: $space})
WHERE m.recording_id = $recording_id
RETURN count(m) AS n;
