// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => []
// Inspect audit_cross_space_edges: the listed nodes and their relationships into other spaces.
// Params: $space, $ids (node ids from the audit's sample)
MATCH (a {space: $space})-[r]-(b)
WHERE a.id IN $ids AND b.space IS NOT NULL AND b.space <> $space
RETURN a, r, b
LIMIT 100;
