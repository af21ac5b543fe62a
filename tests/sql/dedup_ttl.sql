-- A deduplication's state TTL against its sources' replay horizon
-- (planner/dedup_ttl.c): EXPLAIN's "== Deduplication State ==" says which
-- duplicates the engine can no longer catch and whether the sink does; an
-- INSERT whose sink does not gets a WARNING. (Kafka's horizon, its topic's
-- retention.ms, is read from a broker: tests/kafka, kafka.features.horizon.)
CREATE TABLE bids (auction BIGINT, bidder STRING, price BIGINT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
CREATE TABLE gen (auction BIGINT, bidder STRING, price BIGINT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time)
  WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE firsts (auction BIGINT, bidder STRING, price BIGINT, bid_time TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/firsts', 'format' = 'json');
CREATE TABLE hole (auction BIGINT, bidder STRING, price BIGINT, bid_time TIMESTAMP(3))
  WITH ('connector' = 'blackhole');
CREATE VIEW first_bids AS SELECT auction, bidder, price, bid_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time) AS rn FROM bids)
  WHERE rn = 1;
-- No TTL: the keys are kept forever, nothing to say.
EXPLAIN INSERT INTO firsts SELECT * FROM first_bids;
SET 'table.exec.state.ttl' = '7 d';
-- Files are read again from the start: a replay outlives any TTL.
EXPLAIN INSERT INTO firsts SELECT * FROM first_bids;
-- A generated stream replays nothing.
EXPLAIN INSERT INTO firsts SELECT auction, bidder, price, bid_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time) AS rn FROM gen)
  WHERE rn = 1;
-- Both under one deduplication; a query's result catches nothing.
SET 'table.exec.state.ttl' = '36 h';
EXPLAIN SELECT auction, bidder FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction, bidder ORDER BY bid_time) AS rn
  FROM (SELECT * FROM bids UNION ALL SELECT * FROM gen))
  WHERE rn = 1;
-- Keep last replaces: no TTL question.
EXPLAIN INSERT INTO hole SELECT auction, bidder, price, bid_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY bid_time DESC) AS rn FROM bids)
  WHERE rn = 1;
-- The INSERT warns: nothing catches the replayed duplicates.
SET 'table.dml-sync' = 'true';
INSERT INTO hole SELECT * FROM first_bids;
