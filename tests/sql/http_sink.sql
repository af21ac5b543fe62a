-- The http-sink connector (docs/CONNECTORS.md): an HTTP API gives at-least-once,
-- so exactly-once is refused (or, with the downgrade policy, a warning); header
-- options that hold credentials are secret. Nothing here sends a request.
SET 'parallelism.default' = '1';
SET 'execution.checkpointing.interval' = '1 s';
CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5');
CREATE TABLE api (id BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'http-sink',
  'url' = 'http://127.0.0.1:9/rows', 'format' = 'json',
  'http.sink.writer.request.mode' = 'single',
  'http.sink.header.Authorization' = 'Bearer abc-secret-1234',
  'sink.delivery-guarantee' = 'exactly-once');
-- Exactly-once requested: refused when the INSERT is planned (0A000), with the reason.
INSERT INTO api SELECT id FROM nums;
EXPLAIN INSERT INTO api SELECT id FROM nums;
-- The Authorization header's value never leaves the engine.
SHOW CREATE TABLE api;
-- The downgrade policy runs it at-least-once with a warning.
CREATE TABLE api_ok (id BIGINT) WITH ('connector' = 'http-sink',
  'url' = 'http://127.0.0.1:9/rows', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.delivery-guarantee.fallback' = 'downgrade');
EXPLAIN INSERT INTO api_ok SELECT id FROM nums;
-- Nothing requested: at-least-once, duplicates after a failure.
CREATE TABLE api_batch (id BIGINT) WITH ('connector' = 'http-sink',
  'url' = 'http://127.0.0.1:9/rows', 'format' = 'json', 'insert-method' = 'PUT');
EXPLAIN INSERT INTO api_batch SELECT id FROM nums;
-- Only inserts: an updating query is refused.
INSERT INTO api_batch SELECT COUNT(*) FROM nums;
-- Options checked when the table is declared.
CREATE TABLE bad (id BIGINT) WITH ('connector' = 'http-sink', 'url' = 'ftp://127.0.0.1/x',
  'format' = 'json');
CREATE TABLE bad (id BIGINT) WITH ('connector' = 'http-sink', 'url' = 'http://127.0.0.1:9/',
  'format' = 'json', 'http.sink.idempotency-key.header' = 'X-Key');
CREATE TABLE bad (id BIGINT) WITH ('connector' = 'http-sink', 'url' = 'http://127.0.0.1:9/',
  'format' = 'csv');
CREATE TABLE bad (id BIGINT) WITH ('connector' = 'http-sink', 'url' = 'http://127.0.0.1:9/',
  'format' = 'json', 'http.sink.header.Bad Name' = 'x');
CREATE TABLE bad (id BIGINT) WITH ('connector' = 'http-sink', 'url' = 'http://127.0.0.1:9/',
  'format' = 'json', 'http.sink.request.batch.size' = '0');
CREATE TABLE bad (id BIGINT) WITH ('connector' = 'http-sink', 'url' = 'http://127.0.0.1:9/',
  'format' = 'json', 'insert-method' = 'PATCH');
