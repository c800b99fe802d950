// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Readable captions for Neo4j Browser, kept next to what the writers store:
// Participant.display = the name, or 'unnamed voice ' + 6 characters of the id;
// Fact.display / Attribute.display = content / text with every '{p_…}' placeholder of a
// still-unnamed person replaced by that person's display. The key 'display' sorts before
// 'embedding' in Browser's property panel (it sorts keys), so it is read before the vector.
// Idempotent; touches only nodes whose display is missing or stale.
// Params: $space
MATCH (p:Participant {space: $space})
WITH collect(p) AS people
CALL (people) {
  UNWIND people AS p
  WITH p, coalesce(p.name, 'unnamed voice ' + substring(p.id, 2, 6)) AS shown
  WHERE p.display IS NULL OR p.display <> shown
  SET p.display = shown
  RETURN count(p) AS participants
}
CALL (people) {
  MATCH (f:Fact {space: $space})
  WHERE f.display IS NULL OR f.content CONTAINS '{' OR f.display <> f.content
  WITH f, reduce(t = coalesce(f.content, ''), p IN people |
                 replace(t, '{' + p.id + '}', coalesce(p.name, 'unnamed voice ' + substring(p.id, 2, 6)))) AS shown
  WHERE f.display IS NULL OR f.display <> shown
  SET f.display = shown
  RETURN count(f) AS facts
}
CALL (people) {
  MATCH (a:Attribute {space: $space})
  WHERE a.display IS NULL OR a.text CONTAINS '{' OR a.display <> a.text
  WITH a, reduce(t = coalesce(a.text, ''), p IN people |
                 replace(t, '{' + p.id + '}', coalesce(p.name, 'unnamed voice ' + substring(p.id, 2, 6)))) AS shown
  WHERE a.display IS NULL OR a.display <> shown
  SET a.display = shown
  RETURN count(a) AS attributes
}
RETURN participants, facts, attributes;
