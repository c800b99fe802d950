// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param pairs => []
// Memory evolution: each new fact replaces an older one of the same subject and slot. The
// old fact stays (history) with its validity ended and current = false; any conflict flag
// on it is settled. Run after fact_conflict (a superseded fact's flag ends false).
// Params: $space, $pairs [{new, old}]
UNWIND $pairs AS pair
MATCH (n:Fact {space: $space, id: pair.new}), (o:Fact {space: $space, id: pair.old})
MERGE (n)-[:SUPERSEDES]->(o)
SET o.current = false, o.valid_to = n.valid_from, o.conflict = false
RETURN count(o) AS superseded;
