// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param source => 'text'
// Undo speaker_merge: voiceprints and messages whose origin is $source go back to it, the
// target's centroid and count are restored from the MERGED_INTO edge, which is deleted.
// A merge of a forgotten voice is not undone (its record no longer holds the centroid).
// Params: $space, $source
MATCH (a:Speaker {space: $space, id: $source})-[mi:MERGED_INTO]->(b:Speaker {space: $space})
WHERE a.forgotten_at IS NULL AND b.forgotten_at IS NULL  // a forgotten voice never comes back
CALL (a, b) {
  MATCH (m:Message)-[r:SPOKEN_AS]->(b) WHERE r.origin_speaker = a.id
  CREATE (m)-[:SPOKEN_AS]->(a)
  DELETE r
}
CALL (a, b) {
  MATCH (v:Voiceprint)-[r:OF]->(b) WHERE v.origin_speaker = a.id
  CREATE (v)-[:OF]->(a)
  REMOVE v.origin_speaker
  DELETE r
}
SET b.n_obs = mi.target_n_obs_before, b.updated_at = datetime()
REMOVE a.merged_into
WITH a, b, mi, mi.target_centroid_before AS before
DELETE mi
WITH a, b, before
CALL db.create.setNodeVectorProperty(b, 'centroid', before)
RETURN a.id AS source, b.id AS target;
