"""server.smoke — `sluice serve` answers psql: DDL, a bounded query whose
rows psql prints, an error with its caret at the right character (after a
multi-byte identifier), and SIGTERM ends the server with status 0."""
import os
import sys

from srv_util import Server, psql, tmpdir


def main():
    tmp = tmpdir("srv-smoke-")
    with Server(os.path.join(tmp, "data")) as srv:
        rc, out, err = psql(srv.port, "CREATE TABLE t (a INT, `é` STRING) WITH "
                            "('connector'='datagen', 'number-of-rows'='4', 'fields.a.kind'='sequence', "
                            "'fields.a.start'='1', 'fields.a.end'='4')")
        assert rc == 0 and out.strip() == "CREATE TABLE", (rc, out, err)
        rc, out, err = psql(srv.port, "SELECT a FROM t", "-A", "-t")
        assert rc == 0, err
        assert sorted(int(x) for x in out.split()) == [1, 2, 3, 4], out
        rc, out, err = psql(srv.port, "SELECT `é`, nope FROM t")
        assert rc != 0 and 'column "nope" does not exist' in err, err
        lines = err.splitlines()
        line = next(i for i, l in enumerate(lines) if l.startswith("LINE 1:"))
        caret = lines[line + 1].index("^") - len("LINE 1: ")
        assert lines[line][len("LINE 1: "):][caret:].startswith("nope"), err
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
