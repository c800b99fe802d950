// voxmem schema v3 (resumable recordings): a Recording node marks a whole-recording job that
// finished, so a job cut short (Neo4j restart, crash) can be re-posted and resumes instead of
// being refused; the message lookup by recording serves the resume and the re-ingestion guard.
CREATE CONSTRAINT recording_space_id IF NOT EXISTS FOR (r:Recording) REQUIRE (r.space, r.id) IS UNIQUE;
CREATE INDEX message_recording IF NOT EXISTS FOR (m:Message) ON (m.space, m.recording_id);
