#!/usr/bin/env python3
"""plan_test.py — the jdbc connector's plan-time checks and its bounded scan
against a real PostgreSQL server (ctest pg.plan_errors and pg.scan, fixture
`pg`). The independent reader is psql (pg_util), never Sluice.

  errors  each bad configuration fails the statement that plans it (the
          INSERT, the SELECT, or the CREATE TABLE for a malformed URL) with
          its SQLSTATE, a message naming what is wrong, the statement's
          position (a LINE block), and never the password: a missing table
          (42P01), a missing column (42703), type mismatches when writing
          and reading (42804, both types named), a key without a unique
          constraint and one whose only unique index is partial (42P10), an
          undeclared NOT NULL column (23502), a generated column (428C9), a
          wrong password (28P01), a missing database (3D000), a closed port
          and a server that never answers (08001 within a bound), a
          read-only role writing and a role without SELECT reading (42501),
          a conflict table it may not create (42501), another database's
          URL (0A000) and a malformed one (22023). A correct declaration
          passes the same checks (EXPLAIN INSERT shows no check error).
  scan    a table of 3000 rows with every mapped type and NULLs in every
          column, read into a filesystem sink (JSON) at parallelism 1 and 3,
          whole and split into 7 partitions of a column with NULLs and
          values outside the bounds, compared value by value with psql's
          reading of the same rows (for the partitioned scans: the rows
          whose column is BETWEEN the bounds, as Flink reads them); again
          with 'scan.copy' (COPY's text format: a text with a tab, a
          newline, a CR and backslashes, another that is the two characters
          \\N, bytea's escaped backslashes). Control:
          the partitioned scan's rows must differ from the whole table's,
          so the comparison can fail. A NULL read into a column declared
          NOT NULL fails the scan (23502).

Usage: plan_test.py --sluice PATH {errors|scan}
"""
import argparse
import base64
import datetime
import decimal
import glob
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pg_util  # noqa: E402

RW, RW_PW = "pgplan_rw", "Rw-secret-4711"
RO, RO_PW = "pgplan_ro", "Ro-secret-4712"
FAILURES = []


def fail(msg):
    FAILURES.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def url(port=None, db="sluice"):
    return pg_util.jdbc_url(db=db, port=port)


def wait_for_server(timeout=60):
    """The fixture's server answers (it may be starting or restarting)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            pg_util.query("SELECT 1")
            return
        except pg_util.PgError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def setup_roles():
    wait_for_server()
    for role, pw in ((RW, RW_PW), (RO, RO_PW)):
        pg_util.execute(
            "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '%s') THEN "
            "CREATE ROLE %s LOGIN; END IF; END $$; ALTER ROLE %s PASSWORD %s;"
            % (role, role, role, pg_util.literal(pw)))


class Sluice:
    def __init__(self, binary):
        self.binary = binary
        self.tmp = tempfile.mkdtemp(prefix="pgplan-")

    def run(self, sql, timeout=120):
        data = os.path.join(self.tmp, "data")
        shutil.rmtree(data, ignore_errors=True)
        t0 = time.monotonic()
        r = subprocess.run([self.binary, "-D", data, "-e", sql], capture_output=True,
                           text=True, timeout=timeout)
        return r.returncode, r.stdout + r.stderr, time.monotonic() - t0

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def jdbc(name, cols, table, user=RW, pw=RW_PW, extra="", u=None):
    return ("CREATE TABLE %s (%s) WITH ('connector' = 'jdbc', 'url' = '%s', "
            "'table-name' = '%s', 'username' = '%s', 'password' = '%s'%s);"
            % (name, cols, u or url(), table, user, pw, extra))


SRC = "CREATE TABLE src (x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');"


def expect(sl, case, sql, state, *words, max_s=None, stmt="INSERT"):
    rc, out, dt = sl.run(sql)
    ok = True
    if rc == 0 or ("SQLSTATE: %s" % state) not in out:
        ok = False
    for w in words:
        if w not in out:
            ok = False
    if stmt and ("LINE 1: " + stmt) not in out:
        ok = False  # the error points at the statement
    if "Sanitizer" in out or "runtime error:" in out:
        fail("%s: a sanitizer report:\n%s" % (case, out))
    for secret in (RW_PW, RO_PW, "Wrong-pw-0815"):
        if secret in out:
            fail("%s: the password appears in the output:\n%s" % (case, out))
    if max_s is not None and dt > max_s:
        fail("%s: took %.1f s, more than %s s" % (case, dt, max_s))
    if not ok:
        fail("%s: expected %s with %s, got (rc %d):\n%s" % (case, state, words, rc, out))
    else:
        print("ok   %s (%s, %.1f s)" % (case, state, dt))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def errors(sl):
    setup_roles()
    pg_util.execute("""
