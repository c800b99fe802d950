// voxmem schema v7 (issue 17, scoped retrieval filtered inside the indexes). The message
// vector index gains the filter properties space and session, so `SEARCH … WHERE m.space = …`
// or `… WHERE m.session IN …` (Cypher 25) filters inside HNSW instead of after it
// (cypher/access/message_search.cypher); the index is rebuilt under the same name, and
// db.index.vector.queryNodes still reads it. message_scoped_text indexes the text with its
// space and session, so a Lucene query requires them (cypher/access/message_lucene_filter.cypher);
// message_text stays for the queries that search text alone (who_said, said_to, the store).
// On Neo4j 5.26 (no filter properties) the migration runner drops the `CYPHER 25` prefix and
// the `WITH [...]` list, and retrieval uses the *_legacy queries (docs/scaling.md).
DROP INDEX message_embedding IF EXISTS;
CYPHER 25 CREATE VECTOR INDEX message_embedding IF NOT EXISTS FOR (m:Message) ON m.embedding
  WITH [m.space, m.session]
  OPTIONS {indexConfig: {`vector.dimensions`: $text_dim, `vector.similarity_function`: 'cosine'}};
CREATE FULLTEXT INDEX message_scoped_text IF NOT EXISTS FOR (m:Message) ON EACH [m.text, m.space, m.session];
