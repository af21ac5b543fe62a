-- Every type of the SQL surface, as DESCRIBE spells it.
SET 'parallelism.default' = '2'; -- EXPLAIN shows each task's parallelism
CREATE TABLE all_types (
  c_bool BOOLEAN, c_tiny TINYINT, c_small SMALLINT, c_int INT, c_integer INTEGER, c_big BIGINT,
  c_float FLOAT, c_double DOUBLE, c_double2 DOUBLE PRECISION,
  c_dec DECIMAL, c_dec2 DECIMAL(10, 2), c_dec38 DECIMAL(38, 18), c_num NUMERIC(5), c_dec_s DEC(7, 3),
  c_string STRING, c_varchar VARCHAR(20), c_char CHAR(3), c_bytes BYTES, c_binary BINARY(4), c_varbinary VARBINARY(8),
  c_date DATE, c_time TIME, c_time3 TIME(3), c_ts TIMESTAMP, c_ts3 TIMESTAMP(3), c_ts9 TIMESTAMP(9) WITHOUT TIME ZONE,
  c_ltz TIMESTAMP_LTZ(3), c_ltz2 TIMESTAMP(3) WITH LOCAL TIME ZONE, c_nn INT NOT NULL
) WITH ('connector' = 'filesystem', 'path' = '/tmp/sluice-types', 'format' = 'json');
DESCRIBE all_types;
CREATE TABLE bad1 (a DECIMAL(39, 2)) WITH ('connector' = 'blackhole');
CREATE TABLE bad2 (a DECIMAL(5, 6)) WITH ('connector' = 'blackhole');
CREATE TABLE bad3 (a TIMESTAMP(10)) WITH ('connector' = 'blackhole');
CREATE TABLE bad4 (a VARCHAR(0)) WITH ('connector' = 'blackhole');
CREATE TABLE bad5 (a UUID) WITH ('connector' = 'blackhole');
EXPLAIN SELECT CAST(c_int AS DECIMAL(12, 2)), c_dec2 + c_dec2, c_dec2 * c_int, c_int / 2, c_double + c_int, c_ts3 + INTERVAL '1' HOUR FROM all_types;
EXPLAIN SELECT CAST(c_bool AS DATE) FROM all_types;
EXPLAIN SELECT c_int = c_string FROM all_types;
EXPLAIN SELECT DATE '2026-02-30' FROM all_types;
EXPLAIN SELECT 99999999999999999999999999999999999999999 FROM all_types;
