// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param holder => null
// :param kind => 'preference'
// :param text => 'Tom, the plumber is coming on Thursday.'
// :param slot => null
// Current attributes of one holder: same text (deduplication) or same kind and slot
// (supersession). Params: $space, $holder, $kind, $slot (may be null), $text
MATCH (p:Participant {space: $space, id: $holder})-[:HAS_ATTRIBUTE]->(a:Attribute)
WHERE a.current AND a.kind = $kind AND (a.text = $text OR ($slot IS NOT NULL AND a.slot = $slot))
RETURN a.id AS id, a.text AS text, a.slot AS slot
ORDER BY a.valid_from DESC;
