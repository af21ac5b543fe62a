-- Flink's built-in scalar functions (exec/eval_str.c, exec/eval_math.c):
-- constant calls (folded when the statement is compiled) and the same
-- functions over the rows of a file (evaluated per chunk, NULLs included),
-- edge cases and errors. The results were checked against Flink 2.2.
SET 'parallelism.default' = '1';
-- '-' in the file stands for NULL (Flink's csv reads an empty field as '').
CREATE TABLE funcs_raw (id INT, s STRING, pat STRING, n STRING, d STRING, ts STRING)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/funcs.csv', 'format' = 'csv');
CREATE VIEW f AS SELECT id, NULLIF(s, '-') AS s, pat, CAST(NULLIF(n, '-') AS INT) AS n,
  CAST(NULLIF(d, '-') AS DATE) AS d, CAST(NULLIF(ts, '-') AS TIMESTAMP(3)) AS ts FROM funcs_raw;
-- Positions and splitting.
SELECT id, LOCATE('o', s), LOCATE('o', s, 6), INSTR(s, 'l'), POSITION('l' IN s), SPLIT_INDEX(s, '.', 1), SPLIT_INDEX(s, ' ', n) FROM f;
SELECT LOCATE('b', 'abcb'), LOCATE('b', 'abcb', 3), LOCATE('b', 'abcb', 0), LOCATE('b', 'abcb', 9), LOCATE('', 'abc'), LOCATE('', 'abc', 2), INSTR('abcb', 'b'), INSTR('abc', ''), INSTR('', '');
SELECT SPLIT_INDEX('a,b,,c', ',', 2), SPLIT_INDEX('a,b,,c', ',', 3), SPLIT_INDEX('a,b', ',', 5), SPLIT_INDEX('a,b', ',', -1), SPLIT_INDEX('a b', '', 1), SPLIT_INDEX('', ',', 0), SPLIT_INDEX('abc', ',', 0);
-- Regular expressions (a per-row pattern, and constant ones).
SELECT id, REGEXP(s, pat), REGEXP_COUNT(s, pat), REGEXP_INSTR(s, pat), REGEXP_SUBSTR(s, pat), REGEXP_REPLACE(s, pat, '#'), REGEXP_EXTRACT(s, '([a-z]+)[^a-z]+([a-z]+)', 2) FROM f;
SELECT REGEXP_REPLACE('foobar', 'o(o)', '[$1]'), REGEXP_REPLACE('abc', 'x*', '-'), REGEXP_REPLACE('baaac', 'a*', '-');
SELECT REGEXP_EXTRACT('foothebar', 'foo(.*?)(bar)', 2), REGEXP_EXTRACT('foothebar', 'foo(.*?)(bar)'), REGEXP_EXTRACT('foothebar', 'x(y)', 1), REGEXP_EXTRACT('abc', '(a)', 3);
SELECT REGEXP('abc', 'b'), REGEXP('abc', ''), REGEXP('abc', '^b'), REGEXP_COUNT('abcabc', 'b'), REGEXP_COUNT('abc', ''), REGEXP_INSTR('xxabc', 'ab'), REGEXP_INSTR('x', 'y'), REGEXP_SUBSTR('xxabc', 'a.'), REGEXP_SUBSTR('x', 'y');
SELECT REGEXP('a1b22', '\d{2}'), REGEXP_EXTRACT('key=val', '(?<k>\w+)=(\w+)', 2), REGEXP('ABC', '(?i)abc');
-- Building strings.
SELECT id, INITCAP(s), REVERSE(s), LEFT(s, n), RIGHT(s, n), REPEAT(pat, n), CONCAT_WS('|', s, pat, CAST(n AS STRING)) FROM f;
SELECT INITCAP('hELLO wORLD-foo_bar x1y'), REPEAT('ab', 3), REPEAT('ab', -1), REPEAT('', 5), REVERSE('abcé'), LEFT('abcdef', 2), LEFT('abc', -1), RIGHT('abcdef', 2), RIGHT('abc', 10), LEFT('abc', 10);
SELECT CONCAT_WS('~', 'AA', CAST(NULL AS STRING), 'BB', '', 'CC'), CONCAT_WS(CAST(NULL AS STRING), 'a'), ASCII('abc'), ASCII(''), ASCII('é'), CHR(97), CHR(353), CHR(-1), CHR(255);
SELECT id, TO_BASE64(s), FROM_BASE64(TO_BASE64(s)) = s, TRANSLATE(s, 'lo', 'L'), STARTSWITH(s, 'he'), ENDSWITH(s, 'ld'), BTRIM(s, 'fhr'), URL_ENCODE(s), URL_DECODE(URL_ENCODE(s)) = s FROM f;
SELECT TO_BASE64('hello world'), FROM_BASE64('aGVsbG8gd29ybGQ='), FROM_BASE64(''), TO_BASE64('');
SELECT TRANSLATE('abcabc', 'ab', 'x'), TRANSLATE('abc', '', 'x'), STARTSWITH('abc', 'ab'), STARTSWITH('abc', ''), ENDSWITH('abc', 'bc'), BTRIM('  ab  '), BTRIM('xxabxx', 'x'), BTRIM('xyabyx', 'xy');
SELECT URL_ENCODE('a b&c=d/é~*'), URL_DECODE('a+b%26c%3Dd'), URL_DECODE('%zz'), URL_ENCODE('');
SELECT id, PARSE_URL(s, 'HOST'), PARSE_URL(s, 'PATH'), PARSE_URL(s, 'QUERY'), PARSE_URL(s, 'QUERY', 'x'), PARSE_URL(s, 'REF'), PARSE_URL(s, 'PROTOCOL'), PARSE_URL(s, 'USERINFO'), PARSE_URL(s, 'AUTHORITY'), PARSE_URL(s, 'FILE') FROM f WHERE id = 6;
SELECT PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'HOST'), PARSE_URL('http://facebook.com/path1/p.php?k1=v1&k2=v2#Ref1', 'QUERY', 'k1'), PARSE_URL('x', 'HOST'), PARSE_URL('http://a.com/p', 'BAD');
-- Classes: NULL is FALSE.
SELECT id, IS_ALPHA(s), IS_DIGIT(CAST(n AS STRING)), IS_DECIMAL(CAST(n AS STRING)) FROM f;
SELECT IS_ALPHA('abc'), IS_ALPHA('ab1'), IS_ALPHA(''), IS_DIGIT('123'), IS_DIGIT(''), IS_DECIMAL('1.5e3'), IS_DECIMAL('abc'), IS_DECIMAL(''), IS_DECIMAL(' 1');
-- Math.
SELECT id, LN(n), LOG10(n), LOG2(n), LOG(2, n), EXP(n), SIGN(n), TRUNCATE(n * 1.55, 1), BIN(n), HEX(n), GREATEST(n, 1), LEAST(n, 1), IFNULL(n, 42) FROM f;
SELECT LN(1), LOG10(100), LOG2(8), LOG(8), LOG(2, 8), LOG(-1), LOG(0), LN(0), EXP(1), SIN(0), COS(0), TAN(0), COT(1), ASIN(2), ACOS(1), ATAN(1), ATAN2(1, 1), DEGREES(PI()), RADIANS(180), SINH(0), COSH(0), TANH(0);
SELECT SIGN(-5), SIGN(0), SIGN(2.5), SIGN(CAST(-2.5 AS DOUBLE)), PI(), E(), TRUNCATE(CAST(-1234.5 AS DOUBLE), -2), TRUNCATE(5, -9223372036854775807 - 1), TRUNCATE(42.324, 2), TRUNCATE(42.324), TRUNCATE(-42.5), TRUNCATE(1234, -2), TRUNCATE(CAST(42.324 AS DOUBLE), 1), BIN(4), HEX(20), HEX('hello,world'), HEX(-1);
SELECT IFNULL(CAST(NULL AS INT), 5), GREATEST(1, 3, 2), LEAST(1, 3, 2), GREATEST(1, CAST(NULL AS INT)), GREATEST('a', 'b'), GREATEST(1, 2.5);
SELECT RAND_INTEGER(1, 10), RAND(1) < 1, CHAR_LENGTH(UUID());
-- Digests.
SELECT id, MD5(s), SHA1(s), SHA256(s), SHA2(s, 224) = SHA224(s) FROM f WHERE id <= 2;
SELECT MD5('abc'), SHA1('abc'), SHA224('abc'), SHA256('abc'), SHA2('abc', 256), SHA384(''), SHA512('');
-- Date and time fields, EXTRACT, TIMESTAMPADD, TIMESTAMPDIFF.
SELECT id, YEAR(d), QUARTER(d), MONTH(d), WEEK(d), DAYOFYEAR(d), DAYOFMONTH(d), DAYOFWEEK(d), HOUR(ts), MINUTE(ts), SECOND(ts), EXTRACT(DOY FROM ts) FROM f;
SELECT YEAR(DATE '1994-09-27'), QUARTER(DATE '1994-09-27'), MONTH(DATE '1994-09-27'), WEEK(DATE '1994-09-27'), DAYOFYEAR(DATE '1994-09-27'), DAYOFMONTH(DATE '1994-09-27'), DAYOFWEEK(DATE '1994-09-27'), HOUR(TIMESTAMP '1994-09-27 13:14:15'), MINUTE(TIMESTAMP '1994-09-27 13:14:15'), SECOND(TIMESTAMP '1994-09-27 13:14:15'), WEEK(DATE '2021-01-01');
SELECT EXTRACT(YEAR FROM DATE '2020-05-06'), EXTRACT(DOW FROM TIMESTAMP '2020-05-06 10:00:00'), EXTRACT(HOUR FROM TIMESTAMP '2020-05-06 10:00:00'), EXTRACT(QUARTER FROM DATE '2020-05-06'), EXTRACT(WEEK FROM DATE '2020-05-06');
SELECT id, TIMESTAMPADD(MONTH, n, d), TIMESTAMPADD(HOUR, n, ts), TIMESTAMPDIFF(DAY, ts, TIMESTAMP '2021-01-01 00:00:00'), TIMESTAMPDIFF(MONTH, d, DATE '2021-01-01') FROM f;
SELECT TIMESTAMPADD(DAY, 3, DATE '2020-01-30'), TIMESTAMPADD(MONTH, 1, TIMESTAMP '2020-01-31 10:00:00'), TIMESTAMPADD(WEEK, -1, TIMESTAMP '2020-01-01 00:00:00'), TIMESTAMPDIFF(MONTH, DATE '2020-01-31', DATE '2020-02-29'), TIMESTAMPDIFF(MONTH, TIMESTAMP '2020-01-31 10:00:00', TIMESTAMP '2020-02-29 09:00:00'), TIMESTAMPDIFF(MONTH, DATE '2020-03-31', DATE '2020-02-29'), TIMESTAMPDIFF(QUARTER, DATE '2020-01-15', DATE '2021-01-14'), TIMESTAMPDIFF(DAY, TIMESTAMP '2020-01-01 10:00:00', TIMESTAMP '2020-01-03 09:00:00'), TIMESTAMPDIFF(YEAR, DATE '2021-01-01', DATE '2020-01-02'), TIMESTAMPDIFF(HOUR, TIMESTAMP '2020-01-01 00:00:00', TIMESTAMP '2019-12-31 22:30:00');
SELECT FLOOR(TIMESTAMP '2020-05-17 12:44:31' TO MINUTE), CEIL(TIMESTAMP '2020-05-17 12:44:31' TO MINUTE), FLOOR(TIMESTAMP '2020-05-17 12:44:31' TO QUARTER), CEIL(TIMESTAMP '2020-05-17 12:44:31' TO YEAR), FLOOR(DATE '2020-05-17' TO MONTH), CEIL(DATE '2020-05-17' TO MONTH), CEIL(DATE '2020-05-01' TO MONTH), CEIL(TIMESTAMP '2020-05-17 00:00:00' TO DAY), FLOOR(TIMESTAMP '1969-12-31 23:59:59.5' TO SECOND);
SELECT id, FLOOR(ts TO HOUR), CEIL(ts TO DAY), FLOOR(d TO YEAR), CEIL(d TO QUARTER) FROM f;
-- NULL in, NULL out.
SELECT LOCATE(CAST(NULL AS STRING), 'a'), REGEXP(CAST(NULL AS STRING), 'a'), REGEXP_REPLACE('a', CAST(NULL AS STRING), 'b'), INITCAP(CAST(NULL AS STRING)), LN(CAST(NULL AS DOUBLE)), MD5(CAST(NULL AS STRING)), YEAR(CAST(NULL AS DATE)), GREATEST(1, CAST(NULL AS INT)), CONCAT_WS('-', CAST(NULL AS STRING), 'a');
-- Errors: an invalid pattern (when the statement is compiled, and per row),
-- a bad digest length, bad base64, an unknown unit, a bound that is not positive.
SELECT REGEXP('a', '(');
SELECT id, REGEXP(s, CONCAT(pat, '(')) FROM f;
SELECT SHA2('abc', 100);
SELECT FROM_BASE64('!!!');
SELECT EXTRACT(FORTNIGHT FROM DATE '2020-01-01');
SELECT TIMESTAMPDIFF(DOW, DATE '2020-01-01', DATE '2020-01-02');
SELECT FLOOR(TIMESTAMP '2020-05-17 12:44:31' TO WEEK);
SELECT CEIL(1 TO DAY);
SELECT id, RAND_INTEGER(n) FROM f WHERE n <= 0;
SELECT LOCATE('a');
SELECT SUBSTRING('abc' IN 'b');
-- Long and invalid UTF-8 input: no crash.
SELECT CHAR_LENGTH(REPEAT('ab', 1000000)), REGEXP_COUNT(REPEAT('ab', 100000), 'b'), REVERSE(FROM_BASE64('w2E=')) IS NOT NULL, CHAR_LENGTH(FROM_BASE64('w2E=')), UPPER(INITCAP(FROM_BASE64('w2Hi')));
SELECT REGEXP(FROM_BASE64('AGE='), FROM_BASE64('AGE=')), REGEXP_COUNT('a', FROM_BASE64('AGE=')), REGEXP_COUNT(REPEAT('a', 30), '(a+)+b'), REGEXP_COUNT(REPEAT('é', 10) || FROM_BASE64('ww==') || 'éa', 'é'), REGEXP_REPLACE(FROM_BASE64('ww==') || 'abc', 'b', 'x');
