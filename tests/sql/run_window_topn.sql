-- golden: sort-results
-- Window Top-N and window deduplication (ROW_NUMBER() partitioned by a
-- window's start and end) over tests/sql/data/bids.csv: each window's ranks go
-- out once, as +I, when the watermark passes its end. Checked against Flink
-- SQL 2.2 (the peer harness /work/shared/peers/flink, same file, same CREATE
-- TABLE, parallelism 1, run 2026-12-02): the same rows; Flink orders the
-- partitions of one window by its state's hash order, Sluice by first
-- arrival, so the rows are compared sorted. Flink's EXPLAIN CHANGELOG_MODE says
-- WindowRank / WindowDeduplicate [I].
SET 'parallelism.default' = '1';
CREATE TABLE bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
-- The two highest bids of each 5-second window.
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC)
  AS rn FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '5' SECOND))) WHERE rn <= 2;
-- Top 3 auctions by the sum of their bids per 10-second window (over a window
-- aggregation).
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY total DESC)
  AS rn FROM (SELECT window_start, window_end, auction, SUM(price) AS total, COUNT(*) AS cnt
    FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '10' SECOND))
    GROUP BY window_start, window_end, auction)) WHERE rn <= 3;
-- Window deduplication keeping the last bid per auction and window: of two
-- bids at the same time the later one wins (auction 2: e, auction 5: l).
SELECT auction, bidder, price, window_start FROM (SELECT *, ROW_NUMBER() OVER (
  PARTITION BY window_start, window_end, auction ORDER BY bid_time DESC) AS rn
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '5' SECOND))) WHERE rn = 1;
-- Keeping the first: of two bids at the same time the first one (auction 5: j).
SELECT auction, bidder, price, window_start FROM (SELECT *, ROW_NUMBER() OVER (
  PARTITION BY window_start, window_end, auction ORDER BY bid_time ASC) AS rn
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '5' SECOND))) WHERE rn = 1;
-- Ranks 2 and 3 of sliding windows, the rank not selected.
SELECT auction, bidder, price, window_end FROM (SELECT *, ROW_NUMBER() OVER (
  PARTITION BY window_start, window_end ORDER BY price ASC) AS rn
  FROM TABLE(HOP(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '5' SECOND, INTERVAL '10' SECOND)))
WHERE rn BETWEEN 2 AND 3;
-- Final rows: window Top-N goes into an append-only file sink.
CREATE TABLE top_bids (window_start TIMESTAMP(3), auction BIGINT, price INT, rn BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/top_bids', 'format' = 'csv');
INSERT INTO top_bids SELECT window_start, auction, price, rn FROM (SELECT *, ROW_NUMBER() OVER (
  PARTITION BY window_start, window_end ORDER BY price DESC) AS rn
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '5' SECOND))) WHERE rn <= 1;
SELECT * FROM top_bids;
-- Late rows (tests/sql/data/late_bids.csv, see run_dedup.sql): a bid whose
-- window already went out is dropped and counted (auction 2's only bid,
-- auction 5's); Flink printed the same 3 rows.
CREATE TABLE late_bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/late_bids.csv', 'format' = 'csv');
SELECT auction, bidder, window_start FROM (SELECT *, ROW_NUMBER() OVER (
  PARTITION BY window_start, window_end, auction ORDER BY price DESC) AS rn
  FROM TABLE(TUMBLE(TABLE late_bids, DESCRIPTOR(bid_time), INTERVAL '1' MINUTE))) WHERE rn = 1
  AND auction < 100;
