-- golden: sort-results
-- Streaming joins over the bundled orders and returns files. Each result's
-- final rows (an updating result's changelog applied by golden_sort.awk)
-- equal what Flink 2.2 printed for the same statements over the same files,
-- run side by side — except the two interval joins: Flink's result there
-- depends on how its two file sources interleave (it missed matches whose
-- rows it read behind the other side's watermark); these equal a Python
-- computation of the SQL over the files (every pair within the bounds).
SET 'parallelism.default' = '2';
CREATE TABLE orders (id BIGINT, customer STRING, product STRING, qty INT, price DECIMAL(10, 2),
  ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/orders', 'format' = 'csv',
        'csv.null-literal' = 'null');
CREATE TABLE rets (id INT, product STRING, qty INT, refund DECIMAL(12, 1),
  ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/returns', 'format' = 'csv',
        'csv.null-literal' = 'null');
-- A comma join with its condition in WHERE: an inner join on product, the
-- one-sided terms filtered below it.
EXPLAIN SELECT o.id, o.customer, r.id AS rid, r.refund FROM orders o, rets r
WHERE o.product = r.product AND o.qty > 1 AND r.refund > 1;
SELECT o.id, o.customer, r.id AS rid, r.refund FROM orders o, rets r
WHERE o.product = r.product AND o.qty > 1 AND r.refund > 1;
-- A residual condition besides the key; NULL keys never match.
SELECT o.id, o.product, r.id AS rid FROM orders o JOIN rets r ON o.product = r.product AND o.qty >= r.qty;
-- Outer joins: updating results (null-padded rows retracted when a match arrives).
SELECT o.id, o.product, r.id AS rid FROM orders o LEFT JOIN rets r ON o.product = r.product;
SELECT o.id, r.id AS rid, r.product FROM orders o RIGHT JOIN rets r ON o.product = r.product AND o.qty > 4;
SELECT o.id, r.id AS rid FROM orders o FULL JOIN rets r ON o.id = r.qty;
-- Updating inputs: a join of two aggregations.
SELECT a.product, a.n, b.total FROM (SELECT product, COUNT(*) AS n FROM orders GROUP BY product) a
LEFT JOIN (SELECT product, SUM(refund) AS total FROM rets GROUP BY product) b ON a.product = b.product;
-- Interval joins: append-only, state cleaned by the watermarks.
EXPLAIN SELECT o.id, r.id AS rid FROM orders o, rets r
WHERE o.product = r.product AND o.ts BETWEEN r.ts - INTERVAL '30' SECOND AND r.ts;
SELECT o.id, r.id AS rid FROM orders o, rets r
WHERE o.product = r.product AND o.ts BETWEEN r.ts - INTERVAL '30' SECOND AND r.ts;
SELECT o.id, r.id AS rid FROM orders o LEFT JOIN rets r
ON o.product = r.product AND r.ts >= o.ts AND r.ts < o.ts + INTERVAL '1' MINUTE;
-- An aggregation over a join.
SELECT o.customer, COUNT(*) AS n FROM orders o JOIN rets r ON o.product = r.product GROUP BY o.customer;
