// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param key_id => null
// :param space => 'demo-household'
// Revoke a key (kept for audit, never matches again).
// Params: $space, $key_id
MATCH (k:ApiKey {id: $key_id, space: $space})
SET k.revoked = true, k.revoked_at = datetime()
RETURN k.id AS key_id;
