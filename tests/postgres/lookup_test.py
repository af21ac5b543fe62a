#!/usr/bin/env python3
"""lookup_test.py — lookup joins against PostgreSQL (the jdbc connector's
lookup provider, connectors/jdbc/pg_lookup.c), checked by an independent
computation in Python over the rows psql reads (ctest pg.lookup_*,
fixture `pg`).

--case results   bounded left files (csv) joined with a PostgreSQL table:
                 INNER, LEFT with an extra condition, an expression key, a
                 two-column key, a key with no row; written into files and
                 compared with the join computed here from psql's rows.
--case cache     one job with a continuous left source (a directory read
                 every 100 ms) and the print sink; the test writes one left
                 file at a time and waits for its output. A row updated in
                 PostgreSQL between two files is seen at once with
                 'lookup.cache' = 'NONE'; with 'PARTIAL' and
                 expire-after-write 10 s the old row is seen until 10 s after
                 it was read, then the new one. Then PostgreSQL is restarted
                 (restart --immediate): the next lookup reconnects
                 ('lookup.max-retries') and sees the table.
--case crash     a checkpointed job (datagen ids 1..N, LEFT lookup join on
                 id % 150 against a table of keys 0..119, exactly-once
                 filesystem sink) killed with SIGKILL 20+ times
                 (sluice_e2e.crash_until_done); the committed rows must be
                 the reference join exactly once.

Usage: lookup_test.py --sluice PATH --case results|cache|crash [--seed S]
"""
import argparse
import collections
import json
import os
import queue
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import pg_util  # noqa: E402
import sluice_e2e  # noqa: E402

ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=1", TZ="UTC")


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def wait_server():
    deadline = time.monotonic() + 60
    while True:  # the fixture's server may be restarting
        try:
            pg_util.query("SELECT 1")
            return
        except pg_util.PgError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def dim_with(table, extra=""):
    return ("'connector' = 'jdbc', 'url' = '%s', 'table-name' = '%s', 'username' = '%s', "
            "'password' = '%s'%s" % (pg_util.jdbc_url(), table, pg_util.USER, pg_util.PASSWORD,
                                     extra))


