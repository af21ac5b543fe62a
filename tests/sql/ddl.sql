-- DDL: tables, views, ALTER, DROP, IF [NOT] EXISTS; the catalog persists
-- (see ddl.restart, run by a new process on the same data directory).
CREATE TABLE clicks (
  event_id BIGINT NOT NULL COMMENT 'unique per click',
  campaign_id STRING,
  amount DECIMAL(10, 2),
  ts TIMESTAMP(3),
  PRIMARY KEY (event_id) NOT ENFORCED,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) COMMENT 'ad clicks' WITH (
  'connector' = 'datagen',
  'rows-per-second' = '10'
);
CREATE TABLE IF NOT EXISTS clicks (x INT) WITH ('connector' = 'datagen');
CREATE TABLE clicks (x INT) WITH ('connector' = 'datagen');
CREATE TABLE `select` (`from` INT, data STRING, `key` INT) WITH ('connector' = 'blackhole');
CREATE TABLE out_print (campaign_id STRING, n BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'out');
SHOW TABLES;
DESCRIBE clicks;
DESC `select`;
SHOW CREATE TABLE clicks;
ALTER TABLE clicks SET ('rows-per-second' = '20', 'number-of-rows' = '1000');
ALTER TABLE clicks RESET ('number-of-rows');
ALTER TABLE clicks RESET ('no-such-option');
ALTER TABLE nope SET ('a' = 'b');
SHOW CREATE TABLE clicks;
CREATE VIEW big_clicks AS SELECT campaign_id, amount FROM clicks WHERE amount > 1.00;
CREATE VIEW per_campaign (campaign, total) AS SELECT campaign_id, SUM(amount) FROM clicks GROUP BY campaign_id;
CREATE TEMPORARY VIEW recent AS SELECT event_id, ts FROM clicks;
SHOW VIEWS;
DESCRIBE per_campaign;
DESCRIBE recent;
SHOW CREATE VIEW big_clicks;
DROP VIEW clicks;
DROP TABLE big_clicks;
DROP TABLE out_print;
DROP TABLE out_print;
DROP TABLE IF EXISTS out_print;
DROP TEMPORARY VIEW recent;
DROP VIEW IF EXISTS recent;
SHOW TABLES;
SHOW VIEWS;
