-- Job names (issue 14). A job without 'pipeline.name' is named
-- insert-into-<table>; the same statement run again resumes that job; a
-- different statement into the same table finds the name taken by another
-- statement's job and gets the first 8 hex digits of its statement's hash;
-- a job stored under the long name (insert-into-<table>-<16 hex digits>, how
-- every derived name was spelled before) is found and resumed by its statement.
CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5');
CREATE TABLE sink1 (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO sink1 SELECT id FROM nums;
INSERT INTO sink1 SELECT id FROM nums;
INSERT INTO sink1 SELECT id + 1 FROM nums;
INSERT INTO sink1 SELECT id + 1 FROM nums;
-- A job of the long name, as stored before (made here through pipeline.name).
SET 'pipeline.name' = 'insert-into-sink1-fd8de172fd19dd93';
INSERT INTO sink1 SELECT id + 2 FROM nums;
RESET 'pipeline.name';
INSERT INTO sink1 SELECT id + 2 FROM nums;
-- 'pipeline.name' left SET: a second, different INSERT is told to RESET it
-- (it would run as the first one's job, whose checkpoint has another plan).
SET 'pipeline.name' = 'named';
INSERT INTO sink1 SELECT id FROM nums;
INSERT INTO sink1 SELECT id FROM nums;
INSERT INTO sink1 SELECT id * 3 FROM nums;
RESET 'pipeline.name';
INSERT INTO sink1 SELECT id * 3 FROM nums;
SHOW JOBS;
