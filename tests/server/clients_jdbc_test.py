"""server.clients.jdbc.<case> — pgJDBC (org.postgresql:postgresql, fetched by
scripts/clients) against `sluice serve`. Starts the server each case needs
(SCRAM users made with `sluice user add`, a TLS certificate made with
openssl) and runs tests/server/clients/JdbcClient.java, compiled by the
server.clients.jdbc.compile fixture into the build dir; the Java program is
the independent client and checks what the driver returns.

  trust            connect without password or TLS (loopback trust)
  scram            --auth scram: the right password connects, a wrong one
                   is 28P01
  tls              --tls-cert/--tls-key: sslmode=verify-full against the
                   certificate connects; control: sslmode=require to a
                   server without TLS fails
  scram_tls        both at once
  prepared_text    PreparedStatement, every value in text (binaryTransfer off,
                   unnamed statements)
  prepared_binary  the same, server-prepared from the first execution with
                   binary transfer of int8 / numeric / timestamp / text
  fetchsize, metadata, cancel, warnings: see JdbcClient.java

Environment: SLUICE_CLIENTS (scripts/clients' cache), SLUICE_CLIENTS_BUILD
(where the classes are). Usage: clients_jdbc_test.py CASE
"""
import os
import subprocess
import sys

from srv_util import SLUICE, ENV, Server, make_cert, tmpdir

CACHE = os.environ["SLUICE_CLIENTS"]
JAR = os.path.join(CACHE, "jdbc", "postgresql-42.7.14.jar")
CLASSES = os.path.join(os.environ["SLUICE_CLIENTS_BUILD"], "java")
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "clients", "JdbcClient.java")
PASSWORD = "s3cret-pässword"


def compile_java():
    os.makedirs(CLASSES, exist_ok=True)
    subprocess.run(["javac", "-encoding", "UTF-8", "-d", CLASSES, "-cp", JAR, SRC], check=True)
    print("ok")


def url(srv, **params):
    params = dict({"user": "sluice", "sslmode": "disable"}, **params)
    return "jdbc:postgresql://127.0.0.1:%d/sluice?%s" % (
        srv.port, "&".join("%s=%s" % kv for kv in params.items()))


def java(case, u, expect_ok=True):
    p = subprocess.run(["java", "-Dfile.encoding=UTF-8", "-cp", CLASSES + os.pathsep + JAR,
                        "JdbcClient", case, u], capture_output=True, text=True, timeout=120)
    if expect_ok:
        assert p.returncode == 0 and p.stdout.strip() == "ok", \
            "JdbcClient %s failed:\n%s%s" % (case, p.stdout, p.stderr)
    return p


def add_user(data, name, password):
    p = subprocess.run([SLUICE, "user", "add", name, "--password-stdin", "-D", data],
                       input=password + "\n", capture_output=True, text=True, env=ENV, timeout=60)
    assert p.returncode == 0, "sluice user add failed: %s%s" % (p.stdout, p.stderr)
    # Verifiers, never the password itself.
    for root, _, files in os.walk(data):
        for f in files:
            with open(os.path.join(root, f), "rb") as fh:
                assert PASSWORD.encode() not in fh.read(), "the password is stored in " + f


def run(case, tmp):
    data = os.path.join(tmp, "data")
    extra, params = [], {}
    if case in ("scram", "scram_tls"):
        os.makedirs(data, exist_ok=True)
        add_user(data, "alice", PASSWORD)
        extra += ["--auth", "scram"]
        params.update(user="alice", password=PASSWORD)
    if case in ("tls", "scram_tls"):
        cert, key = make_cert(tmp)
        extra += ["--tls-cert", cert, "--tls-key", key]
        params.update(sslmode="verify-full", sslrootcert=cert)
    java_case = {"trust": "connect", "scram": "connect", "tls": "connect", "scram_tls": "connect",
                 "prepared_text": "prepared", "prepared_binary": "prepared"}.get(case, case)
    if case == "prepared_text":
        params.update(binaryTransfer="false", prepareThreshold="0")
    if case == "prepared_binary":
        # Server-prepared from the first execution; binary for int8,
        # numeric, timestamp, text, varchar (by OID) both ways.
        params.update(prepareThreshold="-1", binaryTransferEnable="20,1700,1114,25,1043")
    with Server(data, *extra) as srv:
        java(java_case, url(srv, **params))
        if case in ("scram", "scram_tls"):
            java("badpass", url(srv, **dict(params, password="wrong")))
            java("badpass", url(srv, **dict(params, user="nobody")))
        if case == "tls":
            # The same client insisting on TLS, to a server without it, fails.
            with Server(os.path.join(tmp, "data2")) as plain:
                p = java("connect", url(plain, sslmode="require"), expect_ok=False)
                assert p.returncode != 0 and "SSL" in p.stdout + p.stderr, p.stdout + p.stderr
        assert srv.stop() == 0, srv.log()


def main():
    case = sys.argv[1]
    if case == "compile":
        return compile_java()
    run(case, tmpdir("srv-jdbc-%s-" % case))
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
