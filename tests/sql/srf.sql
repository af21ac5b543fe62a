-- Set-returning functions in a select list (the bounded path's ProjectSet):
-- information_schema._pg_expandarray over pg_index.indkey, its composite
-- result read with (f(...)).column and, through a subquery, (item).column;
-- several calls run in lockstep; errors where a set cannot be.
CREATE TABLE one (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'datagen');
CREATE TABLE two (a INT, b STRING, c INT, PRIMARY KEY (c, a) NOT ENFORCED) WITH ('connector' = 'datagen');
CREATE TABLE nokey (k INT) WITH ('connector' = 'datagen');
-- each key column with its position in the key (int2vector text '3 1')
SELECT c.relname, i.indkey, (information_schema._pg_expandarray(i.indkey)).x AS attnum,
  (information_schema._pg_expandarray(i.indkey)).n AS key_seq
  FROM pg_class c JOIN pg_index i ON i.indrelid = c.oid ORDER BY 1, 4;
-- the whole composite as a select item, read by the query around it
SELECT r.relname, (r.keys).x, (r.keys).n FROM (SELECT c.relname,
  information_schema._pg_expandarray(i.indkey) AS keys FROM pg_class c
  JOIN pg_index i ON i.indrelid = c.oid) r WHERE (r.keys).n = 1 ORDER BY 1;
-- pgJDBC's getPrimaryKeys (42.7.4), two key columns: key_seq follows the key's order
SELECT result.TABLE_NAME, result.COLUMN_NAME, result.KEY_SEQ, result.PK_NAME FROM
  (SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM, ct.relname AS TABLE_NAME,
   a.attname AS COLUMN_NAME, (information_schema._pg_expandarray(i.indkey)).n AS KEY_SEQ,
   ci.relname AS PK_NAME, information_schema._pg_expandarray(i.indkey) AS KEYS,
   a.attnum AS A_ATTNUM FROM pg_catalog.pg_class ct
   JOIN pg_catalog.pg_attribute a ON (ct.oid = a.attrelid)
   JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = n.oid)
   JOIN pg_catalog.pg_index i ON ( a.attrelid = i.indrelid)
   JOIN pg_catalog.pg_class ci ON (ci.oid = i.indexrelid) WHERE true AND i.indisprimary) result
  where result.A_ATTNUM = (result.KEYS).x ORDER BY result.table_name, result.pk_name, result.key_seq;
-- two different calls in lockstep: the shorter set is NULL past its end
SELECT c.relname, (information_schema._pg_expandarray(i.indkey)).x AS k,
  (information_schema._pg_expandarray('{7,8,9}')).x AS lit,
  (information_schema._pg_expandarray(con.conkey)).n AS ck
  FROM pg_class c JOIN pg_index i ON i.indrelid = c.oid
  JOIN pg_constraint con ON con.conrelid = c.oid WHERE c.relname = 'two';
-- empty sets: no row; a NULL array is an empty set
SELECT relname, (information_schema._pg_expandarray('')).x FROM pg_class WHERE relname = 'one';
SELECT relname, (information_schema._pg_expandarray(CAST(NULL AS STRING))).x FROM pg_class;
SELECT (information_schema._pg_expandarray(' { -1 , 2147483647 } ')).x;
EXPLAIN SELECT (information_schema._pg_expandarray(i.indkey)).n FROM pg_index i;
-- errors
SELECT relname FROM pg_class WHERE (information_schema._pg_expandarray('1 2')).x = 1;
SELECT information_schema._pg_expandarray(relname) FROM pg_class;
SELECT information_schema._pg_expandarray(relnatts) FROM pg_class;
SELECT information_schema._pg_expandarray(i.indkey) + 1 FROM pg_index i;
SELECT (relname).x FROM pg_class;
SELECT (information_schema._pg_expandarray('{1,x}')).x;
SELECT (information_schema._pg_expandarray('{2147483648}')).x;
SELECT (r.nothing).x FROM (SELECT relname FROM pg_class) r;
SELECT count(*), (information_schema._pg_expandarray(i.indkey)).x FROM pg_index i;
