-- PARTITIONED BY: the filesystem connector writes each row under
-- <path>/<col>=<value>/... (Flink's layout: values escaped, NULL and '' as
-- __DEFAULT_PARTITION__, the partition columns not in the files), commits
-- partitions with a success file, and reads the columns back from the path.
SET 'parallelism.default' = '1';
CREATE TABLE src (id INT, name STRING, dt STRING, hr INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '@SQLDATA@/part_in', 'format' = 'csv');

-- DDL: PARTITIONED BY after the columns (and COMMENT), before WITH.
CREATE TABLE shown (id INT, name STRING, dt STRING, hr INT) COMMENT 'by day and hour'
  PARTITIONED BY (dt, hr) WITH (
  'connector' = 'filesystem', 'path' = 'file:///never/written', 'format' = 'csv',
  'sink.partition-commit.policy.kind' = 'success-file');
SHOW CREATE TABLE shown;
DESCRIBE shown;
-- A file:// URI names a local directory, as in Flink.
CREATE TABLE p (id INT, name STRING, dt STRING, hr INT) PARTITIONED BY (dt, hr) WITH (
  'connector' = 'filesystem', 'path' = 'file://@TMP@/p', 'format' = 'csv',
  'sink.partition-commit.policy.kind' = 'success-file');
-- LIKE copies the partitions (INCLUDING, the default), or not (EXCLUDING);
-- partitions of both is 42P16.
CREATE TABLE l1 WITH ('path' = '/never/l1') LIKE shown;
SHOW CREATE TABLE l1;
CREATE TABLE l2 WITH ('path' = '/never/l2') LIKE shown (EXCLUDING PARTITIONS);
SHOW CREATE TABLE l2;
CREATE TABLE l3 (x INT) PARTITIONED BY (x) WITH ('path' = '/never/l3') LIKE shown;
-- 'partitioned' stays a name.
CREATE TABLE partitioned (partitioned INT) WITH ('connector' = 'blackhole');

-- Errors.
CREATE TABLE e1 (a INT, b INT) PARTITIONED BY (c) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/e', 'format' = 'csv');
CREATE TABLE e2 (a INT, b INT) PARTITIONED BY (b, b) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/e', 'format' = 'csv');
CREATE TABLE e3 (a INT, b INT) PARTITIONED BY (a, b) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/e', 'format' = 'csv');
CREATE TABLE e4 (a INT, b INT, c AS a + 1) PARTITIONED BY (c) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/e', 'format' = 'csv');
CREATE TABLE e5 (a INT, b BYTES) PARTITIONED BY (b) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/e', 'format' = 'csv');
CREATE TABLE e6 (a INT, b INT) PARTITIONED BY (b) WITH (
  'connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'localhost:9092',
  'format' = 'csv');
CREATE TABLE e7 (a INT, b STRING) PARTITIONED BY (b) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/e', 'format' = 'csv',
  'sink.partition-commit.policy.kind' = 'metastore,success-file');
CREATE TABLE e8 (a INT, b STRING) PARTITIONED BY (b) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/e', 'format' = 'csv',
  'sink.partition-commit.policy.kind' = 'custom');
CREATE TABLE e9 (a INT, b STRING) PARTITIONED BY (b) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/e', 'format' = 'csv',
  'sink.partition-commit.policy.kind' = 'success_file');
CREATE TABLE e10 (a INT, b STRING) PARTITIONED BY (b) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/e', 'format' = 'csv',
  'partition.time-extractor.kind' = 'custom');
CREATE TABLE e11 (a INT, b STRING) PARTITIONED BY (b) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/e', 'format' = 'csv',
  'partition.time-extractor.timestamp-pattern' = '$dt $hm:00');
CREATE TABLE e12 (a INT, b STRING) PARTITIONED BY (b) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/e', 'format' = 'csv',
  'partition.time-extractor.timestamp-formatter' = 'yyyy-MM-dd QQ');
CREATE TABLE e13 (a INT, b STRING) PARTITIONED BY (b) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/e', 'format' = 'csv',
  'sink.partition-commit.trigger' = 'watermark');
CREATE TABLE e14 (a INT, b STRING) PARTITIONED BY (b) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/e', 'format' = 'csv',
  'sink.partition-commit.watermark-time-zone' = 'Mars/Olympus');

-- Writing: one directory per partition; NULL and '' are the default name,
-- '/', '=', '%' and '#' escaped.
INSERT INTO p SELECT id, name, dt, hr FROM src;
-- Reading: the partition columns from the path.
SELECT * FROM p;
SELECT dt, COUNT(*) AS n FROM p GROUP BY dt;
-- Typed partition columns; a value that is not of the type fails, naming the path.
CREATE TABLE pd (id INT, name STRING, dt DATE, hr INT) PARTITIONED BY (dt, hr) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/p', 'format' = 'csv');
SELECT * FROM pd WHERE dt IS NOT NULL;
-- The files: what they hold (not the partition columns) and the success files.
CREATE TABLE f1 (line STRING) WITH ('connector' = 'filesystem', 'format' = 'raw',
  'path' = '@TMP@/p/dt=2026-01-01/hr=1/part-0f63d280b3fc5fc0-0-1-0.csv');
