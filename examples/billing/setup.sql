-- The PostgreSQL side of examples/billing, run with psql as the server's
-- superuser (./scripts/postgres start creates sluice/sluice); `run` does it.
-- It starts afresh: the schema `settlement` is dropped and made again.
-- Sluice checks these tables when the job is planned and creates nothing
-- but its progress table (settlement.sluice_progress).
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'billing') THEN
    CREATE ROLE billing LOGIN PASSWORD 'billing-secret';
  END IF;
END $$;
DROP SCHEMA IF EXISTS settlement CASCADE;
CREATE SCHEMA settlement AUTHORIZATION billing;
SET ROLE billing;

-- One row per click: what is charged.
CREATE TABLE settlement.ledger (
  event_id    bigint PRIMARY KEY,
  campaign_id text NOT NULL,
  amount      numeric(10, 2) NOT NULL,
  ts          timestamp(3) NOT NULL
);
-- Each campaign's clicks and spend per day, written when the day closes
-- (the watermark passes midnight).
CREATE TABLE settlement.campaign_day (
  day         timestamp(3),
  campaign_id text,
  clicks      bigint NOT NULL,
  spend       numeric(38, 2) NOT NULL,
  PRIMARY KEY (day, campaign_id)
);
-- Clicks that came after their day closed ('table.exec.late-rows.table'):
-- not in campaign_day, kept here for an explicit adjustment.
CREATE TABLE settlement.late_clicks (
  job          text,
  operator     text,
  event_time   timestamp(3),
  watermark    timestamp(3),
  window_start timestamp(3),
  window_end   timestamp(3),
  arrived_at   timestamptz,
  "row"        text
);
-- The same event id again with other values ('table.exec.deduplicate.conflict-table').
CREATE TABLE settlement.click_conflicts (
  job             text,
  operator        text,
  conflict_key    text,
  stored_row      text,
  conflicting_row text,
  arrived_at      timestamptz
);
-- The days settled: written by `settle` once RECONCILE says CONSISTENT.
CREATE TABLE settlement.closed_days (
  day       date PRIMARY KEY,
  closed_at timestamptz NOT NULL DEFAULT now(),
  ledger_rows bigint NOT NULL,
  ledger_amount numeric(38, 2) NOT NULL
);
