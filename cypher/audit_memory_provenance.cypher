// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// Audit: every Fact and Attribute must be DERIVED_FROM at least one message of its space.
// Must be zero.
// Params: $space
MATCH (d {space: $space})
WHERE (d:Fact OR d:Attribute)
  AND NOT EXISTS { (d)-[:DERIVED_FROM]->(:Message {space: $space}) }
RETURN count(d) AS violations, collect(d.id)[..10] AS sample;
