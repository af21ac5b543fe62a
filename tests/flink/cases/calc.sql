-- Filter, projection, functions over tests/sql/data/topn.csv.
SET 'parallelism.default' = '1';
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE t (k STRING, id INT, v INT) WITH ('connector' = 'filesystem',
  'path' = '@SQLDATA@/topn.csv', 'format' = 'csv', 'csv.null-literal' = 'null');
SELECT k, id, v, v * 2 + 1 AS w, UPPER(k) AS uk, v IS NULL AS missing FROM t WHERE id > 3;
SELECT k, COUNT(*) AS n, SUM(v) AS s FROM t GROUP BY k;
