// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param rows => []
// Store spoken turns' ASR hints without a deleted person's name (rows from
// participant_delete_hints, filtered by voxmem.memory.pipeline.hints_without); an empty list is
// stored as no hint, as message_audio_append stores a turn sent without one.
// Params: $space, $rows [{id, vocabulary}]
UNWIND $rows AS row
MATCH (m:Message {id: row.id})
WHERE m.space = $space
SET m.asr_vocabulary = CASE WHEN size(row.vocabulary) > 0 THEN row.vocabulary END
RETURN count(m) AS updated;
