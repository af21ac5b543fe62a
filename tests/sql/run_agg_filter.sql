-- The aggregate FILTER (WHERE ...) clause, with and without DISTINCT, in group and
-- window aggregations (TUMBLE / HOP / CUMULATE) and on the bounded path, over the
-- bundled clicks file (examples/data/clicks.csv). One task per operator.
-- The expected values were checked against Flink SQL 2.2 (the same queries over the
-- same file: the same window results, and the same final rows of the updating
-- results). Flink reserves FILTER; here it stays usable as a name (last query).
SET 'parallelism.default' = '1';
CREATE TABLE clicks (event_id BIGINT, campaign_id STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@DATA@/clicks.csv', 'format' = 'csv');
-- Group aggregation; a filter no row passes gives COUNT 0 and NULL for the others.
SELECT campaign_id, COUNT(*) FILTER (WHERE amount > 1) AS c,
  SUM(amount) FILTER (WHERE MOD(event_id, 2) = 0) AS s,
  COUNT(DISTINCT campaign_id) FILTER (WHERE amount < 1) AS d,
  SUM(DISTINCT event_id) FILTER (WHERE event_id > 3) AS sd,
  MAX(amount) FILTER (WHERE event_id < 0) AS m, COUNT(*) AS n
FROM clicks WHERE event_id <= 12 GROUP BY campaign_id;
SELECT COUNT(*) FILTER (WHERE amount > 1) AS c, AVG(amount) FILTER (WHERE campaign_id = 'a') AS av,
  COUNT(*) AS n FROM clicks;
-- Window aggregations.
SELECT window_start, COUNT(*) FILTER (WHERE amount > 1) AS c,
  SUM(amount) FILTER (WHERE campaign_id IN ('a', 'b')) AS s,
  COUNT(DISTINCT campaign_id) FILTER (WHERE amount > 0.5) AS d, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
WHERE event_id <= 14 OR event_id > 2994 GROUP BY window_start, window_end;
SELECT window_start, window_end, campaign_id, COUNT(*) FILTER (WHERE amount > 1) AS c,
  MIN(amount) FILTER (WHERE amount > 1) AS mi
FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' MINUTE, INTERVAL '10' MINUTE))
WHERE event_id <= 30 GROUP BY window_start, window_end, campaign_id;
SELECT window_start, window_end, COUNT(*) FILTER (WHERE campaign_id = 'a') AS c,
  SUM(amount) FILTER (WHERE campaign_id <> 'a') AS s
FROM TABLE(CUMULATE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' MINUTE, INTERVAL '10' MINUTE))
WHERE event_id <= 30 GROUP BY window_start, window_end;
-- Over an updating input: retractions pass through the filter too.
SELECT n, COUNT(*) FILTER (WHERE n > 1) AS c, COUNT(*) AS t
FROM (SELECT campaign_id, COUNT(*) AS n FROM clicks WHERE event_id <= 11 GROUP BY campaign_id)
GROUP BY n;
-- EXPLAIN shows each call's filter column (computed below the aggregate).
EXPLAIN SELECT campaign_id, COUNT(*) FILTER (WHERE amount > 1), SUM(amount) FILTER (WHERE amount > 1)
  FROM clicks GROUP BY campaign_id;
EXPLAIN SELECT window_start, COUNT(DISTINCT campaign_id) FILTER (WHERE amount > 1) AS d
  FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' MINUTE)) GROUP BY window_start, window_end;
-- A view keeps the clause (its text prints it back); HAVING takes it too.
CREATE VIEW vf AS SELECT campaign_id, COUNT(*) FILTER (WHERE amount > 1) AS c FROM clicks
  WHERE event_id <= 12 GROUP BY campaign_id HAVING COUNT(*) FILTER (WHERE amount > 1) > 1;
SHOW CREATE VIEW vf;
SELECT * FROM vf;
-- The bounded path (catalog relations), beside the same counts computed with WHERE.
CREATE TABLE t1 (a INT) WITH ('connector' = 'datagen');
CREATE TABLE t2 (a INT) WITH ('connector' = 'datagen');
CREATE VIEW v1 AS SELECT a FROM t1;
SELECT COUNT(*) FILTER (WHERE relkind = 'r') AS tables, COUNT(*) FILTER (WHERE relkind = 'v') AS views,
  COUNT(*) AS n FROM pg_class WHERE relnamespace = 2200;
SELECT relkind, COUNT(*) AS n FROM pg_class WHERE relnamespace = 2200 GROUP BY relkind ORDER BY 1;
SELECT relkind, COUNT(*) FILTER (WHERE relname LIKE 't%') AS t, MAX(relname) FILTER (WHERE relname < 't2') AS m
  FROM pg_class WHERE relnamespace = 2200 GROUP BY relkind ORDER BY 1;
SELECT COUNT(*) FILTER (WHERE NULL) AS none, COUNT(*) FILTER (WHERE TRUE) AS all_rows FROM pg_class;
SELECT COUNT(*) AS all_rows FROM pg_class;
-- Errors: FILTER on a function that is not an aggregate, a condition that is not
-- BOOLEAN, an aggregate inside the condition, FILTER on ROW_NUMBER.
SELECT upper(campaign_id) FILTER (WHERE amount > 1) FROM clicks;
SELECT COUNT(*) FILTER (WHERE amount) FROM clicks;
SELECT COUNT(*) FILTER (WHERE COUNT(*) > 1) FROM clicks;
SELECT ROW_NUMBER() FILTER (WHERE amount > 1) OVER (PARTITION BY campaign_id ORDER BY ts) FROM clicks;
SELECT COUNT(*) FILTER (WHERE nosuch > 1) FROM clicks;
SELECT COUNT(*) FILTER (amount > 1) FROM clicks;
-- FILTER as a name.
SELECT campaign_id, COUNT(*) AS filter FROM clicks WHERE event_id <= 3 GROUP BY campaign_id;
