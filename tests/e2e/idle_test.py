#!/usr/bin/env python3
"""idle_test.py — 'table.exec.source.idle-timeout' (as in Flink).

A continuous job reads a monitored directory at parallelism 2 through a
one-minute TUMBLE aggregation into the filesystem sink. The directory holds
one file, so one reader task has nothing to read: without an idle timeout
its watermark (none) holds the window operator back and no window ever
fires while the job runs (the control run shows it); with a 500 ms idle
timeout the idle reader is left out and the windows the file's rows close
are committed while the job still runs. The committed rows are compared
with Python's sums. Both jobs are stopped with SIGTERM.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sluice_e2e import committed_rows, subtask_of  # noqa: E402


def run(sluice, base, name, idle_ms, wait_s):
    work = os.path.join(base, name)
    inp, out = os.path.join(work, "in"), os.path.join(work, "out")
    os.makedirs(inp)
    # One file; its reader is subtask_of(file, 2): the other task stays idle.
    fname = "clicks.csv"
    rows = []
    for i in range(180):  # one row a second over three minutes
        rows.append((i % 3, i, "2026-01-01 00:%02d:%02d" % (i // 60, i % 60)))
    with open(os.path.join(inp, fname), "w") as f:
        for k, v, ts in rows:
            f.write("k%d,%d,%s\n" % (k, v, ts))
    sql = os.path.join(work, "job.sql")
    with open(sql, "w") as f:
        f.write("""
SET 'parallelism.default' = '2';
SET 'execution.checkpointing.interval' = '200 ms';
SET 'table.exec.source.idle-timeout' = '%d ms';
CREATE TABLE clicks (k STRING, v BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv',
        'source.monitor-interval' = '100 ms');
CREATE TABLE sums (window_start TIMESTAMP(3), k STRING, total BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'json');
INSERT INTO sums SELECT window_start, k, SUM(v)
  FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, k;
""" % (idle_ms, inp, out))
    p = subprocess.Popen([sluice, "--data-dir", os.path.join(work, "data"), "-f", sql],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + wait_s
    got = []
    while time.monotonic() < deadline:
        got = committed_rows(out)
        if len(got) >= 6:
            break
        time.sleep(0.2)
    running = p.poll() is None
    p.send_signal(signal.SIGTERM)
    output = p.communicate(timeout=60)[0].decode(errors="replace")
    # Windows 00:00 and 00:01 end before the last row's watermark (00:02:54).
    want = {}
    for k, v, ts in rows:
        minute = ts[:16]
        if minute < "2026-01-01 00:02":
            key = (minute + ":00.000", "k%d" % k)
            want[key] = want.get(key, 0) + v
    return running, got, want, output, subtask_of(fname, 2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    a = ap.parse_args()
    base = tempfile.mkdtemp(prefix="sluice-idle-")
    failures = []
    try:
        running, got, want, out, reader = run(a.sluice, base, "idle", 500, 30)
        have = {(r["window_start"], r["k"]): r["total"] for r in got}
        if not running:
            failures.append("the job ended by itself:\n" + out)
        if have != want:
            failures.append("with an idle timeout the committed windows %r are not %r\n%s"
                            % (sorted(have.items()), sorted(want.items()), out))
        running, got, _, out, _ = run(a.sluice, base, "control", 0, 4)
        if got:
            failures.append("without an idle timeout windows fired while task %d had no "
                            "input: %r" % (1 - reader, got))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("ok: the idle reader is left out with the timeout, holds the watermark without")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
