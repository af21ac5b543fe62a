# The real clients against `sluice serve` (slice "clients"): psql, pgJDBC,
# psycopg 3 and node-postgres, each case a test of its own. The client
# libraries come from their registries through scripts/clients (cached in
# .cache/clients): the server.clients.fetch fixture runs it first, and
# server.clients.jdbc.compile compiles the Java program into the build dir.
# Labels: server and clients.
set(SL_CLIENTS_DIR ${CMAKE_SOURCE_DIR}/.cache/clients)
set(SL_CLIENTS_ENV ${SL_SRV_ENV} "SLUICE_CLIENTS=${SL_CLIENTS_DIR}"
  "SLUICE_CLIENTS_BUILD=${CMAKE_BINARY_DIR}/clients")

add_test(NAME server.clients.fetch COMMAND ${CMAKE_SOURCE_DIR}/scripts/clients fetch)
set_tests_properties(server.clients.fetch PROPERTIES LABELS "server;clients"
  ENVIRONMENT "CLIENTS_CACHE_DIR=${SL_CLIENTS_DIR}" FIXTURES_SETUP clients TIMEOUT 600)

add_test(NAME server.clients.jdbc.compile
  COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/clients_jdbc_test.py compile)
set_tests_properties(server.clients.jdbc.compile PROPERTIES LABELS "server;clients"
  ENVIRONMENT "${SL_CLIENTS_ENV}" FIXTURES_REQUIRED clients FIXTURES_SETUP clients_jdbc TIMEOUT 120)

# psql: Debian's postgresql-client (scripts/setup), no fetch needed.
foreach(c ddl insert explain caret dt d_table fetch_count cancel)
  add_test(NAME server.clients.psql.${c}
    COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/clients_psql_test.py ${c})
  set_tests_properties(server.clients.psql.${c} PROPERTIES LABELS "server;clients"
    ENVIRONMENT "${SL_CLIENTS_ENV}" TIMEOUT 120)
endforeach()
# A known gap of issue 12, kept visible: psql's \d TABLE stops at its
# publications query (string_agg in a correlated scalar subquery). When it
# works this test fails: drop WILL_FAIL then.
set_tests_properties(server.clients.psql.d_table PROPERTIES WILL_FAIL TRUE)

foreach(c trust scram tls scram_tls prepared_text prepared_binary fetchsize metadata cancel warnings)
  add_test(NAME server.clients.jdbc.${c}
    COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/clients_jdbc_test.py ${c})
  set_tests_properties(server.clients.jdbc.${c} PROPERTIES LABELS "server;clients"
    ENVIRONMENT "${SL_CLIENTS_ENV}" FIXTURES_REQUIRED "clients;clients_jdbc" TIMEOUT 180)
endforeach()

# psycopg runs in the python of scripts/clients' venv.
foreach(c transaction autocommit named_cursor errors params)
  add_test(NAME server.clients.psycopg.${c}
    COMMAND ${SL_CLIENTS_DIR}/py/bin/python ${SL_SRV_DIR}/clients_psycopg_test.py ${c})
  set_tests_properties(server.clients.psycopg.${c} PROPERTIES LABELS "server;clients"
    ENVIRONMENT "${SL_CLIENTS_ENV}" FIXTURES_REQUIRED clients TIMEOUT 120)
endforeach()

foreach(c simple params)
  add_test(NAME server.clients.node.${c}
    COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/clients_node_test.py ${c})
  set_tests_properties(server.clients.node.${c} PROPERTIES LABELS "server;clients"
    ENVIRONMENT "${SL_CLIENTS_ENV}" FIXTURES_REQUIRED clients TIMEOUT 120)
endforeach()
