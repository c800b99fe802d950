// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Every relationship between two nodes of a space, by the endpoints' element ids (export).
// Params: $space
MATCH (a {space: $space})-[r]->(b {space: $space})
RETURN elementId(a) AS start, type(r) AS type, properties(r) AS props, elementId(b) AS end;
