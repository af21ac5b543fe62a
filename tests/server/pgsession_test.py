"""server.pgsession — PostgreSQL's session statements over the wire, read by
independent clients: psql (SET / SHOW, the transaction block and 25P02,
session functions) and raw protocol bytes (ParameterStatus after SET, the
transaction status of every ReadyForQuery, a startup parameter refused).

The raw client below speaks protocol 3.0 with the standard library only and
decodes what the server sends; nothing here trusts what the server says
about itself except the protocol messages."""
import os
import socket
import struct
import sys

from srv_util import Server, psql, tmpdir


class Raw:
    """A minimal frontend: startup, simple queries, the messages that came back."""

    def __init__(self, port, **params):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=30)
        body = struct.pack("!i", 196608)
        for k, v in dict({"user": "sluice", "database": "rawdb"}, **params).items():
            body += k.encode() + b"\0" + v.encode() + b"\0"
        body += b"\0"
        self.s.sendall(struct.pack("!i", len(body) + 4) + body)

    def _read(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            if not chunk:
                raise EOFError("connection closed")
            buf += chunk
        return buf

    def message(self):
        t = self._read(1)
        (n,) = struct.unpack("!i", self._read(4))
        return t, self._read(n - 4)

    def until_ready(self):
        """Every message up to and including ReadyForQuery: [(type, body)]."""
        msgs = []
        while True:
            t, b = self.message()
            msgs.append((t, b))
            if t == b"Z":
                return msgs

    def query(self, sql):
        b = sql.encode() + b"\0"
        self.s.sendall(b"Q" + struct.pack("!i", len(b) + 4) + b)
        return self.until_ready()

    def close(self):
        self.s.sendall(b"X" + struct.pack("!i", 4))
        self.s.close()


def params(msgs):
    """ParameterStatus messages as [(name, value)], in order."""
    out = []
    for t, b in msgs:
        if t == b"S":
            k, v, _ = b.split(b"\0", 2)
            out.append((k.decode(), v.decode()))
    return out


def fields(body):
    """ErrorResponse / NoticeResponse fields: {code: text}."""
    f = {}
    for part in body.split(b"\0"):
        if part:
            f[chr(part[0])] = part[1:].decode()
    return f


def status(msgs):
    assert msgs[-1][0] == b"Z", msgs
    return msgs[-1][1].decode()


def errors(msgs):
    return [fields(b) for t, b in msgs if t == b"E"]


def check_raw(port):
    c = Raw(port, application_name="first", TimeZone="Europe/Berlin",
            options="-c DateStyle=ISO,\\ DMY -c extra_float_digits=2")
    msgs = c.until_ready()
    ps = dict(params(msgs))
    assert ps.get("application_name") == "first", ps
    assert ps.get("TimeZone") == "Europe/Berlin", ps
    assert ps.get("client_encoding") == "UTF8" and ps.get("DateStyle") == "ISO, DMY", ps
    assert ps.get("server_version", "").startswith("15.0 (Sluice "), ps
    assert ps.get("session_authorization") == "sluice", ps
    assert status(msgs) == "I", msgs

    # SET of a reported parameter: ParameterStatus before CommandComplete
    msgs = c.query("SET application_name = 'second'")
    types = [t for t, _ in msgs]
    assert params(msgs) == [("application_name", "second")], msgs
    assert types.index(b"S") < types.index(b"C"), types
    # the same value again: nothing to report; an unreported one: nothing either
    assert params(c.query("SET application_name TO 'second'")) == [], "no change, no report"
    assert params(c.query("SET extra_float_digits = 3")) == []
    assert params(c.query("SET TIME ZONE 'UTC'")) == [("TimeZone", "UTC")]
    assert params(c.query("SET DateStyle = 'ISO, YMD'")) == [("DateStyle", "ISO, YMD")]
    msgs = c.query("SET DateStyle = 'German'")
    assert errors(msgs)[0]["C"] == "22023" and params(msgs) == [], msgs
    # RESET ALL returns to the startup packet's values and reports each change
    assert sorted(params(c.query("RESET ALL"))) == [
        ("DateStyle", "ISO, DMY"), ("TimeZone", "Europe/Berlin"), ("application_name", "first")]

    # the transaction status of ReadyForQuery
    assert status(c.query("BEGIN")) == "T"
    msgs = c.query("SET application_name = 'in block'")
    assert status(msgs) == "T" and params(msgs) == [("application_name", "in block")]
    msgs = c.query("SELECT nosuch")
    assert status(msgs) == "E" and errors(msgs)[0]["C"] == "42703", msgs
    msgs = c.query("SELECT 1")
    assert status(msgs) == "E" and errors(msgs)[0]["C"] == "25P02", msgs
    msgs = c.query("COMMIT")
    tags = [b for t, b in msgs if t == b"C"]
    assert tags == [b"ROLLBACK\0"] and status(msgs) == "I", msgs
    # ROLLBACK restored the setting and said so
    assert ("application_name", "first") in params(msgs), msgs
    msgs = c.query("COMMIT")
    notices = [fields(b) for t, b in msgs if t == b"N"]
    assert notices and notices[0]["C"] == "25P01" and status(msgs) == "I", msgs
    msgs = c.query("SELECT current_database(), pg_backend_pid()")
    rows = [b for t, b in msgs if t == b"D"]
    assert len(rows) == 1 and b"rawdb" in rows[0], msgs
    c.close()

    # a startup parameter that SET would refuse ends the connection with its error
    c = Raw(port, client_encoding="LATIN1")
    t, b = c.message()
    f = fields(b)
    assert t == b"E" and f["C"] == "22023" and f["S"] == "FATAL", (t, f)
    c.s.close()


def check_psql(port):
    rc, out, err = psql(port, None, "-A", "-t", stdin=(
        "SET application_name = 'psql test';\n"
        "SHOW application_name;\n"
        "SELECT 1 + 1, version() LIKE 'PostgreSQL 15.0 (Sluice %', current_user;\n"
        "SHOW transaction isolation level;\n"))
    assert rc == 0, (out, err)
    lines = [l for l in out.splitlines() if l and l != "SET"]
    assert lines == ["psql test", "2|t|sluice", "read committed"], lines

    script = ("\\set VERBOSITY verbose\n"
              "BEGIN;\n"
              "SELECT nosuch;\n"
              "SELECT 1;\n"
              "ROLLBACK;\n"
              "SELECT 40 + 2;\n")
    rc, out, err = psql(port, None, "-A", "-t", "-v", "ON_ERROR_STOP=0", stdin=script)
    assert "ERROR:  42703" in err, err
    assert "ERROR:  25P02: current transaction is aborted, commands ignored until end of " \
           "transaction block" in err, err
    assert out.split()[-1] == "42", out
    # the control: without BEGIN the same statements do not fail with 25P02
    rc, out, err = psql(port, None, "-A", "-t", "-v", "ON_ERROR_STOP=0",
                        stdin=script.replace("BEGIN;\n", "").replace("ROLLBACK;\n", ""))
    assert "25P02" not in err and "ERROR:  42703" in err, err
    assert out.split() == ["1", "42"], out

    rc, out, err = psql(port, "SELECT current_database()", "-A", "-t", db="analytics")
    assert rc == 0 and out.strip() == "analytics", (out, err)
    rc, out, err = psql(port, "SET nosuch = 1", "-v", "VERBOSITY=verbose")
    assert rc != 0 and '42704: unrecognized configuration parameter "nosuch"' in err, err


def main():
    tmp = tmpdir("srv-pgsession-")
    with Server(os.path.join(tmp, "data")) as srv:
        check_raw(srv.port)
        check_psql(srv.port)
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
