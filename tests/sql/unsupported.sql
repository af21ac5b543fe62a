-- What Sluice cannot run is refused with 0A000, a reason and what to use
-- instead: Flink's function DDL (Java / Scala / Python user-defined
-- functions) and the legacy 'connector.type' style of WITH options.
-- Also: SHOW [USER] FUNCTIONS, and the SQL standard's type spellings.
CREATE FUNCTION my_upper AS 'com.example.MyUpper';
CREATE TEMPORARY FUNCTION IF NOT EXISTS my_upper AS 'com.example.MyUpper' LANGUAGE JAVA;
create temporary system function my_upper as 'com.example.MyUpper' language scala;
CREATE FUNCTION cat1.db1.my_upper AS 'com.example.MyUpper' LANGUAGE JAVA
  USING JAR '/opt/udfs/a.jar', JAR 'hdfs:///udfs/b.jar';
CREATE TEMPORARY FUNCTION py_upper AS 'udfs.py_upper' LANGUAGE PYTHON;
ALTER FUNCTION my_upper AS 'com.example.MyUpper2';
ALTER TEMPORARY SYSTEM FUNCTION IF EXISTS db1.my_upper AS 'com.example.MyUpper2' LANGUAGE JAVA;
DROP FUNCTION my_upper;
DROP TEMPORARY FUNCTION cat1.db1.my_upper;
-- DROP ... IF EXISTS succeeds, as Flink's and PostgreSQL's: no such function exists.
DROP FUNCTION IF EXISTS my_upper;
DROP TEMPORARY FUNCTION IF EXISTS cat1.db1.my_upper;
DROP TEMPORARY SYSTEM FUNCTION IF EXISTS `my upper`;
-- Still syntax errors: a function DDL that is not Flink's.
CREATE FUNCTION my_upper;
CREATE FUNCTION my_upper AS 'x' USING JAR;
-- The new keywords stay usable as names.
CREATE TABLE function (language INT, jar STRING, system BOOLEAN, using INT, varying INT,
  functions INT, character INT) WITH ('connector' = 'blackhole');
DESCRIBE function;
DROP TABLE function;
SHOW USER FUNCTIONS;
show user functions;
-- Legacy (before Flink 1.11) options: 0A000 at the key, the new option in the hint.
CREATE TABLE legacy (a INT) WITH (
  'connector.type' = 'kafka',
  'connector.version' = 'universal',
  'connector.topic' = 'clicks',
  'format.type' = 'json',
  'update-mode' = 'append'
);
CREATE TABLE legacy (a INT) WITH ('connector' = 'kafka', 'connector.type' = 'kafka');
CREATE TABLE legacy (a INT) WITH ('update-mode' = 'append', 'connector.version' = 'universal');
CREATE TABLE legacy (a INT) WITH ('connector.topic' = 'clicks');
CREATE TABLE legacy (a INT) WITH ('connector.properties.bootstrap.servers' = 'k:9092');
CREATE TABLE legacy (a INT) WITH ('connector.startup-mode' = 'earliest-offset');
CREATE TABLE legacy (a INT) WITH ('connector.table' = 't');
CREATE TABLE legacy (a INT) WITH ('connector.path' = '/data', 'connector.version' = 'x');
CREATE TABLE legacy (a INT) WITH ('connector.version' = 'universal');
CREATE TABLE legacy (a INT) WITH ('format.type' = 'csv');
CREATE TABLE legacy (a INT) WITH ('format.derive-schema' = 'true');
CREATE TABLE legacy (a INT) WITH ('format.type' = 'csv', 'format.field-delimiter' = ';');
CREATE TABLE legacy (a INT) WITH ('format.fail-on-missing-field' = 'true');
CREATE TABLE legacy (a INT) WITH ('update-mode' = 'upsert');
CREATE TABLE legacy (a INT) WITH ('connector.' = 'x');
-- With 'connector' set, other such keys are unknown options (22023).
CREATE TABLE legacy (a INT) WITH ('connector' = 'blackhole', 'update-mode' = 'append');
CREATE TABLE ok (a INT) WITH ('connector' = 'blackhole');
ALTER TABLE ok SET ('connector.type' = 'kafka');
DROP TABLE ok;
-- SQL-standard type spellings.
CREATE TABLE std (
  a CHARACTER(3),
  b CHARACTER,
  c CHARACTER VARYING(10),
  d CHAR VARYING(5),
  e CHARACTER VARYING,
  f BINARY VARYING(4),
  g BINARY VARYING,
  h DOUBLE PRECISION
) WITH ('connector' = 'blackhole');
DESCRIBE std;
SELECT CAST('hello' AS CHARACTER VARYING(3)) AS v, CAST('hi' AS CHARACTER(4)) AS c,
  CAST(1 AS DOUBLE PRECISION) AS d;
CREATE TABLE std2 (a CHARACTER VARYING(0)) WITH ('connector' = 'blackhole');
