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
