# Exactly-once into PostgreSQL (connectors/jdbc/pg_txn.c), included from
# tests.cmake. The participant's unit test runs against both servers:
# prepare / commit / resolve / fencing / free on pg, the last resource on
# pg0, the probe on both.
if(TEST unit.test_connectors_pgtxn)
  set_tests_properties(unit.test_connectors_pgtxn PROPERTIES LABELS postgres
    FIXTURES_REQUIRED "pg;pg0" ENVIRONMENT "${SL_PG_ENV}" TIMEOUT 120)
endif()
