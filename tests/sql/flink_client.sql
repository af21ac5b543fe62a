-- The statements a Flink SQL client user types first: HELP, the one catalog
-- and database, USE, DESCRIBE EXTENDED, ALTER TABLE ... RENAME TO / SET /
-- RESET, EXPLAIN's details, BEGIN STATEMENT SET; ... END;, SET's effective
-- values, and a clear 0A000 for what Sluice cannot run.
-- Plans name the parallelism: fixed here (its default is one task per CPU).
SET 'parallelism.default' = '2';
HELP;
help;
SHOW CATALOGS;
SHOW DATABASES;
SHOW CURRENT CATALOG;
SHOW CURRENT DATABASE;
USE CATALOG default_catalog;
USE default_database;
USE default_catalog.default_database;
-- Any other name: 3D000, Flink's message.
USE CATALOG hive;
USE other_db;
USE hive.default_database;
SHOW CURRENT SCHEMA;
CREATE TABLE orders (id BIGINT, customer STRING, product STRING, qty INT, price DECIMAL(10, 2),
  ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  COMMENT 'the orders'
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/orders', 'format' = 'csv',
        'csv.null-literal' = 'null');
-- Qualified names resolve to the one database.
SELECT id, customer FROM default_catalog.default_database.orders WHERE id = 5;
SELECT id, customer FROM default_database.orders WHERE id = 5;
SELECT id FROM hive.default_database.orders;
CREATE TABLE gen (id BIGINT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED)
  COMMENT 'generated'
  WITH ('connector' = 'datagen', 'number-of-rows' = '5', 'fields.id.kind' = 'sequence',
        'fields.id.start' = '1', 'fields.id.end' = '5');
DESCRIBE EXTENDED gen;
DESC EXTENDED gen;
-- A table named extended stays describable.
CREATE TABLE extended (x INT) WITH ('connector' = 'blackhole');
DESCRIBE extended;
DESCRIBE EXTENDED extended;
-- ALTER TABLE: RENAME TO, SET, RESET (checked like CREATE TABLE's options).
ALTER TABLE extended RENAME TO ext2;
SHOW TABLES;
DESCRIBE extended;
ALTER TABLE ext2 RENAME TO orders;
ALTER TABLE nothing RENAME TO x;
ALTER TABLE ext2 SET ('sink.parallelism' = '2');
ALTER TABLE ext2 SET ('no.such.option' = '2');
ALTER TABLE ext2 RESET ('sink.parallelism');
ALTER TABLE ext2 RESET ('connector');
SHOW CREATE TABLE ext2;
CREATE VIEW big_orders AS SELECT id, qty * price AS total FROM orders WHERE qty * price > 5;
ALTER TABLE big_orders RENAME TO bo;
CREATE TEMPORARY VIEW tv AS SELECT id FROM orders;
SHOW CREATE VIEW tv;
SHOW CREATE VIEW big_orders;
-- EXPLAIN's details.
EXPLAIN CHANGELOG_MODE SELECT customer, COUNT(*) FROM orders GROUP BY customer;
EXPLAIN ESTIMATED_COST SELECT id FROM orders;
EXPLAIN JSON_EXECUTION_PLAN SELECT customer, COUNT(*) FROM orders GROUP BY customer;
EXPLAIN CHANGELOG_MODE, JSON_EXECUTION_PLAN SELECT id FROM orders;
EXPLAIN PLAN FOR SELECT id FROM orders;
EXPLAIN PLAN_ADVICE SELECT id FROM orders;
-- BEGIN STATEMENT SET; ... END;: the INSERTs are checked and collected,
-- END runs them as one job.
CREATE TABLE big (id BIGINT, total DECIMAL(21, 2))
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/big', 'format' = 'json');
CREATE TABLE per_customer (customer STRING, id BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/per_customer', 'format' = 'csv');
SET 'parallelism.default' = '1';
BEGIN STATEMENT SET;
INSERT INTO big SELECT id, total FROM big_orders;
INSERT INTO nope SELECT 1;
SELECT 1;
BEGIN STATEMENT SET;
INSERT INTO per_customer SELECT customer, id FROM orders WHERE qty > 3;
END;
SELECT id, total FROM big;
SELECT id, qty * price FROM orders WHERE qty * price > 5;
SELECT customer, id FROM per_customer;
SELECT customer, id FROM orders WHERE qty > 3;
-- An empty set; END outside a set is COMMIT (a warning outside a transaction).
BEGIN STATEMENT SET;
END;
END;
-- SET lists effective values: no <NULL>.
SET;
-- Flink statements Sluice cannot run: 0A000 naming them.
CREATE CATALOG hive WITH ('type' = 'hive');
CREATE DATABASE db1;
CREATE DATABASE IF NOT EXISTS db1 COMMENT 'x';
DROP DATABASE db1;
ALTER DATABASE db1 SET ('k' = 'v');
DROP CATALOG hive;
SHOW CREATE CATALOG hive;
DESCRIBE CATALOG hive;
LOAD MODULE hive WITH ('hive-version' = '3.1.2');
UNLOAD MODULE hive;
USE MODULES hive, core;
SHOW MODULES;
SHOW FULL MODULES;
ADD JAR '/opt/udf.jar';
REMOVE JAR '/opt/udf.jar';
SHOW JARS;
ALTER VIEW big_orders AS SELECT 1;
ALTER TABLE orders ADD c INT;
ALTER TABLE orders MODIFY qty BIGINT;
ALTER TABLE orders DROP COLUMN qty;
ALTER TABLE orders RENAME qty TO quantity;
CREATE TABLE copy AS SELECT * FROM orders;
CREATE MATERIALIZED TABLE m AS SELECT 1;
ANALYZE TABLE orders COMPUTE STATISTICS;
SHOW PARTITIONS orders;
TRUNCATE TABLE orders;
DELETE FROM orders WHERE id = 1;
UPDATE orders SET qty = 1;
CALL sys.compact('t');
-- The new words stay usable as names.
CREATE TABLE help (use INT, rename INT, catalogs INT, databases INT, changelog_mode INT,
  estimated_cost INT, json_execution_plan INT, plan_advice INT) WITH ('connector' = 'blackhole');
DESCRIBE help;
-- Qualified names wherever a table or view is named.
CREATE TABLE default_catalog.default_database.q (a INT) WITH ('connector' = 'blackhole');
DESCRIBE default_database.q;
DESCRIBE public.q;
DESCRIBE EXTENDED default_catalog.default_database.q;
SHOW CREATE TABLE default_database.q;
ALTER TABLE default_catalog.default_database.q SET ('sink.parallelism' = '1');
INSERT INTO default_catalog.default_database.q SELECT CAST(id AS INT) FROM default_database.orders;
CREATE VIEW default_database.qv AS SELECT id FROM orders;
SHOW CREATE VIEW default_catalog.default_database.qv;
DROP VIEW default_database.qv;
INSERT INTO other_db.q SELECT 1;
DESCRIBE hive.default_database.q;
DROP TABLE default_catalog.default_database.q;
