-- Flink's SQL forms IS [NOT] DISTINCT FROM (the null-safe comparison, also
-- as a join key), TRIM([BOTH | LEADING | TRAILING] [chars] FROM s) and
-- CONVERT_TZ: constant calls, the same over the rows of files (NULLs
-- included), and errors. The results were checked against Flink 2.2
-- (tests/flink/cases: calc.sql, time_zone.sql, joins.sql).
SET 'parallelism.default' = '1';
-- '-' in the file stands for NULL.
CREATE TABLE funcs_raw (id INT, s STRING, pat STRING, n STRING, d STRING, ts STRING)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/funcs.csv', 'format' = 'csv');
CREATE VIEW f AS SELECT id, NULLIF(s, '-') AS s, pat, CAST(NULLIF(n, '-') AS INT) AS n,
  CAST(NULLIF(d, '-') AS DATE) AS d, CAST(NULLIF(ts, '-') AS TIMESTAMP(3)) AS ts FROM funcs_raw;
-- IS [NOT] DISTINCT FROM: never NULL; the implicit casts of = (INT with
-- BIGINT, DECIMAL and DOUBLE); an untyped NULL on either side.
SELECT 1 IS DISTINCT FROM NULL, NULL IS NOT DISTINCT FROM NULL, NULL IS DISTINCT FROM NULL,
  1 IS NOT DISTINCT FROM 1.0, 1 IS DISTINCT FROM CAST(1 AS BIGINT), 'a' IS DISTINCT FROM 'b',
  CAST(NULL AS INT) IS NOT DISTINCT FROM CAST(NULL AS DOUBLE), DATE '2020-01-01' IS NOT DISTINCT FROM DATE '2020-01-01',
  TRUE IS DISTINCT FROM CAST(NULL AS BOOLEAN), ARRAY[1, 2] IS NOT DISTINCT FROM ARRAY[1, 2];
SELECT id, n, n IS DISTINCT FROM 2 AS d2, n IS NOT DISTINCT FROM 2.0 AS ndec,
  CAST(n AS DOUBLE) IS DISTINCT FROM 1.0E0 AS ddbl, s IS NOT DISTINCT FROM s AS self_,
  s IS DISTINCT FROM 'foobar' AS ds, d IS DISTINCT FROM DATE '2020-02-29' AS dd,
  CAST(NULL AS INT) IS NOT DISTINCT FROM n AS nn, n = 2 AS eq FROM f;
SELECT id FROM f WHERE s IS NOT DISTINCT FROM NULL OR n IS NOT DISTINCT FROM 3;
-- Precedence as IS: arithmetic binds tighter, AND / NOT looser.
SELECT 1 + 1 IS NOT DISTINCT FROM 2, NOT 1 IS DISTINCT FROM 1, 1 IS DISTINCT FROM 2 AND 2 IS DISTINCT FROM 3;
EXPLAIN SELECT id FROM f WHERE n IS DISTINCT FROM 2;
-- Errors: no comparison of the two types (42804 at IS), a syntax error.
SELECT 1 IS DISTINCT FROM 'a';
SELECT id FROM f WHERE d IS NOT DISTINCT FROM ts AND s IS DISTINCT FROM 1;
SELECT 1 IS DISTINCT 2;
-- TRIM's forms: chars is a set of characters, each stripped (BOTH by
-- default); LEADING / TRAILING; no chars: blanks; NULL string or set: NULL.
SELECT TRIM(BOTH 'xy' FROM 'xyhixx'), TRIM(LEADING 'x' FROM 'xxhixx'), TRIM(TRAILING 'x' FROM 'xxhixx'),
  TRIM('x' FROM 'xhix'), TRIM(BOTH FROM '  hi  '), TRIM(LEADING FROM '  hi  ') || '|',
  TRIM(TRAILING FROM '  hi  ') || '|', TRIM('  hi  '), TRIM(BOTH '' FROM 'xhix'), TRIM(BOTH 'ab' FROM 'abba'),
  TRIM(BOTH 'é' FROM 'ééaéé'), TRIM(BOTH CAST(NULL AS STRING) FROM 'x'), TRIM(BOTH 'x' FROM CAST(NULL AS STRING));
