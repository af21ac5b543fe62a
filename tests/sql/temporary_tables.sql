-- CREATE TEMPORARY TABLE: the session's own, never written to the catalog
-- (the .restart run, a new process, no longer has it); it may shadow a
-- permanent table of its name, as in Flink (with a notice), nothing else.
SET 'parallelism.default' = '1';
CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3',
  'fields.a.kind' = 'sequence', 'fields.a.start' = '1', 'fields.a.end' = '3');
CREATE TEMPORARY TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '2',
  'fields.a.kind' = 'sequence', 'fields.a.start' = '10', 'fields.a.end' = '11');
CREATE TEMPORARY TABLE t (a INT) WITH ('connector' = 'blackhole');
CREATE TEMPORARY TABLE IF NOT EXISTS t (a INT) WITH ('connector' = 'blackhole');
SELECT a FROM t;
SHOW TABLES;
SHOW CREATE TABLE t;
-- A temporary sink: an INSERT writes it, a query reads it back.
CREATE TEMPORARY TABLE out_t (a INT) WITH ('connector' = 'filesystem', 'path' = '@TMP@/out',
  'format' = 'csv');
INSERT INTO out_t SELECT a * 2 FROM t;
SELECT a FROM out_t;
-- CREATE TEMPORARY TABLE ... LIKE (a temporary source too).
CREATE TEMPORARY TABLE t2 WITH ('number-of-rows' = '1') LIKE t;
SHOW CREATE TABLE t2;
SELECT a FROM t2;
DESCRIBE EXTENDED t2;
-- Temporary views read temporary tables.
CREATE TEMPORARY VIEW tv AS SELECT a + 100 AS b FROM t;
SELECT b FROM tv;
CREATE TEMPORARY TABLE tv (a INT) WITH ('connector' = 'blackhole');
CREATE VIEW t2 AS SELECT 1 AS x;
-- Flink: the temporary table goes first; it cannot be altered.
DROP TABLE t;
ALTER TABLE t SET ('number-of-rows' = '5');
ALTER TABLE t RENAME TO u;
ALTER TABLE t2 RENAME TO u;
DROP TEMPORARY TABLE t;
SELECT a FROM t;
DROP TEMPORARY TABLE t;
DROP TEMPORARY TABLE IF EXISTS t;
DROP TEMPORARY VIEW tv;
SHOW TABLES;
