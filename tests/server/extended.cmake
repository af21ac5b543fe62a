# Slice "extended": the extended query protocol, value forms, streaming and
# cancel on the wire (raw v3 messages through tests/server/pgwire_client.py).
sl_server_test(server.extended extended_test.py)
# Parameters, Describe, row limits (cursors): need the engine's
# sl_session_describe / sl_session_exec_params / cursors (planner slices).
sl_server_test(server.extended_params extended_params_test.py)
