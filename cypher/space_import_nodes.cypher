// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param rows => []
// Create exported nodes in the importing space (labels and properties as given; ids already remapped).
// A Message's session_key names its space (@access.session_key, the vector index's filter,
// migration 0011), so it is set again for the importing space, not copied from the export.
// Params: $rows [{i, labels, props}]
UNWIND $rows AS row
CREATE (n:$(row.labels))
SET n = row.props
SET n.session_key = CASE WHEN n:Message AND n.session IS NOT NULL THEN @access.session_key(n.space, n.session) END
RETURN row.i AS i, elementId(n) AS eid;
