# Round 2 "bytes": X'..' binary string literals and bytea parameters (any
# bytes, NUL included) over the wire: raw v3 messages and psql.
sl_server_test(server.bytes bytes_test.py)
