// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param sample => 500
// SPLADE term statistics of a space (voxmem.retrieval.tools.SparseTermStats): the stored terms of
// its $sample most recent indexed messages, from which Python counts each term's share of
// documents. The SPLADE tool leaves the space's most common terms out of its Lucene candidate
// query (they match most of the space and rank nothing; exact scoring still uses every query
// term), docs/retrieval.md "Latency, fifth pass". Returns term lists only, never text, to no
// asker: statistics for choosing candidates, like the idf Lucene computes over the whole index.
// Walks the (space, ts) range index newest first, so it reads $sample rows whatever the space's
// size: ordering by both index properties is what lets the planner take the index order (ORDER BY
// m.ts alone sorted all 100k messages of the benchmark space: 200 ms vs 25 ms, 100,001 vs 502 db
// hits). Messages not indexed yet (no terms) are dropped after the limit.
// Params: $space, $sample
MATCH (m:Message)
WHERE m.space = $space AND m.ts IS NOT NULL
WITH m ORDER BY m.space DESC, m.ts DESC LIMIT $sample
WITH m WHERE m.sparse_terms IS NOT NULL
RETURN m.sparse_terms AS terms;
