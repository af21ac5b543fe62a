-- Changelog analysis: which queries are append-only, which update, and which
-- sinks can take updates. EXPLAIN shows each operator's changelogMode.
SET 'parallelism.default' = '2'; -- EXPLAIN shows each task's parallelism
CREATE TABLE clicks (id BIGINT, campaign STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE users (id BIGINT, name STRING) WITH ('connector' = 'datagen');
CREATE TABLE files (campaign STRING, total DECIMAL(38, 2))
  WITH ('connector' = 'filesystem', 'path' = '/tmp/changelog-out', 'format' = 'json');
CREATE TABLE screen (campaign STRING, total DECIMAL(38, 2)) WITH ('connector' = 'print');
-- A GROUP BY without a window updates its results: fine for print, refused by files.
EXPLAIN INSERT INTO screen SELECT campaign, SUM(amount) FROM clicks GROUP BY campaign;
EXPLAIN INSERT INTO files SELECT campaign, SUM(amount) FROM clicks GROUP BY campaign;
-- Per window the results are final: append-only.
EXPLAIN INSERT INTO files SELECT campaign, SUM(amount)
  FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, campaign;
-- Grouping by window_start only is not a window aggregation.
EXPLAIN INSERT INTO files SELECT campaign, SUM(amount)
  FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, campaign;
-- Deduplication keeping the first row is append-only; keeping the last updates.
EXPLAIN SELECT id, campaign FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts ASC) AS rn FROM clicks) WHERE rn = 1;
EXPLAIN SELECT id, campaign FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM clicks) WHERE rn = 1;
-- Top-N updates and deletes.
EXPLAIN SELECT * FROM (
  SELECT campaign, amount, ROW_NUMBER() OVER (PARTITION BY campaign ORDER BY amount DESC) AS rn
  FROM clicks) WHERE rn <= 3;
-- ROW_NUMBER without a filter on it.
EXPLAIN SELECT id, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts) FROM clicks;
-- Joins: inner of append-only inputs stays append-only; outer joins update.
EXPLAIN SELECT c.id, u.name FROM clicks c JOIN users u ON c.id = u.id;
EXPLAIN INSERT INTO files SELECT u.name, c.amount FROM clicks c LEFT JOIN users u ON c.id = u.id;
-- A window over an aggregate: the aggregate's result carries no event time.
CREATE VIEW totals AS SELECT campaign, MAX(ts) AS ts FROM clicks GROUP BY campaign;
EXPLAIN SELECT * FROM TABLE(TUMBLE(TABLE totals, DESCRIPTOR(ts), INTERVAL '1' MINUTE));
-- Ordering by event time is append-only; by anything else it updates.
EXPLAIN SELECT id, ts FROM clicks ORDER BY ts;
EXPLAIN INSERT INTO files SELECT campaign, amount FROM clicks ORDER BY amount DESC LIMIT 3;
EXPLAIN SELECT id FROM clicks LIMIT 5;
-- DISTINCT is an aggregation.
EXPLAIN INSERT INTO files SELECT DISTINCT campaign, amount FROM clicks;
