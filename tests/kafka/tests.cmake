# Kafka tests: a single-node broker (scripts/kafka) is a ctest fixture. The
# tests labelled `kafka` require it; ctest starts it before the first of them
# (kafka.start) and stops it after the last (kafka.stop). It listens on a port
# of its own build dir: 19092 + 2 * (a hash of the build dir's path mod 500),
# or -DSLUICE_KAFKA_TEST_PORT=N; the controller takes the port after it. So a
# developer's broker on 9092 is left alone and two build dirs can run their
# kafka tests at the same time. Config, logs and data are in <build>/kafka-run.
# The broker's jars are fetched with mvn on the first start and cached in
# .cache/kafka (scripts/test fetches them before ctest).
if(DEFINED SLUICE_KAFKA_TEST_PORT)
  set(SL_KAFKA_PORT ${SLUICE_KAFKA_TEST_PORT})
else()
  string(MD5 SL_KAFKA_HASH "${CMAKE_BINARY_DIR}")
  string(SUBSTRING "${SL_KAFKA_HASH}" 0 4 SL_KAFKA_HASH)
  math(EXPR SL_KAFKA_PORT "19092 + 2 * (0x${SL_KAFKA_HASH} % 500)")
endif()
message(STATUS "kafka tests: broker on 127.0.0.1:${SL_KAFKA_PORT}")
set(SL_KAFKA ${CMAKE_SOURCE_DIR}/scripts/kafka)
set(SL_KAFKA_ENV "KAFKA_PORT=${SL_KAFKA_PORT}" "KAFKA_RUN_DIR=${CMAKE_BINARY_DIR}/kafka-run")

add_test(NAME kafka.start COMMAND ${SL_KAFKA} start)
add_test(NAME kafka.stop COMMAND ${SL_KAFKA} stop)
# start's time is mostly the JVM; on a fresh machine it also downloads ~40 MB.
set_tests_properties(kafka.start PROPERTIES FIXTURES_SETUP kafka TIMEOUT 600)
set_tests_properties(kafka.stop PROPERTIES FIXTURES_CLEANUP kafka TIMEOUT 120)

# kcat against the broker: feature negotiation, 1000 records, a consumer
# group, a committed transaction.
add_test(NAME kafka.smoke COMMAND ${CMAKE_CURRENT_LIST_DIR}/smoke_test.sh)

# Debian's librdkafka (the one the Kafka connector links) against the broker:
# transactions committed and aborted, offsets in a transaction, read_committed.
pkg_check_modules(RDKAFKA REQUIRED IMPORTED_TARGET rdkafka)
add_executable(kafka_txn_check ${CMAKE_CURRENT_LIST_DIR}/kafka_txn_check.c)
target_link_libraries(kafka_txn_check PRIVATE PkgConfig::RDKAFKA)
add_test(NAME kafka.transactions
  COMMAND kafka_txn_check 127.0.0.1:${SL_KAFKA_PORT} txn-check)

set_tests_properties(kafka.start kafka.stop kafka.smoke kafka.transactions PROPERTIES
  LABELS kafka ENVIRONMENT "${SL_KAFKA_ENV}")
set_tests_properties(kafka.smoke kafka.transactions PROPERTIES
  FIXTURES_REQUIRED kafka TIMEOUT 180)

# The kafka connector against the broker (tests/kafka/kafka_connector_test.py):
# JSON records in a 3-partition topic -> parallelism 2 -> an at-least-once
# kafka sink, checked by kcat against a reference computed in Python; a
# malformed record fails the job naming topic/partition/offset; a SIGKILL
# and a restart from the same data directory lose nothing; startup from
# specific offsets reads exactly the records at and after them; a 256 KB
# source buffer copies 60 000 records within 12 s, exactly (buffer: the
# source wakes librdkafka's fetcher at its queue's bound).
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_executable(kafka_topic ${CMAKE_CURRENT_LIST_DIR}/kafka_topic.c)
target_link_libraries(kafka_topic PRIVATE PkgConfig::RDKAFKA)
foreach(case pipeline malformed restart startup buffer)
  add_test(NAME kafka.connector.${case}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/kafka_connector_test.py
            --sluice $<TARGET_FILE:sluice> --topic-tool $<TARGET_FILE:kafka_topic> --case ${case})
  set_tests_properties(kafka.connector.${case} PROPERTIES
    LABELS kafka ENVIRONMENT "${SL_KAFKA_ENV}" FIXTURES_REQUIRED kafka TIMEOUT 120)
