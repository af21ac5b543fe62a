-- OVER aggregations by event time (Flink's OverAggregate) over out-of-order
-- input (tests/sql/data/bids.csv: 18 bids, disorder up to 4 s within the 5 s
-- watermark delay, so none is late; ties on event time for auctions 2 and 5).
-- Each row is emitted once (+I), with its aggregates, when the watermark
-- passes its time; per key in time order (ties: arrival order). One task per
-- operator: rows reach the output in a deterministic order.
-- Checked against Flink SQL 2.2 (the peer harness /work/shared/peers/flink,
-- `flinksql` on the same files with the same CREATE TABLEs, parallelism 1, run
-- 2026-12-02): every SELECT up to the errors (the ROWS, RANGE, default-frame,
-- ROWS UNBOUNDED / LISTAGG ones, the file sink read back, the late rows) and
-- the expression argument and COUNT(DISTINCT) ones printed exactly these rows,
-- all +I, in this order; of the errors Flink refuses the same statements (its
-- messages quoted at each), except as noted.
SET 'parallelism.default' = '1';
CREATE TABLE bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
-- ROWS frame: the row and the one before it (auction 2's tie c/e: arrival order).
SELECT auction, bidder, price, bid_time,
  SUM(price) OVER (PARTITION BY auction ORDER BY bid_time
                   ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s2,
  COUNT(*) OVER (PARTITION BY auction ORDER BY bid_time
                 ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS c2
FROM bids;
-- RANGE frame of 2 seconds: rows with equal time get the same values (auction
-- 2's c and e; auction 5's j and l); the row exactly 2 s before is in the frame.
SELECT auction, bidder, price, bid_time,
  MAX(price) OVER (PARTITION BY auction ORDER BY bid_time
                   RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW) AS mx,
  MIN(price) OVER (PARTITION BY auction ORDER BY bid_time
                   RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW) AS mn,
  COUNT(price) OVER (PARTITION BY auction ORDER BY bid_time
                     RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW) AS n
FROM bids;
-- No frame clause: RANGE UNBOUNDED PRECEDING (Flink's default); no PARTITION BY:
-- one partition (a single task). AVG of INT is an INT (integer division).
SELECT auction, bidder, price, bid_time,
  COUNT(*) OVER (ORDER BY bid_time) AS c,
  SUM(price) OVER (ORDER BY bid_time) AS s,
  AVG(price) OVER (ORDER BY bid_time) AS a,
  MIN(bidder) OVER (ORDER BY bid_time) AS first_name
FROM bids;
-- ROWS UNBOUNDED PRECEDING: equal times get different values.
SELECT auction, bidder, price, bid_time,
  COUNT(*) OVER (PARTITION BY auction ORDER BY bid_time
                 ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS c,
  LISTAGG(bidder, '') OVER (PARTITION BY auction ORDER BY bid_time
                            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS names
FROM bids;
-- An argument that is not a column is computed below the OverAggregate (Flink:
-- the same values); DISTINCT counts each value once.
SELECT auction, SUM(price + 1) OVER (ORDER BY bid_time) AS s1,
  COUNT(DISTINCT price) OVER (ORDER BY bid_time) AS dp,
  COUNT(DISTINCT price / 10) OVER (ORDER BY bid_time) AS d10
FROM bids;
-- Named windows: WINDOW w AS (...), OVER w (the same window for every call).
SELECT auction, price, SUM(price) OVER w AS s, MAX(price) OVER w AS m FROM bids
WHERE auction < 4
WINDOW w AS (PARTITION BY auction ORDER BY bid_time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
-- The plan: an OverAggregate after a hash exchange by the partition key, [I].
EXPLAIN SELECT auction, price,
  SUM(price) OVER (PARTITION BY auction ORDER BY bid_time
                   RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) AS s
FROM bids;
-- Append-only: into a file sink, read back.
CREATE TABLE running_sums (auction BIGINT, price INT, total BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/running_sums', 'format' = 'csv');
INSERT INTO running_sums SELECT auction, price,
  SUM(price) OVER (PARTITION BY auction ORDER BY bid_time ROWS 2 PRECEDING) FROM bids;
SELECT * FROM running_sums;
-- Late rows (tests/sql/data/late_bids.csv: 1024 in-order bids of auction 100,
-- then 11 bids of which 6 are behind the watermark): dropped and counted.
CREATE TABLE late_bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/late_bids.csv', 'format' = 'csv');
SELECT * FROM (SELECT auction, bidder, price, bid_time,
  COUNT(*) OVER (PARTITION BY auction ORDER BY bid_time) AS c FROM late_bids) WHERE auction <> 100;
-- Errors (0A000 as Flink refuses them), Flink's message first:
-- "Over Agg: Unsupported use of OVER windows. All aggregates must be computed
-- on the same window."
SELECT SUM(price) OVER (PARTITION BY auction ORDER BY bid_time),
  COUNT(*) OVER (ORDER BY bid_time) FROM bids;
-- An ORDER BY that is not an event-time attribute: Flink 2.2 runs it as an
-- updating OVER aggregation (RANGE UNBOUNDED only), not supported here; nor
-- are processing-time OVER windows.
SELECT SUM(price) OVER (PARTITION BY auction ORDER BY price) FROM bids;
-- "The window can only be ordered in ASCENDING mode."
SELECT SUM(price) OVER (PARTITION BY auction ORDER BY bid_time DESC) FROM bids;
-- "The window can only be ordered by a single time column." (two columns, none)
SELECT SUM(price) OVER (PARTITION BY auction ORDER BY bid_time, price) FROM bids;
SELECT SUM(price) OVER (PARTITION BY auction) FROM bids;
-- "StreamPhysicalOverAggregate doesn't support consuming update and delete
-- changes which is produced by node Rank(...)"
SELECT SUM(price) OVER (PARTITION BY auction ORDER BY bid_time) FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time DESC) AS rn FROM bids)
WHERE rn = 1;
-- "Data Type mismatch between ORDER BY and RANGE clause" (42804)
SELECT SUM(price) OVER (ORDER BY bid_time RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) FROM bids;
-- An INTERVAL in a ROWS frame: Flink takes it as a row count (its milliseconds);
-- refused here (42P20).
SELECT SUM(price) OVER (ORDER BY bid_time ROWS BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW) FROM bids;
-- ROW_NUMBER() beside OVER aggregates (Flink: "All aggregates must be computed
-- on the same window").
SELECT ROW_NUMBER() OVER (ORDER BY bid_time), SUM(price) OVER (ORDER BY bid_time) FROM bids;
SELECT SUM(price) OVER (ORDER BY bid_time), ROW_NUMBER() OVER (ORDER BY bid_time) FROM bids;
-- A frame starting at CURRENT ROW (Flink: "OVER RANGE FOLLOWING windows are
-- not supported yet", for ROWS as for RANGE).
SELECT COUNT(*) OVER (ORDER BY bid_time ROWS BETWEEN CURRENT ROW AND CURRENT ROW) FROM bids;
SELECT COUNT(*) OVER (ORDER BY bid_time RANGE BETWEEN CURRENT ROW AND CURRENT ROW) FROM bids;
-- FILTER (Flink: "OVER must be applied to aggregate function").
SELECT SUM(price) FILTER (WHERE price > 10) OVER (ORDER BY bid_time) FROM bids;
-- Named windows: unknown (42704), defined twice (42P20).
SELECT SUM(price) OVER v FROM bids WINDOW w AS (ORDER BY bid_time);
SELECT SUM(price) OVER w FROM bids;
SELECT SUM(price) OVER w FROM bids WINDOW w AS (ORDER BY bid_time), w AS (ORDER BY bid_time);
-- ROWS, RANGE, CURRENT, ROW, PRECEDING and UNBOUNDED stay usable as names.
SELECT 1 AS rows, 2 AS range, 3 AS preceding, 4 AS unbounded, 5 AS current, 6 AS row;
