// @sparse.head(terms, weights): the head of a message's SPLADE terms, a string of the
// space-separated `t<id>` terms whose weight is at least 0.3 × the message's heaviest, i.e. the
// prefix of `terms` (stored heaviest first, voxmem.passages.sparse_fields) that the Lucene
// candidate index `message_scoped_sparse_head` holds (migration 0010). Document-side pruning: a
// message is a SPLADE candidate only through its heavy terms, so the Lucene disjunction visits a
// fraction of the postings, while the exact score still reads every stored term and weight
// (docs/retrieval.md "Latency, sixth pass"). Null when `terms` or `weights` is null (a turn not
// indexed yet). Every writer of `sparse_terms` writes `sparse_head` with this fragment
// (tests/retrieval/test_sparse.py checks), and migration 0010 back-filled older messages with the
// same expression.
trim(reduce(head = '', t IN split(terms, ' ')[0..size([w IN weights WHERE w >= 0.3 * weights[0]])]
            | head + ' ' + t))
