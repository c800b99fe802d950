// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param limit => 50
// Sessions of a space with their number of turns, first and last turn time and participants.
// Params: $space, $limit
MATCH (s:Session {space: $space})
OPTIONAL MATCH (s)-[:HAS_MESSAGE]->(m:Message)
WITH s, count(m) AS turns, min(m.ts) AS first_ts, max(m.ts) AS last_ts
ORDER BY last_ts DESC LIMIT $limit
RETURN s.id AS id, turns, toString(first_ts) AS first_ts, toString(last_ts) AS last_ts,
       [(p:Participant)-[:PARTICIPATED_IN]->(s) | p.name] AS participants;
