-- Secrets (issue 10 item 12): a WITH option whose key matches Flink's
-- sensitive-key rule (password, secret, token, apikey, jaas.config, ...) is
-- shown as '******' wherever a statement's text or an error leaves the
-- engine; the catalog keeps the value (tests/shell checks the file). No line
-- of this file's output may contain 'hunter2'.
SET 'parallelism.default' = '1';
CREATE TABLE k (id BIGINT, name STRING) WITH (
  'connector' = 'kafka',
  'topic' = 'orders',
  'properties.bootstrap.servers' = '127.0.0.1:9',
  'format' = 'json',
  'properties.security.protocol' = 'SASL_SSL',
  'properties.sasl.mechanism' = 'PLAIN',
  'properties.sasl.username' = 'alice',
  'properties.sasl.password' = 'hunter2-sasl',
  'properties.sasl.jaas.config' = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="hunter2-jaas";',
  'properties.ssl.key.password' = 'hunter2-key',
  'properties.SSL.KEYSTORE.PASSWORD' = 'hunter2-keystore',
  'properties.sasl.oauthbearer.client.secret' = 'hunter2-oauth',
  'properties.sasl.oauthbearer.token.endpoint.url' = 'https://hunter2@idp.example/token'
);
-- Every secret value is hidden; the others are shown.
SHOW CREATE TABLE k;
-- A secret set later is hidden too.
ALTER TABLE k SET ('properties.ssl.keystore.password' = 'hunter2-altered');
SHOW CREATE TABLE k;
ALTER TABLE k RESET ('properties.ssl.keystore.password');
DESCRIBE k;
-- EXPLAIN shows tables, connectors and guarantees, never option values.
CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3');
EXPLAIN INSERT INTO k SELECT id, 'x' FROM nums;
-- An error in a statement holding a secret: its LINE block hides the value.
CREATE TABLE bad (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 't', 'properties.sasl.password' = 'hunter2-bad', 'bogus' = 'x',
  'properties.bootstrap.servers' = 'b:9', 'format' = 'json');
SET 'properties.sasl.password' = 'hunter2-set';
-- A secret typed without quotes: the syntax error does not quote it.
CREATE TABLE bare (id BIGINT) WITH ('properties.sasl.password' = hunter2bare);
-- An unterminated secret is hidden to the end of the statement.
SET 'properties.sasl.password' = 'hunter2-unterminated
