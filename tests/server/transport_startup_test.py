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
import socket
import ssl
import struct
import subprocess
import sys
import time

from srv_util import ENV, SLUICE, Server, free_port, psql, tmpdir
import transport_wire as w


def make_cert(tmp):
    cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "2", "-subj", "/CN=localhost"],
                   check=True, capture_output=True)
    return cert, key


def check_plain(port):
    # 3.0: AuthenticationOk, the parameters, BackendKeyData, ReadyForQuery.
    s, pid, secret, msgs = w.connect(port, params={"application_name": "raw30"})
    types = [t for t, _ in msgs]
    assert types[0] == b"R" and struct.unpack("!i", msgs[0][1])[0] == 0, msgs
    params = dict(tuple(x.decode() for x in b.split(b"\0")[:2]) for t, b in msgs if t == b"S")
    assert params["server_version"].split()[0] == "15.0", params
    assert params["application_name"] == "raw30", params
    assert params["client_encoding"] == "UTF8" and params["integer_datetimes"] == "on", params
    assert b"v" not in types, "no NegotiateProtocolVersion for plain 3.0"
    rows = w.simple(s, "SHOW TABLES")
    assert rows[-1][0] == b"Z" and not w.errors(rows), rows
    s.sendall(w.TERMINATE)
    assert s.recv(1) == b""
    s.close()

    # 3.1 with an unknown protocol option: NegotiateProtocolVersion (3.0 and
    # the option's name), then the connection works.
    s = w.sock_to(port)
    s.sendall(w.startup({"user": "sluice", "_pq_.frobnicate": "on"}, (3 << 16) | 1))
    msgs = w.read_until_ready(s)
    nego = [b for t, b in msgs if t == b"v"]
    assert len(nego) == 1, msgs
    newest, n = struct.unpack("!ii", nego[0][:8])
    assert newest == w.PROTO_30 and n == 1 and nego[0][8:] == b"_pq_.frobnicate\0", nego
    assert msgs[-1][0] == b"Z", msgs
    assert not w.errors(w.simple(s, "SHOW TABLES"))
    s.close()

    # 2.0: FATAL 0A000, then the connection closes.
    s = w.sock_to(port)
    s.sendall(w.startup({"user": "sluice"}, 2 << 16))
    t, body = w.read_msg(s)
    f = w.fields(body)
    assert t == b"E" and f["S"] == "FATAL" and f["C"] == "0A000", f
    assert "unsupported frontend protocol 2.0" in f["M"], f
    assert w.read_msg(s) is None
    s.close()

    # SSLRequest without TLS configured: 'N', then clear text goes on;
    # GSSENCRequest: 'N'.
    s = w.sock_to(port)
    s.sendall(w.ssl_request())
    assert s.recv(1) == b"N"
    s.sendall(w.gss_request())
    assert s.recv(1) == b"N"
    s.sendall(w.startup({"user": "sluice"}))
    assert w.read_until_ready(s)[-1][0] == b"Z"
    s.close()

    # A second SSLRequest is a protocol violation.
    s = w.sock_to(port)
    s.sendall(w.ssl_request())
    assert s.recv(1) == b"N"
    s.sendall(w.ssl_request())
    t, body = w.read_msg(s)
    assert t == b"E" and w.fields(body)["C"] == "08P01", body
    s.close()

    # psql with sslmode=require against a server without TLS fails cleanly.
    rc, out, err = psql(port, "SHOW TABLES", env={"PGSSLMODE": "require"})
    assert rc != 0 and "does not support SSL" in err, (rc, err)


def check_tls(port):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    # 'S', the handshake, then the startup packet and a query inside TLS.
    raw = w.sock_to(port)
    raw.sendall(w.ssl_request())
    assert raw.recv(1) == b"S"
    s = ctx.wrap_socket(raw)
    assert s.version() in ("TLSv1.2", "TLSv1.3"), s.version()
    s.sendall(w.startup({"user": "sluice"}))
    assert w.read_until_ready(s)[-1][0] == b"Z"
    rows = w.simple(s, "SHOW TABLES")
    assert rows[-1][0] == b"Z" and not w.errors(rows), rows
    s.close()

    # Plaintext sent right behind the SSLRequest, before the answer: refused
    # (CVE-2021-23214), not taken as if it had come through TLS.
    raw = w.sock_to(port)
    raw.sendall(w.ssl_request() + w.startup({"user": "sluice"}))
    t, body = w.read_msg(raw)
    f = w.fields(body)
    assert t == b"E" and f["C"] == "08P01" and "unencrypted data after SSL request" in f["M"], f
    raw.close()

    # psql over TLS (sslmode=require): \conninfo reports the SSL connection.
    rc, out, err = psql(port, None, "-c", "SHOW TABLES", "-c", "\\conninfo",
                        env={"PGSSLMODE": "require"})
    assert rc == 0 and "SSL connection (protocol: TLSv1." in out, (rc, out, err)

    # A failed handshake (garbage instead of a ClientHello) ends that
    # connection only.
    raw = w.sock_to(port)
    raw.sendall(w.ssl_request())
    assert raw.recv(1) == b"S"
    raw.sendall(b"\x16\x03\x01\x00\x05hello" + b"\0" * 64)
    try:
        while raw.recv(4096):
            pass
    except OSError:
        pass
    raw.close()
    rc, out, err = psql(port, "SHOW TABLES", env={"PGSSLMODE": "require"})
    assert rc == 0, err


def check_limits(tmp):
    # A client that never sends its startup packet is dropped.
    with Server(os.path.join(tmp, "to"), "--authentication-timeout", "1") as srv:
        s = w.sock_to(srv.port, timeout=30)
        assert s.recv(1) == b"", "the server closes a silent client"
        s.close()
        assert psql(srv.port, "SHOW TABLES")[0] == 0
        assert srv.stop() == 0, srv.log()

    # Over --max-connections: FATAL 53300 after the startup packet.
    with Server(os.path.join(tmp, "max"), "--max-connections", "2") as srv:
        # Server() probed the port: that connection may hold a slot until its
        # thread sees the end of input, so a refusal now is retried.
        held = []
        for _ in range(200):
            try:
                held.append(w.connect(srv.port)[0])
            except AssertionError:
                time.sleep(0.05)
            if len(held) == 2:
                break
        assert len(held) == 2, "two connections within the limit"

        s = w.sock_to(srv.port)
        s.sendall(w.startup({"user": "sluice"}))
        t, body = w.read_msg(s)
        f = w.fields(body)
        assert t == b"E" and f["S"] == "FATAL" and f["C"] == "53300", f
        assert f["M"] == "sorry, too many clients already", f
        s.close()
        rc, out, err = psql(srv.port, "SHOW TABLES")
        assert rc != 0 and "sorry, too many clients already" in err, err
        held.pop().close()
        # The slot is free again once that connection is gone.
        for _ in range(100):
            rc, out, err = psql(srv.port, "SHOW TABLES")
            if rc == 0:
                break
        assert rc == 0, err
        for h in held:
            h.close()
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
