#!/usr/bin/env python3
"""crash_test.py — exactly-once through SIGKILL, checked by an independent reader.

A job reads a deterministic datagen source (a sequence 1..N) through a
filter/projection into the exactly-once filesystem sink (JSON), checkpointing
every 100 ms. The job is killed with SIGKILL at random moments (20+ times,
many inside checkpoints and commits) and started again with the same data
directory until it finishes. Then this script — not Sluice — reads the
committed files and compares them with a reference computed here from the
query's definition: every row exactly once, nothing missing, nothing extra.

--sink print is the control: the same job into the print sink (no commit
protocol). Its output, collected across the killed runs, must show
duplicates — proof that the check can fail. The control passes when the
check FAILS.

Usage: crash_test.py --sluice PATH [--sink filesystem|print] [--kills 25] [--rows N]
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

JOB = """
CREATE TABLE IF NOT EXISTS gen (id BIGINT, pad STRING) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}',
  'fields.pad.length' = '8');
CREATE TABLE IF NOT EXISTS out_{sink} (id BIGINT, x BIGINT, tag STRING) WITH ({with_sink});
SET 'execution.checkpointing.interval' = '100 ms';
SET 'pipeline.name' = 'crash-{sink}';
INSERT INTO out_{sink} SELECT id, id * 3, CASE WHEN id % 2 = 0 THEN 'even' ELSE 'odd' END
FROM gen WHERE id % 7 <> 0;
"""


def reference(rows):
    """The query's result, computed from its definition, not by Sluice."""
    return collections.Counter(
        (i, i * 3, "even" if i % 2 == 0 else "odd") for i in range(1, rows + 1) if i % 7 != 0)


def read_committed_files(out_dir):
    """Committed output: the visible (non-hidden) files, one JSON object a line."""
    got = collections.Counter()
    for name in sorted(os.listdir(out_dir)) if os.path.isdir(out_dir) else []:
        if name.startswith(".") or name.startswith("_"):
            continue  # in-progress files are hidden; readers skip them
        with open(os.path.join(out_dir, name), encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    got[(r["id"], r["x"], r["tag"])] += 1
    return got


def read_print_output(text):
    """Rows printed as +I[id, x, tag]."""
    got = collections.Counter()
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("+I[") and line.endswith("]"):
            a, b, c = [v.strip() for v in line[3:-1].split(",")]
            got[(int(a), int(b), c)] += 1
    return got


def compare(expected, got):
    missing = expected - got
    extra = got - expected
    doubled = sum(n - 1 for k, n in got.items() if n > 1)
    return missing, extra, doubled


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--sink", default="filesystem", choices=["filesystem", "print"])
    ap.add_argument("--kills", type=int, default=25)
    ap.add_argument("--rows", type=int, default=100000)
    ap.add_argument("--seconds", type=float, default=10.0, help="input duration at full speed")
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rnd = random.Random(seed)
    work = tempfile.mkdtemp(prefix="sluice-crash-")
    data, out_dir = os.path.join(work, "data"), os.path.join(work, "out")
    rate = int(a.rows / a.seconds)  # the input lasts --seconds: room for every kill
    with_sink = ("'connector' = 'filesystem', 'path' = '%s', 'format' = 'json'" % out_dir
                 if a.sink == "filesystem" else "'connector' = 'print'")
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(rows=a.rows, rate=rate, sink=a.sink, with_sink=with_sink))
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1")
    printed = []
    kills = runs = 0
    deadline = time.monotonic() + 600
    print("crash_test: seed %d, sink %s, %d rows, work dir %s" % (seed, a.sink, a.rows, work))
    while time.monotonic() < deadline:
        runs += 1
        p = subprocess.Popen([a.sluice, "--data-dir", data, "-q", "-f", job],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        try:
            timeout = rnd.uniform(0.15, 0.6) if kills < a.kills else 300
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGKILL)
            out, err = p.communicate()
            kills += 1
            printed.append(out.decode("utf-8", "replace"))
            continue
        printed.append(out.decode("utf-8", "replace"))
        if p.returncode != 0:
            print("crash_test: run %d failed with status %d:\n%s" %
                  (runs, p.returncode, err.decode("utf-8", "replace")))
            return 1
        break  # the job finished: everything is committed
    if kills < min(a.kills, 20):
        print("crash_test: only %d kills happened before the job finished; make --seconds larger"
              % kills)
        return 1
    expected = reference(a.rows)
    got = (read_committed_files(out_dir) if a.sink == "filesystem"
           else read_print_output("".join(printed)))
    missing, extra, doubled = compare(expected, got)
    print("crash_test: %d runs, %d SIGKILLs; expected %d rows, got %d: %d missing, %d extra, "
          "%d doubled" % (runs, kills, sum(expected.values()), sum(got.values()),
                          sum(missing.values()), sum(extra.values()), doubled))
    exactly_once = not missing and not extra and doubled == 0
    if a.sink == "print":
        # The control: without a commit protocol, replays after kills must show.
        ok = not exactly_once
        print("crash_test: control %s: the check %s the print sink's duplicates" %
              ("passed" if ok else "FAILED", "detects" if ok else "does not detect"))
    else:
        ok = exactly_once
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("crash_test: kept %s for inspection (seed %d)" % (work, seed))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
