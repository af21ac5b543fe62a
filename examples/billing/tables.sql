-- examples/billing: the tables, as Sluice sees them. `run` feeds this file
-- to `sluice serve` through psql, whose variables fill in the broker
-- (:'kafka', e.g. 127.0.0.1:9092), the database (:'pg_url', e.g.
-- jdbc:postgresql://127.0.0.1:5433/sluice) and the topic (:'topic').

-- The clicks: JSON in a Kafka topic (one per run of `run`), keyed by campaign.
CREATE TABLE IF NOT EXISTS clicks (
  event_id    BIGINT,
  campaign_id STRING,
  amount      DECIMAL(10, 2),
  ts          TIMESTAMP(3),
  pt          AS PROCTIME(),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = :'topic',
  'properties.bootstrap.servers' = :'kafka',
  'key.format' = 'raw',
  'key.fields' = 'campaign_id',
  'format' = 'json',
  'scan.startup.mode' = 'earliest-offset'
);

-- What the producers send, from files (examples/billing/data, see
-- make_clicks.py): the morning, the evening, and a click that comes late.
CREATE TABLE IF NOT EXISTS morning_clicks (
  event_id BIGINT, campaign_id STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3)
) WITH ('connector' = 'filesystem', 'path' = 'examples/billing/data/morning.csv',
        'format' = 'csv');
CREATE TABLE IF NOT EXISTS evening_clicks (
  event_id BIGINT, campaign_id STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3)
) WITH ('connector' = 'filesystem', 'path' = 'examples/billing/data/evening.csv',
        'format' = 'csv');
CREATE TABLE IF NOT EXISTS late_click (
  event_id BIGINT, campaign_id STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3)
) WITH ('connector' = 'filesystem', 'path' = 'examples/billing/data/late.csv',
        'format' = 'csv');

-- The PostgreSQL tables of setup.sql, all exactly-once: written in one
-- PostgreSQL transaction per checkpoint (prepared, then committed once the
-- checkpoint is decided).
CREATE TABLE IF NOT EXISTS ledger (
  event_id    BIGINT,
  campaign_id STRING,
  amount      DECIMAL(10, 2),
  ts          TIMESTAMP(3),
  PRIMARY KEY (event_id) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = :'pg_url',
  'table-name' = 'settlement.ledger',
  'username' = 'billing', 'password' = 'billing-secret',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'settle-ledger-',
  'sink.on-duplicate-key' = 'ignore'
);

CREATE TABLE IF NOT EXISTS campaign_day (
  day         TIMESTAMP(3),
  campaign_id STRING,
  clicks      BIGINT,
  spend       DECIMAL(38, 2),
  PRIMARY KEY (day, campaign_id) NOT ENFORCED
) WITH (
  'connector' = 'jdbc',
  'url' = :'pg_url',
  'table-name' = 'settlement.campaign_day',
  'username' = 'billing', 'password' = 'billing-secret',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'settle-day-'
);

CREATE TABLE IF NOT EXISTS late_clicks (
  job STRING, `operator` STRING, event_time TIMESTAMP(3), `watermark` TIMESTAMP(3),
  window_start TIMESTAMP(3), window_end TIMESTAMP(3), arrived_at TIMESTAMP_LTZ(3),
  `row` STRING
) WITH (
  'connector' = 'jdbc',
  'url' = :'pg_url',
  'table-name' = 'settlement.late_clicks',
  'username' = 'billing', 'password' = 'billing-secret',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'settle-late-'
);

CREATE TABLE IF NOT EXISTS click_conflicts (
  job STRING, `operator` STRING, conflict_key STRING, stored_row STRING,
  conflicting_row STRING, arrived_at TIMESTAMP_LTZ(3)
) WITH (
  'connector' = 'jdbc',
  'url' = :'pg_url',
  'table-name' = 'settlement.click_conflicts',
  'username' = 'billing', 'password' = 'billing-secret',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'settle-conflicts-'
);
