-- A JSON source over every type with the edge values of each
-- (tests/sql/data/edge: NULLs (`dec` is reserved in Flink), the ends of the ranges, NaN, infinities, -0.0,
-- TIMESTAMP(9), TIMESTAMP_LTZ, BYTES) and nested ROWs (tests/sql/data/rows):
-- how each engine reads and prints them, and CASTs between them.
SET 'parallelism.default' = '1';
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE src (id INT, b BOOLEAN, ti TINYINT, bi BIGINT, f FLOAT, d DOUBLE,
  `dec` DECIMAL(38, 10), dt DATE, tm TIME(3), ts TIMESTAMP(9), ltz TIMESTAMP_LTZ(3), s STRING,
  bin BYTES) WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/edge', 'format' = 'json');
CREATE TABLE rws (id INT, r ROW<a INT, s ROW<x STRING, y DOUBLE>, b BOOLEAN>)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/rows', 'format' = 'json');
SELECT id, b, ti, bi, f, d, `dec`, dt, ts, ltz, CHAR_LENGTH(s) AS len, bin FROM src;
SELECT id, CAST(f AS DOUBLE) AS fd, CAST(d AS FLOAT) AS df, CAST(`dec` AS DOUBLE) AS decd,
  CAST(ltz AS TIMESTAMP(3)) AS ltz3,
  CAST(ti AS STRING) AS tis, CAST(b AS INT) AS bi_, d * 2 AS d2, f + 1 AS f1
FROM src;
SELECT id, r.a AS a, r.s.x AS x, r.s.y AS y, r.b AS b, r.s.y * 2 AS y2 FROM rws;
-- Listed in expected_differences.txt: timestamps at and beyond the ends of
-- Sluice's range (int64 nanoseconds since 1970: 1677-09-21 .. 2262-04-11);
-- TIME(3) values with a fraction read from JSON.
SELECT id, CAST(dt AS TIMESTAMP(0)) AS dt0, CAST(ts AS TIMESTAMP(3)) AS ts3 FROM src;
SELECT id, tm FROM src;
