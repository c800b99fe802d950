// @sparse.head(space, terms, weights): the head of a message's SPLADE terms, a string of the
// space-separated `<space>~t<id>` terms whose weight is at least 0.3 × the message's heaviest, i.e.
// the prefix of `terms` (stored heaviest first, voxmem.passages.sparse_fields), each qualified by
// the message's space, that the Lucene candidate index `message_scoped_sparse_head` holds
// (migration 0010; qualified since 0012). Document-side pruning: a message is a SPLADE candidate
// only through its heavy terms, so the Lucene disjunction visits a fraction of the postings, while
// the exact score still reads every stored term and weight (docs/retrieval.md "Latency, sixth
// pass"). Why space-qualified: the candidate query then needs no required `+space:"…"` clause (a
// term every document of a big space holds); that conjunction stopped Lucene's top-k pruning and
// cost two thirds of the query at 100k (docs/retrieval.md "Latency, tenth pass"). '~' occurs in no
// space id (voxmem.ids.is_valid_id), and the whitespace analyzer keeps `<space>~t<id>` one token.
// Null when `terms` or `weights` is null (a turn not indexed yet). Every writer of `sparse_terms`
// writes `sparse_head` with this fragment (tests/retrieval/test_sparse.py checks), and migration
// 0012 re-wrote older messages' heads with the same expression.
trim(reduce(head = '', t IN split(terms, ' ')[0..size([w IN weights WHERE w >= 0.3 * weights[0]])]
            | head + ' ' + space + '~' + t))
