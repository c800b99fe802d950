// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param keys => [{holder: 'p_example', kind: 'preference', texts: ['Loves green tea.'], slots: []}]
// Current attributes of some holders and kinds: same text as one of its new attributes
// (deduplication) or same slot (supersession), with since when. One statement per turn or
// batch chunk (voxmem.memory.rules.decide_attributes decides).
// Params: $space, $keys [{holder, kind, texts, slots}] (one entry per holder and kind)
UNWIND $keys AS k
MATCH (p:Participant {space: $space, id: k.holder})-[:HAS_ATTRIBUTE]->(a:Attribute)
WHERE a.current AND a.kind = k.kind AND (a.text IN k.texts OR a.slot IN k.slots)
RETURN k.holder AS holder, k.kind AS kind, a.id AS id, a.text AS text, a.slot AS slot,
       a.valid_from AS valid_from
ORDER BY a.valid_from DESC;
