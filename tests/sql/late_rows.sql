-- 'table.exec.late-rows.table' (issue 15): the rows an operator drops as
-- later than the watermark go into a table, which joins the job's commit
-- group. Over the bundled clicks file (examples/data/clicks.csv: 3000 clicks
-- over 30 minutes, two of them 10 minutes late).
SET 'parallelism.default' = '1';
SET 'table.dml-sync' = 'true';
CREATE TABLE clicks (event_id BIGINT, campaign_id STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@DATA@/clicks.csv', 'format' = 'csv');
CREATE TABLE per_window (window_start TIMESTAMP(3), n BIGINT, total DECIMAL(38, 2))
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/per_window', 'format' = 'csv');
-- Any subset of the late-row columns, in any order (quoted where they are keywords).
CREATE TABLE late_clicks (`row` STRING, event_time TIMESTAMP(3), window_start TIMESTAMP(3),
  window_end TIMESTAMP(3), `watermark` TIMESTAMP(3), job STRING, `operator` STRING,
  arrived_at TIMESTAMP_LTZ(3))
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/late', 'format' = 'json');
SET 'table.exec.late-rows.table' = 'late_clicks';
-- EXPLAIN: the side output on the operator, the table in the commit group.
EXPLAIN INSERT INTO per_window
SELECT window_start, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
GROUP BY window_start, window_end;
INSERT INTO per_window
SELECT window_start, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
GROUP BY window_start, window_end;
SELECT window_start, n, total FROM per_window;
-- The two late clicks, with the watermark they missed and their window
-- (arrived_at is the processing time: only whether it is there).
SELECT job, `operator`, event_time, `watermark`, window_start, window_end,
       arrived_at IS NOT NULL AS arrived, `row`
FROM late_clicks;
-- Errors: no such table; a column that is none of the late-row columns; a
-- column of another type; a table that cannot be written.
SET 'table.exec.late-rows.table' = 'nowhere';
INSERT INTO per_window
SELECT window_start, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
GROUP BY window_start, window_end;
CREATE TABLE late_bad (event_time TIMESTAMP(3), amount DECIMAL(10, 2))
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/late_bad', 'format' = 'json');
SET 'table.exec.late-rows.table' = 'late_bad';
INSERT INTO per_window
SELECT window_start, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
GROUP BY window_start, window_end;
CREATE TABLE late_typed (event_time STRING, window_start TIMESTAMP(0))
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/late_typed', 'format' = 'json');
SET 'table.exec.late-rows.table' = 'late_typed';
INSERT INTO per_window
SELECT window_start, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
GROUP BY window_start, window_end;
CREATE TABLE late_gen (job STRING) WITH ('connector' = 'datagen');
SET 'table.exec.late-rows.table' = 'late_gen';
INSERT INTO per_window
SELECT window_start, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
GROUP BY window_start, window_end;
-- '' (the default): late rows are dropped and counted, as before.
SET 'table.exec.late-rows.table' = '';
EXPLAIN INSERT INTO per_window
SELECT window_start, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
GROUP BY window_start, window_end;
