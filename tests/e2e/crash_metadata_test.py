#!/usr/bin/env python3
"""crash_metadata_test.py — the filesystem source's METADATA columns through
SIGKILL: each row's file.name, file.path, file.size and
file.modification-time are the same whichever run reads it.

A job reads a monitored directory of CSV files (id, payload) with four
VIRTUAL metadata columns and a computed column over one of them, into the
exactly-once filesystem sink (JSON), checkpointing every 100 ms. While this
script adds files (written under a hidden name, then renamed), the job is
SIGKILLed at random moments and started again: a restart resumes inside a
file at the checkpoint's offset and reopens it, so the metadata of the rows
after the offset comes from a new open of the file. At the end SIGTERM stops
the last run. The reference comes from os.stat of the files this script
wrote: every id committed exactly once, with its file's name, absolute
path, size and modification time (milliseconds, as TIMESTAMP_LTZ(3)).

Usage: crash_metadata_test.py --sluice PATH [--kills 20] [--files 40] [--parallelism N]
"""
import datetime
import os
import shutil
import subprocess
import sys

import sluice_e2e

JOB = """
CREATE TABLE IF NOT EXISTS src (id BIGINT, payload STRING,
  fname STRING METADATA FROM 'file.name' VIRTUAL,
  fpath STRING METADATA FROM 'file.path' VIRTUAL,
  fsize BIGINT METADATA FROM 'file.size' VIRTUAL,
  mtime TIMESTAMP_LTZ(3) METADATA FROM 'file.modification-time' VIRTUAL,
  tag AS fname || ':' || CAST(fsize AS STRING))
  WITH ('connector' = 'filesystem', 'path' = '{src}', 'format' = 'csv',
        'source.monitor-interval' = '50 ms');
CREATE TABLE IF NOT EXISTS out (id BIGINT, fname STRING, fpath STRING, fsize BIGINT,
  mtime STRING, tag STRING)
  WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
SET 'table.local-time-zone' = 'UTC';
SET 'pipeline.name' = 'crash-metadata';
INSERT INTO out SELECT id, fname, fpath, fsize, CAST(mtime AS STRING), tag FROM src;
"""

NAME = "crash_metadata_test"


def file_name(k):
    return "part-%05d.csv" % k


def main():
    a, rnd, work = sluice_e2e.crash_setup("sluice-crashmeta-", kills=20, files=40)
    src, out, data = (os.path.join(work, d) for d in ("src", "out", "data"))
    os.makedirs(src)
    job = os.path.join(work, "job.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(JOB.format(src=src, out=out, parallelism=a.parallelism))
    print("%s: seed %d, parallelism %d, work dir %s" % (NAME, a.seed, a.parallelism, work))

    # Files of different sizes (300-700 rows, payloads of random length).
    files, next_id = [], 1
    for k in range(a.files):
        rows = []
        for _ in range(rnd.randrange(300, 700)):
            rows.append((next_id, "x" * rnd.randrange(1, 40)))
            next_id += 1
        files.append(rows)
    ids_of = {}

    def write_file(k, rows):
        tmp = os.path.join(src, ".tmp-%05d.csv" % k)
        with open(tmp, "w", encoding="utf-8") as f:
            for r in rows:
                f.write("%d,%s\n" % r)
        # distinct modification times, some in the past (not the clock's now)
        ms = 1767225600000 + k * 3600 * 1000 + rnd.randrange(1000)
        os.utime(tmp, ns=(ms * 1000000 + 123456, ms * 1000000 + 123456))
        os.rename(tmp, os.path.join(src, file_name(k)))
        for r in rows:
            ids_of[r[0]] = file_name(k)

    cmd = [a.sluice, "--data-dir", data, "-q", "-f", job]
    p, runs, kills, error = sluice_e2e.kill_loop(cmd, sluice_e2e.ENV, files, write_file,
                                                 a.kills, rnd)
    if error:
        print("%s: %s" % (NAME, error))
        return 1
    if p is None:
        runs += 1
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             env=sluice_e2e.ENV)
    want = {}
    real_src = os.path.realpath(src)
    for i, name in ids_of.items():
        st = os.stat(os.path.join(src, name))
        ms = st.st_mtime_ns // 1000000
        mt = datetime.datetime.fromtimestamp(ms // 1000, datetime.timezone.utc)
        want[i] = (name, os.path.join(real_src, name), st.st_size,
                   mt.strftime("%Y-%m-%d %H:%M:%S") + ".%03d" % (ms % 1000),
                   "%s:%d" % (name, st.st_size))
    error = sluice_e2e.stop_when(p, lambda: len(sluice_e2e.committed_rows(out)) >= len(want))
    if error:
        print("%s: %s" % (NAME, error))
        return 1
    got = {}
    twice = 0
    for r in sluice_e2e.committed_rows(out):
        twice += r["id"] in got
        got[r["id"]] = (r["fname"], r["fpath"], r["fsize"], r["mtime"], r["tag"])
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    wrong = sorted(i for i in set(want) & set(got) if want[i] != got[i])
    print("%s: %d runs, %d SIGKILLs, %d rows in %d files; %d committed: %d twice, %d missing, "
          "%d extra, %d with wrong metadata" % (NAME, runs, kills, len(want), len(files),
                                                len(got), twice, len(missing), len(extra),
                                                len(wrong)))
    for i in (missing + extra + wrong)[:10]:
        print("  id %r: expected %r, got %r" % (i, want.get(i), got.get(i)))
    ok = not missing and not extra and not wrong and not twice and kills >= min(a.kills, 20)
    why = sluice_e2e.check_parallelism(out, a.parallelism)
    if why:
        print("%s: %s" % (NAME, why))
        ok = False
    if ok:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("%s: kept %s (seed %d)" % (NAME, work, a.seed))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
