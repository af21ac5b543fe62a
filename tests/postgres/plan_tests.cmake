# The jdbc connector's plan-time checks and its bounded scan against the
# `pg` server (tests/postgres/tests.cmake defines the fixture and SL_PG_ENV;
# include this file after it).
#   pg.plan_errors  each bad configuration fails the statement that plans it
#                   with PostgreSQL's SQLSTATE (plan_test.py errors)
#   pg.scan         every mapped type, NULLs, parallelism 1 and 3, whole and
#                   partitioned, compared with psql's reading (plan_test.py scan)
#   pg.source_seek  a scan stopped and restored from its position reads each
#                   row once (pg_source_check.c; with a control)
#   pg.scan_crash   a partitioned scan at parallelism 2 into the exactly-once
#                   filesystem sink through 5 SIGKILLs: every row once
#                   (scan_crash_test.py); pg.scan_crash_print_control: the
#                   same into print must show duplicates
add_test(NAME pg.plan_errors
  COMMAND ${Python3_EXECUTABLE} ${SL_PG_DIR}/plan_test.py --sluice $<TARGET_FILE:sluice> errors)
add_test(NAME pg.scan
  COMMAND ${Python3_EXECUTABLE} ${SL_PG_DIR}/plan_test.py --sluice $<TARGET_FILE:sluice> scan)
add_executable(pg_source_check ${SL_PG_DIR}/pg_source_check.c)
target_link_libraries(pg_source_check PRIVATE sl_connectors)
add_test(NAME pg.source_seek COMMAND pg_source_check ${SL_PG_PORT})
add_test(NAME pg.scan_crash
  COMMAND ${Python3_EXECUTABLE} ${SL_PG_DIR}/scan_crash_test.py --sluice $<TARGET_FILE:sluice>)
add_test(NAME pg.scan_crash_print_control
  COMMAND ${Python3_EXECUTABLE} ${SL_PG_DIR}/scan_crash_test.py --sluice $<TARGET_FILE:sluice>
          --sink print)
# pg.smoke restarts the pg server (restart --immediate): these run after it.
set_tests_properties(pg.plan_errors pg.scan pg.source_seek pg.scan_crash
  pg.scan_crash_print_control PROPERTIES LABELS postgres
  FIXTURES_REQUIRED pg ENVIRONMENT "${SL_PG_ENV}" TIMEOUT 600 DEPENDS pg.smoke)
# Both create and alter the roles pgplan_rw and pgplan_ro.
set_tests_properties(pg.plan_errors pg.scan PROPERTIES RESOURCE_LOCK pgplan_roles)
