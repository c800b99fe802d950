// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param speakers => []
// Finally delete the participant and the audit items that name them: by their participant list,
// or by their JSON detail quoting the participant's id or one of their deleted voices' ids (an
// identity item, e.g. identity_link {"participant": id, "name": "Dave", ...}, lists no
// participants; ids are random tokens, so the quoted id matches nothing else); facts others
// stated about them ("Maya's room is 412.") stay as text but no longer hold their id as subject.
// Params: $space, $id, $speakers (the deleted voices' ids)
MATCH (p:Participant {space: $space, id: $id})
CALL (p) {
  MATCH (f:Fact {space: $space, subject_key: $id})
  REMOVE f.subject_key
}
WITH p, ['"' + $id + '"'] + [s IN $speakers | '"' + s + '"'] AS quoted
OPTIONAL MATCH (a:AuditItem {space: $space})
  WHERE $id IN coalesce(a.participants, []) OR any(q IN quoted WHERE a.detail CONTAINS q)
WITH p, collect(a) AS audits
FOREACH (a IN audits | DETACH DELETE a)
DETACH DELETE p
RETURN size(audits) AS audit_items;
