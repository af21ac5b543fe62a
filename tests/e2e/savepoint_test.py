#!/usr/bin/env python3
"""savepoint_test.py — stop with a savepoint (SIGTERM) and resume: the output
equals an uninterrupted run's.

An unbounded job reads a monitored directory of CSV click files through a
10-second tumbling-window aggregation (COUNT, SUM, MIN, MAX) into the
exactly-once filesystem sink. While this script adds click files (in
event-time order), the job is stopped with SIGTERM — which stops it after a
final checkpoint kept as a savepoint (docs/RUNTIME.md) — at 3 to 5 random
moments (each after the run has taken at least one checkpoint of its own,
so that the job is surely running), and started again:

- a plain restart resumes the job (same 'pipeline.name') from its newest
  checkpoint, which is the savepoint;
- one of the restarts instead starts a job of a NEW name with
  SET 'execution.savepoint.path' = '<the last savepoint's chk-N directory>'
  (Flink's way to start a job from a savepoint); the later restarts resume
  that new job by its name (without the SET: it would start over from the old
  savepoint).

At the end, the remaining files and one far-future click per reader task
(which closes every window but the clicks' own) are added; once every window
is committed, a last SIGTERM stops the job. The same job then runs without
interruption in a fresh data directory over all the files, and is stopped
the same way. The committed rows of the two runs must be equal as multisets,
and equal to the windows this script computes from the files.

--parallelism N: N reader tasks (files split by the hash of their names; the
script checks each gets files and writes a closing click for each), hash
exchange, N aggregation tasks and sink instances. Each reader's files hold
clicks in event-time order, so no click is late under any interleaving.
--no-savepoint-path leaves out the restart from execution.savepoint.path.

Usage: savepoint_test.py --sluice PATH [--parallelism N] [--files 40] [--seed S]
                         [--no-savepoint-path]
"""
import argparse
import collections
import decimal
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

import sluice_e2e

TABLES = """
CREATE TABLE IF NOT EXISTS clicks (id BIGINT, campaign STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'csv',
        'source.monitor-interval' = '50 ms');
CREATE TABLE IF NOT EXISTS spend (window_start TIMESTAMP(3), window_end TIMESTAMP(3), campaign STRING,
  n BIGINT, total DECIMAL(38, 2), first_id BIGINT, last_id BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'pipeline.name' = '{name}';
"""
FROM_SAVEPOINT = "SET 'execution.savepoint.path' = '{path}';\n"
INSERT = """
INSERT INTO spend
SELECT window_start, window_end, campaign, COUNT(*), SUM(amount), MIN(id), MAX(id)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, campaign;
"""

CENT = decimal.Decimal("0.01")
BASE = 1767225600  # 2026-01-01 00:00:00 UTC
ROWS_PER_FILE = 150


stamp = sluice_e2e.stamp


def file_name(k):
    return "clicks-%05d.csv" % k


def write_file(src, k, rows):
    """Atomically: a hidden name, then rename (the source never sees half a file)."""
    sluice_e2e.write_atomic(src, file_name(k), ("%d,%s,%s,%s\n" % r for r in rows))


def make_data(rnd, nfiles, parallelism):
    """The click files (event-time order), the closing files (one per reader
    task) and the expected committed rows."""
    files, expected, next_id, t = [], {}, 1, BASE * 1000
    for _ in range(nfiles):
        rows = []
        for _ in range(ROWS_PER_FILE):
            t += 50
            campaign = rnd.choice("abc")
            amount = (decimal.Decimal(rnd.randint(1, 999)) / 100).quantize(CENT)
            rows.append((next_id, campaign, amount, stamp(t)))
            ws = t - t % 10000
            key = (stamp(ws), stamp(ws + 10000), campaign)
            n, total, lo, hi = expected.get(key, (0, decimal.Decimal(0), next_id, next_id))
            expected[key] = (n + 1, total + amount, min(lo, next_id), max(hi, next_id))
            next_id += 1
        files.append(rows)
    closers, k = {}, nfiles
    while len(closers) < parallelism:
        closers.setdefault(sluice_e2e.subtask_of(file_name(k), parallelism), k)
        k += 1
    closing = [(k, [(next_id + i, "z", decimal.Decimal("0.01"), stamp(t + 3600 * 1000))])
               for i, k in enumerate(sorted(closers.values()))]
    exp = collections.Counter(
        (ws, we, c, n, str(total.quantize(CENT)), lo, hi)
        for (ws, we, c), (n, total, lo, hi) in expected.items())
    return files, closing, exp


