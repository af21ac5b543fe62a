# The `sluice` shell as a client of `sluice serve` (tests/server/shellclient_test.py):
# one ctest test per case_* of the script.
set(SL_SHELLCLIENT_TEST ${CMAKE_CURRENT_LIST_DIR}/shellclient_test.py)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${SL_SHELLCLIENT_TEST})
execute_process(COMMAND ${Python3_EXECUTABLE} ${SL_SHELLCLIENT_TEST} --list
                OUTPUT_VARIABLE SL_SHELLCLIENT_CASES OUTPUT_STRIP_TRAILING_WHITESPACE
                COMMAND_ERROR_IS_FATAL ANY)
string(REPLACE "\n" ";" SL_SHELLCLIENT_CASES "${SL_SHELLCLIENT_CASES}")
foreach(case IN LISTS SL_SHELLCLIENT_CASES)
  sl_server_test(server.shellclient.${case} shellclient_test.py ARGS --case ${case})
endforeach()
