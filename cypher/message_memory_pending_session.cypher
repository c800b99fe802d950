// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param session => 'kitchen-monday'
// :param min_age_s => 0
// :param limit => 50
// Turns of one session stored without their memory (see message_memory_pending), found
// through the (space, session, idx) index before the session's next turn is written.
// Turns a running batch import has claimed (message_batch_claim) are skipped.
// Params: $space, $session, $min_age_s, $limit
MATCH (m:Message {space: $space, session: $session})
WHERE m.idx >= 0
  AND m.memory_pending = true
  AND m.created_at <= datetime() - duration({seconds: $min_age_s})
  AND (m.memory_claimed_until IS NULL OR m.memory_claimed_until < datetime())
RETURN m.space AS space, m.id AS id
ORDER BY m.idx
LIMIT $limit;
