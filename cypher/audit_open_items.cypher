// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Audit (informational): open audit items (conflicting identity evidence etc.).
// Params: $space
MATCH (a:AuditItem {space: $space})
WHERE NOT coalesce(a.resolved, false)
RETURN count(a) AS violations, collect(a.id)[..10] AS sample;
