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

sl_server_test(server.clients.jdbc.compile clients_jdbc_test.py ARGS compile LABELS clients
  ENVIRONMENT ${SL_CLIENTS_ENV} PROPERTIES FIXTURES_REQUIRED clients FIXTURES_SETUP clients_jdbc)

# psql: Debian's postgresql-client (scripts/setup), no fetch needed.
foreach(c ddl insert explain caret dt d_table fetch_count cancel)
  sl_server_test(server.clients.psql.${c} clients_psql_test.py ARGS ${c} LABELS clients
    ENVIRONMENT ${SL_CLIENTS_ENV})
endforeach()

foreach(c trust scram tls scram_tls prepared_text prepared_binary fetchsize metadata cancel warnings)
  sl_server_test(server.clients.jdbc.${c} clients_jdbc_test.py ARGS ${c} LABELS clients
    ENVIRONMENT ${SL_CLIENTS_ENV} TIMEOUT 180 PROPERTIES FIXTURES_REQUIRED "clients;clients_jdbc")
endforeach()

# psycopg runs in the python of scripts/clients' venv.
foreach(c transaction autocommit named_cursor errors params)
  sl_server_test(server.clients.psycopg.${c} clients_psycopg_test.py ARGS ${c} LABELS clients
    PYTHON ${SL_CLIENTS_DIR}/py/bin/python ENVIRONMENT ${SL_CLIENTS_ENV}
    PROPERTIES FIXTURES_REQUIRED clients)
endforeach()

foreach(c simple params)
  sl_server_test(server.clients.node.${c} clients_node_test.py ARGS ${c} LABELS clients
    ENVIRONMENT ${SL_CLIENTS_ENV} PROPERTIES FIXTURES_REQUIRED clients)
endforeach()
