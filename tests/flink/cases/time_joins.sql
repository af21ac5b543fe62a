-- Interval join and event-time temporal join.
--
-- Interval join: two tables over the same file tests/sql/data/bids.csv (each
-- source's rows are out of order by at most 4 s, within its 5 s watermark
-- delay), so no row is late whatever the interleaving of the two sources,
-- and the rows both engines must produce are all the rows: compared as a
-- multiset (inner) and as final tables (LEFT: an unmatched row is emitted
-- once the watermark passes its interval, so append-only too).
--
-- Temporal join: tests/sql/data/conv.csv against the versioned table
-- tests/sql/data/rates.csv (both in time order, watermark = the time): a row
-- is joined when the smaller watermark passes it, so the result does not
-- depend on the interleaving either.
SET 'parallelism.default' = '1';
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE a (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
CREATE TABLE b (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
SELECT a.bidder, b.bidder AS other, a.bid_time, b.bid_time AS other_time FROM a, b
WHERE a.auction = b.auction AND a.bidder <> b.bidder
  AND b.bid_time BETWEEN a.bid_time - INTERVAL '1' SECOND AND a.bid_time + INTERVAL '2' SECOND;
SELECT a.bidder, b.bidder AS other FROM a JOIN b ON a.auction + 1 = b.auction
  AND b.bid_time >= a.bid_time AND b.bid_time < a.bid_time + INTERVAL '3' SECOND;
SELECT a.bidder, b.bidder AS other, b.price FROM a LEFT JOIN b ON a.auction + 1 = b.auction
  AND b.bid_time >= a.bid_time AND b.bid_time < a.bid_time + INTERVAL '3' SECOND;
CREATE TABLE rates (currency STRING, rate DECIMAL(10, 2), ts TIMESTAMP(3),
  PRIMARY KEY (currency) NOT ENFORCED, WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/rates.csv', 'format' = 'csv');
CREATE TABLE conv (id BIGINT, currency STRING, amount BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/conv.csv', 'format' = 'csv');
SELECT o.id, o.currency, o.amount, r.rate, o.amount * r.rate AS converted, r.ts AS rate_time
FROM conv AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;
SELECT o.id, r.rate FROM conv AS o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r
  ON o.currency = r.currency AND r.rate > 1.11;
