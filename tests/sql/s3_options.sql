-- The filesystem connector's s3:// paths: option errors at CREATE TABLE
-- (no server needed; the live checks are tests/s3/s3_sink_test.py).
CREATE TABLE s1 (a INT) WITH ('connector' = 'filesystem', 'path' = 's3://Bad_Bucket/x', 'format' = 'csv');
CREATE TABLE s2 (a INT) WITH ('connector' = 'filesystem', 'path' = 's3://sluice/a//b', 'format' = 'csv');
CREATE TABLE s3 (a INT) WITH ('connector' = 'filesystem', 'path' = 'hdfs://nn/x', 'format' = 'csv');
CREATE TABLE s4 (a INT) WITH ('connector' = 'filesystem', 'path' = 's3://sluice/x', 'format' = 'csv', 's3.path.style.access' = 'maybe');
CREATE TABLE s5 (a INT) WITH ('connector' = 'filesystem', 'path' = 's3://sluice/x', 'format' = 'csv', 's3.acces-key' = 'k');
CREATE TABLE ok1 (a INT) WITH ('connector' = 'filesystem', 'path' = 's3://sluice/out/', 'format' = 'csv', 's3.endpoint' = 'http://127.0.0.1:1', 's3.access-key' = 'AKIDEXAMPLE', 's3.secret-key' = 'wJalrXUtnFEMI-secret', 's3.path.style.access' = 'true', 's3.region' = 'eu-west-1');
SHOW CREATE TABLE ok1;
