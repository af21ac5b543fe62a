#!/usr/bin/env python3
"""crash_session_test.py — SESSION window aggregation through SIGKILL, every
session checked against sessions this script computes itself.

A job reads a monitored directory of CSV event files (id, k, v, ts) through a
SESSION window aggregation per key k with a 2 s gap — COUNT(*), SUM(v),
MIN(v), MAX(v) and LISTAGG of the ids (the operator keeps every row of an open
session) — into the exactly-once filesystem sink (JSON), checkpointing every
100 ms. The watermark is 4 s behind the largest event time. A writer thread
adds one file every 150 ms (1 s of event time each, so event time runs about
7 times faster than the wall clock) while the job is killed with SIGKILL 20+
times and started again with the same data directory:

- random kills, 0.15-0.6 s into a run; every third kill lands inside a
  checkpoint (sluice_e2e.kill_in_checkpoint);
- at the end one far-future event per reader task moves the watermark past
  every session, and a few kills land while the sessions' output is being
  written (in-progress part files the run made), before and during the
  checkpoint that commits it; the last run is stopped with SIGTERM once every
  session is committed.

The events are generated here, so this script knows every session in
advance. Per key: bursts of events 100-1400 ms apart, some short (1-3
events), some long (5-25 s of event time: 5-25 files, written over 0.75-4 s,
open across checkpoints and kills), separated by 2.6-8 s of silence (more
than the gap: separate sessions). A quarter of the silences are exactly 3 s
with a bridging event in their middle, 1.5 s from either side, which
arrives 2 s after its place in the stream: after the next burst's first
event, when both sessions already exist, so the operator must merge them
(with their rows). Other events arrive up to 1.5 s before their time's place
(out of order). No event is ever late: each is more than 4 s later than the
largest event time before it in the stream (checked below), so under any
interleaving of the reader tasks it is after the watermark. No two events of
a key are a gap apart to within 100 ms, so touching sessions never matter.

The check: the committed rows are exactly the sessions computed from the
events (per key, events sorted by time, split where two are more than 2 s
apart; a session is [first, last + 2 s)): each (k, window_start) exactly
once, with its window_end, count, sum, min, max and exactly its ids; nothing
else. --group-window runs the same aggregation in Flink's group-window form
(GROUP BY k, SESSION(ts, gap) with SESSION_START / SESSION_END). --rows runs
the SESSION TVF on its own (no aggregation): every event must be committed
exactly once, with its session's window_start and window_end.

Usage: crash_session_test.py --sluice PATH [--kills 20] [--files 80]
                             [--parallelism N] [--group-window | --rows] [--seed S]
"""
import collections
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import sluice_e2e

GAP = 2000        # session gap, ms
DELAY = 4000      # watermark delay, ms
KEYS = 40
FILE_MS = 1000    # event time per file
WRITE_EVERY = 0.15  # s between two files

JOB = """
CREATE TABLE IF NOT EXISTS ev (id BIGINT, k BIGINT, v INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '4' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'csv',
        'source.monitor-interval' = '50 ms');
CREATE TABLE IF NOT EXISTS sessions (k BIGINT, window_start TIMESTAMP(3),
  window_end TIMESTAMP(3), n BIGINT, s BIGINT, lo INT, hi INT, ids STRING)
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'pipeline.name' = 'crash-session';
"""

TVF = """INSERT INTO sessions
SELECT k, window_start, window_end, COUNT(*), SUM(v), MIN(v), MAX(v),
  LISTAGG(CAST(id AS STRING), ' ')
FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY k, window_start, window_end;
"""

ROWS = """CREATE TABLE IF NOT EXISTS session_rows (id BIGINT, k BIGINT, window_start TIMESTAMP(3),
  window_end TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
INSERT INTO session_rows SELECT id, k, window_start, window_end
FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '2' SECOND));
"""

GROUP_WINDOW = """INSERT INTO sessions
SELECT k, SESSION_START(ts, INTERVAL '2' SECOND), SESSION_END(ts, INTERVAL '2' SECOND),
  COUNT(*), SUM(v), MIN(v), MAX(v), LISTAGG(CAST(id AS STRING), ' ')
FROM ev GROUP BY k, SESSION(ts, INTERVAL '2' SECOND);
"""

BASE = 1767225600 * 1000  # 2026-01-01 00:00:00 UTC, ms


stamp = sluice_e2e.stamp


def file_name(i):
    return "ev-%05d.csv" % i


def write_file(src, i, rows):
    """Write one file atomically (hidden name, then rename)."""
    sluice_e2e.write_atomic(src, file_name(i), ("%d,%d,%d,%s\n" % (r[0], r[1], r[2], stamp(r[3]))
                                                for r in rows))


