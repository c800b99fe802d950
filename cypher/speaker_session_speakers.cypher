// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param encoder => 'resemblyzer'
// Active speakers of a space with the sessions each one spoke in, for reconciliation
// (split_from: a manual split is never undone by it; sessions: two speakers heard in one
// session need the stricter merge threshold, and a session's own speakers are those listing it).
// Only voices of the current encoder tag ($encoder): embeddings of two tags are not comparable.
// Params: $space, $encoder
MATCH (s:Speaker {space: $space})
WHERE s.merged_into IS NULL AND s.centroid IS NOT NULL AND s.encoder = $encoder
OPTIONAL MATCH (s)-[:IDENTIFIED_AS]->(p:Participant)
RETURN s.id AS id, s.centroid AS centroid, s.n_obs AS n_obs, p.id AS participant_id, p.key AS participant_key,
       s.split_from AS split_from,
       COLLECT { MATCH (m:Message {space: $space})-[:SPOKEN_AS]->(s) RETURN DISTINCT m.session } AS sessions;
