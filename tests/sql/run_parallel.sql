-- golden: sort-results
-- The same jobs at parallelism 1 and 2 give the same results. At 2, each
-- source is read by two tasks (the files of @SQLDATA@/orders split by the
-- hash of their names: orders-1, -3, -5 and orders-2, -4, -6), rows reach
-- aggregations and deduplication through a hash exchange by key, and the
-- result comes from two tasks in no fixed order: the harness sorts every
-- result table and applies updating results' changelogs (see run_golden.sh).
-- The files are in event-time order, so no row is late under any
-- interleaving of the readers (the watermark after an exchange is the
-- smallest of its inputs').
CREATE TABLE orders (id BIGINT, customer STRING, product STRING, qty INT, price DECIMAL(10, 2),
  ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/orders', 'format' = 'csv',
        'csv.null-literal' = 'null');
CREATE TABLE tumbled_p1 (window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT,
  products BIGINT, revenue DECIMAL(38, 2), lo INT, hi INT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/tumbled_p1', 'format' = 'csv');
CREATE TABLE tumbled_p2 (window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT,
  products BIGINT, revenue DECIMAL(38, 2), lo INT, hi INT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/tumbled_p2', 'format' = 'csv');
CREATE TABLE totals_p1 (id BIGINT, customer STRING, total DECIMAL(20, 2))
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/totals_p1', 'format' = 'json');
CREATE TABLE totals_p2 (id BIGINT, customer STRING, total DECIMAL(20, 2))
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/totals_p2', 'format' = 'json');

SET 'parallelism.default' = '1';
-- Calc: NULLs propagate (NULL qty or price -> NULL total; CASE without ELSE
-- -> NULL), exact DECIMAL, MOD keeps the dividend's sign (-1 % 2 = -1, so
-- id 12 is filtered out).
SELECT id, customer, COALESCE(product, '?') AS product, qty * price AS total, price / 4 AS quarter,
       qty IS NULL AS no_qty, CASE WHEN price > 1 THEN 'dear' WHEN price <= 1 THEN 'cheap' END AS band,
       price - 0.05 AS less
FROM orders WHERE qty IS NULL OR qty % 2 = 1 OR price IS NULL;
-- Every aggregate per product (NULL products form one group; COUNT(qty),
-- SUM, MIN, MAX and AVG skip NULLs; AVG of an INT is an INT).
SELECT product, COUNT(*) AS n, COUNT(qty) AS with_qty, COUNT(DISTINCT customer) AS customers,
       SUM(qty) AS units, SUM(price) AS revenue, MIN(price) AS lo, MAX(price) AS hi,
       AVG(price) AS mean, AVG(qty) AS mean_qty
FROM orders GROUP BY product;
-- A global aggregate (one group: a single task at any parallelism).
SELECT COUNT(*) AS n, COUNT(DISTINCT product) AS products, SUM(price) AS revenue,
       MIN(ts) AS first_ts, MAX(ts) AS last_ts, AVG(qty) AS mean_qty
FROM orders;
-- TUMBLE: every aggregate per minute.
SELECT window_start, window_end, COUNT(*) AS n, COUNT(DISTINCT product) AS products,
       SUM(price) AS revenue, MIN(qty) AS lo, MAX(qty) AS hi, AVG(price) AS mean
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;
-- TUMBLE by window and product (the exchange hashes both).
SELECT window_start, product, COUNT(*) AS n, SUM(qty) AS units
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, product;
-- HOP: 1-minute windows every 30 seconds.
SELECT window_start, window_end, COUNT(*) AS n, SUM(qty) AS units, MAX(price) AS hi
FROM TABLE(HOP(TABLE orders, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;
-- CUMULATE: every 20 seconds within each minute.
SELECT window_start, window_end, COUNT(*) AS n, SUM(price) AS revenue
FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(ts), INTERVAL '20' SECOND, INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;
-- Deduplication, first row per customer (arrival order: each customer's
-- orders are in one file, hence read by one task in order).
SELECT customer, id, product, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY customer ORDER BY ts ASC) AS rn FROM orders)
WHERE rn = 1;
-- Deduplication, last row per product (the latest ts wins wherever it is read).
SELECT product, id, customer, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY product ORDER BY ts DESC) AS rn FROM orders)
WHERE rn = 1;
-- Into the exactly-once filesystem sink (one writer per task), read back.
INSERT INTO tumbled_p1
SELECT window_start, window_end, COUNT(*), COUNT(DISTINCT product), SUM(price), MIN(qty), MAX(qty)
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;
SELECT * FROM tumbled_p1;
INSERT INTO totals_p1 SELECT id, customer, qty * price FROM orders WHERE price IS NOT NULL;
SELECT COUNT(*) AS n, COUNT(total) AS with_total, SUM(total) AS total FROM totals_p1;

SET 'parallelism.default' = '2';
SELECT id, customer, COALESCE(product, '?') AS product, qty * price AS total, price / 4 AS quarter,
       qty IS NULL AS no_qty, CASE WHEN price > 1 THEN 'dear' WHEN price <= 1 THEN 'cheap' END AS band,
       price - 0.05 AS less
