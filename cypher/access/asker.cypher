// @access.asker(): who asks, resolved once at the top of every retrieval query.
// The access rule (MODEL.md "Access scopes") lives in this folder and nowhere else; every
// retrieval query composes it (`voxmem.cypher.query` expands the includes; `voxmem cypher show
// NAME` prints the composed query for Neo4j Browser). This clause binds `asker` (the asker's
// Participant node in the space, null when $asker is null or unknown) and `asker_sessions`
// (ids of the sessions the asker PARTICIPATED_IN); the rules below read both, so a query keeps
// them in every WITH until its last rule.
// Params: $space, $asker (participant id or null)
OPTIONAL MATCH (asker:Participant {space: $space, id: $asker})
WITH asker, [(asker)-[:PARTICIPATED_IN]->(s:Session) | s.id] AS asker_sessions
