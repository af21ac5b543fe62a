"""mariadb_util.py — the independent reader and driver of the MariaDB tests:
the `mariadb` command-line client (never Sluice, never a Python driver)
against the server of scripts/mariadb. Standard library only; imported by
the test scripts beside it.

The server, from the environment ctest gives every test of the `mariadb`
fixture (tests/mariadb/tests.cmake, SL_MARIADB_ENV):
  SLUICE_MARIADB_PORT     its TCP port (default 3307, as scripts/mariadb)
  SLUICE_MARIADB_RUN_DIR  its run dir (default .cache/mariadb/run-<port>)
  SLUICE_MARIADB_SCRIPT   scripts/mariadb
Run by hand, the defaults match `scripts/mariadb start`.

Every connection is TCP to 127.0.0.1 with a password (USER/PASSWORD, the
user `sluice`, by default; RO_USER/RO_PASSWORD the read-only one), database
`sluice`, client character set utf8mb4, and --no-defaults (no my.cnf).

- query(sql) -> [tuple]: the rows of every result of sql in order, each
  value the server's text form as str, NULL as None.
- execute(sql): runs sql, statement after statement in one session
  (autocommit); the first error stops it.
  Both raise MariaDBError with .errno (e.g. 1397) and .sqlstate (e.g.
  'XAE04') and the server's .message; for a refused login too (1045).
  One call is one client session: it disconnects when the call returns.
- Session(): one session kept open (a `mariadb` process fed through a
  pipe): run(sql) executes, waits until it is done and returns the lines
  it printed; close() disconnects.
  For what must stay connected: a prepared XA transaction still attached
  to its session, a transaction open while the server is killed.
- literal(s): s as an SQL string literal.
- xa_recover(): XA RECOVER as [(format_id, gtrid, bqual)] (str, ASCII xids).
- port(), run_dir(), script(), log_path(), server_pid().
- restart(immediate=True): scripts/mariadb restart [--immediate] (SIGKILL
  and crash recovery, or a clean shutdown), its data kept; returns seconds.

How rows are read: `mariadb --xml`. Its batch (tab-separated) mode prints
NULL and the string 'NULL' alike, the XML mode marks NULL with xsi:nil
and escapes only & < > " in values, so every value but one with a zero
byte (printed as a space by the client; no test stores one) reads back
exactly: tabs, newlines, backslashes, 'NULL', non-ASCII text.
"""
import os
import re
import selectors
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
USER = "sluice"
PASSWORD = "sluice"
RO_USER = "sluice_ro"
RO_PASSWORD = "sluice_ro"
DB = "sluice"

_ERROR = re.compile(r"^ERROR (\d+) \(([0-9A-Z]{5})\)(?: at line \d+)?: (.*)$", re.M)
_ROW = re.compile(rb"<row>(.*?)</row>", re.S)
_FIELD = re.compile(rb'<field name="[^"]*"(?: xsi:nil="true" />|>(.*?)</field>)', re.S)


class MariaDBError(Exception):
    """The client failed: errno (int or None), sqlstate (str or None),
    message (the server's or the client's), stderr (all it printed)."""

    def __init__(self, errno, sqlstate, message, stderr):
        super().__init__("%s%s" % ("ERROR %s (%s): " % (errno, sqlstate) if errno else "",
                                   message))
        self.errno = errno
        self.sqlstate = sqlstate
        self.message = message
        self.stderr = stderr


def port():
    """The server's TCP port."""
    return int(os.environ.get("SLUICE_MARIADB_PORT", "3307"))


def run_dir():
    """The server's run dir (my.cnf, data/, mariadb.log, mariadb.pid)."""
    return os.path.realpath(os.environ.get("SLUICE_MARIADB_RUN_DIR") or os.path.join(
        HERE, "..", "..", ".cache", "mariadb", "run-%d" % port()))


def script():
    """The path of scripts/mariadb."""
    return os.environ.get("SLUICE_MARIADB_SCRIPT") or os.path.realpath(os.path.join(
        HERE, "..", "..", "scripts", "mariadb"))


def log_path():
    """The server's error log."""
    return os.path.join(run_dir(), "mariadb.log")


def server_pid():
    """The pid of the running mariadbd (its pid file)."""
    with open(os.path.join(run_dir(), "mariadb.pid")) as f:
        return int(f.readline())


def _env():
    # None of the caller's client settings (MYSQL_PWD, MYSQL_HOST, ...).
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MYSQL") and not k.startswith("MARIADB")}
    env["LC_ALL"] = "C"
    return env


