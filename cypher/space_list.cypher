// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param skip => 0
// :param limit => 50
// Every space with its access policy and a count of its messages (admin listing).
// Params: $skip, $limit
MATCH (s:Space)
WITH s ORDER BY s.id SKIP $skip LIMIT $limit
RETURN s.id AS id, s.policy AS policy, toString(s.created_at) AS created_at,
       COUNT { MATCH (m:Message {space: s.id}) } AS messages;
