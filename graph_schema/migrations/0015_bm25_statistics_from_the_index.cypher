// voxmem schema v15 (issue 18, latency): the BM25 query's scope statistics read from indexes alone.
// retrieve_messages_fulltext sums, for the asker's scope, each query word's document frequency over
// the (:Bm25Term {space, session, term, df}) counters and the sessions' bm25_docs / bm25_length
// (migration 0013). Through the (space, term) index and the (space, id) key, every counter row
// found was then a property read of `df` (and of `session`, for a scope of some sessions): ~3,000
// rows for a 7-word open query at 100k. These two composite range indexes hold the summed values
// themselves, so the query reads them from the index entries (`cache[d.df]` in PROFILE): the same
// numbers, fewer store reads (docs/retrieval.md "BM25 from the asker's scope: index-backed
// statistics"). The query names them in USING INDEX hints, so the planner does not pick the key.
// The (space, term) index is dropped: the new one's prefix serves every (space, term) lookup.
// Cost: a df or session-counter change at ingest also moves an index entry.
// Idempotent (IF NOT EXISTS / IF EXISTS); no data changes.
CREATE INDEX bm25_term_df IF NOT EXISTS FOR (d:Bm25Term) ON (d.space, d.term, d.session, d.df);
CREATE INDEX session_bm25_counts IF NOT EXISTS FOR (s:Session) ON (s.space, s.id, s.bm25_docs, s.bm25_length);
DROP INDEX bm25_term_space_term IF EXISTS;
