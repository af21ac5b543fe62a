-- Billing from Kafka: ad clicks -> per-campaign spend per minute, exactly-once
-- into a Kafka ledger. Every click is billed once, through crashes and
-- restarts; readers of the ledger use isolation.level=read_committed.
--
-- Start a broker first (127.0.0.1:9092): ./scripts/kafka start
-- Then, from the repository's top folder:
--   build/release/sluice -f examples/kafka_ledger.sql
-- The billing job runs until Ctrl-C (which stops it with a savepoint);
-- running the file again resumes it. Read the ledger with
--   kcat -b 127.0.0.1:9092 -C -t ledger -X isolation.level=read_committed

-- 1. Load the bundled clicks (examples/data/clicks.csv) into the topic
--    'clicks', keyed by campaign. This job ends with its file.
CREATE TABLE IF NOT EXISTS click_file (
  event_id    BIGINT,
  campaign_id STRING,
  amount      DECIMAL(10, 2),
  ts          TIMESTAMP(3)
) WITH ('connector' = 'filesystem', 'path' = 'examples/data/clicks.csv', 'format' = 'csv');

CREATE TABLE IF NOT EXISTS clicks (
  event_id    BIGINT,
  campaign_id STRING,
  amount      DECIMAL(10, 2),
  ts          TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'clicks',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'key.format' = 'raw',
  'key.fields' = 'campaign_id',
  'format' = 'json',
  'scan.startup.mode' = 'earliest-offset'
);

SET 'table.dml-sync' = 'true';
SET 'pipeline.name' = 'ledger-load';
INSERT INTO clicks SELECT * FROM click_file;

-- 2. The ledger: one record per campaign and minute, in a Kafka
--    transaction per checkpoint. The guarantee is checked before the job
--    runs: EXPLAIN shows how.
CREATE TABLE IF NOT EXISTS ledger (
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3),
  campaign_id  STRING,
  clicks       BIGINT,
  spend        DECIMAL(38, 2)
) WITH (
  'connector' = 'kafka',
  'topic' = 'ledger',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'billing-'
);

-- A reading task with no partition (the topic may have fewer partitions
-- than the job's parallelism) must not hold the watermark back.
SET 'execution.checkpointing.interval' = '1 s';
SET 'table.exec.source.idle-timeout' = '1 s';
SET 'pipeline.name' = 'ledger-billing';

EXPLAIN
INSERT INTO ledger
SELECT window_start, window_end, campaign_id, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, campaign_id;

INSERT INTO ledger
SELECT window_start, window_end, campaign_id, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, campaign_id;
