// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param participant_id => null
// :param confidence => 0.9
// :param source => 'text'
// Identify a speaker as a participant (by hand or after a merge): IDENTIFIED_AS moves to
// $participant_id and every message spoken as this voice is SPOKEN by that participant.
// Params: $space, $id, $participant_id, $source, $confidence
MATCH (s:Speaker {space: $space, id: $id}), (p:Participant {space: $space, id: $participant_id})
OPTIONAL MATCH (s)-[old:IDENTIFIED_AS]->(:Participant)
DELETE old
CREATE (s)-[:IDENTIFIED_AS {confidence: $confidence, source: $source, at: datetime()}]->(p)
WITH s, p
CALL (s, p) {
  MATCH (m:Message {space: $space})-[:SPOKEN_AS]->(s)
  OPTIONAL MATCH (q:Participant)-[sp:SPEAKS]->(m)
  DELETE sp
  WITH DISTINCT m, p
  CREATE (p)-[:SPEAKS]->(m)
  WITH m, p
  MATCH (ses:Session {space: $space, id: m.session})
  MERGE (p)-[:PARTICIPATED_IN]->(ses)
}
RETURN s.id AS id, p.id AS participant_id, p.name AS participant_name;
