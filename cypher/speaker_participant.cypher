// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// The participant a speaker is identified as (null if none). Params: $space, $id
MATCH (s:Speaker {space: $space, id: $id})
OPTIONAL MATCH (s)-[:IDENTIFIED_AS]->(p:Participant)
RETURN s.id AS id, p.id AS participant_id, p.name AS participant_name;
