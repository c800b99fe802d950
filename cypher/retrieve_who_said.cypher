// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// :param lucene => 'plumber'
// :param fetch => 100
// :param access_policy => 'open'
// :param session => 'kitchen-monday'
// :param ts_from => null
// :param ts_to => null
// :param k => 10
// Graph tool "who said X": turns whose text matches a quote (Lucene phrase or terms), with the
// participant who SPEAKS each, inside the asker's scope. Rows without a known speaker are kept
// (speaker null) so the caller can tell "nobody known said it" from "nobody said it".
// Scope: @access.message (the access rule, written once in cypher/access/; MODEL.md "Access scopes").
// Params: $space, $access_policy, $asker, $lucene (e.g. '"count faster"'), $fetch, $k, $session, $ts_from, $ts_to
@access.asker()
CALL db.index.fulltext.queryNodes('message_scoped_text',
                                  @access.space_lucene_filter() + '+text:(' + $lucene + ')',
                                  {limit: $fetch}) YIELD node AS m, score
WITH asker, asker_sessions, m, score
WHERE m.space = $space
  AND @access.message(m)
  AND ($session IS NULL OR m.session = $session)
  AND ($ts_from IS NULL OR m.ts >= datetime($ts_from))
  AND ($ts_to IS NULL OR m.ts <= datetime($ts_to))
WITH m, score ORDER BY score DESC, m.session, m.idx, m.id LIMIT $k
OPTIONAL MATCH (sp:Participant)-[:SPEAKS]->(m)
RETURN m.id AS id, m.session AS session, m.idx AS idx, m.text AS text, toString(m.ts) AS ts,
       sp {.id, .name} AS speaker,
       [(m)-[r:ADDRESSES]->(a:Participant) | a {.id, .name, source: r.source, confidence: r.confidence}] AS addressees,
       score
ORDER BY score DESC, session, idx, id;
