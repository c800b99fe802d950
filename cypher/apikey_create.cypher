// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param key_id => null
// :param hash => null
// :param label => 'browser'
// Store a new API key for a space. Only the SHA-256 hash of the key is kept.
// Params: $space, $key_id, $hash, $label
MATCH (s:Space {id: $space})
CREATE (k:ApiKey {id: $key_id, space: $space, hash: $hash, label: $label, created_at: datetime(), revoked: false})
CREATE (k)-[:GRANTS]->(s)
RETURN k.id AS key_id, toString(k.created_at) AS created_at;
