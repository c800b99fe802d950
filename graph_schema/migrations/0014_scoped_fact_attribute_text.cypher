// voxmem schema v14: fact and attribute text indexed with their space, as message text is since
// 0007 (message_scoped_text). The shared fact_content and attribute_text indexes took the fetch
// limit over every space in the database before the space filter, so another space's matches
// took a space's candidates (the tools widened their search up to 20x, then lost hits). Queries
// now require the space inside Lucene (cypher/access/space_lucene_filter.cypher). BM25's term
// statistics of these indexes are still Lucene's, over the whole index (docs/retrieval.md).
CREATE FULLTEXT INDEX fact_scoped_content IF NOT EXISTS FOR (f:Fact) ON EACH [f.content, f.space];
CREATE FULLTEXT INDEX attribute_scoped_text IF NOT EXISTS FOR (a:Attribute) ON EACH [a.text, a.space];
DROP INDEX fact_content IF EXISTS;
DROP INDEX attribute_text IF EXISTS;
