# PostgreSQL's catalog relations through `sluice serve` (slice syscat).
add_test(NAME server.syscat COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/syscat_test.py)
set_tests_properties(server.syscat PROPERTIES LABELS server ENVIRONMENT "${SL_SRV_ENV}" TIMEOUT 120)
# The same, compared with a real PostgreSQL (the pg fixture of tests/postgres).
if(DEFINED SL_PG_ENV)
  add_test(NAME server.syscat_pg COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/syscat_test.py --pg)
  set_tests_properties(server.syscat_pg PROPERTIES LABELS "server;postgres" FIXTURES_REQUIRED pg
    ENVIRONMENT "${SL_SRV_ENV};${SL_PG_ENV}" TIMEOUT 120)
endif()
