// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Audit: relationships joining nodes of different spaces (tenants). Must be zero.
// sample: ids of this space's nodes at one end of such a relationship.
// Params: $space
MATCH (a {space: $space})-[r]-(b)
WHERE b.space IS NOT NULL AND b.space <> $space
RETURN count(DISTINCT r) AS violations, collect(DISTINCT a.id)[..10] AS sample;
