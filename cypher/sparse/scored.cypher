// @sparse.scored(m): the second half of both SPLADE candidate queries (retrieve_messages_sparse_head,
// retrieve_messages_sparse), after the scope rule and the filters kept `m`: each candidate scored
// exactly, as SPLADE defines it — the dot product of the query weights ($weights, term -> weight)
// with every stored weight of the message (sparse_terms and sparse_weights are aligned), whatever
// index found it — then the top $k as @rows.message rows. The weights are read once
// per candidate into `stored`: indexed as `m.sparse_weights[i]` inside the reduce, the plan did not
// cache the ~90-float property and read it per term (131 -> 98 ms p50 at 100k, docs/retrieval.md
// "Latency pass").
// Params: $weights, $k, $lean (@rows.message)
WITH m, split(m.sparse_terms, ' ') AS terms, m.sparse_weights AS stored
WITH m, reduce(s = 0.0, i IN range(0, size(terms) - 1) |
               s + coalesce($weights[terms[i]], 0.0) * stored[i]) AS score
ORDER BY score DESC, m.session, m.idx, m.id LIMIT $k
RETURN @rows.message(m), score
ORDER BY score DESC, session, idx, id
