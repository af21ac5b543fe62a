"""server.clients.psql.<case> — Debian's psql (postgresql-client) against
`sluice serve`: what the issue asks psql to do, each case with a server of its
own. psql is the independent reader: the test checks what psql printed and
how it exited, and files the engine wrote, never the server's own account.

  ddl          CREATE TABLE / SHOW TABLES / DROP TABLE, command tags
  insert       INSERT over the wire starts a background job (NOTICE, INSERT 0 0);
               SHOW JOBS sees it until FINISHED; the committed files hold
               every row exactly once; STOP JOB of an unbounded one
  explain      EXPLAIN returns rows (the plan; INSERT's == Guarantees ==)
  caret        errors carry P in characters: psql's caret under the right
               character after multi-byte identifiers, on line 2, and in the
               second statement of one simple query
  dt           \\dt lists the tables, \\d of an unknown name, \\l
  d_table      \\d NAME: its columns, types and primary key index
  fetch_count  \\set FETCH_COUNT over an unbounded (streaming) query: rows
               arrive batch by batch while the query runs; SIGINT cancels it
  cancel       Ctrl-C (SIGINT to psql: a CancelRequest) stops a streaming
               query without FETCH_COUNT; the server goes on serving

Usage: clients_psql_test.py CASE
"""
import os
import threading
import time
import unicodedata

from jobs_util import job_status, wait_status
from srv_util import psql, psql_ok, psql_sigint, psql_start, run_case, tmpdir

UNBOUNDED = ("CREATE TABLE s (id BIGINT, v STRING) WITH ('connector'='datagen', "
             "'rows-per-second'='1000', 'fields.id.kind'='random', 'fields.id.min'='1', "
             "'fields.id.max'='1000000', 'fields.v.length'='8')")


def case_ddl(srv):
    out = psql_ok(srv.port, "CREATE TABLE t1 (a INT, b STRING, c DECIMAL(10, 2), d TIMESTAMP(3)) "
                  "WITH ('connector'='datagen', 'number-of-rows'='3')")
    assert out.strip() == "CREATE TABLE", out
    out = psql_ok(srv.port, "SHOW TABLES", "-A", "-t")
    assert "t1" in out.split(), out
    rc, out, err = psql(srv.port, "CREATE TABLE t1 (a INT) WITH ('connector'='datagen')")
    assert rc != 0 and "already exists" in err, (out, err)
    out = psql_ok(srv.port, "DROP TABLE t1")
    assert out.strip() == "DROP TABLE", out
    out = psql_ok(srv.port, "SHOW TABLES", "-A", "-t")
    assert "t1" not in out.split(), out


def committed_ids(out_dir):
    """The committed files' first CSV column (hidden files are in progress)."""
    ids = []
    for name in sorted(os.listdir(out_dir)) if os.path.isdir(out_dir) else []:
        if name.startswith(".") or name.startswith("_"):
            continue
        with open(os.path.join(out_dir, name), encoding="utf-8") as f:
            ids += [int(line.split(",")[0]) for line in f if line.strip()]
    return ids


