// Replace a speaker's centroid (after a split, recomputed from its voiceprints).
// Params: $space, $id, $centroid
MATCH (s:Speaker {space: $space, id: $id})
CALL db.create.setNodeVectorProperty(s, 'centroid', $centroid)
RETURN s.id AS id;
