// voxmem schema v5 (fused speaker encoder, issue 19): the fused encoder stores one 2·voice_dim
// vector per observation ([resemblyzer; d-vector] / sqrt 2, whose cosine is the mean of the two
// encoders' cosines) on Speaker.centroid and Voiceprint.embedding, like every encoder. Neo4j
// indexes one label+property at one dimension, so those nodes also carry FusedSpeaker /
// FusedVoiceprint and are indexed here; the 256-d indexes of 0001 skip them.
CREATE VECTOR INDEX speaker_centroid_fused IF NOT EXISTS FOR (s:FusedSpeaker) ON s.centroid
  OPTIONS {indexConfig: {`vector.dimensions`: 2 * $voice_dim, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX voiceprint_embedding_fused IF NOT EXISTS FOR (v:FusedVoiceprint) ON v.embedding
  OPTIONS {indexConfig: {`vector.dimensions`: 2 * $voice_dim, `vector.similarity_function`: 'cosine'}};
