-- Event-time temporal joins (FOR SYSTEM_TIME AS OF the left side's event
-- time) against a versioned table (PRIMARY KEY + WATERMARK): each order
-- joins the rate valid at its time. The rows, their order and the padded
-- rows of the LEFT join equal Flink 2.2's for the same statements and files.
SET 'parallelism.default' = '1';
CREATE TABLE rates (currency STRING, rate DECIMAL(10, 2), ts TIMESTAMP(3),
  PRIMARY KEY (currency) NOT ENFORCED, WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/rates.csv', 'format' = 'csv');
CREATE TABLE conv (id BIGINT, currency STRING, amount BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/conv.csv', 'format' = 'csv');
EXPLAIN SELECT o.id, r.rate FROM conv AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r
  ON o.currency = r.currency;
SELECT o.id, o.currency, o.amount, r.rate, o.amount * r.rate AS converted
FROM conv AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;
SELECT o.id, r.rate FROM conv AS o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r
  ON o.currency = r.currency AND r.rate > 1.11;
-- Errors: no PRIMARY KEY, not the key, not a time attribute, a RIGHT join, outside a join.
CREATE TABLE plain (currency STRING, rate DECIMAL(10, 2), ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/rates.csv', 'format' = 'csv');
SELECT o.id FROM conv AS o JOIN plain FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;
SELECT o.id FROM conv AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.amount > r.rate;
SELECT o.id FROM conv AS o JOIN rates FOR SYSTEM_TIME AS OF o.id AS r ON o.currency = r.currency;
SELECT o.id FROM conv AS o RIGHT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;
SELECT * FROM rates FOR SYSTEM_TIME AS OF TIMESTAMP '2026-01-01 00:00:00';
