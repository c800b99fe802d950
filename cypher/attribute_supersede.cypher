// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param pairs => []
// Newer attributes of the same holder, kind and slot replace older ones (kept as history).
// Params: $space, $pairs [{new, old}]
UNWIND $pairs AS pair
MATCH (n:Attribute {space: $space, id: pair.new}), (o:Attribute {space: $space, id: pair.old})
MERGE (n)-[:SUPERSEDES]->(o)
SET o.current = false, o.valid_to = n.valid_from
RETURN count(o) AS superseded;
