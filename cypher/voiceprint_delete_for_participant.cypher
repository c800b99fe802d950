// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param participant_id => null
// Forget a person's voice, every copy of it: the speakers identified as the participant and
// every speaker joined to them by a merge (either direction: a merge says "same voice"),
// whatever encoder made them. Deleted: their Voiceprints and any Voiceprint of a message they
// spoke (another encoder's copy), the speakers' centroids, the centroid copy a merge record
// keeps for unmerge, and the voiceprint pointer of routing decisions. The speakers stay as
// provenance of who said what, marked forgotten, and can never be matched or unmerged again.
// Params: $space, $participant_id
MATCH (s0:Speaker {space: $space})-[:IDENTIFIED_AS]->(:Participant {space: $space, id: $participant_id})
MATCH (s0)-[:MERGED_INTO*0..]-(s:Speaker {space: $space})
WITH collect(DISTINCT s) AS speakers
CALL (speakers) {
  UNWIND speakers AS s
  OPTIONAL MATCH (m:Message)-[:SPOKEN_AS]->(s)
  RETURN collect(DISTINCT m.id) AS spoken
}
CALL (speakers, spoken) {
  MATCH (v:Voiceprint {space: $space})
  WHERE v.message_id IN spoken OR EXISTS { MATCH (v)-[:OF]->(s) WHERE s IN speakers }
  RETURN collect(DISTINCT v) AS prints
}
WITH speakers, prints, [v IN prints | v.id] AS print_ids
CALL (print_ids) {
  OPTIONAL MATCH (r:RoutingDecision {space: $space}) WHERE r.voiceprint_id IN print_ids
  SET r.voiceprint_id = null, r.voice_forgotten = true
  RETURN count(r) AS decisions
}
CALL (speakers) {
  UNWIND speakers AS s
  OPTIONAL MATCH (s)-[mi:MERGED_INTO]-()
  SET mi.target_centroid_before = null, mi.voice_forgotten = true
  RETURN count(DISTINCT mi) AS merge_records
}
FOREACH (v IN prints | DETACH DELETE v)
FOREACH (s IN speakers | REMOVE s.centroid SET s.forgotten_at = datetime())
RETURN size(speakers) AS speakers, size(prints) AS voiceprints, decisions, merge_records;
