#!/usr/bin/env python3
"""crash_unnest_test.py — exactly-once through SIGKILL for UNNEST over
datagen, checked by an independent reader.

The job reads a rate-limited datagen table (a sequence column id = 1..N)
and expands each row with CROSS JOIN UNNEST of an array built from it,
ARRAY[10 id, 10 id + 1, 10 id + 2] WITH ORDINALITY, keeping the elements
not divisible by 7, into the exactly-once filesystem sink (JSON),
checkpointing every 100 ms. It is killed with SIGKILL 20+ times (some
inside checkpoints, a few while the end's output is being committed) and
started again with the same data directory until it finishes
(sluice_e2e.crash_until_done).

This script computes the expected rows from the sequence alone — for each
id, (id, x, pos) for the elements x at positions pos = 1..3 that 7 does not
divide — and compares them with the committed output: each exactly once,
nothing else.

Usage: crash_unnest_test.py --sluice PATH [--kills 20] [--rows 60000]
                            [--seconds 8] [--parallelism N] [--seed S]
"""
import collections
import os
import shutil
import sys

import sluice_e2e

JOB = """
CREATE TABLE IF NOT EXISTS gen (id BIGINT, pad STRING) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}',
  'fields.pad.length' = '8');
CREATE TABLE IF NOT EXISTS unnest_out (id BIGINT, x BIGINT, pos INT)
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'pipeline.name' = 'crash-unnest';
INSERT INTO unnest_out
SELECT id, x, pos FROM gen
  CROSS JOIN UNNEST(ARRAY[id * 10, id * 10 + 1, id * 10 + 2]) WITH ORDINALITY AS u(x, pos)
WHERE x % 7 <> 0;
"""


def reference(rows):
    """The expected rows as a multiset of (id, x, pos)."""
    exp = collections.Counter()
    for i in range(1, rows + 1):
        for pos, x in enumerate((10 * i, 10 * i + 1, 10 * i + 2), 1):
            if x % 7 != 0:
                exp[(i, x, pos)] += 1
    return exp


def main():
    a, rnd, work = sluice_e2e.crash_setup("sluice-crashunnest-", kills=20, rows=60000, seconds=8.0)
    data, out = os.path.join(work, "data"), os.path.join(work, "out")
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(rows=a.rows, rate=int(a.rows / a.seconds), out=out,
                           parallelism=a.parallelism))
    print("crash_unnest_test: seed %d, parallelism %d, %d rows, work dir %s" %
          (a.seed, a.parallelism, a.rows, work))
    run = sluice_e2e.Runner(a.sluice, data, job, "crash-unnest", out)
    why, end_kills = sluice_e2e.crash_until_done(run, out, a.kills, rnd, "crash_unnest_test")
    if why:
        print(why)
        return 1
    got = collections.Counter((r["id"], r["x"], r["pos"]) for r in sluice_e2e.committed_rows(out))
    exp = reference(a.rows)
    problems = []
    for row, n in sorted((got - exp).items())[:10]:
        problems.append("row %r committed %d time(s) too many" % (row, n))
    for row, n in sorted((exp - got).items())[:10]:
        problems.append("row %r missing (%d)" % (row, n))
    why = sluice_e2e.check_parallelism(out, a.parallelism)
    if why:
        problems.append(why)
    print("crash_unnest_test: %s, %d of them while output was in progress at the end; "
          "%d rows committed (%d expected), %d problems" %
          (run.summary(), end_kills, sum(got.values()), sum(exp.values()), len(problems)))
    for pr in problems:
        print("  " + pr)
    ok = not problems
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("crash_unnest_test: kept %s (seed %d)" % (work, a.seed))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
