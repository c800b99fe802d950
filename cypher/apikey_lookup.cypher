// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param hash => null
// Which space a presented key (by hash) grants, if it is not revoked.
// Params: $hash
MATCH (k:ApiKey {hash: $hash})-[:GRANTS]->(s:Space)
WHERE NOT k.revoked
RETURN s.id AS space, k.id AS key_id;
