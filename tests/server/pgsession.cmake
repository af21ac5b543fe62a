# Slice pgsession: PostgreSQL's session statements over the wire (psql and raw bytes).
add_test(NAME server.pgsession COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/pgsession_test.py)
set_tests_properties(server.pgsession PROPERTIES LABELS server ENVIRONMENT "${SL_SRV_ENV}" TIMEOUT 120)
