#!/usr/bin/env python3
"""rocks_switch_test.py — a checkpoint restores only under the state backend
that took it: a GROUP BY job checkpointed under 'hashmap' and resumed under
'rocksdb' fails with SQLSTATE 55000 naming both backends, and the reverse;
resumed under its own backend, it runs.

Usage: rocks_switch_test.py --sluice PATH
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

JOB = """
SET 'state.backend.type' = '{backend}';
CREATE TABLE IF NOT EXISTS gen (id BIGINT) WITH ('connector' = 'datagen',
  'number-of-rows' = '1000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
  'fields.id.end' = '1000');
CREATE TABLE IF NOT EXISTS out_p (k BIGINT, n BIGINT) WITH ('connector' = 'blackhole');
SET 'pipeline.name' = 'switch';
INSERT INTO out_p SELECT id % 10, COUNT(*) FROM gen GROUP BY id % 10;
"""


def run(sluice, work, data, backend):
    job = os.path.join(work, backend + ".sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(backend=backend))
    p = subprocess.run([sluice, "--data-dir", data, "-q", "-f", job], capture_output=True,
                       text=True, timeout=120)
    return p.returncode, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="sluice-rocksswitch-")
    problems = []
    for first, second in (("hashmap", "rocksdb"), ("rocksdb", "hashmap")):
        data = os.path.join(work, "data-" + first)
        rc, err = run(a.sluice, work, data, first)
        if rc != 0:
            problems.append("%s: the first run failed: %s" % (first, err))
            continue
        rc, err = run(a.sluice, work, data, second)
        want = ("was taken with state.backend.type '%s'; this job runs with '%s'"
                % (first, second))
        if rc == 0 or want not in err or "SQLSTATE: 55000" not in err:
            problems.append("%s -> %s: expected a 55000 error saying \"%s\", got status %d: %s"
                            % (first, second, want, rc, err))
        rc, err = run(a.sluice, work, data, first)
        if rc != 0 or "resumes from checkpoint" not in err:
            problems.append("%s -> %s: resuming under its own backend failed (%d): %s"
                            % (first, first, rc, err))
    for pr in problems:
        print("  " + pr)
    print("rocks_switch_test: %d problems" % len(problems))
    shutil.rmtree(work, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
