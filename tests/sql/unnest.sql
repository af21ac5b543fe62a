-- UNNEST (Flink's Correlate): arrays and maps expanded into rows, correlated
-- to the left side of a join, over JSON files with empty and NULL arrays and
-- NULL elements (tests/sql/data/arrays). The same queries agree with Flink
-- 2.2 in tests/flink/cases/unnest.sql.
SET 'parallelism.default' = '1';
CREATE TABLE items (id INT, tags ARRAY<STRING>, nums ARRAY<INT>, attrs MAP<STRING, INT>, nest ARRAY<ARRAY<INT>>, `dec` ARRAY<DECIMAL(5, 2)>) WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/arrays/items.json', 'format' = 'json');
CREATE TABLE events (id INT, ts TIMESTAMP(3), `user` STRING, tags ARRAY<STRING>, scores MAP<STRING, INT>, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/arrays/events.json', 'format' = 'json');
-- the forms: CROSS JOIN, comma, INNER JOIN ... ON, LEFT JOIN ... ON TRUE
SELECT id, x FROM items CROSS JOIN UNNEST(nums) AS u(x);
SELECT id, tag FROM items, UNNEST(items.tags) AS t(tag);
SELECT id, x FROM items JOIN UNNEST(nums) AS u(x) ON x > 1;
SELECT id, x FROM items LEFT JOIN UNNEST(nums) AS u(x) ON TRUE;
-- LEFT JOIN ... ON cond: the elements it holds for, else one NULL row
SELECT id, x FROM items LEFT JOIN UNNEST(nums) AS u(x) ON x > id;
EXPLAIN SELECT id, x FROM items LEFT JOIN UNNEST(nums) AS u(x) ON x > id;
-- default names: EXPR$0 (or the alias) for an array, KEY and VALUE for a map, ORDINALITY
SELECT * FROM items CROSS JOIN UNNEST(tags);
SELECT id, u FROM items CROSS JOIN UNNEST(tags) AS u;
SELECT id, KEY, `VALUE` FROM items CROSS JOIN UNNEST(attrs);
SELECT id, k, v FROM items LEFT JOIN UNNEST(attrs) AS m(k, v) ON TRUE;
SELECT * FROM items CROSS JOIN UNNEST(nums) WITH ORDINALITY;
SELECT id, k, v, pos FROM items CROSS JOIN UNNEST(attrs) WITH ORDINALITY AS m(k, v, pos);
SELECT id, x, pos FROM items LEFT JOIN UNNEST(nums) WITH ORDINALITY AS u(x, pos) ON TRUE;
-- nested arrays, expressions, a filter and an aggregation above
SELECT id, inner_arr, x FROM items CROSS JOIN UNNEST(nest) AS a(inner_arr) CROSS JOIN UNNEST(inner_arr) AS b(x);
SELECT id, x FROM items, UNNEST(ARRAY[id, id * 10]) AS u(x);
SELECT id, d * 2 AS d2 FROM items CROSS JOIN UNNEST(`dec`) AS u(d) WHERE d > 0.2;
SELECT x, COUNT(*) AS n FROM items CROSS JOIN UNNEST(nums) AS u(x) GROUP BY x;
-- a comma join beside an UNNEST: the WHERE terms over the joined tables move below it, into the join
EXPLAIN SELECT a.id, x FROM items a, items b, UNNEST(a.nums) AS u(x) WHERE a.id = b.id AND x > 1;
-- UNNEST on its own
SELECT * FROM UNNEST(ARRAY[1, NULL, 3]) WITH ORDINALITY AS u(x, p);
SELECT * FROM UNNEST(MAP['a', 1, 'b', 2]);
SELECT * FROM UNNEST(CAST(NULL AS ARRAY<INT>));
SELECT * FROM UNNEST(ARRAY[1, 2]), UNNEST(ARRAY['a', 'b']);
-- an updating input: each -U / +U expands into as many rows
SELECT `user`, x, pos FROM (SELECT `user`, COUNT(*) AS n FROM events GROUP BY `user`) CROSS JOIN UNNEST(ARRAY[n, n * 10]) WITH ORDINALITY AS u(x, pos);
-- the rowtime survives UNNEST: a window TVF over its output
CREATE TEMPORARY VIEW tagged AS SELECT id, ts, tag FROM events CROSS JOIN UNNEST(tags) AS t(tag);
DESCRIBE tagged;
SELECT window_start, window_end, tag, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE tagged, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, tag;
EXPLAIN SELECT window_start, tag, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE tagged, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, tag;
EXPLAIN SELECT id, x FROM items LEFT JOIN UNNEST(ARRAY[id, 2 * id]) WITH ORDINALITY AS u(x, pos) ON TRUE;
-- a view keeps the form
CREATE VIEW kv AS SELECT id, k, v FROM items CROSS JOIN UNNEST(attrs) WITH ORDINALITY AS m(k, v, pos) WHERE pos = 1;
SHOW CREATE VIEW kv;
SELECT * FROM kv;
-- into a file and back
CREATE TABLE out_tags (id INT, tag STRING, pos INT) WITH ('connector' = 'filesystem', 'path' = '@TMP@/out_tags', 'format' = 'json');
INSERT INTO out_tags SELECT id, tag, pos FROM events CROSS JOIN UNNEST(tags) WITH ORDINALITY AS t(tag, pos);
SELECT * FROM out_tags;
-- errors
SELECT * FROM items CROSS JOIN UNNEST(id) AS u(x);
SELECT * FROM UNNEST(1.5) AS u(x);
SELECT * FROM items CROSS JOIN UNNEST(nums) AS u(x, y);
SELECT * FROM items CROSS JOIN UNNEST(attrs) WITH ORDINALITY AS u(k, v);
SELECT * FROM items CROSS JOIN UNNEST(nums, tags);
SELECT * FROM items RIGHT JOIN UNNEST(nums) AS u(x) ON TRUE;
SELECT * FROM items CROSS JOIN UNNEST(nope) AS u(x);
SELECT * FROM items CROSS JOIN UNNEST(nums) WITH ORDINALITYX AS u(x, p);
SELECT * FROM items CROSS JOIN generate_series(1, 2) AS g(x);
