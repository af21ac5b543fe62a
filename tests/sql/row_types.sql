-- ROW types (Flink's ROW<...>): a ROW column is stored flattened, its
-- leaves physical columns named by their dotted paths; DESCRIBE and SHOW
-- CREATE TABLE show the declared ROW; fields are read as r.f, t.r.f, (r).f;
-- json reads and writes them as nested objects. Results checked against
-- Flink 2.2 over the same files (differences: SELECT *, a whole ROW and a
-- ROW constructor in a select list give the leaves as columns "r.f", where
-- Flink prints one column (10, one, ...); (r).f is named f, Flink EXPR$n).
SET 'parallelism.default' = '1';

-- DDL: nested ROWs, both spellings, NOT NULL, comments.
CREATE TABLE n (a INT, r ROW<x INT NOT NULL, s ROW<y STRING 'the y', z DOUBLE>> NOT NULL COMMENT 'c',
  t ROW(p INT, q DECIMAL(10, 2))) WITH ('connector' = 'blackhole');
DESCRIBE n;
SHOW CREATE TABLE n;

-- The Nexmark source (nexmark-flink's ddl_gen.sql / ddl_kafka.sql) over a
-- file of events, and its views.
CREATE TABLE datagen (
    event_type int,
    person ROW<id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR, state VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>,
    auction ROW<id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT, `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR>,
    bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>,
    `dateTime` AS CASE WHEN event_type = 0 THEN person.`dateTime` WHEN event_type = 1 THEN auction.`dateTime` ELSE bid.`dateTime` END,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/nexmark_events.json', 'format' = 'json');
CREATE VIEW person AS SELECT person.id, person.name, person.emailAddress, person.creditCard, person.city, person.state, `dateTime`, person.extra FROM datagen WHERE event_type = 0;
CREATE VIEW auction AS SELECT auction.id, auction.itemName, auction.description, auction.initialBid, auction.reserve, `dateTime`, auction.expires, auction.seller, auction.category, auction.extra FROM datagen WHERE event_type = 1;
CREATE VIEW bid AS SELECT bid.auction, bid.bidder, bid.price, bid.channel, bid.url, `dateTime`, bid.extra FROM datagen WHERE event_type = 2;
DESCRIBE datagen;
-- (a copy over a fixed path: the bordered output must not depend on the checkout's path)
CREATE TABLE datagen_shown WITH ('path' = '/data/nexmark_events.json') LIKE datagen;
SHOW CREATE TABLE datagen_shown;
DESCRIBE person;
SELECT * FROM person;
SELECT * FROM auction;
SELECT * FROM bid;
-- Fields anywhere an expression can be: WHERE, GROUP BY, joins, aliases.
SELECT b.bid.bidder, b.bid.price, (bid).url, bid.channel FROM datagen AS b WHERE b.bid.price > 100;
SELECT bid.channel, COUNT(*) AS n, SUM(bid.price) AS s FROM datagen WHERE event_type = 2 GROUP BY bid.channel;
SELECT datagen.auction.itemName, auction.reserve - auction.initialBid AS margin FROM datagen WHERE auction.id IS NOT NULL;
-- A whole ROW in a select list: its leaves.
SELECT event_type, person FROM datagen WHERE event_type = 0;
SELECT event_type, person AS p FROM datagen WHERE event_type = 0;

-- Nested ROWs from nested objects: null or absent objects give NULL leaves,
-- unknown members are skipped, escaped member names read.
CREATE TABLE rows_in (id INT, r ROW<a INT, s ROW<x STRING, y DOUBLE>, b BOOLEAN>) WITH (
  'connector' = 'filesystem', 'path' = '@SQLDATA@/rows', 'format' = 'json');
SELECT * FROM rows_in;
SELECT id, r.a, r.s.x, rows_in.r.s.y, (r).b FROM rows_in WHERE r.s.y > 2 OR r.a = 60;
SELECT r.s FROM rows_in WHERE id = 1;
-- Written nested the same way, read back equal.
CREATE TABLE rows_out (id INT, r ROW<a INT, s ROW<x STRING, y DOUBLE>, b BOOLEAN>) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/rows_out', 'format' = 'json');
INSERT INTO rows_out SELECT * FROM rows_in;
SELECT * FROM rows_out;
SELECT id, r.a, r.s.x, r.s.y, r.b FROM rows_out WHERE r.s.x LIKE '%quoted%';
-- INSERT of a whole ROW into a ROW column of the same shape.
CREATE TABLE people (k INT, p ROW<id BIGINT, name STRING, s ROW<city STRING, state STRING>>) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/people', 'format' = 'json');
INSERT INTO people SELECT event_type, person.id, person.name, person.city, person.state FROM datagen WHERE event_type = 0;
SELECT * FROM people;
CREATE TABLE people2 (k INT, q ROW<id BIGINT, name STRING, s ROW<city STRING, state STRING>>) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/people2', 'format' = 'json');
INSERT INTO people2 SELECT 9, p FROM people;
SELECT k, q.name, q.s.city FROM people2;
-- The ROW constructor in a select list: its fields (Flink writes the same
-- file: {"r":{"id":1000,"name":"Peter Walton","s":{"city":"Portland"}},"k":0}).
CREATE TABLE built (r ROW<id BIGINT, name STRING, s ROW<city STRING>>, k INT) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/built', 'format' = 'json');
INSERT INTO built SELECT ROW(person.id, person.name, ROW(person.city)), event_type FROM datagen WHERE event_type <= 1;
SELECT * FROM built;
SELECT ROW(event_type, bid.price) AS x FROM datagen WHERE event_type = 2;

-- Errors.
SELECT person.foo FROM datagen;
SELECT datagen.person.foo FROM datagen;
SELECT r.s.zip FROM rows_in;
SELECT event_type.foo FROM datagen;
SELECT x.person.id FROM datagen;
SELECT event_type FROM datagen WHERE person IS NULL;
SELECT id FROM rows_in WHERE r.s IS NULL;
SELECT CAST(1 AS ROW<a INT>);
SELECT ROW(1, 2) + 1;
CREATE TABLE bad (r ROW<a INT, a STRING>) WITH ('connector' = 'blackhole');
CREATE TABLE bad (`r.a` INT, r ROW<a INT>) WITH ('connector' = 'blackhole');
CREATE TABLE bad (r ROW<a DECIMAL(50, 2)>) WITH ('connector' = 'blackhole');
CREATE TABLE bad (r ROW<a INT>) WITH ('connector' = 'filesystem', 'path' = '@TMP@/bad', 'format' = 'csv');
CREATE TABLE bad (a MULTISET<INT>) WITH ('connector' = 'blackhole');
CREATE TABLE bad (m MAP<STRING, ROW<a INT>>) WITH ('connector' = 'blackhole');
CREATE TABLE bad (r ROW<a INT>, WATERMARK FOR r AS r) WITH ('connector' = 'blackhole');
-- A ROW that is no JSON object is a malformed record.
CREATE TABLE rows_bad (id INT, r ROW<a INT>) WITH (
  'connector' = 'filesystem', 'path' = '@SQLDATA@/rows_bad.json', 'format' = 'json');
SELECT * FROM rows_bad;
