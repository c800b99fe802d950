// Neo4j Browser: paste these :param lines first, then the query (example values).
// :param space => 'demo-household'
// :param speaker_id => null
// :param speaker_labels => ['Speaker']
// :param vp_id => null
// :param voiceprint_labels => ['Voiceprint']
// Put a new Speaker and Voiceprint of an encoder whose vectors have their own vector indexes
// (the fused encoder's 512-d vectors: labels FusedSpeaker / FusedVoiceprint, indexes
// speaker_centroid_fused / voiceprint_embedding_fused, migration 0005). Neo4j indexes one
// label+property at one dimension, so the label is what selects the index; the 256-d indexes
// on Speaker / Voiceprint skip vectors of another dimension.
// Params: $space, $speaker_id, $vp_id, $speaker_labels, $voiceprint_labels
MATCH (s:Speaker {space: $space, id: $speaker_id})
SET s:$($speaker_labels)
WITH s
MATCH (v:Voiceprint {space: $space, id: $vp_id})
SET v:$($voiceprint_labels)
RETURN s.id AS id;
