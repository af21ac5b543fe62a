-- PostgreSQL's catalog relations over the session's catalog, through the bounded
-- query path: joins (hash on equality keys, nested loop otherwise), ORDER BY, LIMIT.
CREATE TABLE t (id BIGINT, name STRING NOT NULL COMMENT 'who', amount DECIMAL(10, 2),
  ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'datagen');
CREATE TABLE u (k INT, v VARCHAR(20)) WITH ('connector' = 'datagen');
CREATE VIEW w AS SELECT k FROM u;
CREATE TEMPORARY VIEW tv AS SELECT id FROM t;
SELECT n.nspname, c.relname, c.relkind FROM pg_catalog.pg_class c
  LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public' ORDER BY 2;
SELECT table_schema, table_name, table_type FROM information_schema.tables
  WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY table_name;
SELECT table_name, column_name, ordinal_position, is_nullable FROM information_schema.columns
  WHERE table_schema = 'public' ORDER BY table_name, ordinal_position;
-- pg_attribute with the PostgreSQL types (format_type), comments, NOT NULL
SELECT c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull,
  d.description
  FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
  LEFT JOIN pg_description d ON d.objoid = c.oid AND d.objsubid = a.attnum
  WHERE c.relname IN ('t', 'u') ORDER BY 1, 2;
-- the primary key: a unique index and its constraint
SELECT c2.relname, i.indisprimary, i.indisunique, i.indkey, con.contype, con.conkey
  FROM pg_class c, pg_class c2, pg_index i
  LEFT JOIN pg_constraint con ON (conrelid = i.indrelid AND conindid = i.indexrelid AND contype IN ('p','u','x'))
  WHERE c.relname = 't' AND c.oid = i.indrelid AND i.indexrelid = c2.oid;
-- comma joins with the condition in WHERE; a join without equality keys (nested loop)
SELECT a.amname, n.nspname FROM pg_am a, pg_namespace n WHERE n.oid > 2000 ORDER BY 2;
SELECT count_me.relname FROM pg_class count_me JOIN pg_am am ON am.oid <> count_me.relam
  WHERE count_me.relnamespace = 2200 ORDER BY 1 DESC LIMIT 2 OFFSET 1;
-- RIGHT and FULL joins keep the rows nothing matched
SELECT n.nspname, c.relname FROM pg_class c RIGHT JOIN pg_namespace n ON n.oid = c.relnamespace AND c.relname = 't' ORDER BY 1;
SELECT d.datname, a.amname FROM pg_database d FULL JOIN pg_am a ON a.oid = d.oid ORDER BY 1;
-- ORDER BY: NULLs last ascending, first descending (PostgreSQL)
SELECT relname, reloptions FROM pg_class WHERE relnamespace = 2200 ORDER BY reloptions DESC, relname;
SELECT datname, ROW_NUMBER() OVER (PARTITION BY datdba ORDER BY datname) AS rn FROM pg_database;
-- unqualified names find pg_catalog's relations; the user's tables come first
SELECT nspname FROM pg_namespace ORDER BY 1;
-- read-only: they are not tables of the catalog
INSERT INTO pg_catalog.pg_class SELECT * FROM pg_catalog.pg_class;
DROP TABLE pg_class;
-- GROUP BY runs on the bounded path (exec/op_agg.c); a table of a connector does not
SELECT relkind, COUNT(*) FROM pg_class GROUP BY relkind;
SELECT oid FROM pg_class c, t WHERE c.oid = t.id;
-- ORDER BY a column that is not selected (PostgreSQL)
SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'
  ORDER BY table_name, ordinal_position DESC LIMIT 3;
SELECT a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 't'
  ORDER BY a.attnum DESC;
SELECT relname FROM pg_class ORDER BY nope;
-- scalar subqueries in the select list become LEFT JOINs (psql's \d NAME)
SELECT a.attname,
  (SELECT d.description FROM pg_description d WHERE d.objoid = a.attrelid AND d.objsubid = a.attnum) AS comment,
  (SELECT t.typname FROM pg_type t WHERE t.oid = a.atttypid) AS typname
  FROM pg_attribute a WHERE a.attrelid = 't'::regclass ORDER BY a.attnum;
SELECT relname FROM pg_class WHERE relname = (SELECT amname FROM pg_am);
SELECT (SELECT COUNT(*) FROM pg_am) FROM pg_class;
SELECT (SELECT amname FROM pg_am);
SELECT *, (SELECT amname FROM pg_am) FROM pg_class;
