// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param limit => 50
// Message indexing (voxmem.passages): up to $limit messages of a space that have no passage
// index yet (stored before speaker-aware passages and SPLADE existed, or written by a path
// that does not index). The backfill pages through these until none are left, so it is
// idempotent: an indexed message is never returned again.
// Params: $space, $limit
MATCH (m:Message {space: $space})
WHERE m.sparse_terms IS NULL
RETURN m.id AS id
LIMIT $limit;
