-- Window aggregation (TUMBLE, HOP, CUMULATE table-valued functions) and
-- window Top-N over examples/data/clicks.csv (3000 clicks) and
-- tests/sql/data/bids.csv (out-of-order bids, none late). Final rows only:
-- append-only in both engines.
SET 'parallelism.default' = '1';
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE clicks (event_id BIGINT, campaign_id STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@DATA@/clicks.csv', 'format' = 'csv');
CREATE TABLE bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
SELECT window_start, window_end, window_time, COUNT(*) AS n, COUNT(DISTINCT campaign_id) AS campaigns,
  SUM(amount) AS total, MIN(amount) AS lo, MAX(amount) AS hi, AVG(amount) AS mean
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
GROUP BY window_start, window_end, window_time;
SELECT window_start, window_end, campaign_id, COUNT(*) AS n, SUM(amount) AS total
FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' MINUTE, INTERVAL '10' MINUTE))
GROUP BY window_start, window_end, campaign_id;
SELECT window_start, window_end, COUNT(*) AS n, MAX(amount) AS hi
FROM TABLE(CUMULATE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' MINUTE, INTERVAL '15' MINUTE))
GROUP BY window_start, window_end;
-- The same CUMULATE without clicks 3001 and 3002 (at 00:01 and 00:02, after
-- clicks up to 00:25): with them, whether they count in the window to 00:15
-- depends on how far each engine's watermark has moved when they arrive.
SELECT window_start, window_end, COUNT(*) AS n, MAX(amount) AS hi
FROM TABLE(CUMULATE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '5' MINUTE, INTERVAL '15' MINUTE))
WHERE event_id <= 3000 GROUP BY window_start, window_end;
-- FILTER, DISTINCT and LISTAGG in window aggregates.
SELECT window_start, COUNT(*) FILTER (WHERE amount > 1) AS c,
  SUM(amount) FILTER (WHERE campaign_id IN ('a', 'b')) AS s,
  COUNT(DISTINCT campaign_id) FILTER (WHERE amount > 0.5) AS d, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
WHERE event_id <= 14 OR event_id > 2994 GROUP BY window_start, window_end;
SELECT window_start, LISTAGG(campaign_id) AS l, LISTAGG(campaign_id, '') AS l2, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
WHERE event_id <= 14 OR event_id > 2994 GROUP BY window_start, window_end;
SELECT window_start, window_end, auction, COUNT(*) AS n, SUM(price) AS total, MAX(bidder) AS last_bidder
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '5' SECOND))
GROUP BY window_start, window_end, auction;
-- Window Top-N and window deduplication.
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC)
  AS rn FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '5' SECOND))) WHERE rn <= 2;
SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY total DESC)
  AS rn FROM (SELECT window_start, window_end, auction, SUM(price) AS total, COUNT(*) AS cnt
    FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '10' SECOND))
    GROUP BY window_start, window_end, auction)) WHERE rn <= 3;
SELECT auction, bidder, price, window_start FROM (SELECT *, ROW_NUMBER() OVER (
  PARTITION BY window_start, window_end, auction ORDER BY bid_time DESC) AS rn
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '5' SECOND))) WHERE rn = 1;
SELECT auction, bidder, price, window_end FROM (SELECT *, ROW_NUMBER() OVER (
  PARTITION BY window_start, window_end ORDER BY price ASC) AS rn
  FROM TABLE(HOP(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '5' SECOND, INTERVAL '10' SECOND)))
WHERE rn BETWEEN 2 AND 3;
-- LISTAGG(DISTINCT): Flink's order of the distinct values is its map's.
SELECT window_start, LISTAGG(DISTINCT campaign_id, '') AS d, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
WHERE event_id <= 14 OR event_id > 2994 GROUP BY window_start, window_end;
