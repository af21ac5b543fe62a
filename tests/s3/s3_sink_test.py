#!/usr/bin/env python3
"""s3_sink_test.py — the filesystem sink on s3:// paths (part files as S3
multipart uploads, completed at checkpoint commit: connectors/filesystem/
fs_sink.c, fs_s3.c) against the SeaweedFS server of the `s3` fixture. The
reader is boto3 through s3_util (never Sluice); every reference is computed
here from datagen's sequence: id 1..N, x = id * 3, tag = a text of id.

--case rows     a statement set into three tables: `big` (rows of ~130 bytes,
                one checkpoint interval longer than the input: a part file
                over 5 MiB, uploaded as 2+ parts) and `rolled`
                ('sink.rolling-policy.file-size' = '256 kb': many part files).
                The objects' lines equal the reference, each row once; part
                file names follow part-<id>-<subtask>-<epoch>-<seq>.csv; at
                least one object has a multipart ETag of 2+ parts, which
                equals the ETag computed here from its bytes cut at the
                5 MiB part size; no multipart upload is left. `parted`,
                PARTITIONED BY (k) with the success-file policy: each row under
                k=<its value>/ (values with ' ', '=' and '/', escaped as Hive
                does; NULL under __DEFAULT_PARTITION__), a _SUCCESS object in
                each partition, every row once. EXPLAIN names the mechanism
                (multipart-upload); SHOW CREATE TABLE hides the secret key.
--case crash    datagen 1..N at parallelism 2, checkpoints every 200 ms, about
                --kills SIGKILLs: every third after a pre-commit (uploads
                complete but undecided: recover must abort them), every third
                after the seal (decided, not completed: recover must complete
                them), the rest at random; then a run to the end. Each id is
                counted in the objects: every row exactly once (a duplicate or
                a missing id fails: the count is the assertion), and
                ListMultipartUploads under the prefix is empty. Then the same
                with rows of ~1 kB at 8 MB/s and checkpoints every 1 s (part
                files of 2+ parts: the uploader thread sends a 5 MiB part
                while the next is filled) and 4 kills at random moments.
--case restart  the server is SIGKILLed and restarted (scripts/s3 restart
                --immediate) twice while a job writes; the client retries (or
                the job fails and its restart strategy restarts it): the
                objects hold every row exactly once, no upload is left.
--case source   the source on s3:// (fs_source.c): objects written here by
                boto3 — 24 visible ones of ~150 kB (read with ranged GETs of
                1 MiB: lines cross the blocks), the last without a final
                newline, plus hidden ones ('_x', '.y', which must not be read)
                and one a level down (not read: not a partition directory) —
                read into an s3:// sink, exactly-once, checkpoints every 100
                ms, 6 SIGKILLs (after pre-commit, after the seal, at random),
                then a run to the end: the output holds each input line once.
                Then 'source.monitor-interval' = '200 ms': objects added while
                the job runs are read (the job is stopped once the output has
                them all).
--case commit   the commit's idempotence, by a crash right after the seal of
                checkpoint 1 (decided, its upload not completed) and a change
                made here before the restart: (a) the upload completed here
                and its object then PUT again with the same bytes (SeaweedFS
                then answers NoSuchUpload, as AWS does for a completed
                upload): the restart takes the object of the recorded size as
                committed and the job ends with every row once; (b) the upload
                aborted here: the restart fails with 58030 "data of a
                committed checkpoint is missing" (never a silent success);
                (c) completed, then replaced by other bytes: 58030, the object
                is not the one committed. Then a job name reused over old
                output (a second data directory, the same prefix): its
                commit fails with 58030 instead of replacing the old part
                files (the conditional Complete), which stay as they were.
--case refuse   plan-time refusals, before any row: a wrong secret (28P01),
                an unknown access key (28000), the read-only identity (42501:
                it may list, not write), a missing bucket (58P01), no
                credentials at all (28000); the secret never in the output.
                Then the credentials from AWS_ACCESS_KEY_ID /
                AWS_SECRET_ACCESS_KEY (no s3.* keys on the table) work.

Usage: s3_sink_test.py --sluice PATH --case rows|crash|restart|source|commit|refuse [--kills N]
                        [--seed N]
"""
import argparse
import collections
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import s3_util

