// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param kind => 'preference'
// :param status => 'running'
// :param stage => 'queued'
// :param progress => 0.0
// :param created_at => datetime()
// :param finished_at => null
// :param error => null
// :param result => null
// :param owner => null
// Save a background job's state (on submit, on each stage change, at the end), so a poller
// can still read it after the server restarts. `updated_at` is the job's heartbeat.
// Params: $space, $id, $kind, $status, $stage, $progress, $created_at, $finished_at, $error,
//         $result (JSON text or null), $owner (the server process running it)
MERGE (j:Job {space: $space, id: $id})
SET j.kind = $kind, j.status = $status, j.stage = $stage, j.progress = $progress,
    j.created_at = $created_at, j.finished_at = $finished_at, j.error = $error,
    j.result = $result, j.owner = $owner, j.updated_at = datetime()
RETURN j.id AS id;
