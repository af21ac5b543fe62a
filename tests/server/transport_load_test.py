"""server.transport_load — many clients and a client that stops reading.

While a background job runs (INSERT INTO a blackhole from an unbounded
datagen table), 200 connections are open at once, each running SHOW TABLES
and SHOW JOBS and checking their rows; afterwards the job is still RUNNING
and its row count still grows. Then a client starts a fast unbounded SELECT
and stops reading (backpressure): another session's statements still
answer, the job still makes progress, and SIGTERM still stops the server
(exit 0) with that client connected."""
import os
import socket
import sys
import threading
import time

from pgwire_client import PgWire, errors, rows
from srv_util import Server, psql, tmpdir

N = 200
SETUP = [
    "CREATE TABLE endless (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '1000', "
    "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000000')",
    "CREATE TABLE fast (id BIGINT, pad STRING) WITH ('connector' = 'datagen', "
    "'rows-per-second' = '1000000', 'fields.pad.length' = '200')",
    "CREATE TABLE nowhere (id BIGINT) WITH ('connector' = 'blackhole')",
    "SET 'pipeline.name' = 'bg'",
    "INSERT INTO nowhere SELECT id FROM endless",
]


def job_rows(port):
    """(status, rows in) of job bg, read through a raw session."""
    c = PgWire(port)
    msgs = c.query("SHOW JOBS")
    c.terminate()
    assert not errors(msgs) and len(rows(msgs)) == 1, msgs
    vals = rows(msgs)[0]
    return vals[1].decode(), int(vals[5] or 0)


def wait_progress(port, before, what):
    deadline = time.time() + 30
    while time.time() < deadline:
        status, rows = job_rows(port)
        assert status == "RUNNING", status
        if rows > before:
            return rows
        time.sleep(0.1)
    raise AssertionError("the job made no progress " + what)


def client(port, barrier, failures, i):
    try:
        c = PgWire(port, params={"application_name": "load%d" % i}, timeout=120)
        barrier.wait(timeout=120)  # all N connections are open at once
        for sql in ("SHOW TABLES", "SHOW JOBS", "SHOW TABLES"):
            msgs = c.query(sql)
            assert not errors(msgs), msgs
            assert len(rows(msgs)) == (3 if sql == "SHOW TABLES" else 1), (sql, msgs)
        c.terminate()
    except Exception as e:  # reported by the main thread
        failures.append("%d: %r" % (i, e))
        barrier.abort()


def main():
    tmp = tmpdir("srv-load-")
    with Server(os.path.join(tmp, "data")) as srv:
        rc, out, err = psql(srv.port, None, *sum((["-c", q] for q in SETUP), []))
        assert rc == 0, err
        rows0 = wait_progress(srv.port, 0, "at start")

        barrier = threading.Barrier(N)
        failures = []
        threads = [threading.Thread(target=client, args=(srv.port, barrier, failures, i))
                   for i in range(N)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(180)
        assert not failures, failures[:5]
        assert not any(t.is_alive() for t in threads)
        rows1 = wait_progress(srv.port, rows0, "during the 200 connections")

        # A client that asks for a fast stream and stops reading.
        stalled = socket.socket()
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled.settimeout(30)
        stalled.connect(("127.0.0.1", srv.port))
        stalled = PgWire(srv.port, sock=stalled, timeout=30)
        stalled.send_query("SELECT * FROM fast")
        stalled.flush_out()
        # Wait until its rows are queued beyond what the socket takes in.
        time.sleep(2)
        other = PgWire(srv.port)
        for _ in range(20):
            msgs = other.query("SHOW TABLES")
            assert not errors(msgs), msgs
        other.terminate()
        wait_progress(srv.port, rows1, "while a client stops reading")
        rc, out, err = psql(srv.port, "SHOW JOBS")
        assert rc == 0 and "RUNNING" in out, err
        # SIGTERM ends the server although the stalled client never reads.
        assert srv.stop(timeout=60) == 0, srv.log()
        stalled.sock.close()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
