# Cursors in the engine (DECLARE / FETCH / MOVE / CLOSE) through the server,
# read by psql. cursors_fetch_count needs BEGIN (the PostgreSQL-session
# slice) and reports itself skipped until the server accepts it.
add_test(NAME server.cursors COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/cursors_test.py)
set_tests_properties(server.cursors PROPERTIES LABELS server ENVIRONMENT "${SL_SRV_ENV}"
  TIMEOUT 120)
add_test(NAME server.cursors_fetch_count
  COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/cursors_fetch_count_test.py)
set_tests_properties(server.cursors_fetch_count PROPERTIES LABELS server
  ENVIRONMENT "${SL_SRV_ENV}" TIMEOUT 120 SKIP_RETURN_CODE 77)
