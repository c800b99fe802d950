// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param recording_id => null
// The turns of a recording already stored (a job cut short): their span in the recording
// and their current speaker, in time order, so a resumed job skips them.
// Params: $space, $recording_id
MATCH (m:Message {space: $space, recording_id: $recording_id})
OPTIONAL MATCH (m)-[:SPOKEN_AS]->(sk:Speaker)
RETURN m.id AS id, m.start AS start, m.duration AS duration, sk.id AS speaker_id
ORDER BY m.start;