def case_insert(srv):
    out_dir = os.path.join(tmpdir("srv-psql-out-"), "out")
    psql_ok(srv.port, "CREATE TABLE src (id BIGINT) WITH ('connector'='datagen', 'number-of-rows'='500', "
            "'fields.id.kind'='sequence', 'fields.id.start'='1', 'fields.id.end'='500')")
    psql_ok(srv.port, "CREATE TABLE dst (id BIGINT) WITH ('connector'='filesystem', 'path'='%s', "
            "'format'='csv')" % out_dir)
    rc, out, err = psql(srv.port, "SET 'pipeline.name' = 'copy_ids'; INSERT INTO dst SELECT id FROM src")
    assert rc == 0, err
    # A background job: the INSERT returns at once with Flink's tag, and the
    # job's name arrives as a NOTICE.
    assert out.strip().splitlines()[-1] == "INSERT 0 0", out
    assert 'job "copy_ids" submitted' in err, err
    wait_status(srv.port, "copy_ids", ("FINISHED",), timeout=60)
    ids = committed_ids(out_dir)
    assert sorted(ids) == list(range(1, 501)), "rows missing or duplicated: %d rows" % len(ids)
    # An unbounded job keeps running after the client that started it left;
    # another connection sees and stops it.
    psql_ok(srv.port, UNBOUNDED)
    psql_ok(srv.port, "CREATE TABLE sink (id BIGINT, v STRING) WITH ('connector'='blackhole')")
    psql_ok(srv.port, "SET 'pipeline.name' = 'forever'; INSERT INTO sink SELECT * FROM s")
    wait_status(srv.port, "forever", ("RUNNING",), timeout=60)
    out = psql_ok(srv.port, "STOP JOB 'forever'")
    assert out.strip() == "STOP JOB", out
    assert job_status(srv.port, "forever") == "STOPPED"
    rc, out, err = psql(srv.port, "STOP JOB 'nope'", "-v", "VERBOSITY=verbose")
    assert rc != 0 and "42704" in err, err


def case_explain(srv):
    psql_ok(srv.port, UNBOUNDED)
    psql_ok(srv.port, "CREATE TABLE sink (id BIGINT, v STRING) WITH ('connector'='blackhole')")
    out = psql_ok(srv.port, "EXPLAIN SELECT id FROM s WHERE id > 10", "-A", "-t")
    assert len(out.splitlines()) > 1 and "s" in out, out
    out = psql_ok(srv.port, "EXPLAIN INSERT INTO sink SELECT * FROM s", "-A", "-t")
    assert "== Guarantees ==" in out, out
    # EXPLAIN starts nothing.
    out = psql_ok(srv.port, "SHOW JOBS", "-A", "-t")
    assert out.strip() == "", out


def caret_at(err, line_no):
    """The text from psql's caret on: psql prints LINE n: <text> and a line
    with ^ under the character P points at (P counts characters; psql
    places the caret by display width: an East Asian wide character takes
    two columns)."""
    lines = err.splitlines()
    tag = "LINE %d: " % line_no
    i = next(i for i, l in enumerate(lines) if l.startswith(tag))
    col = lines[i + 1].index("^") - len(tag)
    text = lines[i][len(tag):]
    for k, ch in enumerate(text):
        if col <= 0:
            return text[k:]
        col -= 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return ""


def case_caret(srv):
    psql_ok(srv.port, "CREATE TABLE t (a INT, `é` STRING, `日本語` STRING) WITH ('connector'='datagen', "
            "'number-of-rows'='2')")
    rc, _, err = psql(srv.port, "SELECT `日本語`, `é`, nope FROM t")
    assert rc != 0 and 'column "nope" does not exist' in err, err
    assert caret_at(err, 1).startswith("nope FROM"), err
    rc, _, err = psql(srv.port, "SELECT `日本語`,\n  `é` + missing FROM t")
    assert rc != 0 and "missing" in err, err
    assert caret_at(err, 2).startswith("missing FROM"), err
    # Second statement of one simple Query message: P counts from the
    # start of the whole query string, and the first statement ran.
    rc, out, err = psql(srv.port, "SELECT `é` FROM t WHERE a = a; SELECT `日本語`, zzz FROM t",
                        "-v", "VERBOSITY=verbose")
    assert rc != 0 and "42703" in err, err
    assert caret_at(err, 1).startswith("zzz FROM"), err
    # A syntax error after a multi-byte string literal.
    rc, _, err = psql(srv.port, "SELECT 'ü€' AS x FROM t WHERE WHERE", "-v", "VERBOSITY=verbose")
    assert rc != 0 and "42601" in err, err
    assert caret_at(err, 1) == "WHERE", err


ORDERS = ("CREATE TABLE orders (id BIGINT NOT NULL, amount DECIMAL(10, 2), note STRING, "
          "ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='datagen', "
          "'number-of-rows'='1')")


