-- Regular joins (INNER, LEFT, RIGHT, FULL) over two directories of CSV files
-- (tests/sql/data/orders, tests/sql/data/returns). The two sources'
-- interleaving is not fixed in either engine, so outer joins' changelogs
-- (a row first unmatched, then retracted) vary: final tables only for them.
SET 'parallelism.default' = '1';
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE orders (id BIGINT, customer STRING, product STRING, qty INT, price DECIMAL(10, 2),
  ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/orders', 'format' = 'csv',
  'csv.null-literal' = 'null');
CREATE TABLE rets (id INT, product STRING, qty INT, refund DECIMAL(12, 1), ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/returns', 'format' = 'csv',
  'csv.null-literal' = 'null');
SELECT o.id, o.customer, r.id AS rid, r.refund FROM orders o, rets r
WHERE o.product = r.product AND o.qty > 1 AND r.refund > 1;
SELECT o.id, o.product, r.id AS rid, o.qty * r.refund AS x FROM orders o JOIN rets r
  ON o.product = r.product AND o.qty >= r.qty;
-- flinkdiff: final-only (source interleaving)
SELECT o.id, o.product, r.id AS rid FROM orders o LEFT JOIN rets r ON o.product = r.product;
-- flinkdiff: final-only (source interleaving)
SELECT o.id, r.id AS rid, r.product FROM orders o RIGHT JOIN rets r ON o.product = r.product AND o.qty > 4;
-- flinkdiff: final-only (source interleaving)
SELECT o.id, r.id AS rid FROM orders o FULL JOIN rets r ON o.id = r.qty;
-- flinkdiff: final-only (source interleaving)
SELECT a.product, a.n, b.total FROM (SELECT product, COUNT(*) AS n FROM orders GROUP BY product) a
LEFT JOIN (SELECT product, SUM(refund) AS total FROM rets GROUP BY product) b ON a.product = b.product;
-- flinkdiff: final-only (source interleaving)
SELECT o.customer, COUNT(*) AS n FROM orders o JOIN rets r ON o.product = r.product GROUP BY o.customer;
-- IS NOT DISTINCT FROM as a join key: NULL products match each other.
SELECT o.id, r.id AS rid, o.product FROM orders o JOIN rets r ON o.product IS NOT DISTINCT FROM r.product;
-- flinkdiff: final-only (source interleaving)
SELECT o.id, r.id AS rid FROM orders o LEFT JOIN rets r
  ON o.product IS NOT DISTINCT FROM r.product AND o.qty IS DISTINCT FROM r.qty;
-- flinkdiff: final-only (source interleaving)
SELECT o.id, r.id AS rid FROM orders o FULL JOIN rets r ON o.qty IS NOT DISTINCT FROM r.qty AND o.product = r.product;
