#!/usr/bin/env python3
"""scan_crash_test.py — what a restart of a jdbc scan sees, through SIGKILL
(ctest pg.scan_crash, fixture `pg`).

A table of N rows that does not change is scanned at parallelism 2 in 6
partitions ('scan.fetch-size' 1, so the scan takes a few seconds) into the
exactly-once filesystem sink, checkpointing every 100 ms. The job is killed
with SIGKILL at random moments and started again on the same data directory
until it finishes. Each restart reads the partition in progress again in a
new snapshot and skips the rows it had handed out (pg_source.c). The
committed files must then hold every row of the table exactly once, as
psql (the independent reader) lists them.

--sink print is the control: the same job into the print sink (no commit
protocol). Its output across the killed runs must show rows twice — proof
that the check can fail. The control passes when the check FAILS.

Usage: scan_crash_test.py --sluice PATH [--sink filesystem|print] [--kills 5]
"""
import argparse
import collections
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import pg_util  # noqa: E402
import sluice_e2e  # noqa: E402

N = 400000

JOB = """
CREATE TABLE IF NOT EXISTS src (id INT, k BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'jdbc', 'url' = '{url}', 'table-name' = 'pgplan_crash_{sink}',
  'username' = '{user}', 'password' = '{password}', 'scan.fetch-size' = '1',
  'scan.partition.column' = 'k', 'scan.partition.num' = '6',
  'scan.partition.lower-bound' = '1', 'scan.partition.upper-bound' = '{n}');
CREATE TABLE IF NOT EXISTS out_{sink} (id INT, k BIGINT, v STRING) WITH ({with_sink});
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '2';
SET 'pipeline.name' = 'pgscan-{sink}';
INSERT INTO out_{sink} SELECT id, k, v FROM src;
"""


def read_files(out_dir):
    got = collections.Counter()
    for path in sluice_e2e.committed_files(out_dir):
        with open(path, encoding="utf-8") as f:
            for line in f:
                o = json.loads(line)
                got[(o["id"], o["k"], o["v"])] += 1
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--sink", choices=["filesystem", "print"], default="filesystem")
    ap.add_argument("--kills", type=int, default=5)
    ap.add_argument("--once", action="store_true", help="no kills: time one run")
    ap.add_argument("--seed", type=int)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rnd = random.Random(seed)
    deadline = time.monotonic() + 60
    while True:  # the fixture's server may be restarting (pg.smoke)
        try:
            pg_util.query("SELECT 1")
            break
        except pg_util.PgError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    table = "pgplan_crash_" + a.sink  # one per test: the two run at the same time
    pg_util.execute("DROP TABLE IF EXISTS %s; "
                    "CREATE TABLE %s (id int PRIMARY KEY, k int8, v text); "
                    "INSERT INTO %s SELECT g, g, 'v' || g "
                    "FROM generate_series(1, %d) g ORDER BY md5(g::text);"
                    % (table, table, table, N))
    expected = collections.Counter(
        (int(i), int(k), v) for i, k, v in pg_util.query("SELECT id, k, v FROM " + table))
    work = tempfile.mkdtemp(prefix="sluice-pgscan-")
    data, out_dir = os.path.join(work, "data"), os.path.join(work, "out")
    with_sink = ("'connector' = 'filesystem', 'path' = '%s', 'format' = 'json'" % out_dir
                 if a.sink == "filesystem" else "'connector' = 'print'")
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(url=pg_util.jdbc_url(), user=pg_util.USER, password=pg_util.PASSWORD,
                           n=N, sink=a.sink, with_sink=with_sink))
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1")
    printed, kills, runs = [], 0, 0
    print("scan_crash_test: seed %d, sink %s, %d rows, work dir %s" % (seed, a.sink, N, work))
    end = time.monotonic() + 600
    t0 = time.monotonic()
    if a.once:
        a.kills = 0
    finished = False
    while time.monotonic() < end:
        runs += 1
        p = subprocess.Popen([a.sluice, "--data-dir", data, "-q", "-f", job],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        try:
            out, err = p.communicate(timeout=rnd.uniform(0.3, 0.9) if kills < a.kills else 300)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGKILL)
            out, err = p.communicate()
            kills += 1
            printed.append(out.decode("utf-8", "replace"))
            continue
        printed.append(out.decode("utf-8", "replace"))
        if p.returncode != 0:
            print("scan_crash_test: run %d failed with status %d:\n%s"
                  % (runs, p.returncode, err.decode("utf-8", "replace")))
            return 1
        finished = True
        break
    if a.once:
        print("scan_crash_test: one run took %.1f s" % (time.monotonic() - t0))
    elif not finished or kills < 3:
        print("scan_crash_test: %d kills before the job finished (at least 3 needed)" % kills)
        return 1
    got = read_files(out_dir) if a.sink == "filesystem" else sluice_e2e.printed_rows(printed)
    missing = expected - got
    extra = got - expected
    doubled = sum(1 for r, c in got.items() if c > 1)
    print("scan_crash_test: %d runs, %d SIGKILLs; expected %d rows, got %d: %d missing, "
          "%d extra, %d read twice" % (runs, kills, sum(expected.values()), sum(got.values()),
                                       sum(missing.values()), sum(extra.values()), doubled))
    exactly_once = not missing and not extra
    if a.sink == "print":
        ok = not exactly_once
        print("scan_crash_test: control %s: the check %s the print sink's duplicates"
              % ("passed" if ok else "FAILED", "found" if ok else "did not find"))
    else:
        ok = exactly_once
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
