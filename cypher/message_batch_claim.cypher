// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => []
// :param lease_s => 600
// Batch import: the importer claims its stored turns whose memory it has not derived yet, for
// $lease_s seconds, renewed before each chunk. Why: repair (at start-up, or before another
// turn of the session) derives any turn left memory_pending for 30 s, and a long import's later
// chunks wait longer than that; a repair in another process would derive them out of order and
// concurrently with the importer. A claim lapses by itself if the importer dies, so repair
// then takes the turns. Params: $space, $ids (message ids), $lease_s
UNWIND $ids AS id
MATCH (m:Message {space: $space, id: id})
WHERE m.memory_pending = true
SET m.memory_claimed_until = datetime() + duration({seconds: $lease_s})
RETURN count(m) AS claimed;
