# The Flink SQL client's statements over the wire, through psql (slice stmts).
sl_server_test(server.flink_client flink_client_test.py)