def key_events(rnd, span):
    """Event times (ms from BASE) of one key and the bridging ones among them."""
    times, bridges = [], set()
    t = rnd.randrange(3000)
    while True:
        n = rnd.randrange(1, 4) if rnd.random() < 0.5 else None
        end = t + rnd.randrange(5000, 25000) if n is None else None
        burst = [t]
        while (n is not None and len(burst) < n) or (end is not None and burst[-1] < end):
            burst.append(burst[-1] + rnd.randrange(100, 1400))
        if burst[-1] >= span:
            break
        times.extend(burst)
        last = burst[-1]
        if rnd.random() < 0.25:
            times.append(last + 1500)
            bridges.add(last + 1500)
            t = last + 3000
        else:
            t = last + rnd.randrange(2600, 8000)
    return times, bridges


def generate(rnd, n_files):
    """The stream (a list of files of rows (id, k, v, ts)) and its sessions."""
    span = n_files * FILE_MS
    events = []  # (place, k, ts)
    n_bridges = 0
    for k in range(KEYS):
        times, bridges = key_events(rnd, span - 2500)
        n_bridges += len(bridges)
        for ts in times:
            # A bridge arrives 2 s after its time's place (after the next
            # session's first event); the others up to 1.5 s before theirs.
            place = ts + 2000 if ts in bridges else ts - rnd.randrange(1500)
            events.append((max(place, 0), k, ts))
    events.sort()
    files = [[] for _ in range(n_files)]
    high = None
    for i, (place, k, ts) in enumerate(events):
        if high is not None and ts <= high - DELAY + 100:
            raise SystemExit("generator bug: event %d could be late" % i)
        high = ts if high is None else max(high, ts)
        files[min(place // FILE_MS, n_files - 1)].append(
            (i + 1, k, rnd.randrange(-500, 500), BASE + ts))
    # the reference: per key, split where two events are more than GAP apart
    rows = [r for f in files for r in f]
    by_key = collections.defaultdict(list)
    for r in rows:
        by_key[r[1]].append(r)
    sessions = {}
    long_ones = 0
    for k, rs in by_key.items():
        rs.sort(key=lambda r: r[3])
        cur = [rs[0]]
        for prev, r in zip(rs, rs[1:]):
            d = r[3] - prev[3]
            if GAP - 100 <= d <= GAP + 100:
                raise SystemExit("generator bug: two events of key %d a gap apart" % k)
            if d > GAP:
                sessions[(k, stamp(cur[0][3]))] = session_of(cur)
                cur = []
            cur.append(r)
        sessions[(k, stamp(cur[0][3]))] = session_of(cur)
    for (_, _), s in sessions.items():
        if s[1] >= 5:
            long_ones += 1
    return files, sessions, n_bridges, long_ones, len(rows)


def session_of(rs):
    """(window_end, n, sum, min, max, sorted ids) of one session's rows."""
    vs = [r[2] for r in rs]
    return (stamp(rs[-1][3] + GAP), len(rs), sum(vs), min(vs), max(vs),
            sorted(r[0] for r in rs))


def check_rows(rows_out, sessions):
    """--rows: each event exactly once, with its session's bounds."""
    exp = {}
    for (k, ws), (we, _, _, _, _, ids) in sessions.items():
        for i in ids:
            exp[i] = (k, ws, we)
    problems = []
    seen = collections.Counter()
    for r in rows_out:
        seen[r["id"]] += 1
        got = (r["k"], r["window_start"], r["window_end"])
        if exp.get(r["id"]) != got:
            problems.append("event %r: expected %r, got %r" % (r["id"], exp.get(r["id"]), got))
    for i, n in seen.items():
        if n > 1:
            problems.append("event %r committed %d times" % (i, n))
    missing = sorted(set(exp) - set(seen))
    if missing:
        problems.append("%d events missing, e.g. %r" % (len(missing), missing[:10]))
    return problems


def check(rows_out, sessions):
    problems = []
    seen = collections.Counter()
    for r in rows_out:
        key = (r["k"], r["window_start"])
        seen[key] += 1
        got = (r["window_end"], r["n"], r["s"], r["lo"], r["hi"],
               sorted(int(i) for i in (r["ids"] or "").split()))
        exp = sessions.get(key)
        if exp is None:
            problems.append("session %r committed but not expected: %r" % (key, got))
        elif got != exp:
            problems.append("session %r: expected %r, got %r" % (key, exp, got))
    for key, n in seen.items():
        if n > 1:
            problems.append("session %r committed %d times" % (key, n))
    missing = sorted(set(sessions) - set(seen))
    for key in missing[:10]:
        problems.append("session %r missing: %r" % (key, sessions[key]))
    if len(missing) > 10:
        problems.append("... %d sessions missing in all" % len(missing))
    return problems


class Writer(threading.Thread):
    """Writes the files one every WRITE_EVERY seconds, whatever the job does."""

    def __init__(self, src, files):
        super().__init__(daemon=True)
        self.src, self.files = src, files

    def run(self):
        for i, rows in enumerate(self.files):
            write_file(self.src, i, rows)
            time.sleep(WRITE_EVERY)


NAME = "crash_session_test"


def main():
    def more(ap):
        ap.add_argument("--group-window", action="store_true")
        ap.add_argument("--rows", action="store_true")
    a, rnd, work = sluice_e2e.crash_setup("sluice-crashsession-", kills=20, files=80, more=more)
    src, out, data = (os.path.join(work, d) for d in ("src", "out", "data"))
    os.makedirs(src)
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(src=src, out=out, parallelism=a.parallelism))
        f.write(ROWS.format(out=out) if a.rows else GROUP_WINDOW if a.group_window else TVF)
    form = "TVF rows" if a.rows else "group window" if a.group_window else "TVF"
    print("%s: seed %d, parallelism %d, %s, work dir %s" % (NAME, a.seed, a.parallelism, form, work))
    per_reader = collections.Counter(sluice_e2e.subtask_of(file_name(i), a.parallelism)
                                     for i in range(a.files))
    if len(per_reader) < a.parallelism or min(per_reader.values()) < 3:
        print("%s: the %d files do not give every reader task files: %r" %
              (NAME, a.files, dict(per_reader)))
        return 1
    files, sessions, n_bridges, long_ones, n_rows = generate(rnd, a.files)
    if n_bridges == 0 or long_ones == 0:
        print("%s: the seed gave no bridging event or no long session" % NAME)
        return 1

    run = sluice_e2e.Runner(a.sluice, data, job, "crash-session", out)
    writer = Writer(src, files)
    writer.start()
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and (run.kills < a.kills or writer.is_alive()):
        p = run.start()
        if run.kills % 3 == 2:
            sluice_e2e.kill_in_checkpoint(p, run.job_dir, rnd.uniform(0.3, 0.8))
        else:
            try:
                p.wait(timeout=rnd.uniform(0.15, 0.6))
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
        p.wait()
        if p.returncode != -signal.SIGKILL:
            _, err = p.communicate()
            print("%s: run %d ended by itself (status %d):\n%s" %
                  (NAME, run.runs, p.returncode, err.decode("utf-8", "replace")))
            return 1
        run.killed(p)
    writer.join()
    if run.kills < a.kills:
        print("%s: only %d kills in time" % (NAME, run.kills))
        return 1

    # The end: a far-future event per reader task (keys of their own, whose
    # sessions never close) moves the watermark past every session.
    last_id = n_rows
    for j, i in enumerate(sluice_e2e.closing_files(a.files, a.parallelism, file_name)):
        write_file(src, i, [(last_id + 1 + j, 1000 + j, 0, BASE + (a.files + 3600) * FILE_MS)])
    end_kills = 0
    for _ in range(3):
        before = set(sluice_e2e.in_progress_files(out))
        p = run.start()
        until = time.monotonic() + 5
        while time.monotonic() < until and p.poll() is None:
            if set(sluice_e2e.in_progress_files(out)) - before:
                end_kills += 1
                break
            time.sleep(0.0005)
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
        p.wait()
        if p.returncode != -signal.SIGKILL:
            _, err = p.communicate()
            print("%s: run %d ended by itself (status %d):\n%s" %
                  (NAME, run.runs, p.returncode, err.decode("utf-8", "replace")))
            return 1
        run.killed(p)
    # The last run: until every session is committed and it sealed a
    # checkpoint of its own, then SIGTERM (a savepoint).
    p = run.start()
    before = sealed_checkpoints(run.job_dir)
    want = n_rows if a.rows else len(sessions)
    error = sluice_e2e.stop_when(p, lambda: len(sluice_e2e.committed_rows(out)) >= want and
                    sealed_checkpoints(run.job_dir) - before)
    if error:
        print("%s: %s" % (NAME, error))
        return 1
    got = sluice_e2e.committed_rows(out)
    problems = check_rows(got, sessions) if a.rows else check(got, sessions)
    why = sluice_e2e.check_parallelism(out, a.parallelism)
    if why:
        problems.append(why)
    print("%s: %s, %d of them while output was in progress at the end; %d events in %d files, "
          "%d sessions (%d of 5+ events, %d bridging events), %d rows committed, %d problems" %
          (NAME, run.summary(), end_kills, n_rows, len(files), len(sessions), long_ones, n_bridges,
           len(got), len(problems)))
    for pr in problems[:20]:
        print("  " + pr)
    ok = not problems
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("%s: kept %s (seed %d)" % (NAME, work, a.seed))
    return 0 if ok else 1


def sealed_checkpoints(job_dir):
    """Names of the job's chk-N directories that have their _metadata."""
    if not os.path.isdir(job_dir):
        return set()
    return {n for n in os.listdir(job_dir)
            if n.startswith("chk-") and os.path.exists(os.path.join(job_dir, n, "_metadata"))}


if __name__ == "__main__":
    sys.exit(main())
