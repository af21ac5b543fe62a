-- Deduplication in arrival order (ORDER BY a PROCTIME() column) over
-- tests/sql/data/bids.csv, and an event-time window after it. One task per
-- operator: the first bid of each auction to arrive is deterministic.
SET 'parallelism.default' = '1';
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  pt AS PROCTIME(),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
SELECT auction, bidder, price FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY pt ASC) AS rn FROM bids)
WHERE rn = 1;
CREATE VIEW first_bids AS SELECT auction, bidder, price, bid_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY pt ASC) AS rn FROM bids)
WHERE rn = 1;
SELECT window_start, COUNT(*) AS bids, SUM(price) AS total
FROM TABLE(TUMBLE(TABLE first_bids, DESCRIPTOR(bid_time), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
