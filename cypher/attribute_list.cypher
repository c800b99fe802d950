// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param history => false
// :param kind => 'preference'
// :param participant => null
// :param skip => 0
// :param limit => 50
// Profile attributes of a space, current only unless $history, optionally of one holder
// (id or name key) and one kind, with provenance.
// Params: $space, $participant (may be null), $kind (may be null), $history, $skip, $limit
MATCH (p:Participant {space: $space})-[:HAS_ATTRIBUTE]->(a:Attribute)
WHERE ($history OR a.current)
  AND ($kind IS NULL OR a.kind = $kind)
  AND ($participant IS NULL OR p.id = $participant OR p.key = $participant)
WITH p, a ORDER BY a.valid_from DESC, a.created_at DESC SKIP $skip LIMIT $limit
RETURN a {.id, .kind, .text, .slot, .current, .extractor, .confidence,
          valid_from: toString(a.valid_from), valid_to: toString(a.valid_to)} AS attribute,
       p {.id, .name} AS holder,
       [(a)-[:DERIVED_FROM]->(m:Message) | m.id] AS sources,
       [(a)-[:SUPERSEDES]->(o:Attribute) | o.id] AS supersedes;
