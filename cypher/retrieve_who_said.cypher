// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// :param lucene => 'plumber'
// :param fetch => 100
// :param policy => 'open'
// :param session => 'kitchen-monday'
// :param ts_from => null
// :param ts_to => null
// :param k => 10
// Graph tool "who said X": turns whose text matches a quote (Lucene phrase or terms), with the
// participant who SPEAKS each, inside the asker's scope. Rows without a known speaker are kept
// (speaker null) so the caller can tell "nobody known said it" from "nobody said it".
// Scope (MODEL.md): open = all; participant = sessions the asker PARTICIPATED_IN; private = turns
// the asker SPEAKS or that ADDRESS the asker; unknown asker ($asker null): nothing unless open.
// Params: $space, $policy, $asker, $lucene (e.g. '"count faster"'), $fetch, $k, $session, $ts_from, $ts_to
OPTIONAL MATCH (asker:Participant {space: $space, id: $asker})
WITH asker, [(asker)-[:PARTICIPATED_IN]->(s:Session) | s.id] AS asker_sessions
CALL db.index.fulltext.queryNodes('message_text', $lucene, {limit: $fetch}) YIELD node AS m, score
WITH asker, asker_sessions, m, score
WHERE m.space = $space
  AND ($policy = 'open'
       OR ($policy = 'participant' AND asker IS NOT NULL AND m.session IN asker_sessions)
       OR ($policy = 'private' AND asker IS NOT NULL
           AND (EXISTS { (asker)-[:SPEAKS]->(m) } OR EXISTS { (m)-[:ADDRESSES]->(asker) })))
  AND ($session IS NULL OR m.session = $session)
  AND ($ts_from IS NULL OR m.ts >= datetime($ts_from))
  AND ($ts_to IS NULL OR m.ts <= datetime($ts_to))
WITH m, score ORDER BY score DESC LIMIT $k
OPTIONAL MATCH (sp:Participant)-[:SPEAKS]->(m)
RETURN m.id AS id, m.session AS session, m.idx AS idx, m.text AS text, toString(m.ts) AS ts,
       sp {.id, .name} AS speaker,
       [(m)-[r:ADDRESSES]->(a:Participant) | a {.id, .name, source: r.source, confidence: r.confidence}] AS addressees,
       score
ORDER BY score DESC;
