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
