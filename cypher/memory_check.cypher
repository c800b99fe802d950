// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param pid => null
// :param messages => []
// :param speakers => []
// :param space => 'demo-household'
// Proof that a space's memory has no orphans and (after deleting a participant) no leaks.
// Every count must be 0. $pid, $messages, $speakers name what was deleted ([] / null if
// only checking orphans). Params: $space, $pid, $messages, $speakers
WITH [x IN [$pid] + $messages + $speakers WHERE x IS NOT NULL] AS deleted
RETURN
  COUNT { MATCH (f:Fact {space: $space}) WHERE NOT EXISTS { (f)-[:DERIVED_FROM]->(:Message) } } AS facts_without_provenance,
  COUNT { MATCH (a:Attribute {space: $space}) WHERE NOT EXISTS { (a)-[:DERIVED_FROM]->(:Message) } } AS attributes_without_provenance,
  COUNT { MATCH (a:Attribute {space: $space}) WHERE NOT EXISTS { (:Participant)-[:HAS_ATTRIBUTE]->(a) } } AS attributes_without_holder,
  COUNT { MATCH (v:Voiceprint {space: $space}) WHERE NOT EXISTS { (v)-[:OF]->(:Speaker) } } AS voiceprints_without_speaker,
  COUNT { MATCH (i:Image {space: $space}) WHERE NOT EXISTS { (:Message)-[:HAS_IMAGE]->(i) } } AS images_without_message,
  COUNT { MATCH (m:Message {space: $space}) WHERE NOT EXISTS { (:Session)-[:HAS_MESSAGE]->(m) } } AS messages_without_session,
  COUNT { MATCH (f:Fact {space: $space}) WHERE NOT EXISTS { (f)-[:SUPERSEDES]->() } AND NOT f.current
          AND NOT EXISTS { (:Fact)-[:SUPERSEDES]->(f) } } AS stale_facts_without_successor,
  COUNT { MATCH (n {space: $space}) WHERE $pid IS NOT NULL AND (n.id = $pid
          OR (n:Fact AND n.content CONTAINS '{' + $pid + '}') OR (n:Attribute AND n.text CONTAINS '{' + $pid + '}')
          OR (n:AuditItem AND $pid IN coalesce(n.participants, []))) } AS participant_leaks,
  COUNT { MATCH (n {space: $space}) WHERE n.id IN $messages OR n.message_id IN $messages
          OR n.id IN $speakers OR n.speaker_id IN $speakers } AS message_or_voice_leaks,
  // Any property of any node or relationship of the space (so whatever an index, full-text
  // or vector, could hold) that equals a deleted id or lists one.
  COUNT { MATCH (n {space: $space}) WHERE any(k IN keys(n) WHERE n[k] IN deleted
          OR (n[k] IS :: LIST<ANY> AND any(x IN n[k] WHERE x IN deleted))) } AS id_leaks_on_nodes,
  COUNT { MATCH ({space: $space})-[r]-() WHERE any(k IN keys(r) WHERE r[k] IN deleted
          OR (r[k] IS :: LIST<ANY> AND any(x IN r[k] WHERE x IN deleted))) } AS id_leaks_on_edges;
