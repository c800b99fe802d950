// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// Finally delete the participant and the audit items that name them; facts others stated
// about them ("Maya's room is 412.") stay as text but no longer hold their id as subject.
// Params: $space, $id
MATCH (p:Participant {space: $space, id: $id})
CALL (p) {
  MATCH (f:Fact {space: $space, subject_key: $id})
  REMOVE f.subject_key
}
OPTIONAL MATCH (a:AuditItem {space: $space}) WHERE $id IN coalesce(a.participants, [])
WITH p, collect(a) AS audits
FOREACH (a IN audits | DETACH DELETE a)
DETACH DELETE p
RETURN size(audits) AS audit_items;
