// Forget a person's voice: delete the voiceprints of every speaker identified as the
// participant and drop their centroids (the speakers stay as provenance of who said what,
// but can never be matched again). Params: $space, $participant_id
MATCH (s:Speaker {space: $space})-[:IDENTIFIED_AS]->(p:Participant {space: $space, id: $participant_id})
OPTIONAL MATCH (v:Voiceprint)-[:OF]->(s)
WITH collect(DISTINCT s) AS speakers, collect(DISTINCT v) AS prints
FOREACH (v IN prints | DETACH DELETE v)
FOREACH (s IN speakers | REMOVE s.centroid SET s.forgotten_at = datetime())
RETURN size(speakers) AS speakers, size(prints) AS voiceprints;
