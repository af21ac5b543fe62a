-- Deduplication by event time over out-of-order input (tests/sql/data/bids.csv:
-- 18 bids, disorder up to 4 s within the 5 s watermark delay, so none is late;
-- ties on event time for auctions 2 and 5).
-- Checked against Flink SQL 2.2 (the peer harness /work/shared/peers/flink,
-- `flinksql` on the same file with the same CREATE TABLE, parallelism 1, the
-- three SELECTs below, run 2026-12-02): Flink printed exactly these rows with
-- these op columns, in this order. Flink's EXPLAIN CHANGELOG_MODE declares
-- keep-first [I] (Deduplicate(keep=[FirstRow], ..., outputInsertOnly=[true])).
-- One task per operator: rows reach the output in a deterministic order.
SET 'parallelism.default' = '1';
CREATE TABLE bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
-- Keep first: each auction's earliest bid, not its first to arrive (auction 1's
-- first bid at 10:00:02 is beaten by later arrivals at :01 and :00); a tie keeps
-- the bid that arrived first (auction 5: j, not l). Append-only: +I only, each
-- emitted once the watermark passed it.
SELECT auction, bidder, price, bid_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time ASC) AS rn FROM bids)
WHERE rn = 1;
-- Keep last: each auction's latest bid; a bid older than the kept one is dropped,
-- a tie replaces it (auction 2: e replaces c; auction 5: l replaces j).
SELECT auction, bidder, price, bid_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time DESC) AS rn FROM bids)
WHERE rn = 1;
-- The row number itself, always 1.
SELECT auction, bidder, price, bid_time, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time ASC) AS rn FROM bids)
WHERE rn = 1;
-- Keep first is append-only: it goes into a file sink, and reading the files back
-- gives the same earliest bids.
CREATE TABLE first_bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/first_bids', 'format' = 'csv');
INSERT INTO first_bids SELECT auction, bidder, price, bid_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time ASC) AS rn FROM bids)
WHERE rn = 1;
SELECT * FROM first_bids;
-- Late rows (tests/sql/data/late_bids.csv: 1024 in-order bids of auction 100 —
-- one chunk, after which the watermark is 10:01:37.3 —, then 11 bids of which 6
-- are behind it). Checked against Flink SQL 2.2 in the same way (its watermark
-- advances per row here, and the on-time rows stay within its delay too):
-- identical rows, op columns and order. Keep first: the earliest bid among those
-- not late (auction 1: z, as y at 10:00:30 is late; auction 2 has only a late
-- bid, so no row; auction 5 neither); the late bids are dropped and counted.
CREATE TABLE late_bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/late_bids.csv', 'format' = 'csv');
SELECT auction, bidder, price, bid_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time ASC) AS rn FROM late_bids)
WHERE rn = 1;
-- Keep last ignores the watermark, as Flink's: auction 2's late bid is its row,
-- auction 5's second late bid replaces its first.
SELECT auction, bidder, price, bid_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time DESC) AS rn FROM late_bids)
WHERE rn = 1 AND auction < 100;
-- A job's late rows: warned about by the run that dropped them, not again by a
-- run that resumes after them and reads nothing new; SHOW JOBS counts them
-- over the job's life (6, not 12).
CREATE TABLE first_late (auction BIGINT, bidder STRING) WITH ('connector' = 'filesystem',
  'path' = '@TMP@/first_late', 'format' = 'csv');
SET 'pipeline.name' = 'first-late';
INSERT INTO first_late SELECT auction, bidder FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time ASC) AS rn FROM late_bids)
WHERE rn = 1;
INSERT INTO first_late SELECT auction, bidder FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time ASC) AS rn FROM late_bids)
WHERE rn = 1;
SHOW JOBS;
