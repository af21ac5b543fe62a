-- The nexmark connector: a bounded run of the Nexmark events ('events.num'),
-- checked by aggregates that follow from the reference generator's formulas
-- (event ids 2 .. 1001: id % 50 = 0 a person, 1..3 an auction, else a bid;
-- person id = id / 50 + 1000, auction ids 1001 .. 1060), whatever the
-- parallelism. The ROW columns' leaves are declared with quoted names.
-- golden: sort-results
CREATE TABLE nx (
  event_type INT,
  `person.id` BIGINT, `person.name` STRING, `person.emailAddress` STRING,
  `person.creditCard` STRING, `person.city` STRING, `person.state` STRING,
  `person.dateTime` TIMESTAMP(3), `person.extra` STRING,
  `auction.id` BIGINT, `auction.itemName` STRING, `auction.description` STRING,
  `auction.initialBid` BIGINT, `auction.reserve` BIGINT, `auction.dateTime` TIMESTAMP(3),
  `auction.expires` TIMESTAMP(3), `auction.seller` BIGINT, `auction.category` BIGINT,
  `auction.extra` STRING,
  `bid.auction` BIGINT, `bid.bidder` BIGINT, `bid.price` BIGINT, `bid.channel` STRING,
  `bid.url` STRING, `bid.dateTime` TIMESTAMP(3), `bid.extra` STRING,
  `dateTime` AS CASE WHEN event_type = 0 THEN `person.dateTime`
                     WHEN event_type = 1 THEN `auction.dateTime`
                     ELSE `bid.dateTime` END,
  WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'events.num' = '1000');
-- 20 persons, 60 auctions, 920 bids
SELECT event_type, COUNT(*) AS n FROM nx GROUP BY event_type;
SELECT MIN(`person.id`) AS pmin, MAX(`person.id`) AS pmax, COUNT(DISTINCT `person.id`) AS persons,
       MIN(`auction.id`) AS amin, MAX(`auction.id`) AS amax, COUNT(DISTINCT `auction.id`) AS auctions
FROM nx;
-- a leaf is NULL in the events of the other kinds; every event has its time
SELECT COUNT(*) AS n FROM nx
WHERE (event_type = 2 AND `bid.auction` IS NOT NULL AND `person.id` IS NULL AND `auction.id` IS NULL)
   OR (event_type = 1 AND `auction.id` IS NOT NULL AND `bid.price` IS NULL AND `person.name` IS NULL)
   OR (event_type = 0 AND `person.id` IS NOT NULL AND `bid.url` IS NULL AND `auction.seller` IS NULL);
SELECT COUNT(*) AS n FROM nx WHERE `dateTime` IS NOT NULL;
-- categories 10..14; auctions expire after they start; reserve >= initial bid;
-- bids are for auctions and by persons generated so far (or a few ahead), the
-- bidder ids shifted by 1000 twice as in the reference
SELECT MIN(`auction.category`) >= 10 AND MAX(`auction.category`) <= 14 AS categories,
       COUNT(*) FILTER (WHERE `auction.expires` > `auction.dateTime`) AS expiring,
       COUNT(*) FILTER (WHERE `auction.reserve` >= `auction.initialBid`) AS reserves
FROM nx WHERE event_type = 1;
SELECT MIN(`bid.auction`) >= 1000 AND MAX(`bid.auction`) <= 1070 AS auctions_ok,
       MIN(`bid.bidder`) >= 2000 AND MAX(`bid.bidder`) <= 2030 AS bidders_ok,
       MIN(`bid.price`) >= 100 AS prices_ok
FROM nx WHERE event_type = 2;
-- any subset of the leaves, in any order; stop-at
CREATE TABLE nx2 (`bid.price` BIGINT, event_type TINYINT) WITH ('connector' = 'nexmark', 'stop-at' = '100');
SELECT event_type, COUNT(*) AS n, COUNT(`bid.price`) AS prices FROM nx2 GROUP BY event_type;
-- errors: an unknown column, a wrong type, NOT NULL, an unknown option, bad values
CREATE TABLE bad (event_type INT, `person.nam` STRING) WITH ('connector' = 'nexmark');
CREATE TABLE bad (`bid.price` INT) WITH ('connector' = 'nexmark');
CREATE TABLE bad (`bid.url` STRING NOT NULL) WITH ('connector' = 'nexmark');
CREATE TABLE bad (event_type INT) WITH ('connector' = 'nexmark', 'events.number' = '10');
CREATE TABLE bad (event_type INT) WITH ('connector' = 'nexmark', 'first-event.rate' = '0');
CREATE TABLE bad (event_type INT) WITH ('connector' = 'nexmark', 'rate.shape' = 'round');
CREATE TABLE bad (event_type INT) WITH ('connector' = 'nexmark', 'person.proportion' = '0', 'auction.proportion' = '0', 'bid.proportion' = '0');
-- unbounded for the runtime mode, as the reference's source
SET 'execution.runtime-mode' = 'batch';
SELECT COUNT(*) FROM nx;
