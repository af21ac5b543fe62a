-- Binary string literals X'..' (Flink SQL): BINARY(n) of n bytes, any bytes,
-- compared, cast, stored and printed back; bad ones are errors with a position.
SET 'parallelism.default' = '1';
SET 'table.dml-sync' = 'true';
SELECT X'0A1B', x'00ff', X'', X'DeadBeef';
CREATE VIEW lits AS SELECT X'0A1B' AS two, x'ff' AS one, X'' AS empty, CAST(X'00' AS BYTES) AS b, X'0a' || X'1b00' AS cat;
DESCRIBE lits;
SHOW CREATE VIEW lits;
-- comparison: byte by byte, unsigned; a prefix sorts first; digits in either case
SELECT X'0a1b' = X'0A1B', X'01' < X'02', X'ff' > X'7f', X'00' < X'0000', X'' < X'00', X'0102' <> X'0103';
SELECT X'0a' IN (X'0b', X'0A'), X'0c' NOT IN (X'0b', X'0a'), X'01' BETWEEN X'00' AND X'02';
SELECT CASE WHEN X'01' > X'00' THEN X'aa' ELSE X'bbcc' END, COALESCE(CAST(NULL AS BYTES), X'00ff');
-- || joins bytes (BINARY(n) || BINARY(m) is BINARY(n + m))
SELECT X'0a' || X'1b00', X'00' || CAST(X'ff' AS BYTES), X'00' || NULL;
-- CAST: bytes of UTF-8 text to STRING and back; to a shorter VARBINARY cuts
SELECT CAST(X'616263' AS STRING), CAST(X'c3a9' AS VARCHAR(5)), CAST('abc' AS BYTES), CAST(X'00ff10' AS VARBINARY(2));
-- stored and read back (CSV keeps bytes as base64), NUL included
CREATE TABLE src (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '4',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '4');
CREATE TABLE bin_out (id INT, b BYTES) WITH ('connector' = 'filesystem', 'path' = '@TMP@/bin', 'format' = 'csv');
INSERT INTO bin_out SELECT id, CASE id WHEN 1 THEN X'00' WHEN 2 THEN X'0aff00' WHEN 3 THEN X'' ELSE CAST(NULL AS BYTES) END FROM src;
SELECT * FROM bin_out;
SELECT id FROM bin_out WHERE b = X'0AFF00' OR b IN (X'00');
SELECT id, b > X'00' AS gt FROM bin_out WHERE b IS NOT NULL;
EXPLAIN SELECT id FROM bin_out WHERE b = X'0aff00' OR b < X'';
-- errors: a character that is not a hex digit (spaces included), an odd count
SELECT X'0G';
SELECT X'0a 1b';
SELECT 'é', X'0é';
SELECT X'abc';
-- no implicit conversion between bytes and text; no string functions on bytes
SELECT X'00' = '00';
SELECT X'0a' || 'b';
SELECT CHAR_LENGTH(X'0a1b');
-- no end quote (last: the rest of the file would be inside it)
SELECT X'0a1b