// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => []
// Remove what extraction derived from some messages, so re-running it is idempotent:
// facts and attributes supported only by these messages are deleted (facts they had
// superseded become current again, conflict flags they caused are settled), others just
// lose these DERIVED_FROM edges; inferred ADDRESSES edges (every source except 'given', and an
// 'answered' edge whose answering turn is not among these: the answer was not replayed),
// extraction audit items and name evidence from these messages are removed. Messages are
// untouched. Only nodes linked to these messages are visited (cost independent of space size).
// Params: $space, $ids (message ids)
MATCH (m:Message {space: $space}) WHERE m.id IN $ids
WITH collect(m) AS msgs
CALL (msgs) {
  UNWIND msgs AS m
  MATCH (m)-[r:ADDRESSES]->()
  WHERE r.source <> 'given' AND NOT (r.source = 'answered' AND NOT r.answered_by IN $ids)
  DELETE r
}
CALL (msgs) {
  UNWIND msgs AS m
  MATCH (d)-[r:DERIVED_FROM]->(m) WHERE d:Fact OR d:Attribute
  DELETE r
  RETURN collect(DISTINCT d) AS touched
}
WITH msgs, [d IN touched WHERE NOT EXISTS { (d)-[:DERIVED_FROM]->() }] AS gone
CALL (gone) {
  UNWIND gone AS d
  MATCH (d)-[:SUPERSEDES]->(old)
  WHERE NOT EXISTS { MATCH (other)-[:SUPERSEDES]->(old) WHERE NOT other IN gone }
  SET old.current = true, old.valid_to = null
}
CALL (gone) {
  UNWIND gone AS d
  MATCH (d)-[:CONFLICTS_WITH]-(o:Fact) WHERE NOT o IN gone
  RETURN collect(DISTINCT o) AS partners
}
FOREACH (d IN gone | DETACH DELETE d)
WITH msgs, partners
CALL (partners) {
  UNWIND partners AS f
  WITH f WHERE NOT EXISTS { (f)-[:CONFLICTS_WITH]-() }
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
