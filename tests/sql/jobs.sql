-- Background jobs in a script ('table.dml-sync' = 'false'), STOP JOB and
-- its errors, and 'execution.savepoint.path' checked when an INSERT starts.
-- (A savepoint's path and the counters of a running job depend on the run:
-- tests/unit/test_planner_jobs.c and tests/shell/test_shell.py check them.)
CREATE TABLE endless (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '100',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000');
CREATE TABLE nowhere (id BIGINT) WITH ('connector' = 'blackhole');
SET 'table.dml-sync' = 'maybe';
SET 'table.dml-sync' = 'false';
SET 'pipeline.name' = 'bg';
INSERT INTO nowhere SELECT id FROM endless;
-- One job per name at a time.
INSERT INTO nowhere SELECT id * 2 FROM endless;
STOP JOB 'bg';
STOP JOB 'bg' WITH SAVEPOINT;
STOP JOB 'nope';
-- A savepoint path must be a complete chk-<N> directory.
SET 'execution.savepoint.path' = 'somewhere';
INSERT INTO nowhere SELECT id FROM endless;
SET 'execution.savepoint.path' = 'somewhere/chk-3';
INSERT INTO nowhere SELECT id FROM endless;
RESET 'execution.savepoint.path';
-- Synchronous again: the INSERT runs to its end.
CREATE TABLE ten (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10');
SET 'table.dml-sync' = 'true';
SET 'pipeline.name' = 'bounded';
INSERT INTO nowhere SELECT id FROM ten;
STOP JOB 'bounded';