endforeach()

# The sink's guarantees through crashes (tests/kafka/kafka_eo_test.py):
# exactly-once through 24 SIGKILLs (some right after a transaction decided a
# checkpoint, some inside checkpoints) checked by a read_committed kcat
# against a reference computed in Python, while a read_uncommitted reader
# sees the aborted records; at-least-once (nothing missing, duplicates
# counted); a fenced zombie; a zombie frozen past its transaction timeout,
# restarted, that must refuse without fencing the instance that took over;
# a broker restart between a checkpoint's pre-commit and its decision (a
# broker of its own, on the fixture's port + 1000); transactions that
# outlive their timeout (40000, nothing visible); a statement set into two
# topics; malformed records skipped and counted; a savepoint continued by
# another job with the same prefix after the first went on: refused.
math(EXPR SL_KAFKA_RESTART_PORT "${SL_KAFKA_PORT} + 1000")
foreach(case crash alo zombie stalled broker timeout set skip branch)
  add_test(NAME kafka.eo.${case}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/kafka_eo_test.py
            --sluice $<TARGET_FILE:sluice> --topic-tool $<TARGET_FILE:kafka_topic>
            --kafka-script ${SL_KAFKA} --case ${case})
  set_tests_properties(kafka.eo.${case} PROPERTIES
    LABELS kafka ENVIRONMENT "${SL_KAFKA_ENV};KAFKA_RESTART_PORT=${SL_KAFKA_RESTART_PORT}"
    FIXTURES_REQUIRED kafka TIMEOUT 480)
endforeach()

# The connectors' features (tests/kafka/kafka_features_test.py): upsert-kafka
# through crashes (final state per key, tombstones, counts that never go
# back), key and value formats (keys and murmur2 partitions checked by kcat),
# topic-pattern with topics and partitions added while the job runs, the
# source's offsets committed to its group, the broker probe,
# examples/kafka_ledger.sql, and the topics' retention read by EXPLAIN against
# a deduplication's TTL (horizon).
foreach(case upsert upsert_source keys pattern offsets probe prefix example horizon)
  add_test(NAME kafka.features.${case}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/kafka_features_test.py
            --sluice $<TARGET_FILE:sluice> --topic-tool $<TARGET_FILE:kafka_topic> --case ${case})
  set_tests_properties(kafka.features.${case} PROPERTIES
    LABELS kafka ENVIRONMENT "${SL_KAFKA_ENV}" FIXTURES_REQUIRED kafka TIMEOUT 300)
endforeach()

# METADATA columns (tests/kafka/kafka_metadata_test.py): records produced with
# known partitions and timestamps (kafka_topic --produce), read with every
# readable key and checked against kcat's view of each record, with a TUMBLE
# window over the timestamp metadata as rowtime; the timestamp written as
# metadata by an exactly-once sink, checked by a read_committed kcat, with a
# control table without it that fails the same check; headers (MAP<STRING,
# BYTES>) read as kcat wrote them and written exactly-once, checked by a
# read_committed kcat.
foreach(case read write headers)
  add_test(NAME kafka.metadata.${case}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/kafka_metadata_test.py
            --sluice $<TARGET_FILE:sluice> --topic-tool $<TARGET_FILE:kafka_topic> --case ${case})
  set_tests_properties(kafka.metadata.${case} PROPERTIES
    LABELS kafka ENVIRONMENT "${SL_KAFKA_ENV}" FIXTURES_REQUIRED kafka TIMEOUT 300)
endforeach()
