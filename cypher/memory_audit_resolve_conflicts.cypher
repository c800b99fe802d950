// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param rows => []
// :param space => 'demo-household'
// A conflict a fold's replay settled (voxmem.memory.fold.redecide: the two statements turned
// out to be one speaker's, who restated their value): the fact_conflict audit items the
// conflicting fact's message raised about that subject are resolved. Matched by message and
// subject, not by detail: the detail quotes the texts as they read then ('{p_…}' before a name).
// Params: $space, $rows [{message_id, subject}]
UNWIND $rows AS row
MATCH (a:AuditItem {space: $space, kind: 'fact_conflict', message_id: row.message_id})
WHERE row.subject IN coalesce(a.participants, [])
SET a.resolved = true
RETURN count(a) AS resolved;
