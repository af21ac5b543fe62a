#!/usr/bin/env python3
"""crash_rocks_test.py — the RocksDB state backend through SIGKILL: a
non-windowed GROUP BY over many keys with a small in-memory cache (so groups
really are evicted to RocksDB and read back), checked against a reference
computed here.

The job reads a rate-limited deterministic datagen sequence id = 1..N and
aggregates it by k = (id * 7919) % K (K keys, each touched many times, in an
order that jumps between keys) — COUNT(*), SUM(id), MIN(id), MAX(id) — under
'state.backend.type' = 'rocksdb' with 'state.backend.rocksdb.cache-groups'
far below K, checkpointing every 100 ms, into the print sink. It is killed
with SIGKILL 20+ times (every third kill inside a checkpoint) and started
again with the same data directory until it finishes.

The print sink has no commit protocol: a restarted run prints again the
changes after the checkpoint it restored. The source replays the same rows,
so every key's last printed value over all runs, in order, is its final
value (an upsert reading of the changelog); this script, not Sluice, reads
the printed changelog that way and compares every key with the reference.
Inside each run, the changelog must also be consistent: a key's -U row
carries the value its previous +I/+U row of that run printed (a group read
back from RocksDB wrong would break that or the final values).

--incremental false takes full checkpoints (copies) instead of hard links:
no SST of a kept checkpoint may then have a second link. The summary counts
the SSTs of the kept checkpoints first seen in checkpoints pruned since
(rocks_incremental_test.py checks that sharing deterministically).

Usage: crash_rocks_test.py --sluice PATH [--kills 20] [--rows 60000]
                           [--keys 20000] [--cache 500] [--seconds 8]
                           [--parallelism N] [--incremental true|false]
"""
import collections
import os
import shutil
import signal
import subprocess
import sys
import time

import sluice_e2e

JOB = """
CREATE TABLE IF NOT EXISTS gen (id BIGINT) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');
CREATE TABLE IF NOT EXISTS out_p (k BIGINT, n BIGINT, s BIGINT, lo BIGINT, hi BIGINT)
  WITH ('connector' = 'print');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'state.backend.type' = 'rocksdb';
SET 'execution.checkpointing.incremental' = '{incremental}';
SET 'state.backend.rocksdb.cache-groups' = '{cache}';
SET 'pipeline.name' = 'crash-rocks';
INSERT INTO out_p SELECT (id * 7919) % {keys} AS k, COUNT(*), SUM(id), MIN(id), MAX(id)
FROM gen GROUP BY (id * 7919) % {keys};
"""


def reference(rows, keys):
    ref = {}
    for i in range(1, rows + 1):
        k = (i * 7919) % keys
        n, s, lo, hi = ref.get(k, (0, 0, i, i))
        ref[k] = (n + 1, s + i, min(lo, i), max(hi, i))
    return ref


def parse(text):
    """(kind, k, (n, s, lo, hi)) per printed change of one run's output."""
    for line in text.splitlines():
        line = line.strip()
        if "> " in line and line[:1].isdigit():
            line = line.split("> ", 1)[1]
        if len(line) < 4 or line[2] != "[" or not line.endswith("]"):
            continue  # a torn last line of a killed run
        try:
            v = [int(x) for x in line[3:-1].split(",")]
        except ValueError:
            continue
        if len(v) != 5:
            continue
        yield line[:2], v[0], tuple(v[1:])


def sst_inodes(chk_dir):
    found = set()
    for root, _, files in os.walk(chk_dir):
        for f in files:
            if f.endswith(".sst"):
                found.add(os.stat(os.path.join(root, f)).st_ino)
    return found


