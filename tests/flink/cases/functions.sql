-- Flink's built-in scalar functions, row by row over tests/sql/data/funcs.csv
-- (NULLs included; '-' in the file stands for NULL): the per-row queries of
-- tests/sql/functions_flink.sql (its constant ones are left out: each is a
-- Flink job of its own, seconds apiece).
SET 'parallelism.default' = '1';
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE funcs_raw (id INT, s STRING, pat STRING, n STRING, d STRING, ts STRING)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/funcs.csv', 'format' = 'csv');
CREATE VIEW f AS SELECT id, NULLIF(s, '-') AS s, pat, CAST(NULLIF(n, '-') AS INT) AS n,
  CAST(NULLIF(d, '-') AS DATE) AS d, CAST(NULLIF(ts, '-') AS TIMESTAMP(3)) AS ts FROM funcs_raw;
-- Positions and splitting.
SELECT id, LOCATE('o', s), LOCATE('o', s, 6), INSTR(s, 'l'), POSITION('l' IN s), SPLIT_INDEX(s, '.', 1), SPLIT_INDEX(s, ' ', n) FROM f;
-- Regular expressions (a per-row pattern).
SELECT id, REGEXP(s, pat), REGEXP_COUNT(s, pat), REGEXP_INSTR(s, pat), REGEXP_SUBSTR(s, pat), REGEXP_REPLACE(s, pat, '#'), REGEXP_EXTRACT(s, '([a-z]+)[^a-z]+([a-z]+)', 2) FROM f;
-- Building strings.
SELECT id, INITCAP(s), REVERSE(s), LEFT(s, n), RIGHT(s, n), REPEAT(pat, n), CONCAT_WS('|', s, pat, CAST(n AS STRING)) FROM f;
SELECT id, TO_BASE64(s), FROM_BASE64(TO_BASE64(s)) = s, TRANSLATE(s, 'lo', 'L'), STARTSWITH(s, 'he'), ENDSWITH(s, 'ld'), BTRIM(s, 'fhr'), URL_ENCODE(s), URL_DECODE(URL_ENCODE(s)) = s FROM f;
SELECT id, PARSE_URL(s, 'HOST'), PARSE_URL(s, 'PATH'), PARSE_URL(s, 'QUERY'), PARSE_URL(s, 'QUERY', 'x'), PARSE_URL(s, 'REF'), PARSE_URL(s, 'PROTOCOL'), PARSE_URL(s, 'USERINFO'), PARSE_URL(s, 'AUTHORITY'), PARSE_URL(s, 'FILE') FROM f WHERE id = 6;
-- Classes: NULL is FALSE.
SELECT id, IS_ALPHA(s), IS_DIGIT(CAST(n AS STRING)), IS_DECIMAL(CAST(n AS STRING)) FROM f;
-- Math.
SELECT id, LN(n), LOG10(n), LOG2(n), LOG(2, n), EXP(n), SIGN(n), TRUNCATE(n * 1.55, 1), BIN(n), HEX(n), GREATEST(n, 1), LEAST(n, 1), IFNULL(n, 42) FROM f;
-- Digests.
SELECT id, MD5(s), SHA1(s), SHA256(s), SHA2(s, 224) = SHA224(s) FROM f WHERE id <= 2;
-- Date and time fields, EXTRACT, TIMESTAMPADD, TIMESTAMPDIFF.
SELECT id, YEAR(d), QUARTER(d), MONTH(d), WEEK(d), DAYOFYEAR(d), DAYOFMONTH(d), DAYOFWEEK(d), HOUR(ts), MINUTE(ts), SECOND(ts), EXTRACT(DOY FROM ts) FROM f;
SELECT id, TIMESTAMPADD(MONTH, n, d), TIMESTAMPADD(HOUR, n, ts), TIMESTAMPDIFF(DAY, ts, TIMESTAMP '2021-01-01 00:00:00'), TIMESTAMPDIFF(MONTH, d, DATE '2021-01-01') FROM f;
SELECT id, FLOOR(ts TO HOUR), CEIL(ts TO DAY), FLOOR(d TO YEAR), CEIL(d TO QUARTER) FROM f;