DROP TABLE IF EXISTS pgplan_ledger, pgplan_nokey, pgplan_req, pgplan_gen, pgplan_partial,
  pgplan_secret, pgplan_ints CASCADE;
CREATE TABLE pgplan_ledger (id bigint PRIMARY KEY, amount numeric(8,2), note text);
CREATE TABLE pgplan_nokey (id bigint, amount numeric(8,2));
CREATE TABLE pgplan_partial (id bigint, amount numeric(8,2));
CREATE UNIQUE INDEX pgplan_partial_id ON pgplan_partial (id) WHERE id > 0;
CREATE TABLE pgplan_req (id bigint, must text NOT NULL);
CREATE TABLE pgplan_gen (id bigint, twice bigint GENERATED ALWAYS AS (id * 2) STORED);
CREATE TABLE pgplan_ints (id int4);
CREATE TABLE pgplan_secret (id bigint);
GRANT ALL ON pgplan_ledger, pgplan_nokey, pgplan_partial, pgplan_req, pgplan_gen, pgplan_ints,
  pgplan_secret TO %s;
GRANT SELECT ON pgplan_ledger TO %s;
""" % (RW, RO))
    ins = " INSERT INTO t SELECT x, 1 FROM src;"
    ins1 = " INSERT INTO t SELECT x FROM src;"
    led = "id BIGINT, amount DECIMAL(8, 2)"

    # A correct declaration passes every check (the lead's sink may then run it).
    rc, out, _ = sl.run(SRC + jdbc("t", led + ", PRIMARY KEY (id) NOT ENFORCED",
                                   "pgplan_ledger") + " EXPLAIN" + ins)
    checked = [l for l in out.splitlines() if "cannot run yet" in l]
    if rc != 0 or any("cannot be written yet" not in l for l in checked):
        fail("a correct table fails its checks:\n" + out)
    else:
        print("ok   correct declaration passes")
    rc, out, _ = sl.run(jdbc("t", led, "pgplan_ledger", RO, RO_PW) + " SELECT * FROM t;")
    if rc != 0:
        fail("a correct read fails:\n" + out)

    expect(sl, "missing table", SRC + jdbc("t", led, "pgplan_missing") + ins, "42P01",
           'relation "pgplan_missing" does not exist', "search path")
    expect(sl, "missing table in schema", SRC + jdbc("t", led, "nosuch.pgplan_ledger") + ins,
           "42P01", 'relation "nosuch.pgplan_ledger" does not exist', 'schema "nosuch"')
    expect(sl, "missing column", SRC + jdbc("t", "id BIGINT, amt DECIMAL(8, 2)",
                                            "pgplan_ledger") + ins,
           "42703", 'column "amt" of relation "pgplan_ledger" does not exist')
    expect(sl, "type mismatch numeric", SRC + jdbc("t", "id BIGINT, amount DECIMAL(10, 2)",
                                                   "pgplan_ledger") + ins,
           "42804", 'column "amount" is numeric(8,2) in table "pgplan_ledger", declared '
           'DECIMAL(10, 2)')
    expect(sl, "type mismatch bigint into int4", SRC + jdbc("t", "id BIGINT", "pgplan_ints") + ins1,
           "42804", 'column "id" is integer in table "pgplan_ints", declared BIGINT')
    expect(sl, "type mismatch on read", jdbc("t", "id INT, amount DECIMAL(8, 2)",
                                             "pgplan_ledger") + " SELECT * FROM t;",
           "42804", 'column "id" is bigint in table "pgplan_ledger", declared INT', stmt="SELECT")
    expect(sl, "key without unique constraint",
           SRC + jdbc("t", led + ", PRIMARY KEY (id) NOT ENFORCED", "pgplan_nokey") + ins,
           "42P10", "there is no unique or exclusion constraint on (id)", "ON CONFLICT")
    expect(sl, "key with a partial unique index",
           SRC + jdbc("t", led + ", PRIMARY KEY (id) NOT ENFORCED", "pgplan_partial") + ins,
           "42P10", 'index "pgplan_partial_id" is partial')
    expect(sl, "key on another column",
           SRC + jdbc("t", led + ", PRIMARY KEY (amount) NOT ENFORCED", "pgplan_ledger") + ins,
           "42P10", "(amount)")
    expect(sl, "undeclared NOT NULL column", SRC + jdbc("t", "id BIGINT", "pgplan_req") + ins1,
           "23502", 'column "must" of table "pgplan_req" is NOT NULL without a default')
    expect(sl, "generated column", SRC + jdbc("t", "id BIGINT, twice BIGINT", "pgplan_gen") + ins,
           "428C9", 'column "twice" of table "pgplan_gen" is a generated column')
    expect(sl, "wrong password", SRC + jdbc("t", led, "pgplan_ledger", RW, "Wrong-pw-0815") + ins,
           "28P01", "password authentication failed")
    expect(sl, "missing database", SRC + jdbc("t", led, "pgplan_ledger",
                                              u=url(db="pgplan_nodb")) + ins,
           "3D000", 'database "pgplan_nodb" does not exist')
    closed = free_port()
    expect(sl, "unreachable server (closed port)",
           SRC + jdbc("t", led, "pgplan_ledger", u=url(port=closed),
                      extra=", 'connection.max-retry-timeout' = '1 s'") + ins,
           "08001", "could not connect", "127.0.0.1:%d" % closed, max_s=8)
    # A server that accepts TCP connections and never answers.
    mute = socket.socket()
    mute.bind(("127.0.0.1", 0))
    mute.listen(16)
    try:
        expect(sl, "server that never answers",
               SRC + jdbc("t", led, "pgplan_ledger", u=url(port=mute.getsockname()[1]),
                          extra=", 'connection.max-retry-timeout' = '2 s'") + ins,
               "08001", "timeout expired", max_s=10)
    finally:
        mute.close()
    expect(sl, "read-only role writes", SRC + jdbc("t", led, "pgplan_ledger", RO, RO_PW) + ins,
           "42501", 'role "%s" may not INSERT table "public.pgplan_ledger"' % RO)
    expect(sl, "role without SELECT reads",
           jdbc("t", "id BIGINT", "pgplan_secret", RO, RO_PW) + " SELECT * FROM t;",
           "42501", 'role "%s" may not SELECT table "public.pgplan_secret"' % RO, stmt="SELECT")
    expect(sl, "missing column on read", jdbc("t", "id BIGINT, nope INT", "pgplan_ledger") +
           " SELECT * FROM t;", "42703", 'column "nope"', stmt="SELECT")
    expect(sl, "conflict table it may not create",
           SRC + jdbc("t", led + ", PRIMARY KEY (id) NOT ENFORCED", "pgplan_ledger",
                      extra=", 'sink.on-duplicate-key' = 'ignore', "
                            "'sink.conflict-table' = 'pgplan_conflicts'") + ins,
           "42501", 'may not create the conflict table "pgplan_conflicts" in schema "public"')
    expect(sl, "another database's URL",
           jdbc("t", led, "pgplan_ledger", u="jdbc:sqlserver://127.0.0.1:1433;databaseName=x"),
           "0A000", "JDBC URLs of 'sqlserver' are not supported", stmt=None)
    expect(sl, "malformed URL",
           jdbc("t", led, "pgplan_ledger", u="jdbc:postgresql://127.0.0.1:port/sluice"),
           "22023", "invalid value for option 'url'", stmt=None)


# ---------------------------------------------------------------------------
# The scan.

COLS = [  # name, PostgreSQL type, declared type
    ("id", "int4 PRIMARY KEY", "INT"),
    ("k", "int8", "BIGINT"),
    ("b", "boolean", "BOOLEAN"),
    ("s", "int2", "SMALLINT"),
    ("i", "int4", "INT"),
    ("l", "int8", "BIGINT"),
    ("f", "real", "FLOAT"),
    ("d", "double precision", "DOUBLE"),
    ("n", "numeric(12,3)", "DECIMAL(12, 3)"),
    ("nu", "numeric", "DECIMAL(38, 18)"),
    ("c", "char(6)", "CHAR(6)"),
    ("v", "varchar(30)", "VARCHAR(30)"),
    ("t", "text", "STRING"),
    ("dt", "date", "DATE"),
    ("tm", "time(3)", "TIME(3)"),
    ("ts", "timestamp(6)", "TIMESTAMP(6)"),
    ("tz", "timestamptz(6)", "TIMESTAMP_LTZ(6)"),
    ("by", "bytea", "BYTES"),
]
N = 3000

FILL = """
INSERT INTO pgplan_scan
SELECT g,
  CASE WHEN g %% 11 = 0 THEN NULL ELSE (g * 7) %% 3100 - 50 END,
  CASE WHEN g %% 13 = 1 THEN NULL ELSE g %% 2 = 0 END,
  CASE WHEN g %% 13 = 2 THEN NULL ELSE ((g * 37) %% 65536 - 32768)::int2 END,
  CASE WHEN g %% 13 = 3 THEN NULL WHEN g = 5 THEN 2147483647 WHEN g = 6 THEN -2147483648
       ELSE g * 1000 - 777 END,
  CASE WHEN g %% 13 = 4 THEN NULL WHEN g = 5 THEN 9223372036854775807
       WHEN g = 6 THEN -9223372036854775808 ELSE g::int8 * 100000000007 END,
  CASE WHEN g %% 13 = 5 THEN NULL ELSE (g / 3.0 - 400)::real END,
  CASE WHEN g %% 13 = 6 THEN NULL WHEN g = 7 THEN 1e300 ELSE g / 7.0 - 200 END,
  CASE WHEN g %% 13 = 7 THEN NULL ELSE (g * 1.125 - 1000.5)::numeric(12,3) END,
  CASE WHEN g %% 13 = 8 THEN NULL ELSE g / 8.0 - 0.000000000000000001 END,
  CASE WHEN g %% 13 = 9 THEN NULL ELSE 'c' || (g %% 100) END,
  CASE WHEN g %% 13 = 10 THEN NULL WHEN g = 8 THEN '' ELSE 'vé' || g || '"q''' END,
  CASE WHEN g %% 13 = 11 THEN NULL WHEN g = 10 THEN E'a\\tb\\nc\\\\d\\re\\\\'
       WHEN g = 12 THEN E'\\\\N' ELSE repeat('tx', g %% 40) || ' ✓ ' || g END,
  CASE WHEN g %% 13 = 12 THEN NULL ELSE date '1960-01-01' + g * 11 END,
  CASE WHEN g %% 17 = 0 THEN NULL ELSE time '00:00:00' + g * interval '28.123 s' END,
  CASE WHEN g %% 17 = 1 THEN NULL
       ELSE timestamp '1969-12-31 23:00:00.000001' + g * interval '1 h 1.000003 s' END,
  CASE WHEN g %% 17 = 2 THEN NULL
       ELSE timestamptz '2026-03-29 00:30:00+01' + g * interval '17 min 0.5 s' END,
  CASE WHEN g %% 17 = 3 THEN NULL WHEN g = 9 THEN ''::bytea
       ELSE decode(md5(g::text), 'hex') END
