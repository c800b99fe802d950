// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param kind => 'preference'
// :param message_id => null
// :param detail => null
// :param id => null
// :param resolved => false
// :param participants => []
// Record conflicting or notable evidence for a human to review (identity conflicts,
// placeholder merges, conflicting facts). Idempotent per (kind, message, subject).
// Params: $space, $id, $kind, $detail, $participants (ids), $message_id, $resolved
MERGE (a:AuditItem {space: $space, kind: $kind, message_id: $message_id, detail: $detail})
  ON CREATE SET a.id = $id, a.created_at = datetime(), a.resolved = $resolved, a.participants = $participants
RETURN a.id AS id;
