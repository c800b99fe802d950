// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// :param message_id => null
// :param window => 3
// :param policy => 'open'
// Graph tool "context around a message": the turns of the same session within $window positions
// of it (itself included), oldest first; every turn is checked against the asker's scope on its
// own, so a visible turn never drags an invisible neighbour along.
// Scope (MODEL.md): open = all; participant = sessions the asker PARTICIPATED_IN; private = turns
// the asker SPEAKS or that ADDRESS the asker; unknown asker ($asker null): nothing unless open.
// Params: $space, $policy, $asker, $message_id, $window
OPTIONAL MATCH (asker:Participant {space: $space, id: $asker})
WITH asker, [(asker)-[:PARTICIPATED_IN]->(s:Session) | s.id] AS asker_sessions
MATCH (c:Message {space: $space, id: $message_id})
MATCH (m:Message {space: $space, session: c.session})
WHERE m.idx >= c.idx - $window AND m.idx <= c.idx + $window
  AND ($policy = 'open'
       OR ($policy = 'participant' AND asker IS NOT NULL AND m.session IN asker_sessions)
       OR ($policy = 'private' AND asker IS NOT NULL
           AND (EXISTS { (asker)-[:SPEAKS]->(m) } OR EXISTS { (m)-[:ADDRESSES]->(asker) })))
WITH m, CASE WHEN m.idx = c.idx THEN 1.0 ELSE 0.0 END AS score
OPTIONAL MATCH (sp:Participant)-[:SPEAKS]->(m)
RETURN m.id AS id, m.session AS session, m.idx AS idx, m.text AS text, toString(m.ts) AS ts,
       sp {.id, .name} AS speaker,
       [(m)-[r:ADDRESSES]->(a:Participant) | a {.id, .name, source: r.source, confidence: r.confidence}] AS addressees,
       score
ORDER BY idx;
