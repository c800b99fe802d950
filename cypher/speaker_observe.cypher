// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param centroid => [x IN range(1, 256) | 0.0625]
// A LINK: count the observation and, when the policy updated the voice state, store the
// new centroid. Params: $space, $id, $centroid (list of floats or null)
MATCH (s:Speaker {space: $space, id: $id})
SET s.n_obs = s.n_obs + 1, s.updated_at = datetime()
WITH s
CALL (s) {
  WITH s WHERE $centroid IS NOT NULL
  CALL db.create.setNodeVectorProperty(s, 'centroid', $centroid)
}
RETURN s.id AS id;
