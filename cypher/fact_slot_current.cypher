// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param keys => [{subject: 'p_example', contents: ['Maya needs new football boots.'], slots: ['checkout_time']}]
// Current facts of some subjects, each with the same content as one of its new facts
// (deduplication) or the same slot (supersession), with who stated them and since when. One
// statement for all the new facts of a turn or of a batch chunk; the rules
// (voxmem.memory.rules.decide_facts) decide over them in conversation order.
// Params: $space, $keys [{subject, contents, slots}] (one entry per subject)
UNWIND $keys AS k
MATCH (f:Fact {space: $space, subject_key: k.subject})
WHERE f.current AND (f.content IN k.contents OR f.slot IN k.slots)
RETURN k.subject AS subject, f.id AS id, f.content AS content, f.slot AS slot, f.value AS value,
       f.valid_from AS valid_from, [(f)-[:STATED_BY]->(p:Participant) | p.id] AS stated_by
ORDER BY f.valid_from DESC;