SELECT id, s, TRIM(BOTH 'fr' FROM s) AS b, TRIM(LEADING 'ohf' FROM s) AS l, TRIM(TRAILING 'dlr' FROM s) AS r,
  TRIM(BOTH 'hé' FROM s) AS mb, TRIM(BOTH pat FROM s) AS perrow, LTRIM(s, 'fh') AS lt, RTRIM(s, 'rd') AS rt FROM f;
-- BOTH, LEADING and TRAILING stay names elsewhere.
SELECT id AS both, s AS leading, n AS trailing FROM f WHERE id = 1;
-- Errors: a set that is not a string (42883 with the signature), another
-- function with BOTH (a syntax error).
SELECT TRIM(BOTH 1 FROM 'x');
SELECT id, TRIM(LEADING n FROM s) FROM f;
SELECT UPPER(BOTH 'x' FROM 'y');
-- CONVERT_TZ(text, from, to): 'yyyy-MM-dd HH:mm:ss' read as Java's
-- SimpleDateFormat reads it (text after it ignored, single digits, values
-- past their range carried over), in zone from (the later offset in an
-- overlap), written in zone to; NULL for text that does not parse; an
-- unknown zone is GMT.
SELECT CONVERT_TZ('2024-01-01 12:00:00', 'UTC', 'Asia/Tokyo'), CONVERT_TZ('2024-01-01 12:00:00.789', 'UTC', 'Asia/Tokyo'),
  CONVERT_TZ('2024-1-5 3:04:05', 'UTC', 'America/New_York'), CONVERT_TZ('2024-01-01', 'UTC', 'UTC'),
  CONVERT_TZ('junk', 'UTC', 'UTC'), CONVERT_TZ('2024-03-10 02:30:00', 'America/New_York', 'UTC'),
  CONVERT_TZ('2024-11-03 01:30:00', 'America/New_York', 'UTC'), CONVERT_TZ('2024-06-01 00:00:00', 'GMT+05:30', 'GMT-08:00'),
  CONVERT_TZ('2024-06-01 00:00:00', 'Not/AZone', 'Europe/Berlin'), CONVERT_TZ('2024-13-01 24:00:00', 'UTC', 'UTC'),
  CONVERT_TZ(CAST(NULL AS STRING), 'UTC', 'UTC'), CONVERT_TZ('2024-06-01 00:00:00', 'UTC', CAST(NULL AS STRING));
SELECT id, CONVERT_TZ(CAST(ts AS STRING), 'America/New_York', 'Europe/London') AS ldn,
  CONVERT_TZ(DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss'), pat, 'UTC') AS per_row_zone FROM f;
-- DATE_FORMAT row after row: instants in the same day, the next day, back
-- again, before 1970 (the day of a negative instant), the pattern changing
-- from row to row, and a NULL between them (each formatted text is reused
-- only within its pattern's unit).
SELECT DATE_FORMAT(t, p) AS d FROM (VALUES
  (TIMESTAMP '2024-03-01 00:00:00', 'yyyy-MM-dd'),
  (TIMESTAMP '2024-03-01 23:59:59.999', 'yyyy-MM-dd'),
  (TIMESTAMP '2024-03-02 00:00:00', 'yyyy-MM-dd'),
  (TIMESTAMP '2024-03-01 12:00:00', 'yyyy-MM-dd'),
  (TIMESTAMP '2024-03-01 12:00:00', 'yyyy-MM-dd HH'),
  (TIMESTAMP '2024-03-01 12:59:00', 'yyyy-MM-dd HH'),
  (TIMESTAMP '2024-03-01 12:59:00', 'mm'),
  (CAST(NULL AS TIMESTAMP), 'yyyy-MM-dd'),
  (TIMESTAMP '1969-12-31 23:59:59.999', 'yyyy-MM-dd'),
  (TIMESTAMP '1969-12-31 00:00:00', 'yyyy-MM-dd'),
  (TIMESTAMP '1970-01-01 00:00:00', 'yyyy-MM-dd')) AS v(t, p);
-- Errors: arguments that are not strings (42883), a date and time past the
-- TIMESTAMP range (22008).
SELECT CONVERT_TZ(TIMESTAMP '2024-01-01 00:00:00', 'UTC', 'UTC');
SELECT CONVERT_TZ('2024-01-01 00:00:00', 'UTC');
SELECT CONVERT_TZ('3000-01-01 00:00:00', 'UTC', 'UTC');
