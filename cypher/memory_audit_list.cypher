// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param resolved => false
// :param limit => 50
// Audit items of a space (identity conflicts, placeholder merges, conflicting facts),
// newest first. Params: $space, $resolved (bool or null for all), $limit
MATCH (a:AuditItem {space: $space})
WHERE $resolved IS NULL OR a.resolved = $resolved
RETURN a {.id, .kind, .detail, .message_id, .participants, .resolved, created_at: toString(a.created_at)} AS item
ORDER BY a.created_at DESC LIMIT $limit;
