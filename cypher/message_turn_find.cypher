// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param ids => ['msg_example']
// Whether a text turn is stored already, under the first of its candidate ids that exists
// (the legacy '<space>:<turn_id>' first, then the namespaced id), shown as message_get shows
// it: an idempotent retry answers with it. First statement of the turn's write transaction,
// so the legacy check costs no read of its own.
// Params: $space, $ids (candidate message ids, in order of preference)
UNWIND range(0, size($ids) - 1) AS i
MATCH (m:Message {id: $ids[i], space: $space})
OPTIONAL MATCH (p:Participant)-[:SPEAKS]->(m)
RETURN i, m {.id, .session, .idx, .text, ts: toString(m.ts)} AS message, p {.id, .name} AS speaker,
       [(m)-[:ADDRESSES]->(a:Participant) | a {.id, .name}] AS addressees
ORDER BY i
LIMIT 1;
