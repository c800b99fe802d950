// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param rows => []
// Create exported relationships between imported nodes (endpoints by element id).
// Params: $rows [{start, end, type, props}]
UNWIND $rows AS row
MATCH (a) WHERE elementId(a) = row.start
MATCH (b) WHERE elementId(b) = row.end
CREATE (a)-[r:$(row.type)]->(b)
SET r = row.props
RETURN count(r) AS created;
