// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// :param fetch => 100
// :param embedding => [x IN range(1, 384) | 0.05]
// :param access_policy => 'open'
// :param session => 'kitchen-monday'
// :param speaker => null
// :param addressee => null
// :param ts_from => null
// :param ts_to => null
// :param k => 10
// :param lean => false
// Retrieval tool: approximate nearest messages by embedding, inside the asker's access scope.
// Cypher 25: the space and the asker's sessions are filtered inside the HNSW index (SEARCH …
// WHERE on the index's filter properties, @access.message_search), so other spaces and
// sessions the asker cannot read never crowd the $fetch candidates; the access rule and the
// optional filters are then checked on every candidate. Python widens $fetch once and falls
// back to retrieve_messages_vector_exact when fewer than $k rows survive (a filter on speaker,
// addressee or time). Neo4j 5.26 has no SEARCH clause: retrieve_messages_vector_legacy.
// Scope: @access.message (the access rule, written once in cypher/access/; MODEL.md "Access scopes").
// Params: $space, $access_policy, $asker (participant id or null), $embedding (list of floats), $fetch, $k,
//         $speaker, $addressee (participant id or name key, or null), $session, $ts_from, $ts_to
//         (ISO-8601 strings or null), $lean (ids, positions and scores only: @rows.message)
CYPHER 25
@access.asker()
CALL (asker, asker_sessions) {
  @access.message_search(m, score, $embedding, $fetch)
}
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
RETURN @rows.message(m), score
ORDER BY score DESC, session, idx, id;
