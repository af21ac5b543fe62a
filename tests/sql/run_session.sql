-- SESSION windows (Flink SQL 2.2's SESSION window TVF with a window
-- aggregation) over tests/sql/data/sessions.csv: keys a..e, a 3-second gap.
-- Every result below was checked against Flink SQL 2.2 on the same file
-- (parallelism 1): identical rows and order (updating results: the same
-- final rows).
SET 'parallelism.default' = '1';
CREATE TABLE s (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/sessions.csv', 'format' = 'csv');
-- Per key: a row exactly a gap after the last one extends the session (a: 0, 2, 5 s);
-- a row between two sessions bridges them (b: 1, 7, then 4 s; c: 3, 6.5, then 5.999 s).
-- Sessions close in order of their end.
SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS total, MIN(v) AS lo, MAX(v) AS hi
FROM TABLE(SESSION(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY k, window_start, window_end;
-- Without PARTITION BY: one sequence of sessions; DISTINCT and LISTAGG see all of a session's rows.
SELECT window_start, window_end, COUNT(*) AS n, COUNT(DISTINCT k) AS keys, LISTAGG(k) AS ks
FROM TABLE(SESSION(TABLE s, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY window_start, window_end;
-- Named arguments; window_time (= window_end - 1 ms) may be grouped and selected.
SELECT k, window_start, window_end, window_time, COUNT(*) AS n
FROM TABLE(SESSION(DATA => TABLE s PARTITION BY k, TIMECOL => DESCRIPTOR(ts), GAP => INTERVAL '3' SECOND))
GROUP BY window_start, window_end, k, window_time;
SELECT window_start, COUNT(DISTINCT v) AS d
FROM TABLE(SESSION(TABLE s PARTITION BY (k), DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end, k;
-- Late rows (sessions_late.csv: 1024 rows of key x 100 ms apart — one chunk,
-- after which the watermark is 10:01:32.3 —, then five more): y at 10:00:00 and
-- 10:01:20 are late (their sessions would end before the watermark) and dropped;
-- x at 10:01:41 extends x's open session; z at 10:01:30 ends after the watermark.
CREATE TABLE sl (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/sessions_late.csv', 'format' = 'csv');
SELECT k, window_start, window_end, COUNT(*) AS n, MAX(v) AS last_v
FROM TABLE(SESSION(TABLE sl PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY k, window_start, window_end;
-- Into a file, at parallelism 2 (a hash exchange by the partition key).
SET 'parallelism.default' = '2';
CREATE TABLE sess_out (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/sess_out', 'format' = 'csv');
INSERT INTO sess_out SELECT k, window_start, window_end, COUNT(*)
FROM TABLE(SESSION(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY k, window_start, window_end;
SET 'parallelism.default' = '1';
SELECT COUNT(*) AS sessions, SUM(n) AS n, MIN(ws) AS first_start, MAX(we) AS last_end FROM sess_out;
EXPLAIN SELECT k, window_start, COUNT(*) AS n
FROM TABLE(SESSION(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY k, window_start, window_end;
-- The SESSION TVF on its own: each row once, with its session's bounds, when
-- the session closes (sessions in order of their end, a session's rows in
-- arrival order); a filter above it sees the sessions of all rows.
SELECT * FROM TABLE(SESSION(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND));
SELECT * FROM TABLE(SESSION(TABLE s, DESCRIPTOR(ts), INTERVAL '2' SECOND));
SELECT k, v, window_start, window_end
FROM TABLE(SESSION(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND)) WHERE v > 3;
SELECT window_start, window_end, k, ts, window_time
FROM TABLE(SESSION(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND)) WHERE k = 'c';
EXPLAIN SELECT * FROM TABLE(SESSION(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND));
-- Grouped by other keys than the PARTITION BY columns: as in Flink, a group
-- aggregation (updating; Flink emits +I/-U/+U per row, the final rows are
-- these) over the TVF's rows, which carry their session's bounds.
SELECT window_start, window_end, COUNT(*) AS n
FROM TABLE(SESSION(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY window_start, window_end;
SELECT k, window_start, window_end, COUNT(*) AS n
FROM TABLE(SESSION(TABLE s, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY k, window_start, window_end;
EXPLAIN SELECT k, window_start, window_end, COUNT(*) AS n
FROM TABLE(SESSION(TABLE s, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY k, window_start, window_end;
-- Into a file at parallelism 2: the TVF's rows by a hash exchange on k.
SET 'parallelism.default' = '2';
CREATE TABLE sess_rows (k STRING, v INT, ws TIMESTAMP(3), we TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/sess_rows', 'format' = 'csv');
INSERT INTO sess_rows SELECT k, v, window_start, window_end
FROM TABLE(SESSION(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND));
SET 'parallelism.default' = '1';
SELECT COUNT(*) AS n, COUNT(DISTINCT CONCAT(k, CAST(ws AS STRING), CAST(we AS STRING))) AS sessions,
       SUM(v) AS total, MIN(ws) AS first_start, MAX(we) AS last_end FROM sess_rows;
-- Errors.
SELECT window_start, COUNT(*) FROM TABLE(SESSION(TABLE s, DESCRIPTOR(ts))) GROUP BY window_start, window_end;
SELECT window_start, COUNT(*) FROM TABLE(SESSION(TABLE s, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '1' SECOND)) GROUP BY window_start, window_end;
SELECT window_start, COUNT(*) FROM TABLE(SESSION(TABLE s, DESCRIPTOR(ts), INTERVAL '0' SECOND)) GROUP BY window_start, window_end;
SELECT window_start, COUNT(*) FROM TABLE(SESSION(TABLE s PARTITION BY nope, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end;
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE s PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end;
SELECT window_start, COUNT(*) FROM TABLE(SESSION(TABLE s, DESCRIPTOR(ts), GAP => INTERVAL '1' SECOND, SIZE => INTERVAL '1' SECOND)) GROUP BY window_start, window_end;
SELECT window_start, COUNT(*) FROM TABLE(SESSION(TABLE s, DESCRIPTOR(v), INTERVAL '1' SECOND)) GROUP BY window_start, window_end;
