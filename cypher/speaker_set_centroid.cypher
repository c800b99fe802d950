// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param centroid => [x IN range(1, 256) | 0.0625]
// Replace a speaker's centroid (after a split, recomputed from its voiceprints).
// Params: $space, $id, $centroid
MATCH (s:Speaker {space: $space, id: $id})
CALL db.create.setNodeVectorProperty(s, 'centroid', $centroid)
RETURN s.id AS id;
