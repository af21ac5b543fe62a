#!/usr/bin/env python3
"""crash_datagen_time_test.py — datagen's event time moves with its rows and
is replayed exactly through SIGKILL, checked by an independent reader.

The job reads a datagen table (a sequence id = 1..N, a random TIMESTAMP(3) ts
with max-past 0, 1000 rows a second) through a 1-second tumbling window
(COUNT, MIN, SUM of id) into the exactly-once filesystem sink, checkpointing
every 100 ms, and is killed with SIGKILL again and again until it finishes.

datagen's documented rule is that row i (from 0) has the instant start + i /
rate: at 1000 rows a second, ts of id is B + (id - 1) ms, B the job's start
in whole milliseconds. So the windows are determined by B alone: the first
window's count gives B modulo a second, and this script computes every
window's count, minimum and sum from the sequence 1..N and compares them with
the committed rows: each window exactly once, every value right. A restore
that restarted time (or replayed other timestamps) would put ids in other
windows; a frozen time would put them all in one. B must lie within the
test's run.

Usage: crash_datagen_time_test.py --sluice PATH [--kills 20] [--rows 12000]
                                  [--parallelism N] [--seed S]
"""
import calendar
import collections
import os
import shutil
import sys
import time

import sluice_e2e

RATE = 1000  # rows per second: one millisecond per row

JOB = """
CREATE TABLE IF NOT EXISTS gen (id BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');
CREATE TABLE IF NOT EXISTS per_second (window_start TIMESTAMP(3), n BIGINT, lo BIGINT, s BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'pipeline.name' = 'crash-datagen-time';
INSERT INTO per_second
SELECT window_start, COUNT(*), MIN(id), SUM(id)
FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
"""


def parse_ts(text):
    """'2026-01-01 00:00:10.000' -> epoch milliseconds (UTC)."""
    day, _, frac = text.partition(".")
    return calendar.timegm(time.strptime(day, "%Y-%m-%d %H:%M:%S")) * 1000 + int(frac or 0)


def reference(b_ms, rows):
    """{window start (ms): (count, min id, sum of ids)} when id has ts b_ms + id - 1."""
    ref = {}
    for i in range(1, rows + 1):
        ws = (b_ms + i - 1) // 1000 * 1000
        n, lo, s = ref.get(ws, (0, i, 0))
        ref[ws] = (n + 1, min(lo, i), s + i)
    return ref


def check(rows_out, n_rows, t_start, t_end):
    problems = []
    seen = collections.Counter(parse_ts(r["window_start"]) for r in rows_out)
    for ws, n in seen.items():
        if n > 1:
            problems.append("window %d committed %d times" % (ws, n))
    got = {parse_ts(r["window_start"]): (r["n"], r["lo"], r["s"]) for r in rows_out}
    if not got:
        return ["no window was committed"]
    first = min(got)
    b_ms = first + 1000 - got[first][0]  # the first window holds ids 1..n
    if not t_start - 1000 <= b_ms <= t_end:
        problems.append("the start %d is outside the test's run [%d, %d]" % (b_ms, t_start, t_end))
    ref = reference(b_ms, n_rows)
    if got != ref:
        missing = sorted(set(ref) - set(got))
        extra = sorted(set(got) - set(ref))
        wrong = sorted(w for w in set(ref) & set(got) if ref[w] != got[w])
        problems.append("windows differ from the reference (start %d): %d missing %r, %d extra %r, "
                        "%d wrong %r" % (b_ms, len(missing), missing[:5], len(extra), extra[:5],
                                         len(wrong), [(w, ref[w], got[w]) for w in wrong[:5]]))
    return problems


def main():
    a, rnd, work = sluice_e2e.crash_setup("sluice-dgtime-", kills=20, rows=12000)
    data, out = os.path.join(work, "data"), os.path.join(work, "out")
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(rows=a.rows, rate=RATE, out=out, parallelism=a.parallelism))
    print("crash_datagen_time_test: seed %d, parallelism %d, %d rows, work dir %s" %
          (a.seed, a.parallelism, a.rows, work))
    run = sluice_e2e.Runner(a.sluice, data, job, "crash-datagen-time", out)
    t_start = int(time.time() * 1000)
    why, end_kills = sluice_e2e.crash_until_done(run, out, a.kills, rnd, "crash_datagen_time_test")
    t_end = int(time.time() * 1000)
    if why:
        print(why)
        return 1
    got = sluice_e2e.committed_rows(out)
    problems = check(got, a.rows, t_start, t_end)
    why = sluice_e2e.check_parallelism(out, a.parallelism)
    if why:
        problems.append(why)
    print("crash_datagen_time_test: %s; %d windows committed, %d problems" %
          (run.summary(), len(got), len(problems)))
    for pr in problems[:20]:
        print("  " + pr)
    if problems:
        print("crash_datagen_time_test: kept %s (seed %d)" % (work, a.seed))
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
