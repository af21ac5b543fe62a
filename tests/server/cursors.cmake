# Cursors in the engine (DECLARE / FETCH / MOVE / CLOSE) through the server,
# read by psql. cursors_fetch_count needs BEGIN (the PostgreSQL-session
# slice) and reports itself skipped until the server accepts it.
sl_server_test(server.cursors cursors_test.py)
sl_server_test(server.cursors_fetch_count cursors_fetch_count_test.py
  PROPERTIES SKIP_RETURN_CODE 77)
