# Slice pgsession: PostgreSQL's session statements over the wire (psql and raw bytes).
sl_server_test(server.pgsession pgsession_test.py)
