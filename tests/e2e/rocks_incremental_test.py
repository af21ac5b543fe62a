#!/usr/bin/env python3
"""rocks_incremental_test.py — incremental checkpoints of the RocksDB state
backend take new bytes for what changed only, pruning keeps what a kept
checkpoint needs, and a restore from such a checkpoint is right.

A GROUP BY k (COUNT(*), SUM(v)) reads a monitored directory of CSV files
under 'state.backend.type' = 'rocksdb' with a cache of 1000 groups,
checkpointing every 200 ms (the newest 3 are kept):

1. a file of --keys rows, one per key: once the checkpoints' RocksDB files
   no longer change, checkpoint C1 is noted (its files' inodes and sizes);
2. a file of 100 rows over 10 keys: the first checkpoint C2 after it is
   consumed holds the whole state, but the bytes of its files that C1 did
   not already hold (inodes not in C1) must be under 5 % of C2's: with
   'execution.checkpointing.incremental' = 'false' (--incremental false,
   the control) every byte is new, and the check must fail;
3. after more checkpoints C1 is pruned, while the newest checkpoint still
   holds SSTs of C1 (the same inodes); the job is SIGKILLed, a third file
   touches 1000 keys of step 1 and the 10 of step 2, and the restarted job
   (restored from the newest checkpoint) prints their values: every one
   must equal what this script computes from the three files.

Usage: rocks_incremental_test.py --sluice PATH [--keys 200000]
                                 [--incremental true|false]
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import sluice_e2e

JOB = """
CREATE TABLE IF NOT EXISTS src (k BIGINT, v BIGINT)
  WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'csv',
        'source.monitor-interval' = '50 ms');
CREATE TABLE IF NOT EXISTS out_p (k BIGINT, n BIGINT, s BIGINT) WITH ('connector' = 'print');
SET 'execution.checkpointing.interval' = '200 ms';
SET 'parallelism.default' = '1';
SET 'state.backend.type' = 'rocksdb';
SET 'execution.checkpointing.incremental' = '{incremental}';
SET 'state.backend.rocksdb.cache-groups' = '1000';
SET 'pipeline.name' = 'rocks-inc';
INSERT INTO out_p SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k;
"""


def rocks_files(job_dir, chk):
    """{inode: size} of the RocksDB files of checkpoint chk (None: pruned meanwhile)."""
    files = {}
    d = os.path.join(job_dir, "chk-%d" % chk)
    try:
        for sub in os.listdir(d):
            if sub.startswith("files-op-"):
                for f in os.listdir(os.path.join(d, sub)):
                    st = os.stat(os.path.join(d, sub, f))
                    files[st.st_ino] = st.st_size
    except FileNotFoundError:
        return None
    return files


def ssts(job_dir, chk):
    out = set()
    d = os.path.join(job_dir, "chk-%d" % chk)
    for sub in os.listdir(d):
        if sub.startswith("files-op-"):
            for f in os.listdir(os.path.join(d, sub)):
                if f.endswith(".sst"):
                    out.add(os.stat(os.path.join(d, sub, f)).st_ino)
    return out


def sst_names(job_dir, chk):
    d = os.path.join(job_dir, "chk-%d" % chk)
    return {f for sub in os.listdir(d) if sub.startswith("files-op-")
            for f in os.listdir(os.path.join(d, sub)) if f.endswith(".sst")}


def wait_new(job_dir, after, timeout=60):
    """The newest sealed checkpoint id > after, with its files."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ids = [i for i in sluice_e2e.sealed_checkpoints(job_dir) if i > after]
        if ids:
            f = rocks_files(job_dir, ids[-1])
            if f is not None:
                return ids[-1], f
        time.sleep(0.05)
    raise RuntimeError("no new checkpoint after %d" % after)


