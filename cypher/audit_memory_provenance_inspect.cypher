// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => []
// Inspect audit_memory_provenance: the listed facts/attributes with whatever they are linked to.
// Params: $space, $ids (fact/attribute ids from the audit's sample)
MATCH (d {space: $space})
WHERE (d:Fact OR d:Attribute) AND d.id IN $ids
OPTIONAL MATCH (d)-[r]-(x)
RETURN d, r, x
LIMIT 100;
