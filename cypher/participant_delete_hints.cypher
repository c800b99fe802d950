// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// Before a participant is deleted: the name keys they bear (name and aliases), the name keys
// every other participant of the space bears, and the ASR hints (`asr_vocabulary`) stored on the
// space's spoken turns, so the caller can take the deleted person's name out of those hints
// (voxmem.memory.pipeline.hints_without). Hints are compared by name key in Python
// (voxmem.ids.name_key folds accents and case as no Cypher function does).
// Params: $space, $id
MATCH (p:Participant {space: $space, id: $id})
CALL (p) {
  MATCH (o:Participant {space: $space}) WHERE o <> p
  UNWIND [o.key] + coalesce(o.alias_keys, []) AS k
  WITH k WHERE k IS NOT NULL
  RETURN collect(DISTINCT k) AS kept
}
CALL () {
  MATCH (m:Message {space: $space}) WHERE m.asr_vocabulary IS NOT NULL
  RETURN collect({id: m.id, vocabulary: m.asr_vocabulary}) AS hints
}
RETURN [k IN [p.key] + coalesce(p.alias_keys, []) WHERE k IS NOT NULL] AS keys, kept, hints;
