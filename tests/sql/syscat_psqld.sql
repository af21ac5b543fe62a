-- What psql's \d NAME and \d+ NAME read beyond syscat.sql: the catalog
-- functions that read the session's objects, a view's columns, the relations
-- of objects Sluice has none of (empty), UNION / DISTINCT, ORDER BY an
-- expression and = ANY (array) in the bounded path.
CREATE TABLE t (id BIGINT, name STRING NOT NULL COMMENT 'who', amount DECIMAL(10, 2),
  ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED) COMMENT 'the table' WITH ('connector' = 'datagen');
CREATE TABLE "Two Keys" (a INT NOT NULL, "B" STRING NOT NULL, PRIMARY KEY (a, "B") NOT ENFORCED)
  WITH ('connector' = 'datagen');
CREATE VIEW w AS SELECT id, name AS who FROM t;
CREATE VIEW w2 (x) AS SELECT a FROM "Two Keys";
-- pg_get_indexdef (whole, one column), pg_get_constraintdef: psql's index query
SELECT c2.relname, pg_get_indexdef(i.indexrelid, 0, true), pg_get_indexdef(i.indexrelid, 2, true),
  pg_get_constraintdef(con.oid, true)
  FROM pg_class c, pg_class c2, pg_index i
  LEFT JOIN pg_constraint con ON (conrelid = i.indrelid AND conindid = i.indexrelid AND contype IN ('p','u','x'))
  WHERE c.oid = i.indrelid AND i.indexrelid = c2.oid ORDER BY 1;
-- no such object: NULL
SELECT pg_get_indexdef(1) IS NULL, pg_get_constraintdef(1) IS NULL, pg_get_viewdef(1) IS NULL,
  col_description(1, 1) IS NULL;
-- no FROM (psql's \d+ VIEW): still the session's catalog
SELECT pg_get_viewdef('w'::regclass, true), pg_get_viewdef(CAST('w'::regclass AS BIGINT));
-- col_description, obj_description; a view's columns in pg_attribute
SELECT c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
  col_description(a.attrelid, a.attnum), obj_description(c.oid, 'pg_class')
  FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
  WHERE c.relnamespace = 2200 ORDER BY 1, 2;
-- a view's definition; its rule _RETURN
SELECT c.relname, pg_get_viewdef(c.oid, true) FROM pg_class c WHERE c.relkind = 'v' ORDER BY 1;
SELECT r.rulename, c.relname FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class ORDER BY 2;
-- relations of objects Sluice has none of
SELECT polname FROM pg_policy;
SELECT stxname FROM pg_statistic_ext UNION ALL SELECT pubname FROM pg_publication;
SELECT inhrelid FROM pg_inherits UNION ALL SELECT tgrelid FROM pg_trigger
  UNION ALL SELECT ftrelid FROM pg_foreign_table UNION ALL SELECT prrelid FROM pg_publication_rel
  UNION ALL SELECT pnnspid FROM pg_publication_namespace;
SELECT rolname, rolsuper, rolcanlogin FROM pg_roles;
SELECT pg_relation_is_publishable(c.oid), c.relname FROM pg_class c WHERE c.relnamespace = 2200 ORDER BY 2;
-- sizes: nothing is stored (0 bytes), NULL for no such relation; PostgreSQL's units
SELECT relname, pg_table_size(oid) FROM pg_class WHERE relnamespace = 2200 ORDER BY 1;
SELECT pg_table_size(1), pg_size_pretty(10239), pg_size_pretty(10240), pg_size_pretty(-10485760),
  pg_size_pretty(1099511627776), pg_size_pretty(9223372036854775807), pg_size_pretty(NULL);
-- UNION (distinct), UNION ALL, DISTINCT; NULL columns take the other side's type
SELECT relkind FROM pg_class WHERE relnamespace = 2200 UNION SELECT relkind FROM pg_class
  WHERE relnamespace = 2200 ORDER BY 1;
SELECT relname, NULL FROM pg_class WHERE relname = 't'
  UNION ALL SELECT NULL, relkind FROM pg_class WHERE relname = 'w' ORDER BY 1;
SELECT DISTINCT relnamespace FROM pg_class ORDER BY 1;
SELECT relname FROM pg_class WHERE relname = 't' UNION SELECT 1 FROM pg_class;
-- ORDER BY an expression over the FROM's columns (psql's partitions query)
SELECT relname FROM pg_class WHERE relnamespace = 2200 ORDER BY relkind = 'v', CHAR_LENGTH(relname) DESC, 1;
SELECT relname FROM pg_class ORDER BY nope + 1;
-- = ANY (array): an array is its text
SELECT relname FROM pg_class WHERE relname = ANY ('{t,"Two Keys",NULL}') ORDER BY 1;
SELECT relname, relnatts = SOME ('{2,4}'), 'x' = ANY (NULL), 'x' = ANY ('{NULL,y}')
  FROM pg_class WHERE relnamespace = 2200 ORDER BY 1;
SELECT relname FROM pg_class WHERE relnatts < ANY ('{1}');
SELECT relname FROM pg_class WHERE relnatts = ANY (3);
