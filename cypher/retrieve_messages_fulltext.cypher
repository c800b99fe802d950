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
// :param query_text => 'plumber'
// :param exhaustive => 2000
// :param seek_sessions => 100
// :param k => 10
// :param lean => false
// Retrieval tool: full-text (BM25) search over message text, inside the asker's access scope.
// BM25 from the asker's scope's statistics alone (migration 0013), not Lucene's: Lucene's are those
// of every space in the index, so a tenant's scores and ranks moved whenever another tenant
// ingested, and carried the others' word frequencies (docs/retrieval.md "BM25 from the asker's
// scope"). First the scope's statistics, from counters kept at ingest (@keyword.count), never from
// messages: its number of messages and total length (the Session nodes of
// @access.keyword_sessions: the space for open, the asker's sessions for participant; private's
// residual there) and each query word's document frequency (the (:Bm25Term {space, session, term})
// nodes: at most one per session per word). A scope of at most $seek_sessions distinct sessions
// reads them by one index seek per session (and word);
// the space, or a larger scope, reads each word's nodes by their (space, term) prefix and keeps
// its sessions' (a scan of every session of the space holding the word: ~3,000 rows for a 7-word
// query at 100k). The df reads alone, 5 words, random scopes of the 100k space's 500 sessions, p50
// ms scan / seek: 50 sessions 8.5 / 4.7, 100: 10.7 / 7.9, 200: 6.3 / 13.7, 500: 8.6 / 41.0
// (load ~10; docs/retrieval.md "BM25 from the asker's scope: the latency won back"). Same sums
// either way (the sessions are deduplicated first: private's addressed sessions repeat). Both ways
// read the summed values from index entries alone (migration 0015: the (space, term, session, df)
// and Session (space, id, bm25_docs, bm25_length) indexes, named in USING INDEX hints; `IS NOT NULL`
// on every indexed property lets the planner use them and drops only rows that added 0). The
// Lucene call sits in a CALL subquery: a procedure call at the statement's top level made the
// planner read those values from the store again (4,000 db hits at 100k; "index-backed
// statistics" in docs/retrieval.md). The words are the
// tokens of $query_text (the tool's keyword terms) by @keyword.tokens, as the messages' were. Then the
// Lucene candidates below, each scored exactly with those statistics (@keyword.scored). Lucene returns
// its top $fetch by its own index-wide scores, so when the scope holds more matches than that,
// which turns get scored still depends on other spaces: when the words' document frequencies sum
// to at most $exhaustive the limit is raised past that sum, Lucene returns every match in the
// filter (set by the scope's content alone) and nothing but the scope counts; above it, the top
// $fetch (the residual). `fetched` is the limit used (the tool's widening compares `candidates`).
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
// Params: $space, $access_policy, $asker, $lucene (escaped Lucene query), $query_text (its words),
//         $fetch, $exhaustive, $seek_sessions, $k, $speaker, $addressee, $session, $ts_from, $ts_to, $lean (@rows.message)
@access.asker()
WITH asker, asker_sessions, @access.keyword_sessions() AS scope_sessions,
     reduce(w = [], t IN @keyword.tokens($query_text) | CASE WHEN t IN w THEN w ELSE w + t END) AS words
CALL (scope_sessions) {
  UNWIND coalesce(scope_sessions, []) AS sid
  RETURN collect(DISTINCT sid) AS sids
}
WITH asker, asker_sessions, scope_sessions, words, sids,
     scope_sessions IS NOT NULL AND size(sids) <= $seek_sessions AS seek
