#!/usr/bin/env python3
"""crash_dedup_test.py — deduplication by event time through SIGKILL.

A job reads a monitored directory of CSV click files and keeps each user's
earliest click (ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts) = 1)
into the exactly-once filesystem sink, checkpointing every 100 ms. The clicks
are out of order — each up to 1.5 s after its place in the file, with the
watermark 2 s behind — so a user's first click to arrive is often not the
earliest, and the earliest waits in the operator's state until the watermark
reaches it. While this script adds click files (a few per second), the job is
killed with SIGKILL at random moments and started again: each restart must
restore the source position, the waiting candidates, the users already
emitted and the watermark. At the end one far-future click per reader task
moves the watermark past every click, and SIGTERM stops the job with a
savepoint. This script then computes each user's earliest click from the
files it wrote and compares it with the committed output: each user exactly
once, with that click. (Keeping the first click to arrive instead — the old
behaviour — fails the check: many users get the wrong click.)

No click can be late under any interleaving of the reader tasks: within a
reader's files a click is at most 1.5 s earlier than any before it, less than
the watermark's 2 s delay, so it is never behind its own reader's watermark,
hence never behind the smallest. Event times are all distinct (no ties).

Usage: crash_dedup_test.py --sluice PATH [--kills 20] [--files 50] [--parallelism N]
"""
import collections
import os
import shutil
import subprocess
import sys

import sluice_e2e

JOB = """
CREATE TABLE IF NOT EXISTS clicks (id BIGINT, user_id BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'csv',
        'source.monitor-interval' = '50 ms');
CREATE TABLE IF NOT EXISTS firsts (id BIGINT, user_id BIGINT, ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'pipeline.name' = 'crash-dedup';
INSERT INTO firsts
SELECT id, user_id, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts ASC) AS rn FROM clicks)
WHERE rn = 1;
"""

BASE = 1767225600  # 2026-01-01 00:00:00 UTC


stamp = sluice_e2e.stamp


def file_name(k):
    return "clicks-%05d.csv" % k


def write_file(src, k, rows):
    """Write one file atomically (hidden name, then rename)."""
    sluice_e2e.write_atomic(src, file_name(k), ("%d,%d,%s\n" % r for r in rows))


def read_committed(out):
    """user_id -> (id, ts) of the committed rows; a user written twice is marked."""
    got = {}
    for r in sluice_e2e.committed_rows(out):
        u = r["user_id"]
        got[u] = ("written twice", "") if u in got else (r["id"], r["ts"])
    return got


def sealed_checkpoints(job_dir):
    """Names of the job's chk-N directories that have their _metadata."""
    if not os.path.isdir(job_dir):
        return set()
    return {n for n in os.listdir(job_dir)
            if n.startswith("chk-") and os.path.exists(os.path.join(job_dir, n, "_metadata"))}


NAME = "crash_dedup_test"


def main():
    a, rnd, work = sluice_e2e.crash_setup("sluice-crashdedup-", kills=20, files=50)
    src, out, data = (os.path.join(work, d) for d in ("src", "out", "data"))
    os.makedirs(src)
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(src=src, out=out, parallelism=a.parallelism))
    env = sluice_e2e.ENV
    print("crash_dedup_test: seed %d, parallelism %d, work dir %s" % (a.seed, a.parallelism, work))
    per_reader = collections.Counter(sluice_e2e.subtask_of(file_name(k), a.parallelism)
                                     for k in range(a.files))
    if len(per_reader) < a.parallelism or min(per_reader.values()) < 3:
        print("crash_dedup_test: the %d files do not give every reader task files: %r" %
              (a.files, dict(per_reader)))
        return 1

    # 200 clicks per file, 50 ms apart, each up to 1.5 s later than its place;
    # every event time distinct. New users keep coming, each clicking for
    # about 5 s, so candidates are waiting for the watermark at every kill.
    files, next_id, t, used = [], 1, BASE * 1000, set()
    earliest = {}  # user -> (ts_ms, id)
    first_arrival = {}
    for k in range(a.files):
        rows = []
        for _ in range(200):
            t += 50
            ts = t + rnd.randrange(1500)
            while ts in used:
                ts += 1
            used.add(ts)
            user = next_id // 20 + rnd.randrange(5)  # a user clicks for about 5 s
            rows.append((next_id, user, stamp(ts)))
            if user not in earliest or ts < earliest[user][0]:
                earliest[user] = (ts, next_id)
            first_arrival.setdefault(user, next_id)
            next_id += 1
        files.append(rows)
    differ = sum(1 for u in earliest if earliest[u][1] != first_arrival[u])
    closers = sluice_e2e.closing_files(a.files, a.parallelism, file_name)

    cmd = [a.sluice, "--data-dir", data, "-q", "-f", job]
    p, runs, kills, error = sluice_e2e.kill_loop(
        cmd, env, files, lambda i, rows: write_file(src, i, rows), a.kills, rnd)
    if error:
        print("%s: %s" % (NAME, error))
        return 1
    # The last run: a far-future click per reader (other users), then SIGTERM.
    if p is None:
        runs += 1
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    for i, k in enumerate(closers):
        write_file(src, k, [(next_id + i, next_id + i, stamp(t + 3600 * 1000))])
    # Wait (bounded) until every user is committed and the last run has sealed
    # a checkpoint of its own (so it is running and reads the closing clicks).
    job_dir = os.path.join(data, "jobs", "crash-dedup")
    before = sealed_checkpoints(job_dir)
    error = sluice_e2e.stop_when(p, lambda: len(read_committed(out)) >= len(earliest) and
                    sealed_checkpoints(job_dir) - before)
    if error:
        print("%s: %s" % (NAME, error))
        return 1
    got = read_committed(out)
    exp = {u: (i, stamp(ts)) for u, (ts, i) in earliest.items()}
    missing = sorted(set(exp) - set(got))
    extra = sorted(set(got) - set(exp))
    wrong = sorted(u for u in set(exp) & set(got) if exp[u] != got[u])
    print("crash_dedup_test: %d runs, %d SIGKILLs, %d clicks in %d files; %d users (%d whose "
          "first click to arrive is not the earliest), %d committed: %d missing, %d extra, "
          "%d wrong" % (runs, kills, sum(len(f) for f in files), len(files), len(exp), differ,
                        len(got), len(missing), len(extra), len(wrong)))
    for u in (missing + extra + wrong)[:10]:
        print("  user %r: expected %r, got %r" % (u, exp.get(u), got.get(u)))
    ok = (not missing and not extra and not wrong and kills >= min(a.kills, 20) and
          differ > 0)
    why = sluice_e2e.check_parallelism(out, a.parallelism)
    if why:
        print("crash_dedup_test: " + why)
        ok = False
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("crash_dedup_test: kept %s (seed %d)" % (work, a.seed))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
