// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param policy => 'open'
// Create a space (tenant). Fails on the uniqueness constraint when the id is taken.
// Params: $space (string), $policy ('open' | 'participant' | 'private')
CREATE (s:Space {id: $space, space: $space, policy: $policy, created_at: datetime()})
RETURN s.id AS id, s.policy AS policy, toString(s.created_at) AS created_at;
