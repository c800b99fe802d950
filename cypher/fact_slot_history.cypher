// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param keys => [{subject: 'p_example', slot: 'drink'}]
// :param space => 'demo-household'
// Every fact of some subjects in some slots (slot null: their facts without one), current or
// not, oldest first, with its evolution
// as stored: what it supersedes, what it conflicts with (its own CONFLICTS_WITH edges), who
// stated it and the message it was first derived from. The rules replay them in this order
// (voxmem.memory.rules.replay_facts) after a fold brought two people's facts together.
// Params: $space, $keys [{subject, slot}]
UNWIND $keys AS k
MATCH (f:Fact {space: $space, subject_key: k.subject})
WHERE f.slot = k.slot OR (k.slot IS NULL AND f.slot IS NULL)
RETURN f.id AS id, f.subject_key AS owner, f.content AS text, f.slot AS slot, f.value AS value,
       f.valid_from AS valid_from, f.valid_to AS valid_to,
       f.current AS current, coalesce(f.conflict, false) AS conflict,
       [(f)-[:STATED_BY]->(p:Participant) | p.id] AS stated_by,
       [(f)-[:SUPERSEDES]->(o:Fact) | o.id] AS supersedes,
       [(f)-[:CONFLICTS_WITH]->(o:Fact) | o.id] AS conflicts,
       COLLECT { MATCH (f)-[:DERIVED_FROM]->(m:Message) RETURN m.id ORDER BY m.ts, m.idx LIMIT 1 } AS first
ORDER BY f.valid_from, f.created_at;
