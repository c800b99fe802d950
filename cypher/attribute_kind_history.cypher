// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param holder => null
// :param kinds => ['preference']
// Every attribute of one holder of some kinds, current or not, oldest first, with its
// evolution as stored (see fact_slot_history; attributes have no conflicts).
// Params: $space, $holder (participant id), $kinds
MATCH (:Participant {space: $space, id: $holder})-[:HAS_ATTRIBUTE]->(a:Attribute) WHERE a.kind IN $kinds
RETURN a.id AS id, a.kind AS owner, a.text AS text, a.slot AS slot, null AS value,
       a.valid_from AS valid_from, a.valid_to AS valid_to, a.current AS current, false AS conflict,
       [] AS stated_by, [(a)-[:SUPERSEDES]->(o:Attribute) | o.id] AS supersedes, [] AS conflicts,
       COLLECT { MATCH (a)-[:DERIVED_FROM]->(m:Message) RETURN m.id ORDER BY m.ts, m.idx LIMIT 1 } AS first
ORDER BY a.valid_from, a.created_at;
