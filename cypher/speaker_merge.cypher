// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param source => 'text'
// :param target => null
// :param reason => null
// :param score => 0.9
// :param centroid => [x IN range(1, 256) | 0.0625]
// Merge speaker $source into $target, reversibly: a MERGED_INTO edge keeps the target's
// previous centroid and count; the source's voiceprints and messages move to the target
// remembering their origin (Voiceprint.origin_speaker, SPOKEN_AS.origin_speaker); the
// source keeps its own centroid and IDENTIFIED_AS edge so speaker_unmerge can restore it.
// Params: $space, $source, $target, $centroid (new target centroid), $reason, $score
MATCH (a:Speaker {space: $space, id: $source}), (b:Speaker {space: $space, id: $target})
WHERE a.merged_into IS NULL AND b.merged_into IS NULL AND a <> b
CREATE (a)-[:MERGED_INTO {at: datetime(), reason: $reason, score: $score, target_n_obs_before: b.n_obs,
                          target_centroid_before: b.centroid}]->(b)
SET a.merged_into = b.id, b.n_obs = b.n_obs + a.n_obs, b.updated_at = datetime()
WITH a, b
CALL (a, b) {
  MATCH (m:Message)-[r:SPOKEN_AS]->(a)
  CREATE (m)-[:SPOKEN_AS {origin_speaker: a.id}]->(b)
  DELETE r
}
CALL (a, b) {
  MATCH (v:Voiceprint)-[r:OF]->(a)
  CREATE (v)-[:OF]->(b)
  SET v.origin_speaker = a.id
  DELETE r
}
CALL db.create.setNodeVectorProperty(b, 'centroid', $centroid)
RETURN a.id AS source, b.id AS target;
