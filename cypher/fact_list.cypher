// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param history => false
// :param slot => null
// :param participant => null
// :param skip => 0
// :param limit => 50
// Facts of a space, current only unless $history, optionally about / stated by one
// participant (id or name key) and of one slot; each with provenance, people, and the
// facts it supersedes or conflicts with.
// Params: $space, $participant (may be null), $slot (may be null), $history (bool), $skip, $limit
MATCH (f:Fact {space: $space})
WHERE ($history OR f.current)
  AND ($slot IS NULL OR f.slot = $slot)
  AND ($participant IS NULL OR EXISTS {
        MATCH (f)-[:ABOUT|STATED_BY]->(p:Participant) WHERE p.id = $participant OR p.key = $participant })
WITH f ORDER BY f.valid_from DESC, f.created_at DESC SKIP $skip LIMIT $limit
RETURN f {.id, .content, .slot, .value, .current, .conflict, .extractor, .confidence, .event_time, .time_text,
          valid_from: toString(f.valid_from), valid_to: toString(f.valid_to)} AS fact,
       [(f)-[:STATED_BY]->(p:Participant) | p {.id, .name}] AS stated_by,
       [(f)-[:ADDRESSED_TO]->(p:Participant) | p {.id, .name}] AS addressed_to,
       [(f)-[:ABOUT]->(p:Participant) | p {.id, .name}] AS about,
       [(f)-[:DERIVED_FROM]->(m:Message) | m.id] AS sources,
       [(f)-[:SUPERSEDES]->(o:Fact) | o.id] AS supersedes,
       [(f)-[:CONFLICTS_WITH]-(o:Fact) | o.id] AS conflicts_with;
