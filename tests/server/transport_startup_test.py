"""server.transport_startup — the startup phase on raw sockets and psql:
protocol 3.0; 3.1 and _pq_ options get NegotiateProtocolVersion and go on;
2.0 gets FATAL 0A000; SSLRequest 'N' without TLS, 'S' and a working TLS
session with a certificate made by `openssl req` (raw TLS and psql
sslmode=require); bytes sent after an SSLRequest before the answer are
refused (CVE-2021-23214); GSSENCRequest 'N'; a client that never sends its
startup packet is dropped (--authentication-timeout); over
--max-connections a client gets FATAL 53300; listening beyond loopback
without --auth scram is refused with exit 2 and a message that says how."""
import os
import ssl
import subprocess
import sys
import time

from pgwire_client import (PROTO_30, PgError, PgWire, errors, gss_request, kinds, ssl_request,
                           startup_packet)
from srv_util import ENV, SLUICE, Server, free_port, make_cert, psql, tmpdir


def check_plain(port):
    # 3.0: AuthenticationOk, the parameters, BackendKeyData, ReadyForQuery.
    c = PgWire(port, params={"application_name": "raw30"})
    msgs = c.startup_msgs
    assert msgs[0] == ("R", (0, b"")), msgs
    assert "K" in kinds(msgs) and c.pid is not None, msgs
    assert c.status["server_version"].split()[0] == "15.0", c.status
    assert c.status["application_name"] == "raw30", c.status
    assert c.status["client_encoding"] == "UTF8" and c.status["integer_datetimes"] == "on", c.status
    assert "v" not in kinds(msgs), "no NegotiateProtocolVersion for plain 3.0"
    m = c.query("SHOW TABLES")
    assert m[-1][0] == "Z" and not errors(m), m
    c.send("X")
    assert c.at_eof()
    c.sock.close()

    # 3.1 with an unknown protocol option: NegotiateProtocolVersion (3.0 and
    # the option's name), then the connection works.
    c = PgWire(port, startup=False)
    msgs = c.startup({"user": "sluice", "_pq_.frobnicate": "on"}, (3 << 16) | 1)
    nego = [v for t, v in msgs if t == "v"]
    assert nego == [(PROTO_30, ["_pq_.frobnicate"])], msgs
    assert msgs[-1][0] == "Z", msgs
    assert not errors(c.query("SHOW TABLES"))
    c.sock.close()

    # 2.0: FATAL 0A000, then the connection closes.
    c = PgWire(port, startup=False)
    try:
        c.startup({"user": "sluice"}, 2 << 16)
        raise AssertionError("protocol 2.0 was accepted")
    except PgError as e:
        f = e.fields
    assert f["S"] == "FATAL" and f["C"] == "0A000", f
    assert "unsupported frontend protocol 2.0" in f["M"], f
    assert c.at_eof()
    c.sock.close()

    # SSLRequest without TLS configured: 'N', then clear text goes on;
    # GSSENCRequest: 'N'.
    c = PgWire(port, startup=False)
    c.send_raw(ssl_request())
    assert c.read_byte() == b"N"
    c.send_raw(gss_request())
    assert c.read_byte() == b"N"
    assert c.startup({"user": "sluice"})[-1][0] == "Z"
    c.sock.close()

    # A second SSLRequest is a protocol violation.
    c = PgWire(port, startup=False)
    c.send_raw(ssl_request())
    assert c.read_byte() == b"N"
    c.send_raw(ssl_request())
    t, f = c.read()
    assert t == "E" and f["C"] == "08P01", f
    c.sock.close()

    # psql with sslmode=require against a server without TLS fails cleanly.
    rc, out, err = psql(port, "SHOW TABLES", env={"PGSSLMODE": "require"})
    assert rc != 0 and "does not support SSL" in err, (rc, err)


