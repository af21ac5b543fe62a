# RECONCILE over the wire (tests/server/reconcile_test.py): an ordinary result set.
sl_server_test(server.reconcile reconcile_test.py)
