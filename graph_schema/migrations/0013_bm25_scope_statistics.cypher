// voxmem schema v13 (issue 11 item 5, privacy): BM25 from the asker's scope's statistics. Lucene's
// BM25 statistics (document frequency, document count, average length) are those of the whole
// `message_scoped_text` index, every space in the database, so a tenant's full-text scores and ranks
// moved when another tenant ingested, and carried their word frequencies (docs/retrieval.md "BM25
// from the asker's scope"). Each message now stores its BM25 terms (m.bm25_terms, distinct tokens
// of its text, sorted; m.bm25_tf, their counts; m.bm25_len, its length), each Session its number of
// counted messages and their total length (bm25_docs, bm25_length), and (:Bm25Term {space, session,
// term, df}) how many messages of the session hold the term: the fragment cypher/keyword/count.cypher,
// included by every writer of a Message. Unique per (space, session, term); indexed by (space, term)
// for the query's document frequencies (retrieve_messages_fulltext). Messages stored before this
// migration are counted here, in batches (an auto-commit statement: the migration runner runs a
// statement holding IN TRANSACTIONS outside a managed transaction), with the same expression as the
// fragment (cypher/keyword/tokens.cypher and count.cypher; tests/retrieval/test_bm25_space.py checks the
// two agree). Idempotent: only messages without bm25_terms are counted, and a counted one has them.
// Derived copies of content: deleting a person takes their messages out (@keyword.uncount in
// participant_delete_messages), deleting a space deletes the nodes (they hold `space`).
CREATE CONSTRAINT bm25_term_key IF NOT EXISTS FOR (d:Bm25Term) REQUIRE (d.space, d.session, d.term) IS UNIQUE;
CREATE INDEX bm25_term_space_term IF NOT EXISTS FOR (d:Bm25Term) ON (d.space, d.term);
MATCH (m:Message) WHERE m.bm25_terms IS NULL AND m.text IS NOT NULL
CALL (m) {
  WITH m WHERE m.bm25_terms IS NULL AND m.text IS NOT NULL
  WITH m, [t IN split(reduce(s = '', c IN split(replace(toLower(m.text), '’', "'"), '') |
                                     s + CASE WHEN c =~ '[\\p{L}\\p{N}_]' THEN c
                                              WHEN c = "'" AND right(s, 1) =~ '[\\p{L}\\p{N}_]' THEN c
                                              ELSE ' ' END), ' ')
                   WHERE t <> '' | CASE WHEN t ENDS WITH "'" THEN left(t, size(t) - 1) ELSE t END] AS tokens
  CALL (tokens) {
    UNWIND tokens AS t
    WITH t, count(*) AS tf ORDER BY t
    RETURN collect(t) AS terms, collect(tf) AS tfs
  }
  SET m.bm25_terms = terms, m.bm25_tf = tfs, m.bm25_len = size(tokens)
  WITH m, terms
  MATCH (bs:Session {space: m.space, id: m.session})
  SET bs.bm25_docs = coalesce(bs.bm25_docs, 0) + 1, bs.bm25_length = coalesce(bs.bm25_length, 0) + m.bm25_len
  WITH m, terms
  UNWIND terms AS t
  MERGE (d:Bm25Term {space: m.space, session: m.session, term: t})
    ON CREATE SET d.df = 0
  SET d.df = d.df + 1
} IN TRANSACTIONS OF 1000 ROWS;
