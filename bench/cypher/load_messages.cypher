// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param rows => []
// :param space => 'demo-household'
// :param addressed_by => null
// Benchmark loader (bench/retrieval_data.py): write a batch of turns of one space in one
// transaction, following MODEL.md: Participant (by key), Session, Message with its embedding,
// HAS_MESSAGE, SPEAKS, ADDRESSES {source}, PARTICIPATED_IN, the BM25 counts (@keyword.count). NEXT edges come after, per session
// (bench/cypher/link_next.cypher). Used to load datasets and synthetic corpora fast with precomputed
// embeddings; the API's turn append (message_append) stays the path for live turns.
// Params: $space, $rows [{id, session, idx, text, ts (ISO-8601), source,
//         speaker {key, id, name}, addressees [{key, id, name}], embedding,
//         passage, sparse_terms, sparse_weights (null when the run does not index passages)}], $addressed_by (ADDRESSES.source)
UNWIND $rows AS row
MERGE (p:Participant {space: $space, key: row.speaker.key})
  ON CREATE SET p.id = row.speaker.id, p.name = row.speaker.name, p.names_text = row.speaker.name,
                p.aliases = [], p.created_at = datetime()
MERGE (s:Session {space: $space, id: row.session})
  ON CREATE SET s.started_at = datetime(row.ts), s.n_messages = 0
CREATE (m:Message {space: $space, id: row.id, session: row.session,
                   session_key: @access.session_key($space, row.session), idx: row.idx, text: row.text,
                   ts: datetime(row.ts), source: row.source, created_at: datetime(),
                   passage: row.passage, sparse_terms: row.sparse_terms, sparse_weights: row.sparse_weights,
                   sparse_head: @sparse.head($space, row.sparse_terms, row.sparse_weights)})
CREATE (s)-[:HAS_MESSAGE]->(m)
CREATE (p)-[:SPEAKS]->(m)
MERGE (p)-[:PARTICIPATED_IN]->(s)
SET s.n_messages = CASE WHEN s.n_messages > row.idx THEN s.n_messages ELSE row.idx + 1 END,
    s.last_ts = datetime(row.ts)
@keyword.count(m)
WITH m, s, row
CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)
WITH m, s, row
CALL (m, s, row) {
  UNWIND row.addressees AS a
  MERGE (ap:Participant {space: $space, key: a.key})
    ON CREATE SET ap.id = a.id, ap.name = a.name, ap.names_text = a.name, ap.aliases = [],
                  ap.created_at = datetime()
  MERGE (m)-[:ADDRESSES {source: $addressed_by}]->(ap)
  MERGE (ap)-[:PARTICIPATED_IN]->(s)
}
RETURN count(m) AS written;
