// One space with its access policy and a count of its messages.
// Params: $space
MATCH (s:Space {id: $space})
RETURN s.id AS id, s.policy AS policy, toString(s.created_at) AS created_at,
       COUNT { MATCH (m:Message {space: $space}) } AS messages;
