# pgJDBC's DatabaseMetaData queries over the extended protocol (slice describe).
sl_server_test(server.describe describe_test.py)
