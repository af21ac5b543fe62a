# PostgreSQL's catalog relations through `sluice serve` (slice syscat).
sl_server_test(server.syscat syscat_test.py)
# The same, compared with a real PostgreSQL (the pg fixture of tests/postgres).
if(DEFINED SL_PG_ENV)
  sl_server_test(server.syscat_pg syscat_test.py ARGS --pg LABELS postgres
    ENVIRONMENT ${SL_SRV_ENV} ${SL_PG_ENV} PROPERTIES FIXTURES_REQUIRED pg)
endif()
