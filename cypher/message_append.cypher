// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param session => 'kitchen-monday'
// :param speaker_id => null
// :param id => null
// :param idx => 0
// :param text => 'Tom, the plumber is coming on Thursday.'
// :param ts => datetime()
// :param source => 'text'
// :param passage => 'Priya: Tom, the plumber is coming on Thursday.'
// :param sparse_terms => []
// :param sparse_weights => []
// :param embedding => [x IN range(1, 384) | 0.05]
// :param addressee_ids => []
// Append one text turn to a session, after session_lock in the same transaction.
// The speaker and addressee participants were found or created just before, in the same
// transaction (participant_named); this writes the Message with its embedding, SPEAKS,
// ADDRESSES, PARTICIPATED_IN and NEXT edges. memory_pending marks it until its memory is derived
// (message_memory_done; message_memory_pending finds turns an outage left without memory).
// The embedding and the SPLADE terms are of the speaker-aware passage (voxmem.passages); the
// turn's text is counted into its session's BM25 statistics (@keyword.count, migration 0013).
// Params: $space, $session, $idx, $id, $text, $ts, $source, $embedding (list of floats),
//         $passage, $sparse_terms, $sparse_weights, $speaker_id, $addressee_ids (participant ids)
// Returns the stored message as message_get shows it (the route answers with it, no read after).
// The embedding is a packed float32 VECTOR on a Cypher 25 server (Database.vector, run through
// Database.vector_query), a list of floats on 5.26: toFloatList reads either.
MATCH (s:Session {space: $space, id: $session})
MATCH (p:Participant {space: $space, id: $speaker_id})
CREATE (m:Message {space: $space, id: $id, session: $session, session_key: @access.session_key($space, $session),
                   idx: $idx, text: $text,
                   ts: datetime($ts), source: $source, created_at: datetime(), memory_pending: true,
                   passage: $passage, sparse_terms: $sparse_terms, sparse_weights: $sparse_weights,
                   sparse_head: @sparse.head($space, $sparse_terms, $sparse_weights)})
CREATE (s)-[:HAS_MESSAGE]->(m)
CREATE (p)-[:SPEAKS]->(m)
MERGE (p)-[:PARTICIPATED_IN]->(s)
SET s.n_messages = $idx + 1, s.last_ts = datetime($ts)
@keyword.count(m)
WITH s, m, p
CALL db.create.setNodeVectorProperty(m, 'embedding', toFloatList($embedding))
WITH s, m, p
CALL (s, m) {
  MATCH (prev:Message {space: $space, session: $session, idx: $idx - 1})
  CREATE (prev)-[:NEXT]->(m)
}
CALL (s, m) {
  UNWIND $addressee_ids AS aid
  MATCH (ap:Participant {space: $space, id: aid})
  MERGE (m)-[:ADDRESSES {source: 'given'}]->(ap)
  MERGE (ap)-[:PARTICIPATED_IN]->(s)
}
RETURN m {.id, .session, .idx, .text, ts: toString(m.ts)} AS message, p {.id, .name} AS speaker,
       [(m)-[:ADDRESSES]->(a:Participant) | a {.id, .name}] AS addressees;
