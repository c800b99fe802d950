// @keyword.scored(mt, mtf, norm, terms, idfs): the BM25 score of a candidate message from the asker's
// scope's statistics alone: the sum over the query words t the message holds of
//   idf(t) * tf / (tf + norm),   norm = k1 * (1 - b + b * len / avgdl),   k1 = 1.2, b = 0.75,
// `mt` and `mtf` the message's distinct terms and how often each occurs (m.bm25_terms, m.bm25_tf,
// @keyword.count; `mt` [] when none are stored: the score is then 0), `norm` its length factor,
// computed once per candidate by the caller as 1.2 * (0.25 + 0.75 * m.bm25_len / avgdl);
// `terms` the query's distinct words, `idfs` their idf ln(1 + (docs - df + 0.5) / (df + 0.5))
// aligned, `avgdl` the scope's mean length (retrieve_messages_fulltext computes them from the
// scope's counters). Lucene's BM25Similarity has the same form and constants, so the scores keep
// the scale the tool returned before; they no longer depend on other spaces. Only the candidate's
// terms that are query words are visited, in the order of `mt` (sorted at ingest), so the sum adds
// the same numbers in the same order as the loop over every term that it replaced (a term not in
// the query added 0.0): the scores are bit for bit those of fb8fd93. Why the caller binds the
// properties and the length factor: the loop read m.bm25_tf and m.bm25_len from the store on
// every step (7,470 db hits for 200 candidates, ~3 ms of a 16 ms query at 100k; docs/retrieval.md
// "BM25 from the asker's scope: the latency won back").
reduce(s = 0.0, i IN [i IN range(0, size(mt) - 1) WHERE mt[i] IN terms] |
       s + idfs[[j IN range(0, size(terms) - 1) WHERE terms[j] = mt[i]][0]] * mtf[i] / (mtf[i] + norm))
