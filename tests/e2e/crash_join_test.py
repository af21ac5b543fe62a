#!/usr/bin/env python3
"""crash_join_test.py — exactly-once through SIGKILL for a streaming join of
two datagen tables, checked by an independent reader.

Two rate-limited datagen tables, a (ids 1..N) and b (ids 1..N), are joined
on a.id % K = b.id % K (a regular inner join: both sides' rows stay in the
join's state; with --interval also on the sides' event times, id * 10 ms,
within 2 s of each other: an interval join whose state the watermarks, 1 s
behind, clean as the ids grow) and
written into the exactly-once filesystem sink (JSON), checkpointing every
100 ms. The job is killed with SIGKILL 20+ times (every third kill inside a
checkpoint, a few at the end while the output is being committed) and
started again with the same data directory until it finishes.

The reference is computed here, not by Sluice: every pair (x, y) of ids
with x % K = y % K (and |x - y| <= 200 for --interval) must be committed
exactly once, with each side's pad
column equal to what that side's row carries (checked by the pair's own
ids: pad = 'a<id>' / 'b<id>'), and nothing else.

--window: a FULL OUTER window join of both tables' TUMBLE windows of 1 s
(ids 100w .. 100w + 99 in window w) on a.id % K = b.id % K with the residual
condition b.id % 3 <> 0: every such pair of one window once, every row of
either side without a partner in its window once, padded with NULLs (each
window's rows go out when the watermark passes its end; nothing retracted).

--parallelism N runs N reader tasks per table, N join tasks (hashed by the
key) and N sink instances.

--interval-window: the interval join (a.id % K = b.id % K, a.ts within 1 s
of b.ts, watermarks at the times) into a TUMBLE window aggregation of 1 s
over a.ts (its time attribute kept by the join): count, min, max of a.id
and sum of b.id per window, each window committed once with exactly the
values computed here. b is generated at half a's rate, so most pairs are
joined when their b row arrives, up to 1 s behind the watermark: only the
join's watermark hold-back (max(-lower, upper) = 1 s) keeps them in their
windows.

--lookup: a LEFT lookup join (FOR SYSTEM_TIME AS OF a PROCTIME() column)
of a against a filesystem table written by the test (see LOOKUP_JOB): each
row of a committed exactly once, with its key's row or NULLs.

Usage: crash_join_test.py --sluice PATH [--kills 24] [--rows 20000] [--keys 2000]
                          [--seconds 8] [--parallelism N] [--interval | --temporal |
                          --window | --lookup | --interval-window] [--seed S]
"""
import collections
import os
import shutil
import sys

import sluice_e2e

JOB = """
CREATE TABLE IF NOT EXISTS a (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 10, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');
CREATE TABLE IF NOT EXISTS b (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 10, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');
CREATE TABLE IF NOT EXISTS joined (x BIGINT, y BIGINT, pa STRING, pb STRING)
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'pipeline.name' = 'crash-join';
INSERT INTO joined
SELECT a.id, b.id, 'a' || CAST(a.id AS STRING), 'b' || CAST(b.id AS STRING)
FROM a, b WHERE a.id % {keys} = b.id % {keys}{interval};
"""

# Event time is id * 10 ms, so the bounds keep pairs whose ids are at most
# SPAN apart, and the watermarks (1 s behind) clean the state as ids grow.
SPAN = 200
INTERVAL = " AND a.ts BETWEEN b.ts - INTERVAL '2' SECOND AND b.ts + INTERVAL '2' SECOND"

# --temporal: b is a versioned table (PRIMARY KEY id, version time id * 30 ms
# + 15 ms); a row of a (time id * 10 ms) joins b's row id = a.id / 3 when that
# version is valid at its time — exactly when a.id % 3 = 2 — and is padded
# with NULLs otherwise (LEFT; also a.id = 2, as b has no id 0).
TEMPORAL_JOB = """
CREATE TABLE IF NOT EXISTS a (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 10, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');
CREATE TABLE IF NOT EXISTS b (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 30 + 15, 3),
  PRIMARY KEY (id) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');
CREATE TABLE IF NOT EXISTS joined (x BIGINT, y BIGINT, pa STRING, pb STRING)
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'pipeline.name' = 'crash-join';
INSERT INTO joined
SELECT a.id, r.id, 'a' || CAST(a.id AS STRING), 'b' || CAST(r.id AS STRING)
FROM a LEFT JOIN b FOR SYSTEM_TIME AS OF a.ts AS r ON a.id / 3 = r.id;
"""

