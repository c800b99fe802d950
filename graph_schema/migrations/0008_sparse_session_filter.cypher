// voxmem schema v8 (issue 18, the SPLADE channel filtered by the asker's sessions inside the
// index): the SPLADE terms with the message's space AND session in one Lucene document
// (whitespace analyzer: terms are "t<vocabulary id>", ids are single tokens), so the sparse
// tool's Lucene query requires the space and the asker's sessions
// (cypher/access/message_lucene_filter.cypher) the way the BM25 tool's does on
// message_scoped_text. The space-only index of migration 0006 (message_sparse) is no longer
// queried; it is left in place here so processes started before this change keep working, and
// is dropped by a later migration.
CREATE FULLTEXT INDEX message_scoped_sparse IF NOT EXISTS FOR (m:Message) ON EACH [m.sparse_terms, m.space, m.session]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}};
