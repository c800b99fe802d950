// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => []
// Inspect audit_open_items: the listed audit items, the turn that raised each and the people involved.
// Params: $space, $ids (audit item ids from the audit's sample)
MATCH (a:AuditItem {space: $space})
WHERE a.id IN $ids
OPTIONAL MATCH (m:Message {space: $space, id: a.message_id})
OPTIONAL MATCH (p:Participant {space: $space}) WHERE p.id IN coalesce(a.participants, [])
RETURN a, m, collect(p) AS participants
LIMIT 100;
