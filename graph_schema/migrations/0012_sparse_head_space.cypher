// voxmem schema v12 (issue 18, SPLADE latency, tenth pass): each message's SPLADE head terms
// (`sparse_head`, migration 0010) qualified by its space, `<space>~t<id>` (the fragment
// cypher/sparse/head.cypher), so the SPLADE candidate query selects the space through its terms
// and needs no required `+space:"…"` clause, which stopped Lucene's top-k pruning (at 100k the bare
// candidate query cost 27-30 ms of Neo4j time with that clause against 10-14 without it,
// docs/retrieval.md "Latency, tenth pass"). The `message_scoped_sparse_head` index is unchanged
// (the same properties; Lucene re-indexes each rewritten message in place, so the index serves
// throughout). Batched in an auto-commit statement (the migration runner runs a statement holding
// IN TRANSACTIONS outside a managed transaction). Idempotent: only messages whose head differs
// from the fragment's.
MATCH (m:Message)
WHERE m.sparse_terms IS NOT NULL AND m.sparse_weights IS NOT NULL
  AND (m.sparse_head IS NULL
       OR m.sparse_head <> trim(reduce(head = '', t IN split(m.sparse_terms, ' ')[0..size([w IN m.sparse_weights WHERE w >= 0.3 * m.sparse_weights[0]])]
                                       | head + ' ' + m.space + '~' + t)))
CALL (m) {
  SET m.sparse_head = trim(reduce(head = '', t IN split(m.sparse_terms, ' ')[0..size([w IN m.sparse_weights WHERE w >= 0.3 * m.sparse_weights[0]])]
                                  | head + ' ' + m.space + '~' + t))
} IN TRANSACTIONS OF 10000 ROWS;
