#!/usr/bin/env python3
"""crash_over_test.py — OVER aggregation by event time through SIGKILL.

A job reads a monitored directory of CSV click files and writes every click
with two OVER aggregates over its user's clicks into the exactly-once
filesystem sink, checkpointing every 100 ms:

  SUM(v) OVER w, COUNT(*) OVER w, MAX(v) OVER w
  WINDOW w AS (PARTITION BY user_id ORDER BY ts <frame>)

with <frame> ROWS BETWEEN 3 PRECEDING AND CURRENT ROW (--frame rows), RANGE
BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW (--frame range) or
RANGE UNBOUNDED PRECEDING (--frame unbounded: running accumulators in the
state). The clicks are out of order — each up to 1.5 s after its place in
the file, with the watermark 2 s behind — so each click waits in the
operator's state until the watermark passes it, and a bounded frame keeps
the clicks it still reaches. While this script adds click files, the job is
killed with SIGKILL at random moments and started again: each restart must
restore the source position, the waiting clicks, the frames (or the running
accumulators) and the watermark. At the end one far-future click per reader
task moves the watermark past every click, and SIGTERM stops the job with a
savepoint. This script computes each click's aggregates from the files it
wrote (its user's clicks in time order) and compares them with the committed
output: each click exactly once, with those values.

No click can be late (as in crash_dedup_test.py: within a reader's files a
click is at most 1.5 s earlier than any before it, less than the 2 s delay).
Event times are all distinct (no ties).

Usage: crash_over_test.py --sluice PATH [--kills 20] [--files 40] [--parallelism N]
       [--frame rows|range|unbounded]
"""
import bisect
import collections
import os
import shutil
import subprocess
import sys

import sluice_e2e

FRAMES = {
    "rows": "ROWS BETWEEN 3 PRECEDING AND CURRENT ROW",
    "range": "RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW",
    "unbounded": "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
}

JOB = """
CREATE TABLE IF NOT EXISTS clicks (id BIGINT, user_id BIGINT, v INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'csv',
        'source.monitor-interval' = '50 ms');
CREATE TABLE IF NOT EXISTS sums (id BIGINT, user_id BIGINT, ts TIMESTAMP(3), s BIGINT,
  c BIGINT, m INT)
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'pipeline.name' = 'crash-over';
INSERT INTO sums
SELECT id, user_id, ts, SUM(v) OVER w, COUNT(*) OVER w, MAX(v) OVER w FROM clicks
WINDOW w AS (PARTITION BY user_id ORDER BY ts {frame});
"""

BASE = 1767225600  # 2026-01-01 00:00:00 UTC
NAME = "crash_over_test"


stamp = sluice_e2e.stamp


def file_name(k):
    return "clicks-%05d.csv" % k


def write_file(src, k, rows):
    """Write one file atomically (hidden name, then rename)."""
    sluice_e2e.write_atomic(src, file_name(k), ("%d,%d,%d,%s\n" % r for r in rows))


def sealed_checkpoints(job_dir):
    if not os.path.isdir(job_dir):
        return set()
    return {n for n in os.listdir(job_dir)
            if n.startswith("chk-") and os.path.exists(os.path.join(job_dir, n, "_metadata"))}


def reference(clicks, frame):
    """id -> (s, c, m) for each click: its user's clicks (time order) in its frame."""
    by_user = collections.defaultdict(list)
    for (i, u, v, ts) in clicks:
        by_user[u].append((ts, i, v))
    exp = {}
    for rows in by_user.values():
        rows.sort()
        times = [r[0] for r in rows]
        for n, (ts, i, v) in enumerate(rows):
            if frame == "rows":
                lo = max(0, n - 3)
            elif frame == "range":
                lo = bisect.bisect_left(times, ts - 2000)
            else:
                lo = 0
            vals = [r[2] for r in rows[lo:n + 1]]
            exp[i] = (sum(vals), len(vals), max(vals))
    return exp


