// @keyword.count(m): count message `m` into its session's BM25 statistics, once (a unit CALL
// subquery after a WITH *: the rows pass through, and Cypher 5 wants a WITH between a write and a
// CALL). Sets m.bm25_terms (its distinct tokens, @keyword.tokens, sorted),
// m.bm25_tf (how often each occurs, aligned) and m.bm25_len (its number of tokens); adds 1 and the
// length to its Session's bm25_docs and bm25_length; adds 1 to the document frequency `df` of each
// of its terms in the node (:Bm25Term {space, session, term}) (migration 0013: unique per space,
// session and term; created at the first turn of the session holding the term).
// Idempotent: a message whose bm25_terms is set was counted in the transaction that set them, so a
// retried or re-sent turn (or the backfill running again) adds nothing. Every writer of a Message
// includes it after the CREATE, in the same statement (message_append, message_batch_append,
// message_audio_append), under the session lock it already holds; @keyword.uncount takes it back.
// Why per session: a participant-scope asker's statistics are those of their sessions
// (retrieve_messages_fulltext), and per-session nodes keep concurrent writers of different
// sessions off each other's locks. Only `m.space` and `m.session` are read: no parameter needed.
WITH *
CALL (m) {
  WITH m WHERE m.bm25_terms IS NULL AND m.text IS NOT NULL
  WITH m, @keyword.tokens(m.text) AS tokens
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
}
