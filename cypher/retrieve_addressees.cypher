// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// :param message_id => null
// :param access_policy => 'open'
// Graph tool "to whom was this addressed": the ADDRESSES edges (with source and confidence) and
// the SPEAKS edge of one message, if the message is inside the asker's scope (else no row).
// Scope: @access.message (the access rule, written once in cypher/access/; MODEL.md "Access scopes").
// Params: $space, $access_policy, $asker, $message_id
@access.asker()
MATCH (m:Message {space: $space, id: $message_id})
WHERE true
  AND @access.message(m)
WITH m, 1.0 AS score
OPTIONAL MATCH (sp:Participant)-[:SPEAKS]->(m)
RETURN m.id AS id, m.session AS session, m.idx AS idx, m.text AS text, toString(m.ts) AS ts,
       sp {.id, .name} AS speaker,
       [(m)-[r:ADDRESSES]->(a:Participant) | a {.id, .name, source: r.source, confidence: r.confidence}] AS addressees,
       score;
