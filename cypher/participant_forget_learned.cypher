// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Before a reprocess replays extraction (after memory_clear_messages removed the name evidence of
// the replayed messages): what extraction learned about people and no remaining evidence
// supports is undone, so the replay starts from the state the first pass started from and two
// reprocesses give the same memory. A learned alias (nickname, kinship term, an old name kept
// by a rename) stays only while some positive name evidence ("key|name|weight|kind|message_id",
// weight > 0) of its key remains; a learned name (name_source 'extraction') likewise, else the
// name given by hand before it (given_name, kept by participant_set_name, which a fold
// that takes a placeholder's name runs too) comes back, or none; a voiceless placeholder (name_source
// 'mention') nothing refers to any more (no ADDRESSES, fact, attribute, audit item or evidence)
// is deleted. Names given by hand (name_source null/'given'/'manual'), voices, messages and
// given addressees are never touched. Returns the ids whose name or aliases changed.
// Params: $space
CALL () {
  MATCH (p:Participant {space: $space})
  WHERE size(coalesce(p.aliases, [])) > 0
  WITH p, [e IN coalesce(p.name_evidence, []) WHERE toFloat(split(e, '|')[2]) > 0 | split(e, '|')[0]] AS heard,
       [i IN range(0, size(p.aliases) - 1) | coalesce(p.alias_keys[i], toLower(p.aliases[i]))] AS keys
  WITH p, keys, [i IN range(0, size(keys) - 1) WHERE keys[i] IN heard OR keys[i] = p.given_key] AS kept
  WHERE size(kept) < size(keys)
  SET p.aliases = [i IN kept | p.aliases[i]],
      p.alias_keys = CASE WHEN size(kept) = 0 THEN null ELSE [i IN kept | keys[i]] END
  RETURN collect(p.id) AS unaliased
}
CALL () {
  MATCH (p:Participant {space: $space, name_source: 'extraction'})
  WHERE NOT p.key IN [e IN coalesce(p.name_evidence, []) WHERE toFloat(split(e, '|')[2]) > 0 | split(e, '|')[0]]
  WITH p, p.given_key AS given_key
  SET p.name = p.given_name, p.key = p.given_key, p.name_source = p.given_source,
      p.aliases = [a IN coalesce(p.aliases, []) WHERE given_key IS NULL OR toLower(a) <> given_key],
      p.given_name = null, p.given_key = null, p.given_source = null
  RETURN collect(p.id) AS unnamed
}
CALL () {
  MATCH (p:Participant {space: $space, name_source: 'mention'})
  WHERE size(coalesce(p.name_evidence, [])) = 0
    AND NOT EXISTS { (p)-[:SPEAKS]->() } AND NOT EXISTS { (:Speaker)-[:IDENTIFIED_AS]->(p) }
    AND NOT EXISTS { (:Message)-[:ADDRESSES]->(p) } AND NOT EXISTS { (:Fact)-[:ABOUT|STATED_BY|ADDRESSED_TO]->(p) }
    AND NOT EXISTS { (p)-[:HAS_ATTRIBUTE]->() }
    AND NOT EXISTS { MATCH (f:Fact {space: $space}) WHERE f.subject_key = p.id }
    AND NOT EXISTS { MATCH (a:AuditItem {space: $space}) WHERE p.id IN coalesce(a.participants, []) }
  DETACH DELETE p
  RETURN count(*) AS deleted
}
WITH unaliased + unnamed AS changed, deleted
UNWIND (CASE WHEN size(changed) = 0 THEN [null] ELSE changed END) AS id
OPTIONAL MATCH (p:Participant {space: $space, id: id})
SET p.names_text = reduce(t = coalesce(p.name, ''), a IN coalesce(p.aliases, []) | t + ' ' + a)
RETURN [i IN collect(DISTINCT id) WHERE i IS NOT NULL] AS changed, max(deleted) AS deleted;