FROM orders WHERE qty IS NULL OR qty % 2 = 1 OR price IS NULL;
SELECT product, COUNT(*) AS n, COUNT(qty) AS with_qty, COUNT(DISTINCT customer) AS customers,
       SUM(qty) AS units, SUM(price) AS revenue, MIN(price) AS lo, MAX(price) AS hi,
       AVG(price) AS mean, AVG(qty) AS mean_qty
FROM orders GROUP BY product;
SELECT COUNT(*) AS n, COUNT(DISTINCT product) AS products, SUM(price) AS revenue,
       MIN(ts) AS first_ts, MAX(ts) AS last_ts, AVG(qty) AS mean_qty
FROM orders;
SELECT window_start, window_end, COUNT(*) AS n, COUNT(DISTINCT product) AS products,
       SUM(price) AS revenue, MIN(qty) AS lo, MAX(qty) AS hi, AVG(price) AS mean
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;
SELECT window_start, product, COUNT(*) AS n, SUM(qty) AS units
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, product;
SELECT window_start, window_end, COUNT(*) AS n, SUM(qty) AS units, MAX(price) AS hi
FROM TABLE(HOP(TABLE orders, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;
SELECT window_start, window_end, COUNT(*) AS n, SUM(price) AS revenue
FROM TABLE(CUMULATE(TABLE orders, DESCRIPTOR(ts), INTERVAL '20' SECOND, INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;
SELECT customer, id, product, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY customer ORDER BY ts ASC) AS rn FROM orders)
WHERE rn = 1;
SELECT product, id, customer, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY product ORDER BY ts DESC) AS rn FROM orders)
WHERE rn = 1;
INSERT INTO tumbled_p2
SELECT window_start, window_end, COUNT(*), COUNT(DISTINCT product), SUM(price), MIN(qty), MAX(qty)
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end;
SELECT * FROM tumbled_p2;
INSERT INTO totals_p2 SELECT id, customer, qty * price FROM orders WHERE price IS NOT NULL;
SELECT COUNT(*) AS n, COUNT(total) AS with_total, SUM(total) AS total FROM totals_p2;
-- The same INSERT again is the same job, which resumes at its end and writes
-- nothing twice — but not at another parallelism: a checkpoint's state
-- cannot be restored into a different shape (no rescaling).
INSERT INTO totals_p2 SELECT id, customer, qty * price FROM orders WHERE price IS NOT NULL;
SET 'parallelism.default' = '1';
INSERT INTO totals_p2 SELECT id, customer, qty * price FROM orders WHERE price IS NOT NULL;
SELECT COUNT(*) AS n FROM totals_p2;
-- A keyed operator over a join's key runs in the join's stage: the rows of
-- a key are in one task already (no exchange; EXPLAIN shows Join ->
-- GroupAggregate). Grouped by the NULL-padded side's key of a LEFT JOIN, or
-- by another column, the rows are exchanged. The results equal the same
-- queries' at parallelism 1 (a self-join also reads orders once).
SET 'parallelism.default' = '2';
EXPLAIN SELECT a.customer, COUNT(*) AS pairs, SUM(b.qty) AS qty
FROM orders a JOIN orders b ON a.customer = b.customer GROUP BY a.customer;
SELECT a.customer, COUNT(*) AS pairs, SUM(b.qty) AS qty
FROM orders a JOIN orders b ON a.customer = b.customer GROUP BY a.customer;
SELECT customer, id, qty FROM (
  SELECT a.customer, b.id, b.qty, ROW_NUMBER() OVER (PARTITION BY a.customer ORDER BY b.qty DESC, b.id) AS rn
  FROM orders a JOIN orders b ON a.customer = b.customer) WHERE rn = 1;
EXPLAIN SELECT b.customer, COUNT(*) AS n
FROM orders a LEFT JOIN orders b ON a.customer = b.customer AND b.qty > 5 GROUP BY b.customer;
SELECT b.customer, COUNT(*) AS n
FROM orders a LEFT JOIN orders b ON a.customer = b.customer AND b.qty > 5 GROUP BY b.customer;
SELECT a.product, COUNT(*) AS n FROM orders a JOIN orders b ON a.customer = b.customer GROUP BY a.product;
SET 'parallelism.default' = '1';
SELECT a.customer, COUNT(*) AS pairs, SUM(b.qty) AS qty
FROM orders a JOIN orders b ON a.customer = b.customer GROUP BY a.customer;
SELECT customer, id, qty FROM (
  SELECT a.customer, b.id, b.qty, ROW_NUMBER() OVER (PARTITION BY a.customer ORDER BY b.qty DESC, b.id) AS rn
  FROM orders a JOIN orders b ON a.customer = b.customer) WHERE rn = 1;
SELECT b.customer, COUNT(*) AS n
FROM orders a LEFT JOIN orders b ON a.customer = b.customer AND b.qty > 5 GROUP BY b.customer;
SELECT a.product, COUNT(*) AS n FROM orders a JOIN orders b ON a.customer = b.customer GROUP BY a.product;