FROM generate_series(1, %d) g;
"""


def _us(text):
    """'HH:MM:SS[.f]' -> microseconds."""
    hms, _, frac = text.partition(".")
    h, m, s = (int(x) for x in hms.split(":"))
    return ((h * 60 + m) * 60 + s) * 1000000 + int((frac + "000000")[:6])


def _ts(text):
    """A timestamp's text ('2026-01-01 01:00:00.5', '...+00', '...Z') -> a
    naive UTC datetime."""
    t = text.replace("T", " ")
    off = datetime.timedelta(0)
    if t.endswith("Z"):
        t = t[:-1]
    elif len(t) > 19 and t[-3] in "+-":
        sign = 1 if t[-3] == "+" else -1
        off = datetime.timedelta(hours=sign * int(t[-2:]))
        t = t[:-3]
    date, _, tm = t.partition(" ")
    y, mo, d = (int(x) for x in date.split("-"))
    return datetime.datetime(y, mo, d) + datetime.timedelta(microseconds=_us(tm)) - off


def norm_pg(name, v):
    """psql's text of column `name` -> a comparable Python value."""
    if v is None:
        return None
    if name == "b":
        return v == "t"
    if name in ("id", "k", "s", "i", "l"):
        return int(v)
    if name == "f":
        return struct.unpack("<f", struct.pack("<f", float(v)))[0]
    if name == "d":
        return float(v)
    if name in ("n", "nu"):
        return decimal.Decimal(v)
    if name == "tm":
        return _us(v)
    if name in ("ts", "tz"):
        return _ts(v)
    if name == "by":
        return bytes.fromhex(v[2:])
    return v


