// voxmem schema v6 (learned sparse retrieval, issue 18): the SPLADE terms of each message's
// speaker-aware passage ("t<vocabulary id>" tokens, hence the whitespace analyzer) and its space
// in one Lucene document, so a query requires the space inside the index and ORs its boosted
// terms (cypher/retrieve_messages_sparse.cypher); weights are stored aligned in sparse_weights.
CREATE FULLTEXT INDEX message_sparse IF NOT EXISTS FOR (m:Message) ON EACH [m.sparse_terms, m.space]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}};
