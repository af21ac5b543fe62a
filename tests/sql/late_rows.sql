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
-- Session windows (sessions_late.csv: y at 10:00:00 and 10:01:20 are late,
-- their sessions would end before the watermark): the window is the row's
-- own, [t, t + gap).
CREATE TABLE sl (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/sessions_late.csv', 'format' = 'csv');
CREATE TABLE sess_out (k STRING, ws TIMESTAMP(3), n BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/sess_out', 'format' = 'csv');
CREATE TABLE late_sess (`operator` STRING, event_time TIMESTAMP(3), window_start TIMESTAMP(3),
  window_end TIMESTAMP(3), `row` STRING)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/late_sess', 'format' = 'json');
SET 'table.exec.late-rows.table' = 'late_sess';
INSERT INTO sess_out SELECT k, window_start, COUNT(*)
FROM TABLE(SESSION(TABLE sl PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY k, window_start, window_end;
SELECT * FROM late_sess;
-- OVER (late_bids.csv: 1024 in-order bids of auction 100, then 11 bids of
-- which 6 are behind the watermark): no window.
CREATE TABLE late_bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/late_bids.csv', 'format' = 'csv');
CREATE TABLE counts (auction BIGINT, price INT, c BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/counts', 'format' = 'csv');
CREATE TABLE late_over (`operator` STRING, event_time TIMESTAMP(3), `watermark` TIMESTAMP(3),
  window_start TIMESTAMP(3), window_end TIMESTAMP(3), `row` STRING)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/late_over', 'format' = 'json');
SET 'table.exec.late-rows.table' = 'late_over';
INSERT INTO counts SELECT auction, price, COUNT(*) OVER (PARTITION BY auction ORDER BY bid_time)
FROM late_bids;
SELECT * FROM late_over;
-- A window join keeps the late rows of each side (that side's columns; which
-- rows are late depends on how the two inputs interleave: only its plan here).
CREATE TABLE pairs (auction BIGINT, lp INT, rp INT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/pairs', 'format' = 'csv');
EXPLAIN INSERT INTO pairs SELECT L.auction, L.price, R.price
FROM (SELECT * FROM TABLE(TUMBLE(TABLE late_bids, DESCRIPTOR(bid_time), INTERVAL '1' MINUTE))) L
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE late_bids, DESCRIPTOR(bid_time), INTERVAL '1' MINUTE))) R
ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.auction = R.auction;
-- A keep-first deduplication by event time has two side outputs: its late
-- rows (dropped, no window) and its conflicts (a later row of an emitted or
-- replaced key that differs), each into its own table.
CREATE TABLE first_bids (auction BIGINT, bidder STRING, price INT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/first_bids', 'format' = 'csv');
CREATE TABLE late_dedup (`operator` STRING, event_time TIMESTAMP(3), `watermark` TIMESTAMP(3),
  window_start TIMESTAMP(3), window_end TIMESTAMP(3), `row` STRING)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/late_dedup', 'format' = 'json');
CREATE TABLE bid_conflicts (`operator` STRING, conflict_key STRING, stored_row STRING,
  conflicting_row STRING, event_time TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/bid_conflicts', 'format' = 'json');
SET 'table.exec.late-rows.table' = 'late_dedup';
SET 'table.exec.deduplicate.conflict-table' = 'bid_conflicts';
EXPLAIN INSERT INTO first_bids SELECT auction, bidder, price FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time) AS rn
  FROM late_bids WHERE auction < 100) WHERE rn = 1;
INSERT INTO first_bids SELECT auction, bidder, price FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time) AS rn
  FROM late_bids WHERE auction < 100) WHERE rn = 1;
SELECT * FROM first_bids;
SELECT * FROM late_dedup;
SELECT * FROM bid_conflicts;
RESET 'table.exec.deduplicate.conflict-table';
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
-- A watermark that is a column minus an interval is computed from the
-- chunk's largest value of the column; a row whose own watermark is out of
-- range (not the largest one) still fails the job, as the expression does.
CREATE TABLE wm_edge (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' HOUR)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/wm_edge.csv', 'format' = 'csv');
SELECT id FROM wm_edge;
