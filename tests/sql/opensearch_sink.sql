-- The opensearch and elasticsearch-7 connectors (docs/CONNECTORS.md): a bulk
-- request is visible once answered, so the sinks give at-least-once and
-- exactly-once is refused (or, with the downgrade policy, a warning); with a
-- PRIMARY KEY the final state is exactly-once (documents by _id), without one
-- EXPLAIN says a replay duplicates documents. Nothing here sends a request.
SET 'parallelism.default' = '1';
SET 'execution.checkpointing.interval' = '1 s';
CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5');
CREATE TABLE idx (id BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'opensearch',
  'hosts' = 'http://127.0.0.1:9', 'index' = 'docs', 'format' = 'json',
  'username' = 'elastic', 'password' = 'pw-abc-secret-1234',
  'sink.delivery-guarantee' = 'exactly-once');
-- Exactly-once requested: refused when the INSERT is planned (0A000), with the reason.
INSERT INTO idx SELECT id FROM nums;
EXPLAIN INSERT INTO idx SELECT id FROM nums;
-- The password never leaves the engine.
SHOW CREATE TABLE idx;
-- The downgrade policy runs it at-least-once with a warning.
CREATE TABLE idx_ok (id BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'elasticsearch-7', 'hosts' = 'http://127.0.0.1:9;http://127.0.0.1:10',
  'index' = 'docs', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.delivery-guarantee.fallback' = 'downgrade');
EXPLAIN INSERT INTO idx_ok SELECT id FROM nums;
-- With a key, updates are accepted: the final state is exactly-once.
CREATE TABLE idx_agg (k BIGINT, c BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
  'connector' = 'opensearch', 'hosts' = 'http://127.0.0.1:9', 'index' = 'counts',
  'format' = 'json', 'document-id.key-delimiter' = '|');
EXPLAIN INSERT INTO idx_agg SELECT id % 2, COUNT(*) FROM nums GROUP BY id % 2;
-- Without a key: generated ids, a replay duplicates documents; only appends.
CREATE TABLE idx_nokey (id BIGINT) WITH ('connector' = 'opensearch',
  'hosts' = 'http://127.0.0.1:9', 'index' = 'docs', 'format' = 'json');
EXPLAIN INSERT INTO idx_nokey SELECT id FROM nums;
INSERT INTO idx_nokey SELECT COUNT(*) FROM nums;
-- Options checked when the table is declared.
CREATE TABLE bad (id BIGINT) WITH ('connector' = 'opensearch', 'hosts' = 'ftp://127.0.0.1:9',
  'index' = 'docs', 'format' = 'json');
CREATE TABLE bad (id BIGINT) WITH ('connector' = 'opensearch', 'hosts' = 'http://127.0.0.1:9',
  'index' = 'docs-{id}', 'format' = 'json');
CREATE TABLE bad (id BIGINT) WITH ('connector' = 'opensearch', 'hosts' = 'http://127.0.0.1:9',
  'index' = 'Docs', 'format' = 'json');
CREATE TABLE bad (id BIGINT) WITH ('connector' = 'opensearch', 'hosts' = 'http://127.0.0.1:9',
  'index' = 'docs', 'format' = 'csv');
CREATE TABLE bad (id BIGINT) WITH ('connector' = 'opensearch', 'hosts' = 'http://127.0.0.1:9',
  'index' = 'docs', 'format' = 'json', 'sink.bulk-flush.backoff.strategy' = 'LINEAR');
CREATE TABLE bad (id BIGINT) WITH ('connector' = 'opensearch', 'hosts' = 'http://127.0.0.1:9',
  'index' = 'docs', 'format' = 'json', 'sink.bulk-flush.max-actions' = '-1');
CREATE TABLE bad (id BIGINT) WITH ('connector' = 'opensearch', 'hosts' = 'http://127.0.0.1:9',
  'index' = 'docs', 'format' = 'json', 'password' = 'x');
-- 'format' may be left out: json, Flink's default for these connectors
-- (its options are still json's); any other format is refused.
CREATE TABLE idx_noformat (id BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'elasticsearch-7', 'hosts' = 'http://127.0.0.1:9', 'index' = 'docs',
  'json.encode.decimal-as-plain-number' = 'true');
SHOW CREATE TABLE idx_noformat;
CREATE TABLE idx_csv (id BIGINT) WITH ('connector' = 'opensearch',
  'hosts' = 'http://127.0.0.1:9', 'index' = 'docs', 'format' = 'csv');
