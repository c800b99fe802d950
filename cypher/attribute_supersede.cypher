// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param new => null
// :param old => null
// A newer attribute of the same holder, kind and slot replaces an older one (kept as history).
// Params: $space, $new, $old
MATCH (n:Attribute {space: $space, id: $new}), (o:Attribute {space: $space, id: $old})
MERGE (n)-[:SUPERSEDES]->(o)
SET o.current = false, o.valid_to = n.valid_from
RETURN o.id AS id;
