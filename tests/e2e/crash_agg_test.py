#!/usr/bin/env python3
"""crash_agg_test.py — exactly-once through SIGKILL for a window aggregation
over datagen, checked by an independent reader.

The job reads a rate-limited datagen table (a sequence column id = 1..N, a
random TIMESTAMP column ts, a random string column) through a tumbling-window
aggregation grouped by window and k = id % 101 — COUNT(*), COUNT(DISTINCT id),
SUM(id), MIN(id), MAX(id), an exact DECIMAL SUM(id / 100) and LISTAGG of the
ids (its state holds every value of the window) — into the
exactly-once filesystem sink (JSON), checkpointing every 100 ms. It is killed
with SIGKILL 20+ times and started again with the same data directory until
it finishes:

- random kills, 0.15-0.6 s into a run;
- every third kill lands inside a checkpoint: the script polls the job's
  directory and kills the moment a chk-N directory exists without _metadata;
- once the input is nearly consumed, a few kills land while the windows'
  output is being written (in-progress part files exist), before and during
  the final checkpoint that commits it.

Nothing that matters depends on datagen's random generator. ts is "now minus
up to 60 s" (random, fixed per row across replays); the watermark is
ts - 61 s, so no row is ever late (every ts is at least the largest ts seen
minus 60 s — also with several reader tasks, whose watermark downstream is the
smallest of theirs) and every window fires at the end of the input. Which
window a row falls into is random, so the check sums each key's windows:
per k, the counts, sums, minimum and maximum over its windows must equal what
this script computes from the sequence 1..N, and the ids LISTAGG lists over a
key's windows must be exactly its ids (each once; a window lists as many as
it counts); each (window, k) is committed at most once; COUNT(DISTINCT id) equals COUNT(*) in every window (ids are
unique); every window is 10 s long and aligned.

--parallelism N runs N datagen reader tasks (row i goes to task i % N), a
hash exchange by (window, k), N aggregation tasks and N sink instances.

Usage: crash_agg_test.py --sluice PATH [--kills 24] [--rows 100000]
                         [--seconds 10] [--parallelism N] [--seed S]
"""
import calendar
import collections
import decimal
import os
import shutil
import sys
import time

import sluice_e2e

KEYS = 101

JOB = """
CREATE TABLE IF NOT EXISTS gen (id BIGINT, ts TIMESTAMP(3), pad STRING,
  WATERMARK FOR ts AS ts - INTERVAL '61' SECOND) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}',
  'fields.ts.max-past' = '60 s', 'fields.pad.length' = '12');
CREATE TABLE IF NOT EXISTS agg_out (window_start TIMESTAMP(3), window_end TIMESTAMP(3), k BIGINT,
  n BIGINT, d BIGINT, s BIGINT, lo BIGINT, hi BIGINT, cents DECIMAL(38, 6), ids STRING)
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
CREATE VIEW IF NOT EXISTS windowed AS
  SELECT window_start, window_end, id, id % {keys} AS k, CAST(id AS DECIMAL(12, 0)) / 100 AS c
  FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts), INTERVAL '10' SECOND));
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'pipeline.name' = 'crash-agg';
INSERT INTO agg_out
SELECT window_start, window_end, k, COUNT(*), COUNT(DISTINCT id), SUM(id), MIN(id), MAX(id), SUM(c),
  LISTAGG(CAST(id AS STRING), ' ')
FROM windowed GROUP BY window_start, window_end, k;
"""


def reference(rows):
    """Per key: count, sum, min, max of the ids, and the exact sum of id / 100."""
    ref = {}
    for k in range(KEYS):
        ids = range(k if k else KEYS, rows + 1, KEYS)
        ref[k] = (len(ids), sum(ids), min(ids), max(ids),
                  sum(decimal.Decimal(i) for i in ids) / 100)
    return ref


