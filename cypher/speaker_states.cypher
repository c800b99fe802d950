// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => []
// :param with_exemplars => false
// :param max_exemplars => 8
// Exact state of some speakers for re-scoring: centroid, observation count and (for the
// knn policy) up to $max_exemplars most recent voiceprint embeddings.
// Params: $space, $ids, $with_exemplars (bool), $max_exemplars
MATCH (s:Speaker {space: $space}) WHERE s.id IN $ids AND s.centroid IS NOT NULL
CALL (s) {
  OPTIONAL MATCH (v:Voiceprint)-[:OF]->(s)
  WHERE $with_exemplars
  WITH v ORDER BY v.created_at DESC LIMIT $max_exemplars
  RETURN collect(v.embedding) AS exemplars
}
OPTIONAL MATCH (s)-[:IDENTIFIED_AS]->(p:Participant)
RETURN s.id AS id, s.centroid AS centroid, s.n_obs AS n_obs, exemplars, p.id AS participant_id;
