# PostgreSQL tests: two servers of scripts/postgres are ctest fixtures.
#   pg   max_prepared_transactions = 64 (two-phase commit available);
#        tests pg.start (FIXTURES_SETUP) and pg.stop (FIXTURES_CLEANUP)
#   pg0  max_prepared_transactions = 0 (PREPARE TRANSACTION refused);
#        tests pg0.start and pg0.stop
# pg listens on 127.0.0.1 at a port of its own build dir, 25432 + 2 * (a
# hash of the build dir's path mod 500), or -DSLUICE_PG_TEST_PORT=N; pg0 at
# that port + 1. So a server on 5432 or 5433 is left alone and two build
# dirs can run their PostgreSQL tests at the same time. Their run dirs (data,
# socket, postgres.log) are <build>/pg-run and <build>/pg0-run. Each start
# is a fresh cluster with the roles sluice/sluice (superuser) and
# sluice_ro/sluice_ro (read-only) and the database sluice.
#
# A test that needs a server (label it `postgres`):
#   add_test(NAME pg.my_case COMMAND ...)
#   set_tests_properties(pg.my_case PROPERTIES LABELS postgres
#     FIXTURES_REQUIRED pg              # or "pg;pg0" for both servers
#     ENVIRONMENT "${SL_PG_ENV}" TIMEOUT 300)
# SL_PG_ENV gives the test
#   SLUICE_PG_PORT, SLUICE_PG_RUN_DIR    the pg server
#   SLUICE_PG0_PORT, SLUICE_PG0_RUN_DIR  the pg0 server
#   SLUICE_PG_SCRIPT                     scripts/postgres (restart --immediate)
# which tests/postgres/pg_util.py (the independent psql reader) reads. Also
# set here: SL_PG_PORT, SL_PG0_PORT, SL_PG_SCRIPT, SL_PG_DIR (this folder).
if(DEFINED SLUICE_PG_TEST_PORT)
  set(SL_PG_PORT ${SLUICE_PG_TEST_PORT})
else()
  string(MD5 SL_PG_HASH "${CMAKE_BINARY_DIR}")
  string(SUBSTRING "${SL_PG_HASH}" 0 4 SL_PG_HASH)
  math(EXPR SL_PG_PORT "25432 + 2 * (0x${SL_PG_HASH} % 500)")
endif()
math(EXPR SL_PG0_PORT "${SL_PG_PORT} + 1")
message(STATUS "postgres tests: servers on 127.0.0.1:${SL_PG_PORT} (pg) and :${SL_PG0_PORT} (pg0)")
set(SL_PG_SCRIPT ${CMAKE_SOURCE_DIR}/scripts/postgres)
set(SL_PG_DIR ${CMAKE_CURRENT_LIST_DIR})
set(SL_PG_ENV
  "SLUICE_PG_PORT=${SL_PG_PORT}" "SLUICE_PG_RUN_DIR=${CMAKE_BINARY_DIR}/pg-run"
  "SLUICE_PG0_PORT=${SL_PG0_PORT}" "SLUICE_PG0_RUN_DIR=${CMAKE_BINARY_DIR}/pg0-run"
  "SLUICE_PG_SCRIPT=${SL_PG_SCRIPT}")

# start: initdb + start + roles, about 1 s; stop: a fast shutdown.
add_test(NAME pg.start COMMAND ${SL_PG_SCRIPT} start)
add_test(NAME pg.stop COMMAND ${SL_PG_SCRIPT} stop)
add_test(NAME pg0.start COMMAND ${SL_PG_SCRIPT} start)
add_test(NAME pg0.stop COMMAND ${SL_PG_SCRIPT} stop)
set_tests_properties(pg.start pg.stop PROPERTIES ENVIRONMENT
  "PG_PORT=${SL_PG_PORT};PG_RUN_DIR=${CMAKE_BINARY_DIR}/pg-run;PG_MAX_PREPARED_TRANSACTIONS=64")
set_tests_properties(pg0.start pg0.stop PROPERTIES ENVIRONMENT
  "PG_PORT=${SL_PG0_PORT};PG_RUN_DIR=${CMAKE_BINARY_DIR}/pg0-run;PG_MAX_PREPARED_TRANSACTIONS=0")
set_tests_properties(pg.start PROPERTIES FIXTURES_SETUP pg)
set_tests_properties(pg.stop PROPERTIES FIXTURES_CLEANUP pg)
set_tests_properties(pg0.start PROPERTIES FIXTURES_SETUP pg0)
set_tests_properties(pg0.stop PROPERTIES FIXTURES_CLEANUP pg0)
set_tests_properties(pg.start pg.stop pg0.start pg0.stop PROPERTIES LABELS postgres TIMEOUT 120)

# The servers are what the tests expect (tests/postgres/smoke_test.py):
# password logins over TCP, the settings, pg_util's reading of values,
# prepared transactions on pg (kept through restart --immediate) and refused
# on pg0, the read-only role, wrong passwords refused with 28P01.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME pg.smoke COMMAND ${Python3_EXECUTABLE} ${SL_PG_DIR}/smoke_test.py)
set_tests_properties(pg.smoke PROPERTIES LABELS postgres FIXTURES_REQUIRED "pg;pg0"
  ENVIRONMENT "${SL_PG_ENV}" TIMEOUT 120)

