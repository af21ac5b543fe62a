-- 'sql-client.execution.result-mode' over an insert-only and an updating
-- query: 'tableau' (the default: rows as they arrive, the op column when the
-- result updates), 'changelog' (every change with its op column), 'table'
-- (the final table: updates applied, no op column). How an updating
-- query's changes split into chunks depends on timing: results are compared
-- sorted, updating ones (op column) as their final rows.
-- golden: sort-results
SET 'parallelism.default' = '1';
CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '6',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '6');
-- tableau
SELECT id % 2 AS k, COUNT(*) AS n, SUM(id) AS s FROM nums GROUP BY id % 2;
SELECT id FROM nums WHERE id > 4;
SET 'sql-client.execution.result-mode' = 'changelog';
SELECT id % 2 AS k, COUNT(*) AS n, SUM(id) AS s FROM nums GROUP BY id % 2;
SELECT id FROM nums WHERE id > 4;
SET 'sql-client.execution.result-mode' = 'table';
SELECT id % 2 AS k, COUNT(*) AS n, SUM(id) AS s FROM nums GROUP BY id % 2;
SELECT id FROM nums WHERE id > 4;
-- Every group's final row, NULL keys included.
SELECT CASE WHEN id < 3 THEN NULL ELSE id % 3 END AS k, COUNT(*) AS n FROM nums
GROUP BY CASE WHEN id < 3 THEN NULL ELSE id % 3 END;
-- Groups that empty (-D) are gone from the final table: how many keys have
-- each count (every key ends at 3); its changelog first.
SET 'sql-client.execution.result-mode' = 'changelog';
SELECT n, COUNT(*) AS keys FROM (SELECT id % 2 AS k, COUNT(*) AS n FROM nums GROUP BY id % 2)
GROUP BY n;
SET 'sql-client.execution.result-mode' = 'table';
SELECT n, COUNT(*) AS keys FROM (SELECT id % 2 AS k, COUNT(*) AS n FROM nums GROUP BY id % 2)
GROUP BY n;
SET 'sql-client.execution.result-mode' = 'TABLEAU';
SELECT id % 3 AS k, MAX(id) AS m FROM nums GROUP BY id % 3;
SET 'sql-client.execution.result-mode' = 'paged';
