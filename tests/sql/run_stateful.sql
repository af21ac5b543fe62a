-- Stateful jobs over the bundled clicks file (examples/data/clicks.csv:
-- 3000 clicks over 30 minutes, two of them 10 minutes late).
-- One task per operator: rows reach the output in a deterministic order.
SET 'parallelism.default' = '1';
CREATE TABLE clicks (event_id BIGINT, campaign_id STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@DATA@/clicks.csv', 'format' = 'csv');
-- Every aggregate per 10-minute tumbling window; the two late clicks are dropped and counted.
SELECT window_start, COUNT(*) AS n, COUNT(DISTINCT campaign_id) AS campaigns, SUM(amount) AS total,
       MIN(amount) AS lo, MAX(amount) AS hi, AVG(amount) AS mean
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
GROUP BY window_start, window_end;
-- HOP: 10-minute windows every 5 minutes, one campaign.
SELECT window_start, window_end, COUNT(*) AS n
FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' MINUTE, INTERVAL '10' MINUTE))
WHERE campaign_id = 'c'
GROUP BY window_start, window_end;
-- CUMULATE: a running count within each 15-minute window, every 5 minutes.
SELECT window_start, window_end, COUNT(*) AS n
FROM TABLE(CUMULATE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' MINUTE, INTERVAL '15' MINUTE))
GROUP BY window_start, window_end;
-- Deduplication: the earliest click of each campaign (as Flink SQL 2.2: same rows, same order).
SELECT campaign_id, event_id, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY campaign_id ORDER BY ts ASC) AS rn FROM clicks)
WHERE rn = 1;
-- A GROUP BY without a window is an updating stream: print shows its changelog.
CREATE TABLE totals (campaign_id STRING, n BIGINT, total DECIMAL(38, 2))
  WITH ('connector' = 'print', 'print-identifier' = 'totals');
INSERT INTO totals SELECT campaign_id, COUNT(*), SUM(amount) FROM clicks
  WHERE event_id <= 6 GROUP BY campaign_id;
