// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Which derived memory layers hold anything in a space, so the agent skips tools over empty
// layers (two index lookups instead of a vector and a full-text query each). Holds no evidence.
// Params: $space
RETURN EXISTS { MATCH (:Fact {space: $space}) } AS fact,
       EXISTS { MATCH (:Attribute {space: $space}) } AS profile;
