// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => []
// Inspect audit_self_addressed: each listed turn with its speaker and every person it addresses.
// Params: $space, $ids (message ids from the audit's sample)
MATCH (p:Participant)-[s:SPEAKS]->(m:Message {space: $space})
WHERE m.id IN $ids
OPTIONAL MATCH (m)-[a:ADDRESSES]->(q:Participant)
RETURN p, s, m, a, q
LIMIT 100;
