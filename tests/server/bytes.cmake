# Round 2 "bytes": X'..' binary string literals and bytea parameters (any
# bytes, NUL included) over the wire: raw v3 messages and psql.
add_test(NAME server.bytes COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/bytes_test.py)
set_tests_properties(server.bytes PROPERTIES LABELS server ENVIRONMENT "${SL_SRV_ENV}" TIMEOUT 120)
