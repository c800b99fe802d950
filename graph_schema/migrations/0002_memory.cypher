// voxmem schema v2 (memory construction): lookups the memory writer runs on every turn,
// and the image caption full-text index ("captions are indexed as text").

// supersession lookups: current facts of one subject and slot
CREATE INDEX fact_subject_slot IF NOT EXISTS FOR (f:Fact) ON (f.space, f.subject_key, f.slot);
// audit items by space, and re-runs that remove a message's audit items
CREATE INDEX audit_space_message IF NOT EXISTS FOR (a:AuditItem) ON (a.space, a.message_id);
CREATE CONSTRAINT audit_id IF NOT EXISTS FOR (a:AuditItem) REQUIRE a.id IS UNIQUE;
// image captions are searchable like message text
CREATE FULLTEXT INDEX image_caption IF NOT EXISTS FOR (i:Image) ON EACH [i.caption];
