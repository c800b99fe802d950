// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// :param lucene => '"demo-household~t2043"^1.2 "demo-household~t6400"^0.8'
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
// Retrieval tool: learned sparse (SPLADE) search over message passages, inside the asker's scope.
// Candidates come from the 'message_scoped_sparse_head' full-text index (migration 0010): each
// message's HEAD terms (those of at least 0.3 x its heaviest weight, @sparse.head) with its session,
// whitespace analyzer. Document-side pruning: the disjunction visits a fraction of the postings the
// all-terms index holds (docs/retrieval.md "Latency, sixth pass"), and every candidate is still
// scored with all its stored terms; when fewer than $k survive, the tool widens with
// retrieve_messages_sparse (every term, the all-terms index of migration 0008). The head terms are
// space-qualified (`"<space>~t<id>"`, migration 0012, $lucene built so by the tool), so the
// disjunction itself selects the space and the query requires no space clause: with the required
// `+space:"…"^0` clause of @access.message_lucene_filter (a term held by every message of the
// space) Lucene could not skip non-competitive documents under its `limit`, and at 100k the bare
// query cost 27-30 ms of Neo4j time against 10-14 without it (docs/retrieval.md "Latency, tenth
// pass"). The asker's sessions stay required (@access.message_lucene_sessions) where they select.
// Lucene's scores use per-space term statistics. Each candidate is then scored exactly over all
// its terms (@sparse.scored). Python asks for 10 x $k candidates (4 x $k cost fused recall on
// LoCoMo) and widens when fewer than $k survive.
// Scope: @access.message (the access rule, written once in cypher/access/; MODEL.md "Access scopes").
// Params: $space, $access_policy, $asker, $lucene (boosted terms), $weights (map term -> float),
//         $fetch, $k, $speaker, $addressee, $session, $ts_from, $ts_to, $lean (@rows.message)
@access.asker()
CALL db.index.fulltext.queryNodes('message_scoped_sparse_head',
                                  @access.message_lucene_sessions() + '+sparse_head:(' + $lucene + ')',
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
