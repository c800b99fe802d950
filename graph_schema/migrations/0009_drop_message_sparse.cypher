// voxmem schema v9 (issue 18): drop migration 0006's full-text index `message_sparse` (SPLADE terms
// and space). Since migration 0008 the SPLADE tool queries `message_scoped_sparse` (terms, space
// and session) and nothing reads `message_sparse`; keeping it cost every message write a second
// Lucene document of ~90 terms.
DROP INDEX message_sparse IF EXISTS;
