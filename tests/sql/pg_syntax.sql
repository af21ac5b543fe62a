-- PostgreSQL syntax that clients (psql, pgJDBC) send, run over a catalog relation
-- (the bounded query path) so that it needs no job.
CREATE TABLE "Orders" ("Id" BIGINT, "item ""x""" STRING) WITH ('connector' = 'datagen');
SELECT table_name, column_name FROM information_schema.columns WHERE table_name = 'Orders' ORDER BY 2;
SELECT "Id", `item "x"` FROM "Orders" LIMIT 0;
SELECT amname, 'abc' ~ '^a' AS a, 'abc' !~ 'B' AS b, 'ABC' ~* 'b' AS c, 'x' !~* 'X' AS d FROM pg_am;
SELECT amname, amname OPERATOR(pg_catalog.~) '^he' COLLATE pg_catalog.default AS m,
  amname COLLATE "C" = 'heap' AS e FROM pg_catalog.pg_am;
SELECT '12'::int + 1 AS i, 7::text AS t, '2.5'::pg_catalog.float8 AS f, E'a\tb\\c\'d' AS e, E'\x41\101' AS x FROM pg_am;
SELECT pg_catalog.upper(amname) AS u, pg_catalog.format_type(1700, 655366) AS n,
  format_type(1114, 3) AS ts, format_type(1043, 24) AS vc FROM pg_am;
SELECT oid = 'pg_class'::regclass AS same, oid::pg_catalog.regclass = oid AS roundtrip FROM pg_class WHERE relname = 'pg_class';
-- errors keep their SQLSTATE and position
SELECT amname ~ '(' FROM pg_am;
SELECT amname ~ 1 FROM pg_am;
SELECT 1::nosuchtype FROM pg_am;
SELECT x.y.upper('a') FROM pg_am;
SELECT nosuch.upper('a') FROM pg_am;
SELECT * FROM nosuch.pg_am;
SELECT * FROM pg_catalog.nosuch;
SELECT oid FROM pg_class WHERE oid = 'abc';
-- an unterminated quoted identifier runs to the end of the text
SELECT "unterminated FROM pg_am;
