-- Deduplication ordered by a PROCTIME() column is by arrival order, as
-- Flink's proctime deduplication (Deduplicate(keep=[FirstRow|LastRow], ...,
-- rowtime=[false])): each key's first (last) row to arrive, emitted at once,
-- never waiting for the event-time watermark — before this was fixed the
-- processing time was taken for event time and every row waited for the end
-- of the input, so windows after it dropped all but the last as late.
SET 'parallelism.default' = '1';
CREATE TABLE bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  pt AS PROCTIME(),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
-- Keep first: the first bid of each auction to arrive (auction 1: a, not the
-- earlier-timed f).
SELECT auction, bidder, price FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY pt ASC) AS rn FROM bids)
WHERE rn = 1;
-- Keep last: the last to arrive.
SELECT auction, bidder, price FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY pt DESC) AS rn FROM bids)
WHERE rn = 1;
-- An event-time window after it still fires on the watermark: no row is late.
CREATE VIEW first_bids AS SELECT auction, bidder, price, bid_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY pt ASC) AS rn FROM bids)
WHERE rn = 1;
SELECT window_start, COUNT(*) AS bids, SUM(price) AS total
FROM TABLE(TUMBLE(TABLE first_bids, DESCRIPTOR(bid_time), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
