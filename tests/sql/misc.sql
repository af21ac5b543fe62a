-- Catalog listings, views over views, a view whose table is gone, comments,
-- quoting and keywords as identifiers.
SET 'parallelism.default' = '2'; -- EXPLAIN shows each task's parallelism
SHOW CONNECTORS;
SHOW JOBS;
/* Flink's documentation example, keywords as column names */
CREATE TABLE Orders (
  `user` BIGINT,
  product STRING,
  amount INT,
  data STRING,     -- a non-reserved keyword as a column name
  `key` INT,
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'datagen');
CREATE VIEW big AS SELECT `user`, product, amount FROM Orders WHERE amount > 10;
CREATE VIEW bigger AS SELECT `user`, SUM(amount) AS total FROM big GROUP BY `user`;
EXPLAIN PLAN FOR SELECT * FROM bigger WHERE total > 100;
DESCRIBE bigger;
CREATE TABLE out1 (u BIGINT, p STRING) WITH ('connector' = 'print');
EXPLAIN INSERT INTO out1 (p, u) VALUES ('a', 1);
EXPLAIN INSERT INTO out1 (p, p) VALUES ('a', 'b');
EXPLAIN INSERT INTO out1 (q) VALUES ('a');
EXPLAIN INSERT INTO big SELECT * FROM big;
DROP TABLE Orders;
DESCRIBE bigger;
SELECT * FROM bigger;
STOP JOB 'a1b2' WITH SAVEPOINT;
