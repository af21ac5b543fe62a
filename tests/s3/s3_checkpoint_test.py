#!/usr/bin/env python3
"""s3_checkpoint_test.py — checkpoints in S3 ('execution.checkpointing.dir' =
's3://bucket/path': exec/checkpoint.c's storage on connectors/filesystem/
fs_chk.c, planner/session_chkdir.c) against the SeaweedFS server of the `s3`
fixture. The readers are boto3 (the checkpoint objects) and this script (the
sink's local files; never Sluice); the reference is datagen's sequence 1..N.

--case crash    datagen 1..N at parallelism 2 into a local exactly-once
                filesystem sink, checkpoints every 200 ms kept in S3, about
                --kills SIGKILLs (after a pre-commit, after the seal, at
                random), then a run to the end. The sink's files hold every
                id exactly once (a restart that missed its checkpoint in S3
                would start over and write ids twice); boto3 finds the
                checkpoints (chk-<N>/_metadata naming the job, state files,
                _latest) under <path>/<job>/ and none is in the data
                directory; at most 3 plus the newest are kept.
--case manage   what a user does around such a job, each checked against S3
                or the sink's files:
                - the same job started with the setting RESET: 55000 naming
                  where its checkpoints are (it would start over);
                - another data directory starting a job of that name at that
                  location: 55000 naming the data directory that claimed it
                  (<path>/<job>/_owner, written with If-None-Match); a
                  location another data directory claimed: 55000;
                - 'state.backend.type' = 'rocksdb' with S3: 0A000;
                - a wrong secret in SET 's3.secret-key': 28P01 before any
                  row, the secret not in the output;
                - a fork from the job's final checkpoint in S3
                  ('execution.savepoint.path' = s3://.../chk-<N>, no_claim)
                  into another sink: the fork's output is the rows after
                  that checkpoint, none of those before;
                - DROP JOB: its objects are gone from S3.

Usage: s3_checkpoint_test.py --sluice PATH --case crash|manage [--kills N] [--seed N]
"""
import argparse
import collections
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

import s3_util

