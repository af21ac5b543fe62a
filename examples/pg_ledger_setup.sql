-- The PostgreSQL side of examples/pg_ledger.sql, run once with psql as the
-- server's superuser (./scripts/postgres start creates sluice/sluice):
--   PGPASSWORD=sluice psql -h 127.0.0.1 -p 5433 -U sluice sluice -f examples/pg_ledger_setup.sql
-- Sluice checks these tables when the INSERT is planned (they exist, their
-- columns have the declared types, the key has a unique constraint, the role
-- may write) and creates nothing but its progress table (sluice_progress)
-- and the conflict table.
CREATE ROLE billing LOGIN PASSWORD 'billing-secret';
CREATE SCHEMA billing AUTHORIZATION billing;
CREATE TABLE billing.ledger (
  event_id    bigint PRIMARY KEY,
  campaign_id text NOT NULL,
  amount      numeric(10, 2) NOT NULL,
  ts          timestamp(3) NOT NULL
);
CREATE TABLE billing.campaign_spend (
  window_start timestamp(3),
  campaign_id  text,
  clicks       bigint NOT NULL,
  spend        numeric(38, 2) NOT NULL,
  PRIMARY KEY (window_start, campaign_id)
);
ALTER TABLE billing.ledger OWNER TO billing;
ALTER TABLE billing.campaign_spend OWNER TO billing;
