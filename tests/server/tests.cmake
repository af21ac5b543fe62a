# Tests of `sluice serve` (the PostgreSQL wire protocol front end). Each test
# starts the servers it needs (tests/server/srv_util.py: a free port, its own
# data directory) and stops them. Label them `server`; a test that also
# needs Kafka or PostgreSQL adds that label and fixture.
#
#   sl_server_test(server.my_case my_test.py [ARGS arg...] [LABELS label...]
#     [ENVIRONMENT var=value...] [TIMEOUT seconds] [PYTHON interpreter]
#     [PROPERTIES property value...])
#
# runs tests/server/my_test.py with ARGS, labelled server (and LABELS), in
# the environment SL_SRV_ENV (ENVIRONMENT replaces it), with a timeout of
# 120 s unless TIMEOUT says otherwise; PROPERTIES are further test
# properties (FIXTURES_REQUIRED, WILL_FAIL, ...).
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(SL_SRV_DIR ${CMAKE_CURRENT_LIST_DIR})
set(SL_SRV_ENV "SLUICE_BIN=$<TARGET_FILE:sluice>" "SLUICE_TEST_TMP=${CMAKE_BINARY_DIR}/test-tmp"
  "PYTHONPATH=${CMAKE_CURRENT_LIST_DIR}")

function(sl_server_test name script)
  cmake_parse_arguments(PARSE_ARGV 2 T "" "TIMEOUT;PYTHON" "ARGS;LABELS;ENVIRONMENT;PROPERTIES")
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  if(NOT T_PYTHON)
    set(T_PYTHON ${Python3_EXECUTABLE})
  endif()
  if(NOT T_ENVIRONMENT)
    set(T_ENVIRONMENT ${SL_SRV_ENV})
  endif()
  set(labels server ${T_LABELS})
  add_test(NAME ${name} COMMAND ${T_PYTHON} ${SL_SRV_DIR}/${script} ${T_ARGS})
  set_tests_properties(${name} PROPERTIES LABELS "${labels}"
    ENVIRONMENT "${T_ENVIRONMENT}" TIMEOUT ${T_TIMEOUT} ${T_PROPERTIES})
endfunction()

sl_server_test(server.smoke smoke_test.py)

# Each slice of the server adds its tests below, one include per file.
file(GLOB SL_SRV_CMAKE CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cmake)
foreach(f ${SL_SRV_CMAKE})
  if(NOT f STREQUAL "${CMAKE_CURRENT_LIST_FILE}")
    include(${f})
  endif()
endforeach()
