-- Filter, projection and scalar functions: arithmetic (INT, BIGINT, DECIMAL,
-- DOUBLE), strings, CASE / COALESCE / NULLIF / NULL handling, CAST, dates and
-- times with a fixed session time zone, over tests/sql/data/topn.csv (NULLs in
-- v) and tests/sql/data/funcs.csv ('-' stands for NULL).
SET 'parallelism.default' = '1';
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE t (k STRING, id INT, v INT) WITH ('connector' = 'filesystem',
  'path' = '@SQLDATA@/topn.csv', 'format' = 'csv', 'csv.null-literal' = 'null');
CREATE TABLE funcs_raw (id INT, s STRING, pat STRING, n STRING, d STRING, ts STRING)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/funcs.csv', 'format' = 'csv');
CREATE VIEW f AS SELECT id, NULLIF(s, '-') AS s, pat, CAST(NULLIF(n, '-') AS INT) AS n,
  CAST(NULLIF(d, '-') AS DATE) AS d, CAST(NULLIF(ts, '-') AS TIMESTAMP(3)) AS ts FROM funcs_raw;
-- Arithmetic, comparisons, boolean logic with NULLs.
SELECT k, id, v, v * 2 + 1 AS w, id - v AS dif, v / 3 AS q, MOD(v, 7) AS m, -v AS neg, ABS(id - 8) AS a,
  v > 10 AS big, v > 10 AND id > 5 AS both_, v > 10 OR id > 5 AS either, NOT (v > 10) AS nb,
  v IS NULL AS missing
FROM t WHERE id > 3 AND k <> 'c';
-- DECIMAL and DOUBLE arithmetic and rounding.
SELECT id, CAST(v AS DECIMAL(10, 2)) / 4 AS dq, CAST(v AS DECIMAL(10, 2)) * 1.5 AS dm,
  CAST(v AS DOUBLE) / 4 AS fq, ROUND(CAST(v AS DOUBLE) / 3, 2) AS r2, ROUND(CAST(v AS DECIMAL(10, 3)) / 7, 1) AS rd,
  FLOOR(CAST(v AS DECIMAL(10, 2)) / 4) AS fl, CEIL(CAST(v AS DOUBLE) / 4) AS ce, POWER(v, 2) AS p2, SQRT(CAST(v AS DOUBLE)) AS sq
FROM t WHERE v IS NOT NULL AND id <= 6;
-- CASE, COALESCE, NULLIF, IF-like forms, IN, BETWEEN, LIKE.
SELECT id, CASE WHEN v IS NULL THEN 'none' WHEN v >= 20 THEN 'high' ELSE 'low' END AS band,
  CASE k WHEN 'a' THEN 1 WHEN 'b' THEN 2 END AS kn, COALESCE(v, id, 0) AS c, NULLIF(v, 30) AS nv,
  IF(v > 10, 'y', 'n') AS yn, v IN (5, 10, 30) AS inl, id BETWEEN 4 AND 9 AS btw, k LIKE 'a%' AS lk,
  IFNULL(v, -1) AS fv
FROM t;
-- Strings.
SELECT id, s, UPPER(s) AS u, LOWER(s) AS l, CHAR_LENGTH(s) AS cl, SUBSTRING(s, 2, 3) AS sub,
  CONCAT(s, '!', pat) AS cc, s || '#' AS bar, TRIM(s) AS tr, LTRIM(CONCAT('  ', s)) AS lt,
  REPLACE(s, 'o', '0') AS rp, POSITION('o' IN s) AS pos, LPAD(s, 8, '*') AS lp, RPAD(s, 8, '-') AS rpd,
  INITCAP(s) AS ic, REVERSE(s) AS rv, SPLIT_INDEX(s, ' ', 0) AS sp, REGEXP_REPLACE(s, '[aeiou]', '_') AS rr,
  REGEXP_EXTRACT(s, '([a-z]+)', 1) AS rx
FROM f WHERE id <= 5;
-- CAST between types.
SELECT id, CAST(id AS STRING) AS s1, CAST(n AS DOUBLE) AS dbl, CAST(n AS DECIMAL(5, 2)) AS dec_,
  CAST(d AS STRING) AS ds, CAST(ts AS STRING) AS tss, CAST(ts AS DATE) AS td, CAST(n AS BOOLEAN) AS b,
  CAST(CAST(n AS STRING) AS INT) AS rt, TRY_CAST(s AS INT) AS tc, CAST(n AS BIGINT) * 3000000000 AS big
