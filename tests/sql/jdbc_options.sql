-- The jdbc connector's options at CREATE TABLE (no server needed; the live
-- checks are tests/postgres/ and tests/mariadb/). A MariaDB/MySQL table is
-- written only: every scan.* and lookup.* option is refused with 0A000.
CREATE TABLE m1 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'scan.partition.column' = 'id');
CREATE TABLE m2 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'scan.partition.num' = '4');
CREATE TABLE m3 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'scan.partition.lower-bound' = '0');
CREATE TABLE m4 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'scan.partition.upper-bound' = '100');
CREATE TABLE m5 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'scan.fetch-size' = '500');
CREATE TABLE m6 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'scan.copy' = 'true');
CREATE TABLE m7 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'scan.copy.where' = 'id > 0');
CREATE TABLE m8 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'scan.auto-commit' = 'false');
CREATE TABLE m9 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'lookup.cache' = 'PARTIAL');
CREATE TABLE m10 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'lookup.partial-cache.max-rows' = '100');
CREATE TABLE m11 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'lookup.partial-cache.expire-after-write' = '1 min');
CREATE TABLE m12 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'lookup.partial-cache.expire-after-access' = '1 min');
CREATE TABLE m13 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'lookup.partial-cache.cache-missing-key' = 'false');
CREATE TABLE m14 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'lookup.max-retries' = '5');
CREATE TABLE m15 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'lookup.cache.max-rows' = '100');
CREATE TABLE m16 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'lookup.cache.ttl' = '1 min');
CREATE TABLE m17 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'lookup.cache.caching-missing-key' = 'false');
-- jdbc:mysql: is MariaDB's side too.
CREATE TABLE my1 (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mysql://127.0.0.1:3306/shop', 'table-name' = 't', 'scan.fetch-size' = '500');
-- The first such option as written is named.
CREATE TABLE m_first (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'sink.max-retries' = '2', 'lookup.max-retries' = '5', 'scan.fetch-size' = '500');
-- Controls: a MariaDB table with the sink's options, a PostgreSQL table with the read side's.
CREATE TABLE m_ok (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'jdbc', 'url' = 'jdbc:mariadb://127.0.0.1:3306/shop', 'table-name' = 't', 'sink.buffer-flush.max-rows' = '10', 'sink.buffer-flush.interval' = '2 s', 'sink.max-retries' = '2', 'sink.on-duplicate-key' = 'ignore', 'sink.conflict-table' = 'conflicts', 'sink.transactional-id-prefix' = 'm_ok', 'connection.max-retry-timeout' = '5 s');
CREATE TABLE pg_ok (id BIGINT, v STRING) WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:5432/shop', 'table-name' = 't', 'scan.partition.column' = 'id', 'scan.partition.num' = '4', 'scan.partition.lower-bound' = '0', 'scan.partition.upper-bound' = '100', 'scan.fetch-size' = '500', 'scan.auto-commit' = 'false', 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '100', 'lookup.partial-cache.expire-after-write' = '1 min', 'lookup.partial-cache.expire-after-access' = '1 min', 'lookup.partial-cache.cache-missing-key' = 'false', 'lookup.max-retries' = '5');
SHOW TABLES;
