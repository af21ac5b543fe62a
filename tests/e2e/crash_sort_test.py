#!/usr/bin/env python3
"""crash_sort_test.py — the streaming temporal sort (ORDER BY ts) through SIGKILL.

A job reads a monitored directory of CSV click files and writes them ordered
by event time (INSERT ... SELECT ... ORDER BY ts: Flink's temporal sort) into
the exactly-once filesystem sink, checkpointing every 100 ms. The clicks are
out of order — each up to 1.5 s after its place in the file, with the
watermark 2 s behind — so clicks wait in the sort's state until the
watermark passes them. While this script adds click files (a few per
second), the job is killed with SIGKILL at random moments and started again:
each restart must restore the source position, the held clicks, the
watermark. At the end one far-future click per reader task moves the
watermark past every click (the far-future ones stay held), and SIGTERM
stops the job with a savepoint. This script then checks the committed
output, read in commit order (part files by epoch, then sequence): every
click of the files exactly once, with its time, and the times never
decreasing. (A plain INSERT without ORDER BY fails the order check: the
clicks are out of order in the files.)

No click can be late under any interleaving of the reader tasks: within a
reader's files a click is at most 1.5 s earlier than any before it, less than
the watermark's 2 s delay (see crash_sort_test.py). Event times are
distinct. The sort runs in one task, so one sink task writes.

Usage: crash_sort_test.py --sluice PATH [--kills 20] [--files 40] [--parallelism N]
"""
import collections
import json
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
CREATE TABLE IF NOT EXISTS sorted (id BIGINT, user_id BIGINT, ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'pipeline.name' = 'crash-sort';
INSERT INTO sorted SELECT id, user_id, ts FROM clicks {order};
"""

BASE = 1767225600  # 2026-01-01 00:00:00 UTC


stamp = sluice_e2e.stamp


def file_name(k):
    return "clicks-%05d.csv" % k


def write_file(src, k, rows):
    """Write one file atomically (hidden name, then rename)."""
    sluice_e2e.write_atomic(src, file_name(k), ("%d,%d,%s\n" % r for r in rows))


def part_key(path):
    """(epoch, seq) of a part file (part-<id>-<subtask>-<epoch>-<seq>.<ext>)."""
    parts = os.path.basename(path).split(".")[0].split("-")
    return (int(parts[3]), int(parts[4])) if len(parts) >= 5 else (-1, -1)


def read_committed(out):
    """The committed rows as (id, ts) in commit order."""
    rows = []
    for path in sorted(sluice_e2e.committed_files(out), key=part_key):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    rows.append((r["id"], r["ts"]))
    return rows


def sealed_checkpoints(job_dir):
    """Names of the job's chk-N directories that have their _metadata."""
    if not os.path.isdir(job_dir):
        return set()
    return {n for n in os.listdir(job_dir)
            if n.startswith("chk-") and os.path.exists(os.path.join(job_dir, n, "_metadata"))}


NAME = "crash_sort_test"


def main():
    def more(ap):
        ap.add_argument("--control", action="store_true",
                        help="run without ORDER BY: the order check must fail")
    a, rnd, work = sluice_e2e.crash_setup("sluice-crashsort-", kills=20, files=40, more=more)
    src, out, data = (os.path.join(work, d) for d in ("src", "out", "data"))
    os.makedirs(src)
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(src=src, out=out, parallelism=a.parallelism,
                           order="" if a.control else "ORDER BY ts"))
    env = sluice_e2e.ENV
    print("crash_sort_test: seed %d, parallelism %d, work dir %s" % (a.seed, a.parallelism, work))
    per_reader = collections.Counter(sluice_e2e.subtask_of(file_name(k), a.parallelism)
                                     for k in range(a.files))
    if len(per_reader) < a.parallelism or min(per_reader.values()) < 3:
        print("crash_sort_test: the %d files do not give every reader task files: %r" %
              (a.files, dict(per_reader)))
        return 1

    # 200 clicks per file, 50 ms apart, each up to 1.5 s later than its place;
    # every event time distinct.
    files, next_id, t, used = [], 1, BASE * 1000, set()
    expected = {}  # id -> ts text
    for k in range(a.files):
        rows = []
        for _ in range(200):
            t += 50
            ts = t + rnd.randrange(1500)
            while ts in used:
                ts += 1
            used.add(ts)
            rows.append((next_id, next_id % 97, stamp(ts)))
            expected[next_id] = stamp(ts)
            next_id += 1
        files.append(rows)
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
    # Wait (bounded) until every click is committed and the last run has sealed
    # a checkpoint of its own (so it is running and reads the closing clicks).
    job_dir = os.path.join(data, "jobs", "crash-sort")
    before = sealed_checkpoints(job_dir)
    error = sluice_e2e.stop_when(p, lambda: len(read_committed(out)) >= len(expected) and
                    sealed_checkpoints(job_dir) - before)
    if error:
        print("%s: %s" % (NAME, error))
        return 1
    got = read_committed(out)
    ids = collections.Counter(i for i, _ in got)
    far = {next_id + i for i in range(len(closers))}
    missing = sorted(set(expected) - set(ids))
    extra = sorted(i for i in ids if i not in expected or ids[i] > 1)
    wrong = sorted(i for i, ts in got if i in expected and expected[i] != ts)
    disorder = sum(1 for x, y in zip(got, got[1:]) if y[1] < x[1])
    print("%s: %d runs, %d SIGKILLs, %d clicks in %d files, %d committed: %d missing, "
          "%d extra or twice, %d wrong, %d far-future, %d out of order" %
          (NAME, runs, kills, len(expected), len(files), len(got), len(missing), len(extra),
           len(wrong), len(far & set(ids)), disorder))
    for i in (missing + extra + wrong)[:10]:
        print("  click %r: expected %r, got %r" % (i, expected.get(i), [g for g in got if g[0] == i]))
    ok = (not missing and not extra and not wrong and not (far & set(ids)) and
          disorder == 0 and kills >= min(a.kills, 20))
    if a.control:  # without the sort the clicks stay out of order: the check must see it
        print("%s: control run (no ORDER BY): %s" % (NAME, "failed as it must" if disorder else
                                                      "did NOT fail: the check is blind"))
        ok = disorder > 0 and not missing and not wrong
    found = sluice_e2e.sink_subtasks(out)
    if found != {0}:
        print("%s: the committed files come from sink subtasks %r, not from the one sort task" %
              (NAME, sorted(found)))
        ok = False
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("crash_sort_test: kept %s (seed %d)" % (work, a.seed))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
