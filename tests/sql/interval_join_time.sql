-- An interval join keeps both inputs' time attributes (as Flink's
-- RelTimeIndicatorConverter, which materializes them only for regular
-- joins), in both its forms: JOIN ... ON with the bounds, and a comma join
-- with them in WHERE; a window aggregation over its output runs. The join
-- holds its output watermark back by max(-lower, upper) (Flink's
-- KeyedCoProcessOperatorWithWatermarkDelay), so no joined row is late.
--
-- The bids results below equal a Python computation over
-- tests/sql/data/bids.csv (every pair within the bounds, counted per 5 s
-- window of the left / right time) and Flink 2.2's
-- (tests/flink/cases/interval_join_time.sql).
SET 'table.local-time-zone' = 'UTC';
SET 'parallelism.default' = '1';
CREATE TABLE a (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
CREATE TABLE b (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
-- the comma form: the bounds in WHERE
CREATE TEMPORARY VIEW comma_j AS SELECT a.auction, a.bid_time, b.bid_time AS bt FROM a, b
WHERE a.auction = b.auction AND a.bidder <> b.bidder
  AND b.bid_time BETWEEN a.bid_time - INTERVAL '1' SECOND AND a.bid_time + INTERVAL '2' SECOND;
DESCRIBE comma_j;
-- the JOIN ... ON form
CREATE TEMPORARY VIEW on_j AS SELECT a.auction, a.bid_time, b.bid_time AS bt FROM a JOIN b
  ON a.auction = b.auction
  AND b.bid_time BETWEEN a.bid_time - INTERVAL '1' SECOND AND a.bid_time + INTERVAL '2' SECOND;
DESCRIBE on_j;
-- a regular join does not keep them
CREATE TEMPORARY VIEW reg_j AS SELECT a.auction, a.bid_time, b.bid_time AS bt FROM a JOIN b
  ON a.auction = b.auction;
DESCRIBE reg_j;
-- neither does a comma join whose WHERE bounds only one side of the times
CREATE TEMPORARY VIEW half_j AS SELECT a.bid_time, b.bid_time AS bt FROM a, b
WHERE a.auction = b.auction AND b.bid_time >= a.bid_time;
DESCRIBE half_j;
-- three tables: a-b bounded in WHERE, c joined on the key only (regular)
CREATE TEMPORARY VIEW three_reg AS SELECT a.bid_time, b.bid_time AS bt, c.bid_time AS ct
FROM a, b, a AS c
WHERE a.auction = b.auction AND c.auction = a.auction
  AND b.bid_time BETWEEN a.bid_time - INTERVAL '1' SECOND AND a.bid_time + INTERVAL '2' SECOND;
DESCRIBE three_reg;
-- three tables, both joins bounded in WHERE: both interval joins
CREATE TEMPORARY VIEW three_int AS SELECT a.bid_time, b.bid_time AS bt, c.bid_time AS ct
FROM a, b, a AS c
WHERE a.auction = b.auction AND c.auction = a.auction
  AND b.bid_time BETWEEN a.bid_time - INTERVAL '1' SECOND AND a.bid_time + INTERVAL '2' SECOND
  AND c.bid_time BETWEEN b.bid_time AND b.bid_time + INTERVAL '1' SECOND;
DESCRIBE three_int;
-- nested ON joins: the a-b bounds, in the outer ON, move into the inner join
CREATE TEMPORARY VIEW nested_on AS SELECT a.bid_time, b.bid_time AS bt, c.bid_time AS ct
FROM (a JOIN b ON a.auction = b.auction) JOIN a AS c ON c.auction = a.auction
  AND a.bid_time BETWEEN b.bid_time AND b.bid_time + INTERVAL '1' SECOND
  AND c.bid_time BETWEEN a.bid_time AND a.bid_time + INTERVAL '1' SECOND;
DESCRIBE nested_on;
-- a FULL join below keeps none, and an outer ON bound does not move into it
CREATE TEMPORARY VIEW below_full AS SELECT a.bid_time, b.bid_time AS bt, c.bid_time AS ct
FROM (a FULL JOIN b ON a.auction = b.auction) JOIN a AS c ON c.auction = a.auction
  AND a.bid_time BETWEEN b.bid_time AND b.bid_time + INTERVAL '1' SECOND;
DESCRIBE below_full;
-- a LEFT interval join keeps them too
CREATE TEMPORARY VIEW left_j AS SELECT a.bid_time, b.bid_time AS bt FROM a LEFT JOIN b
  ON a.auction + 1 = b.auction
  AND b.bid_time >= a.bid_time AND b.bid_time < a.bid_time + INTERVAL '3' SECOND;
DESCRIBE left_j;
-- window aggregations over each form: by the left time, then the right one
SELECT window_start, window_end, COUNT(*) AS c
FROM TABLE(TUMBLE(TABLE comma_j, DESCRIPTOR(bid_time), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
SELECT window_start, window_end, COUNT(*) AS c
FROM TABLE(TUMBLE(TABLE on_j, DESCRIPTOR(bt), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
EXPLAIN SELECT window_start, window_end, COUNT(*) AS c
FROM TABLE(TUMBLE(TABLE on_j, DESCRIPTOR(bt), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
SELECT window_start, window_end, COUNT(*) AS c
FROM TABLE(TUMBLE(TABLE three_int, DESCRIPTOR(ct), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
SELECT window_start, window_end, COUNT(*) AS c
FROM TABLE(TUMBLE(TABLE nested_on, DESCRIPTOR(ct), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
SELECT window_start, window_end, COUNT(*) AS c, COUNT(bt) AS matched
FROM TABLE(TUMBLE(TABLE left_j, DESCRIPTOR(bid_time), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
-- a regular join's times are plain: refused as before
SELECT window_start, COUNT(*) AS c
FROM TABLE(TUMBLE(TABLE reg_j, DESCRIPTOR(bt), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
SELECT window_start, COUNT(*) AS c
FROM TABLE(TUMBLE(TABLE three_reg, DESCRIPTOR(bid_time), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
-- The hold-back matters: l is read at once, r 1000 rows a second, and each
-- row l.id = x matches r.id = x + 50 (its time 500 ms later), so each joined
-- row goes out when r has already reached 500 ms past it. Without holding
-- the watermark back by max(1 s, 1 s) the windows would fire before half of
-- their rows arrive. Every window of 1 s must count ids 100w .. 100w + 99
-- (1 .. 99 in the first, 900 .. 950 in the last: l.id <= 1000 - 50).
CREATE TABLE l (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 10, 3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'datagen', 'number-of-rows' = '1000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000');
CREATE TABLE r (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 10, 3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'datagen', 'number-of-rows' = '1000', 'rows-per-second' = '1000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000');
CREATE TEMPORARY VIEW lr AS SELECT l.id, l.ts FROM l, r
  WHERE l.id = r.id - 50 AND l.ts BETWEEN r.ts - INTERVAL '1' SECOND AND r.ts + INTERVAL '1' SECOND;
SELECT window_start, COUNT(*) AS c, MIN(id) AS lo, MAX(id) AS hi
FROM TABLE(TUMBLE(TABLE lr, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
