#!/usr/bin/env python3
"""pg_write_test.py — the jdbc sink's writes (none / at-least-once), checked
by an independent reader: psql through pg_util, never Sluice.

Cases (--case):
  types      every type Sluice has, with the values that need care (tab,
             newline, CR, backslash and \\N in strings and bytes, NULL in
             every column, NaN / -Infinity / -0.0, the extremes of DATE,
             SMALLINT, TINYINT, DECIMAL, an instant before 1970), written
             through COPY (a table without a key) and through the
             prepared upsert (with one); both must equal the same rows
             inserted by psql from literals this script writes.
  errors     the server's SQLSTATE reaches the user: a wrong password
             (28P01, the password in no message), a missing table (42P01),
             a duplicate in a table whose key Sluice does not know (23505),
             a role without the right to write (42501).
  upsert     at-least-once upsert by key through SIGKILLs: an updating
             aggregation (-U/+U rows) into a table with a PRIMARY KEY; the
             batches are committed every 20 ms, so kills leave committed
             rows the restarted job writes again. The final table must
             equal the reference computed here.
  control    the same kills into a table without a key (COPY, at-least-
             once): the check must find the duplicates (and nothing
             missing) — proof that the upsert check can fail.
  ignore     a ledger ('sink.on-duplicate-key' = 'ignore' with a conflict
             table) through SIGKILLs: every event of the first half comes
             again in the second half, 9 in 10 identical (absorbed), 1 in
             10 with another amount (a conflict). The ledger must hold the
             first half's amounts; each conflict must be in the conflict
             table (stored and conflicting row), in the log with its key,
             and counted once in SHOW JOBS' conflicts.
  error      the same events under 'error': the job fails with 23505
             naming the first conflicting key; replays of identical events
             before it did not fail it.
  retry      the server ends the sink's connection three times while an
             at-least-once job writes: the sink reconnects, writes the lost
             transaction again, and the job ends with every row.
  timer      a quiet input: each row is committed within the flush
             interval by the sink's timer, not when the next row arrives.
  order      the writer driven directly (pg_write_order.c, --order-bin)
             with deletes and several changes of a key in one batch.

Usage: pg_write_test.py --sluice PATH --case NAME [--kills N] [--seed N]
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pg_util

def _patient(fn):
    """pg_util's fn, tried again for 30 s while the server cannot be reached
    (another test of the fixture may be restarting it: pg.smoke)."""
    def call(*args, **kw):
        deadline = time.monotonic() + 30
        while True:
            try:
                return fn(*args, **kw)
            except pg_util.PgError as e:
                if e.sqlstate is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
    return call


pg_util.query = _patient(pg_util.query)
pg_util.execute = _patient(pg_util.execute)

SINK = ("'connector' = 'jdbc', 'url' = '{url}', 'table-name' = '{table}', "
        "'username' = 'sluice', 'password' = 'sluice'")


def sink(table, extra=""):
    return SINK.format(url=pg_util.jdbc_url(), table=table) + (", " + extra if extra else "")


def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


class Case:
    def __init__(self, a):
        self.a = a
        self.work = tempfile.mkdtemp(prefix="sluice-pgw-")
        self.data = os.path.join(self.work, "data")
        self.env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1")
        self.ok = True

    def fail(self, msg):
        print("pg_write_test: FAILED: " + msg)
        self.ok = False

    def run(self, sql, timeout=300, fresh=False):
        if fresh:
            shutil.rmtree(self.data, ignore_errors=True)
        job = os.path.join(self.work, "job.sql")
        with open(job, "w", encoding="utf-8") as f:
            f.write(sql)
        return subprocess.run([self.a.sluice, "--data-dir", self.data, "-f", job],
                              capture_output=True, env=self.env, timeout=timeout)

    def kill_loop(self, sql, kills, rnd):
        """Runs of sql killed after 0.3-1.2 s, `kills` times, then a last run to
        its end. Returns (last CompletedProcess-like (rc, stderr), all stderr)."""
        job = os.path.join(self.work, "job.sql")
        with open(job, "w", encoding="utf-8") as f:
            f.write(sql)
        logs, done, runs = [], 0, 0
        deadline = time.monotonic() + 400
        while time.monotonic() < deadline:
            runs += 1
            p = subprocess.Popen([self.a.sluice, "--data-dir", self.data, "-f", job],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=self.env)
            try:
                timeout = rnd.uniform(0.3, 1.2) if done < kills else 300
                _, err = p.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
                _, err = p.communicate()
                logs.append(err.decode("utf-8", "replace"))
                done += 1
                continue
            logs.append(err.decode("utf-8", "replace"))
            print("pg_write_test: %d runs, %d SIGKILLs" % (runs, done))
            return p.returncode, "".join(logs), done
        return None, "".join(logs), done

    def show_jobs(self, name):
        """SHOW JOBS' row of job `name` as {column: value}."""
        r = subprocess.run([self.a.sluice, "--data-dir", self.data, "-e", "SHOW JOBS;"],
                           capture_output=True, env=self.env, timeout=60)
        header = None
        for line in r.stdout.decode("utf-8", "replace").splitlines():
            if not line.startswith("|"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                header = cells
            elif cells[0] == name:
                return dict(zip(header, cells))
        return None

    def done(self):
        if self.ok:
            shutil.rmtree(self.work, ignore_errors=True)
        else:
            print("pg_write_test: kept %s for inspection" % self.work)
        return 0 if self.ok else 1


# ---------------------------------------------------------------------------
# types

S1 = "tab\tnl\ncr\rbs\\ \\N ü€😀 'q'"
# (name, Sluice type, PostgreSQL type, Sluice expression over the source's
# STRING column v)
TYPES = [
    ("id", "INT", "int", "CAST(v AS INT)"), ("s", "STRING", "text", "v"),
    ("c", "CHAR(3)", "char(3)", "CAST(v AS CHAR(3))"),
    ("d", "DECIMAL(20,4)", "numeric(20,4)", "CAST(v AS DECIMAL(20,4))"),
    ("b", "BYTES", "bytea", "CAST(v AS BYTES)"),
    ("ts", "TIMESTAMP_LTZ(6)", "timestamptz", "TO_TIMESTAMP_LTZ(CAST(v AS BIGINT), 3)"),
    ("tt", "TIMESTAMP(6)", "timestamp(6)", "CAST(v AS TIMESTAMP(6))"),
    ("dt", "DATE", "date", "CAST(v AS DATE)"), ("f", "DOUBLE", "float8", "CAST(v AS DOUBLE)"),
    ("r", "FLOAT", "real", "CAST(v AS FLOAT)"), ("bo", "BOOLEAN", "boolean", "CAST(v AS BOOLEAN)"),
    ("tm", "TIME(3)", "time(3)", "CAST(v AS TIME(3))"),
    ("si", "SMALLINT", "smallint", "CAST(v AS SMALLINT)"),
    ("ti", "TINYINT", "smallint", "CAST(v AS TINYINT)"),
    ("bi", "BIGINT", "bigint", "CAST(v AS BIGINT)"),
]
# Each row: (the source's text, the PostgreSQL literal of the value), column
# by column; None is NULL.
ROWS = [
    [("1", "1"), (S1, sql_str(S1)), ("ab", "'ab'"),
     ("-12345678901234.5678", "-12345678901234.5678"),
     (S1, "convert_to(%s, 'UTF8')" % sql_str(S1)),
     ("1764633600123", "'2025-12-02 00:00:00.123+00'"),
     ("1999-12-31 23:59:59.999999", "'1999-12-31 23:59:59.999999'"),
     ("0001-01-01", "'0001-01-01'"), ("NaN", "'NaN'"), ("-Infinity", "'-Infinity'"),
     ("true", "true"), ("23:59:59.999", "'23:59:59.999'"), ("-32768", "-32768"),
     ("-128", "-128"), ("-9223372036854775808", "-9223372036854775808")],
    [("2", "2")] + [(None, "NULL")] * (len(TYPES) - 1),
    [("3", "3"), ("", "''"), ("xyz", "'xyz'"), ("0.0001", "0.0001"), ("", "''::bytea"),
     ("-1000", "'1969-12-31 23:59:59+00'"), ("2026-12-02 07:00:00", "'2026-12-02 07:00:00'"),
     ("9999-12-31", "'9999-12-31'"), ("1.0E300", "1.0E300"), ("3.4E38", "3.4E38"),
     ("false", "false"), ("00:00:00", "'00:00:00'"), ("32767", "32767"), ("127", "127"),
     ("9223372036854775807", "9223372036854775807")],
    [("4", "4"), ("\\N", "'\\N'"), ("a\\b", "'a\\b'"), ("-0.0001", "-0.0001"),
     ("\\N", "'\\x5c4e'::bytea"), ("0", "'1970-01-01 00:00:00+00'"),
     ("1970-01-01 00:00:00.000001", "'1970-01-01 00:00:00.000001'"),
     ("2024-02-29", "'2024-02-29'"), ("-0.0", "'-0'"), ("0.1", "0.1"), ("true", "true"),
     ("12:00:00.5", "'12:00:00.5'"), ("0", "0"), ("0", "0"), ("0", "0")],
]


def case_types(c):
    cols_pg = ", ".join("%s %s" % (t[0], t[2]) for t in TYPES)
    cols_sl = ", ".join("%s %s" % (t[0], t[1]) for t in TYPES)
    pg_util.execute("DROP TABLE IF EXISTS w_typ_ref, w_typ_key, w_typ_copy; "
                    "CREATE TABLE w_typ_ref (%s); CREATE TABLE w_typ_key (%s, PRIMARY KEY (id)); "
                    "CREATE TABLE w_typ_copy (%s);" % (cols_pg, cols_pg, cols_pg))
    pg_util.execute("INSERT INTO w_typ_ref VALUES %s" % ", ".join(
        "(%s)" % ", ".join(v[1] for v in row) for row in ROWS))
    # The source: one JSON object a line, every value a string (or null).
    src = os.path.join(c.work, "in")
    os.makedirs(src)
    with open(os.path.join(src, "rows.json"), "w", encoding="utf-8") as f:
        for row in ROWS:
            f.write(json.dumps({"v%d" % i: v[0] for i, v in enumerate(row)}) + "\n")
    src_cols = ", ".join("v%d STRING" % i for i in range(len(TYPES)))
    exprs = ", ".join(t[3].replace("v", "v%d" % i, 1) if t[3] != "v" else "v%d" % i
                      for i, t in enumerate(TYPES))
    sql = ("CREATE TABLE src (%s) WITH ('connector' = 'filesystem', 'path' = '%s', "
           "'format' = 'json');\n"
           "CREATE TABLE w_typ_key (%s, PRIMARY KEY (id) NOT ENFORCED) WITH (%s);\n"
           "CREATE TABLE w_typ_copy (%s) WITH (%s);\n"
           "INSERT INTO w_typ_key SELECT %s FROM src;\nINSERT INTO w_typ_copy SELECT %s FROM src;\n"
           % (src_cols, src, cols_sl, sink("w_typ_key"), cols_sl, sink("w_typ_copy"), exprs,
              exprs))
    r = c.run(sql)
    if r.returncode != 0:
        return c.fail("the job failed:\n" + r.stderr.decode("utf-8", "replace"))
    for t in ("w_typ_key", "w_typ_copy"):
        n = pg_util.query("SELECT count(*) FROM %s" % t)[0][0]
        diff = pg_util.query("SELECT 'missing', * FROM (SELECT * FROM w_typ_ref EXCEPT ALL "
                             "SELECT * FROM {t}) a UNION ALL SELECT 'extra', * FROM (SELECT * "
                             "FROM {t} EXCEPT ALL SELECT * FROM w_typ_ref) b".format(t=t))
        print("pg_write_test: %s: %s rows, %d differ from the reference" % (t, n, len(diff)))
        if int(n) != len(ROWS) or diff:
            c.fail("%s differs from the reference:\n  %s" % (t, "\n  ".join(map(str, diff))))
    # The tab, newline and backslash arrived as themselves (not escaped twice).
    got = pg_util.query("SELECT s, encode(b, 'hex') FROM w_typ_copy WHERE id = 1")[0]
    if got[0] != S1 or bytes.fromhex(got[1]).decode("utf-8") != S1:
        c.fail("the string / bytes of row 1 came back as %r" % (got,))


# ---------------------------------------------------------------------------
# errors

ERR_GEN = ("CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = "
           "'3', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = "
           "'3');\nSET 'parallelism.default' = '1';\n")


def expect_error(c, what, sql, state, forbidden=None):
    r = c.run(ERR_GEN + sql, fresh=True)
    err = r.stderr.decode("utf-8", "replace")
    m = re.search(r"SQLSTATE: (\w{5})", err)
    got = m.group(1) if m else None
    print("pg_write_test: %s: status %d, SQLSTATE %s" % (what, r.returncode, got))
    if r.returncode == 0 or got != state:
        c.fail("%s: expected a failure with %s, got status %d:\n%s" % (what, state, r.returncode,
                                                                      err))
    if forbidden and forbidden in err + r.stdout.decode("utf-8", "replace"):
        c.fail("%s: the output shows the password" % what)
    if "XX000" in err or "AddressSanitizer" in err:
        c.fail("%s: an internal error:\n%s" % (what, err))


def case_errors(c):
    pg_util.execute("DROP TABLE IF EXISTS w_err, w_err_pk; CREATE TABLE w_err (id bigint); "
                    "CREATE TABLE w_err_pk (id bigint PRIMARY KEY);")
    secret = "s3cret-Password-77"
    bad = SINK.format(url=pg_util.jdbc_url(), table="w_err").replace("'sluice'", "'%s'" % secret)
    bad = bad.replace("'username' = '%s'" % secret, "'username' = 'sluice'")
    expect_error(c, "wrong password",
                 "CREATE TABLE w (id BIGINT) WITH (%s);\nINSERT INTO w SELECT id FROM gen;\n" % bad,
                 "28P01", forbidden=secret)
    expect_error(c, "missing table",
                 "CREATE TABLE w (id BIGINT) WITH (%s);\nINSERT INTO w SELECT id FROM gen;\n"
                 % sink("w_no_such_table"), "42P01")
    expect_error(c, "duplicate in a key Sluice does not know",
                 "CREATE TABLE w (id BIGINT) WITH (%s);\nINSERT INTO w SELECT id %% 2 FROM gen;\n"
                 % sink("w_err_pk"), "23505")
    ro = SINK.format(url=pg_util.jdbc_url(), table="w_err").replace(
        "'username' = 'sluice', 'password' = 'sluice'",
        "'username' = '%s', 'password' = '%s'" % (pg_util.RO_USER, pg_util.RO_PASSWORD))
    expect_error(c, "read-only role",
                 "CREATE TABLE w (id BIGINT) WITH (%s);\nINSERT INTO w SELECT id FROM gen;\n" % ro,
                 "42501")
    # 1, 0, 1 in one batch: its transaction was rolled back as a whole.
    if pg_util.query("SELECT count(*) FROM w_err_pk")[0][0] != "0":
        c.fail("the failed batch left rows in w_err_pk")


# ---------------------------------------------------------------------------
# upsert / control: at-least-once through SIGKILLs

GEN = ("CREATE TABLE IF NOT EXISTS gen (id BIGINT) WITH ('connector' = 'datagen', "
       "'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}', 'fields.id.kind' = "
       "'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');\n"
       "SET 'execution.checkpointing.interval' = '300 ms';\n"
       "SET 'pipeline.name' = '{name}';\n")
ALO = ("'sink.delivery-guarantee' = 'at-least-once', 'sink.buffer-flush.max-rows' = '10', "
       "'sink.buffer-flush.interval' = '20 ms'")
KEYS = 97


def case_upsert(c, rnd):
    rows = c.a.rows
    pg_util.execute("DROP TABLE IF EXISTS w_up; CREATE TABLE w_up (k bigint PRIMARY KEY, "
                    "mx bigint, cnt bigint)")
    sql = GEN.format(rows=rows, rate=int(rows / c.a.seconds), name="pgw-upsert") + (
        "CREATE TABLE IF NOT EXISTS w_up (k BIGINT, mx BIGINT, cnt BIGINT, PRIMARY KEY (k) NOT "
        "ENFORCED) WITH (%s);\n"
        "INSERT INTO w_up SELECT id %% %d, MAX(id), COUNT(*) FROM gen GROUP BY id %% %d;\n"
        % (sink("w_up", ALO), KEYS, KEYS))
    rc, log, kills = c.kill_loop(sql, c.a.kills, rnd)
    if rc != 0:
        return c.fail("the last run failed (%s):\n%s" % (rc, log[-3000:]))
    ref = {}
    for i in range(1, rows + 1):
        mx, n = ref.get(i % KEYS, (0, 0))
        ref[i % KEYS] = (max(mx, i), n + 1)
    got = {int(k): (int(m), int(n)) for k, m, n in pg_util.query("SELECT k, mx, cnt FROM w_up")}
    wrong = [k for k in set(ref) | set(got) if ref.get(k) != got.get(k)]
    print("pg_write_test: upsert: %d kills; %d keys expected, %d in the table, %d wrong"
          % (kills, len(ref), len(got), len(wrong)))
    if kills < min(c.a.kills, 5):
        c.fail("only %d kills happened; make --seconds larger" % kills)
    if wrong:
        c.fail("keys differ from the reference: %s" % [(k, ref.get(k), got.get(k))
                                                        for k in sorted(wrong)[:10]])
    # A table keyed by more than the group key (the count too): each update's
    # -U must delete the old row (the aggregation above keys by k alone and
    # leaves -U out only for a table keyed by exactly that). One row per key.
    pg_util.execute("DROP TABLE IF EXISTS w_rows; CREATE TABLE w_rows (k bigint, cnt bigint, "
                    "PRIMARY KEY (k, cnt))")
    sql = GEN.format(rows=rows, rate=rows * 10, name="pgw-rows") + (
        "CREATE TABLE IF NOT EXISTS w_rows (k BIGINT, cnt BIGINT, PRIMARY KEY (k, cnt) NOT "
        "ENFORCED) WITH (%s);\n"
        "INSERT INTO w_rows SELECT id %% %d, COUNT(*) FROM gen GROUP BY id %% %d;\n"
        % (sink("w_rows", ALO), KEYS, KEYS))
    p = c.run(sql)
    if p.returncode != 0:
        return c.fail("the w_rows job failed:\n%s" % p.stderr.decode("utf-8", "replace")[-3000:])
    got = sorted((int(k), int(n)) for k, n in pg_util.query("SELECT k, cnt FROM w_rows"))
    want = sorted((k, n) for k, (_, n) in ref.items())
    print("pg_write_test: keyed by (k, cnt): %d rows, %d expected" % (len(got), len(want)))
    if got != want:
        c.fail("w_rows differs from the reference (first: %s, want %s)" % (got[:5], want[:5]))


def case_control(c, rnd):
    rows = c.a.rows
    pg_util.execute("DROP TABLE IF EXISTS w_app; CREATE TABLE w_app (id bigint, x bigint)")
    sql = GEN.format(rows=rows, rate=int(rows / c.a.seconds), name="pgw-control") + (
        "CREATE TABLE IF NOT EXISTS w_app (id BIGINT, x BIGINT) WITH (%s);\n"
        "INSERT INTO w_app SELECT id, id * 3 FROM gen;\n" % sink("w_app", ALO))
    rc, log, kills = c.kill_loop(sql, c.a.kills, rnd)
    if rc != 0:
        return c.fail("the last run failed (%s):\n%s" % (rc, log[-3000:]))
    total, distinct, missing, bad = pg_util.query(
        "SELECT count(*), count(DISTINCT id), %d - count(DISTINCT id) FILTER (WHERE id BETWEEN 1 "
        "AND %d), count(*) FILTER (WHERE x <> id * 3) FROM w_app" % (rows, rows))[0]
    dup = int(total) - int(distinct)
    print("pg_write_test: control: %d kills; %s rows, %d duplicates, %s missing" %
          (kills, total, dup, missing))
    if int(missing) or int(bad):
        c.fail("at-least-once lost rows (%s missing, %s wrong)" % (missing, bad))
    # The control: the same check as the upsert case's (the table equals the
    # reference: each row once) must fail here.
    if dup == 0:
        c.fail("control: the append table shows no duplicates after %d kills: the check "
               "would not detect them" % kills)


# ---------------------------------------------------------------------------
# ignore / error: a ledger

def ledger_sql(rows, rate, name, mode):
    """The ledger job; its table is w_ledger_<mode> (ignore and error run at
    the same time)."""
    h = rows // 2
    extra = ALO + ", 'sink.on-duplicate-key' = '%s'" % mode
    if mode == "ignore":
        extra += ", 'sink.conflict-table' = 'w_ledger_conflicts'"
    ev = "CASE WHEN id > {h} THEN id - {h} ELSE id END".format(h=h)
    return GEN.format(rows=rows, rate=rate, name=name) + (
        "CREATE TABLE IF NOT EXISTS w_ledger (event_id BIGINT, amount BIGINT, PRIMARY KEY "
        "(event_id) NOT ENFORCED) WITH ({sink});\n"
        "INSERT INTO w_ledger SELECT {ev}, CASE WHEN id > {h} AND MOD(id - {h}, 10) = 0 THEN "
        "({ev}) * 100 + 1 ELSE ({ev}) * 100 END FROM gen;\n").format(
            sink=sink("w_ledger_" + mode, extra), ev=ev, h=h)


def case_ignore(c, rnd):
    rows = c.a.rows - c.a.rows % 20
    h = rows // 2
    pg_util.execute("DROP TABLE IF EXISTS w_ledger_ignore, w_ledger_conflicts; CREATE TABLE "
                    "w_ledger_ignore (event_id bigint PRIMARY KEY, amount bigint NOT NULL)")
    rc, log, kills = c.kill_loop(ledger_sql(rows, int(rows / c.a.seconds), "pgw-ignore",
                                            "ignore"), c.a.kills, rnd)
    if rc != 0:
        return c.fail("the last run failed (%s):\n%s" % (rc, log[-3000:]))
    ledger = {int(e): int(a) for e, a in pg_util.query("SELECT event_id, amount FROM "
                                                        "w_ledger_ignore")}
    ref = {e: e * 100 for e in range(1, h + 1)}
    wrong = [e for e in set(ref) | set(ledger) if ref.get(e) != ledger.get(e)]
    conflicts = set(e for e in range(1, h + 1) if e % 10 == 0)
    recs = pg_util.query("SELECT conflict_key, stored_row, conflicting_row, sink_table, job "
                         "FROM w_ledger_conflicts")
    seen = {}
    for key, stored, conflicting, table, job in recs:
        m = re.fullmatch(r'\{"event_id" ?: ?(\d+)\}', key)
        e = int(m.group(1)) if m else -1
        seen[e] = seen.get(e, 0) + 1
        if ('"amount":%d' % (e * 100)) not in stored.replace(" ", "") or \
                ('"amount":%d' % (e * 100 + 1)) not in conflicting.replace(" ", "") or \
                table != "w_ledger_ignore" or job != "pgw-ignore":
            c.fail("conflict record %r does not match event %d" % ((key, stored, conflicting,
                                                                      table, job), e))
    logged = set(int(k) for k in re.findall(r"conflict: Key \(event_id\)=\((\d+)\)", log))
    show = c.show_jobs("pgw-ignore") or {}
    print("pg_write_test: ignore: %d kills; ledger %d rows (%d wrong); %d conflicts expected, "
          "%d recorded (%d keys), %d logged, SHOW JOBS conflicts %s" % (
              kills, len(ledger), len(wrong), len(conflicts), len(recs), len(seen), len(logged),
              show.get("conflicts")))
    if kills < min(c.a.kills, 5):
        c.fail("only %d kills happened; make --seconds larger" % kills)
    if wrong:
        c.fail("the ledger differs: %s" % [(e, ref.get(e), ledger.get(e)) for e in wrong[:10]])
    if set(seen) != conflicts:
        c.fail("conflict table keys differ: missing %s, extra %s" % (
            sorted(conflicts - set(seen))[:10], sorted(set(seen) - conflicts)[:10]))
    if logged != conflicts:
        c.fail("logged conflict keys differ: missing %s, extra %s" % (
            sorted(conflicts - logged)[:10], sorted(logged - conflicts)[:10]))
    if show.get("conflicts") != str(len(conflicts)):
        c.fail("SHOW JOBS should count %d conflicts: %s" % (len(conflicts), show))


def case_error(c, rnd):
    rows = c.a.rows - c.a.rows % 20
    h = rows // 2
    pg_util.execute("DROP TABLE IF EXISTS w_ledger_error; CREATE TABLE w_ledger_error "
                    "(event_id bigint PRIMARY KEY, amount bigint NOT NULL)")
    rc, log, kills = c.kill_loop(ledger_sql(rows, int(rows / c.a.seconds), "pgw-error", "error"),
                                 c.a.kills, rnd)
    last = log[log.rfind("ERROR:"):] if "ERROR:" in log else log[-2000:]
    print("pg_write_test: error: %d kills; last run status %s: %s" % (kills, rc, last.strip()))
    if rc == 0 or rc is None:
        return c.fail("the job should have failed on the conflict of event 10")
    if "SQLSTATE: 23505" not in last or "(event_id)=(10)" not in last:
        c.fail("expected 23505 naming Key (event_id)=(10)")
    n = int(pg_util.query("SELECT count(*) FROM w_ledger_error WHERE amount <> event_id * "
                          "100")[0][0])
    if n:
        c.fail("%d conflicting rows reached the ledger" % n)


# ---------------------------------------------------------------------------
# retry / timer

def case_retry(c, rnd):
    """The server ends the sink's connection (pg_terminate_backend: 57P01)
    three times while an at-least-once job writes: each time the sink
    reconnects and writes the lost transaction's rows again; the job ends
    normally and the table holds every row."""
    rows = c.a.rows
    pg_util.execute("DROP TABLE IF EXISTS w_retry; CREATE TABLE w_retry (id bigint PRIMARY KEY, "
                    "x bigint)")
    sql = GEN.format(rows=rows, rate=int(rows / c.a.seconds), name="pgw-retry") + (
        "CREATE TABLE w_retry (id BIGINT, x BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH (%s);\n"
        "INSERT INTO w_retry SELECT id, id * 3 FROM gen;\n" % sink("w_retry", ALO))
    job = os.path.join(c.work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(sql)
    p = subprocess.Popen([c.a.sluice, "--data-dir", c.data, "-f", job], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, env=c.env)
    ended = 0
    for _ in range(3):
        time.sleep(rnd.uniform(1.0, 2.0))
        ended += len(pg_util.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name "
            "LIKE 'sluice pgw-retry %'"))
    try:
        _, err = p.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    log = err.decode("utf-8", "replace")
    n, bad = pg_util.query("SELECT count(*), count(*) FILTER (WHERE x <> id * 3 OR id NOT BETWEEN "
                           "1 AND %d) FROM w_retry" % rows)[0]
    retries = log.count("retrying")
    print("pg_write_test: retry: %d connections ended, %d retries logged, status %d, %s rows" %
          (ended, retries, p.returncode, n))
    if p.returncode != 0:
        c.fail("the job failed:\n" + log[-3000:])
    if ended < 3 or retries < 1:
        c.fail("expected 3 ended connections and retries in the log:\n" + log[-3000:])
    if int(n) != rows or int(bad):
        c.fail("the table holds %s rows (%s wrong), expected %d" % (n, bad, rows))


def case_timer(c, rnd):
    """A quiet input (datagen at 2 rows/s gives 2 rows once a second;
    guarantee none, no checkpoints): each row is committed within the flush
    interval (200 ms) by the sink's timer, not when the next rows arrive a
    second later."""
    pg_util.execute("DROP TABLE IF EXISTS w_timer; CREATE TABLE w_timer (id bigint, t timestamptz)")
    sql = ("CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '2');\n"
           "CREATE TABLE w_timer (id BIGINT, t TIMESTAMP_LTZ(3)) WITH (%s);\n"
           "INSERT INTO w_timer SELECT id, CURRENT_TIMESTAMP FROM gen;\n"
           % sink("w_timer", "'sink.delivery-guarantee' = 'none', "
                  "'sink.buffer-flush.interval' = '200 ms'"))
    job = os.path.join(c.work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(sql)
    p = subprocess.Popen([c.a.sluice, "--data-dir", c.data, "-f", job], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, env=c.env)
    delays, seen = [], 0
    end = time.monotonic() + 6
    while time.monotonic() < end and p.poll() is None:
        got = pg_util.query("SELECT extract(epoch FROM t) * 1000 FROM w_timer ORDER BY t OFFSET %d"
                            % seen)
        now = time.time() * 1000
        delays += [now - float(t) for (t,) in got]
        seen += len(got)
        time.sleep(0.05)
    p.send_signal(signal.SIGKILL)
    p.communicate()
    late = sorted(delays)[-3:]
    print("pg_write_test: timer: %d rows seen, largest delays %s ms" %
          (len(delays), [int(d) for d in late]))
    if len(delays) < 6:
        c.fail("only %d rows were committed in 6 s" % len(delays))
    # each row visible within the interval (+ 1/4) + the poll + a margin, far
    # below the 1000 ms until the next rows
    if any(d > 700 for d in delays):
        c.fail("rows waited for the next row instead of the interval: %s" % late)


def case_order(c):
    """pg_write_order.c writes +I 1 a, -D 1, +I 1 b, +I 2 x, -D 2, -U 3, +U 3 c,
    +I 4 d, -D 5, -U 6 (alone), +I 8 h, -U 7, +U 7 seven in one chunk, then +U 4 e:
    a key's changes keep their order, deletes delete, a -U followed by its +U is
    left out, a -U alone (its +U filtered out) deletes."""
    pg_util.execute("DROP TABLE IF EXISTS w_order; CREATE TABLE w_order (id bigint PRIMARY KEY, "
                    "v text); INSERT INTO w_order VALUES (5, 'gone'), (6, 'stays'), (7, 'six')")
    r = subprocess.run([c.a.order_bin, str(pg_util.port_of()), "w_order"], capture_output=True,
                       env=c.env, timeout=60)
    got = pg_util.query("SELECT id, v FROM w_order ORDER BY id")
    want = [("1", "b"), ("3", "c"), ("4", "e"), ("7", "seven"), ("8", "h")]
    print("pg_write_test: order: status %d, table %s" % (r.returncode, got))
    if r.returncode != 0:
        c.fail("pg_write_order failed:\n" + r.stderr.decode("utf-8", "replace"))
    if got != want:
        c.fail("expected %s" % want)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--case", required=True,
                    choices=["types", "errors", "upsert", "control", "ignore", "error", "retry",
                             "timer", "order"])
    ap.add_argument("--order-bin", help="pg_write_order (the order case)")
    ap.add_argument("--kills", type=int, default=10)
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--seconds", type=float, default=10.0, help="input duration at full speed")
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rnd = random.Random(seed)
    c = Case(a)
    print("pg_write_test: case %s, seed %d, server port %d, work dir %s" %
          (a.case, seed, pg_util.port_of(), c.work))
    fn = {"types": case_types, "errors": case_errors, "order": case_order}.get(a.case)
    if fn:
        fn(c)
    else:
        {"upsert": case_upsert, "control": case_control, "ignore": case_ignore,
         "error": case_error, "retry": case_retry, "timer": case_timer}[a.case](c, rnd)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
