-- Batch mode (the whole file: Runner.java makes a batch environment when the
-- file SETs it): final rows of bounded inputs, ORDER BY any column with
-- LIMIT / OFFSET / FETCH (sort keys unique where a LIMIT cuts, so both
-- engines pick the same rows), GROUP BY, DISTINCT and a join with final,
-- insert-only results. tests/sql/data/bids.csv.
SET 'execution.runtime-mode' = 'batch';
SET 'parallelism.default' = '1';
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
SELECT auction, bidder, price FROM bids ORDER BY price DESC LIMIT 3;
SELECT auction, bidder, price FROM bids ORDER BY auction DESC, price LIMIT 4 OFFSET 2;
SELECT auction, bidder FROM bids ORDER BY bidder DESC OFFSET 1 ROWS FETCH NEXT 2 ROWS ONLY;
SELECT auction, bidder FROM bids ORDER BY bidder FETCH FIRST 1 ROW ONLY;
SELECT auction, COUNT(*) AS n, MAX(price) AS top FROM bids GROUP BY auction ORDER BY n DESC, auction;
SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction ORDER BY auction LIMIT 3;
SELECT DISTINCT auction FROM bids ORDER BY auction DESC;
SELECT b.auction, b.bidder, v.label FROM bids AS b
  JOIN (VALUES (CAST(1 AS BIGINT), 'one'), (CAST(7 AS BIGINT), 'seven')) AS v(id, label)
  ON b.auction = v.id ORDER BY b.bidder;
SELECT x FROM (VALUES (3), (CAST(NULL AS INT)), (1)) AS t(x) ORDER BY x;
SELECT x FROM (VALUES (3), (CAST(NULL AS INT)), (1)) AS t(x) ORDER BY x DESC NULLS FIRST LIMIT 2;
SELECT auction, bidder, price FROM bids ORDER BY bid_time DESC, bidder LIMIT 5;
