-- Types written without their arguments, CAST to a length, and the sinks'
-- 'table.exec.sink.type-length-enforcer' (Flink SQL 2.2's, checked side by
-- side with Flink 2.2 on the same input).
SET 'parallelism.default' = '1';

-- A bare type is what Flink 2.2's DESCRIBE shows: VARCHAR is STRING,
-- VARBINARY is BYTES, CHAR is CHAR(1), BINARY is BINARY(1), DECIMAL is
-- DECIMAL(10, 0), TIME is TIME(0), TIMESTAMP is TIMESTAMP(6).
CREATE TABLE bare (a VARCHAR, b VARBINARY, c CHAR, d BINARY, e TIMESTAMP, f TIMESTAMP_LTZ,
  g TIME, h DECIMAL, i NUMERIC, j DEC, k TIMESTAMP WITH LOCAL TIME ZONE,
  l TIMESTAMP WITHOUT TIME ZONE, m STRING, n BYTES) WITH ('connector' = 'blackhole');
DESCRIBE bare;
SHOW CREATE TABLE bare;

-- CAST to a bare VARCHAR / VARBINARY keeps the whole value; a CAST to a
-- length cuts a longer value (characters, or bytes for binary) and pads a
-- shorter CHAR with spaces, a shorter BINARY with zero bytes.
SELECT CAST('hello world' AS VARCHAR) AS a, CAST(X'0102030405' AS VARBINARY) AS b,
  CAST('hello world' AS VARCHAR(5)) AS c, CAST('hi' AS CHAR(5)) || '|' AS d,
  CAST('hello' AS CHAR) AS e, CAST(X'0102' AS BINARY(4)) AS f, CAST(X'010203' AS VARBINARY(2)) AS g,
  CAST(X'0102' AS BINARY) AS h, CAST('héllo' AS VARCHAR(2)) AS i, CAST('é' AS CHAR(3)) || '|' AS j,
  CHAR_LENGTH(CAST('hi' AS CHAR(5))) AS k;
CREATE TEMPORARY VIEW casts AS SELECT CAST('hello world' AS VARCHAR) AS a,
  CAST(X'01' AS VARBINARY) AS b, CAST('x' AS CHAR) AS c, CAST(X'01' AS BINARY) AS d,
  CAST(1 AS DECIMAL) AS e, CAST('12:00:00' AS TIME) AS f, CAST('2026-01-01' AS TIMESTAMP) AS g;
DESCRIBE casts;

-- A source reads values as they are (neither Flink nor Sluice cuts them on
-- the way in): v VARCHAR(3) and c CHAR(3) hold longer and shorter values.
CREATE TABLE src (id INT, v VARCHAR(3), c CHAR(3), s STRING)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/lengths.csv', 'format' = 'csv');
SELECT id, v, CHAR_LENGTH(v) AS lv, c, CHAR_LENGTH(c) AS lc, s FROM src;

-- IGNORE (the default): a value of the column's own type is written as it
-- is; one of another type is CAST to the column's type, which cuts and pads
-- (v4 and c6 below, and the bytes).
CREATE TABLE out_ignore (id INT, v VARCHAR(3), c CHAR(3), v4 VARCHAR(4), c6 CHAR(6),
  b BINARY(3), vb VARBINARY(2), u VARCHAR)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/ignore', 'format' = 'csv');
EXPLAIN INSERT INTO out_ignore SELECT id, v, c, s, c, CAST(s AS BYTES), CAST(s AS BYTES), s FROM src;
INSERT INTO out_ignore SELECT id, v, c, s, c, CAST(s AS BYTES), CAST(s AS BYTES), s FROM src;
-- Read back through a table of unbounded types: '|' ends each value, so
-- padding shows.
CREATE TABLE read_ignore (id INT, v STRING, c STRING, v4 STRING, c6 STRING, b BYTES, vb BYTES, u STRING)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/ignore', 'format' = 'csv');
SELECT id, v || '|' AS v, c || '|' AS c, v4 || '|' AS v4, c6 || '|' AS c6, b, vb, u FROM read_ignore;

