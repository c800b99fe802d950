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
// Fallback for Neo4j 5.26 (no Cypher 25 SEARCH, no index filter properties) and the pre-0007 form
// that bench/scale.py times against retrieve_messages_vector: the shared index over-fetches, then
// space and scope filter after it (slow when the scope hides most of a big space).
// Retrieval tool: approximate nearest messages by embedding, inside the asker's access scope.
// The HNSW index is shared by all spaces, so it over-fetches ($fetch) and filters on space,
// scope and the optional filters; Python falls back to retrieve_messages_vector_exact when
// fewer than $k rows survive.
// Scope: @access.message (the access rule, written once in cypher/access/; MODEL.md "Access scopes").
// Params: $space, $access_policy, $asker (participant id or null), $embedding (list of floats), $fetch, $k,
//         $speaker, $addressee (participant id or name key, or null), $session, $ts_from, $ts_to
//         (ISO-8601 strings or null), $lean (@rows.message)
@access.asker()
CALL db.index.vector.queryNodes('message_embedding', $fetch, $embedding) YIELD node AS m, score
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
