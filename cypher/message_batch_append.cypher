// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param rows => [{session: 'kitchen-monday', id: 'demo-household~t~browser-1', idx: 0, text: 'Tom, the plumber is coming on Thursday.', ts: toString(datetime()), source: 'text', passage: 'Priya to Tom: Tom, the plumber is coming on Thursday.', sparse_terms: '', sparse_weights: [], embedding: [x IN range(1, 384) | 0.05], speaker_id: 'p_browser', addressee_ids: []}]
// Batch import: many text turns in one statement, after session_lock (every session of the
// batch) and participant_named in the same transaction. Each row is what message_append writes
// for one turn: the Message (memory_pending until its memory is derived), its embedding and
// SPLADE terms of the speaker-aware passage, SPEAKS, HAS_MESSAGE, PARTICIPATED_IN and the given
// ADDRESSES edges, and its text counted into its session's BM25 statistics (@keyword.count).
// NEXT edges and the sessions' counters follow (message_batch_link).
// Params: $space, $rows [{session, id, idx, text, ts, source, passage, sparse_terms,
//         sparse_weights, embedding, speaker_id, addressee_ids}]
// The embedding is a packed float32 VECTOR on a Cypher 25 server (Database.vector, run through
// Database.vector_query), a list of floats on 5.26: toFloatList reads either.
UNWIND $rows AS row
MATCH (s:Session {space: $space, id: row.session})
MATCH (p:Participant {space: $space, id: row.speaker_id})
CREATE (m:Message {space: $space, id: row.id, session: row.session,
                   session_key: @access.session_key($space, row.session), idx: row.idx, text: row.text,
                   ts: datetime(row.ts), source: row.source, created_at: datetime(), memory_pending: true,
                   passage: row.passage, sparse_terms: row.sparse_terms, sparse_weights: row.sparse_weights,
                   sparse_head: @sparse.head($space, row.sparse_terms, row.sparse_weights)})
CREATE (s)-[:HAS_MESSAGE]->(m)
CREATE (p)-[:SPEAKS]->(m)
MERGE (p)-[:PARTICIPATED_IN]->(s)
@keyword.count(m)
WITH s, m, row
CALL db.create.setNodeVectorProperty(m, 'embedding', toFloatList(row.embedding))
WITH s, m, row
CALL (s, m, row) {
  UNWIND row.addressee_ids AS aid
  MATCH (ap:Participant {space: $space, id: aid})
  MERGE (m)-[:ADDRESSES {source: 'given'}]->(ap)
  MERGE (ap)-[:PARTICIPATED_IN]->(s)
}
RETURN count(m) AS written;