def write_csv(src, name, rows):
    tmp = os.path.join(src, "." + name)
    with open(tmp, "w", encoding="utf-8") as f:
        for k, v in rows:
            f.write("%d,%d\n" % (k, v))
    os.rename(tmp, os.path.join(src, name))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--keys", type=int, default=200000)
    ap.add_argument("--incremental", default="true", choices=["true", "false"])
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="sluice-rocksinc-")
    src, data = os.path.join(work, "src"), os.path.join(work, "data")
    os.makedirs(src)
    job_dir = os.path.join(data, "jobs", "rocks-inc")
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(src=src, incremental=a.incremental))
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1")
    cmd = [a.sluice, "--data-dir", data, "-q", "-f", job]
    problems = []
    ref = {}

    def add(rows):
        for k, v in rows:
            n, s = ref.get(k, (0, 0))
            ref[k] = (n + 1, s + v)

    rows1 = [(k, k * 3) for k in range(a.keys)]
    rows2 = [(a.keys + i % 10, i) for i in range(100)]
    rows3 = [(k * 97 % a.keys, 1) for k in range(1000)] + [(a.keys + i, 5) for i in range(10)]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        write_csv(src, "1.csv", rows1)
        add(rows1)
        # 1. wait until two consecutive checkpoints hold the same RocksDB files
        #    (the file consumed, compactions settled)
        c1, f1 = wait_new(job_dir, 0)
        end = time.monotonic() + 120
        while time.monotonic() < end:
            c, f = wait_new(job_dir, c1)
            try:  # by SST names: the other files (and a full checkpoint's SSTs) are copies
                settled = sst_names(job_dir, c) == sst_names(job_dir, c1) and sum(f1.values()) > 0
            except FileNotFoundError:
                settled = False
            c1, f1 = c, f
            if settled:
                break
        total1 = sum(f1.values())
        # 2. a few keys change
        write_csv(src, "2.csv", rows2)
        add(rows2)
        time.sleep(0.5)  # consumed well within it (monitor interval 50 ms)
        c2, f2 = wait_new(job_dir, c1)
        total2 = sum(f2.values())
        new2 = sum(size for ino, size in f2.items() if ino not in f1)
        print("rocks_incremental_test: incremental %s: checkpoint %d holds %d bytes of RocksDB "
              "files; checkpoint %d after 10 keys changed holds %d, %d of them new (%.2f %%)"
              % (a.incremental, c1, total1, c2, total2, new2, 100.0 * new2 / max(total2, 1)))
        if total2 < 1000000:
            problems.append("the state is only %d bytes: too small to tell" % total2)
        if new2 * 20 > total2:
            problems.append("checkpoint %d took %d new bytes of %d (more than 5 %%) after 10 "
                            "keys changed" % (c2, new2, total2))
        # 3. C1 is pruned; the newest checkpoint still holds its SSTs
        c1_ssts = {ino for ino in f1}  # inodes of every C1 file
        end = time.monotonic() + 60
        while time.monotonic() < end and os.path.isdir(os.path.join(job_dir, "chk-%d" % c1)):
            time.sleep(0.05)
        if os.path.isdir(os.path.join(job_dir, "chk-%d" % c1)):
            problems.append("checkpoint %d was never pruned" % c1)
        p.send_signal(signal.SIGKILL)
        p.communicate()
        newest = sluice_e2e.sealed_checkpoints(job_dir)[-1]
        kept_shared = ssts(job_dir, newest) & c1_ssts
        print("rocks_incremental_test: checkpoint %d pruned; the newest, %d, shares %d SSTs "
              "with it" % (c1, newest, len(kept_shared)))
        if a.incremental == "true" and not kept_shared:
            problems.append("checkpoint %d shares no SST with pruned checkpoint %d"
                            % (newest, c1))
        # restore from it: the touched keys' values come from the kept files
        write_csv(src, "3.csv", rows3)
        add(rows3)
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        time.sleep(2.0)
        p.send_signal(signal.SIGKILL)
        out, err = p.communicate()
        last = {}
        for line in out.decode("utf-8", "replace").splitlines():
            line = line.strip()
            if line[:3] in ("+I[", "+U[") and line.endswith("]"):
                try:
                    k, n, s = (int(x) for x in line[3:-1].split(","))
                except ValueError:
                    continue
                last[k] = (n, s)
        touched = {k for k, _ in rows3}
        wrong = [(k, ref[k], last.get(k)) for k in sorted(touched) if last.get(k) != ref[k]]
        print("rocks_incremental_test: after the restore, %d of %d touched keys printed their "
              "right values" % (len(touched) - len(wrong), len(touched)))
        for k, want, got in wrong[:10]:
            problems.append("key %d: expected (count, sum) %r, got %r" % (k, want, got))
        if len(wrong) > 10:
            problems.append("... %d keys wrong in all" % len(wrong))
    except RuntimeError as e:
        problems.append(str(e))
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    for pr in problems:
        print("  " + pr)
    print("rocks_incremental_test: %d problems" % len(problems))
    if problems and a.incremental == "true":  # the control is meant to fail: nothing to keep
        print("rocks_incremental_test: kept %s" % work)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    if problems:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
