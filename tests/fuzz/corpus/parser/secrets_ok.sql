CREATE TABLE k (id BIGINT) WITH ('connector' = 'kafka', 'properties.sasl.password' = 'hun''ter2',
  'properties.sasl.jaas.config' /* c */ = -- x
  'x required password="p";', 'my.secret'='');
ALTER TABLE k SET ('properties.ssl.key.password' = 'k');
SET 'properties.sasl.password' = 'x';
SELECT 'password' = name, 'secret' = 'v' FROM k;
