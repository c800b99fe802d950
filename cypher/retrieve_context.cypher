// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// :param message_id => null
// :param window => 3
// :param access_policy => 'open'
// Graph tool "context around a message": the turns of the same session within $window positions
// of it (itself included), oldest first; every turn is checked against the asker's scope on its
// own, so a visible turn never drags an invisible neighbour along.
// Scope: @access.message (the access rule, written once in cypher/access/; MODEL.md "Access scopes").
// Params: $space, $access_policy, $asker, $message_id, $window
@access.asker()
MATCH (c:Message {space: $space, id: $message_id})
MATCH (m:Message {space: $space, session: c.session})
WHERE m.idx >= c.idx - $window AND m.idx <= c.idx + $window
  AND @access.message(m)
WITH m, CASE WHEN m.idx = c.idx THEN 1.0 ELSE 0.0 END AS score
OPTIONAL MATCH (sp:Participant)-[:SPEAKS]->(m)
RETURN m.id AS id, m.session AS session, m.idx AS idx, m.text AS text, toString(m.ts) AS ts,
       sp {.id, .name} AS speaker,
       [(m)-[r:ADDRESSES]->(a:Participant) | a {.id, .name, source: r.source, confidence: r.confidence}] AS addressees,
       score
ORDER BY idx;
