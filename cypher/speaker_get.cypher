// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// One speaker with its centroid and participant. Params: $space, $id
MATCH (s:Speaker {space: $space, id: $id})
OPTIONAL MATCH (s)-[:IDENTIFIED_AS]->(p:Participant)
RETURN s.id AS id, s.centroid AS centroid, s.n_obs AS n_obs, s.merged_into AS merged_into,
       p.id AS participant_id, p.key AS participant_key;
