// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param session => 'kitchen-monday'
// Whether a session already holds messages (an audio turn for a session without any starts
// a new session, so the space's earlier sessions are over and their voices get reconciled).
// Params: $space, $session
OPTIONAL MATCH (s:Session {space: $space, id: $session})
RETURN coalesce(s.n_messages, 0) > 0 AS has_messages;
