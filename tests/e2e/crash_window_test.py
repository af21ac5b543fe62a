#!/usr/bin/env python3
"""crash_window_test.py — exactly-once through SIGKILL for a stateful job.

A job reads a monitored directory of CSV click files through a 10-second
tumbling-window aggregation (COUNT, SUM) into the exactly-once filesystem
sink, checkpointing every 100 ms. While this script adds click files (in
event-time order, a few per second), the job is killed with SIGKILL at random
moments and started again: each restart must restore the source position,
the windows' partial sums and the watermark. At the end one far-future click
closes every window, and SIGTERM stops the job with a savepoint. This script
then computes every window's count and exact sum from the files it wrote and
compares them with the committed output: each window exactly once, all
values right.

--parallelism N runs the job with N tasks: the files are split between N
reader tasks by the hash of their names, and the windows' watermark is the
smallest of the readers'. No click can be late under any interleaving of the
readers: each reader's files hold clicks in event-time order, so every click
is later than its own reader's watermark, hence than the smallest. A reader
without files would hold the watermark back, so the test checks that each
gets files, and writes one closing click per reader.

Usage: crash_window_test.py --sluice PATH [--kills 20] [--files 60] [--parallelism N]
"""
import collections
import decimal
import json
import os
import shutil
import subprocess
import sys

import sluice_e2e

JOB = """
CREATE TABLE IF NOT EXISTS clicks (id BIGINT, campaign STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'csv',
        'source.monitor-interval' = '50 ms');
CREATE TABLE IF NOT EXISTS spend (window_start TIMESTAMP(3), campaign STRING, n BIGINT,
  total DECIMAL(38, 2)) WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'pipeline.name' = 'crash-window';
INSERT INTO spend
SELECT window_start, campaign, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, campaign;
"""

BASE = 1767225600  # 2026-01-01 00:00:00 UTC


stamp = sluice_e2e.stamp


def file_name(k):
    return "clicks-%05d.csv" % k


def write_file(src, k, rows):
    """Write one file atomically (hidden name, then rename): the source never
    sees a half-written file."""
    sluice_e2e.write_atomic(src, file_name(k), ("%d,%s,%s,%s\n" % r for r in rows))


NAME = "crash_window_test"


def main():
    a, rnd, work = sluice_e2e.crash_setup("sluice-crashwin-", kills=20, files=60)
    src, out, data = (os.path.join(work, d) for d in ("src", "out", "data"))
    os.makedirs(src)
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(src=src, out=out, parallelism=a.parallelism))
    env = sluice_e2e.ENV
    print("crash_window_test: seed %d, parallelism %d, work dir %s" % (a.seed, a.parallelism, work))
    per_reader = collections.Counter(sluice_e2e.subtask_of(file_name(k), a.parallelism)
                                     for k in range(a.files))
    if len(per_reader) < a.parallelism or min(per_reader.values()) < 3:
        print("crash_window_test: the %d files do not give every reader task files: %r" %
              (a.files, dict(per_reader)))
        return 1

    # The clicks, in event-time order: 200 per file, 50 ms apart.
    expected = collections.defaultdict(lambda: [0, decimal.Decimal("0")])
    files, next_id, t = [], 1, BASE * 1000
    for k in range(a.files):
        rows = []
        for _ in range(200):
            t += 50
            campaign = rnd.choice("abc")
            amount = decimal.Decimal(rnd.randint(1, 999)) / 100
            rows.append((next_id, campaign, amount, stamp(t)))
            ws = t - t % 10000
            expected[(stamp(ws), campaign)][0] += 1
            expected[(stamp(ws), campaign)][1] += amount
            next_id += 1
        files.append(rows)
    # One click far ahead per reader task closes every window above (their
    # own stays open): the next file names that reach each reader.
    closers = sluice_e2e.closing_files(a.files, a.parallelism, file_name)

    cmd = [a.sluice, "--data-dir", data, "-q", "-f", job]
    p, runs, kills, error = sluice_e2e.kill_loop(
        cmd, env, files, lambda i, rows: write_file(src, i, rows), a.kills, rnd)
    if error:
        print("%s: %s" % (NAME, error))
        return 1
    # The last run: the closing click, then SIGTERM stops it with a savepoint.
    if p is None:
        runs += 1
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    for i, k in enumerate(closers):
        write_file(src, k, [(next_id + i, "z", decimal.Decimal("0.01"), stamp(t + 3600 * 1000))])
    want = sum(1 for _ in expected)
    error = sluice_e2e.stop_when(p, lambda: len(read_committed(out)) >= want)
    if error:
        print("%s: %s" % (NAME, error))
        return 1
    got = read_committed(out)
    exp = {k: (v[0], v[1]) for k, v in expected.items()}
    missing = sorted(set(exp) - set(got))
    extra = sorted(set(got) - set(exp))
    wrong = sorted(k for k in set(exp) & set(got) if exp[k] != got[k])
    print("crash_window_test: %d runs, %d SIGKILLs, %d clicks in %d files; %d windows expected, "
          "%d committed: %d missing, %d extra, %d wrong" %
          (runs, kills, sum(len(f) for f in files), len(files), len(exp), len(got),
           len(missing), len(extra), len(wrong)))
    for k in (missing + extra + wrong)[:10]:
        print("  %r: expected %r, got %r" % (k, exp.get(k), got.get(k)))
    ok = not missing and not extra and not wrong and kills >= min(a.kills, 20)
    why = sluice_e2e.check_parallelism(out, a.parallelism)
    if why:
        print("crash_window_test: " + why)
        ok = False
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("crash_window_test: kept %s (seed %d)" % (work, a.seed))
    return 0 if ok else 1


def read_committed(out):
    """Committed windows: visible files only; a window written twice fails."""
    got = {}
    if not os.path.isdir(out):
        return got
    for name in sorted(os.listdir(out)):
        if name.startswith(".") or name.startswith("_"):
            continue
        with open(os.path.join(out, name), encoding="utf-8") as f:
            for line in f:
                r = json.loads(line, parse_float=decimal.Decimal)
                key = (r["window_start"], r["campaign"])
                if key in got:
                    got[key] = ("written twice", "")
                else:
                    got[key] = (r["n"], decimal.Decimal(str(r["total"])))
    return got


if __name__ == "__main__":
    sys.exit(main())
