#!/usr/bin/env python3
"""bench_rocks.py — the RocksDB state backend at a state larger than the
memory the process may take (issue 16, section 4).

A. Throughput: a bounded datagen sequence of --keys rows (every row a new
   key) -> GROUP BY id (COUNT(*), SUM(id)) -> blackhole, under
   'state.backend.type' = 'rocksdb', incremental checkpoints every 10 s, a
   cache of --cache groups, parallelism 1, in a process whose address space
   is limited to --limit-mb (prlimit --as: cgroups are not available
   here). Reports wall time, rows/s, peak RSS, and the newest checkpoint's
   RocksDB bytes.

B. Checkpoints against changed keys: the same GROUP BY over the UNION ALL of
   the datagen table (the --keys keys) and a monitored directory of CSV
   files, checkpointing every 2 s, under the same limit. Once the datagen
   rows are in (two consecutive checkpoints hold the same SSTs), the script
   writes files that touch N existing keys each (N in --changes) and, for
   each, sums over the checkpoints after it, until two consecutive ones hold
   the same SSTs again, the bytes of RocksDB files each holds that the one
   before it did not (new inodes: what an incremental checkpoint writes),
   and reports the longest duration among them (_metadata's mtime minus the
   checkpoint's first state file's: trigger to seal, approximately) and how
   many checkpoints that took.

Usage: bench_rocks.py --sluice build/release/sluice [--keys 50000000]
                      [--cache 1000000] [--limit-mb 2048]
                      [--changes 0,1000,10000,100000,1000000] [--skip-a] [--skip-b]
"""
import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
import sluice_e2e  # noqa: E402

GEN = """
CREATE TABLE IF NOT EXISTS gen (id BIGINT) WITH ('connector' = 'datagen',
  'number-of-rows' = '{keys}', 'rows-per-second' = '1000000000',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{keys}');
CREATE TABLE IF NOT EXISTS hole (k BIGINT, n BIGINT, s BIGINT) WITH ('connector' = 'blackhole');
SET 'parallelism.default' = '1';
SET 'state.backend.type' = 'rocksdb';
SET 'execution.checkpointing.incremental' = 'true';
SET 'state.backend.rocksdb.cache-groups' = '{cache}';
"""

JOB_A = GEN + """
SET 'execution.checkpointing.interval' = '10 s';
SET 'pipeline.name' = 'bench-rocks-a';
INSERT INTO hole SELECT id, COUNT(*), SUM(id) FROM gen GROUP BY id;
"""

JOB_B = GEN + """
CREATE TABLE IF NOT EXISTS src (k BIGINT) WITH ('connector' = 'filesystem', 'path' = '{src}',
  'format' = 'csv', 'source.monitor-interval' = '100 ms');
SET 'execution.checkpointing.interval' = '2 s';
SET 'pipeline.name' = 'bench-rocks-b';
INSERT INTO hole SELECT k, COUNT(*), SUM(k) FROM (SELECT id AS k FROM gen UNION ALL
  SELECT k FROM src) GROUP BY k;
"""


def chk_info(job_dir, chk):
    """({inode: size} of its RocksDB files, {sst names}, duration s) or None if pruned."""
    d = os.path.join(job_dir, "chk-%d" % chk)
    try:
        files, names, first = {}, set(), None
        for sub in os.listdir(d):
            p = os.path.join(d, sub)
            if sub.startswith("files-op-"):
                for f in os.listdir(p):
                    st = os.stat(os.path.join(p, f))
                    files[st.st_ino] = st.st_size
                    if f.endswith(".sst"):
                        names.add(f)
            elif sub.startswith("state-"):
                m = os.stat(p).st_mtime
                first = m if first is None else min(first, m)
        meta = os.stat(os.path.join(d, "_metadata")).st_mtime
        return files, names, meta - (first if first is not None else meta)
    except FileNotFoundError:
        return None


def limited(cmd, limit_mb):
    return ["prlimit", "--as=%d" % (limit_mb << 20), "--"] + cmd