CALL (scope_sessions, sids, seek) {
  WITH scope_sessions WHERE NOT seek
  MATCH (s:Session) USING INDEX s:Session(space, id, bm25_docs, bm25_length)
  WHERE s.space = $space AND s.id IS NOT NULL AND s.bm25_docs IS NOT NULL AND s.bm25_length IS NOT NULL
    AND (scope_sessions IS NULL OR s.id IN scope_sessions)
  RETURN sum(s.bm25_docs) AS docs, sum(s.bm25_length) AS length
  UNION ALL
  WITH sids WHERE seek
  UNWIND sids AS sid
  MATCH (s:Session) USING INDEX s:Session(space, id, bm25_docs, bm25_length)
  WHERE s.space = $space AND s.id = sid AND s.bm25_docs IS NOT NULL AND s.bm25_length IS NOT NULL
  RETURN sum(s.bm25_docs) AS docs, sum(s.bm25_length) AS length
}
WITH asker, asker_sessions, scope_sessions, words, sids, seek, sum(docs) AS docs, sum(length) AS length
CALL (scope_sessions, sids, seek, words) {
  UNWIND words AS word
  CALL (scope_sessions, sids, seek, word) {
    WITH scope_sessions, word WHERE NOT seek
    OPTIONAL MATCH (d:Bm25Term) USING INDEX d:Bm25Term(space, term, session, df)
    WHERE d.space = $space AND d.term = word AND d.session IS NOT NULL AND d.df IS NOT NULL
      AND (scope_sessions IS NULL OR d.session IN scope_sessions)
    RETURN sum(coalesce(d.df, 0)) AS df
    UNION ALL
    WITH sids, word WHERE seek
    UNWIND sids AS sid
    OPTIONAL MATCH (d:Bm25Term) USING INDEX d:Bm25Term(space, term, session, df)
    WHERE d.space = $space AND d.term = word AND d.session = sid AND d.df IS NOT NULL
    RETURN sum(coalesce(d.df, 0)) AS df
  }
  WITH word, sum(df) AS df
  RETURN collect(word) AS terms, collect(df) AS dfs
}
WITH asker, asker_sessions, terms, reduce(n = 0, df IN dfs | n + df) AS matches,
     [df IN dfs | log(1.0 + (docs - df + 0.5) / (df + 0.5))] AS idfs,
     CASE WHEN docs > 0 AND length > 0 THEN toFloat(length) / docs ELSE 1.0 END AS avgdl
WITH asker, asker_sessions, terms, idfs, avgdl,
     CASE WHEN matches <= $exhaustive AND matches >= $fetch THEN matches + 1 ELSE $fetch END AS fetched
CALL (asker, asker_sessions, fetched) {
  CALL db.index.fulltext.queryNodes('message_scoped_text',
                                    @access.message_lucene_filter() + '+text:(' + $lucene + ')',
                                    {limit: fetched}) YIELD node
  RETURN collect(node) AS hits
}
UNWIND hits AS m
WITH asker, asker_sessions, terms, idfs, avgdl, fetched, m, size(hits) AS candidates
WHERE m.space = $space
  AND @access.message(m)
  AND ($session IS NULL OR m.session = $session)
  AND ($speaker IS NULL OR EXISTS {
        MATCH (p:Participant)-[:SPEAKS]->(m) WHERE p.id = $speaker OR p.key = $speaker })
  AND ($addressee IS NULL OR EXISTS {
        MATCH (m)-[:ADDRESSES]->(a:Participant) WHERE a.id = $addressee OR a.key = $addressee })
  AND ($ts_from IS NULL OR m.ts >= datetime($ts_from))
  AND ($ts_to IS NULL OR m.ts <= datetime($ts_to))
WITH m, candidates, fetched, terms, idfs, coalesce(m.bm25_terms, []) AS mt, m.bm25_tf AS mtf,
     1.2 * (0.25 + 0.75 * m.bm25_len / avgdl) AS norm
WITH m, @keyword.scored(mt, mtf, norm, terms, idfs) AS score, candidates, fetched
WITH m, score, candidates, fetched ORDER BY score DESC, m.session, m.idx, m.id LIMIT $k
RETURN @rows.message(m), score, candidates, fetched
ORDER BY score DESC, session, idx, id;
