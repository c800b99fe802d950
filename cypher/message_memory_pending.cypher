// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param min_age_s => 0
// :param limit => 50
// Turns of every space stored without their memory (voxmem.pipeline.turns: a message is
// written with memory_pending = true and the mark is removed once extraction → memory → index
// ran), which an outage between the two left so. Run at start-up (one scan of the messages);
// per turn, message_memory_pending_session looks at one session through its index. Oldest
// first; only turns older than $min_age_s, so a turn another request is deriving is left to it.
// Turns a running batch import has claimed (message_batch_claim) are its own, not repair's.
// Params: $min_age_s, $limit
MATCH (m:Message)
WHERE m.memory_pending = true
  AND m.created_at <= datetime() - duration({seconds: $min_age_s})
  AND (m.memory_claimed_until IS NULL OR m.memory_claimed_until < datetime())
RETURN m.space AS space, m.id AS id
ORDER BY m.created_at, m.idx
LIMIT $limit;
