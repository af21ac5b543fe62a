-- Flink's group window functions (GROUP BY TUMBLE / HOP / SESSION(time, ...)
-- with TUMBLE_START / _END / _ROWTIME etc.), as Nexmark q5, q7 and q11 write
-- them, over tests/sql/data/sessions.csv. Every result below was checked
-- against Flink SQL 2.2 on the same file (parallelism 1): identical rows, and
-- order except where noted.
SET 'parallelism.default' = '1';
CREATE TABLE s (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/sessions.csv', 'format' = 'csv');
-- Nexmark q11's form: sessions per key.
SELECT k, SESSION_START(ts, INTERVAL '3' SECOND) AS ss, SESSION_END(ts, INTERVAL '3' SECOND) AS se,
       SESSION_ROWTIME(ts, INTERVAL '3' SECOND) AS sr, COUNT(*) AS n, SUM(v) AS total
FROM s GROUP BY k, SESSION(ts, INTERVAL '3' SECOND);
-- q11 with a table alias and qualified columns.
SELECT B.k, COUNT(*) AS bid_count, SESSION_START(B.ts, INTERVAL '3' SECOND) AS starttime,
       SESSION_END(B.ts, INTERVAL '3' SECOND) AS endtime
FROM s B GROUP BY B.k, SESSION(B.ts, INTERVAL '3' SECOND);
-- q7's form: a tumbling window.
SELECT TUMBLE_START(ts, INTERVAL '5' SECOND) AS ws, TUMBLE_END(ts, INTERVAL '5' SECOND) AS we,
       TUMBLE_ROWTIME(ts, INTERVAL '5' SECOND) AS wr, COUNT(*) AS n, SUM(v) AS total
FROM s GROUP BY TUMBLE(ts, INTERVAL '5' SECOND);
-- HOP(time, slide, size): the slide comes first (the TVF's order too). Flink
-- lists the keys of one window in another order (a before b or b before a);
-- the rows are the same.
SELECT k, HOP_START(ts, INTERVAL '2' SECOND, INTERVAL '4' SECOND) AS hs,
       HOP_END(ts, INTERVAL '2' SECOND, INTERVAL '4' SECOND) AS he, COUNT(*) AS n
FROM s WHERE k IN ('a', 'b') GROUP BY HOP(ts, INTERVAL '2' SECOND, INTERVAL '4' SECOND), k;
-- *_ROWTIME is a time attribute: a window over the windows' results.
SELECT TUMBLE_START(rt, INTERVAL '10' SECOND) AS ws, SUM(n) AS n
FROM (SELECT TUMBLE_ROWTIME(ts, INTERVAL '5' SECOND) AS rt, COUNT(*) AS n
      FROM s GROUP BY TUMBLE(ts, INTERVAL '5' SECOND))
GROUP BY TUMBLE(rt, INTERVAL '10' SECOND);
-- The window need not be selected.
SELECT COUNT(*) AS n FROM s GROUP BY TUMBLE(ts, INTERVAL '5' SECOND);
EXPLAIN SELECT k, SESSION_END(ts, INTERVAL '3' SECOND) AS se, COUNT(*) AS n
FROM s GROUP BY k, SESSION(ts, INTERVAL '3' SECOND);
-- Errors. An auxiliary function needs the same call in GROUP BY (Flink: "Call
-- to auxiliary group function 'TUMBLE_START' must have matching call to group
-- function '$TUMBLE' in GROUP BY clause").
SELECT TUMBLE_START(ts, INTERVAL '6' SECOND) AS ws, COUNT(*) AS n FROM s GROUP BY TUMBLE(ts, INTERVAL '5' SECOND);
SELECT HOP_START(ts, INTERVAL '2' SECOND, INTERVAL '4' SECOND) AS ws, COUNT(*) AS n FROM s GROUP BY k;
-- Flink gives NULL for TUMBLE_PROCTIME over an event-time window; Sluice has no processing time yet.
SELECT TUMBLE_PROCTIME(ts, INTERVAL '5' SECOND) AS ws, COUNT(*) AS n FROM s GROUP BY TUMBLE(ts, INTERVAL '5' SECOND);
SELECT COUNT(*) FROM s GROUP BY TUMBLE(v, INTERVAL '5' SECOND);
SELECT COUNT(*) FROM s GROUP BY TUMBLE(ts);
SELECT COUNT(*) FROM s GROUP BY HOP(ts, INTERVAL '3' SECOND, INTERVAL '4' SECOND);
SELECT COUNT(*) FROM s GROUP BY TUMBLE(ts, INTERVAL '5' SECOND), SESSION(ts, INTERVAL '5' SECOND);
SELECT COUNT(*) FROM s GROUP BY UPPER(k), SESSION(ts, INTERVAL '5' SECOND);
