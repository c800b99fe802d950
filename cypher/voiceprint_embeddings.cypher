// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param id => null
// :param message_ids => []
// Voiceprint embeddings of one speaker, optionally restricted to some messages.
// Params: $space, $id, $message_ids (null = all)
MATCH (v:Voiceprint)-[:OF]->(s:Speaker {space: $space, id: $id})
WHERE $message_ids IS NULL OR v.message_id IN $message_ids
RETURN v.id AS id, v.message_id AS message_id, v.embedding AS embedding;
