// voxmem schema v10 (issue 18, SPLADE latency: document-side pruning): each message's head terms
// (`sparse_head`: the prefix of its heaviest-first `sparse_terms` whose weight is at least 0.3 × its
// heaviest, the fragment cypher/sparse/head.cypher) in their own Lucene document with the space and
// session, so the SPLADE tool's candidate disjunction visits a fraction of the postings; the exact
// score still reads every stored term and weight. Messages stored before this migration get their
// head here, in batches (an auto-commit statement: the migration runner runs a statement holding
// IN TRANSACTIONS outside a managed transaction); the head index is created after, so it is
// populated once instead of updated per write. The all-terms index of migration 0008 stays: the
// tool widens on it when the head finds too few turns. Idempotent: only messages without a head.
MATCH (m:Message) WHERE m.sparse_terms IS NOT NULL AND m.sparse_weights IS NOT NULL AND m.sparse_head IS NULL
CALL (m) {
  SET m.sparse_head = trim(reduce(head = '', t IN split(m.sparse_terms, ' ')[0..size([w IN m.sparse_weights WHERE w >= 0.3 * m.sparse_weights[0]])]
                                  | head + ' ' + t))
} IN TRANSACTIONS OF 10000 ROWS;
CREATE FULLTEXT INDEX message_scoped_sparse_head IF NOT EXISTS FOR (m:Message) ON EACH [m.sparse_head, m.space, m.session]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}};
