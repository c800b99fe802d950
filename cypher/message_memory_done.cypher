// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// A turn's memory is derived (extraction → memory → index ran): clear its pending mark.
// Params: $space, $id
MATCH (m:Message {space: $space, id: $id})
REMOVE m.memory_pending, m.memory_claimed_until;
