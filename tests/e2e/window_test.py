#!/usr/bin/env python3
"""window_test.py — a tumbling-window job checked by an independent reader.

Runs the quickstart's job shape with `sluice -f` over the bundled clicks file
(examples/data/clicks.csv) into the exactly-once filesystem sink, then
computes the per-campaign, per-minute counts and sums here in Python from the
same file (with exact decimals, and without the two clicks that arrive later
than the watermark) and compares them with the committed JSON files.

Usage: window_test.py --sluice PATH
"""
import argparse
import collections
import csv
import decimal
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CLICKS = os.path.join(HERE, "..", "..", "examples", "data", "clicks.csv")
LATE = {"3001", "3002"}  # ten minutes behind the watermark when they arrive

JOB = """
CREATE TABLE clicks (event_id BIGINT, campaign_id STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '{clicks}', 'format' = 'csv');
CREATE TABLE spend (window_start TIMESTAMP(3), window_end TIMESTAMP(3), campaign_id STRING,
  clicks BIGINT, spend DECIMAL(38, 2))
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '200 ms';
-- One reader: at parallelism 2 the second reader of the one file has no split and
-- ends at once, but until its end reaches the aggregation the aggregation's
-- watermark is the minimum with that lane's, so whether a late click is seen
-- late would depend on which thread runs first (Flink's idle sources likewise).
SET 'parallelism.default' = '1';
INSERT INTO spend
SELECT window_start, window_end, campaign_id, COUNT(*), SUM(amount)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, campaign_id;
"""


def reference():
    agg = collections.defaultdict(lambda: [0, decimal.Decimal("0")])
    with open(CLICKS, encoding="utf-8") as f:
        for event_id, campaign, amount, ts in csv.reader(f):
            if event_id in LATE:
                continue
            key = (ts[:16] + ":00.000", campaign)
            agg[key][0] += 1
            agg[key][1] += decimal.Decimal(amount)
    return {k: (n, str(s)) for k, (n, s) in agg.items()}


def committed(out):
    got = {}
    for name in sorted(os.listdir(out)):
        if name.startswith(".") or name.startswith("_"):
            continue
        with open(os.path.join(out, name), encoding="utf-8") as f:
            for line in f:
                r = json.loads(line, parse_float=decimal.Decimal)
                key = (r["window_start"], r["campaign_id"])
                if key in got:
                    raise SystemExit("window_test: window %r written twice" % (key,))
                got[key] = (r["clicks"], str(r["spend"]))
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="sluice-window-")
    out = os.path.join(work, "out")
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(clicks=os.path.abspath(CLICKS), out=out))
    p = subprocess.run([a.sluice, "--data-dir", os.path.join(work, "data"), "-q", "-f", job],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        print("window_test: sluice failed:\n" + p.stdout + p.stderr)
        return 1
    if "2 rows arrived later than the watermark" not in p.stderr:
        print("window_test: the two late clicks were not reported:\n" + p.stderr)
        return 1
    expected, got = reference(), committed(out)
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    wrong = sorted(k for k in set(expected) & set(got) if expected[k] != got[k])
    print("window_test: %d windows expected, %d committed: %d missing, %d extra, %d wrong" %
          (len(expected), len(got), len(missing), len(extra), len(wrong)))
    for k in (missing + extra + wrong)[:10]:
        print("  %r: expected %r, got %r" % (k, expected.get(k), got.get(k)))
    ok = not missing and not extra and not wrong
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
