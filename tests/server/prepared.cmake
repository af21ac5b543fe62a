# Statements with parameters run again and again: the engine's parse cache
# (planner/session_cursor.c) gives each run its own values and retypes after
# a catalog change or with a temporary view.
add_test(NAME server.prepared COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/prepared_test.py)
set_tests_properties(server.prepared PROPERTIES LABELS server ENVIRONMENT "${SL_SRV_ENV}" TIMEOUT 120)