def committed(out):
    """The committed rows as a multiset of tuples."""
    return collections.Counter(
        (r["window_start"], r["window_end"], r["campaign"], r["n"],
         str(decimal.Decimal(str(r["total"])).quantize(CENT)),
         r["first_id"], r["last_id"])
        for r in sluice_e2e.committed_rows(out, parse_float=decimal.Decimal))


def newest_checkpoint(job_dir):
    ids = [int(n[4:]) for n in os.listdir(job_dir)
           if n.startswith("chk-") and n[4:].isdigit()
           and os.path.exists(os.path.join(job_dir, n, "_metadata"))] \
        if os.path.isdir(job_dir) else []
    return max(ids, default=0)


class Job:
    """Writes job.sql for one run and runs it."""

    def __init__(self, sluice, work, src, out, data, parallelism):
        self.sluice, self.work, self.src, self.out, self.data = sluice, work, src, out, data
        self.parallelism = parallelism
        self.runs = 0

    def start(self, name, savepoint_path=None):
        self.runs += 1
        text = TABLES.format(src=self.src, out=self.out, parallelism=self.parallelism, name=name)
        if savepoint_path:
            text += FROM_SAVEPOINT.format(path=savepoint_path)
        text += INSERT
        job = os.path.join(self.work, "job-%d.sql" % self.runs)
        with open(job, "w", encoding="utf-8") as f:
            f.write(text)
        self.name = name
        self.job_dir = os.path.join(self.data, "jobs", name)
        self.chk_before = newest_checkpoint(self.job_dir)
        self.p = subprocess.Popen([self.sluice, "--data-dir", self.data, "-q", "-f", job],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  env=sluice_e2e.ENV)

    def has_checkpointed(self):
        """This run decided a checkpoint of its own: the job is running."""
        return newest_checkpoint(self.job_dir) > self.chk_before

    def stop(self):
        """SIGTERM; returns (savepoint path, error text or None)."""
        self.p.send_signal(signal.SIGTERM)
        try:
            _, err = self.p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.communicate()
            return None, "SIGTERM did not stop the job within 60 s"
        err = err.decode("utf-8", "replace")
        if self.p.returncode != 0:
            return None, "the run ended with status %d:\n%s" % (self.p.returncode, err)
        m = re.search(r'job "([^"]*)" stopped with savepoint (\S+)', err)
        if not m:
            return None, "no savepoint was reported:\n%s" % err
        path = m.group(2)
        try:
            with open(os.path.join(path, "_metadata"), encoding="utf-8") as f:
                meta = json.load(f)
        except (OSError, ValueError) as e:
            return None, "the savepoint %s cannot be read: %s" % (path, e)
        if not meta.get("savepoint"):
            return None, "%s is not marked as a savepoint" % path
        return path, None

    def ended_early(self):
        if self.p.poll() is None:
            return None
        _, err = self.p.communicate()
        return "run %d ended by itself (status %d):\n%s" % (
            self.runs, self.p.returncode, err.decode("utf-8", "replace"))


def wait_for(pred, seconds, job=None):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        if job is not None and job.p.poll() is not None:
            return False
        time.sleep(0.02)
    return pred()


