-- golden: sort-results
-- Window joins (Flink's WindowJoin) over the bundled orders and returns
-- files: two window TVFs (or window aggregations) joined on window_start,
-- window_end and keys. Each window's rows are joined when the watermark
-- reaches its end; the output is append-only, outer joins included (no
-- retractions). The results equal what Flink 2.2 printed for the same
-- statements over the same files, run side by side (Flink at parallelism 1
-- with the watermarks 10 minutes behind: its file source reads the files in
-- an order that otherwise makes some rows late, which a window join drops);
-- Flink's EXPLAIN of each statement below names the same operators (WindowJoin,
-- a window aggregation over one, Join where it is no window join).
SET 'parallelism.default' = '2';
CREATE TABLE orders (id BIGINT, customer STRING, product STRING, qty INT, price DECIMAL(10, 2),
  ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/orders', 'format' = 'csv',
        'csv.null-literal' = 'null');
CREATE TABLE rets (id INT, product STRING, qty INT, refund DECIMAL(12, 1),
  ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/returns', 'format' = 'csv',
        'csv.null-literal' = 'null');
CREATE VIEW o1 AS SELECT * FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE));
CREATE VIEW r1 AS SELECT * FROM TABLE(TUMBLE(TABLE rets, DESCRIPTOR(ts), INTERVAL '1' MINUTE));
-- INNER over TUMBLE: a WindowJoin, append-only.
EXPLAIN SELECT L.id, R.id AS rid, L.window_start FROM o1 L JOIN r1 R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.product = R.product;
SELECT L.id, L.product, R.id AS rid, L.window_start, R.window_end FROM o1 L JOIN r1 R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.product = R.product;
-- A residual condition besides the keys.
SELECT L.id, R.id AS rid FROM o1 L JOIN r1 R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.product = R.product
AND L.qty >= R.qty;
-- Outer joins: each unmatched row once, padded with NULLs, at its window's end
-- (a NULL product never matches).
SELECT L.id, L.product, R.id AS rid, L.window_start FROM o1 L LEFT JOIN r1 R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.product = R.product;
SELECT L.id, R.id AS rid, R.product, R.window_start FROM o1 L RIGHT JOIN r1 R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.product = R.product;
SELECT L.id, R.id AS rid, L.window_end AS lend, R.window_end AS rend FROM o1 L FULL JOIN r1 R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.product = R.product;
-- HOP windows: a row is in two windows, joined in each.
SELECT L.id, R.id AS rid, L.window_start, L.window_end
FROM (SELECT * FROM TABLE(HOP(TABLE orders, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE))) L
JOIN (SELECT * FROM TABLE(HOP(TABLE rets, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE))) R
ON L.product = R.product AND L.window_start = R.window_start AND L.window_end = R.window_end;
SELECT L.id, R.id AS rid, R.window_start, R.window_end
FROM (SELECT * FROM TABLE(HOP(TABLE orders, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE))) L
RIGHT JOIN (SELECT * FROM TABLE(HOP(TABLE rets, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE))) R
ON L.product = R.product AND L.window_start = R.window_start AND L.window_end = R.window_end;
-- CUMULATE windows.
SELECT L.id, R.id AS rid, L.window_start, L.window_end
FROM (SELECT * FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE))) L
JOIN (SELECT * FROM TABLE(CUMULATE(TABLE rets, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE))) R
ON L.product = R.product AND L.window_start = R.window_start AND L.window_end = R.window_end;
-- Two window aggregations joined (as Nexmark q8).
EXPLAIN SELECT a.product, a.n, b.total, a.window_start FROM
(SELECT product, window_start, window_end, COUNT(*) AS n FROM o1 GROUP BY product, window_start, window_end) a
FULL JOIN
(SELECT product, window_start, window_end, SUM(refund) AS total FROM r1 GROUP BY product, window_start, window_end) b
ON a.product = b.product AND a.window_start = b.window_start AND a.window_end = b.window_end;
SELECT a.product, a.n, b.product AS bproduct, b.total, a.window_start, b.window_end FROM
(SELECT product, window_start, window_end, COUNT(*) AS n FROM o1 GROUP BY product, window_start, window_end) a
FULL JOIN
(SELECT product, window_start, window_end, SUM(refund) AS total FROM r1 GROUP BY product, window_start, window_end) b
ON a.product = b.product AND a.window_start = b.window_start AND a.window_end = b.window_end;
-- A window aggregation over a window join: the preserved side's window
-- columns stay window columns.
EXPLAIN SELECT window_start, window_end, COUNT(*) AS n, SUM(rid) AS s FROM
(SELECT L.window_start, L.window_end, R.id AS rid FROM o1 L LEFT JOIN r1 R
 ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.product = R.product)
GROUP BY window_start, window_end;
SELECT window_start, window_end, COUNT(*) AS n, SUM(rid) AS s FROM
(SELECT L.window_start, L.window_end, R.id AS rid FROM o1 L LEFT JOIN r1 R
 ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.product = R.product)
GROUP BY window_start, window_end;
-- A window Top-N over a window join; an inner join keeps both sides' window
-- columns.
SELECT * FROM (SELECT window_start, window_end, id, rid,
  ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY id DESC) AS rn FROM
  (SELECT L.window_start, L.window_end, L.id, R.id AS rid FROM o1 L JOIN r1 R
   ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.product = R.product))
WHERE rn <= 2;
SELECT window_start, window_end, COUNT(*) AS n FROM
(SELECT R.window_start, R.window_end, L.id FROM o1 L JOIN r1 R
 ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.product = R.product)
GROUP BY window_start, window_end;
-- Not window joins (regular joins, as in Flink): only window_start equated;
-- windows of different sizes.
EXPLAIN SELECT L.id, R.id AS rid FROM o1 L JOIN r1 R
ON L.window_start = R.window_start AND L.product = R.product;
EXPLAIN SELECT L.id, R.id AS rid FROM o1 L JOIN
(SELECT * FROM TABLE(TUMBLE(TABLE rets, DESCRIPTOR(ts), INTERVAL '2' MINUTE))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.product = R.product;
