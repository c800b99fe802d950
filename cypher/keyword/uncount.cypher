// @keyword.uncount(m): take message `m` out of its session's BM25 statistics (@keyword.count), before it
// is deleted (a unit CALL subquery after a WITH *, the rows pass through): its Session's bm25_docs and bm25_length
// lose it, each of its terms' document frequency drops by 1, and a (:Bm25Term) whose frequency
// reaches 0 is deleted, so a deleted person's words stay in no node (tests/probe/
// test_deletion_leaves_nothing.py searches every property of the space for their name). Its own
// bm25_* properties are removed, so including this twice takes nothing twice.
// Only `m.space` and `m.session` are read: no parameter needed.
WITH *
CALL (m) {
  WITH m WHERE m.bm25_terms IS NOT NULL
  OPTIONAL MATCH (bs:Session {space: m.space, id: m.session})
  SET bs.bm25_docs = bs.bm25_docs - 1, bs.bm25_length = bs.bm25_length - m.bm25_len
  WITH m, m.bm25_terms AS terms
  REMOVE m.bm25_terms, m.bm25_tf, m.bm25_len
  WITH m, terms
  UNWIND terms AS t
  MATCH (d:Bm25Term {space: m.space, session: m.session, term: t})
  SET d.df = d.df - 1
  WITH d WHERE d.df <= 0
  DELETE d
}