def finish(job, want, out):
    """Wait (bounded) until every expected window is committed, then stop."""
    wait_for(lambda: sum(committed(out).values()) >= sum(want.values()), 120, job)
    time.sleep(0.3)  # anything extra would show up now
    return job.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--parallelism", type=int, default=1)
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--no-savepoint-path", action="store_true")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rnd = random.Random(seed)
    work = tempfile.mkdtemp(prefix="sluice-savepoint-")
    print("savepoint_test: seed %d, parallelism %d, work dir %s" % (seed, a.parallelism, work))
    per_reader = collections.Counter(sluice_e2e.subtask_of(file_name(k), a.parallelism)
                                     for k in range(a.files))
    if len(per_reader) < a.parallelism or min(per_reader.values()) < 3:
        print("savepoint_test: the files do not give every reader task files: %r" %
              dict(per_reader))
        return 1
    files, closing, want = make_data(rnd, a.files, a.parallelism)

    def fail(msg):
        print("savepoint_test: %s\nsavepoint_test: kept %s (seed %d)" % (msg, work, seed))
        return 1

    # 1. Interrupted: stops SIGTERMs at random moments while files arrive.
    d1 = os.path.join(work, "interrupted")
    src1, out1 = os.path.join(d1, "src"), os.path.join(d1, "out")
    os.makedirs(src1)
    job = Job(a.sluice, d1, src1, out1, os.path.join(d1, "data"), a.parallelism)
    stops = rnd.randint(3, 5)
    from_path_run = None if a.no_savepoint_path else rnd.randint(1, stops)
    name, savepoint, written = "savepoint-a", None, 0
    log = []
    for run in range(stops + 1):
        if run == from_path_run:
            name = "savepoint-b"
            job.start(name, savepoint_path=savepoint)
            log.append("run %d: job %s from execution.savepoint.path %s" % (run, name, savepoint))
        else:
            job.start(name)
            log.append("run %d: job %s" % (run, name))
        if run == stops:
            break
        # Feed this run's share of the files over its life, stop at a random moment.
        share = (a.files - written) // (stops + 1 - run) + rnd.randint(-2, 2)
        share = max(1, min(share, a.files - written - 1))
        life = time.monotonic() + rnd.uniform(0.4, 1.5)
        target = written + share
        while (time.monotonic() < life or not job.has_checkpointed()) and job.p.poll() is None:
            if written < target:
                write_file(src1, written, files[written])
                written += 1
            time.sleep(rnd.uniform(0.01, 0.08))
            if time.monotonic() > life + 60:
                return fail("run %d took no checkpoint in 60 s" % run)
        err = job.ended_early()
        if err:
            return fail(err)
        savepoint, err = job.stop()
        if err:
            return fail("stop %d: %s" % (run + 1, err))
        log.append("  stopped with savepoint %s after %d files" % (savepoint, written))
    for k in range(written, a.files):
        write_file(src1, k, files[k])
    for k, rows in closing:
        write_file(src1, k, rows)
    _, err = finish(job, want, out1)
    if err:
        return fail("the last run: %s" % err)
    got1 = committed(out1)

    # 2. Uninterrupted, fresh data directory, all files present from the start.
    d2 = os.path.join(work, "uninterrupted")
    src2, out2 = os.path.join(d2, "src"), os.path.join(d2, "out")
    os.makedirs(src2)
    for k, rows in enumerate(files):
        write_file(src2, k, rows)
    for k, rows in closing:
        write_file(src2, k, rows)
    job2 = Job(a.sluice, d2, src2, out2, os.path.join(d2, "data"), a.parallelism)
    job2.start("savepoint-a")
    _, err = finish(job2, want, out2)
    if err:
        return fail("the uninterrupted run: %s" % err)
    got2 = committed(out2)

    for line in log:
        print("  " + line)
    only1, only2 = got1 - got2, got2 - got1
    print("savepoint_test: %d stops; interrupted: %d rows, uninterrupted: %d rows, expected %d; "
          "%d only in the interrupted output, %d only in the uninterrupted one" %
          (stops, sum(got1.values()), sum(got2.values()), sum(want.values()),
           sum(only1.values()), sum(only2.values())))
    problems = []
    for label, c in (("only interrupted", only1), ("only uninterrupted", only2),
                     ("interrupted, not expected", got1 - want),
                     ("expected, not in interrupted", want - got1),
                     ("uninterrupted, not expected", got2 - want),
                     ("expected, not in uninterrupted", want - got2)):
        for row, n in sorted(c.items())[:5]:
            problems.append("%s: %r x%d" % (label, row, n))
    for label, out in (("interrupted", out1), ("uninterrupted", out2)):
        why = sluice_e2e.check_parallelism(out, a.parallelism)
        if why:
            problems.append("%s: %s" % (label, why))
    for pr in problems:
        print("  " + pr)
    if problems:
        return fail("outputs differ")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
