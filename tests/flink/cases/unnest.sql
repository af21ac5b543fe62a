-- UNNEST (Flink's Correlate): CROSS JOIN / comma / INNER JOIN / LEFT JOIN ...
-- ON TRUE over arrays and maps from JSON (tests/sql/data/arrays: empty and
-- NULL arrays, NULL elements, nested arrays), WITH ORDINALITY, over an
-- updating input, and a window TVF over UNNEST's output (the rowtime kept).
SET 'parallelism.default' = '1';
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE items (id INT, tags ARRAY<STRING>, nums ARRAY<INT>, attrs MAP<STRING, INT>,
  nest ARRAY<ARRAY<INT>>, `dec` ARRAY<DECIMAL(5, 2)>)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/arrays/items.json', 'format' = 'json');
CREATE TABLE events (id INT, ts TIMESTAMP(3), `user` STRING, tags ARRAY<STRING>,
  scores MAP<STRING, INT>, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/arrays/events.json', 'format' = 'json');
SELECT id, x FROM items CROSS JOIN UNNEST(nums) AS u(x);
SELECT id, tag FROM items, UNNEST(items.tags) AS t(tag);
SELECT id, x FROM items LEFT JOIN UNNEST(nums) AS u(x) ON TRUE;
SELECT id, x FROM items LEFT JOIN UNNEST(nums) AS u(x) ON x > 1;
SELECT id, k, v FROM items LEFT JOIN UNNEST(attrs) AS m(k, v) ON v > 1 OR k = 'z';
SELECT id, k, v FROM items CROSS JOIN UNNEST(attrs) AS m(k, v);
SELECT id, k, v FROM items LEFT JOIN UNNEST(attrs) AS m(k, v) ON TRUE;
SELECT * FROM items CROSS JOIN UNNEST(tags);
SELECT id, KEY, `VALUE` FROM items CROSS JOIN UNNEST(attrs);
SELECT id, tag, pos FROM items CROSS JOIN UNNEST(tags) WITH ORDINALITY AS t(tag, pos);
SELECT id, k, v, pos FROM items CROSS JOIN UNNEST(attrs) WITH ORDINALITY AS m(k, v, pos);
SELECT id, inner_arr, x FROM items CROSS JOIN UNNEST(nest) AS a(inner_arr)
  CROSS JOIN UNNEST(inner_arr) AS b(x);
SELECT id, d * 2 AS d2 FROM items CROSS JOIN UNNEST(`dec`) AS u(d) WHERE d > 0.2;
SELECT id, x FROM items JOIN UNNEST(nums) AS u(x) ON x > 1;
SELECT id, x FROM items, UNNEST(ARRAY[id, id * 10]) AS u(x);
-- flinkdiff: final-only (the GROUP BY emits per chunk in Sluice, per row in Flink)
SELECT x, COUNT(*) AS n FROM items CROSS JOIN UNNEST(nums) AS u(x) GROUP BY x;
SELECT a.id, b.id AS bid, x FROM items a, items b, UNNEST(a.nums) AS u(x) WHERE a.id = b.id AND x > 1;
SELECT * FROM UNNEST(ARRAY[1, NULL, 3]) WITH ORDINALITY AS u(x, p);
SELECT * FROM UNNEST(MAP['a', 1, 'b', 2]);
SELECT * FROM UNNEST(ARRAY[1, 2]) AS u, UNNEST(ARRAY['a', 'b']) AS v;
-- over an updating input: each -U / +U expands
-- flinkdiff: final-only (the GROUP BY emits per chunk in Sluice, per row in Flink)
SELECT `user`, x, pos FROM (SELECT `user`, COUNT(*) AS n FROM events GROUP BY `user`)
  CROSS JOIN UNNEST(ARRAY[n, n * 10]) WITH ORDINALITY AS u(x, pos);
-- the rowtime survives UNNEST: a window TVF and its aggregation over it
CREATE TEMPORARY VIEW tagged AS SELECT id, ts, tag FROM events CROSS JOIN UNNEST(tags) AS t(tag);
SELECT window_start, window_end, tag, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE tagged, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, tag;
-- flinkdiff: final-only (the GROUP BY emits per chunk in Sluice, per row in Flink)
SELECT `user`, k, SUM(v) AS s FROM events CROSS JOIN UNNEST(scores) AS m(k, v) GROUP BY `user`, k;
