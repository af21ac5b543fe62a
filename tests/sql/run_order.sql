-- VALUES as a query and as an INSERT's input; ORDER BY / LIMIT / OFFSET in
-- batch mode (final rows, sorted at the end of the input) and in streaming
-- mode (a temporal sort on the event time as the watermark passes it;
-- LIMIT's first rows). Input: tests/sql/data/bids.csv (18 bids, out of
-- order by up to 4 s, within the 5 s watermark delay: none is late).
SET 'parallelism.default' = '1';
VALUES (1, 'a'), (2, 'bb');
SELECT * FROM (VALUES (1, 'a', 1.5), (2, 'bb', NULL)) AS t(id, name, score);
SELECT id + 1 AS next, UPPER(name) FROM (VALUES (1, 'x'), (2, 'y')) AS t(id, name) WHERE id > 1;
SELECT * FROM (VALUES (1, 2)) AS t(a);
CREATE TABLE bids (auction BIGINT, bidder STRING, price INT, bid_time TIMESTAMP(3),
  WATERMARK FOR bid_time AS bid_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/bids.csv', 'format' = 'csv');
CREATE TABLE picked (auction BIGINT, bidder STRING, price INT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/picked', 'format' = 'csv');
-- INSERT ... VALUES: a bounded job, exactly-once into the files
INSERT INTO picked VALUES (100, 'v1', 1), (101, 'v2', 2);
CREATE TABLE picked2 (auction BIGINT, bidder STRING, price INT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/picked2', 'format' = 'csv');
INSERT INTO picked2 (auction, price) SELECT a, p FROM (VALUES (102, 3)) AS t(a, p);
SELECT * FROM picked;
SELECT * FROM picked2;
-- streaming: ORDER BY the event time ascending (late rows dropped)
SELECT auction, bidder, bid_time FROM bids ORDER BY bid_time, bidder;
SELECT auction, bidder FROM bids ORDER BY bid_time LIMIT 3;
-- streaming: LIMIT alone, the first rows as they come
SELECT auction, bidder FROM bids LIMIT 2;
SELECT auction, bidder FROM bids LIMIT 2 OFFSET 3;
-- streaming: any other order is Flink's error
SELECT auction, price FROM bids ORDER BY price DESC;
SELECT auction, price FROM bids ORDER BY bid_time DESC;
SELECT auction, COUNT(*) FROM bids GROUP BY auction LIMIT 2;
EXPLAIN SELECT auction, bidder FROM bids ORDER BY bid_time;
-- batch mode: final rows, any order
SET 'execution.runtime-mode' = 'batch';
SELECT auction, bidder, price FROM bids ORDER BY price DESC LIMIT 3;
SELECT auction, bidder, price FROM bids ORDER BY auction DESC, price LIMIT 4 OFFSET 2;
SELECT auction, bidder FROM bids ORDER BY auction, bidder OFFSET 15 ROWS;
SELECT auction, bidder FROM bids ORDER BY bidder DESC OFFSET 1 ROWS FETCH NEXT 2 ROWS ONLY;
SELECT auction, bidder FROM bids ORDER BY bidder FETCH FIRST 1 ROW ONLY;
SELECT auction, COUNT(*) AS n, MAX(price) AS top FROM bids GROUP BY auction ORDER BY n DESC, auction;
SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction LIMIT 3;
SELECT DISTINCT auction FROM bids ORDER BY auction DESC;
SELECT b.auction, b.bidder, v.label FROM bids AS b JOIN (VALUES (1, 'one'), (7, 'seven')) AS v(id, label)
  ON b.auction = v.id ORDER BY b.bidder;
SELECT x FROM (VALUES (3), (CAST(NULL AS INT)), (1)) AS t(x) ORDER BY x;
SELECT x FROM (VALUES (3), (CAST(NULL AS INT)), (1)) AS t(x) ORDER BY x DESC;
SELECT x FROM (VALUES (3), (CAST(NULL AS INT)), (1)) AS t(x) ORDER BY x NULLS LAST;
SELECT x FROM (VALUES (3), (CAST(NULL AS INT)), (1)) AS t(x) ORDER BY x DESC NULLS FIRST;
EXPLAIN SELECT auction, bidder FROM bids ORDER BY bidder LIMIT 2;
-- batch mode gives final rows for Top-N, windows, outer joins, DISTINCT too
SELECT auction, bidder, price, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rn FROM bids)
  WHERE rn <= 2 ORDER BY auction, rn;
SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_time), INTERVAL '5' SECOND))
  GROUP BY window_start, window_end ORDER BY window_start;
SELECT v.id, COUNT(b.bidder) AS n FROM (VALUES (CAST(1 AS BIGINT)), (CAST(9 AS BIGINT))) AS v(id)
  LEFT JOIN bids AS b ON b.auction = v.id GROUP BY v.id ORDER BY id DESC;
SELECT COUNT(DISTINCT auction) AS auctions FROM bids;
-- batch INSERT of the top bids, read back from the files
CREATE TABLE top_bids (auction BIGINT, bidder STRING, price INT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/top_bids', 'format' = 'csv');
INSERT INTO top_bids SELECT auction, bidder, price FROM bids ORDER BY price DESC LIMIT 2;
SELECT * FROM top_bids ORDER BY price;
