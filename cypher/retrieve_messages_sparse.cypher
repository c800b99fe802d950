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
// :param weights => {}
// :param k => 10
// Retrieval tool: learned sparse (SPLADE) search over message passages, inside the asker's scope.
// Candidates come from the 'message_sparse' full-text index: $lucene requires the space
// (`+space:<id>`, indexed in the same Lucene document, so other spaces never crowd the
// over-fetch) and ORs the query's vocabulary terms (`t<id>`) boosted by their query weights.
// Each candidate is then scored exactly, as SPLADE defines it: the dot product of the query
// weights ($weights, term -> weight) with the message's stored weights (sparse_terms and
// sparse_weights are aligned). Python retries with a larger $fetch when fewer than $k survive.
// Scope: @access.message (the access rule, written once in cypher/access/; MODEL.md "Access scopes").
// Params: $space, $access_policy, $asker, $lucene, $weights (map term -> float), $fetch, $k,
//         $speaker, $addressee, $session, $ts_from, $ts_to
@access.asker()
CALL db.index.fulltext.queryNodes('message_sparse', $lucene, {limit: $fetch}) YIELD node AS m
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
WITH m, split(m.sparse_terms, ' ') AS terms
WITH m, reduce(s = 0.0, i IN range(0, size(terms) - 1) |
               s + coalesce($weights[terms[i]], 0.0) * m.sparse_weights[i]) AS score
ORDER BY score DESC LIMIT $k
OPTIONAL MATCH (sp:Participant)-[:SPEAKS]->(m)
RETURN m.id AS id, m.session AS session, m.idx AS idx, m.text AS text, toString(m.ts) AS ts,
       sp {.id, .name} AS speaker,
       [(m)-[r:ADDRESSES]->(a:Participant) | a {.id, .name, source: r.source}] AS addressees,
       score
ORDER BY score DESC;
