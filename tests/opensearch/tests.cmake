# OpenSearch tests: a single node of scripts/opensearch is a ctest fixture,
# `opensearch`: tests opensearch.start (FIXTURES_SETUP; the first run on a
# machine fetches the jars with mvn into .cache/opensearch) and
# opensearch.stop (FIXTURES_CLEANUP). Its REST API listens on 127.0.0.1 at
# a port of its own build dir, 27500 + 2 * (a hash of the build dir's path
# mod 500), or -DSLUICE_OPENSEARCH_TEST_PORT=N, and its transport on the
# port after it: 27500..28500, clear of Kafka's ports (19092..21091), S3's
# (21100..22698 and 31108..32698), MariaDB's (23306..23805), PostgreSQL's
# (25432..27431) and Linux's ephemeral range (32768..), so two build dirs
# can run their OpenSearch tests at the same time. The run dir (config,
# data, logs) is <build>/opensearch-run; each start is fresh data, security
# off (no security plugin), as the user nobody when started as root.
#
# A test that needs the server (label it `opensearch`):
#   add_test(NAME opensearch.my_case COMMAND ...)
#   set_tests_properties(opensearch.my_case PROPERTIES LABELS opensearch
#     FIXTURES_REQUIRED opensearch ENVIRONMENT "${SL_OPENSEARCH_ENV}" TIMEOUT 300)
# SL_OPENSEARCH_ENV gives the test SLUICE_OPENSEARCH_URL
# (http://127.0.0.1:<port>). Also set here: SL_OPENSEARCH_PORT,
# SL_OPENSEARCH_SCRIPT, SL_OPENSEARCH_DIR (this folder).
if(DEFINED SLUICE_OPENSEARCH_TEST_PORT)
  set(SL_OPENSEARCH_PORT ${SLUICE_OPENSEARCH_TEST_PORT})
else()
  string(MD5 SL_OPENSEARCH_HASH "${CMAKE_BINARY_DIR}")
  string(SUBSTRING "${SL_OPENSEARCH_HASH}" 0 4 SL_OPENSEARCH_HASH)
  math(EXPR SL_OPENSEARCH_PORT "27500 + 2 * (0x${SL_OPENSEARCH_HASH} % 500)")
endif()
message(STATUS "opensearch tests: OpenSearch REST API on 127.0.0.1:${SL_OPENSEARCH_PORT}")
set(SL_OPENSEARCH_SCRIPT ${CMAKE_SOURCE_DIR}/scripts/opensearch)
set(SL_OPENSEARCH_DIR ${CMAKE_CURRENT_LIST_DIR})
set(SL_OPENSEARCH_ENV "SLUICE_OPENSEARCH_URL=http://127.0.0.1:${SL_OPENSEARCH_PORT}")

# start: about 6 s on 2 cores (a JVM, fresh data, until GET /_cluster/health
# answers); on a fresh machine it first fetches the jars (mvn, ~60 MB).
# stop: SIGTERM, about 1 s.
add_test(NAME opensearch.start COMMAND ${SL_OPENSEARCH_SCRIPT} start)
add_test(NAME opensearch.stop COMMAND ${SL_OPENSEARCH_SCRIPT} stop)
set_tests_properties(opensearch.start opensearch.stop PROPERTIES LABELS opensearch ENVIRONMENT
  "OPENSEARCH_PORT=${SL_OPENSEARCH_PORT};OPENSEARCH_RUN_DIR=${CMAKE_BINARY_DIR}/opensearch-run")
set_tests_properties(opensearch.start PROPERTIES FIXTURES_SETUP opensearch TIMEOUT 600)
set_tests_properties(opensearch.stop PROPERTIES FIXTURES_CLEANUP opensearch TIMEOUT 120)

# The opensearch sink against the server (tests/opensearch/opensearch_test.py),
# read back independently with plain HTTP (_refresh, _search):
# keyed: a keyed job SIGKILLed ~10 times over a finite source: the index
#        holds exactly the reference's documents (a replay rewrites the same _ids)
# control: the same without a key, half the kills after a bulk was answered
#        and before the checkpoint completed: duplicates must show
# conflict: an integer field given a non-numeric string: the job fails
#        naming the document; with 'sink.failure-handler' = 'ignore' it
#        finishes, the rest indexed; plus deletes of retracted rows by key
# faults: a fake _bulk endpoint in the test (no server needed): a 503 and a
#        rejected (429) item retried by the backoff, only that item resent;
#        without a backoff strategy a 503 fails at once
find_package(Python3 COMPONENTS Interpreter REQUIRED)
foreach(mode keyed control conflict faults)
  add_test(NAME opensearch.${mode}
    COMMAND ${Python3_EXECUTABLE} ${SL_OPENSEARCH_DIR}/opensearch_test.py
            --sluice $<TARGET_FILE:sluice> --mode ${mode} --kills 10)
  set_tests_properties(opensearch.${mode} PROPERTIES LABELS opensearch
    FIXTURES_REQUIRED opensearch ENVIRONMENT "${SL_OPENSEARCH_ENV}" TIMEOUT 300)
endforeach()
