#!/usr/bin/env python3
"""crash_partition_test.py — a PARTITIONED BY filesystem sink with Flink's
partition-time commit, exactly-once through SIGKILL, checked by an
independent reader.

The job reads a rate-limited datagen sequence id = 1..N whose event time is
ts = 2026-01-01 00:00:00 + id * 50 ms (a computed column, so a replay gives
the same times), with the watermark 1 s behind, and writes every row into a
table PARTITIONED BY (dt, hm) — the day and the minute of ts, as Nexmark q10
does — with 'sink.partition-commit.trigger' = 'partition-time', a delay of
1 min, the time extractor pattern '$dt $hm:00' and the success-file policy,
checkpointing every 100 ms. It is killed with SIGKILL 20+ times and started
again with the same data directory until it finishes (sluice_e2e
.crash_until_done: random kills, kills inside checkpoints, kills while the
last files are in progress).

While it runs, a watcher thread looks at the output every few milliseconds:
a partition directory that holds _SUCCESS must already hold every row of
that minute (the success file is written only after the partition's files
are committed, never before) — checked by reading _SUCCESS's presence first
and the part files after. At the end: every partition has exactly its rows,
each once (no row lost or written twice across the kills), its _SUCCESS
file (empty), and no in-progress file is left.

--parallelism N runs N datagen reader tasks (the sink's watermark is the
smallest of theirs) into the one sink instance partition commit needs
('sink.parallelism' = '1').

Usage: crash_partition_test.py --sluice PATH [--kills 24] [--rows 12000]
                               [--seconds 8] [--parallelism N] [--seed S]
"""
import collections
import json
import os
import shutil
import sys
import threading
import time

import sluice_e2e

BASE_MS = 1767225600000  # 2026-01-01 00:00:00 UTC
STEP_MS = 50

JOB = """
CREATE TABLE IF NOT EXISTS gen (id BIGINT,
  ts AS TO_TIMESTAMP_LTZ({base} + id * {step}, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');
CREATE TABLE IF NOT EXISTS parts (id BIGINT, ts TIMESTAMP_LTZ(3), dt STRING, hm STRING)
  PARTITIONED BY (dt, hm) WITH (
  'connector' = 'filesystem', 'path' = '{out}', 'format' = 'json',
  'sink.partition-commit.trigger' = 'partition-time',
  'sink.partition-commit.delay' = '1 min',
  'sink.partition-commit.policy.kind' = 'success-file',
  'partition.time-extractor.timestamp-pattern' = '$dt $hm:00',
  'sink.rolling-policy.rollover-interval' = '1 min', 'sink.parallelism' = '1');
SET 'table.local-time-zone' = 'UTC';
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'pipeline.name' = 'crash-partition';
INSERT INTO parts SELECT id, ts, DATE_FORMAT(ts, 'yyyy-MM-dd'), DATE_FORMAT(ts, 'HH:mm') FROM gen;
"""


def partition_of(i):
    """The partition directory of row id i (':' escaped as Flink does)."""
    t = time.gmtime((BASE_MS + i * STEP_MS) // 1000)
    return "dt=%s/hm=%s" % (time.strftime("%Y-%m-%d", t), time.strftime("%H%%3A%M", t))


def reference(rows):
    ref = collections.defaultdict(collections.Counter)
    for i in range(1, rows + 1):
        ref[partition_of(i)][i] += 1
    return ref


def partition_ids(pdir):
    """The ids in the committed (visible) part files of a partition directory."""
    got = collections.Counter()
    for path in sluice_e2e.committed_files(pdir):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    if set(r) != {"id", "ts"}:
                        raise AssertionError("%s: row %r holds other columns than id, ts" %
                                             (path, r))
                    got[r["id"]] += 1
    return got


def partitions(out):
    """Relative partition directories under out (two levels: dt=, hm=)."""
    found = []
    if not os.path.isdir(out):
        return found
    for dt in sorted(os.listdir(out)):
        d = os.path.join(out, dt)
        if os.path.isdir(d):
            found += ["%s/%s" % (dt, hm) for hm in sorted(os.listdir(d))
                      if os.path.isdir(os.path.join(d, hm))]
    return found


class Watcher(threading.Thread):
    """Checks, over and over while the job runs and is killed, that no
    partition has its success file before all of its rows."""

    def __init__(self, out, ref):
        super().__init__(daemon=True)
        self.out, self.ref = out, ref
        self.stop = threading.Event()
        self.looks = self.seen_success = 0
        self.problems = []

    def run(self):
        while not self.stop.is_set() and not self.problems:
            for p in partitions(self.out):
                pdir = os.path.join(self.out, p)
                if not os.path.exists(os.path.join(pdir, "_SUCCESS")):
                    continue
                self.seen_success += 1
                try:
                    got = partition_ids(pdir)  # read after seeing _SUCCESS
                except (OSError, ValueError, AssertionError) as e:
                    self.problems.append("%s: %s" % (p, e))
                    break
                want = self.ref.get(p, collections.Counter())
                if +(want - got):
                    self.problems.append("%s has _SUCCESS while %d of its %d rows are missing"
                                         % (p, sum((want - got).values()), sum(want.values())))
                    break
            self.looks += 1
            time.sleep(0.003)


def main():
    a, rnd, work = sluice_e2e.crash_setup("sluice-crashpart-", kills=24, rows=12000, seconds=8.0)
    data, out = os.path.join(work, "data"), os.path.join(work, "out")
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(rows=a.rows, rate=int(a.rows / a.seconds), out=out, base=BASE_MS,
                           step=STEP_MS, parallelism=a.parallelism))
    print("crash_partition_test: seed %d, parallelism %d, %d rows, work dir %s" %
          (a.seed, a.parallelism, a.rows, work))
    ref = reference(a.rows)
    watcher = Watcher(out, ref)
    watcher.start()
    run = sluice_e2e.Runner(a.sluice, data, job, "crash-partition", out)
    why, end_kills = sluice_e2e.crash_until_done(run, out, a.kills, rnd, "crash_partition_test")
    watcher.stop.set()
    watcher.join()
    if why:
        print(why)
        print("crash_partition_test: kept %s (seed %d)" % (work, a.seed))
        return 1
    problems = list(watcher.problems)
    got_parts = partitions(out)
    if sorted(got_parts) != sorted(ref):
        problems.append("partitions %r, expected %r" % (got_parts[:5], sorted(ref)[:5]))
    rows = 0
    for p in sorted(ref):
        pdir = os.path.join(out, p)
        s = os.path.join(pdir, "_SUCCESS")
        if not os.path.isfile(s) or os.path.getsize(s) != 0:
            problems.append("%s has no (empty) _SUCCESS file" % p)
        got = partition_ids(pdir) if os.path.isdir(pdir) else collections.Counter()
        rows += sum(got.values())
        if got != ref[p]:
            problems.append("%s: %d rows missing, %d extra or repeated" %
                            (p, sum((ref[p] - got).values()), sum((got - ref[p]).values())))
    left = sluice_e2e.in_progress_files(out)
    if left:
        problems.append("in-progress files left: %r" % left[:3])
    print("crash_partition_test: %s, %d of them while output was in progress at the end; "
          "%d partitions, %d rows committed; the watcher looked %d times and checked %d "
          "success files; %d problems" %
          (run.summary(), end_kills, len(got_parts), rows, watcher.looks,
           watcher.seen_success, len(problems)))
    for pr in problems[:20]:
        print("  " + pr)
    ok = not problems and watcher.seen_success > 0
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("crash_partition_test: kept %s (seed %d)" % (work, a.seed))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
