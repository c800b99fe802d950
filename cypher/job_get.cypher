// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// One saved job of a space, with the seconds since its last heartbeat.
// Params: $space, $id
MATCH (j:Job {space: $space, id: $id})
RETURN j {.*, updated_at: toString(j.updated_at),
          idle_s: duration.inSeconds(j.updated_at, datetime()).seconds} AS job;
