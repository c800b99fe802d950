// Neo4j Browser: paste these :param lines first, then the query (example values).
// Message indexing (voxmem.passages): the spaces that hold messages without SPLADE terms, for
// the `voxmem index` backfill (run once after upgrading; a no-op when everything is indexed).
// Params: none
MATCH (s:Space)
WHERE EXISTS { MATCH (m:Message {space: s.id}) WHERE m.sparse_terms IS NULL }
RETURN s.id AS id
ORDER BY id;
