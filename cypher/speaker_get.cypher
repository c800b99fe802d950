// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// One speaker with its centroid and participant (and how it was identified: 'manual' for a
// link by hand). Params: $space, $id
MATCH (s:Speaker {space: $space, id: $id})
OPTIONAL MATCH (s)-[i:IDENTIFIED_AS]->(p:Participant)
RETURN s.id AS id, s.centroid AS centroid, s.n_obs AS n_obs, s.merged_into AS merged_into,
       p.id AS participant_id, p.key AS participant_key, p.name AS participant_name,
       i.source AS identified_by;
