-- Sluice quickstart: ad clicks -> per-campaign spend per minute.
--
-- Run it with ./scripts/demo (or: sluice -f examples/quickstart.sql).
-- Tables are created with IF NOT EXISTS, so running it again against the same
-- data directory reuses the catalog that the first run stored.

-- A generated, replayable stream of clicks with event time and a watermark.
CREATE TABLE IF NOT EXISTS clicks (
  event_id    BIGINT,
  campaign_id STRING,
  amount      DECIMAL(10, 2),
  ts          TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) COMMENT 'ad clicks' WITH (
  'connector' = 'datagen',
  'rows-per-second' = '100',
  'fields.event_id.kind' = 'sequence',
  'fields.event_id.start' = '1',
  'fields.event_id.end' = '1000000',
  'fields.campaign_id.length' = '4',
  'fields.amount.min' = '0.01',
  'fields.amount.max' = '2.50'
);

-- Per-minute spend, written exactly-once as JSON files.
CREATE TABLE IF NOT EXISTS spend (
  window_start TIMESTAMP(3),
  window_end   TIMESTAMP(3),
  campaign_id  STRING,
  clicks       BIGINT,
  spend        DECIMAL(38, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = 'sluice-data/out/spend',
  'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once'
);

SHOW TABLES;
DESCRIBE clicks;
SHOW CREATE TABLE spend;

EXPLAIN
INSERT INTO spend
SELECT window_start, window_end, campaign_id, COUNT(*) AS clicks, SUM(amount) AS spend
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, campaign_id;

SHOW CONNECTORS;
