// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param recording_id => null
// Tag a message with the recording it came from, and link the turn's voiceprints to it.
// Params: $space, $id (message id), $recording_id
MATCH (m:Message {space: $space, id: $id})
SET m.recording_id = $recording_id
WITH m
CALL (m) {
  MATCH (v:Voiceprint {space: $space, message_id: m.id})
  MERGE (v)-[:FROM]->(m)
}
RETURN m.id AS id;
