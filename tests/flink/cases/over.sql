-- OVER aggregations by event time (ROWS and RANGE frames) over
-- tests/sql/data/bids.csv (out of order within the watermark delay, ties on
-- event time). Append-only: each row once, when the watermark passes it.
SET 'parallelism.default' = '1';
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
SELECT auction, bidder, price, bid_time,
  SUM(price) OVER (PARTITION BY auction ORDER BY bid_time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s2,
  COUNT(*) OVER (PARTITION BY auction ORDER BY bid_time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS c2
FROM bids;
SELECT auction, bidder, price, bid_time,
  MAX(price) OVER (PARTITION BY auction ORDER BY bid_time
                   RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW) AS mx,
  MIN(price) OVER (PARTITION BY auction ORDER BY bid_time
                   RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW) AS mn,
  COUNT(price) OVER (PARTITION BY auction ORDER BY bid_time
                     RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW) AS n
FROM bids;
SELECT auction, bidder, price, bid_time,
  COUNT(*) OVER (ORDER BY bid_time) AS c, SUM(price) OVER (ORDER BY bid_time) AS s,
  AVG(price) OVER (ORDER BY bid_time) AS a, MIN(bidder) OVER (ORDER BY bid_time) AS first_name
FROM bids;
SELECT auction, bidder, price, bid_time,
  COUNT(*) OVER (PARTITION BY auction ORDER BY bid_time ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS c,
  LISTAGG(bidder, '') OVER (PARTITION BY auction ORDER BY bid_time
                            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS names
FROM bids;
SELECT auction, SUM(price + 1) OVER (ORDER BY bid_time) AS s1,
  COUNT(DISTINCT price) OVER (ORDER BY bid_time) AS dp, COUNT(DISTINCT price / 10) OVER (ORDER BY bid_time) AS d10
FROM bids;
SELECT auction, price, SUM(price) OVER w AS s, MAX(price) OVER w AS m FROM bids
WHERE auction < 4
WINDOW w AS (PARTITION BY auction ORDER BY bid_time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
