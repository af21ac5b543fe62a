# Aggregate calls (COUNT, SUM, MIN/MAX, string_agg / LISTAGG, GROUP BY, HAVING)
# over the catalog relations through `sluice serve`, read by psql.
sl_server_test(server.aggregates aggregates_test.py)
# The same queries compared with a real PostgreSQL (the pg fixture of tests/postgres).
if(DEFINED SL_PG_ENV)
  sl_server_test(server.aggregates_pg aggregates_test.py ARGS --pg LABELS postgres
    ENVIRONMENT ${SL_SRV_ENV} ${SL_PG_ENV} PROPERTIES FIXTURES_REQUIRED pg)
endif()
