// voxmem schema v1: constraints, full-text and vector indexes.
// Applied by voxmem.graph_schema.migrate (one statement at a time, in order, never in parallel).
// $text_dim and $voice_dim are substituted from configuration before running.
// Paste a statement into Neo4j Browser after replacing those two placeholders.

// --- tenancy and access ---
CREATE CONSTRAINT space_id IF NOT EXISTS FOR (s:Space) REQUIRE s.id IS UNIQUE;
CREATE CONSTRAINT apikey_id IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.id IS UNIQUE;
CREATE CONSTRAINT apikey_hash IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.hash IS UNIQUE;

// --- people and voices ---
CREATE CONSTRAINT participant_id IF NOT EXISTS FOR (p:Participant) REQUIRE p.id IS UNIQUE;
CREATE CONSTRAINT speaker_id IF NOT EXISTS FOR (s:Speaker) REQUIRE s.id IS UNIQUE;
CREATE CONSTRAINT voiceprint_id IF NOT EXISTS FOR (v:Voiceprint) REQUIRE v.id IS UNIQUE;
CREATE CONSTRAINT participant_space_key IF NOT EXISTS FOR (p:Participant) REQUIRE (p.space, p.key) IS UNIQUE;
CREATE INDEX speaker_space IF NOT EXISTS FOR (s:Speaker) ON (s.space);

// --- conversation ---
CREATE CONSTRAINT session_space_id IF NOT EXISTS FOR (s:Session) REQUIRE (s.space, s.id) IS UNIQUE;
CREATE CONSTRAINT message_id IF NOT EXISTS FOR (m:Message) REQUIRE m.id IS UNIQUE;
CREATE CONSTRAINT message_session_idx IF NOT EXISTS FOR (m:Message) REQUIRE (m.space, m.session, m.idx) IS UNIQUE;
CREATE INDEX message_space_ts IF NOT EXISTS FOR (m:Message) ON (m.space, m.ts);

// --- derived memory ---
CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (f:Fact) REQUIRE f.id IS UNIQUE;
CREATE CONSTRAINT attribute_id IF NOT EXISTS FOR (a:Attribute) REQUIRE a.id IS UNIQUE;
CREATE CONSTRAINT image_id IF NOT EXISTS FOR (i:Image) REQUIRE i.id IS UNIQUE;
CREATE INDEX fact_space IF NOT EXISTS FOR (f:Fact) ON (f.space);
CREATE INDEX attribute_space IF NOT EXISTS FOR (a:Attribute) ON (a.space);

// --- full-text (Lucene) indexes ---
CREATE FULLTEXT INDEX message_text IF NOT EXISTS FOR (m:Message) ON EACH [m.text];
CREATE FULLTEXT INDEX fact_content IF NOT EXISTS FOR (f:Fact) ON EACH [f.content];
CREATE FULLTEXT INDEX attribute_text IF NOT EXISTS FOR (a:Attribute) ON EACH [a.text];
CREATE FULLTEXT INDEX participant_names IF NOT EXISTS FOR (p:Participant) ON EACH [p.name, p.names_text];

// --- native vector indexes ---
CREATE VECTOR INDEX message_embedding IF NOT EXISTS FOR (m:Message) ON m.embedding
  OPTIONS {indexConfig: {`vector.dimensions`: $text_dim, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (f:Fact) ON f.embedding
  OPTIONS {indexConfig: {`vector.dimensions`: $text_dim, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX attribute_embedding IF NOT EXISTS FOR (a:Attribute) ON a.embedding
  OPTIONS {indexConfig: {`vector.dimensions`: $text_dim, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX voiceprint_embedding IF NOT EXISTS FOR (v:Voiceprint) ON v.embedding
  OPTIONS {indexConfig: {`vector.dimensions`: $voice_dim, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX speaker_centroid IF NOT EXISTS FOR (s:Speaker) ON s.centroid
  OPTIONS {indexConfig: {`vector.dimensions`: $voice_dim, `vector.similarity_function`: 'cosine'}};
