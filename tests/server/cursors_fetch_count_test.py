"""server.cursors_fetch_count — psql's \\set FETCH_COUNT over a streaming
query: psql wraps the SELECT in BEGIN; DECLARE _psql_cursor NO SCROLL
CURSOR FOR ...; FETCH FORWARD n ...; CLOSE; COMMIT. The rows psql prints
must be the query's (an unbounded table under LIMIT 35, read 10 at a
time). BEGIN / COMMIT come from the PostgreSQL-session slice: until the
server accepts BEGIN this test reports itself skipped (exit 77)."""
import os
import sys

from srv_util import Server, psql, tmpdir


def main():
    tmp = tmpdir("srv-fetchcount-")
    with Server(os.path.join(tmp, "data")) as srv:
        rc, out, err = psql(srv.port, (
            "CREATE TABLE endless (id BIGINT) WITH ('connector'='datagen', "
            "'rows-per-second'='5000', 'fields.id.kind'='sequence', "
            "'fields.id.start'='1', 'fields.id.end'='1000000000')"))
        assert rc == 0, err
        rc, out, err = psql(srv.port, "BEGIN")
        if rc != 0:
            print("skipped: the server does not accept BEGIN yet: " + err.strip())
            return 77
        rc, out, err = psql(srv.port, None, "-A", "-t", "-q", stdin=(
            "SET 'parallelism.default' = '1';\n"
            "\\set FETCH_COUNT 10\n"
            "SELECT id FROM endless LIMIT 35;\n"))
        assert rc == 0, err
        assert [int(x) for x in out.split()] == list(range(1, 36)), out
        assert srv.stop() == 0, srv.log()
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
