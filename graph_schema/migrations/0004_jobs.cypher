// voxmem schema v4 (job records): background jobs are saved so their status outlives a restart.
CREATE CONSTRAINT job_space_id IF NOT EXISTS FOR (j:Job) REQUIRE (j.space, j.id) IS UNIQUE;
