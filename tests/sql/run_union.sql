-- golden: sort-results
-- UNION ALL of several sources: each is read by its own task(s) and their
-- rows meet in no fixed order (the harness sorts result tables and applies
-- updating results' changelogs, see run_golden.sh); the watermark after a
-- union is the smallest of its inputs'. At parallelism 1 and 2.
CREATE TABLE orders (id BIGINT, customer STRING, product STRING, qty INT, price DECIMAL(10, 2),
  ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/orders', 'format' = 'csv',
        'csv.null-literal' = 'null');
CREATE TABLE returns (id INT, product STRING, qty INT, refund DECIMAL(12, 1),
  ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/returns', 'format' = 'csv',
        'csv.null-literal' = 'null');
-- Both sides, one view: INT and BIGINT widen to BIGINT, DECIMAL(10, 2) and
-- DECIMAL(12, 1) to DECIMAL(13, 2) (-1.3 shows as -1.30); the union of the
-- two time attributes is one (windows accept it). (No DESCRIBE here: this
-- file's tables are sorted.)
CREATE VIEW moves AS
  SELECT id, product, qty, price AS amount, ts, 'sale' AS kind FROM orders
  UNION ALL
  SELECT id, product, -qty, -refund, ts, 'back' FROM returns;
CREATE TABLE moves_p1 (id BIGINT, product STRING, qty INT, amount DECIMAL(13, 2), kind STRING)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/moves_p1', 'format' = 'json');
CREATE TABLE moves_p2 (id BIGINT, product STRING, qty INT, amount DECIMAL(13, 2), kind STRING)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/moves_p2', 'format' = 'json');

SET 'parallelism.default' = '1';
-- Two tables, with a filter on one side.
SELECT id, product, qty, amount, kind FROM moves WHERE kind = 'back' OR id <= 4;
-- A table with itself: every row twice, once per branch.
SELECT id, qty FROM orders WHERE id <= 3
UNION ALL
SELECT id, qty * 10 FROM orders WHERE id <= 3;
-- Three branches over two tables.
SELECT product FROM orders WHERE id = 1
UNION ALL SELECT product FROM returns WHERE id = 101
UNION ALL SELECT product FROM orders WHERE id = 2;
-- UNION ALL feeding an aggregation (updating: the final rows are shown).
SELECT product, COUNT(*) AS n, SUM(qty) AS units, SUM(amount) AS net, MIN(amount) AS lo,
       MAX(amount) AS hi, COUNT(DISTINCT kind) AS kinds
FROM moves GROUP BY product;
-- UNION without ALL: distinct rows (an aggregation, hence updating).
SELECT product FROM orders WHERE id <= 6 UNION SELECT product FROM returns;
-- ... and a window aggregation over the union's time attribute.
SELECT window_start, kind, COUNT(*) AS n, SUM(amount) AS net
FROM TABLE(TUMBLE(TABLE moves, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, kind;
-- Into the exactly-once filesystem sink, read back.
INSERT INTO moves_p1 SELECT id, product, qty, amount, kind FROM moves WHERE product IS NULL OR id > 25;
SELECT * FROM moves_p1;

SET 'parallelism.default' = '2';
SELECT id, product, qty, amount, kind FROM moves WHERE kind = 'back' OR id <= 4;
SELECT id, qty FROM orders WHERE id <= 3
UNION ALL
SELECT id, qty * 10 FROM orders WHERE id <= 3;
SELECT product FROM orders WHERE id = 1
UNION ALL SELECT product FROM returns WHERE id = 101
UNION ALL SELECT product FROM orders WHERE id = 2;
SELECT product, COUNT(*) AS n, SUM(qty) AS units, SUM(amount) AS net, MIN(amount) AS lo,
       MAX(amount) AS hi, COUNT(DISTINCT kind) AS kinds
FROM moves GROUP BY product;
SELECT product FROM orders WHERE id <= 6 UNION SELECT product FROM returns;
SELECT window_start, kind, COUNT(*) AS n, SUM(amount) AS net
FROM TABLE(TUMBLE(TABLE moves, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, kind;
INSERT INTO moves_p2 SELECT id, product, qty, amount, kind FROM moves WHERE product IS NULL OR id > 25;
SELECT * FROM moves_p2;
