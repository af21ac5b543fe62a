#!/usr/bin/env python3
"""crash_conflict_test.py — deduplication conflicts kept exactly-once through SIGKILL.

A job reads a monitored directory of CSV click files and keeps each event
id's first click (ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts) = 1, the
watermark 2 s behind) into the exactly-once filesystem sink, with
'table.exec.deduplicate.conflict-table' naming a second filesystem table,
checkpointing every 100 ms. Some clicks come again 0.5-1.25 s later in the
stream: as a producer's retry (the identical row: silent) or with another
amount, or another amount and a later time (a conflict). A repeat is never
earlier than its click and never behind the watermark, so the kept click
is the first whether the repeat meets it still waiting for the watermark
(a candidate, compared whole) or already emitted (compared with its kept
row). While the files are written the job is SIGKILLed at random moments
and started again. This script computes, from the files it wrote, the
ledger (one row per id, the first click) and the conflicts (each differing
repeat once, with the first click as the stored row), then reads both
tables back (visible files only) and SHOW JOBS: every id once and right,
every conflict exactly once with both versions and its event time, no
identical retry recorded, and SHOW JOBS' conflicts equal to the reference.

Usage: crash_conflict_test.py --sluice PATH [--kills 10] [--files 30]
"""
import collections
import decimal
import json
import os
import shutil
import subprocess
import sys

import sluice_e2e

JOB = """
CREATE TABLE IF NOT EXISTS clicks (id BIGINT, campaign STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'csv',
        'source.monitor-interval' = '50 ms');
CREATE TABLE IF NOT EXISTS ledger (id BIGINT, campaign STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
CREATE TABLE IF NOT EXISTS click_conflicts (conflicting_row STRING, stored_row STRING,
  conflict_key STRING, event_time TIMESTAMP(3), job STRING, `operator` STRING,
  arrived_at TIMESTAMP_LTZ(3))
  WITH ('connector' = 'filesystem', 'path' = '{conf}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '1';
SET 'pipeline.name' = 'crash-conflict';
SET 'table.exec.deduplicate.conflict-table' = 'click_conflicts';
INSERT INTO ledger
SELECT id, campaign, amount, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts ASC) AS rn FROM clicks)
WHERE rn = 1;
"""

BASE = 1767225600  # 2026-01-01 00:00:00 UTC
NAME = "crash_conflict_test"
stamp = sluice_e2e.stamp


def file_name(k):
    return "clicks-%05d.csv" % k


def write_file(src, k, rows):
    sluice_e2e.write_atomic(src, file_name(k), ("%d,%s,%s,%s\n" % r for r in rows))


def make_stream(rnd, nfiles):
    """The clicks file by file, the ledger (id -> row) and the conflicts
    (a Counter of (id, stored row, conflicting row))."""
    stream, origs, t, next_id = [], [], BASE * 1000, 1
    for _ in range(nfiles * 180):
        t += 50
        origs.append((next_id, rnd.choice("abc"), decimal.Decimal(rnd.randint(1, 999)) / 100, t))
        stream.append(origs[-1])
        next_id += 1
        # A repeat of a click 10-25 clicks (0.5-1.25 s) back: never earlier
        # than it, never behind the watermark (2 s behind the newest click).
        if len(origs) > 25 and rnd.random() < 0.2:
            o = origs[-rnd.randint(10, 25)]
            kind = rnd.random()
            if kind < 0.5:  # a producer's retry
                stream.append(o)
            elif kind < 0.8:  # another amount
                stream.append((o[0], o[1], o[2] + decimal.Decimal("0.01"), o[3]))
            else:  # another amount, later
                stream.append((o[0], o[1], o[2] + 1, o[3] + rnd.randint(1, 300)))
    ledger, conflicts = {}, collections.Counter()
    for r in stream:
        if r[0] not in ledger:
            ledger[r[0]] = r
        elif r != ledger[r[0]]:
            conflicts[(r[0], ledger[r[0]], r)] += 1
    rows = [(r[0], r[1], r[2], stamp(r[3])) for r in stream]
    files = [rows[i:i + 200] for i in range(0, len(rows), 200)]
    return files, ledger, conflicts, t


