-- What a job writes, the same table reads back: every format over every
-- type, with the edge values of each (NULL vs '', line breaks, quotes,
-- delimiters, NUL bytes, multi-byte UTF-8, the ends of every range, NaN,
-- infinities, -0.0). The unit test test_connectors_roundtrip does the same
-- with thousands of random rows; this runs the real statements.
SET 'parallelism.default' = '1';
CREATE TABLE src (id INT, b BOOLEAN, ti TINYINT, bi BIGINT, f FLOAT, d DOUBLE,
  dec DECIMAL(38, 10), dt DATE, tm TIME(3), ts TIMESTAMP(9), ltz TIMESTAMP_LTZ(3), s STRING,
  bin BYTES) WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/edge', 'format' = 'json');
-- The input; a NUL byte in a value is shown as \x00, not cut there.
SELECT * FROM src;
SELECT id, CHAR_LENGTH(s) AS len, s IS NULL AS s_null, bin IS NULL AS bin_null FROM src;

-- json.
CREATE TABLE j (id INT, b BOOLEAN, ti TINYINT, bi BIGINT, f FLOAT, d DOUBLE,
  dec DECIMAL(38, 10), dt DATE, tm TIME(3), ts TIMESTAMP(9), ltz TIMESTAMP_LTZ(3), s STRING,
  bin BYTES) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/j', 'format' = 'json');
INSERT INTO j SELECT * FROM src;
SELECT * FROM j;
SELECT id, CHAR_LENGTH(s) AS len, s IS NULL AS s_null, bin IS NULL AS bin_null FROM j;

-- csv, defaults: a value with a line break is a quoted field over two lines,
-- '' is written "" and NULL as an empty field, so they read back apart.
CREATE TABLE c (id INT, b BOOLEAN, ti TINYINT, bi BIGINT, f FLOAT, d DOUBLE,
  dec DECIMAL(38, 10), dt DATE, tm TIME(3), ts TIMESTAMP(9), ltz TIMESTAMP_LTZ(3), s STRING,
  bin BYTES) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/c', 'format' = 'csv');
INSERT INTO c SELECT * FROM src;
SELECT * FROM c;
SELECT id, CHAR_LENGTH(s) AS len, s IS NULL AS s_null, bin IS NULL AS bin_null FROM c;

-- csv without quoting: escapes, and a null literal.
CREATE TABLE c2 (id INT, b BOOLEAN, ti TINYINT, bi BIGINT, f FLOAT, d DOUBLE,
  dec DECIMAL(38, 10), dt DATE, tm TIME(3), ts TIMESTAMP(9), ltz TIMESTAMP_LTZ(3), s STRING,
  bin BYTES) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/c2', 'format' = 'csv',
  'csv.field-delimiter' = ';', 'csv.disable-quote-character' = 'true',
  'csv.escape-character' = '\', 'csv.null-literal' = '\N');
INSERT INTO c2 SELECT * FROM src;
SELECT * FROM c2;
SELECT id, CHAR_LENGTH(s) AS len, s IS NULL AS s_null, bin IS NULL AS bin_null FROM c2;

-- raw: one value per line; what a line can carry reads back.
CREATE TABLE r (s STRING) WITH ('connector' = 'filesystem', 'path' = '@TMP@/r', 'format' = 'raw');
INSERT INTO r SELECT s FROM src WHERE id IN (2, 4, 6, 7, 8, 9, 10);
SELECT s, CHAR_LENGTH(s) AS len FROM r;
-- What a line cannot carry is refused, never written to read back otherwise:
-- a line break, NULL, and a number whose bytes hold a line break (10).
CREATE TABLE r2 (s STRING) WITH ('connector' = 'filesystem', 'path' = '@TMP@/r2', 'format' = 'raw');
INSERT INTO r2 SELECT s FROM src WHERE id = 3;
INSERT INTO r2 SELECT s FROM src WHERE id = 1;
CREATE TABLE r3 (bi BIGINT) WITH ('connector' = 'filesystem', 'path' = '@TMP@/r3', 'format' = 'raw');
INSERT INTO r3 SELECT bi FROM src WHERE id = 4;
-- A NULL number is an empty line, which reads back as NULL.
INSERT INTO r3 SELECT bi FROM src WHERE id IN (1, 2, 3);
SELECT bi, bi IS NULL AS isnull FROM r3;