def norm_json(name, v):
    """The filesystem sink's JSON value of column `name` -> the same."""
    if v is None:
        return None
    if name == "f":
        return struct.unpack("<f", struct.pack("<f", float(v)))[0]
    if name == "d":
        return float(v)
    if name in ("n", "nu"):
        return decimal.Decimal(str(v))
    if name == "tm":
        return _us(v)
    if name in ("ts", "tz"):
        return _ts(v)
    if name == "by":
        return base64.b64decode(v)
    return v


def reference(where=""):
    names = ", ".join('"%s"' % c[0] for c in COLS)
    rows = pg_util.query("SET TimeZone = 'UTC'; SET extra_float_digits = 3; "
                         "SELECT %s FROM pgplan_scan %s" % (names, where))
    return sorted(tuple(norm_pg(c[0], v) for c, v in zip(COLS, r)) for r in rows)


def scan_once(sl, parallelism, extra, fetch):
    out_dir = os.path.join(sl.tmp, "out")
    shutil.rmtree(out_dir, ignore_errors=True)
    decl = ", ".join("`%s` %s" % (c[0], c[2]) for c in COLS)
    sql = ("SET 'parallelism.default' = '%d';" % parallelism +
           jdbc("src", decl + ", PRIMARY KEY (id) NOT ENFORCED", "pgplan_scan", RO, RO_PW,
                extra=", 'scan.fetch-size' = '%d'%s" % (fetch, extra)) +
           "CREATE TABLE out (%s) WITH ('connector' = 'filesystem', 'path' = '%s', "
           "'format' = 'json');" % (decl, out_dir) +
           "INSERT INTO out SELECT * FROM src;")
    rc, out, dt = sl.run(sql, timeout=300)
    if rc != 0:
        fail("scan at parallelism %d%s failed:\n%s" % (parallelism, extra, out))
        return None
    rows = []
    for path in sorted(glob.glob(os.path.join(out_dir, "**", "part-*"), recursive=True)):
        if os.path.basename(path).startswith("."):
            continue
        with open(path) as f:
            for line in f:
                o = json.loads(line, parse_float=decimal.Decimal)
                rows.append(tuple(norm_json(c[0], o[c[0]]) for c in COLS))
    return sorted(rows, key=lambda r: r[0]), dt


