// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// :param lucene => 't2043^1.2 t6400^0.8'
// :param fetch => 100
// :param access_policy => 'open'
// :param session => 'kitchen-monday'
// :param speaker => null
// :param addressee => null
// :param ts_from => null
// :param ts_to => null
// :param weights => {}
// :param k => 10
// :param lean => false
// Retrieval tool: learned sparse (SPLADE) search over message passages, inside the asker's scope,
// candidates over EVERY stored term: the SPLADE tool's widening step when the head terms
// (retrieve_messages_sparse_head, migration 0010) found fewer than $k turns.
// Candidates come from the 'message_scoped_sparse' full-text index (migration 0008: SPLADE terms,
// space and session in one Lucene document, whitespace analyzer). The Lucene query requires the
// space and the asker's sessions (@access.message_lucene_filter, the same required clauses as the
// BM25 tool, boosted ^0) and ORs the query's vocabulary terms (`t<id>`, $lucene) boosted by their
// query weights, so neither other spaces nor sessions the asker cannot read crowd the $fetch
// candidates (before 0008 only the space was filtered, and a participant or private scope widened
// to 20 × $fetch candidates). Each candidate is then scored exactly over all its terms
// (@sparse.scored). Python asks for 10 x $k candidates (4 x $k cost fused recall on LoCoMo) and retries with
// 20 x $fetch when fewer than $k survive.
// Scope: @access.message (the access rule, written once in cypher/access/; MODEL.md "Access scopes").
// Params: $space, $access_policy, $asker, $lucene (boosted terms), $weights (map term -> float),
//         $fetch, $k, $speaker, $addressee, $session, $ts_from, $ts_to, $lean (@rows.message)
@access.asker()
CALL db.index.fulltext.queryNodes('message_scoped_sparse',
                                  @access.message_lucene_filter() + '+sparse_terms:(' + $lucene + ')',
                                  {limit: $fetch}) YIELD node AS m
WITH asker, asker_sessions, m
WHERE m.space = $space
  AND @access.message(m)
  AND ($session IS NULL OR m.session = $session)
  AND ($speaker IS NULL OR EXISTS {
        MATCH (p:Participant)-[:SPEAKS]->(m) WHERE p.id = $speaker OR p.key = $speaker })
  AND ($addressee IS NULL OR EXISTS {
        MATCH (m)-[:ADDRESSES]->(a:Participant) WHERE a.id = $addressee OR a.key = $addressee })
  AND ($ts_from IS NULL OR m.ts >= datetime($ts_from))
  AND ($ts_to IS NULL OR m.ts <= datetime($ts_to))
@sparse.scored(m);
