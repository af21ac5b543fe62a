# MariaDB tests: a server of scripts/mariadb is a ctest fixture, `mariadb`:
# tests mariadb.start (FIXTURES_SETUP) and mariadb.stop (FIXTURES_CLEANUP).
# It listens on 127.0.0.1 at a port of its own build dir, 23306 + (a hash of
# the build dir's path mod 500), or -DSLUICE_MARIADB_TEST_PORT=N: so a server
# on 3306 or 3307 is left alone, two build dirs can run their MariaDB tests
# at the same time, and 23306..23805 meets neither the PostgreSQL ports
# (25432..27431 with pg.script's) nor the Kafka ones (19092..21092). Its run
# dir (my.cnf, data, socket, mariadb.log) is <build>/mariadb-run. Each start
# is fresh data with the users sluice/sluice (all privileges on the database
# sluice) and sluice_ro/sluice_ro (SELECT on sluice.*), and the settings
# that make a prepared XA transaction survive a crash (log_bin, sync_binlog
# 1, innodb_flush_log_at_trx_commit 1).
#
# A test that needs the server (label it `mariadb`):
#   add_test(NAME mariadb.my_case COMMAND ...)
#   set_tests_properties(mariadb.my_case PROPERTIES LABELS mariadb
#     FIXTURES_REQUIRED mariadb ENVIRONMENT "${SL_MARIADB_ENV}" TIMEOUT 300)
# SL_MARIADB_ENV gives the test
#   SLUICE_MARIADB_PORT, SLUICE_MARIADB_RUN_DIR  the server
#   SLUICE_MARIADB_SCRIPT                        scripts/mariadb (restart --immediate)
# which tests/mariadb/mariadb_util.py (the independent `mariadb` client
# reader) reads. Also set here: SL_MARIADB_PORT, SL_MARIADB_SCRIPT,
# SL_MARIADB_DIR (this folder).
if(DEFINED SLUICE_MARIADB_TEST_PORT)
  set(SL_MARIADB_PORT ${SLUICE_MARIADB_TEST_PORT})
else()
  string(MD5 SL_MARIADB_HASH "${CMAKE_BINARY_DIR}")
  string(SUBSTRING "${SL_MARIADB_HASH}" 0 4 SL_MARIADB_HASH)
  math(EXPR SL_MARIADB_PORT "23306 + (0x${SL_MARIADB_HASH} % 500)")
endif()
message(STATUS "mariadb tests: server on 127.0.0.1:${SL_MARIADB_PORT}")
set(SL_MARIADB_SCRIPT ${CMAKE_SOURCE_DIR}/scripts/mariadb)
set(SL_MARIADB_DIR ${CMAKE_CURRENT_LIST_DIR})
set(SL_MARIADB_ENV
  "SLUICE_MARIADB_PORT=${SL_MARIADB_PORT}"
  "SLUICE_MARIADB_RUN_DIR=${CMAKE_BINARY_DIR}/mariadb-run"
  "SLUICE_MARIADB_SCRIPT=${SL_MARIADB_SCRIPT}")

# start: mariadb-install-db + start + users, about 2 s; stop: a clean
# shutdown, about 0.3 s.
add_test(NAME mariadb.start COMMAND ${SL_MARIADB_SCRIPT} start)
add_test(NAME mariadb.stop COMMAND ${SL_MARIADB_SCRIPT} stop)
set_tests_properties(mariadb.start mariadb.stop PROPERTIES ENVIRONMENT
  "MARIADB_PORT=${SL_MARIADB_PORT};MARIADB_RUN_DIR=${CMAKE_BINARY_DIR}/mariadb-run")
set_tests_properties(mariadb.start PROPERTIES FIXTURES_SETUP mariadb)
set_tests_properties(mariadb.stop PROPERTIES FIXTURES_CLEANUP mariadb)
set_tests_properties(mariadb.start mariadb.stop PROPERTIES LABELS mariadb TIMEOUT 120)

# What MariaDB's XA guarantees across a disconnect and a server crash
# (tests/mariadb/xa_test.py), the facts the MySQL/MariaDB exactly-once sink
# relies on: password logins and the read-only user, the durability
# settings (the sink's plan-time probe), XA PREPARE surviving the client's
# disconnect (MDEV-742) and restart --immediate (SIGKILL), XA COMMIT /
# XA ROLLBACK after recovery, 1397 XAER_NOTA for an xid not prepared, an
# XA END'ed transaction and an open one gone after the crash.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME mariadb.xa COMMAND ${Python3_EXECUTABLE} ${SL_MARIADB_DIR}/xa_test.py)
set_tests_properties(mariadb.xa PROPERTIES LABELS mariadb FIXTURES_REQUIRED mariadb
  ENVIRONMENT "${SL_MARIADB_ENV}" TIMEOUT 300)

