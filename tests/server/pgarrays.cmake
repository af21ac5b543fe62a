# PostgreSQL's arrays in catalog queries: ARRAY(subquery), generate_series / unnest, a[i] (slice psqld2).
add_test(NAME server.pgarrays COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/pgarrays_test.py)
set_tests_properties(server.pgarrays PROPERTIES LABELS server ENVIRONMENT "${SL_SRV_ENV}" TIMEOUT 120)
# The same queries on a real PostgreSQL (the pg fixture of tests/postgres) give the same rows.
if(DEFINED SL_PG_ENV)
  add_test(NAME server.pgarrays_pg COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/pgarrays_test.py --pg)
  set_tests_properties(server.pgarrays_pg PROPERTIES LABELS "server;postgres" FIXTURES_REQUIRED pg
    ENVIRONMENT "${SL_SRV_ENV};${SL_PG_ENV}" TIMEOUT 120)
endif()
