// Revoke a key (kept for audit, never matches again).
// Params: $space, $key_id
MATCH (k:ApiKey {id: $key_id, space: $space})
SET k.revoked = true, k.revoked_at = datetime()
RETURN k.id AS key_id;