# A second server, the fixture `mariadb_lr`: the same settings but
# --sync-binlog=0 (log_bin ON without a synced binary log: exactly-once is
# refused there, my_check.c); mariadb.eo_lr sets sync_binlog = 1 for its
# run of the last-resource role, mariadb.eo_settings changes settings.
# Its port is SL_MARIADB_PORT + 500 (23806..24305), its run dir
# <build>/mariadb-lr-run. A test of it gets SL_MARIADB_LR_ENV too:
#   SLUICE_MARIADB_LR_PORT, SLUICE_MARIADB_LR_RUN_DIR
math(EXPR SL_MARIADB_LR_PORT "${SL_MARIADB_PORT} + 500")
set(SL_MARIADB_LR_ENV
  "SLUICE_MARIADB_LR_PORT=${SL_MARIADB_LR_PORT}"
  "SLUICE_MARIADB_LR_RUN_DIR=${CMAKE_BINARY_DIR}/mariadb-lr-run")
add_test(NAME mariadb_lr.start COMMAND ${SL_MARIADB_SCRIPT} start)
add_test(NAME mariadb_lr.stop COMMAND ${SL_MARIADB_SCRIPT} stop)
set_tests_properties(mariadb_lr.start mariadb_lr.stop PROPERTIES ENVIRONMENT
  "MARIADB_PORT=${SL_MARIADB_LR_PORT};MARIADB_RUN_DIR=${CMAKE_BINARY_DIR}/mariadb-lr-run;MARIADB_SERVER_OPTS=--sync-binlog=0")
set_tests_properties(mariadb_lr.start PROPERTIES FIXTURES_SETUP mariadb_lr)
set_tests_properties(mariadb_lr.stop PROPERTIES FIXTURES_CLEANUP mariadb_lr)
set_tests_properties(mariadb_lr.start mariadb_lr.stop PROPERTIES LABELS mariadb TIMEOUT 120)

# Exactly-once into MariaDB (connectors/jdbc/my_*.c), tests/mariadb/my_eo_test.py
# with the `mariadb` client as the independent reader: a statement set
# writing a ledger and its totals exactly-once (see the script's doc).
#   mariadb.eo_prep      XA per epoch, 25 SIGKILLs (after XA PREPARE, after
#                        the decision before XA COMMIT, at random)
#   mariadb.eo_control   the same at-least-once, 8 kills: duplicates must show
#   mariadb.eo_restart   restart --immediate of the server twice mid-run
#   mariadb.eo_zombie    SIGSTOP, a copy of the data directory, SIGCONT: 55006
#   mariadb.eo_zombie_xa the same with A frozen holding a prepared epoch:
#                        undecided (B rolls it back), decided (B commits it)
#   mariadb.eo_refuse    plan-time refusals (28P01 08001 3D000 42P01 42703
#                        42501 42P10 22023 0A000), DROP TABLE while an xid
#                        of its prefix is prepared (55006)
#   mariadb.eo_lr        the last resource (SLUICE_TEST_MARIADB_NO_XA=1 on
#                        mariadb_lr with sync_binlog set to 1 for the case),
#                        10 SIGKILLs (after the decision before the seal,
#                        inside checkpoints, at random)
#   mariadb.eo_settings  on mariadb_lr: sync_binlog = 0 with log_bin, then
#                        innodb_flush_log_at_trx_commit = 2: exactly-once
#                        refused with 0A000 naming the setting, or
#                        downgraded with a WARNING
# Every test of the `mariadb` server takes the lock mariadb_restart:
# mariadb.xa and mariadb.eo_restart SIGKILL it (a concurrent job would fail,
# a concurrent reader would see the server go away). The two of mariadb_lr
# take mariadb_lr (eo_settings changes a global setting of it).
set(SL_MY_EO_ARGS_prep --kills 25 --rows 11000 --rate 400)
set(SL_MY_EO_ARGS_control --rows 4000 --rate 400)
set(SL_MY_EO_ARGS_restart --rows 3000 --rate 400)
set(SL_MY_EO_ARGS_zombie --rows 3000 --rate 400)
set(SL_MY_EO_ARGS_zombie_xa --rows 3000 --rate 400)
set(SL_MY_EO_ARGS_refuse)
set(SL_MY_EO_ARGS_lr --kills 10 --rows 5000 --rate 400)
set(SL_MY_EO_ARGS_settings)
foreach(c prep control restart zombie zombie_xa refuse lr settings conflicts)
  add_test(NAME mariadb.eo_${c}
    COMMAND ${Python3_EXECUTABLE} ${SL_MARIADB_DIR}/my_eo_test.py
            --sluice $<TARGET_FILE:sluice> --case ${c} ${SL_MY_EO_ARGS_${c}})
  if(c STREQUAL "lr" OR c STREQUAL "settings")
    set_tests_properties(mariadb.eo_${c} PROPERTIES FIXTURES_REQUIRED mariadb_lr
      RESOURCE_LOCK mariadb_lr)
  else()
    set_tests_properties(mariadb.eo_${c} PROPERTIES FIXTURES_REQUIRED mariadb
      RESOURCE_LOCK mariadb_restart)
  endif()
  set_tests_properties(mariadb.eo_${c} PROPERTIES LABELS mariadb
    ENVIRONMENT "${SL_MARIADB_ENV};${SL_MARIADB_LR_ENV}" TIMEOUT 300)
endforeach()
set_tests_properties(mariadb.xa PROPERTIES RESOURCE_LOCK mariadb_restart)
