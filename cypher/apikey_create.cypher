// Store a new API key for a space. Only the SHA-256 hash of the key is kept.
// Params: $space, $key_id, $hash, $label
MATCH (s:Space {id: $space})
CREATE (k:ApiKey {id: $key_id, space: $space, hash: $hash, label: $label, created_at: datetime(), revoked: false})
CREATE (k)-[:GRANTS]->(s)
RETURN k.id AS key_id, toString(k.created_at) AS created_at;
