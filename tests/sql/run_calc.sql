-- Jobs that run: filters and projections over a bounded, deterministic
-- source, into the shell (SELECT), the print sink, and the exactly-once
-- filesystem sink that is then read back.
-- One task per operator: rows reach the output in a deterministic order.
SET 'parallelism.default' = '1';
CREATE TABLE nums (id BIGINT, amount DECIMAL(10, 2), name STRING, maybe INT) WITH (
  'connector' = 'datagen', 'number-of-rows' = '10',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10',
  'fields.amount.kind' = 'sequence', 'fields.amount.start' = '1', 'fields.amount.end' = '10',
  'fields.name.kind' = 'sequence', 'fields.name.start' = '100', 'fields.name.end' = '109',
  'fields.maybe.min' = '0', 'fields.maybe.max' = '9', 'fields.maybe.null-rate' = '0.5');
-- Projection, filter, exact DECIMAL, string functions, CASE, NULLs.
SELECT id, amount * 3 AS triple, amount / 3 AS third, CONCAT('n', name) AS tag,
       CASE WHEN id % 2 = 0 THEN 'even' ELSE 'odd' END AS parity,
       maybe, COALESCE(maybe, -1) AS filled, maybe IS NULL AS missing
FROM nums WHERE id BETWEEN 3 AND 8;
-- 0.1 + 0.2 is exactly 0.3 in DECIMAL.
SELECT id, CAST(amount AS DECIMAL(10, 1)) / 10 + 0.2 AS exact FROM nums WHERE id = 1;
-- A runtime error names the failing expression's position.
SELECT id, 100 / (id - 5) FROM nums;
-- The filter runs before the projection: no division by zero here.
SELECT id, 100 / (id - 5) AS q FROM nums WHERE id <> 5 AND id > 3;
-- LIMIT stops an unbounded source.
CREATE TABLE endless (id BIGINT) WITH ('connector' = 'datagen',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000');
SELECT id * 10 AS x FROM endless LIMIT 3;
-- INSERT into print: Flink's +I[...] lines.
CREATE TABLE screen (id BIGINT, name STRING) WITH ('connector' = 'print', 'print-identifier' = 'out');
INSERT INTO screen SELECT id, name FROM nums WHERE id <= 3;
-- INSERT into files, exactly-once, then read back through the same table.
CREATE TABLE files (id BIGINT, total DECIMAL(12, 2), name STRING)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/files', 'format' = 'csv');
INSERT INTO files SELECT id, amount * 2, name FROM nums WHERE id > 7;
SELECT * FROM files;
-- The same statement again is the same job: it resumes at its end and writes nothing twice.
INSERT INTO files SELECT id, amount * 2, name FROM nums WHERE id > 7;
SELECT COUNT(*) AS n FROM files;
-- A column list: the rest are NULL; INT is widened to the column's BIGINT.
INSERT INTO files (name, id) SELECT name, CAST(id AS INT) FROM nums WHERE id = 1;
SELECT * FROM files WHERE id = 1;
-- Guarantees are never dropped silently (the full resolver is the next issue).
CREATE TABLE eo_print (id BIGINT) WITH ('connector' = 'print', 'sink.delivery-guarantee' = 'exactly-once');
INSERT INTO eo_print SELECT id FROM nums WHERE id = 1;
SET 'sink.guarantee-fallback' = 'downgrade';
INSERT INTO eo_print SELECT id FROM nums WHERE id = 1;
RESET 'sink.guarantee-fallback';
SET 'execution.checkpointing.interval' = '0';
CREATE TABLE eo_files (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '@TMP@/eo',
  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once');
INSERT INTO eo_files SELECT id FROM nums;
-- Every INSERT job of this data directory, with its counters.
SHOW JOBS;

-- A source that cannot be opened fails the query cleanly (58P01), at any parallelism.
CREATE TABLE nofile (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '@TMP@/does-not-exist', 'format' = 'csv');
SELECT id FROM nofile;
SET 'parallelism.default' = '2';
SELECT id FROM nofile;
