// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param rows => []
// Create exported nodes in the importing space (labels and properties as given; ids already remapped).
// Params: $rows [{i, labels, props}]
UNWIND $rows AS row
CREATE (n:$(row.labels))
SET n = row.props
RETURN row.i AS i, elementId(n) AS eid;
