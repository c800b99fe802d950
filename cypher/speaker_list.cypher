// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Speakers of a space with their participant and observation counts (identity management).
// Params: $space
MATCH (s:Speaker {space: $space})
OPTIONAL MATCH (s)-[:IDENTIFIED_AS]->(p:Participant)
RETURN s.id AS id, s.encoder AS encoder, s.n_obs AS n_obs, s.merged_into AS merged_into,
       s.centroid IS NULL AS forgotten, toString(s.created_at) AS created_at,
       p {.id, .name, .key} AS participant,
       COUNT { (:Voiceprint)-[:OF]->(s) } AS voiceprints,
       COUNT { (:Message)-[:SPOKEN_AS]->(s) } AS messages
ORDER BY s.created_at;
