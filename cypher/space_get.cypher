// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// One space with its access policy and a count of its messages.
// Params: $space
MATCH (s:Space {id: $space})
RETURN s.id AS id, s.policy AS policy, toString(s.created_at) AS created_at,
       COUNT { MATCH (m:Message {space: $space}) } AS messages;
