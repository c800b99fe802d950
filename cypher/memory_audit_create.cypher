// Record conflicting or notable evidence for a human to review (identity conflicts,
// placeholder merges, conflicting facts). Idempotent per (kind, message, subject).
// Params: $space, $id, $kind, $detail, $participants (ids), $message_id, $resolved
MERGE (a:AuditItem {space: $space, kind: $kind, message_id: $message_id, detail: $detail})
  ON CREATE SET a.id = $id, a.created_at = datetime(), a.resolved = $resolved, a.participants = $participants
RETURN a.id AS id;
