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
// :param lean => false
// Retrieval tool: full-text (BM25) search over message text, inside the asker's access scope.
// The space and the asker's sessions are required clauses of the Lucene query over the
// `message_scoped_text` index (@access.message_lucene_filter, boosted ^0 so BM25 scores are
// those of $lucene on the text field alone), so other spaces and sessions the asker cannot read
// never crowd the $fetch hits; the access rule and the optional filters are then checked on
// every hit. Each row carries `candidates`, how many hits Lucene returned: Python retries with a
// larger $fetch when fewer than $k rows survive, but only when Lucene filled $fetch (fewer means
// every match inside the filter was read; a retry returned the same rows, ~2 of every 3
// participant searches at 1M, docs/scaling.md "Migration 0011"). Plain Cypher,
// so Neo4j 5.26 runs it too; retrieve_messages_fulltext_legacy is the pre-0007 form (bench/scale).
// Equal scores (turns of the same length sharing the query's words) are ordered by session, idx
// and id: without it they came back in an order set by how the index held them (three tied turns
// loaded s2, s3, s1 came back s3, s1, s2), not by anything about the turns, and fusion weighs a
// turn by its rank (docs/retrieval.md "Is the answers benchmark's retrieval reproducible?"). The
// vector, SPLADE, fact and attribute queries break ties the same way.
// Scope: @access.message (the access rule, written once in cypher/access/; MODEL.md "Access scopes").
// Params: $space, $access_policy, $asker, $lucene (escaped Lucene query), $fetch, $k,
//         $speaker, $addressee, $session, $ts_from, $ts_to, $lean (@rows.message)
@access.asker()
CALL db.index.fulltext.queryNodes('message_scoped_text',
                                  @access.message_lucene_filter() + '+text:(' + $lucene + ')',
                                  {limit: $fetch}) YIELD node, score
WITH asker, asker_sessions, collect({m: node, score: score}) AS hits
UNWIND hits AS hit
WITH asker, asker_sessions, hit.m AS m, hit.score AS score, size(hits) AS candidates
WHERE m.space = $space
  AND @access.message(m)
  AND ($session IS NULL OR m.session = $session)
  AND ($speaker IS NULL OR EXISTS {
        MATCH (p:Participant)-[:SPEAKS]->(m) WHERE p.id = $speaker OR p.key = $speaker })
  AND ($addressee IS NULL OR EXISTS {
        MATCH (m)-[:ADDRESSES]->(a:Participant) WHERE a.id = $addressee OR a.key = $addressee })
  AND ($ts_from IS NULL OR m.ts >= datetime($ts_from))
  AND ($ts_to IS NULL OR m.ts <= datetime($ts_to))
WITH m, score, candidates ORDER BY score DESC, m.session, m.idx, m.id LIMIT $k
RETURN @rows.message(m), score, candidates
ORDER BY score DESC, session, idx, id;
