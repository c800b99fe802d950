// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param batch => 1000
// Delete up to $batch nodes of a space (any label); call until it returns 0.
// Params: $space, $batch
MATCH (n) WHERE n.space = $space
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted;
