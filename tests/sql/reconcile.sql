-- RECONCILE: a ledger compared with a bounded read of its source of truth
-- (planner/session_reconcile.c). Files on both sides here; PostgreSQL
-- ledgers are tests/postgres/reconcile_test.py.
CREATE TABLE clicks (event_id BIGINT, amount DECIMAL(10, 2), campaign STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/reconcile/clicks', 'format' = 'csv');
-- A broken ledger: 2 doubled with another amount, 3 missing, 9 foreign; 4 is outside the day.
CREATE TABLE ledger (event_id INT, amount DECIMAL(12, 3), campaign STRING)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/reconcile/ledger', 'format' = 'csv');
-- A correct one: amounts equal by value (10.5 = 10.50 = 10.500).
CREATE TABLE good (event_id BIGINT, amount DECIMAL(12, 3), campaign STRING, ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/reconcile/good', 'format' = 'csv');
RECONCILE ledger AGAINST clicks ON event_id COMPARE amount, campaign
  WHERE ts >= TIMESTAMP '2026-10-04 00:00:00' AND ts < TIMESTAMP '2026-10-05 00:00:00';
-- The ledger has no ts: it is compared whole, and 4 is missing without the range.
RECONCILE ledger AGAINST clicks ON event_id COMPARE amount;
RECONCILE good AGAINST clicks ON event_id COMPARE amount, campaign
  WHERE ts >= TIMESTAMP '2026-10-04 00:00:00' AND ts < TIMESTAMP '2026-10-05 00:00:00';
-- Composite key.
RECONCILE good AGAINST clicks ON event_id, campaign COMPARE amount;
-- NULL-safe: a NULL key matches a NULL key, a NULL amount a NULL amount;
-- 8's campaign is NULL in the source and 'x' in the ledger.
CREATE TABLE ns (k BIGINT, amount DECIMAL(5, 2), c STRING)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/reconcile/nulls_src', 'format' = 'csv');
CREATE TABLE nl (k BIGINT, amount DECIMAL(5, 1), c STRING)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/reconcile/nulls_led', 'format' = 'csv');
RECONCILE nl AGAINST ns ON k COMPARE amount, c;
-- Keys and values of other types: a TIMESTAMP and a DECIMAL key (1.5 =
-- 1.50), DOUBLE values compared as SQL does (-0.0 = 0.0); 10:00:01's
-- score differs, 10:00:02 is missing, 10:00:05 is extra.
CREATE TABLE ts_src (ts TIMESTAMP(3), d DECIMAL(5, 2), score DOUBLE)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/reconcile/typed_src', 'format' = 'csv');
CREATE TABLE ts_led (ts TIMESTAMP(0), d DECIMAL(4, 1), score DOUBLE)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/reconcile/typed_led', 'format' = 'csv');
RECONCILE ts_led AGAINST ts_src ON ts, d COMPARE score;
-- Errors.
RECONCILE nope AGAINST clicks ON event_id;
RECONCILE ledger AGAINST nope ON event_id;
RECONCILE ledger AGAINST clicks ON event_id COMPARE amount, nope;
RECONCILE ledger AGAINST clicks ON event_id COMPARE ts;
RECONCILE ledger AGAINST clicks ON campaign COMPARE amount, event_id, campaign;
RECONCILE ledger AGAINST clicks ON event_id WHERE nope > 1;
CREATE TABLE gen (event_id BIGINT, amount DECIMAL(10, 2), campaign STRING) WITH ('connector' = 'datagen');
RECONCILE ledger AGAINST gen ON event_id;
CREATE TABLE txt (event_id STRING, amount DECIMAL(10, 2)) WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/reconcile/ledger', 'format' = 'csv');
RECONCILE txt AGAINST clicks ON event_id;
RECONCILE ledger AGAINST clicks ON event_id FOR JOB 'billing';
-- FOR JOB: a finished job that wrote the day's clicks into files.
CREATE TABLE out_day (event_id BIGINT, amount DECIMAL(10, 2), campaign STRING, ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/out_day', 'format' = 'csv');
SET 'table.dml-sync' = 'true';
SET 'pipeline.name' = 'daily';
INSERT INTO out_day SELECT * FROM clicks
  WHERE ts >= TIMESTAMP '2026-10-04 00:00:00' AND ts < TIMESTAMP '2026-10-05 00:00:00';
RESET 'pipeline.name';
RECONCILE out_day AGAINST clicks ON event_id COMPARE amount, campaign
  WHERE ts >= TIMESTAMP '2026-10-04 00:00:00' AND ts < TIMESTAMP '2026-10-05 00:00:00'
  FOR JOB 'daily';
-- FOR JOB without 'table.exec.late-rows.table' SET: the tables of the late-rows
-- layout hold the job's late rows (one of 'daily' in the day, one of another
-- job, one of 'daily' the day after).
CREATE TABLE late_rows (job STRING, `operator` STRING, event_time TIMESTAMP(3),
  `watermark` TIMESTAMP(3), window_start TIMESTAMP(3), window_end TIMESTAMP(3),
  arrived_at STRING, `row` STRING)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/reconcile/late', 'format' = 'csv');
RECONCILE out_day AGAINST clicks ON event_id COMPARE amount, campaign
  WHERE ts >= TIMESTAMP '2026-10-04 00:00:00' AND ts < TIMESTAMP '2026-10-05 00:00:00'
  FOR JOB 'daily';
-- REPAIR needs an idempotent ledger (jdbc, PRIMARY KEY on the key, 'sink.on-duplicate-key' = 'ignore').
RECONCILE ledger AGAINST clicks ON event_id REPAIR;
RECONCILE ledger AGAINST clicks ON event_id, campaign REPAIR;
-- The keywords stay names.
CREATE TEMPORARY VIEW reconcile AS SELECT 1 AS against, 2 AS compare, 3 AS repair;
SELECT against, compare, repair FROM reconcile;
