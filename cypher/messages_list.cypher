// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param session => 'kitchen-monday'
// :param speaker => null
// :param addressee => null
// :param skip => 0
// :param limit => 50
// Messages of a space in conversation order, optionally filtered by session, by speaker
// and by addressee (participant id or name key). Params: $space, $session, $speaker,
// $addressee (each may be null), $skip, $limit
MATCH (m:Message {space: $space})
WHERE ($session IS NULL OR m.session = $session)
  AND ($speaker IS NULL OR EXISTS {
        MATCH (p:Participant)-[:SPEAKS]->(m) WHERE p.id = $speaker OR p.key = $speaker })
  AND ($addressee IS NULL OR EXISTS {
        MATCH (m)-[:ADDRESSES]->(a:Participant) WHERE a.id = $addressee OR a.key = $addressee })
WITH m ORDER BY m.ts, m.session, m.idx SKIP $skip LIMIT $limit
OPTIONAL MATCH (p:Participant)-[:SPEAKS]->(m)
OPTIONAL MATCH (m)-[:ADDRESSES]->(a:Participant)
WITH m, p, collect(a {.id, .name}) AS addressees
RETURN m {.id, .session, .idx, .text, ts: toString(m.ts)} AS message, p {.id, .name} AS speaker, addressees
ORDER BY m.ts, m.session, m.idx;
