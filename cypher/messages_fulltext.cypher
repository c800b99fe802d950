// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param lucene => 'plumber'
// :param fetch => 100
// :param space => 'demo-household'
// :param k => 10
// Full-text (BM25) search over message text, restricted to one space.
// Lucene returns the space's messages only (@access.space_lucene_filter); over-fetches ($fetch) and filters.
// Params: $space, $lucene (escaped Lucene query), $fetch, $k
CALL db.index.fulltext.queryNodes('message_scoped_text',
                                  @access.space_lucene_filter() + '+text:(' + $lucene + ')',
                                  {limit: $fetch}) YIELD node, score
WHERE node.space = $space
RETURN node.id AS id, score
ORDER BY score DESC LIMIT $k;
