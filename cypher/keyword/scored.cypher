// @keyword.scored(m, terms, idfs, avgdl): the BM25 score of candidate message `m` from the asker's
// scope's statistics alone: the sum over the query words t the message holds of
//   idf(t) * tf / (tf + k1 * (1 - b + b * len / avgdl)),   k1 = 1.2, b = 0.75,
// tf = how often `m` holds t, len = its length in tokens (m.bm25_tf, m.bm25_len, @keyword.count);
// `terms` the query's distinct words, `idfs` their idf ln(1 + (docs - df + 0.5) / (df + 0.5)) aligned,
// `avgdl` the scope's mean length (retrieve_messages_fulltext computes them from the scope's
// counters). Lucene's BM25Similarity has the same form and constants, so the scores keep the
// scale the tool returned before; they no longer depend on other spaces. Like @sparse.scored, the
// candidate's stored terms are read once (~20 distinct per turn), each tested against the few query
// words. A message without terms (none stored yet) scores 0.
reduce(s = 0.0, i IN range(0, size(coalesce(m.bm25_terms, [])) - 1) |
       s + CASE WHEN m.bm25_terms[i] IN terms
                THEN idfs[[j IN range(0, size(terms) - 1) WHERE terms[j] = m.bm25_terms[i]][0]]
                     * m.bm25_tf[i] / (m.bm25_tf[i] + 1.2 * (0.25 + 0.75 * m.bm25_len / avgdl))
                ELSE 0.0 END)