def check_tls(port):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    # 'S', the handshake, then the startup packet and a query inside TLS.
    c = PgWire(port, startup=False)
    c.send_raw(ssl_request())
    assert c.read_byte() == b"S"
    c.wrap_tls(ctx)
    assert c.sock.version() in ("TLSv1.2", "TLSv1.3"), c.sock.version()
    assert c.startup({"user": "sluice"})[-1][0] == "Z"
    m = c.query("SHOW TABLES")
    assert m[-1][0] == "Z" and not errors(m), m
    c.sock.close()

    # Plaintext sent right behind the SSLRequest, before the answer: refused
    # (CVE-2021-23214), not taken as if it had come through TLS.
    c = PgWire(port, startup=False)
    c.send_raw(ssl_request() + startup_packet({"user": "sluice"}))
    t, f = c.read()
    assert t == "E" and f["C"] == "08P01" and "unencrypted data after SSL request" in f["M"], f
    c.sock.close()

    # psql over TLS (sslmode=require): \conninfo reports the SSL connection.
    rc, out, err = psql(port, None, "-c", "SHOW TABLES", "-c", "\\conninfo",
                        env={"PGSSLMODE": "require"})
    assert rc == 0 and "SSL connection (protocol: TLSv1." in out, (rc, out, err)

    # A failed handshake (garbage instead of a ClientHello) ends that
    # connection only.
    c = PgWire(port, startup=False)
    c.send_raw(ssl_request())
    assert c.read_byte() == b"S"
    c.send_raw(b"\x16\x03\x01\x00\x05hello" + b"\0" * 64)
    try:
        while c.sock.recv(4096):
            pass
    except OSError:
        pass
    c.sock.close()
    rc, out, err = psql(port, "SHOW TABLES", env={"PGSSLMODE": "require"})
    assert rc == 0, err


def check_limits(tmp):
    # A client that never sends its startup packet is dropped.
    with Server(os.path.join(tmp, "to"), "--authentication-timeout", "1") as srv:
        c = PgWire(srv.port, startup=False, timeout=30)
        assert c.at_eof(), "the server closes a silent client"
        c.sock.close()
        assert psql(srv.port, "SHOW TABLES")[0] == 0
        assert srv.stop() == 0, srv.log()

    # Over --max-connections: FATAL 53300 after the startup packet.
    with Server(os.path.join(tmp, "max"), "--max-connections", "2") as srv:
        # Server() probed the port: that connection may hold a slot until its
        # thread sees the end of input, so a refusal now is retried.
        held = []
        for _ in range(200):
            try:
                held.append(PgWire(srv.port))
            except (PgError, EOFError):
                time.sleep(0.05)
            if len(held) == 2:
                break
        assert len(held) == 2, "two connections within the limit"

        try:
            PgWire(srv.port)
            raise AssertionError("a connection over --max-connections")
        except PgError as e:
            f = e.fields
        assert f["S"] == "FATAL" and f["C"] == "53300", f
        assert f["M"] == "sorry, too many clients already", f
        rc, out, err = psql(srv.port, "SHOW TABLES")
        assert rc != 0 and "sorry, too many clients already" in err, err
        held.pop().terminate()
        # The slot is free again once that connection is gone.
        for _ in range(100):
            rc, out, err = psql(srv.port, "SHOW TABLES")
            if rc == 0:
                break
        assert rc == 0, err
        for h in held:
            h.terminate()
        assert srv.stop() == 0, srv.log()

    # Beyond loopback without authentication: refused, exit 2, says how.
    p = subprocess.run([SLUICE, "serve", "-D", os.path.join(tmp, "open"), "--listen",
                        "0.0.0.0:%d" % free_port()], capture_output=True, text=True, env=ENV,
                       timeout=60)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "sluice user add" in p.stderr and "--auth scram" in p.stderr, p.stderr
    # The default port is documented in --help.
    p = subprocess.run([SLUICE, "serve", "--help"], capture_output=True, text=True, env=ENV)
    assert p.returncode == 0 and "5434" in p.stdout and "--auth" in p.stdout, p.stdout


def main():
    tmp = tmpdir("srv-startup-")
    with Server(os.path.join(tmp, "plain")) as srv:
        check_plain(srv.port)
        assert srv.stop() == 0, srv.log()
    cert, key = make_cert(tmp)
    with Server(os.path.join(tmp, "tls"), "--tls-cert", cert, "--tls-key", key) as srv:
        check_tls(srv.port)
        assert srv.stop() == 0, srv.log()
    check_limits(tmp)
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
