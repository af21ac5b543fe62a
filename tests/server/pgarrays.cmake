# PostgreSQL's arrays in catalog queries: ARRAY(subquery), generate_series / unnest, a[i] (slice psqld2).
sl_server_test(server.pgarrays pgarrays_test.py)
# The same queries on a real PostgreSQL (the pg fixture of tests/postgres) give the same rows.
if(DEFINED SL_PG_ENV)
  sl_server_test(server.pgarrays_pg pgarrays_test.py ARGS --pg LABELS postgres
    ENVIRONMENT ${SL_SRV_ENV} ${SL_PG_ENV} PROPERTIES FIXTURES_REQUIRED pg)
endif()