-- TRIM_PAD: every value is cut to its column's length; a shorter CHAR
-- value is padded with spaces, a shorter BINARY value with zero bytes.
SET 'table.exec.sink.type-length-enforcer' = 'TRIM_PAD';
CREATE TABLE out_trim (id INT, v VARCHAR(3), c CHAR(3), v4 VARCHAR(4), c6 CHAR(6),
  b BINARY(3), vb VARBINARY(2), u VARCHAR)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/trim', 'format' = 'csv');
EXPLAIN INSERT INTO out_trim SELECT id, v, c, s, c, CAST(s AS BYTES), CAST(s AS BYTES), s FROM src;
INSERT INTO out_trim SELECT id, v, c, s, c, CAST(s AS BYTES), CAST(s AS BYTES), s FROM src;
CREATE TABLE read_trim (id INT, v STRING, c STRING, v4 STRING, c6 STRING, b BYTES, vb BYTES, u STRING)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/trim', 'format' = 'csv');
SELECT id, v || '|' AS v, c || '|' AS c, v4 || '|' AS v4, c6 || '|' AS c6, b, vb, u FROM read_trim;
-- The print sink gets the same rows.
CREATE TABLE screen (id INT, v VARCHAR(3), c CHAR(3), b BINARY(3))
  WITH ('connector' = 'print', 'print-identifier' = 'trim');
INSERT INTO screen SELECT id, v, c, CAST(v AS BYTES) FROM src;

-- ERROR: a value that does not fit fails the job, naming the column and the
-- value's length; no CAST cuts a longer value first.
SET 'table.exec.sink.type-length-enforcer' = 'ERROR';
CREATE TABLE out_err (id INT, v VARCHAR(3), c CHAR(3), c6 CHAR(6), b BINARY(3), vb VARBINARY(2), u VARCHAR)
  WITH ('connector' = 'print', 'print-identifier' = 'error');
EXPLAIN INSERT INTO out_err SELECT id, v, c, c, CAST(v AS BYTES), CAST(v AS BYTES), s FROM src;
-- values that fit: a shorter CHAR value converted from another type (CHAR(3)
-- into CHAR(6)) is padded as a CAST pads it; STRING takes any length
INSERT INTO out_err (id, c6, u) SELECT id, c, s FROM src;
INSERT INTO out_err (id, v, b, vb) SELECT id, v, CAST(v AS BYTES), CAST(s AS BYTES) FROM src WHERE id = 2 OR id = 5;
-- longer than VARCHAR(3): 22001
INSERT INTO out_err (id, v) SELECT id, v FROM src;
-- a STRING longer than CHAR(6): 22001, where a CAST (IGNORE) would cut it
INSERT INTO out_err (id, c6) SELECT id, s FROM src WHERE id = 1;
-- a CHAR(3) value shorter than the CHAR(3) column: 22026 (Flink's check)
INSERT INTO out_err (id, c) SELECT id, c FROM src WHERE id = 1;
-- bytes: longer than BINARY(3) and VARBINARY(2)
INSERT INTO out_err (id, b) SELECT id, CAST(s AS BYTES) FROM src WHERE id = 1;
INSERT INTO out_err (id, vb) SELECT id, CAST(s AS BYTES) FROM src WHERE id = 3;
-- into files: the job fails before its first commit, and nothing was cut
CREATE TABLE out_err_files (id INT, v VARCHAR(3))
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/error', 'format' = 'csv');
INSERT INTO out_err_files SELECT id, v FROM src;
SELECT id, v FROM out_err_files;
-- the same rows fit once the longer values are cut in the query
INSERT INTO out_err_files SELECT id, SUBSTRING(v, 1, 3) FROM src;
SELECT id, v FROM out_err_files;
RESET 'table.exec.sink.type-length-enforcer';
SET 'table.exec.sink.type-length-enforcer' = 'sometimes';
