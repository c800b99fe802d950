// Audit: relationships joining nodes of different spaces (tenants). Must be zero.
// Params: $space
MATCH (a {space: $space})-[r]-(b)
WHERE b.space IS NOT NULL AND b.space <> $space
RETURN count(DISTINCT r) AS violations, collect(DISTINCT type(r))[..5] AS sample;
