// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// :param lucene => 'plumber'
// :param fetch => 100
// :param access_policy => 'open'
// :param session => 'kitchen-monday'
// :param speaker => null
// :param addressee => null
// :param ts_from => null
// :param ts_to => null
// :param k => 10
// Fallback for Neo4j 5.26 (no Cypher 25 SEARCH, no index filter properties) and the pre-0007 form
// that bench/scale.py times against retrieve_messages_fulltext: the shared index over-fetches, then
// space and scope filter after it (slow when the scope hides most of a big space).
// Retrieval tool: full-text (BM25) search over message text, inside the asker's access scope.
// The Lucene index is shared by all spaces, so it over-fetches ($fetch) and filters; Python
// retries with a larger $fetch when fewer than $k rows survive.
// Scope: @access.message (the access rule, written once in cypher/access/; MODEL.md "Access scopes").
// Params: $space, $access_policy, $asker, $lucene (escaped Lucene query), $fetch, $k,
//         $speaker, $addressee, $session, $ts_from, $ts_to
@access.asker()
CALL db.index.fulltext.queryNodes('message_text', $lucene, {limit: $fetch}) YIELD node AS m, score
WITH asker, asker_sessions, m, score
WHERE m.space = $space
  AND @access.message(m)
  AND ($session IS NULL OR m.session = $session)
  AND ($speaker IS NULL OR EXISTS {
        MATCH (p:Participant)-[:SPEAKS]->(m) WHERE p.id = $speaker OR p.key = $speaker })
  AND ($addressee IS NULL OR EXISTS {
        MATCH (m)-[:ADDRESSES]->(a:Participant) WHERE a.id = $addressee OR a.key = $addressee })
  AND ($ts_from IS NULL OR m.ts >= datetime($ts_from))
  AND ($ts_to IS NULL OR m.ts <= datetime($ts_to))
WITH m, score ORDER BY score DESC, m.session, m.idx, m.id LIMIT $k
OPTIONAL MATCH (sp:Participant)-[:SPEAKS]->(m)
RETURN m.id AS id, m.session AS session, m.idx AS idx, m.text AS text, toString(m.ts) AS ts,
       sp {.id, .name} AS speaker,
       [(m)-[r:ADDRESSES]->(a:Participant) | a {.id, .name, source: r.source}] AS addressees,
       score
ORDER BY score DESC, session, idx, id;