def read_committed(out, closers_from):
    got = {}
    for r in sluice_e2e.committed_rows(out):
        i = r["id"]
        if i >= closers_from:
            continue
        got[i] = ("written twice",) if i in got else (r["s"], r["c"], r["m"])
    return got


def main():
    def more(ap):
        ap.add_argument("--frame", choices=sorted(FRAMES), default="rows")
    a, rnd, work = sluice_e2e.crash_setup("sluice-crashover-", kills=20, files=40, more=more)
    src, out, data = (os.path.join(work, d) for d in ("src", "out", "data"))
    os.makedirs(src)
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(src=src, out=out, parallelism=a.parallelism, frame=FRAMES[a.frame]))
    env = sluice_e2e.ENV
    print("%s: seed %d, parallelism %d, frame %s, work dir %s" %
          (NAME, a.seed, a.parallelism, a.frame, work))
    per_reader = collections.Counter(sluice_e2e.subtask_of(file_name(k), a.parallelism)
                                     for k in range(a.files))
    if len(per_reader) < a.parallelism or min(per_reader.values()) < 3:
        print("%s: the %d files do not give every reader task files: %r" %
              (NAME, a.files, dict(per_reader)))
        return 1

    # 200 clicks per file, 50 ms apart, each up to 1.5 s later than its place;
    # every event time distinct; a user clicks for about 5 s (about 20 clicks).
    files, clicks, next_id, t, used = [], [], 1, BASE * 1000, set()
    for k in range(a.files):
        rows = []
        for _ in range(200):
            t += 50
            ts = t + rnd.randrange(1500)
            while ts in used:
                ts += 1
            used.add(ts)
            user = next_id // 20 + rnd.randrange(5)
            v = rnd.randrange(-1000, 1000)
            rows.append((next_id, user, v, stamp(ts)))
            clicks.append((next_id, user, v, ts))
            next_id += 1
        files.append(rows)
    exp = reference(clicks, a.frame)
    closers = sluice_e2e.closing_files(a.files, a.parallelism, file_name)

    cmd = [a.sluice, "--data-dir", data, "-q", "-f", job]
    p, runs, kills, error = sluice_e2e.kill_loop(
        cmd, env, files, lambda i, rows: write_file(src, i, rows), a.kills, rnd)
    if error:
        print("%s: %s" % (NAME, error))
        return 1
    if p is None:
        runs += 1
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    for i, k in enumerate(closers):  # far ahead, users of their own
        write_file(src, k, [(next_id + i, next_id + i, 0, stamp(t + 3600 * 1000))])
    job_dir = os.path.join(data, "jobs", "crash-over")
    before = sealed_checkpoints(job_dir)
    error = sluice_e2e.stop_when(p, lambda: len(read_committed(out, next_id)) >= len(exp) and
                    sealed_checkpoints(job_dir) - before)
    if error:
        print("%s: %s" % (NAME, error))
        return 1
    got = read_committed(out, next_id)
    missing = sorted(set(exp) - set(got))
    extra = sorted(set(got) - set(exp))
    wrong = sorted(i for i in set(exp) & set(got) if exp[i] != got[i])
    print("%s: %d runs, %d SIGKILLs, %d clicks in %d files, %d committed: %d missing, "
          "%d extra, %d wrong" % (NAME, runs, kills, len(clicks), len(files), len(got),
                                  len(missing), len(extra), len(wrong)))
    for i in (missing + extra + wrong)[:10]:
        print("  click %r: expected %r, got %r" % (i, exp.get(i), got.get(i)))
    ok = not missing and not extra and not wrong and kills >= min(a.kills, 20)
    why = sluice_e2e.check_parallelism(out, a.parallelism)
    if why:
        print("%s: %s" % (NAME, why))
        ok = False
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("%s: kept %s (seed %d)" % (NAME, work, a.seed))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
