// Remove what extraction derived from some messages, so re-running it is idempotent:
// facts and attributes supported only by these messages are deleted (facts they had
// superseded become current again), others just lose these DERIVED_FROM edges; inferred
// ADDRESSES edges (every source except 'given') and extraction audit items are removed,
// and name evidence recorded from these messages is dropped. Messages are untouched.
// Params: $space, $ids (message ids)
MATCH (m:Message {space: $space}) WHERE m.id IN $ids
WITH collect(m) AS msgs
CALL (msgs) {
  UNWIND msgs AS m
  MATCH (m)-[r:ADDRESSES]->() WHERE r.source <> 'given'
  DELETE r
}
CALL (msgs) {
  UNWIND msgs AS m
  MATCH (d)-[r:DERIVED_FROM]->(m) WHERE d:Fact OR d:Attribute
  DELETE r
}
OPTIONAL CALL (msgs) {
  MATCH (d:Fact {space: $space}) WHERE NOT EXISTS { (d)-[:DERIVED_FROM]->() }
  RETURN d
UNION
  MATCH (d:Attribute {space: $space}) WHERE NOT EXISTS { (d)-[:DERIVED_FROM]->() }
  RETURN d
}
CALL (d) {
  WITH d WHERE d IS NOT NULL
  OPTIONAL MATCH (d)-[:SUPERSEDES]->(old)
  WHERE NOT EXISTS { MATCH (other)-[:SUPERSEDES]->(old) WHERE other <> d }
  SET old.current = true, old.valid_to = null
}
WITH msgs, collect(d) AS gone
FOREACH (d IN gone | DETACH DELETE d)
WITH msgs
CALL (msgs) {
  MATCH (f:Fact {space: $space, conflict: true}) WHERE NOT EXISTS { (f)-[:CONFLICTS_WITH]-() }
  SET f.conflict = false
}
CALL (msgs) {
  MATCH (a:AuditItem {space: $space}) WHERE a.message_id IN $ids
  DETACH DELETE a
}
CALL (msgs) {
  MATCH (p:Participant {space: $space})
  WHERE any(e IN coalesce(p.name_evidence, []) WHERE any(i IN $ids WHERE e ENDS WITH '|' + i))
  SET p.name_evidence = [e IN p.name_evidence WHERE none(i IN $ids WHERE e ENDS WITH '|' + i)]
}
RETURN size(msgs) AS messages;
