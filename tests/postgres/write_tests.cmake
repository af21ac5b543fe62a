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
foreach(c types errors upsert control ignore error)
  add_test(NAME pg.write_${c}
    COMMAND ${Python3_EXECUTABLE} ${SL_PG_DIR}/pg_write_test.py
            --sluice $<TARGET_FILE:sluice> --case ${c})
  set_tests_properties(pg.write_${c} PROPERTIES LABELS postgres FIXTURES_REQUIRED pg
    ENVIRONMENT "${SL_PG_ENV}" TIMEOUT 300)
endforeach()
