// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// :param message_ids => []
// :param anchors => []
// :param window => 3
// :param access_policy => 'open'
// Graph tool "context around messages", and the fused round's rows: each message of $message_ids
// itself and, when it is one of $anchors, the turns of the same session within $window positions
// of it, oldest first per message (`anchor`); every turn is checked against the asker's scope on its
// own, so a visible turn never drags an invisible neighbour along, and an id the asker cannot read
// returns no row. One query for any number of messages: the `context` tool asks for one (its own
// anchor); the fused round (/retrieve) for its final turns at once, the neighbours of its top turns
// with them (late materialisation: its channels return ids and scores only, docs/retrieval.md
// "Latency, eleventh pass"; a query per anchor once cost three sequential round trips per
// /retrieve, "Latency"). Range index message_session_idx (space, session, idx) serves the window.
// Scope: @access.message (the access rule, written once in cypher/access/; MODEL.md "Access scopes").
// Params: $space, $access_policy, $asker, $message_ids (list of message ids), $anchors (those of
//         them whose neighbours are wanted), $window
@access.asker()
UNWIND $message_ids AS anchor_id
MATCH (c:Message {space: $space, id: anchor_id})
WITH asker, asker_sessions, c, CASE WHEN anchor_id IN $anchors THEN $window ELSE 0 END AS reach
MATCH (m:Message {space: $space, session: c.session})
WHERE m.idx >= c.idx - reach AND m.idx <= c.idx + reach
  AND @access.message(m)
WITH c, m, CASE WHEN m.idx = c.idx THEN 1.0 ELSE 0.0 END AS score
OPTIONAL MATCH (sp:Participant)-[:SPEAKS]->(m)
RETURN c.id AS anchor, m.id AS id, m.session AS session, m.idx AS idx, m.text AS text,
       toString(m.ts) AS ts, sp {.id, .name} AS speaker,
       [(m)-[r:ADDRESSES]->(a:Participant) | a {.id, .name, source: r.source, confidence: r.confidence}] AS addressees,
       score
ORDER BY anchor, idx;
