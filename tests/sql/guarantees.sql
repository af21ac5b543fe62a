-- Delivery guarantees (docs/GUARANTEES.md): one resolver decides each sink's
-- effective guarantee; a request it cannot keep is an error, or with the
-- 'downgrade' policy a warning; EXPLAIN shows the decision and why.
SET 'parallelism.default' = '1';
SET 'execution.checkpointing.interval' = '1 s';
CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5');
CREATE TABLE lines (id BIGINT) WITH ('connector' = 'stdin', 'format' = 'json');
CREATE TABLE files (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '@TMP@/files',
  'format' = 'json');
CREATE TABLE files_eo (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '@TMP@/eo',
  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once');
CREATE TABLE screen (id BIGINT) WITH ('connector' = 'print',
  'sink.delivery-guarantee' = 'exactly-once');
CREATE TABLE screen_ok (id BIGINT) WITH ('connector' = 'print',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.delivery-guarantee.fallback' = 'downgrade');

-- Rule 8: nothing requested: the connector's default, shown like any other.
EXPLAIN INSERT INTO files SELECT id FROM nums;
-- Rule 1: print cannot be exactly-once: an error that says why and what would work.
INSERT INTO screen SELECT id FROM nums;
-- EXPLAIN shows it instead of failing.
EXPLAIN INSERT INTO screen SELECT id FROM nums;
-- The table's own fallback policy: runs at none with a warning.
INSERT INTO screen_ok SELECT id FROM nums;
-- Rule 3: a source that cannot be replayed (stdin): at most none.
EXPLAIN INSERT INTO files_eo SELECT id FROM lines;
INSERT INTO files_eo SELECT id FROM lines;
-- Rule 2: checkpointing off.
SET 'execution.checkpointing.interval' = '0';
INSERT INTO files_eo SELECT id FROM nums;
-- The session's policy: downgrade, with a warning; the job records it.
SET 'sink.guarantee-fallback' = 'downgrade';
INSERT INTO files_eo SELECT id FROM nums;
RESET 'sink.guarantee-fallback';
RESET 'execution.checkpointing.interval';
-- A statement set with two exactly-once sinks: one commit group.
EXPLAIN EXECUTE STATEMENT SET BEGIN
  INSERT INTO files_eo SELECT id FROM nums;
  INSERT INTO files SELECT id * 10 FROM nums;
END;
-- Rule 4: an updating query into an append-only sink, whatever the policy.
SET 'sink.guarantee-fallback' = 'downgrade';
INSERT INTO files SELECT COUNT(*) FROM nums;
SHOW JOBS;
