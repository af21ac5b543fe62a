-- golden: sort-results
-- IS NOT DISTINCT FROM between the two sides of a regular join is a join
-- key whose NULLs match each other (Flink's null-safe equi-join key), over
-- the bundled orders and returns files (NULL products: orders 3 and 14,
-- return 104; NULL quantities). The results equal Flink 2.2's
-- (tests/flink/cases/joins.sql).
SET 'parallelism.default' = '2';
CREATE TABLE orders (id BIGINT, customer STRING, product STRING, qty INT, price DECIMAL(10, 2),
  ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/orders', 'format' = 'csv',
  'csv.null-literal' = 'null');
CREATE TABLE rets (id INT, product STRING, qty INT, refund DECIMAL(12, 1), ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/returns', 'format' = 'csv',
  'csv.null-literal' = 'null');
-- The key is hashed to the join tasks as = would be (Exchange: hash[$1]).
EXPLAIN SELECT o.id, r.id AS rid FROM orders o JOIN rets r ON o.product IS NOT DISTINCT FROM r.product;
SELECT o.id, r.id AS rid, o.product FROM orders o JOIN rets r ON o.product IS NOT DISTINCT FROM r.product;
-- Beside an = key, and IS DISTINCT FROM as a residual condition; outer.
SELECT o.id, r.id AS rid FROM orders o LEFT JOIN rets r
  ON o.product IS NOT DISTINCT FROM r.product AND o.qty IS DISTINCT FROM r.qty;
SELECT o.id, r.id AS rid FROM orders o FULL JOIN rets r ON o.qty IS NOT DISTINCT FROM r.qty AND o.product = r.product;
-- On the bounded path (batch mode): a condition of the nested-loop join.
SET 'execution.runtime-mode' = 'batch';
SELECT o.id, r.id AS rid FROM orders o JOIN rets r ON o.product IS NOT DISTINCT FROM r.product WHERE o.product IS NULL;
