#!/usr/bin/env python3
"""damaged_checkpoint_test.py — a job whose newest checkpoint was damaged on
disk refuses to resume, naming the checkpoint and the file, and commits
nothing more (DESIGN.md section 10; docs/RUNTIME.md "Checkpoint integrity").

A datagen -> filesystem (exactly-once) job with 100 ms checkpoints is
SIGKILLed once it has sealed a few checkpoints. Then the newest sealed
checkpoint is damaged in one way per case, and the job is started again:

- state:    one byte of a state file flipped (same size: only its checksum tells);
- metadata: one byte of the checkpoint's _metadata flipped;
- missing:  a state file the _metadata lists deleted;
- gone:     the newest checkpoint directory deleted: the one jobs/<job>/_latest
            names as the newest sealed, with any sealed after it (the kill
            may come between a _metadata and _latest);
- control:  nothing damaged: the restart must resume from that checkpoint
            and finish, which shows the run can succeed (so the failures
            above are the damage's doing).

A damaged case must exit non-zero with SQLSTATE XX001, a message naming
"checkpoint <N>" and the damaged file, and the sink's committed files (read
here, independently) must be exactly those present before the restart: no
fall back to an older checkpoint, whose replay would commit its epochs again.

Usage: damaged_checkpoint_test.py --sluice PATH [--case NAME]
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import sluice_e2e

JOB = """
CREATE TABLE IF NOT EXISTS gen (id BIGINT, pad STRING) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}',
  'fields.pad.length' = '8');
CREATE TABLE IF NOT EXISTS out (id BIGINT, pad STRING)
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'pipeline.name' = 'damaged';
INSERT INTO out SELECT id, pad FROM gen;
"""


def sealed(job_dir):
    ids = []
    for n in os.listdir(job_dir) if os.path.isdir(job_dir) else []:
        m = re.fullmatch(r"chk-(\d+)", n)
        if m and os.path.exists(os.path.join(job_dir, n, "_metadata")):
            ids.append(int(m.group(1)))
    return sorted(ids)


def flip(path, at):
    with open(path, "r+b") as f:
        f.seek(at)
        b = f.read(1)
        f.seek(at)
        f.write(bytes([b[0] ^ 0x04]))


def run_case(sluice, case):
    tmp = tempfile.mkdtemp(prefix="sluice-damaged-")
    try:
        data, out = os.path.join(tmp, "data"), os.path.join(tmp, "out")
        job = os.path.join(tmp, "job.sql")
        with open(job, "w") as f:
            f.write(JOB.format(rows=3000, rate=1000, out=out))
        job_dir = os.path.join(data, "jobs", "damaged")
        runner = sluice_e2e.Runner(sluice, data, job, "damaged", out)
        p = runner.start()
        end = time.monotonic() + 60
        while time.monotonic() < end and p.poll() is None and len(sealed(job_dir)) < 3:
            time.sleep(0.01)
        if p.poll() is not None:
            return "the first run ended before it sealed 3 checkpoints: %s" % p.stderr.read()
        p.send_signal(signal.SIGKILL)
        runner.killed(p)
        ids = sealed(job_dir)
        newest = ids[-1]
        chk = os.path.join(job_dir, "chk-%d" % newest)
        states = sorted(n for n in os.listdir(chk) if n.startswith("state-") and
                        not n.endswith(".tmp") and os.path.getsize(os.path.join(chk, n)) > 0)
        victim = None
        if case == "state":
            victim = next(n for n in states if n.startswith("state-source-"))
            flip(os.path.join(chk, victim), 0)
        elif case == "metadata":
            victim = "_metadata"
            flip(os.path.join(chk, victim), os.path.getsize(os.path.join(chk, victim)) // 2)
        elif case == "missing":
            victim = next(n for n in states if n.startswith("state-sink-"))
            os.unlink(os.path.join(chk, victim))
        elif case == "gone":
            if not os.path.exists(os.path.join(job_dir, "_latest")):
                return "gone: the job wrote no jobs/<job>/_latest"
            with open(os.path.join(job_dir, "_latest")) as f:
                newest = json.load(f)["checkpoint"]
            victim = "chk-%d" % newest
            for n in ids:
                if n >= newest:
                    shutil.rmtree(os.path.join(job_dir, "chk-%d" % n))
        before = sluice_e2e.committed_files(out)
        p = runner.start()
        try:
            _, err = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            return "the restart did not end within 120 s"
        err = err.decode("utf-8", "replace")
        if case == "control":
            if p.returncode != 0 or "resumes from checkpoint %d" % newest not in err:
                return ("control: the undamaged restart should resume from checkpoint %d and "
                        "finish; exit %d, stderr:\n%s" % (newest, p.returncode, err))
            ids_seen = sorted(r["id"] for r in sluice_e2e.committed_rows(out))
            if ids_seen != list(range(1, 3001)):
                return "control: the output is not ids 1..3000 exactly once"
            return None
        if os.environ.get("SLUICE_TEST_SHOW"):
            print(err)
        problems = []
        if p.returncode == 0:
            problems.append("the restart succeeded")
        if "XX001" not in err:
            problems.append("no SQLSTATE XX001")
        if "checkpoint %d " % newest not in err:
            problems.append("checkpoint %d is not named" % newest)
        if victim not in err:
            problems.append("the file %s is not named" % victim)
        after = sluice_e2e.committed_files(out)
        if after != before:
            problems.append("the committed files changed: %d before, %d after"
                            % (len(before), len(after)))
        if problems:
            return "%s (%s damaged in chk-%d): %s; stderr:\n%s" % (
                case, victim, newest, ", ".join(problems), err)
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--case", choices=["state", "metadata", "missing", "gone", "control"])
    args = ap.parse_args()
    failed = 0
    for case in [args.case] if args.case else ["control", "state", "metadata", "missing", "gone"]:
        why = run_case(args.sluice, case)
        print("%s: %s" % (case, "ok" if why is None else "FAILED: " + why))
        failed += why is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
