// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param new => null
// :param old => null
// Memory evolution: the new fact replaces an older one of the same subject and slot. The
// old fact stays (history) with its validity ended and current = false; any conflict flag
// on it is settled.
// Params: $space, $new, $old
MATCH (n:Fact {space: $space, id: $new}), (o:Fact {space: $space, id: $old})
MERGE (n)-[:SUPERSEDES]->(o)
SET o.current = false, o.valid_to = n.valid_from, o.conflict = false
RETURN o.id AS id;
