-- golden: sort-results
-- Processing time: PROCTIME() as a computed column or in a select list is a
-- processing-time attribute; windows over it close as the clock passes their
-- end (the job's watermark is the processing time), as Flink's
-- processing-time windows do. Which window a row falls into depends on when
-- it is read; what does not: every row counted once, in several windows.
CREATE TABLE gen (id BIGINT, k INT, pt AS PROCTIME()) WITH ('connector' = 'datagen',
  'rows-per-second' = '300', 'number-of-rows' = '600', 'fields.id.kind' = 'sequence',
  'fields.id.start' = '1', 'fields.id.end' = '600', 'fields.k.min' = '0', 'fields.k.max' = '2');
DESCRIBE gen;
SELECT SUM(n) AS total, COUNT(*) >= 2 AS several FROM (
  SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(pt), INTERVAL '1' SECOND))
  GROUP BY window_start, window_end);
-- Flink's group-window form over a PROCTIME() of a subquery (Nexmark q12).
SELECT SUM(n) AS total, COUNT(DISTINCT k) AS ks FROM (
  SELECT k, COUNT(*) AS n, TUMBLE_START(p_time, INTERVAL '1' SECOND) AS s
  FROM (SELECT *, PROCTIME() AS p_time FROM gen) GROUP BY k, TUMBLE(p_time, INTERVAL '1' SECOND));
-- Errors: PROCTIME() takes no argument; a watermark on it; windows over both kinds of time.
SELECT PROCTIME(1) FROM gen;
CREATE TABLE bad (id BIGINT, pt AS PROCTIME(), WATERMARK FOR pt AS pt) WITH ('connector' = 'datagen');
CREATE TABLE ev (id BIGINT, ts TIMESTAMP(3), pt AS PROCTIME(), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT a.window_start FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' SECOND)) a
UNION ALL SELECT b.window_start FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(pt), INTERVAL '1' SECOND)) b;