def main():
    a, rnd, work = sluice_e2e.crash_setup("sluice-crashconflict-", kills=10, files=30)
    src, out, conf, data = (os.path.join(work, d) for d in ("src", "out", "conf", "data"))
    os.makedirs(src)
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(src=src, out=out, conf=conf))
    env = sluice_e2e.ENV
    print("%s: seed %d, work dir %s" % (NAME, a.seed, work))
    files, ledger, conflicts, t = make_stream(rnd, a.files)
    closers = sluice_e2e.closing_files(len(files), 1, file_name)

    cmd = [a.sluice, "--data-dir", data, "-q", "-f", job]
    p, runs, kills, error = sluice_e2e.kill_loop(
        cmd, env, files, lambda i, rows: write_file(src, i, rows), a.kills, rnd)
    if error:
        print("%s: %s" % (NAME, error))
        return 1
    if p is None:
        runs += 1
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    for i, k in enumerate(closers):  # far ahead: every candidate is emitted
        write_file(src, k, [(10 ** 9 + i, "z", decimal.Decimal("0.01"), stamp(t + 3600 * 1000))])
    want = len(ledger)  # the closers wait for a watermark past them
    error = sluice_e2e.stop_when(p, lambda: len(read_ledger(out)) >= want and
                    sum(read_conflicts(conf)[0].values()) >= sum(conflicts.values()))
    if error:
        print("%s: %s" % (NAME, error))
        return 1
    got = read_ledger(out)
    exp = {i: (r[1], r[2], stamp(r[3])) for i, r in ledger.items()}
    lbad = sorted(i for i in set(exp) | set(got)
                  if i < 10 ** 9 and exp.get(i) != got.get(i))
    cgot, cbad = read_conflicts(conf)
    cexp = collections.Counter({(i, row_json(s), row_json(c)): n
                                for (i, s, c), n in conflicts.items()})
    cmissing = cexp - cgot
    cextra = cgot - cexp
    show = subprocess.run([a.sluice, "--data-dir", data, "-e", "SHOW JOBS;"],
                          capture_output=True, env=env, timeout=60)
    shown = None
    header = None
    for line in show.stdout.decode("utf-8", "replace").splitlines():
        c = [v.strip() for v in line.strip().strip("|").split("|")]
        if "conflicts" in c:
            header = c
        elif header and len(c) == len(header) and c[0] == "crash-conflict":
            shown = c[header.index("conflicts")]
    retries = sum(1 for f in files for r in f) - len(ledger) - sum(conflicts.values())
    print("%s: %d runs, %d SIGKILLs, %d clicks in %d files (%d ids, %d identical retries, "
          "%d conflicts); ledger: %d ids committed, %d wrong or missing; conflict table: %d "
          "rows, %d missing, %d extra or doubled, %d malformed; SHOW JOBS conflicts: %s" %
          (NAME, runs, kills, sum(len(f) for f in files), len(files), len(ledger), retries,
           sum(conflicts.values()), len(got), len(lbad), sum(cgot.values()),
           sum(cmissing.values()), sum(cextra.values()), len(cbad), shown))
    for i in lbad[:5]:
        print("  id %r: expected %r, got %r" % (i, exp.get(i), got.get(i)))
    for k in list(cmissing)[:3]:
        print("  missing conflict %r" % (k,))
    for k in list(cextra)[:3]:
        print("  extra conflict %r" % (k,))
    for b in cbad[:5]:
        print("  conflict table: %s" % b)
    ok = (not lbad and not cmissing and not cextra and not cbad and
          shown == str(sum(conflicts.values())) and kills >= min(a.kills, 8) and
          sum(conflicts.values()) > 0 and retries > 0)
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("%s: kept %s (seed %d)" % (NAME, work, a.seed))
    return 0 if ok else 1


def row_json(r):
    """A click as the comparable tuple its JSON reads back as."""
    return (r[0], r[1], decimal.Decimal(r[2]), stamp(r[3]))


def parse_row(text):
    o = json.loads(text, parse_float=decimal.Decimal)
    return (o["id"], o["campaign"], decimal.Decimal(str(o["amount"])), o["ts"])


def read_ledger(out):
    """Committed ledger rows: id -> (campaign, amount, ts); an id twice is wrong."""
    got = {}
    for r in sluice_e2e.committed_rows(out, parse_float=decimal.Decimal):
        v = (r["campaign"], decimal.Decimal(str(r["amount"])), r["ts"])
        got[r["id"]] = "written twice" if r["id"] in got else v
    return got


def read_conflicts(conf):
    """The committed conflict table: a Counter of (id, stored, conflicting)
    parsed from its JSON columns; [problems]."""
    got, bad = collections.Counter(), []
    for r in sluice_e2e.committed_rows(conf, parse_float=decimal.Decimal):
        try:
            key = json.loads(r["conflict_key"])
            stored, conflicting = parse_row(r["stored_row"]), parse_row(r["conflicting_row"])
        except (TypeError, ValueError, KeyError) as e:
            bad.append("unreadable row %r (%s)" % (r, e))
            continue
        if key != {"id": conflicting[0]} or stored[0] != conflicting[0]:
            bad.append("key %r for rows %r / %r" % (key, stored, conflicting))
        if r["event_time"] != conflicting[3]:
            bad.append("event time %r for %r" % (r["event_time"], conflicting))
        if r["job"] != "crash-conflict" or r["operator"] != "Deduplicate(id)" or \
                not r["arrived_at"]:
            bad.append("job %r, operator %r, arrived_at %r" % (r["job"], r["operator"],
                                                               r["arrived_at"]))
        got[(conflicting[0], stored, conflicting)] += 1
    return got, bad


if __name__ == "__main__":
    sys.exit(main())