# scripts/postgres itself (tests/postgres/script_test.sh) on a server of its
# own at the pg port + 1000: status 0/1/3, start on a stale postmaster.pid
# left by SIGKILL (PG_KEEP_DATA=1 keeps the data), restart --immediate of a
# dead and of a live server, PG_MAX_PREPARED_TRANSACTIONS, fresh data on a
# plain start, a port in use.
math(EXPR SL_PG_SCRIPT_PORT "${SL_PG_PORT} + 1000")
add_test(NAME pg.script COMMAND ${SL_PG_DIR}/script_test.sh)
set_tests_properties(pg.script PROPERTIES LABELS postgres TIMEOUT 180 ENVIRONMENT
  "SLUICE_PG_SCRIPT=${SL_PG_SCRIPT};PG_PORT=${SL_PG_SCRIPT_PORT};PG_RUN_DIR=${CMAKE_BINARY_DIR}/pg-script-run")

# Exactly-once (pg_txn.c): the participant's test and the crash tests.
include(${SL_PG_DIR}/pgtxn.cmake)

# Lookup joins against PostgreSQL (tests/postgres/lookup_test.py): results of
# INNER / LEFT / expression / two-column keys against a Python computation,
# the cache options ('NONE' sees an update at once, 'PARTIAL' after
# expire-after-write) and a reconnect after a restart, a SIGKILL loop.
foreach(c results cache crash)
  add_test(NAME pg.lookup_${c}
    COMMAND ${Python3_EXECUTABLE} ${SL_PG_DIR}/lookup_test.py --sluice $<TARGET_FILE:sluice> --case ${c})
  set_tests_properties(pg.lookup_${c} PROPERTIES LABELS postgres FIXTURES_REQUIRED pg
    ENVIRONMENT "${SL_PG_ENV}" TIMEOUT 600)
endforeach()
# The cache case restarts the pg server (restart --immediate: the lookup's
# reconnect): nothing else may use it meanwhile (under ctest -j3 it took the
# server from pg.lookup_crash and pg.example_billing).
set_tests_properties(pg.lookup_cache PROPERTIES RUN_SERIAL TRUE)

# examples/billing/run end to end (Kafka and PostgreSQL fixtures, a server
# of its own), every table it writes read back with psql against a
# reference computed from the example's files.
if(DEFINED SL_KAFKA_ENV)
  add_test(NAME pg.example_billing COMMAND ${Python3_EXECUTABLE}
    ${SL_PG_DIR}/billing_example_test.py --sluice $<TARGET_FILE:sluice>)
  set_tests_properties(pg.example_billing PROPERTIES LABELS "postgres;kafka"
    FIXTURES_REQUIRED "kafka;pg" ENVIRONMENT "${SL_PG_ENV};${SL_KAFKA_ENV}" TIMEOUT 400)
endif()
# RECONCILE against hand-broken PostgreSQL ledgers (tests/postgres/reconcile_test.py):
# a row deleted, doubled, changed, foreign, all at once, and the correct
# ledger as the control, each against a reference computed from psql's rows.
add_test(NAME pg.reconcile
  COMMAND ${Python3_EXECUTABLE} ${SL_PG_DIR}/reconcile_test.py --sluice $<TARGET_FILE:sluice>)
set_tests_properties(pg.reconcile PROPERTIES LABELS postgres FIXTURES_REQUIRED pg
  ENVIRONMENT "${SL_PG_ENV}" TIMEOUT 300 RESOURCE_LOCK pg_rec_tables)
# The range predicate pushed into the ledger's COPY: rows outside the day
# are a trap (1 / 0) that only a read of the whole ledger springs.
add_test(NAME pg.reconcile_push
  COMMAND ${Python3_EXECUTABLE} ${SL_PG_DIR}/reconcile_push_test.py --sluice $<TARGET_FILE:sluice>)
set_tests_properties(pg.reconcile_push PROPERTIES LABELS postgres FIXTURES_REQUIRED pg
  ENVIRONMENT "${SL_PG_ENV}" TIMEOUT 120)
# ... with the clicks in a Kafka topic read up to its end offsets (both fixtures).
add_test(NAME pg.reconcile_kafka
  COMMAND ${Python3_EXECUTABLE} ${SL_PG_DIR}/reconcile_test.py --sluice $<TARGET_FILE:sluice>
          --source kafka --topic-tool $<TARGET_FILE:kafka_topic>)
set_tests_properties(pg.reconcile_kafka PROPERTIES LABELS "postgres;kafka"
  FIXTURES_REQUIRED "pg;kafka" ENVIRONMENT "${SL_PG_ENV};${SL_KAFKA_ENV}" TIMEOUT 300
  RESOURCE_LOCK pg_rec_tables)  # both tests make the tables rec_*