def main():
    def more(ap):
        ap.add_argument("--keys", type=int, default=20000)
        ap.add_argument("--cache", type=int, default=500)
        ap.add_argument("--incremental", default="true", choices=["true", "false"])
    a, rnd, work = sluice_e2e.crash_setup("sluice-crashrocks-", kills=20, rows=60000,
                                          seconds=8.0, more=more)
    data = os.path.join(work, "data")
    job_dir = os.path.join(data, "jobs", "crash-rocks")
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(rows=a.rows, rate=int(a.rows / a.seconds), keys=a.keys,
                           cache=a.cache, parallelism=a.parallelism,
                           incremental=a.incremental))
    print("crash_rocks_test: seed %d, parallelism %d, %d rows, %d keys, cache %d groups, "
          "incremental %s, work dir %s" % (a.seed, a.parallelism, a.rows, a.keys, a.cache,
                                           a.incremental, work))
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1")
    outputs, seen_inodes = [], {}  # inode -> the checkpoint it was first seen in
    kills = runs = in_chk = 0
    deadline = time.monotonic() + 600
    done = False
    while time.monotonic() < deadline and not done:
        runs += 1
        p = subprocess.Popen([a.sluice, "--data-dir", data, "-q", "-f", job],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        timeout = rnd.uniform(0.3, 0.9) if kills < a.kills else 300
        if kills < a.kills and kills % 3 == 2:
            # kill inside a checkpoint: the moment an unsealed chk-N exists
            t_end = time.monotonic() + timeout * 2
            while time.monotonic() < t_end and p.poll() is None:
                if sluice_e2e.unsealed_checkpoints(job_dir):
                    break
                time.sleep(0.002)
            timeout = 0.001
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGKILL)
            out, err = p.communicate()
            kills += 1
            if sluice_e2e.unsealed_checkpoints(job_dir):
                in_chk += 1
        else:
            if p.returncode != 0:
                print("crash_rocks_test: run %d failed with status %d:\n%s" %
                      (runs, p.returncode, err.decode("utf-8", "replace")))
                return 1
            done = True
        outputs.append(out.decode("utf-8", "replace"))
        if os.path.isdir(job_dir):
            for name in sorted(os.listdir(job_dir)):
                if name.startswith("chk-"):
                    for ino in sst_inodes(os.path.join(job_dir, name)):
                        seen_inodes.setdefault(ino, name)
    if not done:
        print("crash_rocks_test: the job did not finish in time")
        return 1
    if kills < min(a.kills, 15):
        print("crash_rocks_test: only %d kills happened; make --seconds larger" % kills)
        return 1
    problems = []
    final = {}
    for i, text in enumerate(outputs):
        cur = {}
        for kind, k, v in parse(text):
            if kind == "-U":
                if k in cur and cur[k] != v:
                    problems.append("run %d: key %d retracts %r, its last value was %r"
                                    % (i + 1, k, v, cur[k]))
                continue
            if kind == "-D":
                problems.append("run %d: key %d deleted (rows only ever add)" % (i + 1, k))
                continue
            cur[k] = v
            final[k] = v
    ref = reference(a.rows, a.keys)
    for k, v in ref.items():
        if final.get(k) != v:
            problems.append("key %d: expected (count, sum, min, max) %r, got %r"
                            % (k, v, final.get(k)))
    extra = set(final) - set(ref)
    if extra:
        problems.append("unexpected keys %r" % sorted(extra)[:10])
    # Incremental checkpoints share SSTs: the kept ones hold files first
    # seen in checkpoints pruned since (and the job restored through them).
    kept = [n for n in os.listdir(job_dir) if n.startswith("chk-")]
    shared = 0
    for name in kept:
        for ino in sst_inodes(os.path.join(job_dir, name)):
            if seen_inodes.get(ino) not in kept:
                shared += 1
    if a.incremental == "false":
        for name in kept:
            for root, _, files in os.walk(os.path.join(job_dir, name)):
                for f in files:
                    if f.endswith(".sst") and os.stat(os.path.join(root, f)).st_nlink != 1:
                        problems.append("full checkpoint %s shares %s" % (name, f))
    print("crash_rocks_test: %d runs, %d SIGKILLs (%d inside a checkpoint); %d keys, "
          "%d SSTs of kept checkpoints first seen in pruned ones; %d problems"
          % (runs, kills, in_chk, len(final), shared, len(problems)))
    for pr in problems[:20]:
        print("  " + pr)
    if not problems:
        shutil.rmtree(work, ignore_errors=True)
        return 0
    print("crash_rocks_test: kept %s (seed %d)" % (work, a.seed))
    return 1


if __name__ == "__main__":
    sys.exit(main())
