// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param pairs => []
// Two current facts of one subject and slot that disagree and cannot be ordered (stated
// by different people, neither the subject): both stay current, side by side, flagged.
// Params: $space, $pairs [{a (the new fact), b}]
UNWIND $pairs AS pair
MATCH (x:Fact {space: $space, id: pair.a}), (y:Fact {space: $space, id: pair.b})
MERGE (x)-[:CONFLICTS_WITH]->(y)
SET x.conflict = true, y.conflict = true
RETURN count(x) AS conflicts;
