-- GROUP BY (updating results, retractions through a second aggregation),
-- DISTINCT and FILTER aggregates, LISTAGG, HAVING, over
-- tests/sql/data/topn.csv and examples/data/clicks.csv.
--
-- Sluice's GROUP BY emits one change per key per chunk it processes (like
-- Flink's mini-batch) where Flink without mini-batch emits one per input row:
-- the changelogs of a GROUP BY over a file differ by design, the final tables
-- must not ("final-only").
SET 'parallelism.default' = '1';
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE t (k STRING, id INT, v INT) WITH ('connector' = 'filesystem',
  'path' = '@SQLDATA@/topn.csv', 'format' = 'csv', 'csv.null-literal' = 'null');
CREATE TABLE clicks (event_id BIGINT, campaign_id STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@DATA@/clicks.csv', 'format' = 'csv');
-- flinkdiff: final-only (per-chunk vs per-row emission)
SELECT k, COUNT(*) AS n, COUNT(v) AS nv, SUM(v) AS s, MIN(v) AS lo, MAX(v) AS hi, AVG(v) AS av FROM t GROUP BY k;
-- A second aggregation over an updating one: retractions.
-- flinkdiff: final-only (per-chunk vs per-row emission)
SELECT n, COUNT(*) AS keys, SUM(s) AS total FROM (SELECT k, COUNT(*) AS n, SUM(v) AS s FROM t GROUP BY k) GROUP BY n;
-- flinkdiff: final-only (per-chunk vs per-row emission)
SELECT campaign_id, COUNT(*) AS n, SUM(amount) AS total, MIN(amount) AS lo, MAX(amount) AS hi,
  AVG(amount) AS mean, COUNT(DISTINCT event_id / 100) AS nbuckets FROM clicks GROUP BY campaign_id;
-- DISTINCT and FILTER aggregates.
-- flinkdiff: final-only (per-chunk vs per-row emission)
SELECT campaign_id, COUNT(*) FILTER (WHERE amount > 1) AS c,
  SUM(amount) FILTER (WHERE MOD(event_id, 2) = 0) AS s,
  COUNT(DISTINCT campaign_id) FILTER (WHERE amount < 1) AS d,
  SUM(DISTINCT event_id) FILTER (WHERE event_id > 3) AS sd,
  MAX(amount) FILTER (WHERE event_id < 0) AS m, COUNT(*) AS n
FROM clicks WHERE event_id <= 12 GROUP BY campaign_id;
-- flinkdiff: final-only (per-chunk vs per-row emission)
SELECT COUNT(*) FILTER (WHERE amount > 1) AS c, AVG(amount) FILTER (WHERE campaign_id = 'a') AS av,
  COUNT(*) AS n, COUNT(DISTINCT campaign_id) AS campaigns FROM clicks;
-- flinkdiff: final-only (per-chunk vs per-row emission)
SELECT n, COUNT(*) FILTER (WHERE n > 1) AS c, COUNT(*) AS t
FROM (SELECT campaign_id, COUNT(*) AS n FROM clicks WHERE event_id <= 11 GROUP BY campaign_id) GROUP BY n;
-- HAVING, and an expression as the key.
-- flinkdiff: final-only (per-chunk vs per-row emission)
SELECT MOD(id, 3) AS m, COUNT(*) AS n, SUM(v) AS s FROM t GROUP BY MOD(id, 3) HAVING COUNT(*) > 4;
-- LISTAGG over an updating input (retractions of list elements).
-- flinkdiff: final-only (per-chunk vs per-row emission)
SELECT n, LISTAGG(campaign_id, '/') AS campaigns
FROM (SELECT campaign_id, COUNT(*) AS n FROM clicks WHERE event_id <= 11 GROUP BY campaign_id) GROUP BY n;
-- flinkdiff: final-only (per-chunk vs per-row emission)
SELECT campaign_id, LISTAGG(CAST(event_id AS STRING)) AS ids, LISTAGG(CAST(amount AS STRING), '; ') AS amounts
FROM clicks WHERE event_id <= 12 GROUP BY campaign_id;
-- A single row in, one change out: the changelog is compared too.
SELECT k, COUNT(*) AS n, SUM(v) AS s FROM t WHERE id = 15 GROUP BY k;
