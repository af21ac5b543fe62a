"""pg_util.py — the independent reader of the PostgreSQL tests: psql (never
Sluice, never a Python driver) against the servers of scripts/postgres.
Standard library only; imported by the test scripts beside it.

Servers, from the environment ctest gives every test of the `pg` / `pg0`
fixtures (tests/postgres/tests.cmake, SL_PG_ENV):
  SLUICE_PG_PORT, SLUICE_PG_RUN_DIR    the server with max_prepared_transactions
                                       64 (which='pg'; default port 5433)
  SLUICE_PG0_PORT, SLUICE_PG0_RUN_DIR  the one with 0 (which='pg0'; default 5434)
  SLUICE_PG_SCRIPT                     scripts/postgres
Run by hand, the defaults match `scripts/postgres start` and
`PG_PORT=5434 PG_MAX_PREPARED_TRANSACTIONS=0 scripts/postgres start`.

Every connection is TCP to 127.0.0.1 with a password (USER/PASSWORD, the
superuser `sluice`, by default; RO_USER/RO_PASSWORD the read-only role) to
the database `sluice`.

- query(sql) -> [tuple]: every row of every result of sql, each value the
  server's text form as str, NULL as None.
- execute(sql): runs sql, one statement after another (autocommit, so
  COMMIT PREPARED works); the first error stops it.
  Both raise PgError (with .sqlstate, e.g. '42501', when the server sent one;
  None when the connection itself failed, e.g. a wrong password).
- literal(s): s as an SQL string literal.
- port_of(which), run_dir(which), script(): where server `which` is.
- jdbc_url(db, port): 'jdbc:postgresql://127.0.0.1:PORT/DB' for a WITH clause.
- prepared_xacts(prefix): the gids of the prepared transactions that start
  with prefix, sorted.
- restart(immediate, which): scripts/postgres restart [--immediate] of that
  server (its data is kept; -m immediate recovers from the WAL as after a
  crash); postmaster_pid(which): the pid of its postmaster (to SIGKILL it).

How rows are read: psql -A -t with '\\xfe' between fields and a zero byte
after each row. The database is UTF8, so no text value contains either
byte. NULL is shown as NULL_MARK, which no test stores.
"""
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
USER = "sluice"
PASSWORD = "sluice"
RO_USER = "sluice_ro"
RO_PASSWORD = "sluice_ro"
DB = "sluice"
NULL_MARK = "\x1a<NULL>\x1a"
_FIELD_SEP = b"\xfe"   # never in UTF-8 text
_ROW_END = b"\x00"     # never in any text value

_SERVERS = {
    "pg": ("SLUICE_PG_PORT", "5433", "SLUICE_PG_RUN_DIR"),
    "pg0": ("SLUICE_PG0_PORT", "5434", "SLUICE_PG0_RUN_DIR"),
}


class PgError(Exception):
    """psql failed: sqlstate (str or None), message (the server's primary
    message or psql's), stderr (all psql printed)."""

    def __init__(self, sqlstate, message, stderr):
        super().__init__("%s%s" % ("[%s] " % sqlstate if sqlstate else "", message))
        self.sqlstate = sqlstate
        self.message = message
        self.stderr = stderr


def port_of(which="pg"):
    """The TCP port of server `which` ('pg' or 'pg0')."""
    var, default, _ = _SERVERS[which]
    return int(os.environ.get(var, default))


def run_dir(which="pg"):
    """The run dir of server `which` (data/, postgres.log)."""
    _, _, var = _SERVERS[which]
    p = port_of(which)
    return os.environ.get(var) or os.path.join(HERE, "..", "..", ".cache", "postgres",
                                               "run-%d" % p)


def script():
    """The path of scripts/postgres."""
    return os.environ.get("SLUICE_PG_SCRIPT") or os.path.join(HERE, "..", "..", "scripts",
                                                              "postgres")


def _env(password):
    # Only our connection settings: none of the caller's PG* variables.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env.update(PGPASSWORD=password, PGCLIENTENCODING="UTF8", PGCONNECT_TIMEOUT="10",
               LC_ALL="C")
    return env


def _psql(sql, port_, user, password, db, timeout):
    args = ["psql", "-X", "-q", "-A", "-t", "-0", "-F", "\xfe",
            "-P", "null=" + NULL_MARK, "-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose",
            "-h", "127.0.0.1", "-p", str(port_ if port_ is not None else port_of()),
            "-U", user, "-d", db, "-f", "-"]
    # psql takes '\xfe' from argv as that one byte: pass argv as bytes.
    argv = [a.encode("latin-1") if a == "\xfe" else a.encode() for a in args]
    r = subprocess.run(argv, input=sql.encode(), capture_output=True, timeout=timeout,
                       env=_env(password))
    if r.returncode != 0:
        err = r.stderr.decode(errors="replace")
        m = re.search(r"(?:ERROR|FATAL|PANIC):\s+([0-9A-Z]{5}):\s+(.*)", err)
        if m:
            raise PgError(m.group(1), m.group(2).strip(), err)
        m = re.search(r"(?:FATAL|ERROR):\s+(.*)", err)
        raise PgError(None, (m.group(1) if m else err).strip(), err)
    return r.stdout


def query(sql, port=None, user=USER, password=PASSWORD, db=DB, timeout=60):
    """The rows of sql's results: a list of tuples of str (None for NULL)."""
    out = _psql(sql, port, user, password, db, timeout)
    rows = []
    for rec in out.split(_ROW_END)[:-1]:
        rows.append(tuple(None if v == NULL_MARK else v
                          for v in (f.decode() for f in rec.split(_FIELD_SEP))))
    return rows


def execute(sql, port=None, user=USER, password=PASSWORD, db=DB, timeout=60):
    """Run sql (statements one after another, each committed on its own
    unless sql has BEGIN); raise PgError at the first error."""
    _psql(sql, port, user, password, db, timeout)


def literal(s):
    """s as an SQL string literal (standard_conforming_strings is on)."""
    return "'" + s.replace("'", "''") + "'"


def jdbc_url(db=DB, port=None):
    """The URL a Sluice jdbc table names for server `port` (default 'pg')."""
    return "jdbc:postgresql://127.0.0.1:%d/%s" % (port if port is not None else port_of(), db)


def prepared_xacts(prefix="", port=None):
    """Sorted gids of the prepared transactions whose gid starts with prefix
    (in every database of the server)."""
    rows = query("SELECT gid FROM pg_prepared_xacts WHERE starts_with(gid, %s) ORDER BY gid"
                 % literal(prefix), port=port)
    return [r[0] for r in rows]


def restart(immediate=True, which="pg", timeout=120):
    """scripts/postgres restart [--immediate] of server `which`; its data and
    settings are kept. Raises RuntimeError when it fails."""
    env = dict(os.environ, PG_PORT=str(port_of(which)), PG_RUN_DIR=run_dir(which))
    env.pop("PG_MAX_PREPARED_TRANSACTIONS", None)
    r = subprocess.run([script(), "restart"] + (["--immediate"] if immediate else []),
                       capture_output=True, timeout=timeout, env=env)
    if r.returncode != 0:
        raise RuntimeError("scripts/postgres restart failed: %s%s" % (
            r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")))


def postmaster_pid(which="pg"):
    """The pid of server `which`'s postmaster (first line of postmaster.pid)."""
    with open(os.path.join(run_dir(which), "data", "postmaster.pid")) as f:
        return int(f.readline())
