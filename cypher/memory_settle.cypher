// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param merges => []
// :param space => 'demo-household'
// :param rows => []
// Apply a replayed evolution (voxmem.memory.fold.redecide) to stored facts or attributes.
// $merges: a repeat of what was current when it was said (same text, or same slot and value)
// becomes support of that fact or attribute, as the writer records a repeat (its messages are
// DERIVED_FROM the kept one), and is deleted. $rows: each fact or attribute whose stored state
// differs from the replay gets the replay's: current, conflict (facts; null for attributes),
// valid_to (the valid_from of what supersedes it), and exactly the SUPERSEDES and CONFLICTS_WITH
// edges the replay gives it (others among them are removed).
// Params: $space, $merges [{repeat, kept}], $rows [{id, current, conflict, superseded_by,
//         supersedes (ids), conflicts (ids)}]
CALL () {
  UNWIND $merges AS pair
  MATCH (d {space: $space, id: pair.repeat}), (k {space: $space, id: pair.kept})
  WHERE (d:Fact AND k:Fact) OR (d:Attribute AND k:Attribute)
  CALL (d, k) { MATCH (d)-[:DERIVED_FROM]->(m:Message) MERGE (k)-[:DERIVED_FROM]->(m) }
  DETACH DELETE d
}
CALL () {
  UNWIND $rows AS row
  MATCH (f {space: $space, id: row.id}) WHERE f:Fact OR f:Attribute
  OPTIONAL MATCH (n {space: $space, id: row.superseded_by})
  SET f.current = row.current, f.valid_to = n.valid_from,
      f.conflict = CASE WHEN f:Fact THEN row.conflict END
  WITH f, row
  CALL (f, row) { MATCH (f)-[r:SUPERSEDES]->(o) WHERE NOT o.id IN row.supersedes DELETE r }
  CALL (f, row) { MATCH (f)-[r:CONFLICTS_WITH]->(o) WHERE NOT o.id IN row.conflicts DELETE r }
  CALL (f, row) {
    UNWIND row.supersedes AS old
    MATCH (o {space: $space, id: old}) WHERE labels(o) = labels(f)
    MERGE (f)-[:SUPERSEDES]->(o)
  }
  CALL (f, row) {
    UNWIND row.conflicts AS other
    MATCH (o:Fact {space: $space, id: other})
    MERGE (f)-[:CONFLICTS_WITH]->(o)
  }
}
RETURN size($merges) + size($rows) AS changed;
