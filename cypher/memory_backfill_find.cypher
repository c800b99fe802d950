// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param placeholder => null
// Facts and attributes whose text still holds the placeholder of a participant that has
// since been named ("{p_…}"), to be re-rendered with the name (back-fill).
// Params: $space, $placeholder
MATCH (f:Fact {space: $space}) WHERE f.content CONTAINS $placeholder
RETURN f.id AS id, 'Fact' AS label, f.content AS text
UNION
MATCH (a:Attribute {space: $space}) WHERE a.text CONTAINS $placeholder
RETURN a.id AS id, 'Attribute' AS label, a.text AS text;
