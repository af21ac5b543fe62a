-- Syntax errors name the token and point at it (line and column in -f mode).
SELEC 1;
SELECT * FROM;
CREATE TABLE t (a INT,) WITH ('connector' = 'blackhole');
SELECT "id" FROM t;
SELECT id
FROM t
WHERE a = = 1;
EXPLAIN DROP TABLE t;
SELECT 'unterminated;
