#!/usr/bin/env python3
"""kafka_connector_test.py — the kafka connector against a real broker
(scripts/kafka at 127.0.0.1:$KAFKA_PORT), checked by kcat, not by Sluice.

--case pipeline: 1000 JSON records (keyed, so they spread over the 3
  partitions of a fresh topic) are produced with kcat; `sluice` runs, at
  parallelism 2 with checkpoints every 300 ms,
      INSERT INTO dst SELECT id, name, id * 2 FROM src WHERE id % 3 <> 0
  from a kafka source (earliest-offset) into a kafka sink (at-least-once,
  JSON) on a fresh 3-partition topic. The source is unbounded: once kcat
  (isolation.level=read_committed) sees as many output records as the
  reference has (bounded wait), the job is stopped with SIGTERM. The output
  is compared with the reference computed here: nothing missing, nothing
  that is not in the reference; duplicates are allowed (at-least-once) and
  counted.
--case malformed: a record that is not JSON at a known partition/offset
  fails the job (exit status 1) with 22P02 naming <topic>/<partition>/<offset>
  and the record.
--case restart: the pipeline on the first 500 records, SIGKILLed after
  their output arrived and checkpoints were taken; the other 500 are
  produced while it is down; started again with the same data directory
  (the job resumes from its last checkpoint): nothing missing, and fewer
  duplicates than records before the kill (it did not read from the
  beginning again).
--case buffer: the source's memory bound (kafka_source.c): 60 000 records
  of about 400 bytes copied at parallelism 2 with 'scan.buffer.max-bytes'
  = '256 kb' (librdkafka's queue bound: 64 KB, about 290 records) and a
  producer queue of 256 KB, checkpoints every 10 s. librdkafka 2.0 stops
  fetching each time its queue reaches the bound until its broker thread
  wakes, unless the source wakes it: without the wake-up the copy took
  about 20 s here, with it about 3 s; the deadline is 12 s. The output is
  exactly the input
  (kcat): nothing lost and nothing twice (the wake-up seeks each partition
  to just after the last record taken).

Usage: kafka_connector_test.py --sluice PATH --topic-tool PATH --case NAME
"""
import argparse
import collections
import json
import os
import re
import signal
import subprocess
import tempfile
import time

from kafka_util import (BROKER, ENV, compare, consume, create_topic, fail, kcat,
                        partition_counts, produce)

N = 1000
DEADLINE_S = 45  # longest wait for the output of one run


def job_sql(run, src, dst, with_name=True):
    tables = ("CREATE TABLE IF NOT EXISTS src (id BIGINT, name STRING) WITH ("
              "'connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s', "
              "'format' = 'json', 'scan.startup.mode' = 'earliest-offset');\n"
              "CREATE TABLE IF NOT EXISTS dst (id BIGINT, name STRING, x BIGINT) WITH ("
              "'connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s', "
              "'format' = 'json', 'key.format' = 'json', 'key.fields' = 'id', "
              "'sink.delivery-guarantee' = 'at-least-once');\n"
              % (src, BROKER, dst, BROKER))
    return ("SET 'parallelism.default' = '2';\n"
            "SET 'execution.checkpointing.interval' = '300 ms';\n"
            "SET 'pipeline.name' = '%s';\n" % run + tables +
            "INSERT INTO dst SELECT id, name, id * 2 FROM src WHERE id % 3 <> 0;\n")


def reference():
    return collections.Counter((i, "n%d" % i, i * 2) for i in range(1, N + 1) if i % 3 != 0)


def read_output(topic):
    got = collections.Counter()
    for v in consume(topic):
        r = json.loads(v)
        got[(r["id"], r["name"], r["x"])] += 1
    return got


def start(sluice, data, sql):
    return subprocess.Popen([sluice, "--data-dir", data, "-q", "-e", sql],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)


