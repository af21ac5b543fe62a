# The jdbc sink's writes (none / at-least-once) against the `pg` server
# (tests/postgres/pg_write_test.py, psql as the independent reader); the
# lead includes this file beside tests.cmake (SL_PG_ENV, SL_PG_DIR):
#   pg.write_types    every type through COPY and through the upsert
#   pg.write_errors   the server's SQLSTATE: 28P01 (no password shown),
#                     42P01, 23505, 42501
#   pg.write_upsert   at-least-once upsert by key through SIGKILLs = the
#                     reference
#   pg.write_control  the same kills into a table without a key: the check
#                     must find duplicates (the control)
#   pg.write_ignore   a ledger under 'ignore' through SIGKILLs: replays
#                     absorbed, conflicts in the conflict table, the log and
#                     SHOW JOBS
#   pg.write_error    the ledger under 'error': 23505 naming the key
#   pg.write_retry    connections ended by the server: retried, every row
#   pg.write_timer    a quiet input committed by the interval's timer
#   pg.write_order    the writer driven directly (pg_write_order.c) with
#                     deletes and a key's changes in one batch, read back
foreach(c types errors upsert control ignore error retry timer)
  add_test(NAME pg.write_${c}
    COMMAND ${Python3_EXECUTABLE} ${SL_PG_DIR}/pg_write_test.py
            --sluice $<TARGET_FILE:sluice> --case ${c})
  # after pg.smoke, which restarts the server
  set_tests_properties(pg.write_${c} PROPERTIES LABELS postgres FIXTURES_REQUIRED pg
    DEPENDS pg.smoke ENVIRONMENT "${SL_PG_ENV}" TIMEOUT 300)
endforeach()
add_executable(pg_write_order ${CMAKE_CURRENT_LIST_DIR}/pg_write_order.c)
target_link_libraries(pg_write_order PRIVATE sl_connectors)
add_test(NAME pg.write_order
  COMMAND ${Python3_EXECUTABLE} ${SL_PG_DIR}/pg_write_test.py
          --sluice $<TARGET_FILE:sluice> --case order --order-bin $<TARGET_FILE:pg_write_order>)
set_tests_properties(pg.write_order PROPERTIES LABELS postgres FIXTURES_REQUIRED pg
  DEPENDS pg.smoke ENVIRONMENT "${SL_PG_ENV}" TIMEOUT 120)
