-- EXPLAIN shows the logical plan of queries, INSERTs and statement sets.
SET 'parallelism.default' = '2'; -- EXPLAIN shows each task's parallelism
CREATE TABLE clicks (id BIGINT, campaign STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE users (id BIGINT, name STRING) WITH ('connector' = 'datagen');
CREATE TABLE spend (ws TIMESTAMP(3), we TIMESTAMP(3), campaign STRING, n BIGINT, total DECIMAL(38, 2))
  WITH ('connector' = 'filesystem', 'path' = '/tmp/spend', 'format' = 'json');
CREATE TABLE audit (id BIGINT, campaign STRING) WITH ('connector' = 'print');
EXPLAIN SELECT id, UPPER(campaign) AS c, amount * 2 FROM clicks WHERE amount > 1.5 AND campaign LIKE 'a%';
EXPLAIN INSERT INTO spend
  SELECT window_start, window_end, campaign, COUNT(*), SUM(amount)
  FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, campaign;
EXPLAIN SELECT window_start, window_end, COUNT(DISTINCT campaign)
  FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end;
-- A HOP aggregation whose calls merge is sliced (Flink's slicing window
-- aggregation): rows go to their slice once, by campaign alone; one that
-- reads window_start before the aggregation, or a DISTINCT, is not.
EXPLAIN SELECT window_start, window_end, campaign, COUNT(*), SUM(amount), MAX(ts)
  FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, campaign;
EXPLAIN SELECT window_start, window_end, campaign, COUNT(*)
  FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '1' MINUTE))
  WHERE window_start > ts - INTERVAL '30' SECOND
  GROUP BY window_start, window_end, campaign;
EXPLAIN SELECT window_start, window_end, MAX(amount)
  FROM TABLE(CUMULATE(DATA => TABLE clicks, TIMECOL => DESCRIPTOR(ts), STEP => INTERVAL '1' MINUTE, SIZE => INTERVAL '1' HOUR))
  GROUP BY window_start, window_end;
EXPLAIN SELECT id, campaign FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM clicks
) WHERE rn = 1;
EXPLAIN SELECT campaign, AVG(amount), MIN(ts), MAX(ts) FROM clicks GROUP BY campaign HAVING COUNT(*) > 10;
EXPLAIN SELECT c.id, u.name FROM clicks c LEFT JOIN users u ON c.id = u.id;
EXPLAIN SELECT id FROM clicks UNION ALL SELECT id FROM users;
EXPLAIN SELECT DISTINCT campaign FROM clicks;
EXPLAIN SELECT id, amount FROM clicks ORDER BY amount DESC LIMIT 10;
EXPLAIN SELECT CASE WHEN amount IS NULL THEN 0 ELSE amount END, CAST(id AS STRING), COALESCE(campaign, 'none') FROM clicks WHERE id BETWEEN 1 AND 10 AND campaign IN ('a', 'b');
EXPLAIN INSERT INTO audit VALUES (1, 'a'), (2, 'b');
EXPLAIN INSERT INTO audit (campaign) SELECT campaign FROM clicks;
EXPLAIN EXECUTE STATEMENT SET BEGIN
  INSERT INTO audit SELECT id, campaign FROM clicks;
  INSERT INTO audit SELECT id, name FROM users;
END;
-- Flink's spelling, without EXECUTE: the same plan (the shell keeps the
-- block whole at its semicolons).
EXPLAIN STATEMENT SET BEGIN
  INSERT INTO audit SELECT id, campaign FROM clicks;
  INSERT INTO audit SELECT id, name FROM users;
END;
EXPLAIN SELECT 1 + 1, 'x' || 'y', DATE '2026-01-31', TIMESTAMP '2026-01-31 12:00:00.123';

-- Kafka: an upsert-kafka table read as a source is normalized by its
-- PRIMARY KEY (ChangelogNormalize) before the rest of the plan reads it;
-- an upsert sink at its default, at-least-once, is noted as leaving an
-- exactly-once final state. (No broker is needed: only exactly-once asks
-- the broker for its limits.)
CREATE TABLE levels (id BIGINT, level INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'upsert-kafka', 'topic' = 'levels', 'properties.bootstrap.servers' = '127.0.0.1:1',
  'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE level_counts (level INT, users BIGINT, PRIMARY KEY (level) NOT ENFORCED) WITH (
  'connector' = 'upsert-kafka', 'topic' = 'level_counts',
  'properties.bootstrap.servers' = '127.0.0.1:1', 'key.format' = 'json', 'format' = 'json');
EXPLAIN INSERT INTO level_counts SELECT level, COUNT(*) FROM levels GROUP BY level;
-- No -U where no consumer needs it (Flink's ONLY_UPDATE_AFTER): the
-- aggregation above updates its sink by the group key, which is the
-- table's PRIMARY KEY, so its changelog is [I,UA,D]. Not so when the key
-- is another (here it includes the count: the -U deletes the old row), or
-- when a filter stands between them (a dropped +U leaves the row to its -U);
-- a blackhole sink needs none, whatever the key.
CREATE TABLE level_rows (level INT, users BIGINT, PRIMARY KEY (level, users) NOT ENFORCED) WITH (
  'connector' = 'upsert-kafka', 'topic' = 'level_rows',
  'properties.bootstrap.servers' = '127.0.0.1:1', 'key.format' = 'json', 'format' = 'json');
EXPLAIN INSERT INTO level_rows SELECT level, COUNT(*) FROM levels GROUP BY level;
EXPLAIN INSERT INTO level_counts SELECT level, n FROM (SELECT level, COUNT(*) AS n FROM levels GROUP BY level) WHERE n > 1;
EXPLAIN INSERT INTO level_counts (users, level) SELECT COUNT(*), level FROM levels GROUP BY level;
CREATE TABLE level_void (users BIGINT, level INT) WITH ('connector' = 'blackhole');
EXPLAIN INSERT INTO level_void SELECT COUNT(*), level FROM levels GROUP BY level;
EXPLAIN INSERT INTO audit SELECT id, CAST(level AS STRING) FROM levels;
