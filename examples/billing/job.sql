-- examples/billing: the billing job. Clicks are deduplicated by event id in
-- arrival order (a producer's retry is dropped silently; the same id with
-- other values is a conflict, recorded in click_conflicts), charged once in
-- the ledger and summed per campaign and day; a click that comes after its
-- day closed is kept in late_clicks. One statement set: one checkpoint
-- decides all four tables, in one PostgreSQL transaction. (The statement
-- set in Flink's SQL client form, one statement per line: psql sends each
-- statement alone.)
-- The topic has one partition: one task reads it, and no reader sits idle
-- (so no 'table.exec.source.idle-timeout' is needed for windows to fire).
SET 'parallelism.default' = '1';
SET 'execution.checkpointing.interval' = '1 s';
SET 'table.exec.deduplicate.conflict-table' = 'click_conflicts';
SET 'table.exec.late-rows.table' = 'late_clicks';
SET 'pipeline.name' = 'billing';

CREATE TEMPORARY VIEW unique_clicks AS
  SELECT event_id, campaign_id, amount, ts FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY event_id ORDER BY pt) AS rn FROM clicks)
  WHERE rn = 1;

BEGIN STATEMENT SET;
INSERT INTO ledger SELECT event_id, campaign_id, amount, ts FROM unique_clicks;
INSERT INTO campaign_day
  SELECT window_start, campaign_id, COUNT(*), SUM(amount)
  FROM TABLE(TUMBLE(TABLE unique_clicks, DESCRIPTOR(ts), INTERVAL '1' DAY))
  GROUP BY window_start, window_end, campaign_id;
END;
