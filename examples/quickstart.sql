-- Sluice quickstart: ad clicks -> per-campaign spend per minute, exactly-once
-- into JSON files, then read back. Run from the repository's top folder.
--
-- Run it with ./scripts/demo (or: sluice -f examples/quickstart.sql).
-- Running it again resumes the same job from its last checkpoint: the files
-- keep every window exactly once.

-- Ad clicks from a bundled file (examples/data/clicks.csv, 30 minutes of
-- event time; make_clicks.py beside it wrote it), with a watermark that
-- tolerates 5 seconds of disorder. The file source is replayable: its
-- position (file, byte offset) is part of every checkpoint.
CREATE TABLE IF NOT EXISTS clicks (
  event_id    BIGINT,
  campaign_id STRING,
  amount      DECIMAL(10, 2),
  ts          TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) COMMENT 'ad clicks' WITH (
  'connector' = 'filesystem',
  'path' = 'examples/data/clicks.csv',
  'format' = 'csv'
);

-- Per-minute spend, written exactly-once as JSON part files.
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

EXPLAIN
INSERT INTO spend
SELECT window_start, window_end, campaign_id, COUNT(*) AS clicks, SUM(amount) AS spend
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, campaign_id;

-- Run it: checkpoints every second; the final one commits the last windows.
SET 'execution.checkpointing.interval' = '1 s';
SET 'pipeline.name' = 'quickstart-spend';
INSERT INTO spend
SELECT window_start, window_end, campaign_id, COUNT(*) AS clicks, SUM(amount) AS spend
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, campaign_id;

-- Read the committed files back: campaign 'a', one row per minute.
SELECT window_start, clicks, spend FROM spend WHERE campaign_id = 'a';

-- And what the print sink shows of the same windows, as a changelog.
CREATE TABLE IF NOT EXISTS spend_screen (
  window_start TIMESTAMP(3), campaign_id STRING, clicks BIGINT, spend DECIMAL(38, 2)
) WITH ('connector' = 'print', 'print-identifier' = 'spend');
SET 'pipeline.name' = 'quickstart-screen';
INSERT INTO spend_screen
SELECT window_start, campaign_id, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
GROUP BY window_start, window_end, campaign_id;
