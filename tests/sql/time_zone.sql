-- 'table.local-time-zone': conversions between instants (TIMESTAMP_LTZ,
-- epoch seconds) and local date-times follow the session's zone, with
-- java.time's rules in a daylight-saving gap (moved forward by the gap) and
-- overlap (the earlier offset). The golden runner's machine zone is UTC.
SET 'parallelism.default' = '1';
CREATE TABLE one (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '1',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1');
-- 'default' is the machine's zone (UTC here).
SELECT FROM_UNIXTIME(0) AS epoch, FROM_UNIXTIME(1700000000, 'yyyy-MM-dd HH:mm') AS t,
       UNIX_TIMESTAMP('1970-01-02 00:00:00') AS day_one FROM one;
SET 'table.local-time-zone' = 'Asia/Shanghai';
SELECT FROM_UNIXTIME(0) AS epoch, FROM_UNIXTIME(1700000000, 'yyyy-MM-dd HH:mm') AS t,
       UNIX_TIMESTAMP('1970-01-02 00:00:00') AS day_one FROM one;
SET 'table.local-time-zone' = 'America/Los_Angeles';
SELECT FROM_UNIXTIME(0) AS epoch, FROM_UNIXTIME(1700000000, 'yyyy-MM-dd HH:mm') AS t,
       UNIX_TIMESTAMP('1970-01-02 00:00:00') AS day_one FROM one;
-- TIMESTAMP_LTZ values are shown in the session's zone; CASTs convert.
SET 'table.local-time-zone' = 'Europe/Berlin';
SELECT CAST(TIMESTAMP '2026-07-01 12:00:00' AS TIMESTAMP_LTZ(0)) AS ltz,
       UNIX_TIMESTAMP(CAST(CAST(TIMESTAMP '2026-07-01 12:00:00' AS TIMESTAMP_LTZ(0)) AS STRING)) AS secs,
       CAST(TIMESTAMP_LTZ '2026-01-01 00:00:00' AS TIMESTAMP(0)) AS local_ts,
       CAST(CAST(TIMESTAMP '2026-01-01 00:30:00' AS TIMESTAMP_LTZ(0)) AS DATE) AS d,
       DATE_FORMAT(TIMESTAMP_LTZ '2026-01-01 00:30:00', 'yyyy-MM-dd HH:mm') AS f
FROM one;
-- Spring forward 2026-03-29 02:00 -> 03:00: 02:30 does not exist and is
-- 03:30 (+02:00). Fall back 2026-10-25 03:00 -> 02:00: 02:30 happens twice;
-- a CAST takes the first (+02:00, java.time), UNIX_TIMESTAMP the second
-- (+01:00, java.util's calendar) — both as Flink 2.2 does.
SELECT UNIX_TIMESTAMP('2026-03-29 02:30:00') - UNIX_TIMESTAMP('2026-03-29 01:30:00') AS gap_secs,
       CAST(CAST('2026-03-29 02:30:00' AS TIMESTAMP_LTZ(0)) AS STRING) AS in_gap,
       UNIX_TIMESTAMP('2026-10-25 02:30:00') AS overlap_unix,
       CAST(TIMESTAMP '2026-10-25 02:30:00' AS TIMESTAMP_LTZ(0)) = CAST(TIMESTAMP '2026-10-25 01:30:00' AS TIMESTAMP_LTZ(0)) + INTERVAL '1' HOUR AS overlap_cast_first,
       FROM_UNIXTIME(1792888200) AS first_0230, FROM_UNIXTIME(1792891800) AS second_0230
FROM one;
-- TO_TIMESTAMP_LTZ: epoch milliseconds (the default, or 3) or seconds (0)
-- as an instant, shown in the session's zone; other precisions are refused
-- as Flink refuses them.
SET 'table.local-time-zone' = 'Asia/Shanghai';
SELECT TO_TIMESTAMP_LTZ(1700000000123, 3) AS ms, TO_TIMESTAMP_LTZ(1700000000, 0) AS s,
       TO_TIMESTAMP_LTZ(1700000000123) AS dflt, TO_TIMESTAMP_LTZ(CAST(NULL AS BIGINT), 3) AS n,
       CAST(TO_TIMESTAMP_LTZ(0, 0) AS TIMESTAMP(0)) AS local_epoch FROM one;
SELECT TO_TIMESTAMP_LTZ(17, 6) FROM one;
SELECT TO_TIMESTAMP_LTZ(9223372036854775807, 0) FROM one;
-- Fixed offsets in Java's GMT form; the SET listing shows the value as set.
SET 'table.local-time-zone' = 'GMT-03:00';
SELECT FROM_UNIXTIME(0) AS epoch FROM one;
SET 'table.local-time-zone' = 'GMT+8';
SELECT FROM_UNIXTIME(0) AS epoch FROM one;
-- Unknown zones and forms Java's TimeZone does not know are refused.
SET 'table.local-time-zone' = 'Mars/Olympus';
SET 'table.local-time-zone' = 'UTC+8';
SET 'table.local-time-zone' = '+08:00';
SET 'table.local-time-zone' = 'europe/berlin';
SET 'table.local-time-zone' = '../../etc/passwd';
-- A job keeps the zone it was planned with: the refused SETs left GMT+8.
SELECT FROM_UNIXTIME(0) AS epoch FROM one;
RESET 'table.local-time-zone';
SELECT FROM_UNIXTIME(0) AS epoch FROM one;
