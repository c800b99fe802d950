// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// :param message_ids => []
// :param window => 3
// :param access_policy => 'open'
// Graph tool "context around messages": for each message of $message_ids (an anchor), the turns
// of the same session within $window positions of it (itself included), oldest first per anchor;
// every turn is checked against the asker's scope on its own, so a visible turn never drags an
// invisible neighbour along. One query for any number of anchors: the `context` tool asks for one,
// the fused round (/retrieve) for the neighbours of its top turns at once (a query per anchor cost
// three sequential round trips per /retrieve, docs/retrieval.md "Latency"). Range index
// message_session_idx (space, session, idx) serves the window.
// Scope: @access.message (the access rule, written once in cypher/access/; MODEL.md "Access scopes").
// Params: $space, $access_policy, $asker, $message_ids (list of message ids), $window
@access.asker()
UNWIND $message_ids AS anchor_id
MATCH (c:Message {space: $space, id: anchor_id})
MATCH (m:Message {space: $space, session: c.session})
WHERE m.idx >= c.idx - $window AND m.idx <= c.idx + $window
  AND @access.message(m)
WITH c, m, CASE WHEN m.idx = c.idx THEN 1.0 ELSE 0.0 END AS score
OPTIONAL MATCH (sp:Participant)-[:SPEAKS]->(m)
RETURN c.id AS anchor, m.id AS id, m.session AS session, m.idx AS idx, m.text AS text,
       toString(m.ts) AS ts, sp {.id, .name} AS speaker,
       [(m)-[r:ADDRESSES]->(a:Participant) | a {.id, .name, source: r.source, confidence: r.confidence}] AS addressees,
       score
ORDER BY anchor, idx;
