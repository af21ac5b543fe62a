-- DROP JOB, DESCRIBE JOB / SHOW JOB: syntax and errors (the shell tests in
-- tests/shell/test_jobs.py check the files on disk and the figures).
CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5');
CREATE TABLE bh (id BIGINT) WITH ('connector' = 'blackhole');
CREATE TABLE files (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '@TMP@/files', 'format' = 'json');
SET 'pipeline.name' = 'to_bh';
INSERT INTO bh SELECT id FROM nums;
SET 'pipeline.name' = 'to_files';
INSERT INTO files SELECT id FROM nums;
SHOW JOBS;
-- unknown jobs
DESCRIBE JOB 'nope';
SHOW JOB 'nope';
DROP JOB 'nope';
STOP JOB 'nope';
-- a name that cannot be a job's
DROP JOB '../x';
-- WITH what?
DROP JOB 'to_bh' WITH CHECKPOINTS;
DROP JOB 'to_bh';
DROP JOB 'to_bh';
DROP JOB 'to_files';
DESCRIBE JOB 'to_files';
STOP JOB 'to_files';
SHOW JOBS;
-- the name of a dropped exactly-once job stays taken
INSERT INTO files SELECT id FROM nums;
-- the other one is free again
SET 'pipeline.name' = 'to_bh';
INSERT INTO bh SELECT id FROM nums;
SET 'sql-client.execution.result-mode' = 'table';
SELECT COUNT(*) AS n FROM files;