FROM f;
-- Dates and times (session time zone UTC).
SELECT id, d, ts, DATE_FORMAT(ts, 'yyyy/MM/dd HH:mm') AS df, DATE_FORMAT(ts, 'EEE dd MMM') AS dn,
  EXTRACT(YEAR FROM d) AS y, EXTRACT(MONTH FROM ts) AS mo, EXTRACT(DAY FROM ts) AS dd, HOUR(ts) AS h,
  DAYOFWEEK(d) AS dow, DAYOFYEAR(d) AS doy, QUARTER(d) AS qu, WEEK(d) AS wk,
  d + INTERVAL '1' DAY AS tomorrow, ts + INTERVAL '90' MINUTE AS later, ts - INTERVAL '1' MONTH AS earlier,
  TIMESTAMPDIFF(DAY, ts, TIMESTAMP '2025-01-01 00:00:00') AS days, TIMESTAMPADD(HOUR, 5, ts) AS plus5,
  FLOOR(ts TO HOUR) AS fh, CEIL(ts TO DAY) AS cd, DATE_FORMAT(ts, 'yyyy-MM-dd''T''HH:mm:ss') AS iso,
  UNIX_TIMESTAMP(CAST(ts AS STRING)) AS ux, FROM_UNIXTIME(86400 * id) AS fu, TO_DATE(CAST(d AS STRING)) AS tdt,
  TO_TIMESTAMP(CAST(ts AS STRING)) AS tts
FROM f;
-- Math functions.
SELECT id, n, LN(n) AS ln_, LOG10(n) AS lg, EXP(n) AS ex, SIGN(n) AS sg, TRUNCATE(n * 1.55, 1) AS tr,
  BIN(n) AS bn, HEX(n) AS hx, GREATEST(n, 1) AS gr, LEAST(n, 1) AS le, MOD(n, 2) AS md, n % 2 AS pct,
  SIN(n) AS si, ATAN2(n, 2) AS at2, DEGREES(n) AS dg
FROM f;
-- Syntax Sluice does not have yet (listed in expected_differences.txt).
SELECT id, v, v IS NOT DISTINCT FROM 30 AS is30, v IS DISTINCT FROM 30 AS not30 FROM t WHERE id < 7;
SELECT id, TRIM(BOTH 'f' FROM s) AS b, TRIM(LEADING 'o' FROM s) AS l, TRIM(TRAILING 'r' FROM s) AS r FROM f WHERE id = 1;
-- IS [NOT] DISTINCT FROM across types (the implicit casts of =), NULLs on
-- either side, an untyped NULL, in WHERE; never NULL.
SELECT id, n, n IS DISTINCT FROM 2 AS d2, n IS NOT DISTINCT FROM CAST(2 AS BIGINT) AS nd2,
  n IS NOT DISTINCT FROM 2.0 AS ndec, CAST(n AS DOUBLE) IS DISTINCT FROM 1.0E0 AS ddbl,
  s IS DISTINCT FROM 'foobar' AS ds, s IS NOT DISTINCT FROM s AS self_, d IS DISTINCT FROM DATE '2020-02-29' AS dd,
  ts IS NOT DISTINCT FROM TIMESTAMP '1970-01-01 00:00:00' AS dts, n IS DISTINCT FROM NULL AS dnull,
  n > 0 IS NOT DISTINCT FROM TRUE AS db, CAST(NULL AS INT) IS NOT DISTINCT FROM n AS nn
FROM f;
SELECT id, v FROM t WHERE v IS NOT DISTINCT FROM NULL OR v IS NOT DISTINCT FROM 30;
SELECT k, id, v, (v IS DISTINCT FROM 5) = (v <> 5) AS same_when_known, NOT (v IS DISTINCT FROM 5) AS neg
FROM t WHERE k IS DISTINCT FROM 'a';
-- TRIM's forms: a set of characters (each one stripped, any order),
-- multi-byte characters, an empty set, NULL string or set.
SELECT id, s, TRIM(BOTH 'fr' FROM s) AS b, TRIM(LEADING 'ohf' FROM s) AS l, TRIM(TRAILING 'dlr' FROM s) AS r,
  TRIM('hd' FROM s) AS plain, TRIM(BOTH FROM CONCAT('  ', s, ' ')) AS sp, TRIM(LEADING FROM CONCAT(' ', s)) AS lsp,
  TRIM(TRAILING FROM CONCAT(s, '  ')) AS tsp, TRIM(BOTH 'hé' FROM s) AS mb, TRIM(BOTH '' FROM s) AS empty_,
  TRIM(BOTH CAST(NULL AS STRING) FROM s) AS nullset, TRIM(BOTH pat FROM s) AS perrow
FROM f;
SELECT TRIM(BOTH 'x' FROM 'xxaxbxx') AS a, TRIM(LEADING 'xy' FROM 'yxyxaxy') AS b, TRIM(TRAILING 'xy' FROM 'axyxy') AS c,
  TRIM(BOTH 'ab' FROM 'abba') AS all_, TRIM(BOTH 'a' FROM '') AS e, TRIM('  a b  ') AS d,
  CHAR_LENGTH(TRIM(BOTH ' ' FROM '   ')) AS z;
