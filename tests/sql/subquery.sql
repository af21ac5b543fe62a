-- Subqueries in WHERE on the bounded path (catalog relations), decorrelated
-- into joins: EXISTS / NOT EXISTS (SEMI / ANTI), IN / NOT IN (subquery) with
-- PostgreSQL's NULL semantics, scalar subqueries (LEFT_SINGLE: 21000 when
-- several rows match), names resolved in the subquery first.
CREATE TABLE one (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'datagen');
CREATE TABLE two (a INT, b STRING, c INT, PRIMARY KEY (c, a) NOT ENFORCED) WITH ('connector' = 'datagen');
CREATE TABLE nokey (k INT) WITH ('connector' = 'datagen');
-- tables with / without a primary key (correlated on the outer c.oid)
SELECT c.relname FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = 2200
  AND EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary) ORDER BY 1;
SELECT c.relname FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = 2200
  AND NOT EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid) ORDER BY 1;
-- unqualified names: the subquery's own columns first (relname, relkind of c2)
SELECT relname FROM pg_class WHERE oid IN (SELECT indrelid FROM pg_index) ORDER BY 1;
SELECT relname FROM pg_class WHERE relnamespace = 2200 AND oid NOT IN (SELECT indrelid FROM pg_index)
  ORDER BY 1;
SELECT c.relname FROM pg_class c WHERE c.relname IN
  (SELECT relname FROM pg_class WHERE relkind = 'i' AND relname = c.relname || '') ORDER BY 1;
-- NOT IN with a NULL in the subquery: no row (NULL, not TRUE); NOT (x IN ...) is NOT IN
SELECT relname FROM pg_class WHERE relnamespace = 2200 AND relname NOT IN
  (SELECT d.description FROM pg_class c2 LEFT JOIN pg_description d ON d.objoid = c2.oid);
SELECT relname FROM pg_class WHERE relnamespace = 2200 AND NOT (relname IN (SELECT 'one' FROM pg_am))
  ORDER BY 1;
-- a scalar subquery in WHERE, and in a select list
SELECT c.relname FROM pg_class c WHERE c.relnatts = (SELECT max_n.relnatts FROM pg_class max_n
  WHERE max_n.relname = 'two') ORDER BY 1;
SELECT c.relname FROM pg_class c WHERE c.relnatts < (SELECT x.relnatts FROM pg_class x
  WHERE x.relname = 'nothing') ORDER BY 1;
SELECT c.relname, (SELECT i.indnatts FROM pg_index i WHERE i.indrelid = c.oid) AS keys
  FROM pg_class c WHERE c.relnamespace = 2200 AND c.relkind = 'r' ORDER BY 1;
EXPLAIN SELECT relname FROM pg_class c WHERE EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid)
  AND c.oid NOT IN (SELECT conrelid FROM pg_constraint);
-- several rows where one is expected: 21000
-- (a scalar subquery's join shares the query's names: qualify the ones both have)
SELECT c.relname FROM pg_class c WHERE c.relnatts = (SELECT c2.relnatts FROM pg_class c2);
SELECT (SELECT a.attname FROM pg_attribute a WHERE a.attrelid = c.oid) FROM pg_class c
  WHERE c.relname = 'two';
-- not supported: a clear error
SELECT relname FROM pg_class WHERE relkind = 'r' OR EXISTS (SELECT 1 FROM pg_am);
SELECT EXISTS (SELECT 1 FROM pg_am) FROM pg_class;
SELECT relname FROM pg_class WHERE oid IN (SELECT count(*) FROM pg_index);
SELECT relname FROM pg_class WHERE oid IN (SELECT indrelid, indexrelid FROM pg_index);
SELECT relname FROM pg_class WHERE EXISTS (SELECT nothing FROM pg_index WHERE nothing = 1);
