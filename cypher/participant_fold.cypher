// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param from => null
// :param into => null
// Fold participant $from, which has no voice and speaks no message, into participant $into and
// delete it. Two callers: a placeholder known only by a name others used that turned out to be a
// speaking person (memory, audit kind merge_placeholder), and the unnamed person of a voice that
// was just linked by hand to someone (speaker_identify_as moved the voice and its SPEAKS first,
// audit kind identity_link). Everything $from held moves, so who said what to whom reads the
// same afterwards: ADDRESSES to it (all properties; the more confident edge wins where a
// message addressed both), facts ABOUT / ADDRESSED_TO / STATED_BY it, facts whose subject it
// is (subject_key) and texts written while it was unnamed ('{p_…}' becomes $into's, which the
// caller renders with $into's name and re-embeds), attributes, sessions, name evidence and the audit items that list it. Nobody
// addresses themself: inferred ADDRESSES from $into's own messages to $into (a voice that called
// "Rosa" linked to Rosa), and ADDRESSED_TO $into of facts it stated, are dropped. $into keeps
// its name; $from's name and aliases join $into's aliases (a nickname like 'Mel' of Melanie).
// When $into should take $from's name instead, the caller runs participant_set_name with the
// returned name (the one place a name is replaced). The caller records an AuditItem.
// Returns nothing when $from still has a voice or a message (then it is someone else).
// Params: $space, $from (participant folded away), $into (participant that stays)
MATCH (src:Participant {space: $space, id: $from}), (dst:Participant {space: $space, id: $into})
WHERE src <> dst AND NOT EXISTS { (src)-[:SPEAKS]->() } AND NOT EXISTS { (:Speaker)-[:IDENTIFIED_AS]->(src) }
CALL (src, dst) {
  MATCH (m:Message)-[r:ADDRESSES]->(src)
  MERGE (m)-[n:ADDRESSES]->(dst)
    ON CREATE SET n = properties(r)
    ON MATCH SET n = CASE WHEN coalesce(n.confidence, 0.0) < coalesce(r.confidence, 0.0)
                          THEN properties(r) ELSE properties(n) END
}
CALL (src, dst) { MATCH (f:Fact)-[:ABOUT]->(src) MERGE (f)-[:ABOUT]->(dst) }
CALL (src, dst) { MATCH (f:Fact)-[:ADDRESSED_TO]->(src) MERGE (f)-[:ADDRESSED_TO]->(dst) }
CALL (src, dst) { MATCH (f:Fact)-[:STATED_BY]->(src) MERGE (f)-[:STATED_BY]->(dst) }
CALL (src, dst) { MATCH (src)-[:HAS_ATTRIBUTE]->(a) MERGE (dst)-[:HAS_ATTRIBUTE]->(a) }
CALL (src, dst) { MATCH (src)-[:PARTICIPATED_IN]->(s) MERGE (dst)-[:PARTICIPATED_IN]->(s) }
CALL (dst) {  // nobody addresses themself: inferred edges that now would are dropped
  MATCH (dst)-[:SPEAKS]->(:Message)-[r:ADDRESSES]->(dst) WHERE coalesce(r.source, '') <> 'given'
  DELETE r
}
CALL (dst) { MATCH (dst)<-[:STATED_BY]-(:Fact)-[r:ADDRESSED_TO]->(dst) DELETE r }
CALL (src, dst) { MATCH (f:Fact {space: $space, subject_key: src.id}) SET f.subject_key = dst.id }
CALL (src, dst) {
  MATCH (f:Fact {space: $space}) WHERE f.content CONTAINS '{' + src.id + '}'
  SET f.content = replace(f.content, '{' + src.id + '}', '{' + dst.id + '}')
}
CALL (src, dst) {
  MATCH (a:Attribute {space: $space}) WHERE a.text CONTAINS '{' + src.id + '}'
  SET a.text = replace(a.text, '{' + src.id + '}', '{' + dst.id + '}')
}
CALL (src, dst) {
  MATCH (a:AuditItem {space: $space}) WHERE src.id IN coalesce(a.participants, [])
  WITH a, [x IN a.participants | CASE x WHEN src.id THEN dst.id ELSE x END] AS ids
  SET a.participants = [i IN range(0, size(ids) - 1) WHERE NOT ids[i] IN ids[0..i] | ids[i]]
}
WITH src, dst, src.name AS name, src.key AS key, coalesce(src.aliases, []) AS aliases,
     coalesce(src.name_evidence, []) AS evidence
DETACH DELETE src
WITH dst, name, key, evidence,
     [a IN coalesce(dst.aliases, []) + aliases WHERE key IS NULL OR toLower(a) <> key]
       + CASE WHEN name IS NULL THEN [] ELSE [name] END AS new_aliases
SET dst.aliases = new_aliases,
    dst.names_text = reduce(t = coalesce(dst.name, ''), a IN new_aliases | t + ' ' + a),
    dst.name_evidence = coalesce(dst.name_evidence, [])
                        + [e IN evidence WHERE NOT e IN coalesce(dst.name_evidence, [])]
RETURN dst.id AS id, name, key;