def run_sql(sluice, work, sql):
    path = os.path.join(work, "job.sql")
    with open(path, "w", encoding="utf-8") as f:
        f.write(sql)
    p = subprocess.run([sluice, "--data-dir", os.path.join(work, "data"), "-q", "-f", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, timeout=300)
    if p.returncode != 0:
        fail("sluice failed (%d):\n%s%s" % (p.returncode, p.stdout.decode(), p.stderr.decode()))
    return p.stdout.decode()


def case_results(sluice, work):
    pg_util.execute(
        "DROP TABLE IF EXISTS lk_dim, lk_dim2; "
        "CREATE TABLE lk_dim (id int PRIMARY KEY, name text, grp int, price numeric(10,2)); "
        "INSERT INTO lk_dim SELECT g, 'n' || g, g % 7, g * 1.25 FROM generate_series(1, 300) g "
        "WHERE g % 11 <> 0; "
        "CREATE TABLE lk_dim2 (a int, b varchar(10), v text); "
        "INSERT INTO lk_dim2 SELECT g % 20, 'b' || (g % 3), 'v' || g FROM generate_series(1, 90) g;")
    dim = {int(i): (n, int(g), p) for i, n, g, p in
           pg_util.query("SELECT id, name, grp, price::text FROM lk_dim")}
    dim2 = collections.defaultdict(list)
    for a, b, v in pg_util.query("SELECT a, b, v FROM lk_dim2"):
        dim2[(int(a), b)].append(v)
    rnd = random.Random(7)
    left = [(i, rnd.randrange(0, 330), rnd.randrange(0, 25)) for i in range(1, 3001)]
    ldir = os.path.join(work, "left")
    os.makedirs(ldir)
    with open(os.path.join(ldir, "l.csv"), "w") as f:
        for i, k, q in left:
            f.write("%d,%d,%d\n" % (i, k, q))
    out = {c: os.path.join(work, "o_" + c) for c in ("inner", "left", "expr", "two")}
    sql = """
SET 'parallelism.default' = '2';
CREATE TABLE l (id BIGINT, k INT, q INT, pt AS PROCTIME())
  WITH ('connector' = 'filesystem', 'path' = '{ldir}', 'format' = 'csv');
CREATE TABLE dim (id INT, name STRING, grp INT, price DECIMAL(10, 2)) WITH ({dim});
CREATE TABLE dim2 (a INT, b VARCHAR(10), v STRING) WITH ({dim2});
CREATE TABLE o_inner (id BIGINT, k INT, name STRING, price DECIMAL(10, 2))
  WITH ('connector' = 'filesystem', 'path' = '{inner}', 'format' = 'json');
CREATE TABLE o_left (id BIGINT, name STRING, grp INT)
  WITH ('connector' = 'filesystem', 'path' = '{left}', 'format' = 'json');
CREATE TABLE o_expr (id BIGINT, did INT)
  WITH ('connector' = 'filesystem', 'path' = '{expr}', 'format' = 'json');
CREATE TABLE o_two (id BIGINT, v STRING)
  WITH ('connector' = 'filesystem', 'path' = '{two}', 'format' = 'json');
INSERT INTO o_inner SELECT l.id, l.k, d.name, d.price
  FROM l JOIN dim FOR SYSTEM_TIME AS OF l.pt AS d ON l.k = d.id;
INSERT INTO o_left SELECT l.id, d.name, d.grp
  FROM l LEFT JOIN dim FOR SYSTEM_TIME AS OF l.pt AS d ON l.k = d.id AND d.grp > l.q % 7;
INSERT INTO o_expr SELECT l.id, d.id
  FROM l JOIN dim FOR SYSTEM_TIME AS OF l.pt AS d ON d.id = l.k * 2 + 1 WHERE l.q < 20;
INSERT INTO o_two SELECT l.id, d.v
  FROM l JOIN dim2 FOR SYSTEM_TIME AS OF l.pt AS d ON d.a = l.q AND d.b = 'b' || CAST(l.k % 3 AS STRING);
""".format(ldir=ldir, dim=dim_with("lk_dim"), dim2=dim_with("lk_dim2"), **out)
    run_sql(sluice, work, sql)
    # EXPLAIN names the table, the keys, the connector and the cache
    plan = run_sql(sluice, work, """
CREATE TABLE dimc (id INT, name STRING, grp INT, price DECIMAL(10, 2)) WITH ({dimc});
EXPLAIN SELECT l.id, d.name FROM l JOIN dim FOR SYSTEM_TIME AS OF l.pt AS d ON l.k = d.id;
EXPLAIN SELECT l.id, d.name FROM l JOIN dimc FOR SYSTEM_TIME AS OF l.pt AS d ON l.k = d.id;
""".format(dimc=dim_with("lk_dim", ", 'lookup.cache' = 'PARTIAL', "
                          "'lookup.partial-cache.max-rows' = '500', "
                          "'lookup.partial-cache.expire-after-access' = '1 min'")))
    for want in ("LookupJoin(table=[dim], joinType=[INNER], lookup=[id=k], connector=[jdbc], "
                 "cache=[NONE]",
                 "LookupJoin(table=[dimc], joinType=[INNER], lookup=[id=k], connector=[jdbc], "
                 "cache=[PARTIAL, max-rows=500, expire-after-access=60000 ms, "
                 "cache-missing-key=true]"):
        if want not in plan:
            fail("EXPLAIN does not show %r:\n%s" % (want, plan))
    # 'PARTIAL' without a limit is refused when the table is declared
    bad = os.path.join(work, "bad.sql")
    with open(bad, "w") as f:
        f.write("CREATE TABLE b (id INT) WITH (%s);\n" % dim_with("lk_dim", ", 'lookup.cache' = 'PARTIAL'"))
    p = subprocess.run([sluice, "--data-dir", os.path.join(work, "data"), "-q", "-f", bad],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, timeout=60)
    if p.returncode == 0 or b"22023" not in p.stderr or b"needs 'lookup.partial-cache" not in p.stderr:
        fail("PARTIAL without max-rows or an expiry was not refused: %r" % p.stderr)
    print("results: EXPLAIN shows the lookup join; a PARTIAL cache without limits is refused")

    def got(name):
        return collections.Counter(tuple(r.get(c) for c in sorted(r))
                                   for r in sluice_e2e.committed_rows(out[name]))

    want = {
        "inner": collections.Counter((i, k, dim[k][0], dim[k][2]) for i, k, q in left if k in dim),
        "left": collections.Counter(
            (dim[k][1], i, dim[k][0]) if k in dim and dim[k][1] > q % 7 else (None, i, None)
            for i, k, q in left),
        "expr": collections.Counter((k * 2 + 1, i) for i, k, q in left
                                    if q < 20 and k * 2 + 1 in dim),
        "two": collections.Counter((i, v) for i, k, q in left for v in dim2.get((q, "b%d" % (k % 3)), [])),
    }
    for name in ("inner", "left", "expr", "two"):
        g = got(name)
        if name == "inner":

            want_n = collections.Counter((i, k, n, "%.2f" % float(p)) for i, k, n, p in want[name].elements())
            g = collections.Counter((i, k, n, "%.2f" % float(p)) for i, k, n, p in g.elements())
            w = want_n
        else:
            w = want[name]
        if g != w:
            fail("%s: %d rows, expected %d; missing %r; extra %r"
                 % (name, sum(g.values()), sum(w.values()), list((w - g).items())[:5],
                    list((g - w).items())[:5]))
        print("results: %s: %d rows as computed" % (name, sum(g.values())))


class Printed:
    """The lines a running sluice prints, read by a thread."""

    def __init__(self, p):
        self.q = queue.Queue()
        self.lines = []
        threading.Thread(target=self._read, args=(p.stdout,), daemon=True).start()

    def _read(self, f):
        for line in f:
            self.q.put(line.decode("utf-8", "replace").rstrip("\n"))

    def wait_for(self, pred, what, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.q.get(timeout=0.2)
            except queue.Empty:
                continue
            self.lines.append(line)
            if pred(line):
                return line
        fail("no output line %s in %d s; printed: %r" % (what, timeout, self.lines[-10:]))


def case_cache(sluice, work):
    pg_util.execute("DROP TABLE IF EXISTS lk_cache; "
                    "CREATE TABLE lk_cache (id int PRIMARY KEY, v text); "
                    "INSERT INTO lk_cache VALUES (1, 'one'), (2, 'two');")
    for mode in ("NONE", "PARTIAL"):
        ldir = os.path.join(work, "left_" + mode)
        os.makedirs(ldir)
        extra = (", 'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.expire-after-write' = '10 s',"
                 " 'lookup.partial-cache.max-rows' = '100'" if mode == "PARTIAL" else "")
        sql = """
SET 'parallelism.default' = '1';
SET 'pipeline.name' = 'lookup-cache-{mode}';
CREATE TABLE l (id BIGINT, k INT, pt AS PROCTIME())
  WITH ('connector' = 'filesystem', 'path' = '{ldir}', 'format' = 'csv',
        'source.monitor-interval' = '100 ms');
CREATE TABLE d (id INT, v STRING) WITH ({dim});
CREATE TABLE p (id BIGINT, v STRING) WITH ('connector' = 'print');
INSERT INTO p SELECT l.id, d.v FROM l LEFT JOIN d FOR SYSTEM_TIME AS OF l.pt AS d ON l.k = d.id;
""".format(mode=mode, ldir=ldir, dim=dim_with("lk_cache", extra))
        path = os.path.join(work, "cache_%s.sql" % mode)
        with open(path, "w") as f:
            f.write(sql)
        pg_util.execute("UPDATE lk_cache SET v = 'one' WHERE id = 1")
        p = subprocess.Popen([sluice, "--data-dir", os.path.join(work, "data_" + mode), "-q",
                              "-f", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=ENV)
        out = Printed(p)
        seq = [0]

        def put(k):
            seq[0] += 1
            name = "f%03d.csv" % seq[0]
            tmp = os.path.join(ldir, "." + name)
            with open(tmp, "w") as f:
                f.write("%d,%d\n" % (seq[0], k))
            os.rename(tmp, os.path.join(ldir, name))
            line = out.wait_for(lambda s: s.split("[")[-1].startswith("%d," % seq[0]),
                                "for row %d" % seq[0])
            return line.split(",", 1)[1].strip().rstrip("]").strip()

        try:
            first = put(1)
            t_read = time.monotonic()
            if first != "one":
                fail("%s: first lookup gave %r" % (mode, first))
            pg_util.execute("UPDATE lk_cache SET v = 'uno' WHERE id = 1")
            second = put(1)
            if time.monotonic() - t_read >= 9.0:
                fail("%s: the second row took too long to check the cache" % mode)
            want = "uno" if mode == "NONE" else "one"
            if second != want:
                fail("%s: after the update, got %r, expected %r" % (mode, second, want))
            print("cache: %s: an updated row is %s" % (mode, "seen at once" if mode == "NONE"
                                                        else "not seen before the expiry"))
            time.sleep(max(0.0, t_read + 10.2 - time.monotonic()))
            third = put(1)
            if third != "uno":
                fail("%s: after expire-after-write, got %r" % (mode, third))
            missing = put(5)
            if missing not in ("<NULL>", "NULL", "null"):
                fail("%s: a key without a row gave %r" % (mode, missing))
            if mode == "NONE":
                pg_util.restart(immediate=True)
                wait_server()
                again = put(2)
                if again != "two":
                    fail("after a PostgreSQL restart, got %r" % again)
                print("cache: the lookup reconnected after PostgreSQL restarted")
            print("cache: %s: the new row is seen after the expiry" % mode)
        finally:
            p.kill()
            p.wait()


CRASH_JOB = """
CREATE TABLE IF NOT EXISTS l (id BIGINT, pt AS PROCTIME()) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');
CREATE TABLE IF NOT EXISTS d (k BIGINT, v STRING) WITH ({dim});
CREATE TABLE IF NOT EXISTS o (id BIGINT, k BIGINT, v STRING)
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '2';
SET 'pipeline.name' = 'crash-lookup';
INSERT INTO o SELECT l.id, d.k, d.v FROM l LEFT JOIN d FOR SYSTEM_TIME AS OF l.pt AS d
  ON d.k = l.id % 150;
"""


def case_crash(sluice, work, seed, kills, rows, seconds):
    rnd = random.Random(seed)
    pg_util.execute("DROP TABLE IF EXISTS lk_crash; "
                    "CREATE TABLE lk_crash (k int8 PRIMARY KEY, v text); "
                    "INSERT INTO lk_crash SELECT g, 'v' || g FROM generate_series(0, 119) g;")
    dim = {int(k): v for k, v in pg_util.query("SELECT k, v FROM lk_crash")}
    out = os.path.join(work, "out")
    job = os.path.join(work, "job.sql")
    with open(job, "w") as f:
        f.write(CRASH_JOB.format(rows=rows, rate=max(1, int(rows / seconds)), out=out,
                                 dim=dim_with("lk_crash", ", 'lookup.cache' = 'PARTIAL', "
                                              "'lookup.partial-cache.max-rows' = '50'")))
    run = sluice_e2e.Runner(sluice, os.path.join(work, "data"), job, "crash-lookup", out)
    err, end_kills = sluice_e2e.crash_until_done(run, out, kills, rnd, "crash-lookup")
    if err:
        fail(err)
    got = collections.Counter((r["id"], r["k"], r["v"]) for r in sluice_e2e.committed_rows(out))
    want = collections.Counter()
    for i in range(1, rows + 1):
        k = i % 150
        want[(i, k, dim[k]) if k in dim else (i, None, None)] += 1
    if got != want:
        fail("crash: %d rows committed, %d expected; missing %r; extra %r"
             % (sum(got.values()), sum(want.values()), list((want - got).items())[:5],
                list((got - want).items())[:5]))
    print("crash: %s, %d end kills; %d rows exactly once" % (run.summary(), end_kills, rows))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--case", choices=["results", "cache", "crash"], required=True)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--kills", type=int, default=21)
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--seconds", type=float, default=8.0)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    wait_server()
    work = tempfile.mkdtemp(prefix="sluice-lookup-")
    print("lookup_test: case %s, seed %d, work dir %s" % (a.case, seed, work))
    if a.case == "results":
        case_results(a.sluice, work)
    elif a.case == "cache":
        case_cache(a.sluice, work)
    else:
        case_crash(a.sluice, work, seed, a.kills, a.rows, a.seconds)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
