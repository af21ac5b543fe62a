#!/usr/bin/env python3
"""crash_late_test.py — late rows kept exactly-once through SIGKILL.

The job of crash_window_test.py (a monitored directory of CSV click files
through a 10-second tumbling-window aggregation into the exactly-once
filesystem sink, checkpointing every 100 ms) with
'table.exec.late-rows.table' naming a second filesystem table: from file
LATE_FROM on, each file also holds two clicks an hour behind the others,
whose windows have long closed — late under any chunking of the input (the
first chunk of a run may span several files; it never reaches file
LATE_FROM). While the files are written the job is SIGKILLed and started
again: during the first half mostly between a checkpoint's decision and its
commit (each checkpoint pauses there), then at random moments. This script computes, from the files it wrote,
the windows (without the late clicks) and the late set, then reads both
tables back (visible files only): every window once and right, every late
click exactly once with its event time, its window and the row's columns.

--late-sink postgres keeps the late clicks in a PostgreSQL table instead,
exactly-once by two-phase commit (the `pg` server of the ctest fixture,
tests/postgres/tests.cmake; psql through tests/postgres/pg_util.py reads it
back), where RECONCILE looks for them.

Usage: crash_late_test.py --sluice PATH [--kills 10] [--files 30] [--late-sink postgres]
"""
import collections
import decimal
import json
import os
import shutil
import signal
import subprocess
import sys

import sluice_e2e

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "postgres"))

JOB = """
CREATE TABLE IF NOT EXISTS clicks (id BIGINT, campaign STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'csv',
        'source.monitor-interval' = '50 ms');
CREATE TABLE IF NOT EXISTS spend (window_start TIMESTAMP(3), campaign STRING, n BIGINT,
  total DECIMAL(38, 2), last_id BIGINT, last_ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
CREATE TABLE IF NOT EXISTS late_clicks (`row` STRING, event_time TIMESTAMP(3),
  window_start TIMESTAMP(3), window_end TIMESTAMP(3), `watermark` TIMESTAMP(3), job STRING,
  `operator` STRING, arrived_at TIMESTAMP_LTZ(3))
  WITH ({late_with});
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '1';
SET 'pipeline.name' = 'crash-late';
SET 'table.exec.late-rows.table' = 'late_clicks';
INSERT INTO spend
SELECT window_start, campaign, COUNT(*), SUM(amount), MAX(id), MAX(ts)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, campaign;
"""

BASE = 1767225600  # 2026-01-01 00:00:00 UTC
LATE_FROM = 8      # the first file with late clicks (a chunk holds at most 1024 rows: 5 files)

stamp = sluice_e2e.stamp


def file_name(k):
    return "clicks-%05d.csv" % k


def write_file(src, k, rows):
    """Write one file atomically (hidden name, then rename)."""
    sluice_e2e.write_atomic(src, file_name(k), ("%d,%s,%s,%s\n" % r for r in rows))


NAME = "crash_late_test"


