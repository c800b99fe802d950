// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => []
// Batch import: the memory of these turns is derived (extraction → memory → index ran, one
// transaction per chunk): clear their pending marks in one statement (message_memory_done
// does one turn).
// Params: $space, $ids (message ids)
UNWIND $ids AS id
MATCH (m:Message {space: $space, id: id})
REMOVE m.memory_pending, m.memory_claimed_until
RETURN count(m) AS done;