def parse_ts(text):
    """'2026-01-01 00:00:10.000' -> epoch milliseconds (UTC)."""
    day, frac = text.split(".")
    return calendar.timegm(time.strptime(day, "%Y-%m-%d %H:%M:%S")) * 1000 + int(frac)


def check(rows_out, n_rows, t_start, t_end):
    """Problems found in the committed rows (an empty list: exactly once)."""
    problems = []
    seen = collections.Counter()
    per_key = collections.defaultdict(list)
    for r in rows_out:
        key = (r["window_start"], r["k"])
        seen[key] += 1
        ws, we = parse_ts(r["window_start"]), parse_ts(r["window_end"])
        if we - ws != 10000 or ws % 10000 != 0:
            problems.append("window %s - %s is not a 10 s tumbling window" %
                            (r["window_start"], r["window_end"]))
        if not (t_start - 130000 <= ws <= t_end + 10000):
            problems.append("window %s is outside the test's time" % r["window_start"])
        if r["d"] != r["n"]:
            problems.append("window %r: COUNT(DISTINCT id) %d != COUNT(*) %d" %
                            (key, r["d"], r["n"]))
        if len((r["ids"] or "").split()) != r["n"]:
            problems.append("window %r: LISTAGG lists %d ids, COUNT(*) is %d" %
                            (key, len((r["ids"] or "").split()), r["n"]))
        per_key[r["k"]].append(r)
    for key, n in seen.items():
        if n > 1:
            problems.append("window %r committed %d times" % (key, n))
    for k, (n, s, lo, hi, cents) in reference(n_rows).items():
        ws = per_key.get(k, [])
        got = (sum(r["n"] for r in ws), sum(r["s"] for r in ws),
               min((r["lo"] for r in ws), default=None), max((r["hi"] for r in ws), default=None),
               sum((decimal.Decimal(str(r["cents"])) for r in ws), decimal.Decimal(0)))
        if got != (n, s, lo, hi, cents):
            problems.append("k = %d: expected count %d, sum %d, min %d, max %d, cents %s; got %r"
                            % (k, n, s, lo, hi, cents, got))
        listed = sorted(int(i) for r in ws for i in (r["ids"] or "").split())
        if listed != list(range(k if k else KEYS, n_rows + 1, KEYS)):
            problems.append("k = %d: LISTAGG's ids over its windows are not its ids 1..N" % k)
    extra = set(per_key) - set(range(KEYS))
    if extra:
        problems.append("unexpected keys %r" % sorted(extra))
    return problems


def main():
    a, rnd, work = sluice_e2e.crash_setup("sluice-crashagg-", kills=24, rows=100000, seconds=10.0)
    data, out = os.path.join(work, "data"), os.path.join(work, "out")
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(rows=a.rows, rate=int(a.rows / a.seconds), out=out, keys=KEYS,
                           parallelism=a.parallelism))
    print("crash_agg_test: seed %d, parallelism %d, %d rows, work dir %s" %
          (a.seed, a.parallelism, a.rows, work))
    run = sluice_e2e.Runner(a.sluice, data, job, "crash-agg", out)
    t_start = int(time.time() * 1000)
    why, end_kills = sluice_e2e.crash_until_done(run, out, a.kills, rnd, "crash_agg_test")
    t_end = int(time.time() * 1000)
    if why:
        print(why)
        return 1
    got = sluice_e2e.committed_rows(out, parse_float=decimal.Decimal)
    problems = check(got, a.rows, t_start, t_end)
    why = sluice_e2e.check_parallelism(out, a.parallelism)
    if why:
        problems.append(why)
    print("crash_agg_test: %s, %d of them while output was in progress at the end; "
          "%d (window, k) rows committed, %d problems" %
          (run.summary(), end_kills, len(got), len(problems)))
    for pr in problems[:20]:
        print("  " + pr)
    ok = not problems
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("crash_agg_test: kept %s (seed %d)" % (work, a.seed))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
