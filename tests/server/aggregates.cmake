# Aggregate calls (COUNT, SUM, MIN/MAX, string_agg / LISTAGG, GROUP BY, HAVING)
# over the catalog relations through `sluice serve`, read by psql.
add_test(NAME server.aggregates COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/aggregates_test.py)
set_tests_properties(server.aggregates PROPERTIES LABELS server ENVIRONMENT "${SL_SRV_ENV}" TIMEOUT 120)
# The same queries compared with a real PostgreSQL (the pg fixture of tests/postgres).
if(DEFINED SL_PG_ENV)
  add_test(NAME server.aggregates_pg COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/aggregates_test.py --pg)
  set_tests_properties(server.aggregates_pg PROPERTIES LABELS "server;postgres" FIXTURES_REQUIRED pg
    ENVIRONMENT "${SL_SRV_ENV};${SL_PG_ENV}" TIMEOUT 120)
endif()
