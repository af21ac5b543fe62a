"""srv_util.py — shared by the tests of `sluice serve` (standard library only).

- SLUICE: the sluice binary (env SLUICE_BIN, set by tests/server/tests.cmake).
- tmpdir(prefix): a fresh directory under the build's test-tmp.
- free_port(): a TCP port on 127.0.0.1 nobody listens on now.
- Server(data_dir, *extra_args): starts `sluice serve -D data_dir --listen
  127.0.0.1:<free port>`, waits until it accepts connections; .port,
  .stop() (SIGTERM and wait: jobs stop with savepoints), .kill() (SIGKILL),
  .log() (what it wrote to stderr so far), context manager.
- psql(port, sql, ...): runs Debian's psql against it (the independent
  client), returns (returncode, stdout, stderr); psql_ok(port, sql, ...)
  fails the test unless psql succeeded, returns its stdout; psql_rows(out):
  unaligned output (-A -t) as [[cell, ...]].
- psql_start(port, sql, ...): psql in the background (a Popen, text mode);
  psql_sigint(p): Ctrl-C to it (psql sends a CancelRequest), its stderr
  once it ended.
- make_cert(dir): a self-signed certificate for localhost / 127.0.0.1 made
  by `openssl req`: (cert, key).
- run_case(cases, prefix): main() of a test of several cases: a server of
  its own for the case named by argv[1], which must stop cleanly.
"""
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

SLUICE = os.environ.get("SLUICE_BIN", "sluice")
ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1")


def tmpdir(prefix):
    """A fresh directory under SLUICE_TEST_TMP (the build's test-tmp)."""
    base = os.environ.get("SLUICE_TEST_TMP") or tempfile.gettempdir()
    os.makedirs(base, exist_ok=True)
    return tempfile.mkdtemp(prefix=prefix, dir=base)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=30.0, proc=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            time.sleep(0.05)
    return False


class Server:
    def __init__(self, data_dir, *extra, port=None, env=None):
        self.data_dir = data_dir
        self.port = port or free_port()
        self.extra = list(extra)
        self.env = dict(ENV, **(env or {}))
        self.proc = None
        self.logf = tempfile.NamedTemporaryFile(prefix="sluice-serve-", suffix=".log", delete=False)
        self.start()

    def start(self):
        self.killed = False
        self.proc = subprocess.Popen(
            [SLUICE, "serve", "-D", self.data_dir, "--listen", "127.0.0.1:%d" % self.port] +
            # the web page's default port (8081) is Flink's too: tests that
            # want the page give it a free port of their own (web_test.py)
            ([] if "--http-listen" in self.extra else ["--http-listen", "off"]) + self.extra,
            stdout=self.logf, stderr=self.logf, env=self.env)
        if not wait_port(self.port, proc=self.proc):
            raise RuntimeError("sluice serve did not start:\n" + self.log())

    def log(self):
        with open(self.logf.name, errors="replace") as f:
            return f.read()

    def stop(self, timeout=60):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise RuntimeError("sluice serve did not stop on SIGTERM:\n" + self.log())
        return self.proc.returncode

    def kill(self):
        self.killed = True  # the test's own SIGKILL: its status is not a failure
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        # A server that ends on its own with a failure (a sanitizer report, a
        # leak, an abort) fails the test, even when every client was served.
        killed = self.killed
        try:
            rc = self.stop()
        finally:
            self.kill()
        if exc[0] is None and not killed and rc != 0:
            raise AssertionError("sluice serve exited with status %s:\n%s"
                                 % (rc, self.log()[-4000:]))


def _psql_cmd(port, sql, args, user, db, env):
    cmd = ["psql", "-X", "-h", "127.0.0.1", "-p", str(port), "-U", user, "-d", db,
           "-v", "ON_ERROR_STOP=1"] + list(args)
    if sql is not None:
        cmd += ["-c", sql]
    return cmd, dict(os.environ, PGCONNECT_TIMEOUT="10", **(env or {}))


def psql(port, sql=None, *args, user="sluice", db="sluice", env=None, timeout=120, stdin=None):
    cmd, e = _psql_cmd(port, sql, args, user, db, env)
    p = subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=timeout, input=stdin)
    return p.returncode, p.stdout, p.stderr


def psql_ok(port, sql=None, *args, **kw):
    rc, out, err = psql(port, sql, *args, **kw)
    assert rc == 0, "psql failed on %r:\n%s%s" % (sql, out, err)
    return out


def psql_rows(out):
    return [line.split("|") for line in out.splitlines() if line]


def psql_start(port, sql=None, *args, user="sluice", db="sluice", env=None,
               stdout=subprocess.PIPE):
    cmd, e = _psql_cmd(port, sql, args, user, db, env)
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.PIPE,
                            text=True, env=e)


def psql_sigint(p, timeout=30):
    """SIGINT to a running psql, as Ctrl-C: it sends a CancelRequest and must
    end (bounded). Its stderr."""
    p.send_signal(signal.SIGINT)
    try:
        return p.communicate(timeout=timeout)[1]
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise AssertionError("psql did not end after SIGINT: the query was not cancelled")


def make_cert(tmp):
    cert, key = os.path.join(tmp, "server.crt"), os.path.join(tmp, "server.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    os.chmod(key, 0o600)
    return cert, key


def run_case(cases, prefix):
    """Runs cases[argv[1]](srv) against a server of its own, which must then
    stop cleanly (exit 0: no leak under ASan); prints ok."""
    name = sys.argv[1]
    with Server(os.path.join(tmpdir("%s-%s-" % (prefix, name)), "data")) as srv:
        cases[name](srv)
        assert srv.stop() == 0, srv.log()
    print("ok")
