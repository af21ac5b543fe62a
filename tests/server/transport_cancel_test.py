"""server.transport_cancel — CancelRequest with BackendKeyData's key: two
sessions stream `SELECT * FROM <unbounded datagen table>`; a request with a
wrong secret (and one with an unknown process id) changes nothing — both
keep streaming; the right key cancels that session's statement only: it
gets ErrorResponse 57014 and ReadyForQuery and stays usable, while the
other session keeps receiving rows. Then psql's own cancel (a SIGINT to
psql) stops a streaming query the same way."""
import os
import subprocess
import sys
import time

from pgwire_client import PgWire, cancel, errors, rows
from srv_util import Server, psql, psql_sigint, psql_start, tmpdir

ENDLESS = ("CREATE TABLE endless (id BIGINT) WITH ('connector' = 'datagen', "
           "'rows-per-second' = '2000', 'fields.id.kind' = 'sequence', "
           "'fields.id.start' = '1', 'fields.id.end' = '1000000000')")


def start_stream(port):
    c = PgWire(port)
    c.send_query("SELECT * FROM endless")
    t, _ = c.read()
    assert t == "T", t
    return c


def read_rows(c, n):
    """n more DataRows; fails on anything else."""
    for _ in range(n):
        m = c.read()
        assert m[0] == "D", m


def main():
    tmp = tmpdir("srv-cancel-")
    with Server(os.path.join(tmp, "data"), env={"SLUICE_LOG": "info"}) as srv:
        assert psql(srv.port, ENDLESS)[0] == 0
        a = start_stream(srv.port)
        b = start_stream(srv.port)
        assert a.pid != b.pid
        read_rows(a, 10)
        read_rows(b, 10)

        cancel(srv.port, a.pid, a.secret ^ 1)          # wrong secret
        cancel(srv.port, a.pid + b.pid + 100, a.secret)  # no such process
        # Both still stream well past the moment of the requests.
        read_rows(a, 2000)
        read_rows(b, 100)

        cancel(srv.port, a.pid, a.secret)
        while True:
            m = a.read()  # EOFError: the connection must survive the cancel
            if m[0] != "D":
                break
        assert m[0] == "E", m
        assert m[1]["C"] == "57014" and m[1]["S"] == "ERROR", m
        assert a.read()[0] == "Z"
        # The cancelled session is usable; the other one still streams.
        msgs = a.query("SHOW TABLES")
        assert not errors(msgs) and rows(msgs), msgs
        read_rows(b, 1000)
        cancel(srv.port, b.pid, b.secret)
        msgs = b.until_ready()
        assert errors(msgs)[0]["C"] == "57014", errors(msgs)
        a.terminate()
        b.terminate()

        # psql's Ctrl-C: SIGINT makes psql send a CancelRequest.
        seen = srv.log().count("application_name=psql")
        p = psql_start(srv.port, "SELECT * FROM endless", stdout=subprocess.DEVNULL)
        # Wait until the query runs: its session shows up in the server's log.
        deadline = time.time() + 30
        while srv.log().count("application_name=psql") == seen and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        err = psql_sigint(p, timeout=60)
        assert "canceling statement due to user request" in err, err
        assert psql(srv.port, "SHOW TABLES")[0] == 0
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
