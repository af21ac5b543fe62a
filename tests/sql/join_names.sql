-- Names over joins whose inputs share column names (Nexmark's auction and bid both have
-- extra): qualified names resolve to their own relation's column, unqualified ones that
-- two relations have are ambiguous (42702), and a query's output names are unique as
-- Flink makes them (extra, extra0). Streaming joins run through EXPLAIN; the bounded
-- path (catalog relations) runs them. Output names checked against Flink SQL 2.2.
CREATE TABLE auction (id BIGINT, extra STRING, seller BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE bid (auction BIGINT, extra STRING, price BIGINT) WITH ('connector' = 'datagen');
CREATE TABLE out2 (a STRING, b STRING) WITH ('connector' = 'blackhole');
-- Qualified: the right side's extra, in a comma join, JOIN ... ON, subqueries, a self-join.
EXPLAIN SELECT B.extra FROM auction A, bid B WHERE A.id = B.auction;
EXPLAIN SELECT B.extra, A.extra FROM auction A JOIN bid B ON A.extra = B.extra;
EXPLAIN SELECT y.extra, x.extra FROM (SELECT * FROM auction) x, (SELECT * FROM bid) y WHERE x.id = y.auction;
EXPLAIN SELECT b.id, b.extra FROM auction a, auction b WHERE a.seller = b.id;
EXPLAIN SELECT C.extra FROM auction A JOIN bid B ON A.id = B.auction JOIN auction C ON C.id = B.auction;
EXPLAIN INSERT INTO out2 SELECT A.extra, B.extra FROM auction A, bid B WHERE A.id = B.auction;
-- Output names: SELECT *, stars of each side, explicit duplicates.
EXPLAIN SELECT * FROM auction A, bid B WHERE A.id = B.auction;
EXPLAIN SELECT B.extra, A.extra, A.*, B.* FROM auction A JOIN bid B ON A.id = B.auction;
EXPLAIN SELECT * FROM auction a, auction b;
EXPLAIN SELECT 1 AS x, 2 AS x, extra, extra AS extra0, extra FROM auction;
-- A subquery's star over a join is named uniquely, so its names can be used outside.
EXPLAIN SELECT x.extra0, x.id0 FROM (SELECT * FROM auction a, auction b) x;
CREATE VIEW ab AS SELECT * FROM auction A, bid B WHERE A.id = B.auction;
DESCRIBE ab;
-- Errors: unqualified names two relations have; a subquery's explicit duplicates
-- (as in Flink); an unknown qualified name hints at the name as written; a view
-- whose select list names a column twice.
EXPLAIN SELECT extra FROM auction A, bid B WHERE A.id = B.auction;
EXPLAIN SELECT A.id FROM auction A JOIN bid B ON extra = 'x';
EXPLAIN SELECT * FROM (SELECT B.extra, A.extra FROM auction A, bid B) z;
EXPLAIN SELECT B.extr FROM auction A, bid B;
EXPLAIN SELECT b.extra FROM auction A, bid B;
CREATE VIEW dup AS SELECT A.extra, B.extra FROM auction A, bid B;
-- One name for two relations (42712, as PostgreSQL; Flink refuses it too); a
-- subquery in WHERE may reuse the outer names (its own hide them).
EXPLAIN SELECT a.id FROM auction a, auction a;
EXPLAIN SELECT 1 FROM auction JOIN bid ON auction.id = bid.auction JOIN auction ON auction.id = 1;
SELECT n.nspname FROM pg_namespace n WHERE EXISTS (SELECT 1 FROM pg_namespace n WHERE n.oid = 2200)
  ORDER BY 1;
-- The bounded path: catalog relations joined to themselves and each other.
SELECT * FROM pg_namespace a, pg_namespace b WHERE a.oid = b.oid ORDER BY 1;
SELECT b.nspname, a.oid, b.oid FROM pg_namespace a JOIN pg_namespace b ON a.oid = b.oid
  WHERE b.nspname = 'public';
SELECT c.relname, c.oid = t.oid AS same, n.nspname FROM pg_class c, pg_class t, pg_namespace n
  WHERE c.relnamespace = n.oid AND t.relname = c.relname AND c.relname IN ('auction', 'bid')
  ORDER BY 1;
SELECT a.oid, b.oid FROM pg_namespace a, pg_namespace b WHERE a.oid = b.oid ORDER BY b.oid DESC;
SELECT x.nspname0 FROM (SELECT * FROM pg_namespace a, pg_namespace b WHERE a.oid = b.oid) x
  ORDER BY 1;
SELECT oid FROM pg_namespace a, pg_namespace b;