# --lookup: a lookup join (FOR SYSTEM_TIME AS OF a processing-time attribute)
# against a filesystem table written here: keys 0..K-1 except multiples of 5,
# looked up by a.id % (K + K / 4) (some keys beyond the table), LEFT.
LOOKUP_JOB = """
CREATE TABLE IF NOT EXISTS a (id BIGINT, pt AS PROCTIME()) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');
CREATE TABLE IF NOT EXISTS d (k BIGINT, pad STRING)
  WITH ('connector' = 'filesystem', 'path' = '{dim}', 'format' = 'csv');
CREATE TABLE IF NOT EXISTS joined (x BIGINT, y BIGINT, pa STRING, pb STRING)
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'pipeline.name' = 'crash-join';
INSERT INTO joined
SELECT a.id, r.k, 'a' || CAST(a.id AS STRING), r.pad
FROM a LEFT JOIN d FOR SYSTEM_TIME AS OF a.pt AS r ON r.k = a.id % {mod};
"""


def lookup_dim(path, keys):
    with open(path, "w") as f:
        for k in range(keys):
            if k % 5:
                f.write("%d,b%d\n" % (k, k))


def check_lookup(rows_out, n, keys):
    """Problems in a lookup join's committed rows."""
    problems = []
    mod = keys + keys // 4
    seen = collections.Counter(r["x"] for r in rows_out)
    for r in rows_out:
        x = r["x"]
        k = x % mod
        want = k if k < keys and k % 5 else None
        if r["y"] != want or r["pa"] != "a%d" % x or r["pb"] != (None if want is None else "b%d" % k):
            problems.append("row %r: expected y = %r" % (r, want))
    for x, c in seen.items():
        if c > 1:
            problems.append("left row %d committed %d times" % (x, c))
    missing = [x for x in range(1, n + 1) if x not in seen]
    if missing:
        problems.append("%d left rows missing, e.g. %r" % (len(missing), missing[:5]))
    return problems


WINDOW_JOB = """
CREATE TABLE IF NOT EXISTS a (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 10, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');
CREATE TABLE IF NOT EXISTS b (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 10, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');
CREATE TABLE IF NOT EXISTS joined (x BIGINT, y BIGINT, pa STRING, pb STRING)
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'pipeline.name' = 'crash-join';
INSERT INTO joined
SELECT l.id, r.id, 'a' || CAST(l.id AS STRING), 'b' || CAST(r.id AS STRING)
FROM (SELECT * FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL '1' SECOND))) l
FULL JOIN (SELECT * FROM TABLE(TUMBLE(TABLE b, DESCRIPTOR(ts), INTERVAL '1' SECOND))) r
ON l.window_start = r.window_start AND l.window_end = r.window_end
AND l.id % {keys} = r.id % {keys} AND r.id % 3 <> 0;
"""


