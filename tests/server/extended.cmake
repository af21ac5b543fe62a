# Slice "extended": the extended query protocol, value forms, streaming and
# cancel on the wire (raw v3 messages through tests/server/pgwire_client.py).
add_test(NAME server.extended COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/extended_test.py)
set_tests_properties(server.extended PROPERTIES LABELS server ENVIRONMENT "${SL_SRV_ENV}" TIMEOUT 120)
# Parameters, Describe, row limits (cursors): need the engine's
# sl_session_describe / sl_session_exec_params / cursors (planner slices).
add_test(NAME server.extended_params COMMAND ${Python3_EXECUTABLE} ${SL_SRV_DIR}/extended_params_test.py)
set_tests_properties(server.extended_params PROPERTIES LABELS server ENVIRONMENT "${SL_SRV_ENV}" TIMEOUT 120)
