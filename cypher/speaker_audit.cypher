// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param kind => 'preference'
// :param detail => null
// Record an identity-management action (merge, unmerge, split, link, forget) for audit.
// Params: $space, $id, $kind, $detail (JSON string)
CREATE (a:AuditItem {space: $space, id: $id, kind: $kind, detail: $detail, created_at: datetime(),
                     resolved: true})
RETURN a.id AS id;
