# pgJDBC's DatabaseMetaData queries over the extended protocol (slice describe).
add_test(NAME server.describe COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/describe_test.py)
set_tests_properties(server.describe PROPERTIES LABELS server ENVIRONMENT "${SL_SRV_ENV}" TIMEOUT 120)
