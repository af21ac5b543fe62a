"""server.transport_auth — SCRAM-SHA-256 with psql as the independent
client: `sluice user add` (password on standard input) stores a verifier
(the users file is 0600 and holds no password); the right password logs
in, a wrong one and an unknown user both get FATAL 28P01 with the same
message; `sluice user remove` takes effect on the next connection; over TLS
psql logs in with channel binding required (SCRAM-SHA-256-PLUS); a raw
client sees the mechanisms offered and a malformed SASL message is a
protocol error, not a crash. Control: the same psql without a password
fails, so a login that succeeds proves the password was checked."""
import base64
import hashlib
import hmac
import os
import pty
import re
import ssl
import stat
import struct
import subprocess
import sys

from pgwire_client import PgWire, ssl_request, startup_packet
from srv_util import ENV, SLUICE, Server, free_port, make_cert, psql, tmpdir

PASSWORD = "correct horse battery staple"


def user_cmd(data, *args, stdin=None):
    return subprocess.run([SLUICE, "user"] + list(args) + ["-D", data], input=stdin,
                          capture_output=True, text=True, env=ENV, timeout=60)


def tty_add(data, name, first, second):
    """`sluice user add NAME` on a pseudo-terminal, typing two passwords."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(SLUICE, [SLUICE, "user", "add", name, "-D", data], ENV)
    out = b""
    for answer in (first, second):
        while b"assword: " not in out:
            out += os.read(fd, 1024)
        assert answer.encode() not in out, "no echo"
        out = b""
        os.write(fd, answer.encode() + b"\n")
    try:
        while os.read(fd, 1024):
            pass
    except OSError:
        pass
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def login(port, user, password, **env):
    e = {"PGPASSWORD": password} if password is not None else {"PGPASSWORD": ""}
    e.update(env)
    return psql(port, "SHOW TABLES", user=user, env=e)


def mechanisms(port, tls_ctx=None):
    """A connection at AuthenticationSASL, and the mechanisms it offers."""
    c = PgWire(port, startup=False)
    if tls_ctx:
        c.send_raw(ssl_request())
        assert c.read_byte() == b"S"
        c.wrap_tls(tls_ctx)
    c.send_raw(startup_packet({"user": "alice"}))
    t, v = c.read()
    assert t == "R" and v[0] == 10, (t, v)
    return c, [m.decode() for m in v[1].split(b"\0") if m]


def sasl_error(c, mechanism, data):
    """SASLInitialResponse: the ErrorResponse that must answer it."""
    c.send("p", mechanism + b"\0" + struct.pack("!i", len(data)) + data)
    t, f = c.read()
    c.sock.close()
    assert t == "E", (t, f)
    return f


def main():
    tmp = tmpdir("srv-auth-")
    data = os.path.join(tmp, "data")
    p = user_cmd(data, "add", "alice", "--password-stdin", stdin=PASSWORD + "\n")
    assert p.returncode == 0, p.stderr
    p = user_cmd(data, "add", "bob", stdin="bobs secret\n")
    assert p.returncode == 0, p.stderr
    assert user_cmd(data, "add", "bad:name", stdin="x\n").returncode == 2
    # On a terminal: the password is prompted for twice, without echo.
    assert tty_add(data, "carol", "pw one", "pw one") == 0
    assert tty_add(data, "dave", "pw one", "pw two") != 0  # they differ: nothing stored
    p = user_cmd(data, "remove", "carol")
    assert p.returncode == 0, p.stderr
    p = user_cmd(data, "list")
    assert p.returncode == 0 and p.stdout.split() == ["alice", "bob"], p.stdout

    users = os.path.join(data, "users")
    st = os.stat(users)
    assert stat.S_IMODE(st.st_mode) == 0o600, oct(st.st_mode)
    text = open(users).read()
    assert PASSWORD not in text and "bobs secret" not in text, text
    # Each verifier is RFC 5802's, recomputed here from the password and
    # the stored salt with Python's own PBKDF2 and HMAC.
    passwords = {"alice": PASSWORD, "bob": "bobs secret"}
    for line in text.splitlines():
        name, verifier = line.split(":", 1)
        m = re.fullmatch(r"SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):(.+)", verifier)
        assert m and m.group(1) == "4096", line
        salt = base64.b64decode(m.group(2), validate=True)
        salted = hashlib.pbkdf2_hmac("sha256", passwords[name].encode(), salt, 4096)
        client_key = hmac.new(salted, b"Client Key", "sha256").digest()
        assert base64.b64decode(m.group(3)) == hashlib.sha256(client_key).digest(), line
        assert base64.b64decode(m.group(4)) == hmac.new(salted, b"Server Key", "sha256").digest()

    cert, key = make_cert(tmp)
    with Server(data, "--auth", "scram", "--tls-cert", cert, "--tls-key", key,
                env={"SLUICE_LOG": "info"}) as srv:
        rc, out, err = login(srv.port, "alice", PASSWORD, PGSSLMODE="disable")
        assert rc == 0 and "table name" in out, err
        # Control: no password, no login.
        rc, out, err = login(srv.port, "alice", None, PGSSLMODE="disable")
        assert rc != 0, out
        rc, out, wrong = login(srv.port, "alice", "wrong", PGSSLMODE="disable")
        assert rc != 0 and 'FATAL:  password authentication failed for user "alice"' in wrong, wrong
        rc, out, unknown = login(srv.port, "mallory", "wrong", PGSSLMODE="disable")
        assert rc != 0 and 'FATAL:  password authentication failed for user "mallory"' in unknown, unknown
        assert wrong.replace("alice", "X") == unknown.replace("mallory", "X"), (wrong, unknown)

        # Over TLS: SCRAM-SHA-256-PLUS with tls-server-end-point binding.
        rc, out, err = login(srv.port, "alice", PASSWORD, PGSSLMODE="require",
                             PGCHANNELBINDING="require")
        assert rc == 0, err
        rc, out, err = login(srv.port, "bob", "nope", PGSSLMODE="require",
                             PGCHANNELBINDING="require")
        assert rc != 0 and "password authentication failed" in err, err

        # The mechanisms offered: -PLUS only over TLS.
        c, mechs = mechanisms(srv.port)
        assert mechs == ["SCRAM-SHA-256"], mechs
        # A mechanism not offered is refused.
        f = sasl_error(c, b"SCRAM-SHA-256-PLUS", b"abcd")
        assert f["C"] == "08P01", f

        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        c, mechs = mechanisms(srv.port, ctx)
        assert mechs == ["SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"], mechs
        # Malformed client-first-message: a protocol error.
        f = sasl_error(c, b"SCRAM-SHA-256", b"x,,n=,r=abc")
        assert f["C"] == "08P01" and "malformed SCRAM message" in f["M"], f
        # A client that says it binds but thinks the server cannot, over TLS.
        c, mechs = mechanisms(srv.port, ctx)
        f = sasl_error(c, b"SCRAM-SHA-256", b"y,,n=,r=abcdef")
        assert "channel binding negotiation" in f["M"], f
        # Channel binding data with the mechanism that has none.
        c, mechs = mechanisms(srv.port)
        f = sasl_error(c, b"SCRAM-SHA-256", b"p=tls-server-end-point,,n=,r=abcdef")
        assert f["C"] == "08P01", f
        # A query message in place of the SASL response.
        c, mechs = mechanisms(srv.port)
        c.send_query("SHOW TABLES")
        t, f = c.read()
        assert t == "E" and f["C"] == "08P01", (t, f)
        c.sock.close()

        # Removing a user takes effect on the next connection.
        assert user_cmd(data, "remove", "bob").returncode == 0
        assert user_cmd(data, "remove", "bob").returncode != 0
        rc, out, err = login(srv.port, "bob", "bobs secret", PGSSLMODE="disable")
        assert rc != 0 and "password authentication failed" in err, err
        rc, out, err = login(srv.port, "alice", PASSWORD, PGSSLMODE="disable")
        assert rc == 0, err
        assert srv.stop() == 0, srv.log()
        log = srv.log()
        assert 'password authentication failed for user "mallory"' in log, log
        assert "connection from 127.0.0.1" in log and "user=alice" in log, log
        assert "session time" in log, log
        assert PASSWORD not in log, log

    # With --auth scram, listening beyond loopback is allowed.
    port = free_port()
    with Server(data, "--auth", "scram", "--listen", "0.0.0.0:%d" % port, port=port) as srv:
        assert login(srv.port, "alice", PASSWORD)[0] == 0
        assert srv.stop() == 0
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
