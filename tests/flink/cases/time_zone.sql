-- TIMESTAMP_LTZ and time functions in a session time zone with daylight
-- saving time (America/New_York), over tests/sql/data/funcs.csv.
SET 'parallelism.default' = '1';
SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE funcs_raw (id INT, s STRING, pat STRING, n STRING, d STRING, ts STRING)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/funcs.csv', 'format' = 'csv');
CREATE VIEW f AS SELECT id, CAST(NULLIF(d, '-') AS DATE) AS d, CAST(NULLIF(ts, '-') AS TIMESTAMP(3)) AS ts
  FROM funcs_raw;
SELECT id, ts, CAST(ts AS TIMESTAMP_LTZ(3)) AS ltz, CAST(CAST(ts AS TIMESTAMP_LTZ(3)) AS STRING) AS ltzs,
  UNIX_TIMESTAMP(CAST(ts AS STRING)) AS ux, FROM_UNIXTIME(UNIX_TIMESTAMP(CAST(ts AS STRING))) AS back,
  TO_TIMESTAMP_LTZ(1000 * id, 3) AS from_millis, TO_TIMESTAMP_LTZ(86400 * id, 0) AS from_secs,
  DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss') AS df,
  EXTRACT(HOUR FROM CAST(ts AS TIMESTAMP_LTZ(3))) AS h_ltz
FROM f WHERE ts IS NOT NULL;
-- CONVERT_TZ (listed in expected_differences.txt: Sluice does not have it).
SELECT id, CONVERT_TZ(CAST(ts AS STRING), 'UTC', 'Asia/Tokyo') AS tokyo FROM f WHERE ts IS NOT NULL;
-- CONVERT_TZ's edges: text after the seconds ignored, single digits, text
-- that does not parse (NULL), daylight-saving gaps and overlaps (java.util's
-- calendar: the later offset), fixed offsets, an unknown zone (GMT), NULLs.
SELECT CONVERT_TZ('2024-01-01 12:00:00.789', 'UTC', 'Asia/Tokyo') AS frac,
  CONVERT_TZ('2024-1-5 3:04:05', 'UTC', 'America/New_York') AS short_,
  CONVERT_TZ('2024-01-01', 'UTC', 'Asia/Tokyo') AS date_only, CONVERT_TZ('junk', 'UTC', 'UTC') AS junk,
  CONVERT_TZ('2024-03-10 02:30:00', 'America/New_York', 'UTC') AS gap,
  CONVERT_TZ('2024-11-03 01:30:00', 'America/New_York', 'UTC') AS overlap,
  CONVERT_TZ('2024-11-03 05:30:00', 'UTC', 'America/New_York') AS to_overlap,
  CONVERT_TZ('2024-06-01 00:00:00', 'GMT+05:30', 'GMT-08:00') AS fixed,
  CONVERT_TZ('2024-06-01 00:00:00', 'Not/AZone', 'Europe/Berlin') AS unknown_,
  CONVERT_TZ(CAST(NULL AS STRING), 'UTC', 'UTC') AS n1, CONVERT_TZ('2024-06-01 00:00:00', CAST(NULL AS STRING), 'UTC') AS n2;
SELECT id, CONVERT_TZ(CAST(ts AS STRING), 'America/New_York', 'Europe/London') AS ldn,
  CONVERT_TZ(DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss'), 'Asia/Kolkata', 'UTC') AS utc
FROM f;
-- SimpleDateFormat's lenient reading (CONVERT_TZ and UNIX_TIMESTAMP(string)):
-- values past their range carry over, blanks before a number are skipped.
SELECT CONVERT_TZ('2024-13-01 24:00:00', 'UTC', 'UTC') AS roll, CONVERT_TZ('2024-02-30 10:61:61', 'UTC', 'UTC') AS roll2,
  CONVERT_TZ('2024-01-01  1:02:03', 'UTC', 'UTC') AS blanks, CONVERT_TZ('2024-00-00 00:00:00', 'UTC', 'UTC') AS zeros,
  UNIX_TIMESTAMP('2024-1-1 0:0:0') AS ux_short, UNIX_TIMESTAMP('2024-12-32 00:00:00') AS ux_roll;
