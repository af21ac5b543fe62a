# Exactly-once into PostgreSQL (connectors/jdbc/pg_txn.c), included from
# tests.cmake. The participant's unit test runs against both servers:
# prepare / commit / resolve / fencing / free on pg, the last resource on
# pg0, the probe on both.
if(TEST unit.test_connectors_pgtxn)
  set_tests_properties(unit.test_connectors_pgtxn PROPERTIES LABELS postgres
    FIXTURES_REQUIRED "pg;pg0" ENVIRONMENT "${SL_PG_ENV}" TIMEOUT 120)
endif()

# The crash tests (tests/postgres/pg_eo_test.py, psql as the independent
# reader): a statement set writing a ledger and its totals exactly-once.
#   pg.eo_prep     preparable, 25 SIGKILLs (after PREPARE, after the
#                  decision before COMMIT PREPARED, at random); the
#                  invariant sum(ledger) = sum(totals) read all along
#   pg.eo_lr       the last resource on pg0 at parallelism 2, 25 SIGKILLs
#   pg.eo_control  the same at-least-once: the checks must fail
#   pg.eo_restart  pg_ctl restart -m immediate twice mid-run
#   pg.eo_zombie   SIGSTOP, a copy of the data directory, SIGCONT: 55006
#   pg.eo_refuse   plan-time refusals (prefix too long, unreachable)
#   pg.eo_lr_files issue test 2: CSV files written while the job runs ->
#                  pg0 (the last resource), 25 SIGKILLs (after the
#                  decision before the seal, inside checkpoints, at random)
foreach(c prep lr control restart zombie refuse lr_files)
  add_test(NAME pg.eo_${c}
    COMMAND ${Python3_EXECUTABLE} ${SL_PG_DIR}/pg_eo_test.py
            --sluice $<TARGET_FILE:sluice> --case ${c})
  set_tests_properties(pg.eo_${c} PROPERTIES LABELS postgres FIXTURES_REQUIRED "pg;pg0"
    ENVIRONMENT "${SL_PG_ENV}" TIMEOUT 300)
endforeach()
# 'table.exec.late-rows.table' into PostgreSQL (issue 15): the late clicks of
# tests/e2e/crash_late_test.py kept exactly-once by 2PC through 10 SIGKILLs
add_test(NAME pg.late_rows
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/e2e/crash_late_test.py
          --sluice $<TARGET_FILE:sluice> --kills 10 --late-sink postgres)
set_tests_properties(pg.late_rows PROPERTIES LABELS postgres FIXTURES_REQUIRED pg
  ENVIRONMENT "${SL_PG_ENV}" TIMEOUT 300)
# These restart the pg server (pg.smoke: restart --immediate with a prepared
# transaction): no other test may use it meanwhile (under ctest -j2 the
# participant's test saw the server go away). pg.lookup_cache too
# (tests.cmake, after its definition).
set_tests_properties(pg.eo_restart PROPERTIES RUN_SERIAL TRUE)
if(TEST pg.smoke)
  set_tests_properties(pg.smoke PROPERTIES RUN_SERIAL TRUE)
endif()

# With the Kafka broker too (label kafka, so the non-Kafka suite skips them):
#   pg.eo_set      Kafka EO (last resource) + PostgreSQL EO (preparable) +
#                  files EO in one statement set, 20 SIGKILLs: all three
#                  equal the reference
#   pg.eo_two_lr   Kafka EO + PostgreSQL EO on pg0: two last resources,
#                  refused naming max_prepared_transactions
#   pg.eo_kafka_window          issue test 1: Kafka clicks -> TUMBLE(1 s)
#                  COUNT/SUM per campaign -> pg (preparable, a table
#                  without key), 25 SIGKILLs (after PREPARE, after the seal
#                  before COMMIT PREPARED, inside checkpoints, at random)
#   pg.eo_kafka_window_control  the same at-least-once, 8 kills: a
#                  duplicated window must show (the check can fail)
if(DEFINED SL_KAFKA_ENV AND TARGET kafka_topic)
  foreach(c set two_lr kafka_window kafka_window_control)
    add_test(NAME pg.eo_${c}
      COMMAND ${Python3_EXECUTABLE} ${SL_PG_DIR}/pg_eo_test.py
              --sluice $<TARGET_FILE:sluice> --topic-tool $<TARGET_FILE:kafka_topic>
              --case ${c})
    set_tests_properties(pg.eo_${c} PROPERTIES LABELS "postgres;kafka"
      FIXTURES_REQUIRED "pg;pg0;kafka" ENVIRONMENT "${SL_PG_ENV};${SL_KAFKA_ENV}" TIMEOUT 400)
  endforeach()
endif()
