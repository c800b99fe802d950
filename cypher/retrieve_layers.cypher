// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Which derived memory layers hold anything in a space, so the agent skips tools over empty
// layers (two index lookups instead of a vector and a full-text query each). Holds no evidence.
// The access scope reads the same columns (retrieve_scope); this query serves a scope built
// without them and the agent.
// Params: $space
RETURN @layers.present();
