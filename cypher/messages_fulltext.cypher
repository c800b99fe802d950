// Full-text (BM25) search over message text, restricted to one space.
// The index is shared by all spaces, so it over-fetches ($fetch) and filters.
// Params: $space, $lucene (escaped Lucene query), $fetch, $k
CALL db.index.fulltext.queryNodes('message_text', $lucene, {limit: $fetch}) YIELD node, score
WHERE node.space = $space
RETURN node.id AS id, score
ORDER BY score DESC LIMIT $k;