def _args(user, password, db, port_, extra):
    return (["mariadb", "--no-defaults", "--protocol=tcp", "-h", "127.0.0.1",
             "-P", str(port_ if port_ is not None else port()),
             "-u", user, "--password=" + password, "--default-character-set=utf8mb4",
             "--connect-timeout=10", "--batch"] + extra + [db])


def _raise(stderr):
    m = _ERROR.search(stderr)
    if m:
        raise MariaDBError(int(m.group(1)), m.group(2), m.group(3).strip(), stderr)
    raise MariaDBError(None, None, stderr.strip() or "mariadb failed", stderr)


def _unescape(b):
    return (b.replace(b"&lt;", b"<").replace(b"&gt;", b">").replace(b"&quot;", b'"')
            .replace(b"&amp;", b"&").decode("utf-8", errors="surrogateescape"))


def _run(sql, user, password, db, port_, timeout):
    r = subprocess.run(_args(user, password, db, port_, ["--xml"]), input=sql.encode(),
                       capture_output=True, timeout=timeout, env=_env())
    if r.returncode != 0:
        _raise(r.stderr.decode(errors="replace"))
    return r.stdout


def query(sql, user=USER, password=PASSWORD, db=DB, port=None, timeout=60):
    """The rows of sql's results: a list of tuples of str (None for NULL)."""
    out = _run(sql, user, password, db, port, timeout)
    return [tuple(None if m.group(1) is None else _unescape(m.group(1))
                  for m in _FIELD.finditer(row))
            for row in _ROW.findall(out)]


def execute(sql, user=USER, password=PASSWORD, db=DB, port=None, timeout=60):
    """Run sql (statements one after another in one session, autocommit);
    raise MariaDBError at the first error."""
    _run(sql, user, password, db, port, timeout)


def literal(s):
    """s as an SQL string literal (backslash escapes are on by default)."""
    return "'" + s.replace("\\", "\\\\").replace("'", "''").replace("\0", "\\0") + "'"


def xa_recover(user=USER, password=PASSWORD):
    """XA RECOVER: [(format_id, gtrid, bqual)], from the lengths it gives."""
    out = []
    for fmt, glen, blen, data in query("XA RECOVER", user=user, password=password):
        g, b = int(glen), int(blen)
        out.append((int(fmt), data[:g], data[g:g + b]))
    return out


class Session:
    """One client session kept open: a `mariadb` process whose stdin is a
    pipe. run(sql) sends sql and a marker SELECT and waits for the marker
    (--unbuffered: the client flushes after each statement); an error ends
    the client (batch mode), and run raises MariaDBError. run returns the
    lines sql printed (tab-separated, no column names, escaped: for simple
    values such as CONNECTION_ID(); read rows with query())."""

    _n = 0

    def __init__(self, user=USER, password=PASSWORD, db=DB, port=None):
        self.proc = subprocess.Popen(_args(user, password, db, port,
                                           ["--skip-column-names", "--unbuffered"]),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=_env())
        self._buf = b""

    def run(self, sql, timeout=60):
        Session._n += 1
        marker = "session-done-%d-%d" % (os.getpid(), Session._n)
        try:
            self.proc.stdin.write(("%s;\nSELECT '%s';\n" % (sql.rstrip().rstrip(";"), marker))
                                  .encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        want = (marker + "\n").encode()
        deadline = time.monotonic() + timeout
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        try:
            while want not in self._buf:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("session: no answer to %r in %ss" % (sql, timeout))
                if not sel.select(left):
                    continue
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:  # the client exited: an error, or the server went away
                    self.proc.wait(timeout=10)
                    _raise(self.proc.stderr.read().decode(errors="replace"))
                self._buf += chunk
        finally:
            sel.close()
        out, self._buf = self._buf.split(want, 1)
        return out.decode(errors="replace").splitlines()

    def close(self, timeout=30):
        """Disconnect (end the client); returns its exit status."""
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            self.proc.stdout.close()
            self.proc.stderr.close()


def restart(immediate=True, timeout=180):
    """scripts/mariadb restart [--immediate]: its data and settings kept.
    Returns the seconds it took; raises RuntimeError when it fails."""
    env = dict(os.environ, MARIADB_PORT=str(port()), MARIADB_RUN_DIR=run_dir())
    env.pop("MARIADB_SERVER_OPTS", None)
    t0 = time.monotonic()
    r = subprocess.run([script(), "restart"] + (["--immediate"] if immediate else []),
                       capture_output=True, timeout=timeout, env=env)
    if r.returncode != 0:
        raise RuntimeError("scripts/mariadb restart failed: %s%s" % (
            r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")))
    return time.monotonic() - t0
