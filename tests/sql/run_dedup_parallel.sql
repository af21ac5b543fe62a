-- golden: sort-results
-- Deduplication by event time in parallel: two tasks, each owning the auctions
-- hashed to it, with the watermark the smallest of its inputs'. The final rows
-- are those of run_dedup.sql (checked there against Flink SQL 2.2); the order
-- across tasks is not deterministic, so each result is sorted and an updating
-- result replaced by its final rows (see run_golden.sh).
SET 'parallelism.default' = '2';
CREATE TABLE bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
SELECT auction, bidder, price, bid_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time ASC) AS rn FROM bids)
WHERE rn = 1;
SELECT auction, bidder, price, bid_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time DESC) AS rn FROM bids)
WHERE rn = 1;
