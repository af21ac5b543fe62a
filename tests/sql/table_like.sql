-- golden: sort-results
-- CREATE TABLE ... LIKE (Flink's merging of the source table's definition with the
-- statement's own): what SHOW CREATE TABLE keeps, and the conflicts each strategy refuses.
CREATE TABLE base (id BIGINT, name STRING, ts TIMESTAMP(3), up AS UPPER(name), PRIMARY KEY (id) NOT ENFORCED,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) COMMENT 'the base' WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE t1 WITH ('number-of-rows' = '3') LIKE base;
SHOW CREATE TABLE t1;
CREATE TABLE t2 (extra INT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'blackhole') LIKE base (EXCLUDING OPTIONS OVERWRITING WATERMARKS EXCLUDING GENERATED EXCLUDING CONSTRAINTS);
SHOW CREATE TABLE t2;
CREATE TABLE t3 (name STRING) LIKE base;
CREATE TABLE t4 (PRIMARY KEY (name) NOT ENFORCED) LIKE base;
CREATE TABLE t5 (WATERMARK FOR ts AS ts) LIKE base (INCLUDING ALL);
CREATE TABLE t6 WITH ('connector' = 'x') LIKE base (INCLUDING OPTIONS);
CREATE TABLE t7 LIKE nope;
CREATE TABLE t8 LIKE base (OVERWRITING ALL);
CREATE TABLE t9 (up AS LOWER(name)) LIKE base (OVERWRITING GENERATED);
SHOW CREATE TABLE t9;
SELECT COUNT(*) FROM t1;
