-- VALUES as a query and a FROM item, and streaming ORDER BY / LIMIT over
-- tests/sql/data/bids.csv: the temporal sort (ORDER BY the event time
-- ascending; at parallelism 1 over one small file no row is late in either
-- engine) and LIMIT's first rows in file order. Append-only results are
-- compared as multisets: the order itself is checked by tests/sql/run_order.sql.
SET 'parallelism.default' = '1';
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
SELECT * FROM (VALUES (1, 'ab', 1.5), (2, 'cd', CAST(NULL AS DECIMAL(2, 1)))) AS t(id, name, score);
SELECT id + 1, UPPER(name) FROM (VALUES (1, 'x'), (2, 'y'), (3, 'z')) AS t(id, name) WHERE id > 1;
SELECT auction, bidder, bid_time FROM bids ORDER BY bid_time, bidder;
-- flinkdiff: final-only (Flink's streaming SortLimit is a Top-N that may retract; Sluice releases the first rows by event time once the watermark passes them, insert-only)
SELECT auction, bidder FROM bids ORDER BY bid_time, bidder LIMIT 3;
SELECT auction, bidder FROM bids LIMIT 2;
SELECT b.bidder, v.label FROM bids AS b JOIN (VALUES (CAST(1 AS BIGINT), 'one'), (CAST(7 AS BIGINT), 'seven')) AS v(id, label)
  ON b.auction = v.id;
