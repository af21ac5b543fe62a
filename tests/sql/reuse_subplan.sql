-- golden: sort-results
-- Sub-plan reuse (Flink's 'table.optimizer.reuse-sub-plan-enabled', on by
-- default): a stateful node computing what another node of the same job
-- computes (the same plan below it, nothing non-deterministic) runs once,
-- and its second consumer forks from the first's stage ("Reuse: [n] after
-- its step k" in EXPLAIN). Every query runs with reuse on and off: the two
-- results must be the same rows.
CREATE TABLE orders (id BIGINT, customer STRING, product STRING, qty INT, price DECIMAL(10, 2),
  ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/orders', 'format' = 'csv',
        'csv.null-literal' = 'null');
SET 'parallelism.default' = '1';
CREATE VIEW per_customer AS
  SELECT customer, COUNT(*) AS n, SUM(qty) AS units FROM orders GROUP BY customer;

-- An aggregation read twice: one GroupAggregate, read by both sides of the join.
EXPLAIN SELECT a.customer, a.n, b.units FROM per_customer a JOIN per_customer b
  ON a.customer = b.customer;
SELECT a.customer, a.n, b.units FROM per_customer a JOIN per_customer b ON a.customer = b.customer;
-- The JSON plan: the fork is a "Reuse" node whose predecessor is its owner.
EXPLAIN JSON_EXECUTION_PLAN SELECT a.customer, a.n, b.units FROM per_customer a JOIN per_customer b
  ON a.customer = b.customer;
SET 'table.optimizer.reuse-sub-plan-enabled' = 'false';
SELECT a.customer, a.n, b.units FROM per_customer a JOIN per_customer b ON a.customer = b.customer;
RESET 'table.optimizer.reuse-sub-plan-enabled';

-- Nexmark q5's shape: the customers with the most orders in each hopping
-- window. Both sides count orders per customer and window: that count runs
-- once; at parallelism 2 the fork runs in each of the aggregation's tasks.
CREATE VIEW hot_items AS SELECT c.customer, c.num, c.window_end FROM (
    SELECT customer, COUNT(*) AS num, window_start, window_end
    FROM TABLE(HOP(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '30' SECOND))
    GROUP BY customer, window_start, window_end) c
  JOIN (
    SELECT MAX(num) AS maxn, window_start, window_end FROM (
      SELECT customer, COUNT(*) AS num, window_start, window_end
      FROM TABLE(HOP(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '30' SECOND))
      GROUP BY customer, window_start, window_end)
    GROUP BY window_start, window_end) m
  ON c.window_start = m.window_start AND c.window_end = m.window_end AND c.num >= m.maxn;
SET 'parallelism.default' = '2';
EXPLAIN SELECT * FROM hot_items;
CREATE TABLE hot (customer STRING, num BIGINT, window_end TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/hot', 'format' = 'csv');
CREATE TABLE hot_off (customer STRING, num BIGINT, window_end TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/hot_off', 'format' = 'csv');
SET 'table.dml-sync' = 'true';
INSERT INTO hot SELECT * FROM hot_items;
SET 'table.optimizer.reuse-sub-plan-enabled' = 'false';
INSERT INTO hot_off SELECT * FROM hot_items;
RESET 'table.optimizer.reuse-sub-plan-enabled';
SET 'parallelism.default' = '1';
-- The files both jobs committed: the same rows (none in only one of them).
SELECT COUNT(*) AS both_rows FROM hot;
SELECT customer, num, window_end, SUM(side) AS only_in_one FROM (
    SELECT customer, num, window_end, 1 AS side FROM hot
    UNION ALL SELECT customer, num, window_end, -1 AS side FROM hot_off)
  GROUP BY customer, num, window_end HAVING SUM(side) <> 0;
SELECT customer, num, window_end FROM hot;

-- A join read twice whose readers read different columns of it: its
-- sources fill what either reads (price is read only through y).
CREATE VIEW pairs AS SELECT a.id, a.customer, b.price FROM orders a JOIN orders b ON a.id = b.id;
EXPLAIN SELECT x.customer, y.price FROM pairs x JOIN pairs y ON x.id = y.id;
SELECT x.id, x.customer, y.price FROM pairs x JOIN pairs y ON x.id = y.id;
SET 'table.optimizer.reuse-sub-plan-enabled' = 'false';
SELECT x.id, x.customer, y.price FROM pairs x JOIN pairs y ON x.id = y.id;
RESET 'table.optimizer.reuse-sub-plan-enabled';

-- The same aggregation twice under UNION ALL: owner and fork feed one stage.
SELECT customer, n FROM per_customer UNION ALL SELECT customer, n FROM per_customer;

-- Twins whose readers need different things of them are not shared (a
-- Top-N whose rank no reader reads need not compute it); here each
-- reader is a join, which reads every column, so the Top-N is shared.
CREATE VIEW top2 AS SELECT * FROM (
    SELECT customer, id, qty, ROW_NUMBER() OVER (PARTITION BY customer ORDER BY id DESC) AS rn
    FROM orders) WHERE rn <= 2;
EXPLAIN SELECT a.customer, a.id, b.rn FROM top2 a JOIN top2 b ON a.id = b.id;
SELECT a.customer, a.id, b.rn FROM top2 a JOIN top2 b ON a.id = b.id;
SET 'table.optimizer.reuse-sub-plan-enabled' = 'false';
SELECT a.customer, a.id, b.rn FROM top2 a JOIN top2 b ON a.id = b.id;
RESET 'table.optimizer.reuse-sub-plan-enabled';

-- Not reused: the plans below differ (a filter), or call RAND().
EXPLAIN SELECT a.customer, a.n, b.n FROM per_customer a JOIN
  (SELECT customer, COUNT(*) AS n FROM orders WHERE qty > 1 GROUP BY customer) b
  ON a.customer = b.customer;
CREATE VIEW lucky AS SELECT customer, COUNT(*) AS n FROM orders WHERE RAND() < 2 GROUP BY customer;
EXPLAIN SELECT a.customer, a.n, b.n FROM lucky a JOIN lucky b ON a.customer = b.customer;
-- A query with a LIMIT plans no reuse (its sink cuts the rows).
EXPLAIN SELECT a.customer FROM per_customer a JOIN per_customer b ON a.customer = b.customer LIMIT 3;
