// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param recording_id => null
// State of one recording in a space (re-ingestion guard and resume): how many turns are
// stored, in which session, and whether a job finished it (a Recording node).
// Params: $space, $recording_id
OPTIONAL MATCH (m:Message {space: $space, recording_id: $recording_id})
WITH count(m) AS n, collect(DISTINCT m.session) AS sessions
OPTIONAL MATCH (r:Recording {space: $space, id: $recording_id})
RETURN n, sessions, r IS NOT NULL AS complete;
