#!/usr/bin/env python3
"""crash_topn_test.py — exactly-once through SIGKILL for a window Top-N (and
a window deduplication), checked by an independent reader.

The job reads a rate-limited datagen table (a sequence column id = 1..N and a
computed event time ts = 2026-01-01 + id * 10 ms, so every 10 s tumbling
window holds 1000 consecutive ids) and writes, through the window Top-N
operator (exec/op_topn.c, window mode), the 3 rows with the largest
v = (id * 7919) % 1000 (ties: the smaller id; v repeats every 1000 ids, so
ties happen) of each window and k = id % 7, with their rank, into the
exactly-once filesystem sink (JSON), checkpointing every 100 ms. The Top-N's
state — the buffered best rows of the open windows — and the watermark
live in the checkpoints. The job is killed with SIGKILL 20+ times (random
moments, every third inside a checkpoint, a few while the output of the last
windows is being committed) and started again with the same data directory
until it finishes.

The check computes each (window, k)'s top 3 from the ids alone and compares
them with the committed rows: each exactly once, with the right rank. No row
is late: within a reader task ids (hence times) increase, and the watermark
is 1 s behind.

--parallelism N runs N datagen reader tasks, a hash exchange by (window, k),
N Top-N tasks and N sink instances.

Usage: crash_topn_test.py --sluice PATH [--kills 20] [--rows 60000]
                          [--seconds 8] [--parallelism N] [--seed S]
"""
import calendar
import collections
import os
import shutil
import sys
import time

import sluice_e2e

KEYS = 7
TOP = 3
BASE_MS = 1767225600000  # 2026-01-01 00:00:00 UTC
WINDOW_MS = 10000

JOB = """
CREATE TABLE IF NOT EXISTS gen (id BIGINT, ts AS TO_TIMESTAMP_LTZ({base} + id * 10, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');
CREATE TABLE IF NOT EXISTS top_out (window_start TIMESTAMP(3), k BIGINT, id BIGINT, v BIGINT,
  rn BIGINT) WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'pipeline.name' = 'crash-topn';
INSERT INTO top_out
SELECT window_start, k, id, v, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY v DESC, id) AS rn
  FROM (SELECT *, id % {keys} AS k, (id * 7919) % 1000 AS v
        FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts), INTERVAL '10' SECOND))))
WHERE rn <= {top};
"""


def window_of(i):
    return (BASE_MS + i * 10) // WINDOW_MS * WINDOW_MS


def reference(rows):
    """(window_start ms, k, id, v, rank) of every row the job must write."""
    groups = collections.defaultdict(list)
    for i in range(1, rows + 1):
        groups[(window_of(i), i % KEYS)].append(((i * 7919) % 1000, i))
    out = set()
    for (w, k), members in groups.items():
        members.sort(key=lambda m: (-m[0], m[1]))
        for rank, (v, i) in enumerate(members[:TOP], 1):
            out.add((w, k, i, v, rank))
    return out


def parse_ts(text):
    """'2026-01-01 00:00:10.000' -> epoch milliseconds (UTC)."""
    day, frac = text.split(".")
    return calendar.timegm(time.strptime(day, "%Y-%m-%d %H:%M:%S")) * 1000 + int(frac)


def check(rows_out, n_rows):
    problems = []
    got = collections.Counter((parse_ts(r["window_start"]), r["k"], r["id"], r["v"], r["rn"])
                              for r in rows_out)
    want = reference(n_rows)
    for row, n in got.items():
        if n > 1:
            problems.append("row %r committed %d times" % (row, n))
        if row not in want:
            problems.append("row %r is not in the reference" % (row,))
    for row in sorted(want - set(got)):
        problems.append("row %r is missing" % (row,))
    return problems


def main():
    a, rnd, work = sluice_e2e.crash_setup("sluice-crashtopn-", kills=20, rows=60000, seconds=8.0)
    data, out = os.path.join(work, "data"), os.path.join(work, "out")
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(rows=a.rows, rate=int(a.rows / a.seconds), out=out, keys=KEYS,
                           top=TOP, base=BASE_MS, parallelism=a.parallelism))
    print("crash_topn_test: seed %d, parallelism %d, %d rows, work dir %s" %
          (a.seed, a.parallelism, a.rows, work))
    run = sluice_e2e.Runner(a.sluice, data, job, "crash-topn", out)
    why, end_kills = sluice_e2e.crash_until_done(run, out, a.kills, rnd, "crash_topn_test")
    if why:
        print(why)
        return 1
    got = sluice_e2e.committed_rows(out)
    problems = check(got, a.rows)
    why = sluice_e2e.check_parallelism(out, a.parallelism)
    if why:
        problems.append(why)
    print("crash_topn_test: %s, %d of them while output was in progress at the end; "
          "%d rows committed, %d problems" %
          (run.summary(), end_kills, len(got), len(problems)))
    for pr in problems[:20]:
        print("  " + pr)
    ok = not problems
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("crash_topn_test: kept %s (seed %d)" % (work, a.seed))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
