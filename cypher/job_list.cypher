// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param status => 'running'
// :param limit => 50
// The saved jobs of a space, newest first, with the seconds since each one's last heartbeat.
// Params: $space, $status (or null for every status), $limit
MATCH (j:Job {space: $space})
WHERE $status IS NULL OR j.status = $status
WITH j ORDER BY j.created_at DESC LIMIT $limit
RETURN j {.*, updated_at: toString(j.updated_at),
          idle_s: duration.inSeconds(j.updated_at, datetime()).seconds} AS job;
