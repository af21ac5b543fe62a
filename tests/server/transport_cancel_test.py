"""server.transport_cancel — CancelRequest with BackendKeyData's key: two
sessions stream `SELECT * FROM <unbounded datagen table>`; a request with a
wrong secret (and one with an unknown process id) changes nothing — both
keep streaming; the right key cancels that session's statement only: it
gets ErrorResponse 57014 and ReadyForQuery and stays usable, while the
other session keeps receiving rows. Then psql's own cancel (a SIGINT to
psql) stops a streaming query the same way."""
import os
import signal
import subprocess
import sys
import time

from srv_util import Server, psql, tmpdir
import transport_wire as w

ENDLESS = ("CREATE TABLE endless (id BIGINT) WITH ('connector' = 'datagen', "
           "'rows-per-second' = '2000', 'fields.id.kind' = 'sequence', "
           "'fields.id.start' = '1', 'fields.id.end' = '1000000000')")


def start_stream(port):
    s, pid, secret, _ = w.connect(port)
    s.sendall(w.query("SELECT * FROM endless"))
    t, _ = w.read_msg(s)
    assert t == b"T", t
    return s, pid, secret


def read_rows(s, n):
    """n more DataRows; fails on anything else."""
    for _ in range(n):
        m = w.read_msg(s)
        assert m is not None and m[0] == b"D", m


def cancel(port, pid, secret):
    c = w.sock_to(port)
    c.sendall(w.cancel_request(pid, secret))
    assert c.recv(1) == b"", "a CancelRequest is never answered"
    c.close()


def main():
    tmp = tmpdir("srv-cancel-")
    with Server(os.path.join(tmp, "data"), env={"SLUICE_LOG": "info"}) as srv:
        assert psql(srv.port, ENDLESS)[0] == 0
        a, apid, asecret = start_stream(srv.port)
        b, bpid, bsecret = start_stream(srv.port)
        assert apid != bpid
        read_rows(a, 10)
        read_rows(b, 10)

        cancel(srv.port, apid, asecret ^ 1)          # wrong secret
        cancel(srv.port, apid + bpid + 100, asecret)  # no such process
        # Both still stream well past the moment of the requests.
        read_rows(a, 2000)
        read_rows(b, 100)

        cancel(srv.port, apid, asecret)
        while True:
            m = w.read_msg(a)
            assert m is not None, "connection must survive the cancel"
            if m[0] != b"D":
                break
        assert m[0] == b"E", m
        f = w.fields(m[1])
        assert f["C"] == "57014" and f["S"] == "ERROR", f
        assert w.read_msg(a)[0] == b"Z"
        # The cancelled session is usable; the other one still streams.
        rows = w.simple(a, "SHOW TABLES")
        assert not w.errors(rows) and any(t == b"D" for t, _ in rows), rows
        read_rows(b, 1000)
        cancel(srv.port, bpid, bsecret)
        msgs = w.read_until_ready(b)
        assert w.errors(msgs)[0]["C"] == "57014", w.errors(msgs)
        a.close()
        b.close()

        # psql's Ctrl-C: SIGINT makes psql send a CancelRequest.
        seen = srv.log().count("application_name=psql")
        p = subprocess.Popen(["psql", "-X", "-h", "127.0.0.1", "-p", str(srv.port), "-U",
                              "sluice", "-d", "sluice", "-c", "SELECT * FROM endless"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        # Wait until the query runs: its session shows up in the server's log.
        deadline = time.time() + 30
        while srv.log().count("application_name=psql") == seen and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
        assert "canceling statement due to user request" in err, err
        assert psql(srv.port, "SHOW TABLES")[0] == 0
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