def window_reference(n, keys):
    """The rows a FULL window join must commit: (x, y), (x, None), (None, y)."""
    want = collections.Counter()
    for w in range(0, n // 100 + 1):
        ids = [i for i in range(max(1, 100 * w), min(n, 100 * w + 99) + 1)]
        matched_b = set()
        for x in ids:
            ys = [y for y in ids if y % keys == x % keys and y % 3 != 0]
            for y in ys:
                want[(x, y)] += 1
                matched_b.add(y)
            if not ys:
                want[(x, None)] += 1
        for y in ids:
            if y not in matched_b:
                want[(None, y)] += 1
    return want


def check_window(rows_out, n, keys):
    """Problems in a window join's committed rows."""
    problems = []
    got = collections.Counter()
    for r in rows_out:
        x, y = r["x"], r["y"]
        got[(x, y)] += 1
        if r["pa"] != (None if x is None else "a%d" % x) or \
           r["pb"] != (None if y is None else "b%d" % y):
            problems.append("row %r carries the wrong pads" % (r,))
    want = window_reference(n, keys)
    for k in sorted(set(got) | set(want), key=lambda p: (p[0] or 0, p[1] or 0)):
        if got[k] != want[k]:
            problems.append("row %r committed %d times, expected %d" % (k, got[k], want[k]))
    return problems


def check_temporal(rows_out, n):
    """Problems in a temporal join's committed rows."""
    problems = []
    seen = collections.Counter(r["x"] for r in rows_out)
    for r in rows_out:
        x, y = r["x"], r["y"]
        want = x // 3 if x % 3 == 2 and x >= 3 else None  # b's ids start at 1
        if y != want or r["pa"] != "a%d" % x or r["pb"] != (None if want is None else "b%d" % y):
            problems.append("row %r: expected y = %r" % (r, want))
    for x, c in seen.items():
        if c > 1:
            problems.append("left row %d committed %d times" % (x, c))
    missing = [x for x in range(1, n + 1) if x not in seen]
    if missing:
        problems.append("%d left rows missing, e.g. %r" % (len(missing), missing[:5]))
    return problems


INTERVAL_WINDOW_JOB = """
CREATE TABLE IF NOT EXISTS a (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 10, 3),
  WATERMARK FOR ts AS ts) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');
CREATE TABLE IF NOT EXISTS b (id BIGINT, ts AS TO_TIMESTAMP_LTZ(id * 10, 3),
  WATERMARK FOR ts AS ts) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{half_rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');
CREATE TABLE IF NOT EXISTS counts (lo BIGINT, hi BIGINT, c BIGINT, sy BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'pipeline.name' = 'crash-join';
CREATE TEMPORARY VIEW pairs AS SELECT a.id AS x, b.id AS y, a.ts FROM a, b
WHERE a.id % {keys} = b.id % {keys}
  AND a.ts BETWEEN b.ts - INTERVAL '1' SECOND AND b.ts + INTERVAL '1' SECOND;
INSERT INTO counts
SELECT MIN(x), MAX(x), COUNT(*), SUM(y)
FROM TABLE(TUMBLE(TABLE pairs, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end;
"""


def check_interval_window(rows_out, n, keys):
    """Problems in the window counts over the interval join."""
    want = {}
    for x in range(1, n + 1):
        for y in range(max(1, x - 100), min(n, x + 100) + 1):
            if x % keys == y % keys:
                lo, hi, c, sy = want.get(x // 100, (x, x, 0, 0))
                want[x // 100] = (min(lo, x), max(hi, x), c + 1, sy + y)
    problems = []
    got = collections.Counter()
    for r in rows_out:
        w = r["lo"] // 100
        got[w] += 1
        if (r["lo"], r["hi"], r["c"], r["sy"]) != want.get(w):
            problems.append("window %d: got %r, expected %r" % (w, r, want.get(w)))
    for w in sorted(set(want) | set(got)):
        if got[w] != 1:
            problems.append("window %d committed %d times" % (w, got[w]))
    return problems


def matches(x, y, keys, span):
    return x % keys == y % keys and (span is None or abs(x - y) <= span)


def check(rows_out, n, keys, span):
    """Problems in the committed rows (an empty list: exactly once)."""
    problems = []
    seen = collections.Counter()
    for r in rows_out:
        x, y = r["x"], r["y"]
        seen[(x, y)] += 1
        if not matches(x, y, keys, span):
            problems.append("pair (%d, %d) does not satisfy the join condition" % (x, y))
        if r["pa"] != "a%d" % x or r["pb"] != "b%d" % y:
            problems.append("pair (%d, %d) carries %r, %r" % (x, y, r["pa"], r["pb"]))
    for pair, c in seen.items():
        if c > 1:
            problems.append("pair %r committed %d times" % (pair, c))
    expected = 0
    for x in range(1, n + 1):
        lo = 1 if span is None else max(1, x - span)
        hi = n if span is None else min(n, x + span)
        first = lo + ((x - lo) % keys)
        expected += len(range(first, hi + 1, keys))
    missing = expected - len(seen)
    if missing:
        # name a few
        shown = 0
        for x in range(1, n + 1):
            for y in range(x % keys or keys, n + 1, keys):
                if matches(x, y, keys, span) and (x, y) not in seen:
                    problems.append("pair (%d, %d) is missing" % (x, y))
                    shown += 1
                    if shown >= 5:
                        break
            if shown >= 5:
                break
        problems.append("%d pairs committed, %d expected" % (len(seen), expected))
    return problems


def main():
    def more(ap):
        ap.add_argument("--keys", type=int, default=2000)
        ap.add_argument("--interval", action="store_true")
        ap.add_argument("--temporal", action="store_true")
        ap.add_argument("--window", action="store_true")
        ap.add_argument("--lookup", action="store_true")
        ap.add_argument("--interval-window", action="store_true")
        ap.add_argument("--self", action="store_true")
    a, rnd, work = sluice_e2e.crash_setup("sluice-crashjoin-", kills=24, rows=20000, seconds=8.0, more=more)
    data, out = os.path.join(work, "data"), os.path.join(work, "out")
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        job_text = (LOOKUP_JOB if a.lookup else TEMPORAL_JOB if a.temporal
                    else WINDOW_JOB if a.window
                    else INTERVAL_WINDOW_JOB if a.interval_window else JOB)
        dim = os.path.join(work, "dim.csv")
        if a.lookup:
            lookup_dim(dim, a.keys)
        text = job_text.format(rows=a.rows, rate=int(a.rows / a.seconds),
                               half_rate=max(1, int(a.rows / a.seconds / 2)), out=out, keys=a.keys,
                               parallelism=a.parallelism, dim=dim, mod=a.keys + a.keys // 4,
                               interval=INTERVAL if a.interval else "")
        if a.self:  # b is a again: one source feeds both sides (scan reuse)
            text = text.replace("FROM a, b WHERE", "FROM a, a AS b WHERE")
            text = text.replace("TUMBLE(TABLE b,", "TUMBLE(TABLE a,")
            assert "FROM a, a AS b" in text or "TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL '1' SECOND))) r" in text
        f.write(text)
    kind = (", self-" if a.self else ", ") + (
            "interval join" if a.interval else "temporal join" if a.temporal
            else "window join" if a.window else "lookup join" if a.lookup
            else "interval join -> window aggregation" if a.interval_window else "join")
    print("crash_join_test: seed %d, parallelism %d, %d rows per side, %d keys%s, work dir %s" %
          (a.seed, a.parallelism, a.rows, a.keys, kind, work))
    run = sluice_e2e.Runner(a.sluice, data, job, "crash-join", out)
    why, end_kills = sluice_e2e.crash_until_done(run, out, a.kills, rnd, "crash_join_test")
    if why:
        print(why)
        return 1
    if a.self:  # the checkpoints' layout names the shared source
        shared = False
        for root, _, files in os.walk(data):
            for name in files:
                try:
                    with open(os.path.join(root, name), "rb") as lf:
                        shared = shared or b"(source of input 0)" in lf.read()
                except OSError:
                    pass
        if not shared:
            print("crash_join_test: FAIL: no checkpoint of the self-join reads one shared source")
            return 1
    got = sluice_e2e.committed_rows(out)
    problems = (check_lookup(got, a.rows, a.keys) if a.lookup
                else check_interval_window(got, a.rows, a.keys) if a.interval_window
                else check_temporal(got, a.rows) if a.temporal
                else check_window(got, a.rows, a.keys) if a.window
                else check(got, a.rows, a.keys, SPAN if a.interval else None))
    why = sluice_e2e.check_parallelism(out, a.parallelism)
    if why:
        problems.append(why)
    print("crash_join_test: %s, %d of them while output was in progress at the end; "
          "%d rows committed, %d problems" % (run.summary(), end_kills, len(got), len(problems)))
    for pr in problems[:20]:
        print("  " + pr)
    ok = not problems
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("crash_join_test: kept %s (seed %d)" % (work, a.seed))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