SELECT * FROM f1;
CREATE TABLE f2 (line STRING) WITH ('connector' = 'filesystem', 'format' = 'raw',
  'path' = '@TMP@/p/dt=x%2Fy%3Dz %25%23/hr=__DEFAULT_PARTITION__/part-0f63d280b3fc5fc0-0-1-3.csv');
SELECT * FROM f2;
CREATE TABLE s1 (line STRING) WITH ('connector' = 'filesystem', 'format' = 'raw',
  'path' = '@TMP@/p/dt=__DEFAULT_PARTITION__/hr=3/_SUCCESS');
SELECT COUNT(*) AS success_file_lines FROM s1;

-- Typed partition columns: the path holds Flink's text of each value
-- (t=2026-01-01T01%3A10/d=0.25/b=false/..., as Flink 2.2 writes them), read
-- back as the same values.
CREATE TABLE typed (id INT, t TIMESTAMP(3), d DECIMAL(5, 2), b BOOLEAN, l TIMESTAMP_LTZ(3),
  tm TIME(3), dd DATE) PARTITIONED BY (t, d, b, l, tm, dd) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/typed', 'format' = 'csv');
INSERT INTO typed SELECT id, ts, CAST(id AS DECIMAL(5, 2)) / 4, id > 3,
  CAST(ts AS TIMESTAMP_LTZ(3)) + INTERVAL '0.5' SECOND * id, CAST(ts AS TIME(3)), CAST(ts AS DATE)
  FROM src;
SELECT * FROM typed;
CREATE TABLE f3 (line STRING) WITH ('connector' = 'filesystem', 'format' = 'raw',
  'path' = '@TMP@/typed/t=2026-01-01T01%3A10/d=0.25/b=false/l=2026-01-01T01%3A10%3A00.500Z/tm=01%3A10/dd=2026-01-01/part-5eae85532a80c900-0-1-0.csv');
SELECT * FROM f3;

-- Partition-time commit (Nexmark q10's options): a bounded job commits every
-- partition at its end, with the success file named as asked.
CREATE TABLE q (id INT, ts TIMESTAMP(3), dt STRING, hm STRING) PARTITIONED BY (dt, hm) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/q', 'format' = 'json',
  'sink.partition-commit.trigger' = 'partition-time',
  'sink.partition-commit.delay' = '1 min',
  'sink.partition-commit.policy.kind' = 'success-file',
  'sink.partition-commit.success-file.name' = '_DONE',
  'partition.time-extractor.timestamp-pattern' = '$dt $hm:00',
  'sink.rolling-policy.rollover-interval' = '1min',
  'sink.rolling-policy.check-interval' = '1min');
INSERT INTO q SELECT id, ts, DATE_FORMAT(ts, 'yyyy-MM-dd'), DATE_FORMAT(ts, 'HH:mm') FROM src;
SELECT * FROM q;
CREATE TABLE s2 (line STRING) WITH ('connector' = 'filesystem', 'format' = 'raw',
  'path' = '@TMP@/q/dt=2026-01-02/hm=00%3A30/_DONE');
SELECT COUNT(*) AS done_file_lines FROM s2;
-- A partition whose time the pattern cannot give fails the job.
CREATE TABLE bad (id INT, dt STRING) PARTITIONED BY (dt) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/bad', 'format' = 'csv',
  'sink.partition-commit.trigger' = 'partition-time',
  'sink.partition-commit.policy.kind' = 'success-file');
INSERT INTO bad SELECT id, name FROM src;

-- METADATA columns beside partition columns: a metadata column is neither
-- written into the files nor a partition column; file.name is the file's own
-- name, file.path the whole path under the partition directories.
CREATE TABLE pm (id INT, dt STRING, fname STRING METADATA FROM 'file.name' VIRTUAL,
  fpath STRING METADATA FROM 'file.path' VIRTUAL) PARTITIONED BY (dt) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/pm', 'format' = 'csv');
INSERT INTO pm SELECT id, CAST(id % 2 AS STRING) FROM src WHERE id <= 4;
SELECT id, dt, fname LIKE 'part-%.csv' AS name_ok, fpath LIKE '%/pm/dt=' || dt || '/' || fname AS path_ok FROM pm;
CREATE TABLE pm_files (line STRING, dt STRING) PARTITIONED BY (dt) WITH (
  'connector' = 'filesystem', 'format' = 'raw', 'path' = '@TMP@/pm');
SELECT line, dt FROM pm_files;
CREATE TABLE pm_bad (id INT, fname STRING METADATA FROM 'file.name' VIRTUAL) PARTITIONED BY (fname) WITH (
  'connector' = 'filesystem', 'path' = '@TMP@/pmb', 'format' = 'csv');