BUCKET = "sluice"
FAILED = []
ENV = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
ENV["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"
PART_NAME = re.compile(r"^part-[0-9a-f]{16}-(\d+)-(\d+)-(\d+)\.csv$")


def check(cond, what):
    print("s3_sink_test: %s: %s" % ("ok" if cond else "FAILED", what), flush=True)
    if not cond:
        FAILED.append(what)


def s3_options(access=s3_util.ACCESS_KEY, secret=s3_util.SECRET_KEY, extra=""):
    o = ", 's3.endpoint' = '%s'" % s3_util.ENDPOINT
    if access is not None:
        o += ", 's3.access-key' = '%s'" % access
    if secret is not None:
        o += ", 's3.secret-key' = '%s'" % secret
    return o + extra


def gen_table(rows, rate):
    return ("CREATE TABLE IF NOT EXISTS gen (id BIGINT) WITH ('connector' = 'datagen', "
            "'number-of-rows' = '%d', 'rows-per-second' = '%d', 'fields.id.kind' = 'sequence', "
            "'fields.id.start' = '1', 'fields.id.end' = '%d');\n" % (rows, rate, rows))


def out_table(name, prefix, opts=None, extra=""):
    return ("CREATE TABLE IF NOT EXISTS %s (id BIGINT, x BIGINT, tag STRING) WITH ("
            "'connector' = 'filesystem', 'path' = 's3://%s/%s', 'format' = 'csv'%s%s);\n"
            % (name, BUCKET, prefix, s3_options() if opts is None else opts, extra))


def select(pad):
    # tag: "t<id>-" then pad bytes of 's': a row is about pad + 20 bytes.
    return ("SELECT id, id * 3, CONCAT('t', CAST(id AS STRING), '-', REPEAT('s', %d)) FROM gen"
            % pad)


def reference(rows, pad):
    return collections.Counter("%d,%d,t%d-%s" % (i, i * 3, i, "s" * pad)
                               for i in range(1, rows + 1))


def objects(prefix):
    """{key: bytes} of the visible objects under prefix (names not starting
    with '.' or '_')."""
    out = {}
    for key, size, etag in s3_util.list_keys(BUCKET, prefix + "/"):
        name = key.rsplit("/", 1)[-1]
        if name.startswith(".") or name.startswith("_"):
            continue
        out[key] = s3_util.read(BUCKET, key)
    return out


def lines_of(objs):
    c = collections.Counter()
    for body in objs.values():
        for line in body.decode().split("\n"):
            if line:
                c[line] += 1
    return c


def compare(got, want, what):
    missing = sum((want - got).values())
    extra = sum((got - want).values())
    doubled = sum(n - 1 for n in got.values() if n > 1)
    print("s3_sink_test: %s: %d rows expected, %d read: %d missing, %d extra, %d doubled"
          % (what, sum(want.values()), sum(got.values()), missing, extra, doubled))
    check(missing == 0 and extra == 0, "%s: every row exactly once" % what)


def ids_exactly_once(objs, rows, what):
    """Counts each id (the first CSV field) over every object."""
    count = collections.Counter()
    for body in objs.values():
        for line in body.decode().split("\n"):
            if line:
                count[int(line.split(",", 1)[0])] += 1
    missing = [i for i in range(1, rows + 1) if count[i] == 0]
    doubled = [i for i, n in count.items() if n > 1]
    foreign = [i for i in count if i < 1 or i > rows]
    print("s3_sink_test: %s: %d ids expected, %d lines in %d objects: %d missing, %d doubled "
          "(e.g. %s), %d foreign" % (what, rows, sum(count.values()), len(objs), len(missing),
                                     len(doubled), doubled[:5], len(foreign)))
    check(not missing and not doubled and not foreign, "%s: every id exactly once" % what)


def no_uploads(prefix, what):
    left = s3_util.uploads(BUCKET, prefix + "/")
    check(not left, "%s: no multipart upload left under %s/ (%d: %s)"
          % (what, prefix, len(left), left[:3]))


def run(a, work, sql, timeout=120, env=None):
    path = os.path.join(work, "job-%d.sql" % time.monotonic_ns())
    with open(path, "w", encoding="utf-8") as f:
        f.write(sql)
    e = dict(ENV)
    e.update(env or {})
    return subprocess.run([a.sluice, "--data-dir", os.path.join(work, "data"), "-f", path],
                          capture_output=True, text=True, env=e, timeout=timeout)


def settings(name, interval, parallelism=1):
    return ("SET 'parallelism.default' = '%d';\n"
            "SET 'execution.checkpointing.interval' = '%s';\n"
            "SET 'restart-strategy.fixed-delay.delay' = '300 ms';\n"
            "SET 'pipeline.name' = '%s';\n" % (parallelism, interval, name))


def prefix_of(case):
    return "%s-%d-%d" % (case, os.getpid(), int(time.time() * 1000) % 10**9)


# ---------------------------------------------------------------------------
def case_rows(a, work):
    rows, pad = 50000, 120  # ~7 MB: the one part file of `big` has 2 parts
    pre = prefix_of("rows")
    sql = (settings("rows", "60 s") + gen_table(rows, 10**7) +
           out_table("big", pre + "/big") +
           out_table("rolled", pre + "/rolled",
                     extra=", 'sink.rolling-policy.file-size' = '256 kb'") +
           "CREATE TABLE parted (id BIGINT, x BIGINT, k STRING) PARTITIONED BY (k) WITH ("
           "'connector' = 'filesystem', 'path' = 's3://%s/%s/parted', 'format' = 'csv'%s, "
           "'sink.partition-commit.policy.kind' = 'success-file');\n"
           % (BUCKET, pre, s3_options()) +
           "EXPLAIN INSERT INTO big %s;\n" % select(pad) +
           "SHOW CREATE TABLE big;\n"
           "EXECUTE STATEMENT SET BEGIN\nINSERT INTO big %s;\nINSERT INTO rolled %s;\n"
           "INSERT INTO parted SELECT id, id * 3, CASE id %% 3 WHEN 0 THEN 'a b=c' WHEN 1 THEN "
           "'x/y' END FROM gen;\nEND;\n" % (select(pad), select(pad)))
    t0 = time.monotonic()
    p = run(a, work, sql)
    check(p.returncode == 0, "the job ran (%.1f s): %s" % (time.monotonic() - t0,
                                                           p.stderr[-2000:]))
    check("mechanism: multipart-upload, commit role: preparable" in p.stdout,
          "EXPLAIN names the mechanism (multipart-upload)")
    check("effective exactly-once" in p.stdout, "EXPLAIN: effective exactly-once")
    check(s3_util.SECRET_KEY not in p.stdout + p.stderr and "'s3.secret-key' = '******'" in
          p.stdout, "SHOW CREATE TABLE hides the secret key")
    want = reference(rows, pad)
    for t in ("big", "rolled"):
        objs = objects(pre + "/" + t)
        compare(lines_of(objs), want, t)
        names = [k.rsplit("/", 1)[-1] for k in objs]
        check(names and all(PART_NAME.match(n) for n in names),
              "%s: %d part files named part-<id>-<subtask>-<epoch>-<seq>.csv (%s)"
              % (t, len(names), names[:2]))
        no_uploads(pre + "/" + t, t)
        if t == "rolled":
            check(len(objs) >= 20, "rolled: many files of at most 256 kb + a row (%d)" % len(objs))
            check(all(len(b) < 256 * 1024 + 200 for b in objs.values()),
                  "rolled: each file at most the rolling size plus one row")
    # The partitioned table, by the keys boto3 lists.
    pdir = {0: "k=a b%3Dc", 1: "k=x%2Fy", 2: "k=__DEFAULT_PARTITION__"}
    got, success = collections.Counter(), set()
    for key, size, etag in s3_util.list_keys(BUCKET, pre + "/parted/"):
        rel = key[len(pre) + len("/parted/"):]
        d, name = rel.rsplit("/", 1) if "/" in rel else ("", rel)
        if name == "_SUCCESS":
            success.add(d)
            continue
        for line in s3_util.read(BUCKET, key).decode().split("\n"):
            if line:
                i, x = (int(v) for v in line.split(","))
                got[(d, i, x)] += 1
    want = collections.Counter((pdir[i % 3], i, i * 3) for i in range(1, rows + 1))
    compare(got, want, "parted (rows under the partition of their k)")
    check(success == set(pdir.values()), "parted: a _SUCCESS in each partition (%s)"
          % sorted(success))
    no_uploads(pre + "/parted", "parted")
    multi = 0
    for key, size, etag in s3_util.list_keys(BUCKET, pre + "/big/"):
        m = re.match(r'^"[0-9a-f]{32}-(\d+)"$', etag)
        if m and int(m.group(1)) >= 2:
            body = s3_util.read(BUCKET, key)
            # The sink sends a part once its buffer holds 5 MiB: whole rows,
            # so each part is 5 MiB plus the rest of the row that crossed it.
            cuts, at, part = [], 0, 5 * 1024 * 1024
            while len(body) - at > part:
                nl = body.index(b"\n", at + part - 1) + 1
                cuts.append(body[at:nl])
                at = nl
            cuts.append(body[at:])
            check(etag == s3_util.multipart_etag(cuts),
                  "big: %s has the multipart ETag of its %d parts (%s)" % (key, len(cuts), etag))
            multi += 1
    check(multi >= 1, "big: an object of 2+ parts (a file over 5 MiB)")


def crash_sql(pre, rows, rate):
    return (settings("crash", "200 ms", parallelism=2) + gen_table(rows, rate) +
            out_table("out", pre) + "INSERT INTO out %s;\n" % select(10))


def case_crash(a, work):
    rows, rate = 6000, 600
    pre = prefix_of("crash")
    sql = crash_sql(pre, rows, rate)
    rnd = random.Random(a.seed)
    pauses = ["pre-commit", "seal", None]
    t0 = time.monotonic()
    path = os.path.join(work, "job.sql")
    with open(path, "w") as f:
        f.write(sql)
    kills, runs, _ended, failure = s3_util.kill_loop(
        [a.sluice, "--data-dir", os.path.join(work, "data"), "-f", path], ENV, a.kills, rnd,
        os.path.join(work, "stderr"), pauses=pauses, limit=70,
        nth=lambda r: r.randint(1, 3))  # not always the first checkpoint
    if failure:
        check(False, failure)
        return
    print("s3_sink_test: %d SIGKILLs in %d runs (%.1f s)" % (kills, runs, time.monotonic() - t0))
    check(kills >= min(a.kills, 8), "at least %d SIGKILLs (%d)" % (min(a.kills, 8), kills))
    # Before the last run: what recovery must clean up is there.
    print("s3_sink_test: before the last run: %d objects, %d uploads under the prefix"
          % (len(s3_util.list_keys(BUCKET, pre + "/")), len(s3_util.uploads(BUCKET, pre + "/"))))
    p = run(a, work, sql, timeout=120)
    check(p.returncode == 0, "the last run ended: %s" % p.stderr[-2000:])
    ids_exactly_once(objects(pre), rows, "crash")
    no_uploads(pre, "crash")
    # Big rows: parts of 5 MiB in flight when killed.
    rows, pre = 40000, prefix_of("crashbig")
    shutil.rmtree(os.path.join(work, "data"), ignore_errors=True)
    sql = (settings("crashbig", "1 s") + gen_table(rows, 8000) + out_table("out", pre) +
           "INSERT INTO out %s;\n" % select(1000))
    kills, ended = kill_loop(a, work, sql, 4, rnd, pauses=(None,), limit=30)
    print("s3_sink_test: big rows: %d SIGKILLs%s" % (kills, ", the input ran out" if ended else ""))
    check(kills >= 2, "big rows: at least 2 SIGKILLs (%d)" % kills)
    p = run(a, work, sql, timeout=120)
    check(p.returncode == 0, "big rows: the last run ended: %s" % p.stderr[-2000:])
    objs = objects(pre)
    ids_exactly_once(objs, rows, "big rows")
    multi = [k for k, _, e in s3_util.list_keys(BUCKET, pre + "/") if re.search(r"-[2-9]\"$", e)]
    check(len(multi) > 0, "big rows: objects of 2+ parts (%d)" % len(multi))
    no_uploads(pre, "big rows")


def case_restart(a, work):
    rows, rate = 5000, 700  # about 7 s of input
    pre = prefix_of("restart")
    sql = (settings("restart", "200 ms") + gen_table(rows, rate) + out_table("out", pre) +
           "INSERT INTO out %s;\n" % select(10))
    path = os.path.join(work, "job.sql")
    with open(path, "w") as f:
        f.write(sql)
    errf = open(os.path.join(work, "stderr"), "w")
    p = subprocess.Popen([a.sluice, "--data-dir", os.path.join(work, "data"), "-f", path],
                         stdout=subprocess.DEVNULL, stderr=errf, env=ENV)
    t0 = time.monotonic()
    for at in (1.5, 4.0):
        time.sleep(max(0, t0 + at - time.monotonic()))
        if p.poll() is not None:
            break
        line = s3_util.restart(immediate=True)
        print("s3_sink_test: %.1f s: %s" % (time.monotonic() - t0, line))
    try:
        rc = p.wait(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = None
    errf.close()
    with open(os.path.join(work, "stderr"), errors="replace") as f:
        text = f.read()
    check(rc == 0, "the job ended through two server restarts (%r, %.1f s): %s"
          % (rc, time.monotonic() - t0, text[-2000:]))
    ids_exactly_once(objects(pre), rows, "restart")
    no_uploads(pre, "restart")


def put_objects(prefix, first, n, per, rnd):
    """n objects of per lines each, ids from first; returns the lines."""
    lines = []
    c = s3_util.client()
    for k in range(n):
        rows = ["%d,%d,t%d-%s" % (i, i * 3, i, "s" * rnd.randint(0, 60))
                for i in range(first + k * per, first + (k + 1) * per)]
        body = "\n".join(rows) + ("" if k == n - 1 else "\n")  # the last: no final newline
        c.put_object(Bucket=BUCKET, Key="%s/obj-%05d.csv" % (prefix, first + k * per),
                     Body=body.encode())
        lines += rows
    return lines


def kill_loop(a, work, sql, kills, rnd, pauses=("pre-commit", "seal", None), limit=40):
    """Runs of sql SIGKILLed `kills` times (pauses in turn); returns (kills, ended)."""
    path = os.path.join(work, "job.sql")
    with open(path, "w") as f:
        f.write(sql)
    done, _runs, ended, failure = s3_util.kill_loop(
        [a.sluice, "--data-dir", os.path.join(work, "data"), "-f", path], ENV, kills, rnd,
        os.path.join(work, "stderr"), pauses=pauses, limit=limit,
        wait=(0.2, 0.8) if len(pauses) > 1 else (0.5, 2.5))
    if failure:
        check(False, failure)
    return done, ended


def case_source(a, work):
    rnd = random.Random(a.seed)
    pre = prefix_of("source")
    lines = put_objects(pre + "/in", 1, 24, 2500, rnd)
    c = s3_util.client()
    for key in ("_x.csv", ".y.csv", "sub/z.csv"):  # never read
        c.put_object(Bucket=BUCKET, Key="%s/in/%s" % (pre, key), Body=b"999999999,0,hidden\n")
    src = ("CREATE TABLE IF NOT EXISTS src (id BIGINT, x BIGINT, tag STRING) WITH ("
           "'connector' = 'filesystem', 'path' = 's3://%s/%s/in', 'format' = 'csv'%s%s);\n")
    sql = (settings("source", "100 ms") + src % (BUCKET, pre, s3_options(), "") +
           out_table("out", pre + "/out") + "INSERT INTO out SELECT * FROM src;\n")
    kills, ended = kill_loop(a, work, sql, 6, rnd)
    print("s3_sink_test: source: %d SIGKILLs%s" % (kills, ", the input ran out" if ended else ""))
    check(kills >= 2, "source: at least 2 SIGKILLs (%d)" % kills)
    p = run(a, work, sql)
    check(p.returncode == 0, "source: the last run ended: %s" % p.stderr[-2000:])
    compare(lines_of(objects(pre + "/out")), collections.Counter(lines), "source")
    no_uploads(pre + "/out", "source")
    # Continuous: objects added while the job runs are read.
    shutil.rmtree(os.path.join(work, "data"), ignore_errors=True)
    sql = (settings("monitor", "100 ms") +
           src % (BUCKET, pre, s3_options(), ", 'source.monitor-interval' = '200 ms'") +
           out_table("out", pre + "/mon") + "INSERT INTO out SELECT * FROM src;\n")
    path = os.path.join(work, "mon.sql")
    with open(path, "w") as f:
        f.write(sql)
    errf = open(os.path.join(work, "mon.stderr"), "w")
    p = subprocess.Popen([a.sluice, "--data-dir", os.path.join(work, "data"), "-f", path],
                         stdout=subprocess.DEVNULL, stderr=errf, env=ENV)
    time.sleep(1.0)
    # (Named after the last object: a name before the current one that
    # appears later is not read, as with files.)
    lines += put_objects(pre + "/in", 900001, 3, 100, rnd)
    want = collections.Counter(lines)
    end = time.monotonic() + 30
    got = collections.Counter()
    while time.monotonic() < end and p.poll() is None:
        got = lines_of(objects(pre + "/mon"))
        if sum(got.values()) >= sum(want.values()):
            break
        time.sleep(0.3)
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
    errf.close()
    compare(lines_of(objects(pre + "/mon")), want, "source.monitor-interval")


def case_commit(a, work):
    rows = 3000
    c = s3_util.client()
    for what in ("replaced by the same bytes", "aborted", "replaced by other bytes"):
        pre = prefix_of("commit")
        data = os.path.join(work, "data")
        shutil.rmtree(data, ignore_errors=True)
        sql = (settings("commit", "300 ms") + gen_table(rows, 1500) + out_table("out", pre) +
               "INSERT INTO out %s;\n" % select(5))
        path = os.path.join(work, "commit.sql")
        with open(path, "w") as f:
            f.write(sql)
        errp = os.path.join(work, "commit.stderr")
        with open(errp, "w") as ef:
            p = subprocess.Popen([a.sluice, "--data-dir", data, "-f", path],
                                 stdout=subprocess.DEVNULL, stderr=ef,
                                 env=dict(ENV, SLUICE_TEST_PAUSE="seal:5000"))
        end = time.monotonic() + 30
        while time.monotonic() < end and p.poll() is None:
            with open(errp, errors="replace") as ef:
                if "sluice-test: paused after seal" in ef.read():
                    break
            time.sleep(0.02)
        p.send_signal(signal.SIGKILL)
        p.wait()
        # Checkpoint 1 is decided; its upload (epoch 1 in the name) is not
        # completed. (Epoch 2's upload, begun since, is not decided.)
        ups = [(k, u) for k, u in s3_util.uploads(BUCKET, pre + "/")
               if PART_NAME.match(k.rsplit("/", 1)[-1]).group(2) == "1"]
        check(len(ups) == 1, "%s: the decided checkpoint's upload is there, not completed (%s)"
              % (what, ups))
        if len(ups) != 1:
            continue
        key, up = ups[0]
        if what == "aborted":
            c.abort_multipart_upload(Bucket=BUCKET, Key=key, UploadId=up)
        else:
            parts = [{"PartNumber": n, "ETag": e} for n, _, e in s3_util.parts(BUCKET, key, up)]
            c.complete_multipart_upload(Bucket=BUCKET, Key=key, UploadId=up,
                                        MultipartUpload={"Parts": parts})
            body = s3_util.read(BUCKET, key)
            c.put_object(Bucket=BUCKET, Key=key,
                         Body=body if what == "replaced by the same bytes" else body + b"9,27,x\n")
        r = run(a, work, sql)
        out = r.stdout + r.stderr
        if what == "replaced by the same bytes":
            check(r.returncode == 0 and "SQLSTATE" not in out,
                  "%s: the restart takes it as committed and ends: %s" % (what, out[-1500:]))
            ids_exactly_once(objects(pre), rows, what)
            no_uploads(pre, what)
        else:
            msg = ("data of a committed checkpoint is missing" if what == "aborted" else
                   "is not the one its checkpoint committed")
            check("SQLSTATE: 58030" in out and msg in out,
                  "%s: the restart fails with 58030 \"...%s\": %s"
                  % (what, msg, [l for l in out.splitlines() if "ERROR" in l][:1]))
    # A job name reused over old output (another data directory, the same
    # prefix): its part files have the old ones' names. The commit never
    # replaces an object (If-None-Match): 58030 naming it, the old bytes kept.
    pre = prefix_of("reuse")
    sql = (settings("reuse", "300 ms") + gen_table(rows, 100000) + out_table("out", pre) +
           "INSERT INTO out %s;\n" % select(5))
    shutil.rmtree(os.path.join(work, "data"), ignore_errors=True)
    r = run(a, work, sql)
    check(r.returncode == 0, "reuse: the first job ran: %s" % r.stderr[-800:])
    before = objects(pre)
    shutil.rmtree(os.path.join(work, "data"), ignore_errors=True)  # another data directory
    # (other rows: an object with the same bytes would count as its own commit)
    r = run(a, work, sql.replace(select(5), select(6)))
    out = r.stdout + r.stderr
    check(r.returncode != 0 and "SQLSTATE: 58030" in out and "reused" in out,
          "reuse: the second job's commit fails with 58030 over an object of its name: %s"
          % [l for l in out.splitlines() if "ERROR" in l][:1])
    check(objects(pre) == before, "reuse: the first job's %d objects are unchanged" % len(before))


def case_refuse(a, work):
    pre = prefix_of("refuse")
    secret_marks = ["wrong-secret-7781", s3_util.SECRET_KEY, s3_util.RO_SECRET_KEY]

    def attempt(what, opts, state, env=None, path_bucket=BUCKET):
        sql = (settings("refuse", "1 s") + gen_table(10, 1000) +
               "CREATE TABLE o (id BIGINT, x BIGINT, tag STRING) WITH ('connector' = "
               "'filesystem', 'path' = 's3://%s/%s', 'format' = 'csv'%s);\n"
               "INSERT INTO o %s;\n" % (path_bucket, pre, opts, select(1)))
        shutil.rmtree(os.path.join(work, "data"), ignore_errors=True)
        t0 = time.monotonic()
        p = run(a, work, sql, env=env)
        out = p.stdout + p.stderr
        took = time.monotonic() - t0
        if state is None:
            check(p.returncode == 0 and "INSERT 0 10" in out,
                  "%s: the job ran (%.1f s): %s" % (what, took, out[-1500:]))
            return
        m = re.search(r"SQLSTATE: (\w+)", out)
        err = [l for l in out.splitlines() if "ERROR" in l]
        check(m is not None and m.group(1) == state and "INSERT 0" not in out,
              "%s: refused at planning with %s (%s; %.1f s): %s"
              % (what, state, m.group(1) if m else None, took, err[:1]))
        check(not any(s in out for s in secret_marks), "%s: no secret in the output" % what)
    attempt("wrong secret", s3_options(secret="wrong-secret-7781"), "28P01")
    attempt("unknown access key", s3_options(access="nobody-7781"), "28000")
    attempt("read-only identity", s3_options(s3_util.RO_ACCESS_KEY, s3_util.RO_SECRET_KEY),
            "42501")
    attempt("missing bucket", s3_options(), "58P01", path_bucket="no-such-bucket-7781")
    attempt("no credentials", s3_options(access=None, secret=None), "28000")
    check(not s3_util.list_keys(BUCKET, pre + "/") and not s3_util.uploads(BUCKET, pre + "/"),
          "nothing written by the refused jobs (nor the write check's probe upload)")
    attempt("credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY",
            s3_options(access=None, secret=None), None,
            env={"AWS_ACCESS_KEY_ID": s3_util.ACCESS_KEY,
                 "AWS_SECRET_ACCESS_KEY": s3_util.SECRET_KEY})
    ids_exactly_once(objects(pre), 10, "env credentials")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--case", required=True,
                    choices=["rows", "crash", "restart", "source", "commit", "refuse"])
    ap.add_argument("--kills", type=int, default=12)
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    if a.seed is None:
        a.seed = random.randrange(1 << 30)
    print("s3_sink_test: case %s, seed %d" % (a.case, a.seed))
    work = tempfile.mkdtemp(prefix="s3sink-")
    t0 = time.monotonic()
    try:
        globals()["case_" + a.case](a, work)
    finally:
        if not FAILED:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("s3_sink_test: kept %s" % work)
    print("s3_sink_test: %s in %.1f s" % ("FAILED" if FAILED else "passed",
                                         time.monotonic() - t0))
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
