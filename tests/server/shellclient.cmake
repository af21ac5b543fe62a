# The `sluice` shell as a client of `sluice serve` (tests/server/shellclient_test.py):
# one ctest test per case_* of the script.
sl_python_cases(SL_SHELLCLIENT_CASES ${CMAKE_CURRENT_LIST_DIR}/shellclient_test.py)
foreach(case IN LISTS SL_SHELLCLIENT_CASES)
  sl_server_test(server.shellclient.${case} shellclient_test.py ARGS --case ${case})
endforeach()
