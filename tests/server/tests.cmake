# Tests of `sluice serve` (the PostgreSQL wire protocol front end). Each test
# starts the servers it needs (tests/server/srv_util.py: a free port, its own
# data directory) and stops them. Label them `server`; a test that also
# needs Kafka or PostgreSQL adds that label and fixture.
#
#   add_test(NAME server.my_case COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/my_test.py)
#   set_tests_properties(server.my_case PROPERTIES LABELS server
#     ENVIRONMENT "${SL_SRV_ENV}" TIMEOUT 300)
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(SL_SRV_DIR ${CMAKE_CURRENT_LIST_DIR})
set(SL_SRV_ENV "SLUICE_BIN=$<TARGET_FILE:sluice>" "SLUICE_TEST_TMP=${CMAKE_BINARY_DIR}/test-tmp"
  "PYTHONPATH=${CMAKE_CURRENT_LIST_DIR}")

add_test(NAME server.smoke COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/smoke_test.py)
set_tests_properties(server.smoke PROPERTIES LABELS server ENVIRONMENT "${SL_SRV_ENV}" TIMEOUT 120)

# Each slice of the server adds its tests below, one include per file.
file(GLOB SL_SRV_CMAKE CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cmake)
foreach(f ${SL_SRV_CMAKE})
  if(NOT f STREQUAL "${CMAKE_CURRENT_LIST_FILE}")
    include(${f})
  endif()
endforeach()
