-- Computed columns (Flink's `name AS expr` in CREATE TABLE): virtual, not read
-- from or written to the connector; a projection right after the scan computes
-- them in the declared order. Input: tests/sql/data/bids.csv (18 bids, the
-- physical columns auction, bidder, price, bid_time).
SET 'parallelism.default' = '1';
CREATE TABLE bids (auction BIGINT, bidder STRING, price INT,
  cost AS price * 2 + auction COMMENT 'derived',
  label AS UPPER(bidder) || '-' || CAST(auction AS STRING),
  bid_time TIMESTAMP(3),
  ts AS bid_time + INTERVAL '1' SECOND,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
DESCRIBE bids;
-- SHOW CREATE of the same shape over a fixed path (the output's width must not
-- depend on where the repository is checked out).
CREATE TABLE bids_shape (auction BIGINT, bidder STRING, price INT,
  cost AS price * 2 + auction COMMENT 'derived',
  label AS UPPER(bidder) || '-' || CAST(auction AS STRING),
  bid_time TIMESTAMP(3),
  ts AS bid_time + INTERVAL '1' SECOND,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '/data/bids.csv', 'format' = 'csv');
SHOW CREATE TABLE bids_shape;
-- SELECT * includes them, in the declared order.
SELECT * FROM bids WHERE auction <= 2;
-- In WHERE and GROUP BY.
SELECT auction, bidder, cost FROM bids WHERE cost > 100 AND label LIKE 'M%';
SELECT cost > 60 AS big, COUNT(*) AS n, SUM(cost) AS total FROM bids GROUP BY cost > 60;
-- A TUMBLE window on the computed rowtime ts (bid_time + 1 s).
SELECT window_start, window_end, COUNT(*) AS n, MAX(cost) AS top
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end;
EXPLAIN SELECT label FROM bids WHERE cost > 100;
-- INSERT into a table with computed columns writes only the physical ones:
-- positionally (the SELECT gives the physical columns) or by a column list.
CREATE TABLE totals (auction BIGINT, n BIGINT, doubled AS n * 2, best INT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/totals', 'format' = 'csv');
INSERT INTO totals SELECT auction, auction * 10, price FROM bids WHERE auction = 3;
INSERT INTO totals (best, auction) SELECT price, auction FROM bids WHERE bidder = 'p';
SELECT * FROM totals WHERE auction = 3;
SELECT * FROM totals WHERE auction = 7;
-- The file holds the physical columns only.
CREATE TABLE totals_raw (auction BIGINT, n BIGINT, best INT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/totals', 'format' = 'csv');
SELECT * FROM totals_raw WHERE auction = 3;
-- A job over the computed rowtime into files; the same statement again is the
-- same job: it resumes at its end (the projection has no state) and writes
-- nothing twice.
CREATE TABLE per_window (window_start TIMESTAMP(3), n BIGINT, top BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/per_window', 'format' = 'csv');
INSERT INTO per_window SELECT window_start, COUNT(*), MAX(cost)
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end;
SELECT * FROM per_window;
INSERT INTO per_window SELECT window_start, COUNT(*), MAX(cost)
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY window_start, window_end;
SELECT COUNT(*) AS n FROM per_window;
-- Errors.
-- a computed column in an INSERT column list
INSERT INTO totals (auction, doubled) VALUES (1, 2);
-- too many values: the target has 3 physical columns
INSERT INTO totals VALUES (1, 2, 3, 4);
-- unknown column in the expression
CREATE TABLE e1 (a INT, b AS a + c) WITH ('connector' = 'datagen');
-- an aggregate
CREATE TABLE e2 (a INT, b AS SUM(a)) WITH ('connector' = 'datagen');
-- another computed column
CREATE TABLE e3 (a INT, b AS a + 1, c AS b * 2) WITH ('connector' = 'datagen');
-- a subquery
CREATE TABLE e4 (a INT, b AS (SELECT 1)) WITH ('connector' = 'datagen');
-- a function that does not exist
CREATE TABLE e5 (a INT, b AS NOPE(a)) WITH ('connector' = 'datagen');
-- a primary key on a computed column
CREATE TABLE e6 (a INT, b AS a + 1, PRIMARY KEY (b) NOT ENFORCED) WITH ('connector' = 'datagen');
-- a watermark on a computed column that is not a timestamp
CREATE TABLE e7 (a INT, b AS a + 1, WATERMARK FOR b AS b) WITH ('connector' = 'datagen');
-- a window function
CREATE TABLE e9 (a INT, b AS ROW_NUMBER() OVER (ORDER BY a)) WITH ('connector' = 'datagen');
-- a duplicate name
CREATE TABLE e8 (a INT, a AS 1) WITH ('connector' = 'datagen');
SHOW TABLES;
