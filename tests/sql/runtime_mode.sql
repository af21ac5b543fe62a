-- 'execution.runtime-mode': 'batch' reads bounded sources only and returns
-- final, insert-only results; 'automatic' is batch when every source is
-- bounded. Boundedness is each connector's declaration. Results are compared
-- sorted (an updating one, with its op column, as its final rows).
-- golden: sort-results
SET 'parallelism.default' = '1';
CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '6',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '6');
CREATE TABLE endless (id BIGINT) WITH ('connector' = 'datagen',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000');
CREATE TABLE topic (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 't',
  'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json');
CREATE TABLE orders (id BIGINT, customer STRING, product STRING, qty INT, price DECIMAL(10, 2),
  ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/orders',
  'format' = 'csv', 'csv.null-literal' = 'null');
CREATE TABLE watched (id BIGINT, customer STRING, product STRING, qty INT, price DECIMAL(10, 2),
  ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/orders',
  'format' = 'csv', 'csv.null-literal' = 'null', 'source.monitor-interval' = '1 s');
SET 'execution.runtime-mode' = 'batch';
-- Unbounded sources are refused at plan time, naming the table.
SELECT id FROM endless;
SELECT * FROM topic;
SELECT COUNT(*) FROM watched;
SELECT n.id FROM nums n UNION ALL SELECT e.id FROM endless e;
-- A bounded aggregation: its final rows only, no op column.
SELECT customer, COUNT(*) AS n, SUM(qty) AS total FROM orders GROUP BY customer;
SELECT id % 2 AS k, COUNT(*) AS n FROM nums GROUP BY id % 2;
-- changelog mode shows them as inserts.
SET 'sql-client.execution.result-mode' = 'changelog';
SELECT id % 2 AS k, COUNT(*) AS n FROM nums GROUP BY id % 2;
RESET 'sql-client.execution.result-mode';
-- automatic: batch for bounded sources, streaming otherwise.
SET 'execution.runtime-mode' = 'automatic';
SELECT id % 2 AS k, COUNT(*) AS n FROM nums GROUP BY id % 2;
SELECT id FROM endless LIMIT 2;
SET 'execution.runtime-mode' = 'streaming';
SELECT id % 2 AS k, COUNT(*) AS n FROM nums GROUP BY id % 2;
SET 'execution.runtime-mode' = 'bulk';
