-- LISTAGG / string_agg in streaming jobs over the bundled clicks file
-- (examples/data/clicks.csv). One task per operator: deterministic order.
-- The expected values were checked against Flink SQL 2.2 (the same queries,
-- LISTAGG for string_agg, over the same file: the same values, and the same
-- final rows of the updating results) and against the file itself (each
-- group's values in file order). One difference: LISTAGG(DISTINCT x) keeps
-- first appearances in order here; Flink's order is its hash map's
-- ('ba' for a, b).
SET 'parallelism.default' = '1';
CREATE TABLE clicks (event_id BIGINT, campaign_id STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@DATA@/clicks.csv', 'format' = 'csv');
-- Window aggregation: the values of each window in arrival order; DISTINCT keeps first appearances.
SELECT window_start, LISTAGG(campaign_id) AS l, LISTAGG(DISTINCT campaign_id, '') AS d,
       string_agg(CAST(event_id AS STRING), ' ') AS ids, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
WHERE event_id <= 14 OR event_id > 2994
GROUP BY window_start, window_end;
-- Group aggregation (an updating result): print shows its changelog.
CREATE TABLE lists (campaign_id STRING, ids STRING, amounts STRING)
  WITH ('connector' = 'print', 'print-identifier' = 'lists');
INSERT INTO lists SELECT campaign_id, LISTAGG(CAST(event_id AS STRING)),
  string_agg(CAST(amount AS STRING), '; ') FROM clicks WHERE event_id <= 12 GROUP BY campaign_id;
-- Over an updating input (retractions reach LISTAGG): campaigns by their number of clicks.
SELECT n, LISTAGG(campaign_id, '/') AS campaigns
FROM (SELECT campaign_id, COUNT(*) AS n FROM clicks WHERE event_id <= 11 GROUP BY campaign_id)
GROUP BY n;
-- A global LISTAGG with HAVING; no value passes: NULL.
SELECT LISTAGG(campaign_id) AS l, COUNT(*) AS n FROM clicks WHERE event_id <= 3 HAVING COUNT(*) > 2;
EXPLAIN SELECT campaign_id, LISTAGG(campaign_id, '-') FROM clicks GROUP BY campaign_id;
-- Errors: a non-string value, string_agg without its separator, a separator that is not a
-- literal, too many arguments.
SELECT LISTAGG(event_id) FROM clicks;
SELECT string_agg(campaign_id) FROM clicks;
SELECT LISTAGG(campaign_id, campaign_id) FROM clicks;
SELECT LISTAGG(campaign_id, ',', 'x') FROM clicks;
