// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param a => null
// :param b => null
// Two current facts of one subject and slot that disagree and cannot be ordered (stated
// by different people, neither the subject): both stay current, side by side, flagged.
// Params: $space, $a, $b
MATCH (x:Fact {space: $space, id: $a}), (y:Fact {space: $space, id: $b})
MERGE (x)-[:CONFLICTS_WITH]->(y)
SET x.conflict = true, y.conflict = true
RETURN x.id AS id;