def case_dt(srv):
    psql_ok(srv.port, ORDERS)
    psql_ok(srv.port, "CREATE TABLE users (name STRING) WITH ('connector'='datagen', 'number-of-rows'='1')")
    out = psql_ok(srv.port, "\\dt", "-A", "-t", "-F", "|")
    names = sorted(l.split("|")[1] for l in out.splitlines() if l.count("|") >= 3)
    assert names == ["orders", "users"], out
    rc, out, err = psql(srv.port, "\\d nosuch")
    assert 'Did not find any relation named "nosuch"' in err, (out, err)
    # \l: the database the client named is listed.
    out = psql_ok(srv.port, "\\l", "-A", "-t", "-F", "|")
    assert "sluice" in [l.split("|")[0] for l in out.splitlines()], out


def case_d_table(srv):
    """\\d TABLE: psql 15's nine queries (a correlated string_agg subquery and
    ARRAY(subquery) among them) run; the whole output is compared with
    PostgreSQL's own in server.syscat_pg."""
    psql_ok(srv.port, ORDERS)
    out = psql_ok(srv.port, "\\d orders", "-A", "-F", "|")
    cols = {l.split("|")[0]: l.split("|")[1] for l in out.splitlines() if l.count("|") >= 2}
    assert cols.get("id") == "bigint", out
    assert cols.get("amount") == "numeric(10,2)", out
    assert cols.get("note") == "text", out
    assert cols.get("ts", "").startswith("timestamp(3) without time zone"), out
    assert 'Table "public.orders"' in out, out
    assert '"orders_pkey" PRIMARY KEY, btree (id)' in out, out


class Reader(threading.Thread):
    """Collects a process's output lines as they arrive."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream, self.lines, self.cv = stream, [], threading.Condition()

    def run(self):
        for line in self.stream:
            with self.cv:
                self.lines.append(line.rstrip("\n"))
                self.cv.notify_all()
        with self.cv:
            self.lines.append(None)
            self.cv.notify_all()

    def wait_lines(self, n, timeout):
        with self.cv:
            self.cv.wait_for(lambda: len(self.lines) >= n or None in self.lines, timeout)
            return list(self.lines)


def start_psql(port, sql, *args):
    p = psql_start(port, sql, "-A", "-t", *args)
    r = Reader(p.stdout)
    r.start()
    return p, r


def cancel_and_check(srv, p, r, between_fetches_ok=False):
    """SIGINT to psql: it sends a CancelRequest and must end (bounded).
    Without FETCH_COUNT the running query fails with 57014's message. With
    it, psql also stops fetching: when the cancel arrives between two
    FETCHes psql ends without an error, as it does with PostgreSQL."""
    err = psql_sigint(p)
    assert "Cancel request sent" in err, err
    if not (between_fetches_ok and p.returncode == 0):
        assert p.returncode != 0, "a cancelled unbounded query cannot succeed"
        assert "canceling statement due to user request" in err, err
    # The server still serves.
    out = psql_ok(srv.port, "SHOW TABLES", "-A", "-t")
    assert "s" in out.split(), out


def case_fetch_count(srv):
    psql_ok(srv.port, UNBOUNDED)
    p, r = start_psql(srv.port, "SELECT id, v FROM s", "-v", "FETCH_COUNT=100")
    lines = r.wait_lines(300, timeout=30)
    rows = [l for l in lines if l is not None and "|" in l]
    assert len(rows) >= 300, "no rows streamed through the cursor: %r" % lines[:5]
    for l in rows[:300]:
        a, b = l.split("|")
        assert 1 <= int(a) <= 1000000 and len(b) == 8, l
    assert p.poll() is None, "an unbounded query ended: " + p.stderr.read()
    cancel_and_check(srv, p, r, between_fetches_ok=True)


def case_cancel(srv):
    psql_ok(srv.port, UNBOUNDED)
    p, r = start_psql(srv.port, "SELECT id, v FROM s")
    time.sleep(1)  # let the query start; the check does not depend on it
    assert p.poll() is None, "an unbounded query ended: " + p.stderr.read()
    cancel_and_check(srv, p, r)


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


if __name__ == "__main__":
    run_case(CASES, "srv-psql")