def main():
    a, rnd, work = sluice_e2e.crash_setup(
        "sluice-crashlate-", kills=10, files=30,
        more=lambda ap: ap.add_argument("--late-sink", choices=("filesystem", "postgres"),
                                        default="filesystem"))
    src, out, late, data = (os.path.join(work, d) for d in ("src", "out", "late", "data"))
    os.makedirs(src)
    if a.late_sink == "postgres":
        import pg_util
        pg_util.execute('DROP TABLE IF EXISTS late_clicks; CREATE TABLE late_clicks ('
                        '"row" text, event_time timestamp(3), window_start timestamp(3), '
                        'window_end timestamp(3), "watermark" timestamp(3), job text, '
                        '"operator" text, arrived_at timestamptz(3))')
        late_with = ("'connector' = 'jdbc', 'url' = '%s', 'table-name' = 'late_clicks', "
                     "'username' = 'sluice', 'password' = 'sluice', "
                     "'sink.delivery-guarantee' = 'exactly-once', "
                     "'sink.transactional-id-prefix' = 'crash-late'" %
                     pg_util.jdbc_url(port=pg_util.port_of("pg")))
        read_late_table = read_late_pg
    else:
        late_with = "'connector' = 'filesystem', 'path' = '%s', 'format' = 'json'" % late
        read_late_table = lambda: sluice_e2e.committed_rows(late, parse_float=decimal.Decimal)
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(src=src, out=out, late_with=late_with))
    env = sluice_e2e.ENV
    print("%s: seed %d, work dir %s" % (NAME, a.seed, work))

    # The clicks, in event-time order: 200 per file, 50 ms apart; from file
    # LATE_FROM on two more an hour behind (late: their windows closed).
    expected = collections.defaultdict(lambda: [0, decimal.Decimal("0")])
    late_set = {}  # id -> (event time, window start, window end, campaign, amount)
    files, next_id, t = [], 1, BASE * 1000
    for k in range(a.files):
        rows = []
        for _ in range(200):
            t += 50
            campaign = rnd.choice("abc")
            amount = decimal.Decimal(rnd.randint(1, 999)) / 100
            rows.append((next_id, campaign, amount, stamp(t)))
            ws = t - t % 10000
            expected[(stamp(ws), campaign)][0] += 1
            expected[(stamp(ws), campaign)][1] += amount
            next_id += 1
        if k >= LATE_FROM:
            for _ in range(2):
                lt = t - 3600 * 1000 - rnd.randint(0, 60000)
                campaign = rnd.choice("abc")
                amount = decimal.Decimal(rnd.randint(1, 999)) / 100
                pos = rnd.randint(0, len(rows))
                rows.insert(pos, (next_id, campaign, amount, stamp(lt)))
                lw = lt - lt % 10000
                late_set[next_id] = (stamp(lt), stamp(lw), stamp(lw + 10000), campaign, amount)
                next_id += 1
        files.append(rows)
    closers = sluice_e2e.closing_files(a.files, 1, file_name)

    cmd = [a.sluice, "--data-dir", data, "-q", "-f", job]
    # The first half of the files and kills with every checkpoint pausing
    # after its decision (SLUICE_TEST_PAUSE, planner/session_run.c), before
    # the sinks commit it: most kills land there, where the restart must
    # commit the decided epoch of the late table (and not write it again).
    half = len(files) // 2
    paused = dict(env, SLUICE_TEST_PAUSE="seal:400")
    p, runs, kills, error = sluice_e2e.kill_loop(
        cmd, paused, files[:half], lambda i, rows: write_file(src, i, rows), a.kills // 2, rnd)
    if p is not None and not error:
        p.send_signal(signal.SIGKILL)
        p.communicate()
        kills += 1
    if not error:
        p, runs2, kills2, error = sluice_e2e.kill_loop(
            cmd, env, files[half:], lambda i, rows: write_file(src, half + i, rows),
            a.kills - kills, rnd)
        runs += runs2
        kills += kills2
    if error:
        print("%s: %s" % (NAME, error))
        return 1
    if p is None:
        runs += 1
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    for i, k in enumerate(closers):
        write_file(src, k, [(next_id + i, "z", decimal.Decimal("0.01"), stamp(t + 3600 * 1000))])
    want = sum(1 for _ in expected)
    error = sluice_e2e.stop_when(p, lambda: len(read_windows(out)) >= want and
                    len(read_late(read_late_table())[0]) >= len(late_set))
    if error:
        print("%s: %s" % (NAME, error))
        return 1
    got = read_windows(out)
    exp = {k: (v[0], v[1]) for k, v in expected.items()}
    missing = sorted(set(exp) - set(got))
    extra = sorted(set(got) - set(exp))
    wrong = sorted(k for k in set(exp) & set(got) if exp[k] != got[k])
    lgot, lbad = read_late(read_late_table())
    if a.late_sink == "postgres":
        left = pg_util.prepared_xacts("sluice:crash-late")
        if left:
            lbad.append("prepared transactions left: %r" % left)
    lmissing = sorted(set(late_set) - set(lgot))
    lextra = sorted(set(lgot) - set(late_set))
    lwrong = sorted(i for i in set(late_set) & set(lgot) if late_set[i] != lgot[i])
    print("%s: %d runs, %d SIGKILLs, %d clicks in %d files; %d windows expected, %d committed: "
          "%d missing, %d extra, %d wrong; %d late clicks, %d kept: %d missing, %d extra or "
          "doubled, %d wrong" %
          (NAME, runs, kills, sum(len(f) for f in files), len(files), len(exp), len(got),
           len(missing), len(extra), len(wrong), len(late_set), len(lgot), len(lmissing),
           len(lextra) + len(lbad), len(lwrong)))
    for k in (missing + extra + wrong)[:5]:
        print("  window %r: expected %r, got %r" % (k, exp.get(k), got.get(k)))
    for i in (lmissing + lextra + lwrong)[:5]:
        print("  late click %r: expected %r, got %r" % (i, late_set.get(i), lgot.get(i)))
    for b in lbad[:5]:
        print("  late table: %s" % b)
    ok = (not missing and not extra and not wrong and not lmissing and not lextra and not lwrong
          and not lbad and kills >= min(a.kills, 8) and len(late_set) > 0)
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("%s: kept %s (seed %d)" % (NAME, work, a.seed))
    return 0 if ok else 1


def read_windows(out):
    """Committed windows: visible files only; a window written twice fails."""
    got = {}
    for r in sluice_e2e.committed_rows(out, parse_float=decimal.Decimal):
        key = (r["window_start"], r["campaign"])
        if key in got:
            got[key] = ("written twice", "")
        else:
            got[key] = (r["n"], decimal.Decimal(str(r["total"])))
    return got


def read_late_pg():
    """The late table in PostgreSQL (psql), rows as dicts of text values."""
    import pg_util
    cols = ("row", "event_time", "window_start", "window_end", "watermark", "job", "operator",
            "arrived_at")
    rows = pg_util.query('SELECT "row", to_char(event_time, \'YYYY-MM-DD HH24:MI:SS.MS\'), '
                         'to_char(window_start, \'YYYY-MM-DD HH24:MI:SS.MS\'), '
                         'to_char(window_end, \'YYYY-MM-DD HH24:MI:SS.MS\'), '
                         'to_char("watermark", \'YYYY-MM-DD HH24:MI:SS.MS\'), job, "operator", '
                         'arrived_at::text FROM late_clicks')
    return [dict(zip(cols, r)) for r in rows]


def read_late(rows):
    """The committed late table's rows: id -> (event time, window, campaign,
    amount) from each row's columns; [problems] (a click twice, a wrong column)."""
    got, bad = {}, []
    for r in rows:
        row = json.loads(r["row"], parse_float=decimal.Decimal)
        i = row.get("id")
        if i in got:
            bad.append("click %r kept twice" % i)
        if r["job"] != "crash-late" or r["operator"] != "WindowAggregate":
            bad.append("click %r: job %r, operator %r" % (i, r["job"], r["operator"]))
        if r["watermark"] is None or r["watermark"] < r["window_end"]:
            bad.append("click %r: watermark %r, window end %r" % (i, r["watermark"],
                                                                 r["window_end"]))
        if r["arrived_at"] is None:
            bad.append("click %r: no arrival time" % i)
        got[i] = (r["event_time"], r["window_start"], r["window_end"], row.get("campaign"),
                  decimal.Decimal(str(row.get("amount"))))
    return got, bad


if __name__ == "__main__":
    sys.exit(main())
