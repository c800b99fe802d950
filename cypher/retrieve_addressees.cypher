// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// :param message_id => null
// :param policy => 'open'
// Graph tool "to whom was this addressed": the ADDRESSES edges (with source and confidence) and
// the SPEAKS edge of one message, if the message is inside the asker's scope (else no row).
// Scope (MODEL.md): open = all; participant = sessions the asker PARTICIPATED_IN; private = turns
// the asker SPEAKS or that ADDRESS the asker; unknown asker ($asker null): nothing unless open.
// Params: $space, $policy, $asker, $message_id
OPTIONAL MATCH (asker:Participant {space: $space, id: $asker})
WITH asker, [(asker)-[:PARTICIPATED_IN]->(s:Session) | s.id] AS asker_sessions
MATCH (m:Message {space: $space, id: $message_id})
WHERE true
  AND ($policy = 'open'
       OR ($policy = 'participant' AND asker IS NOT NULL AND m.session IN asker_sessions)
       OR ($policy = 'private' AND asker IS NOT NULL
           AND (EXISTS { (asker)-[:SPEAKS]->(m) } OR EXISTS { (m)-[:ADDRESSES]->(asker) })))
WITH m, 1.0 AS score
OPTIONAL MATCH (sp:Participant)-[:SPEAKS]->(m)
RETURN m.id AS id, m.session AS session, m.idx AS idx, m.text AS text, toString(m.ts) AS ts,
       sp {.id, .name} AS speaker,
       [(m)-[r:ADDRESSES]->(a:Participant) | a {.id, .name, source: r.source, confidence: r.confidence}] AS addressees,
       score;
