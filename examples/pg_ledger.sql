-- Billing into PostgreSQL: ad clicks from Kafka -> a ledger with one row per
-- click, charged once, and each campaign's spend per minute, both
-- exactly-once: one PostgreSQL transaction per checkpoint writes both
-- tables, prepared (PREPARE TRANSACTION) before the checkpoint is decided
-- and committed after it. docs/BILLING.md walks through it: crashes,
-- duplicates, conflicts, prepared transactions.
--
-- Start a broker and a server first: ./scripts/kafka start (127.0.0.1:9092)
-- and ./scripts/postgres start (127.0.0.1:5433); create the role and the
-- tables with examples/pg_ledger_setup.sql (psql). Then, from the
-- repository's top folder:
--   build/release/sluice -f examples/pg_ledger.sql
-- The billing job runs until Ctrl-C (which stops it with a savepoint);
-- running the file again resumes it.

-- 1. Load the bundled clicks (examples/data/clicks.csv) into the topic
--    'pg-clicks', keyed by campaign. This job ends with its file.
CREATE TABLE IF NOT EXISTS pg_click_file (
  event_id    BIGINT,
  campaign_id STRING,
  amount      DECIMAL(10, 2),
  ts          TIMESTAMP(3)
) WITH ('connector' = 'filesystem', 'path' = 'examples/data/clicks.csv', 'format' = 'csv');

CREATE TABLE IF NOT EXISTS pg_clicks (
  event_id    BIGINT,
  campaign_id STRING,
  amount      DECIMAL(10, 2),
  ts          TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'pg-clicks',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'key.format' = 'raw',
  'key.fields' = 'campaign_id',
  'format' = 'json',
  'scan.startup.mode' = 'earliest-offset'
);

SET 'table.dml-sync' = 'true';
SET 'pipeline.name' = 'pg-ledger-load';
INSERT INTO pg_clicks SELECT * FROM pg_click_file;
RESET 'table.dml-sync';

-- 2. The ledger: one row per click, keyed by event_id. A click delivered
--    twice by its producer is absorbed ('ignore': the stored row is kept);
--    a click whose event_id comes again with another amount is a conflict,
--    counted in SHOW JOBS and recorded in ledger_conflicts.
CREATE TABLE IF NOT EXISTS ledger (
  event_id    BIGINT,
  campaign_id STRING,
  amount      DECIMAL(10, 2),
  ts          TIMESTAMP(3),
  PRIMARY KEY (event_id) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = 'jdbc:postgresql://127.0.0.1:5433/sluice',
  'table-name' = 'billing.ledger',
  'username' = 'billing',
  'password' = 'billing-secret',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'ledger-',
  'sink.on-duplicate-key' = 'ignore',
  'sink.conflict-table' = 'billing.ledger_conflicts'
);

-- 3. Each campaign's spend per minute, in the same database: written in the
--    ledger's transactions, so a reader never sees one without the other.
CREATE TABLE IF NOT EXISTS campaign_spend (
  window_start TIMESTAMP(3),
  campaign_id  STRING,
  clicks       BIGINT,
  spend        DECIMAL(38, 2),
  PRIMARY KEY (window_start, campaign_id) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = 'jdbc:postgresql://127.0.0.1:5433/sluice',
  'table-name' = 'billing.campaign_spend',
  'username' = 'billing',
  'password' = 'billing-secret',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'spend-'
);

SET 'execution.checkpointing.interval' = '1 s';
SET 'table.exec.source.idle-timeout' = '1 s';
SET 'pipeline.name' = 'pg-billing';

-- The guarantee is checked before the job runs: EXPLAIN shows each sink's
-- mechanism and its role in the commit.
EXPLAIN STATEMENT SET BEGIN
  INSERT INTO ledger SELECT event_id, campaign_id, amount, ts FROM pg_clicks;
  INSERT INTO campaign_spend
    SELECT window_start, campaign_id, COUNT(*), SUM(amount)
    FROM TABLE(TUMBLE(TABLE pg_clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
    GROUP BY window_start, window_end, campaign_id;
END;

EXECUTE STATEMENT SET BEGIN
  INSERT INTO ledger SELECT event_id, campaign_id, amount, ts FROM pg_clicks;
  INSERT INTO campaign_spend
    SELECT window_start, campaign_id, COUNT(*), SUM(amount)
    FROM TABLE(TUMBLE(TABLE pg_clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
    GROUP BY window_start, window_end, campaign_id;
END;
