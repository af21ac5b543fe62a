-- Window aggregations over interval joins: an interval join keeps both
-- inputs' time attributes, in the JOIN ... ON form and the comma form (the
-- bounds in WHERE), and holds its output watermark back by
-- max(-lower, upper), so no joined row is late. Two tables over the same
-- file tests/sql/data/bids.csv (out of order by at most 4 s, within the 5 s
-- watermark delay): no row is late whatever the interleaving, and each
-- window's count is final (compared as a multiset). A LEFT interval join
-- keeps them too (its unmatched rows go out padded).
SET 'parallelism.default' = '1';
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE a (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
CREATE TABLE b (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
CREATE TEMPORARY VIEW comma_j AS SELECT a.auction, a.bid_time, b.bid_time AS bt FROM a, b
WHERE a.auction = b.auction AND a.bidder <> b.bidder
  AND b.bid_time BETWEEN a.bid_time - INTERVAL '1' SECOND AND a.bid_time + INTERVAL '2' SECOND;
CREATE TEMPORARY VIEW on_j AS SELECT a.auction, a.bid_time, b.bid_time AS bt FROM a JOIN b
  ON a.auction = b.auction
  AND b.bid_time BETWEEN a.bid_time - INTERVAL '1' SECOND AND a.bid_time + INTERVAL '2' SECOND;
CREATE TEMPORARY VIEW three_int AS SELECT a.bid_time, b.bid_time AS bt, c.bid_time AS ct
FROM a, b, a AS c
WHERE a.auction = b.auction AND c.auction = a.auction
  AND b.bid_time BETWEEN a.bid_time - INTERVAL '1' SECOND AND a.bid_time + INTERVAL '2' SECOND
  AND c.bid_time BETWEEN b.bid_time AND b.bid_time + INTERVAL '1' SECOND;
SELECT window_start, window_end, COUNT(*) AS c
FROM TABLE(TUMBLE(TABLE comma_j, DESCRIPTOR(bid_time), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
SELECT window_start, window_end, COUNT(*) AS c
FROM TABLE(TUMBLE(TABLE on_j, DESCRIPTOR(bt), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
SELECT window_start, window_end, COUNT(*) AS c, MAX(bid_time) AS last_left
FROM TABLE(HOP(TABLE on_j, DESCRIPTOR(bid_time), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
SELECT window_start, window_end, COUNT(*) AS c
FROM TABLE(TUMBLE(TABLE three_int, DESCRIPTOR(ct), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
CREATE TEMPORARY VIEW left_j AS SELECT a.bid_time, b.bid_time AS bt FROM a LEFT JOIN b
  ON a.auction + 1 = b.auction
  AND b.bid_time >= a.bid_time AND b.bid_time < a.bid_time + INTERVAL '3' SECOND;
SELECT window_start, window_end, COUNT(*) AS c, COUNT(bt) AS matched
FROM TABLE(TUMBLE(TABLE left_j, DESCRIPTOR(bid_time), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
