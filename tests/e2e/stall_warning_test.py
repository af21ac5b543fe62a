#!/usr/bin/env python3
"""stall_warning_test.py — a job whose windows cannot fire says why.

Each case runs an INSERT with `sluice -f` ('table.exec.watermark.stall-warning'
= '1 s', checkpoints every 200 ms), waits up to a few seconds for the job's
WARNING on standard error, stops it with SIGINT (a savepoint), and reads
SHOW JOBS of the data directory in a new process (its last column, warning).

- stalled: a datagen table whose event time is a constant (a computed
  column): rows flow, the watermark never moves, no window fires: the warning
  names the source whose watermark has not advanced.
- idle: a monitored directory with one file at parallelism 2: the reader
  without a file (which one: the file name's hash, computed here as the
  runtime does) holds the watermark back: the warning names that reader and
  'table.exec.source.idle-timeout'.
- controls, which must not warn: the same directory with an idle timeout,
  and a datagen table whose event time moves (windows fire).

Usage: stall_warning_test.py --sluice PATH
"""
import argparse
import csv
import io
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sluice_e2e import subtask_of  # noqa: E402

PRELUDE = """
SET 'execution.checkpointing.interval' = '200 ms';
SET 'table.exec.watermark.stall-warning' = '1 s';
"""

STALLED = """
CREATE TABLE src (id BIGINT, ts AS TIMESTAMP '2026-01-01 00:00:00', WATERMARK FOR ts AS ts)
  WITH ('connector' = 'datagen', 'rows-per-second' = '50', 'fields.id.kind' = 'sequence',
        'fields.id.start' = '1', 'fields.id.end' = '1000000');
CREATE TABLE out1 (ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out1 SELECT window_start, COUNT(*)
  FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end;
"""

MOVING = """
CREATE TABLE src (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'datagen', 'rows-per-second' = '50');
CREATE TABLE out1 (ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out1 SELECT window_start, COUNT(*)
  FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end;
"""

IDLE = """
SET 'parallelism.default' = '2';
SET 'table.exec.source.idle-timeout' = '%s';
CREATE TABLE clicks (k STRING, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv',
        'source.monitor-interval' = '100 ms');
CREATE TABLE out1 (ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out1 SELECT window_start, COUNT(*)
  FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;
"""

WARN = 'WARNING:  job "insert-into-out1": windows are not firing because '


def run_case(sluice, work, name, sql, wait_s):
    """(the warning's text after WARN or None, stderr, SHOW JOBS' warning column)."""
    d = os.path.join(work, name)
    os.makedirs(d)
    path = os.path.join(d, "job.sql")
    with open(path, "w", encoding="utf-8") as f:
        f.write(PRELUDE + sql)
    data = os.path.join(d, "data")
    p = subprocess.Popen([sluice, "--data-dir", data, "-f", path],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err, found = b"", None
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and found is None and p.poll() is None:
        r, _, _ = select.select([p.stderr], [], [], 0.2)
        if r:
            chunk = os.read(p.stderr.fileno(), 65536)
            if not chunk:
                break
            err += chunk
            for line in err.decode(errors="replace").splitlines():
                if WARN in line:
                    found = line.split(WARN, 1)[1]
    p.send_signal(signal.SIGINT)
    err += p.communicate(timeout=60)[1]
    show = subprocess.run([sluice, "--data-dir", data, "--format", "csv", "-e", "SHOW JOBS;"],
                          capture_output=True, text=True)
    col = None
    if show.returncode == 0 and show.stdout.strip():
        rows = list(csv.reader(io.StringIO(show.stdout)))
        if rows and rows[0][-1] == "warning":
            col = rows[1][-1] if len(rows) > 1 else ""
    if col is None:  # no --format: the bordered table
        show = subprocess.run([sluice, "--data-dir", data, "-e", "SHOW JOBS;"],
                              capture_output=True, text=True)
        lines = [ln for ln in show.stdout.splitlines() if ln.startswith("|")]
        if len(lines) >= 2 and lines[0].rstrip("| ").split("|")[-1].strip() == "warning":
            col = lines[1].strip("|").split("|")[-1].strip()
    if col == "<NULL>":
        col = ""
    return found, err.decode(errors="replace"), col


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="sluice-stall-")
    fails = []

    found, err, col = run_case(a.sluice, work, "stalled", STALLED, 15)
    want = "the watermark of source src has not advanced for "
    if not found or not found.startswith(want):
        fails.append("stalled: no warning naming source src:\n" + err)
    elif col is None or not col.startswith("windows are not firing because " + want):
        fails.append("stalled: SHOW JOBS' warning column is %r" % col)
    if err.count(WARN) > 1:
        fails.append("stalled: the warning came more than once:\n" + err)

    inp = os.path.join(work, "in")
    os.makedirs(inp)
    fname = "clicks.csv"
    with open(os.path.join(inp, fname), "w") as f:
        for i in range(100):
            f.write("k%d,%d,2026-01-01 00:00:%02d\n" % (i % 3, i, i % 60))
    idle_reader = 1 - subtask_of(fname, 2)
    found, err, col = run_case(a.sluice, work, "idle", IDLE % ("0 ms", inp), 15)
    want = ("reader %d of source clicks is idle" % idle_reader)
    if not found or not found.startswith(want) or \
            "set 'table.exec.source.idle-timeout'" not in found:
        fails.append("idle: no warning naming reader %d and the idle timeout:\n%s"
                     % (idle_reader, err))
    elif col is None or want not in col:
        fails.append("idle: SHOW JOBS' warning column is %r" % col)

    for name, sql in (("idle-timeout", IDLE % ("300 ms", inp)), ("moving", MOVING)):
        found, err, col = run_case(a.sluice, work, name, sql, 4)
        if found or WARN in err:
            fails.append("%s: a warning although windows can fire:\n%s" % (name, err))
        if col:
            fails.append("%s: SHOW JOBS' warning column is %r" % (name, col))

    for f in fails:
        print("FAIL:", f)
    if fails:
        print("stall_warning_test: kept %s" % work)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("ok: stalled watermark and idle reader warned about, once; the controls not")
    return 0


if __name__ == "__main__":
    sys.exit(main())