def wait_output(p, topic, want, deadline_s=DEADLINE_S, at_least=None):
    """Poll the output topic until it holds `want` distinct reference rows (or
    `at_least` records); False when the job exited or time ran out."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if p.poll() is not None:
            return False
        got = read_output(topic)
        if at_least is not None and sum(got.values()) >= at_least:
            return True
        if at_least is None and len(set(got) & set(want)) >= len(want):
            return True
        time.sleep(0.5)
    return False


def stop(p, sig=signal.SIGTERM):
    if p.poll() is None:
        p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    return out.decode(errors="replace"), err.decode(errors="replace")


def check(got, want, label):
    missing, extra, _ = compare(got, want, label)
    if extra:
        fail("rows that are not in the reference: %r" % extra[:5])
    if missing:
        fail("%d rows missing, e.g. %r" % (len(missing), sorted(missing)[:5]))


def input_records():
    return [(i, json.dumps({"id": i, "name": "n%d" % i})) for i in range(1, N + 1)]


def case_pipeline(a, run, data):
    src, dst = run + "-in", run + "-out"
    create_topic(a.topic_tool, src, 3)
    create_topic(a.topic_tool, dst, 3)
    produce(src, input_records())
    parts = partition_counts(src)
    if len(parts) != 3 or sum(parts.values()) != N:
        fail("the input is not spread over 3 partitions: %r" % dict(parts))
    want = reference()
    p = start(a.sluice, data, job_sql(run, src, dst))
    ok = wait_output(p, dst, want)
    out, err = stop(p)
    if not ok:
        fail("the output did not arrive within %d s (exit %r)\nstdout:\n%s\nstderr:\n%s"
             % (DEADLINE_S, p.returncode, out, err))
    check(read_output(dst), want, "pipeline")
    # Keyed by id, so murmur2 spreads them (keyless records would stick to
    # one partition per batch: librdkafka's sticky partitioner).
    if len(partition_counts(dst)) < 2:
        fail("the sink wrote to fewer than 2 partitions: %r" % dict(partition_counts(dst)))


def case_buffer(a, run, data):
    n = 60000
    pad = "x" * 380
    src, dst = run + "-in", run + "-out"
    create_topic(a.topic_tool, src, 3)
    create_topic(a.topic_tool, dst, 3)
    produce(src, [(i, json.dumps({"id": i, "name": "n%d%s" % (i, pad)})) for i in range(n)])
    want = collections.Counter((i, "n%d%s" % (i, pad)) for i in range(n))
    sql = ("SET 'parallelism.default' = '2';\n"
           "SET 'execution.checkpointing.interval' = '10 s';\n"
           "SET 'pipeline.name' = '%s';\n"
           "CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'kafka', "
           "'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'format' = 'json', "
           "'scan.startup.mode' = 'earliest-offset', 'scan.buffer.max-bytes' = '256 kb');\n"
           "CREATE TABLE dst (id BIGINT, name STRING) WITH ('connector' = 'kafka', "
           "'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'format' = 'json', "
           "'key.format' = 'json', 'key.fields' = 'id', "
           "'properties.queue.buffering.max.kbytes' = '256', "
           "'sink.delivery-guarantee' = 'at-least-once');\n"
           "INSERT INTO dst SELECT id, name FROM src;\n" % (run, src, BROKER, dst, BROKER))
    t0 = time.monotonic()
    p = start(a.sluice, data, sql)
    deadline = 12  # woken: about 3 s; not woken: about 20 s
    ok = False
    while not ok and time.monotonic() - t0 < deadline and p.poll() is None:
        time.sleep(0.5)
        ok = len(consume(dst)) >= n
    took = time.monotonic() - t0
    out, err = stop(p)
    if not ok:
        fail("%d records were not copied within %d s (librdkafka's fetcher not woken?); "
             "exit %r\nstderr:\n%s" % (n, deadline, p.returncode, err[-3000:]))
    got = collections.Counter()
    for v in consume(dst):
        r = json.loads(v)
        got[(r["id"], r["name"])] += 1
    missing = want - got
    twice = got - want
    if missing:
        fail("%d records missing, e.g. ids %r" % (sum(missing.values()),
                                                 sorted(k[0] for k in missing)[:5]))
    if twice:
        fail("%d records written more than once or not in the input, e.g. ids %r"
             % (sum(twice.values()), sorted(k[0] for k in twice)[:5]))
    print("buffer: %d records copied in %.1f s" % (n, took))


def case_malformed(a, run, data):
    src, dst = run + "-in", run + "-out"
    create_topic(a.topic_tool, src, 3)
    create_topic(a.topic_tool, dst, 1)
    good = [(i, json.dumps({"id": i, "name": "n%d" % i})) for i in range(1, 11)]
    produce(src, good, partition=1)
    produce(src, [(11, '{"id": 11, "name": oops}')], partition=1)  # offset 10 of partition 1
    p = start(a.sluice, data, job_sql(run, src, dst))
    try:
        out, err = p.communicate(timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        out, err = stop(p)
        fail("the job did not fail on the malformed record\nstderr:\n%s" % err)
    err = err.decode(errors="replace")
    if p.returncode != 1:
        fail("exit status %r, not 1\nstderr:\n%s" % (p.returncode, err))
    for want in ("malformed JSON record", "SQLSTATE: 22P02", "in %s/1/10: " % src,
                 '{"id": 11, "name": oops}'):
        if want not in err:
            fail("%r is not in the error:\n%s" % (want, err))
    print("malformed: the job failed with\n" + err)


def case_restart(a, run, data):
    src, dst = run + "-in", run + "-out"
    create_topic(a.topic_tool, src, 3)
    create_topic(a.topic_tool, dst, 3)
    records = input_records()
    produce(src, records[:N // 2])
    first = collections.Counter(k for k in reference() if k[0] <= N // 2)
    sql = job_sql(run, src, dst)
    p = start(a.sluice, data, sql)
    ok = wait_output(p, dst, first)
    time.sleep(1.0)  # a few checkpoints (every 300 ms) cover the first half
    out, err = stop(p, signal.SIGKILL)
    if not ok:
        fail("the first half did not arrive before the kill\nstderr:\n%s" % err)
    before = sum(read_output(dst).values())
    jobdir = os.path.join(data, "jobs", run)
    chks = sorted(n for n in os.listdir(jobdir) if n.startswith("chk-")) \
        if os.path.isdir(jobdir) else []
    if not chks:
        fail("no checkpoint before the kill")
    print("restart: SIGKILL with %d records in the output; checkpoints %s" % (before, chks))
    # The second half arrives while the job is down.
    produce(src, records[N // 2:])
    p = start(a.sluice, data, sql)
    want = reference()
    ok = wait_output(p, dst, want)
    out, err = stop(p)
    if not ok:
        fail("after the restart the output was not complete within %d s (exit %r)\nstderr:\n%s"
             % (DEADLINE_S, p.returncode, err))
    got = read_output(dst)
    check(got, want, "restart")
    # Resumed from the checkpoint's offsets, not from the beginning: the
    # first half is not all read again.
    dups = sum(got.values()) - len(got)
    if dups >= before:
        fail("%d duplicates for %d records before the kill: the restarted job read the "
             "topic again from the beginning" % (dups, before))


def case_startup(a, run, data):
    """'scan.startup.mode' = 'specific-offsets': partition 0 from offset 4,
    partition 1 from 7, partition 2 (not listed) from its beginning; the
    reference comes from kcat's partition/offset of every record. Then the
    option errors."""
    src = run + "-in"
    create_topic(a.topic_tool, src, 3)
    for part in range(3):
        produce(src, [(i, json.dumps({"id": i, "name": "n%d" % i}))
                      for i in range(part * 100, part * 100 + 10)], partition=part)
    out = kcat("-C", "-t", src, "-o", "beginning", "-e", "-q", "-f", "%p %o %s\\n")
    start_at = {0: 4, 1: 7, 2: 0}
    want = sorted(json.loads(line.split(" ", 2)[2])["id"] for line in out.decode().split("\n")
                  if line and int(line.split()[1]) >= start_at[int(line.split()[0])])
    sql = ("SET 'parallelism.default' = '2';\n"
           "CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'kafka', "
           "'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'format' = 'json', "
           "'scan.startup.mode' = 'specific-offsets', "
           "'scan.startup.specific-offsets' = 'partition:0,offset:4;partition:1,offset:7');\n"
           "SELECT id FROM src LIMIT %d;\n" % (src, BROKER, len(want)))
    r = subprocess.run([a.sluice, "--data-dir", data, "-q", "-e", sql], capture_output=True,
                       timeout=DEADLINE_S, env=ENV)
    if r.returncode != 0:
        fail("the query failed:\n" + r.stderr.decode(errors="replace"))
    got = sorted(int(x) for x in re.findall(r"^\|\s+(\d+)\s+\|$", r.stdout.decode(), re.M))
    if got != want:
        fail("specific-offsets read %r, not %r" % (got, want))
    for opts, msg in [("'scan.startup.mode' = 'specific-offsets'",
                       "needs the option 'scan.startup.specific-offsets'"),
                      ("'scan.startup.mode' = 'timestamp'",
                       "needs the option 'scan.startup.timestamp-millis'"),
                      ("'scan.startup.specific-offsets' = 'partition:x'",
                       "invalid value for option 'scan.startup.specific-offsets'")]:
        bad = ("CREATE TABLE t2 (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 't', "
               "'properties.bootstrap.servers' = '%s', 'format' = 'json', %s);" % (BROKER, opts))
        r = subprocess.run([a.sluice, "--data-dir", data, "-q", "-e", bad], capture_output=True,
                           timeout=60, env=ENV)
        if r.returncode == 0 or msg not in r.stderr.decode(errors="replace"):
            fail("%s: expected an error with %r, got:\n%s" % (opts, msg, r.stderr.decode()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--topic-tool", required=True)
    ap.add_argument("--case", required=True,
                    choices=["pipeline", "malformed", "restart", "startup", "buffer"])
    a = ap.parse_args()
    run = "sl-kafka-%s-%d-%d" % (a.case, int(time.time()), os.getpid())
    with tempfile.TemporaryDirectory() as data:
        {"pipeline": case_pipeline, "malformed": case_malformed,
         "restart": case_restart, "startup": case_startup,
         "buffer": case_buffer}[a.case](a, run, data)
    print("ok: kafka connector %s" % a.case)


if __name__ == "__main__":
    main()
