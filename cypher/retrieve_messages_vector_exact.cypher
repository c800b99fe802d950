// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param asker => null
// :param speaker => null
// :param access_policy => 'open'
// :param session => 'kitchen-monday'
// :param addressee => null
// :param ts_from => null
// :param ts_to => null
// :param embedding => [x IN range(1, 384) | 0.05]
// :param k => 10
// :param lean => false
// Retrieval tool: exact nearest messages by cosine, inside the asker's access scope.
// Used when the shared index's over-fetch leaves too few rows (small space, narrow scope or
// filter). Candidates come from the narrowest anchor (speaker filter, the asker's own turns,
// the asker's sessions, or the whole space); the full scope and filters are then re-checked
// on every candidate, so an anchor is only a shortcut, never the gate.
// Scope: @access.message (the access rule, written once in cypher/access/; MODEL.md "Access scopes").
// Params: $space, $access_policy, $asker, $embedding, $k, $speaker, $addressee, $session, $ts_from, $ts_to,
//         $lean (@rows.message)
@access.asker()
CALL (asker, asker_sessions) {
  WITH asker WHERE $speaker IS NOT NULL
  MATCH (p:Participant {space: $space})-[:SPEAKS]->(m:Message)
  WHERE p.id = $speaker OR p.key = $speaker
  RETURN m
  UNION
  @access.message_candidates(m, $speaker IS NULL)
}
WITH asker, asker_sessions, m
WHERE m.space = $space AND m.embedding IS NOT NULL
  AND @access.message(m)
  AND ($session IS NULL OR m.session = $session)
  AND ($speaker IS NULL OR EXISTS {
        MATCH (p:Participant)-[:SPEAKS]->(m) WHERE p.id = $speaker OR p.key = $speaker })
  AND ($addressee IS NULL OR EXISTS {
        MATCH (m)-[:ADDRESSES]->(a:Participant) WHERE a.id = $addressee OR a.key = $addressee })
  AND ($ts_from IS NULL OR m.ts >= datetime($ts_from))
  AND ($ts_to IS NULL OR m.ts <= datetime($ts_to))
WITH m, vector.similarity.cosine(m.embedding, $embedding) AS score
ORDER BY score DESC, m.session, m.idx, m.id LIMIT $k
RETURN @rows.message(m), score
ORDER BY score DESC, session, idx, id;
