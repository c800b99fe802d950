// Audit (informational): open audit items (conflicting identity evidence etc.).
// Params: $space
MATCH (a:AuditItem {space: $space})
WHERE NOT coalesce(a.resolved, false)
RETURN count(a) AS violations, collect(a.id)[..10] AS sample;
