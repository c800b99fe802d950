// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param subject_key => null
// :param content => 'Maya needs new football boots.'
// :param slot => null
// Current facts of one subject: same content (for deduplication) or same slot (for
// supersession), with who stated them.
// Params: $space, $subject_key, $slot (may be null), $content
MATCH (f:Fact {space: $space, subject_key: $subject_key})
WHERE f.current AND (f.content = $content OR ($slot IS NOT NULL AND f.slot = $slot))
RETURN f.id AS id, f.content AS content, f.slot AS slot, f.value AS value, f.conflict AS conflict,
       [(f)-[:STATED_BY]->(p:Participant) | p.id] AS stated_by
ORDER BY f.valid_from DESC;