def scan(sl):
    setup_roles()
    pg_util.execute("DROP TABLE IF EXISTS pgplan_scan; CREATE TABLE pgplan_scan (%s);"
                    % ", ".join('"%s" %s' % (c[0], c[1]) for c in COLS) + FILL % N +
                    "GRANT SELECT ON pgplan_scan TO %s;" % RO)
    whole = sorted(reference(), key=lambda r: r[0])
    lo, hi, num = 100, 2500, 7
    part = sorted(reference("WHERE k BETWEEN %d AND %d" % (lo, hi)), key=lambda r: r[0])
    if len(whole) != N or not (0 < len(part) < N):
        fail("reference: %d rows, %d in the partitions" % (len(whole), len(part)))
    COPY = ", 'scan.copy' = 'true'"
    partitions = (", 'scan.partition.column' = 'k', 'scan.partition.num' = '%d', "
                  "'scan.partition.lower-bound' = '%d', 'scan.partition.upper-bound' = '%d'"
                  % (num, lo, hi))
    for p, extra, fetch, want, what in (
            (1, "", 0, whole, "whole table"),
            (3, "", 100, whole, "whole table"),
            (1, partitions, 100, part, "7 partitions"),
            (3, partitions, 33, part, "7 partitions"),
            (1, COPY, 0, whole, "whole table by COPY"),
            (3, partitions + COPY, 0, part, "7 partitions by COPY")):
        got = scan_once(sl, p, extra, fetch)
        if got is None:
            continue
        rows, dt = got
        if rows != want:
            missing = len(set(want) - set(rows))
            extra_rows = len(set(rows) - set(want))
            first = next((i for i, (a, b) in enumerate(zip(rows, want)) if a != b), None)
            fail("scan of the %s at parallelism %d: %d rows, expected %d (%d missing, %d "
                 "unexpected); first difference: %s vs %s"
                 % (what, p, len(rows), len(want), missing, extra_rows,
                    rows[first] if first is not None else None,
                    want[first] if first is not None else None))
        else:
            print("ok   scan of the %s at parallelism %d: %d rows equal psql's (%.1f s)"
                  % (what, p, len(rows), dt))
        if "scan.partition" in extra and rows == whole:
            fail("control: the partitioned scan equals the whole table: the check cannot "
                 "tell missing rows")
    # A NULL in a column declared NOT NULL fails the scan, naming the column.
    expect(sl, "NULL read into a NOT NULL column",
           jdbc("t", "id INT, b BOOLEAN NOT NULL", "pgplan_scan", RO, RO_PW) +
           " SELECT * FROM t;", "23502", 'null value in column "b"', stmt=None)
    # Control: the comparison finds a difference when there is one.
    if part == whole:
        fail("control: the partition bounds filter nothing")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("case", choices=["errors", "scan"])
    a = ap.parse_args()
    sl = Sluice(a.sluice)
    try:
        errors(sl) if a.case == "errors" else scan(sl)
    finally:
        sl.close()
    if FAILURES:
        print("%d failure(s)" % len(FAILURES), file=sys.stderr)
        sys.exit(1)
    print("all passed")


if __name__ == "__main__":
    main()