BUCKET = "sluice"
FAILED = []
ENV = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
ENV["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"


def check(cond, what):
    print("s3_checkpoint_test: %s: %s" % ("ok" if cond else "FAILED", what), flush=True)
    if not cond:
        FAILED.append(what)


def storage_settings(base, secret=s3_util.SECRET_KEY):
    return ("SET 'execution.checkpointing.dir' = 's3://%s/%s';\n"
            "SET 's3.endpoint' = '%s';\n"
            "SET 's3.access-key' = '%s';\n"
            "SET 's3.secret-key' = '%s';\n" % (BUCKET, base, s3_util.ENDPOINT,
                                               s3_util.ACCESS_KEY, secret))


def job_sql(name, base, out_dir, rows, rate, parallelism=2, extra=""):
    return (storage_settings(base) + extra +
            "SET 'parallelism.default' = '%d';\n"
            "SET 'execution.checkpointing.interval' = '200 ms';\n"
            "SET 'restart-strategy.fixed-delay.delay' = '300 ms';\n"
            "SET 'pipeline.name' = '%s';\n"
            "CREATE TABLE IF NOT EXISTS gen_%s (id BIGINT) WITH ('connector' = 'datagen', "
            "'number-of-rows' = '%d', 'rows-per-second' = '%d', 'fields.id.kind' = 'sequence', "
            "'fields.id.start' = '1', 'fields.id.end' = '%d');\n"
            "CREATE TABLE IF NOT EXISTS out_%s (id BIGINT, x BIGINT) WITH ('connector' = 'filesystem', "
            "'path' = '%s', 'format' = 'csv', 'sink.delivery-guarantee' = 'exactly-once');\n"
            "INSERT INTO out_%s SELECT id, id * 7 FROM gen_%s;\n"
            % (parallelism, name, name, rows, rate, rows, name, out_dir, name, name))


def run(a, data, sql, work, timeout=120, env=None):
    path = os.path.join(work, "job-%d.sql" % time.monotonic_ns())
    with open(path, "w", encoding="utf-8") as f:
        f.write(sql)
    e = dict(ENV)
    e.update(env or {})
    return subprocess.run([a.sluice, "--data-dir", data, "-f", path],
                          capture_output=True, text=True, env=e, timeout=timeout)


def ids_in(out_dir):
    """Counter of the ids in the sink's visible files (read here)."""
    count = collections.Counter()
    for root, _dirs, files in os.walk(out_dir):
        for name in files:
            if name.startswith(".") or name.startswith("_"):
                continue
            with open(os.path.join(root, name), encoding="utf-8") as f:
                for line in f:
                    line = line.strip()
                    if line:
                        i, x = (int(v) for v in line.split(","))
                        if x != i * 7:
                            count[-1] += 1  # a corrupted row
                        count[i] += 1
    return count


def exactly_once(count, lo, hi, what):
    missing = [i for i in range(lo, hi + 1) if count[i] == 0]
    doubled = [i for i, n in count.items() if n > 1]
    foreign = [i for i in count if i < lo or i > hi]
    print("s3_checkpoint_test: %s: ids %d..%d, %d lines: %d missing, %d doubled (e.g. %s), "
          "%d foreign" % (what, lo, hi, sum(count.values()), len(missing), len(doubled),
                          doubled[:5], len(foreign)))
    check(not missing and not doubled and not foreign, "%s: every id exactly once" % what)


def chk_objects(prefix):
    """{relative key: size} of the objects under prefix/ (boto3)."""
    return {k[len(prefix) + 1:]: size for k, size, _e in s3_util.list_keys(BUCKET, prefix + "/")}


def chk_ids(objs):
    ids = set()
    for rel in objs:
        head = rel.split("/", 1)[0]
        if head.startswith("chk-") and head[4:].isdigit():
            ids.add(int(head[4:]))
    return ids


def prefix_of(case):
    return "ckpt-%s-%d-%d" % (case, os.getpid(), int(time.time() * 1000) % 10**9)


# ---------------------------------------------------------------------------
def case_crash(a, work):
    rows, rate = 6000, 600
    base = prefix_of("crash")
    data, out_dir = os.path.join(work, "data"), os.path.join(work, "out")
    sql = job_sql("crash", base, out_dir, rows, rate)
    path = os.path.join(work, "job.sql")
    with open(path, "w") as f:
        f.write(sql)
    rnd = random.Random(a.seed)
    t0 = time.monotonic()

    def after_kill(kills):
        if kills == 3:  # the checkpoints are in S3 by now, and only there
            objs = chk_objects(base + "/crash")
            check(chk_ids(objs), "after 3 kills: chk-<N> objects in S3 (%d objects)" % len(objs))

    kills, runs, _ended, failure = s3_util.kill_loop(
        [a.sluice, "--data-dir", data, "-f", path], ENV, a.kills, rnd,
        os.path.join(work, "stderr"), limit=80, nth=lambda r: r.randint(1, 3),
        on_kill=after_kill)
    if failure:
        check(False, failure)
        return
    print("s3_checkpoint_test: %d SIGKILLs in %d runs (%.1f s)"
          % (kills, runs, time.monotonic() - t0))
    check(kills >= min(a.kills, 8), "at least %d SIGKILLs (%d)" % (min(a.kills, 8), kills))
    p = run(a, data, sql, work, timeout=240)
    check(p.returncode == 0, "the last run ends the job: %s" % p.stderr[-1500:])
    exactly_once(ids_in(out_dir), 1, rows, "the sink after %d kills" % kills)
    # The checkpoints, as S3 holds them.
    objs = chk_objects(base + "/crash")
    ids = chk_ids(objs)
    check(ids and len(ids) <= 4, "S3 keeps the newest checkpoints only (%s)" % sorted(ids))
    newest = max(ids) if ids else -1
    meta = s3_util.read(BUCKET, "%s/crash/chk-%d/_metadata" % (base, newest))
    doc = json.loads(meta.decode()) if meta else {}
    check(doc.get("job") == "crash" and doc.get("checkpoint") == newest,
          "chk-%d/_metadata names the job and the checkpoint" % newest)
    states = [r for r in objs if r.startswith("chk-%d/state-" % newest)]
    check(len(states) == len(doc.get("files", [])) and states,
          "chk-%d holds the %d state files its _metadata lists (%d)"
          % (newest, len(doc.get("files", [])), len(states)))
    latest = s3_util.read(BUCKET, "%s/crash/_latest" % base)
    check(latest and json.loads(latest.decode()).get("checkpoint") == newest,
          "_latest names chk-%d" % newest)
    local = [n for n in os.listdir(os.path.join(data, "jobs", "crash"))
             if n.startswith("chk-")]
    check(not local, "no checkpoint in the data directory (%s)" % local[:3])


def case_manage(a, work):
    rows = 3000
    base = prefix_of("manage")
    data, out_dir = os.path.join(work, "data"), os.path.join(work, "out")
    sql = job_sql("m1", base, out_dir, rows, 3000, parallelism=1)
    p = run(a, data, sql, work)
    check(p.returncode == 0, "job m1 ran to its end: %s" % p.stderr[-1500:])
    exactly_once(ids_in(out_dir), 1, rows, "m1")
    ids = chk_ids(chk_objects(base + "/m1"))
    check(ids, "m1's checkpoints are in S3 (%s)" % sorted(ids))
    final = max(ids) if ids else 0

    # The setting RESET: the job would not find its checkpoints.
    reset = sql.replace("SET 'execution.checkpointing.dir'", "-- ")
    p = run(a, data, reset, work)
    check(p.returncode != 0 and "55000" in p.stderr and
          "keeps its checkpoints in s3://%s/%s/m1" % (BUCKET, base) in p.stderr,
          "m1 without the setting: 55000 naming where its checkpoints are: %s"
          % p.stderr.strip()[-400:])
    # Another data directory, same name and location.
    other = os.path.join(work, "other-data")
    p = run(a, other, sql.replace("'path' = '%s'" % out_dir,
                                  "'path' = '%s'" % os.path.join(work, "out-other")), work)
    check(p.returncode != 0 and "55000" in p.stderr and
          "belongs to another data directory" in p.stderr and os.path.realpath(data) in p.stderr,
          "another data directory's m1 at that location: 55000 naming the owner: %s"
          % p.stderr.strip()[-400:])
    # The claim: _owner names this data directory's id.
    with open(os.path.join(data, "_id")) as f:
        ident = f.read().strip()
    owner = s3_util.read(BUCKET, "%s/m1/_owner" % base)
    check(owner is not None and owner.decode().split("\n")[0] == "sluice data directory " + ident,
          "m1's location is claimed by this data directory (%r)" % owner)
    # A location claimed by a data directory elsewhere (as when two start a
    # job of one name at the same moment: one PUT with If-None-Match wins).
    s3_util.client().put_object(Bucket=BUCKET, Key="%s/m2/_owner" % base,
                                Body=b"sluice data directory 0123\npath: /elsewhere\nhost: h2\n")
    p = run(a, data, job_sql("m2", base, os.path.join(work, "out-m2"), 10, 10, parallelism=1),
            work)
    check(p.returncode != 0 and "55000" in p.stderr and "/elsewhere" in p.stderr and
          not os.path.exists(os.path.join(work, "out-m2")),
          "a location another data directory claimed: 55000 naming it, no row written: %s"
          % p.stderr.strip()[-400:])
    # rocksdb in S3.
    p = run(a, os.path.join(work, "rocks"),
            job_sql("rk", base, os.path.join(work, "out-rk"), 10, 10, parallelism=1,
                    extra="SET 'state.backend.type' = 'rocksdb';\n"), work)
    check(p.returncode != 0 and "0A000" in p.stderr and "rocksdb" in p.stderr,
          "rocksdb with checkpoints in S3: 0A000: %s" % p.stderr.strip()[-300:])
    # A wrong secret: refused before any row.
    bad = job_sql("wrong", base, os.path.join(work, "out-wrong"), 10, 10, parallelism=1)
    bad = bad.replace(s3_util.SECRET_KEY, "not-the-secret")
    p = run(a, os.path.join(work, "wrong"), bad, work)
    check(p.returncode != 0 and "28P01" in p.stderr and "not-the-secret" not in
          p.stdout + p.stderr and not os.path.exists(os.path.join(work, "out-wrong")),
          "a wrong secret: 28P01 at planning, the secret not shown: %s"
          % p.stderr.strip()[-300:])

    # A fork from m1's final checkpoint in S3, into a sink of its own: the
    # datagen sequence goes on after the checkpoint, so the fork writes the
    # ids of a longer input that m1 did not read.
    more = 4500
    fork_out = os.path.join(work, "out-fork")
    fork = job_sql("fork", base, fork_out, more, 4500, parallelism=1,
                   extra="SET 'execution.savepoint.path' = 's3://%s/%s/m1/chk-%d';\n"
                         "SET 'execution.savepoint-restore-mode' = 'no_claim';\n"
                         % (BUCKET, base, final))
    p = run(a, data, fork, work)
    check(p.returncode == 0, "the fork from s3://.../m1/chk-%d ran: %s"
          % (final, p.stderr.strip()[-1500:]))
    if p.returncode == 0:
        exactly_once(ids_in(fork_out), rows + 1, more, "the fork (ids after m1's checkpoint)")
        check(chk_ids(chk_objects(base + "/fork")), "the fork's own checkpoints are in S3")

    # DROP JOB: gone from S3.
    p = run(a, data, "DROP JOB 'fork';\n", work)
    check(p.returncode != 0 and "28000" in p.stderr and
          chk_ids(chk_objects(base + "/fork")),
          "DROP JOB without credentials for S3: 28000, nothing dropped: %s"
          % p.stderr.strip()[-300:])
    p = run(a, data, storage_settings(base) + "DROP JOB 'fork';\nSHOW JOBS;\n", work)
    check(p.returncode == 0, "DROP JOB 'fork': %s" % p.stderr.strip()[-400:])
    left = [r for r in chk_objects(base + "/fork") if r.startswith("chk-") or r == "_latest"]
    check(not left, "DROP JOB removed the fork's checkpoints from S3 (%s)" % left[:3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--case", required=True, choices=["crash", "manage"])
    ap.add_argument("--kills", type=int, default=10)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    a = ap.parse_args()
    print("s3_checkpoint_test: seed %d" % a.seed)
    work = tempfile.mkdtemp(prefix="s3ckpt-")
    try:
        {"crash": case_crash, "manage": case_manage}[a.case](a, work)
    finally:
        if not FAILED:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("s3_checkpoint_test: work directory kept: %s" % work)
    if FAILED:
        print("s3_checkpoint_test: %d FAILED: %s" % (len(FAILED), FAILED))
        sys.exit(1)
    print("s3_checkpoint_test: all passed")


if __name__ == "__main__":
    main()