def bench_a(a, work):
    data = os.path.join(work, "data-a")
    job = os.path.join(work, "a.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB_A.format(keys=a.keys, cache=a.cache))
    t0 = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(limited([a.sluice, "--data-dir", data, "-q", "-f", job], a.limit_mb),
                       capture_output=True, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        print("A: failed (%d): %s" % (p.returncode, p.stderr[-2000:]))
        return 1
    job_dir = os.path.join(data, "jobs", "bench-rocks-a")
    info = chk_info(job_dir, sluice_e2e.sealed_checkpoints(job_dir)[-1])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print("A: %d keys, cache %d groups, --as %d MB: %.1f s wall, %.0f rows/s, %.1f CPU-s, "
          "peak RSS %.0f MB, final checkpoint %.0f MB of RocksDB files"
          % (a.keys, a.cache, a.limit_mb, wall, a.keys / wall, cpu, after.ru_maxrss / 1024.0,
             sum(info[0].values()) / 1e6))
    shutil.rmtree(data, ignore_errors=True)
    return 0


def wait_next(job_dir, after, timeout=600):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for c in sluice_e2e.sealed_checkpoints(job_dir):
            if c > after:
                info = chk_info(job_dir, c)
                if info:
                    return c, info
        time.sleep(0.02)
    raise RuntimeError("no checkpoint after %d" % after)


def bench_b(a, work):
    data, src = os.path.join(work, "data-b"), os.path.join(work, "src")
    os.makedirs(src)
    job = os.path.join(work, "b.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB_B.format(keys=a.keys, cache=a.cache, src=src))
    job_dir = os.path.join(data, "jobs", "bench-rocks-b")
    p = subprocess.Popen(limited([a.sluice, "--data-dir", data, "-q", "-f", job], a.limit_mb),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    rnd = random.Random(7)
    try:
        t0 = time.monotonic()
        c, info = wait_next(job_dir, 0)
        while True:  # the datagen rows in: the SSTs stop changing
            c2, info2 = wait_next(job_dir, c)
            done = info2[1] == info[1] and sum(info2[0].values()) > 0
            c, info = c2, info2
            if done or p.poll() is not None:
                break
        total = sum(info[0].values())
        print("B: %d keys loaded in %.0f s (to a settled checkpoint); state %.0f MB of RocksDB "
              "files" % (a.keys, time.monotonic() - t0, total / 1e6))
        print("B: %10s %14s %14s %12s %6s" % ("changed", "chk bytes", "new bytes", "max duration",
                                              "chks"))
        for i, n in enumerate(int(x) for x in a.changes.split(",")):
            base, binfo = c, info
            name = os.path.join(src, "c%d.csv" % i)
            with open(name + ".tmp", "w", encoding="utf-8") as f:
                for _ in range(n):
                    f.write("%d\n" % rnd.randint(1, a.keys))
            os.rename(name + ".tmp", name)
            # every checkpoint until the SSTs settle again (the file consumed,
            # its groups flushed, compactions done): what they wrote in all
            new, dur, size, nchk = 0, 0.0, 0, 0
            while True:
                c, info = wait_next(job_dir, c)
                nchk += 1
                new += sum(s for ino, s in info[0].items() if ino not in binfo[0])
                dur = max(dur, info[2])
                size = sum(info[0].values())
                settled = info[1] == binfo[1] and nchk >= 2
                binfo = info
                if settled:
                    break
            print("B: %10d %14d %14d %10.3f s %6d" % (n, size, new, dur, nchk))
    finally:
        if p.poll() is None:
            p.kill()
        _, err = p.communicate()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        print("B: peak RSS of the largest child so far %.0f MB" % (usage.ru_maxrss / 1024.0))
    shutil.rmtree(data, ignore_errors=True)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--keys", type=int, default=50000000)
    ap.add_argument("--cache", type=int, default=1000000)
    ap.add_argument("--limit-mb", type=int, default=2048)
    ap.add_argument("--changes", default="0,1000,10000,100000,1000000")
    ap.add_argument("--skip-a", action="store_true")
    ap.add_argument("--skip-b", action="store_true")
    ap.add_argument("--work", default=None, help="parent of the scratch directory")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="sluice-bench-rocks-", dir=a.work)
    rc = 0
    try:
        if not a.skip_a:
            rc |= bench_a(a, work)
        if not a.skip_b:
            rc |= bench_b(a, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
