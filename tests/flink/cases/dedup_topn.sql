-- Deduplication (ROW_NUMBER() = 1 on the event time, keep first / keep last)
-- and Top-N over tests/sql/data/bids.csv and tests/sql/data/topn.csv (ties,
-- NULLs). At parallelism 1 over one file both engines see the rows in the
-- file's order: the changelogs are compared as well.
SET 'parallelism.default' = '1';
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
CREATE TABLE t (k STRING, id INT, v INT) WITH ('connector' = 'filesystem',
  'path' = '@SQLDATA@/topn.csv', 'format' = 'csv', 'csv.null-literal' = 'null');
-- Keep the first row per key by event time (append-only once the watermark passes).
SELECT auction, bidder, price, bid_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time ASC) AS rn FROM bids)
WHERE rn = 1;
-- Keep the last row (updating).
SELECT auction, bidder, price, bid_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time DESC) AS rn FROM bids)
WHERE rn = 1;
SELECT auction, bidder, price, bid_time, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time ASC) AS rn FROM bids)
WHERE rn = 1;
-- Top-N with the rank, without it, rank ranges, NULL ordering.
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t) WHERE rn <= 3;
SELECT k, id, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t) WHERE rn <= 3;
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v ASC) AS rn FROM t) WHERE rn BETWEEN 2 AND 3;
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY v ASC NULLS FIRST, id DESC) AS rn FROM t) WHERE rn <= 4;
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC NULLS LAST) AS rn FROM t) WHERE rn = 1;
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number
  FROM bids) WHERE rank_number <= 2;
-- Top-N over an updating input (retract strategy).
-- flinkdiff: final-only (the GROUP BY below it emits per chunk in Sluice, per row in Flink)
SELECT k, s, rn FROM (SELECT k, s, ROW_NUMBER() OVER (ORDER BY s DESC) AS rn
  FROM (SELECT k, SUM(v) AS s FROM t GROUP BY k)) WHERE rn <= 2;
