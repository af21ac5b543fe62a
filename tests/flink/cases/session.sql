-- SESSION windows (table-valued function) and the group-window functions
-- (GROUP BY TUMBLE/HOP/SESSION(...), *_START/_END/_ROWTIME) over
-- tests/sql/data/sessions.csv (out of order within the 10 s watermark delay).
SET 'parallelism.default' = '1';
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE s (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/sessions.csv', 'format' = 'csv');
SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS total, MIN(v) AS lo, MAX(v) AS hi
FROM TABLE(SESSION(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY k, window_start, window_end;
SELECT window_start, window_end, COUNT(*) AS n, COUNT(DISTINCT k) AS keys
FROM TABLE(SESSION(TABLE s, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end;
SELECT k, window_start, window_end, window_time, COUNT(*) AS n
FROM TABLE(SESSION(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, k, window_time;
-- Group-window functions.
SELECT k, SESSION_START(ts, INTERVAL '3' SECOND) AS ss, SESSION_END(ts, INTERVAL '3' SECOND) AS se,
       SESSION_ROWTIME(ts, INTERVAL '3' SECOND) AS sr, COUNT(*) AS n, SUM(v) AS total
FROM s GROUP BY k, SESSION(ts, INTERVAL '3' SECOND);
SELECT TUMBLE_START(ts, INTERVAL '5' SECOND) AS ws, TUMBLE_END(ts, INTERVAL '5' SECOND) AS we,
       TUMBLE_ROWTIME(ts, INTERVAL '5' SECOND) AS wr, COUNT(*) AS n, SUM(v) AS total
FROM s GROUP BY TUMBLE(ts, INTERVAL '5' SECOND);
SELECT k, HOP_START(ts, INTERVAL '2' SECOND, INTERVAL '4' SECOND) AS hs,
       HOP_END(ts, INTERVAL '2' SECOND, INTERVAL '4' SECOND) AS he, COUNT(*) AS n
FROM s WHERE k IN ('a', 'b') GROUP BY HOP(ts, INTERVAL '2' SECOND, INTERVAL '4' SECOND), k;
-- A group window over a group window's rowtime.
SELECT TUMBLE_START(rt, INTERVAL '10' SECOND) AS ws, SUM(n) AS n
FROM (SELECT TUMBLE_ROWTIME(ts, INTERVAL '5' SECOND) AS rt, COUNT(*) AS n
      FROM s GROUP BY TUMBLE(ts, INTERVAL '5' SECOND))
GROUP BY TUMBLE(rt, INTERVAL '10' SECOND);
