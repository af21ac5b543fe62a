-- ARRAY and MAP values (Flink SQL): types, constructors, element access, the
-- collection functions, CAST, GROUP BY an array, JSON arrays and objects read
-- and written, errors with positions. Results checked against Flink 2.2.
SET 'parallelism.default' = '1';
SET 'table.dml-sync' = 'true';
-- constructors: the element type is the common type; NOT NULL values
SELECT ARRAY[1, 2, 3] AS a, ARRAY[1, 2.5] AS d, ARRAY['x', NULL] AS s, MAP['a', 1, 'b', 2] AS m, ARRAY[ARRAY[1], ARRAY[2, 3]] AS nest, MAP['k', ARRAY[1]] AS mnest;
CREATE VIEW ctor AS SELECT ARRAY[1, 2] AS a, MAP['k', 1] AS m, ARRAY[1, 2][1] AS e, CAST(NULL AS ARRAY<INT>) AS n, CAST(ARRAY[1] AS BIGINT ARRAY) AS p, MAP[1, ARRAY['x']] AS mm;
DESCRIBE ctor;
SHOW CREATE VIEW ctor;
-- access: 1-based; out of range and absent keys are NULL
SELECT ARRAY[1, 2, 3][2] AS e2, ARRAY[1, 2, 3][4] AS oor, MAP['a', 1]['a'] AS ma, MAP['a', 1]['z'] AS nokey, ARRAY[ARRAY[1], ARRAY[2, 3]][2][1] AS nested;
SELECT CARDINALITY(ARRAY[1, NULL]) AS c, CARDINALITY(MAP['a', 1]) AS cm, ELEMENT(ARRAY[7]) AS el, ELEMENT(ARRAY_SLICE(ARRAY[1], 2)) AS el0;
-- every function
SELECT ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], 2, 4) AS s1, ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], -2) AS s2, ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], 0, 0) AS s3, ARRAY_SLICE(ARRAY[1, 2, 3, 4, 5], 4, 2) AS s4, ARRAY_SLICE(ARRAY[1, 2, 3], 5, 9) AS s5;
SELECT SPLIT('a,b,,c', ',') AS p1, SPLIT('', ',') AS p2, SPLIT('abc', '') AS p3, SPLIT('abc', 'x') AS p4, SPLIT('a::b', '::') AS p5, SPLIT(CAST(NULL AS STRING), ',') AS p6;
SELECT ARRAY_JOIN(ARRAY['a', CAST(NULL AS STRING), 'c'], '-') AS j1, ARRAY_JOIN(ARRAY['a', CAST(NULL AS STRING), 'c'], '-', 'N') AS j2, ARRAY_MAX(ARRAY[3, 1, CAST(NULL AS INT)]) AS mx, ARRAY_MIN(ARRAY[3, 1, 2]) AS mn, ARRAY_MAX(ARRAY['b', 'ab']) AS smx, ARRAY_MIN(ARRAY[CAST(NULL AS DOUBLE)]) AS nmn;
SELECT ARRAY_DISTINCT(ARRAY[1, 2, 1, CAST(NULL AS INT), NULL]) AS d, ARRAY_REMOVE(ARRAY[1, 2, 1, CAST(NULL AS INT)], 1) AS r, ARRAY_UNION(ARRAY[1, 2, 2], ARRAY[3, 1]) AS u, ARRAY_CONCAT(ARRAY[1], ARRAY[2, 3], ARRAY[4]) AS cc, ARRAY_POSITION(ARRAY[5, 6, 7], 7) AS pos, ARRAY_POSITION(ARRAY[5], 1) AS pos0;
SELECT ARRAY_CONTAINS(ARRAY[1, CAST(NULL AS INT)], CAST(NULL AS INT)) AS cn, ARRAY_CONTAINS(ARRAY[1, 2], 2) AS c2, ARRAY_CONTAINS(ARRAY[1.5], 1) AS c3, ARRAY_CONTAINS(CAST(NULL AS ARRAY<INT>), 1) AS c4;
SELECT MAP_KEYS(MAP['a', 1, 'b', 2]) AS k, MAP_VALUES(MAP['a', 1, 'b', 2]) AS v, MAP_FROM_ARRAYS(ARRAY['x', 'y'], ARRAY[1, 2]) AS mf, MAP['a', 1, 'a', 2] AS dup, ARRAY_REVERSE(ARRAY[1, 2, 3]) AS rv, ARRAY_APPEND(ARRAY[1], 2) AS ap, ARRAY_PREPEND(ARRAY[1], 0) AS pp, ARRAY_APPEND(ARRAY[1], NULL) AS apn;
SELECT ARRAY_EXCEPT(ARRAY[1, 2, 2, 3, CAST(NULL AS INT), 4, 4], ARRAY[2, CAST(NULL AS INT)]) AS e, ARRAY_INTERSECT(ARRAY[1, 1, 2, CAST(NULL AS INT), 3], ARRAY[1, CAST(NULL AS INT), 3, 3]) AS i, MAP_UNION(MAP['a', 1, 'b', 2], MAP['b', 3, 'c', 4]) AS u, ARRAY_EXCEPT(ARRAY[1], CAST(NULL AS ARRAY<INT>)) AS en;
SELECT ARRAY_SORT(ARRAY[3, CAST(NULL AS INT), 1]) AS s1, ARRAY_SORT(ARRAY[3, CAST(NULL AS INT), 1], FALSE) AS s2, ARRAY_SORT(ARRAY[3, CAST(NULL AS INT), 1], TRUE, FALSE) AS s3, ARRAY_SORT(ARRAY['b', 'a', 'ab']) AS s4, ARRAY_SORT(ARRAY[5, 4, 3, 2, 1, 0, 9, 8, 7, 6, 5]) AS s5;
-- CAST: to STRING (Flink's text), between element types, TRY_CAST is NULL as a whole
SELECT CAST(ARRAY[1, 2] AS STRING) AS s, CAST(MAP['a', TRUE] AS STRING) AS m, CAST(ARRAY[1, 2] AS ARRAY<DOUBLE>) AS d, CAST(MAP[1, 'a'] AS MAP<STRING, STRING>) AS ms, CAST(NULL AS ARRAY<INT>) AS n, CAST(ARRAY['1', '2'] AS ARRAY<INT>) AS i;
SELECT TRY_CAST(ARRAY['1', 'x'] AS ARRAY<INT>) AS t, CAST(ARRAY[1.26] AS ARRAY<DECIMAL(3, 1)>) AS r, CAST(ARRAY[ARRAY[1]] AS ARRAY<ARRAY<STRING>>) AS nn;
SELECT CAST(ARRAY['1', 'x'] AS ARRAY<INT>);
-- equality by value
SELECT ARRAY[1, 2] = ARRAY[1, 2] AS eq, ARRAY[1, 2] <> ARRAY[2, 1] AS ne, MAP['a', 1] = MAP['a', 1] AS meq, ARRAY[1] = CAST(NULL AS ARRAY<INT>) AS nul;
SELECT ARRAY[1.5] = ARRAY[1.50] AS dec_eq, ARRAY[1] = ARRAY[CAST(1 AS BIGINT)] AS int_eq, MAP['a', 1.5] = MAP['a', 1.50] AS map_eq;
SELECT ARRAY[1] < ARRAY[2];
-- JSON: arrays and objects, NULL elements, nested; GROUP BY an array
CREATE TABLE items (id INT, tags ARRAY<STRING>, nums ARRAY<INT>, attrs MAP<STRING, INT>, nest ARRAY<ARRAY<INT>>, `dec` ARRAY<DECIMAL(5, 2)>, headers MAP<STRING, BYTES>) WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/arrays/items.json', 'format' = 'json');
SELECT * FROM items;
SELECT tags, COUNT(*) AS n, SUM(id) AS s FROM items GROUP BY tags;
SELECT id, tags[1] AS t1, attrs['x'] AS x, CARDINALITY(nums) AS c, nest[1][2] AS n12, ARRAY_CONTAINS(tags, 'b') AS hasb, ARRAY_JOIN(tags, '|') AS j, `dec`[2] AS d2, headers['k'] AS h FROM items;
SELECT id FROM items WHERE ARRAY_CONTAINS(nums, 5) OR attrs['x'] > 5;
SELECT ARRAY_DISTINCT(nums) AS d, ARRAY_MAX(nums) AS mx, MAP_KEYS(attrs) AS k FROM items;
-- ARRAY_AGG: NULLs kept, an empty group is NULL
SELECT ARRAY_AGG(id) AS ids, ARRAY_AGG(nums[1]) AS firsts, ARRAY_AGG(tags) AS tt, ARRAY_AGG(id) FILTER (WHERE id > 10) AS none FROM items;
SELECT id > 2 AS big, ARRAY_AGG(id) AS ids FROM items GROUP BY id > 2;
SELECT ARRAY_AGG(DISTINCT id) FROM items;
SELECT MAX(tags) FROM items;
SELECT a.id, b.id FROM items a JOIN items b ON a.tags = b.tags WHERE a.id < b.id;
SELECT * FROM items WHERE tags IN (ARRAY['b', 'a']);
CREATE TABLE items_out (id INT, tags ARRAY<STRING>, attrs MAP<STRING, INT>, nest ARRAY<ARRAY<INT>>, m MAP<INT, BOOLEAN>, d ARRAY<DOUBLE>) WITH ('connector' = 'filesystem', 'path' = '@TMP@/items_out', 'format' = 'json');
INSERT INTO items_out SELECT id, tags, attrs, nest, MAP[id, id > 2], CAST(nums AS ARRAY<DOUBLE>) FROM items;
SELECT * FROM items_out;
CREATE TABLE printed (id INT, tags ARRAY<STRING>, attrs MAP<STRING, INT>) WITH ('connector' = 'print');
INSERT INTO printed SELECT id, tags, attrs FROM items WHERE id < 3;
-- errors
SELECT ARRAY[1, 'a'];
SELECT MAP[1];
SELECT MAP['a', 1, 2, 2];
SELECT CARDINALITY(1);
SELECT ARRAY[1, 2][0];
SELECT ARRAY[1, 2]['a'];
SELECT MAP['a', 1][1];
SELECT ELEMENT(ARRAY[1, 2]);
SELECT MAP_FROM_ARRAYS(ARRAY[1], ARRAY[1, 2]);
SELECT CAST(ARRAY[1] AS INT);
SELECT CAST(1 AS ARRAY<INT>);
SELECT ARRAY_JOIN(ARRAY[1], ',');
SELECT ARRAY_MAX(ARRAY[ARRAY[1]]);
SELECT ARRAY_UNION(ARRAY[1], ARRAY['a']);
SELECT ARRAY[1] = ARRAY['a'];
CREATE TABLE r (a ARRAY<ROW<x INT>>) WITH ('connector' = 'print');
CREATE TABLE ms (a MULTISET<INT>) WITH ('connector' = 'print');
SELECT id FROM items CROSS JOIN UNNEST(id) AS u(x);
CREATE TABLE c (a ARRAY<INT>) WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/arrays/items.json', 'format' = 'csv');
SELECT * FROM c;
CREATE TABLE bad1 (id INT, nums ARRAY<INT>) WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/arrays/bad_string.json', 'format' = 'json');
SELECT * FROM bad1;
CREATE TABLE bad2 (id INT, nums ARRAY<INT>) WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/arrays/bad_elem.json', 'format' = 'json');
SELECT * FROM bad2;
-- json: a NULL map key fails the record (Flink's default), or is dropped, or written as a literal
CREATE TABLE nk_fail (m MAP<STRING, INT>) WITH ('connector' = 'filesystem', 'path' = '@TMP@/nk_fail', 'format' = 'json');
INSERT INTO nk_fail SELECT MAP[IF(id = 1, CAST(NULL AS STRING), 'k'), id, 'a', 2] FROM items WHERE id <= 2;
CREATE TABLE nk_drop (m MAP<STRING, INT>) WITH ('connector' = 'filesystem', 'path' = '@TMP@/nk_drop', 'format' = 'json', 'json.map-null-key.mode' = 'DROP');
INSERT INTO nk_drop SELECT MAP[IF(id = 1, CAST(NULL AS STRING), 'k'), id, 'a', 2] FROM items WHERE id <= 2;
SELECT * FROM nk_drop;
CREATE TABLE nk_lit (m MAP<STRING, INT>) WITH ('connector' = 'filesystem', 'path' = '@TMP@/nk_lit', 'format' = 'json', 'json.map-null-key.mode' = 'LITERAL', 'json.map-null-key.literal' = 'NUL');
INSERT INTO nk_lit SELECT MAP[IF(id = 1, CAST(NULL AS STRING), 'k'), id, 'a', 2] FROM items WHERE id <= 2;
SELECT * FROM nk_lit;
