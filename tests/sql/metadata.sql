-- METADATA columns (Flink's `name type METADATA [FROM 'key'] [VIRTUAL]`):
-- filled by the connector, not by the format. Input: tests/sql/data/meta
-- (a.csv: 3 rows, 35 bytes; b.csv: 2 rows, 26 bytes). Kafka's keys are
-- checked against a broker in tests/kafka/kafka_metadata_test.py.
SET 'parallelism.default' = '1';
-- Kafka: the declarations, as Flink shows them (no broker is contacted).
CREATE TABLE events (id BIGINT, name STRING,
  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  `partition` INT METADATA VIRTUAL,
  off BIGINT METADATA FROM 'offset' VIRTUAL COMMENT 'the offset',
  topic STRING METADATA VIRTUAL,
  ttype STRING METADATA FROM 'timestamp-type' VIRTUAL,
  epoch INT METADATA FROM 'leader-epoch' VIRTUAL,
  local_ts AS CAST(ts AS TIMESTAMP(3)),
  day AS CAST(ts AS DATE),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'localhost:9',
        'format' = 'json');
DESCRIBE events;
SHOW CREATE TABLE events;
-- The scan names the keys it reads.
EXPLAIN SELECT * FROM events;
-- A declared type other than the key's (castable from it): cast after the scan.
CREATE TABLE events_local (id BIGINT, ts TIMESTAMP(3) METADATA FROM 'timestamp',
  WATERMARK FOR ts AS ts)
  WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = 'localhost:9',
        'format' = 'json');
DESCRIBE events_local;
EXPLAIN SELECT * FROM events_local;
-- Errors at CREATE TABLE.
CREATE TABLE bad (id BIGINT, h INT METADATA FROM 'nope')
  WITH ('connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'localhost:9',
        'format' = 'json');
CREATE TABLE bad (id BIGINT, `offsets` BIGINT METADATA)
  WITH ('connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'localhost:9',
        'format' = 'json');
CREATE TABLE bad (id BIGINT, headers INT METADATA)
  WITH ('connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'localhost:9',
        'format' = 'json');
CREATE TABLE bad (id BIGINT, ts BOOLEAN METADATA FROM 'timestamp')
  WITH ('connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'localhost:9',
        'format' = 'json');
CREATE TABLE bad (id BIGINT, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp')
  WITH ('connector' = 'datagen');
CREATE TABLE bad (id BIGINT, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',
  ts2 TIMESTAMP(3) METADATA FROM 'timestamp')
  WITH ('connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'localhost:9',
        'format' = 'json');
CREATE TABLE bad (id BIGINT, o BIGINT METADATA FROM 'offset', PRIMARY KEY (o) NOT ENFORCED)
  WITH ('connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'localhost:9',
        'format' = 'json');
CREATE TABLE bad (id BIGINT, o BIGINT METADATA FROM 'offset')
  WITH ('connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'localhost:9',
        'format' = 'json', 'key.format' = 'json', 'key.fields' = 'o');
-- Errors at INSERT: a VIRTUAL column is not written; a read-only key must be VIRTUAL.
INSERT INTO events (id, off) SELECT 1, 2;
CREATE TABLE ro (id BIGINT, o BIGINT METADATA FROM 'offset')
  WITH ('connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = 'localhost:9',
        'format' = 'json');
INSERT INTO ro SELECT 1, 2;
-- Filesystem: the file each row comes from.
CREATE TABLE fruit (id BIGINT, name STRING, price INT,
  fname STRING METADATA FROM 'file.name' VIRTUAL,
  fsize BIGINT METADATA FROM 'file.size' VIRTUAL,
  fpath STRING METADATA FROM 'file.path' VIRTUAL,
  mtime TIMESTAMP_LTZ(3) METADATA FROM 'file.modification-time' VIRTUAL,
  mtime_local AS CAST(mtime AS TIMESTAMP(3)),
  label AS name || '@' || fname,
  WATERMARK FOR mtime AS mtime)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/meta', 'format' = 'csv');
SELECT id, name, price, fname, fsize, label FROM fruit;
SELECT fname, COUNT(*) AS n, MIN(fpath LIKE '%/tests/sql/data/meta/' || fname) AS path_ok,
       MIN(mtime > TIMESTAMP_LTZ '2000-01-01 00:00:00') AS mtime_ok,
       MIN(CAST(mtime AS TIMESTAMP(3)) = mtime_local) AS local_ok
  FROM fruit GROUP BY fname;
-- A declared type cast from the key's: file.size as STRING.
CREATE TABLE fruit_text (id BIGINT, name STRING, price INT,
  size_text STRING METADATA FROM 'file.size' VIRTUAL)
  WITH ('connector' = 'filesystem', 'path' = '@SQLDATA@/meta', 'format' = 'csv');
SELECT id, size_text, CHAR_LENGTH(size_text) AS len FROM fruit_text WHERE id IN (1, 5);
SELECT fname, SUM(price) AS total FROM fruit WHERE fsize < 30 GROUP BY fname;
-- A sink of the same columns: the VIRTUAL ones are not written (the query
-- gives the other three); read back, they describe the sink's own file.
CREATE TABLE fruit_copy WITH ('path' = '@TMP@/fruit_copy') LIKE fruit (EXCLUDING WATERMARKS);
INSERT INTO fruit_copy SELECT id, name, price FROM fruit WHERE id <= 2;
SELECT id, name, price, fsize, fname LIKE 'part-%' AS part_file FROM fruit_copy;
INSERT INTO fruit_copy (id, fname) SELECT 1, 'x';
-- The filesystem sink writes no metadata.
CREATE TABLE fruit_named (id BIGINT, fname STRING METADATA FROM 'file.name')
  WITH ('connector' = 'filesystem', 'path' = '@TMP@/fruit_named', 'format' = 'csv');
INSERT INTO fruit_named SELECT 1, 'x';
-- LIKE EXCLUDING METADATA leaves them out; SHOW CREATE over a fixed path.
CREATE TABLE fruit_plain WITH ('path' = '/data/meta') LIKE fruit (EXCLUDING METADATA EXCLUDING GENERATED EXCLUDING WATERMARKS);
SHOW CREATE TABLE fruit_plain;
CREATE TABLE fruit_shape WITH ('path' = '/data/meta') LIKE fruit;
SHOW CREATE TABLE fruit_shape;
