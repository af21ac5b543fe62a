#!/usr/bin/env python3
"""kafka_metadata_test.py — the kafka connector's METADATA columns against a
real broker, each value checked against an independent source: the records
are produced by the kafka_topic tool with known partitions and timestamps,
and read back by kcat.

--case read: 60 records in a 3-partition topic, each with a timestamp of
  its own (produced with explicit partitions and timestamps), read by a job
  with parallelism 2 declaring every readable key but headers (topic,
  partition, offset, timestamp as TIMESTAMP_LTZ(3), timestamp-type,
  leader-epoch; a second table reads timestamp as TIMESTAMP(3)) into
  filesystem sinks (exactly-once). Every
  row's metadata must equal what kcat reports for the record of the same
  value (topic, partition, offset, timestamp, CreateTime). The same job
  runs a TUMBLE window over the timestamp metadata column as its rowtime
  (WATERMARK FOR ts AS ts): each window's count must equal the count of
  records whose Kafka timestamp falls in it.
--case write: rows with an event time of their own, written exactly-once
  into a topic whose table declares `ts TIMESTAMP_LTZ(3) METADATA FROM
  'timestamp'` (and a VIRTUAL offset column, not written): a read_committed
  kcat must see every row once with the record timestamp the row carried,
  and the value must not hold the metadata columns. A control: the same
  rows into a table without the metadata column get the producer's clock
  as their timestamps, so the check would fail.
--case headers: records produced by kcat with headers of their own (a name
  given twice, an empty value, none at all) are read by a job declaring
  `headers MAP<STRING, BYTES> METADATA`, which writes (exactly-once) each
  record again with headers built from them (its trace header, a constant
  one, a NULL value) and their count into a filesystem table; a
  read_committed kcat must see every written record once with exactly
  those headers, and the files each record's count and trace as kcat read
  them from the input.

Usage: kafka_metadata_test.py --sluice PATH --topic-tool PATH --case NAME
"""
import argparse
import collections
import csv
import datetime
import glob
import json
import os
import shutil
import subprocess
import tempfile
import time

import kafka_util
from kafka_util import Job, create_topic, fail, kcat

DEADLINE_S = 90
BASE_MS = 1767261600000  # 2026-01-01 10:00:00 UTC


def write_job(base, name, sql):
    path = os.path.join(base, name + ".sql")
    with open(path, "w") as f:
        f.write(sql)
    return path


def wait_for(pred, timeout, job, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        if not job.alive():
            fail("the job exited while waiting for %s:\n%s" % (what, job.stderr()))
        time.sleep(0.5)
    fail("%s did not arrive within %d s\n%s" % (what, timeout, job.stderr_now()))


def produce_timestamped(a, topic, recs):
    """recs: [(partition, timestamp_ms, value)] through kafka_topic --produce."""
    data = "".join("%d\t%d\t%s\n" % r for r in recs).encode()
    r = subprocess.run([a.topic_tool, kafka_util.BROKER, "--produce", topic], input=data,
                       capture_output=True, timeout=120)
    if r.returncode != 0:
        fail("kafka_topic --produce: %s" % r.stderr.decode(errors="replace"))


def kcat_records(topic):
    """{value: (topic, partition, offset, timestamp_ms)} as kcat reads them."""
    out = kcat("-C", "-t", topic, "-o", "beginning", "-e", "-q", "-X",
               "isolation.level=read_committed", "-f", "%t\t%p\t%o\t%T\t%s\n", timeout=120)
    recs = {}
    for line in out.decode().split("\n"):
        if line:
            t, p, o, ts, v = line.split("\t", 4)
            recs[v] = (t, int(p), int(o), int(ts))
    return recs


def csv_rows(path):
    rows = []
    for f in sorted(glob.glob(os.path.join(path, "*"))):
        name = os.path.basename(f)
        if name.startswith(".") or name.startswith("_") or not os.path.isfile(f):
            continue
        with open(f, newline="") as fh:
            rows.extend(csv.reader(fh))
    return rows


def ms_of(text):
    """'2026-01-01 10:00:01.000' (UTC) -> epoch ms."""
    d = datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f")
    return int(d.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)


def kafka_table(name, topic, cols, extra=""):
    return ("CREATE TABLE %s (%s) WITH ('connector' = 'kafka', 'topic' = '%s', "
            "'properties.bootstrap.servers' = '%s', 'format' = 'json'%s);\n"
            % (name, cols, topic, kafka_util.BROKER, extra))


# ---- read ---------------------------------------------------------------------

def case_read(a, run, base):
    topic = run + "-in"
    create_topic(a.topic_tool, topic, 3)
    recs = [(i % 3, BASE_MS + i * 1000 + (i % 7), json.dumps({"n": i})) for i in range(60)]
    # then one record per partition far ahead: the watermark (the smallest
    # partition's) passes every window of the 60
    recs += [(p, BASE_MS + 120000, json.dumps({"n": 1000 + p})) for p in range(3)]
    produce_timestamped(a, topic, recs)
    meta_dir, win_dir = os.path.join(base, "meta"), os.path.join(base, "win")
    local_dir = os.path.join(base, "local")
    sql = ("SET 'parallelism.default' = '2';\n"
           "SET 'execution.checkpointing.interval' = '300 ms';\n"
           "SET 'table.local-time-zone' = 'UTC';\n" +
           kafka_table("src", topic,
                       "n INT, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', "
                       "`partition` INT METADATA VIRTUAL, "
                       "`offset` BIGINT METADATA VIRTUAL, topic STRING METADATA VIRTUAL, "
                       "ttype STRING METADATA FROM 'timestamp-type' VIRTUAL, "
                       "epoch INT METADATA FROM 'leader-epoch' VIRTUAL, "
                       "WATERMARK FOR ts AS ts",
                       ", 'scan.startup.mode' = 'earliest-offset'") +
           # the key in a type of its own (cast after the scan); one column per key, as Flink
           kafka_table("src_local", topic, "n INT, local_ts TIMESTAMP(3) METADATA FROM 'timestamp'",
                       ", 'scan.startup.mode' = 'earliest-offset'") +
           "CREATE TABLE meta_out (n INT, topic STRING, p INT, o BIGINT, ts STRING, "
           "ttype STRING, epoch INT) WITH ('connector' = 'filesystem', "
           "'path' = '%s', 'format' = 'csv');\n" % meta_dir +
           "CREATE TABLE local_out (n INT, local_ts STRING) WITH ('connector' = 'filesystem', "
           "'path' = '%s', 'format' = 'csv');\n" % local_dir +
           "CREATE TABLE win_out (ws STRING, we STRING, c BIGINT) WITH ("
           "'connector' = 'filesystem', 'path' = '%s', 'format' = 'csv');\n" % win_dir +
           "EXECUTE STATEMENT SET BEGIN\n"
           "INSERT INTO meta_out SELECT n, topic, `partition`, `offset`, CAST(ts AS STRING), "
           "ttype, epoch FROM src;\n"
           "INSERT INTO local_out SELECT n, CAST(local_ts AS STRING) FROM src_local;\n"
           "INSERT INTO win_out SELECT CAST(window_start AS STRING), CAST(window_end AS STRING), "
           "COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
           "GROUP BY window_start, window_end;\n"
           "END;\n")
    job = Job(a.sluice, os.path.join(base, "data"), write_job(base, "read", sql))
    want_windows = collections.Counter((ts - BASE_MS) // 10000 for _, ts, v in recs
                                       if json.loads(v)["n"] < 1000)
    wait_for(lambda: len(csv_rows(meta_dir)) >= len(recs) and
             len(csv_rows(local_dir)) >= len(recs) and
             len(csv_rows(win_dir)) >= len(want_windows), DEADLINE_S, job, "the output")
    job.stop()
    kc = kcat_records(topic)
    if len(kc) != len(recs):
        fail("kcat reads %d records, %d were produced" % (len(kc), len(recs)))
    rows = csv_rows(meta_dir)
    if len(rows) != len(recs):
        fail("%d rows for %d records" % (len(rows), len(recs)))
    seen = set()
    local = dict(csv_rows(local_dir))
    if len(local) != len(recs):
        fail("%d TIMESTAMP(3) rows for %d records" % (len(local), len(recs)))
    for n, t, p, o, ts, ttype, epoch in rows:
        value = json.dumps({"n": int(n)})
        want = kc.get(value)
        got = (t, int(p), int(o), ms_of(ts))
        if want != got:
            fail("record %s: metadata %r, kcat says %r" % (value, got, want))
        if n not in local or ms_of(local[n]) != want[3]:
            fail("record %s: TIMESTAMP(3) %s, not the record's %d" % (value, local.get(n), want[3]))
        if ttype != "CreateTime":
            fail("record %s: timestamp-type %r" % (value, ttype))
        if epoch not in ("", "0"):  # NULL where librdkafka does not tell it
            fail("record %s: leader-epoch %r" % (value, epoch))
        seen.add(value)
    if len(seen) != len(recs):
        fail("%d distinct records of %d" % (len(seen), len(recs)))
    got_windows = {}
    for ws, we, c in csv_rows(win_dir):
        k = (ms_of(ws) - BASE_MS) // 10000
        if ms_of(we) - ms_of(ws) != 10000 or k in got_windows:
            fail("window %s .. %s: wrong or twice" % (ws, we))
        got_windows[k] = int(c)
    if got_windows != dict(want_windows):
        fail("windows %r, want %r" % (sorted(got_windows.items()), sorted(want_windows.items())))
    print("read: %d records with topic, partition, offset, timestamp as kcat sees them; "
          "%d windows over the timestamp metadata as rowtime" % (len(rows), len(got_windows)))


# ---- write --------------------------------------------------------------------

def case_write(a, run, base):
    out_topic, ctl_topic = run + "-out", run + "-ctl"
    create_topic(a.topic_tool, out_topic, 2)
    create_topic(a.topic_tool, ctl_topic, 2)
    src = os.path.join(base, "in.csv")
    rows = [(i, BASE_MS - 86400000 + i * 1500 + (i % 5)) for i in range(200)]
    with open(src, "w") as f:
        for i, ms in rows:
            t = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
            f.write("%d,%s\n" % (i, t.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (ms % 1000)))
    sql = ("SET 'parallelism.default' = '2';\n"
           "SET 'execution.checkpointing.interval' = '300 ms';\n"
           "SET 'table.local-time-zone' = 'UTC';\n"
           "CREATE TABLE src (n INT, t TIMESTAMP(3)) WITH ('connector' = 'filesystem', "
           "'path' = '%s', 'format' = 'csv');\n" % src +
           kafka_table("dst", out_topic,
                       "n INT, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', "
                       "`offset` BIGINT METADATA VIRTUAL",
                       ", 'sink.delivery-guarantee' = 'exactly-once', "
                       "'sink.transactional-id-prefix' = '%s-tx'" % run) +
           kafka_table("ctl", ctl_topic, "n INT, t TIMESTAMP(3)") +
           "EXECUTE STATEMENT SET BEGIN\n"
           "INSERT INTO dst SELECT n, CAST(t AS TIMESTAMP_LTZ(3)) FROM src;\n"
           "INSERT INTO ctl SELECT n, t FROM src;\n"
           "END;\n")
    job = Job(a.sluice, os.path.join(base, "data"), write_job(base, "write", sql))
    want = dict(rows)  # n -> the row's timestamp (ms)
    wait_for(lambda: len(kcat_records(out_topic)) >= len(rows) and
             len(kcat_records(ctl_topic)) >= len(rows), DEADLINE_S, job, "the records")
    rc = job.wait(60)
    if rc not in (0, None):
        fail("the job failed:\n%s" % job.stderr())
    if rc is None:
        job.stop()
    out = kcat("-C", "-t", out_topic, "-o", "beginning", "-e", "-q", "-X",
               "isolation.level=read_committed", "-f", "%T\t%s\n", timeout=120)
    got = collections.Counter(tuple(line.split("\t", 1)) for line in out.decode().split("\n")
                              if line)
    if sum(got.values()) != len(rows) or any(c != 1 for c in got.values()):
        fail("%d records, %d distinct, for %d rows" % (sum(got.values()), len(got), len(rows)))
    ns = set()
    for ts, v in got:
        r = json.loads(v)
        if set(r) != {"n"} or r["n"] not in want:
            fail("record value %r is not a row's (metadata columns must not be in it)" % v)
        if int(ts) != want[r["n"]]:
            fail("record %s has timestamp %s, the row's is %d" % (v, ts, want[r["n"]]))
        ns.add(r["n"])
    if ns != set(want):
        fail("%d rows missing" % len(set(want) - ns))
    # the control: without the metadata column the records carry the
    # producer's clock, which the same check refuses
    ctl = kcat_records(ctl_topic)
    wrong = sum(1 for v, (_, _, _, ts) in ctl.items() if ts != want.get(json.loads(v)["n"]))
    if wrong != len(rows):
        fail("control: %d of %d records without the metadata column have the row's time"
             % (len(rows) - wrong, len(rows)))
    print("write: %d records exactly once, each with its row's timestamp; the control's %d "
          "records fail the same check" % (len(got), wrong))


# ---- headers ------------------------------------------------------------------

def kcat_headers(topic):
    """{n: [(name, value)]} of the committed records as kcat reads them."""
    out = kcat("-C", "-t", topic, "-o", "beginning", "-e", "-q", "-X",
               "isolation.level=read_committed", "-J", timeout=120)
    recs = {}
    for line in out.decode().split("\n"):
        if not line:
            continue
        m = json.loads(line)
        h = m.get("headers") or []  # kcat -J: [name, value, name, value, ...]
        n = json.loads(m["payload"])["n"]
        if n in recs:
            fail("record %s read twice" % m["payload"])
        recs[n] = [(h[i], h[i + 1]) for i in range(0, len(h), 2)]
    return recs


def case_headers(a, run, base):
    in_topic, out_topic = run + "-in", run + "-out"
    create_topic(a.topic_tool, in_topic, 2)
    create_topic(a.topic_tool, out_topic, 2)
    groups = [  # (headers given to kcat -H, their map: a name twice keeps the last)
        (["trace=t-%d", "dup=first", "dup=second"], None),
        (["trace=t-%d", "empty="], None),
        ([], None),
    ]
    n = 0
    for hs, _ in groups:
        for _ in range(10):
            args = ["-P", "-t", in_topic]
            for h in hs:
                args += ["-H", h % n if "%d" in h else h]
            kcat(*args, stdin=json.dumps({"n": n}).encode())
            n += 1
    got_in = kcat_headers(in_topic)
    if len(got_in) != n:
        fail("kcat reads %d input records, %d were produced" % (len(got_in), n))
    files = os.path.join(base, "counts")
    sql = ("SET 'parallelism.default' = '2';\n"
           "SET 'execution.checkpointing.interval' = '300 ms';\n" +
           kafka_table("src", in_topic, "n INT, headers MAP<STRING, BYTES> METADATA VIRTUAL",
                       ", 'scan.startup.mode' = 'earliest-offset'") +
           kafka_table("dst", out_topic, "n INT, h MAP<STRING, BYTES> METADATA FROM 'headers'",
                       ", 'sink.delivery-guarantee' = 'exactly-once', "
                       "'sink.transactional-id-prefix' = '%s-tx'" % run) +
           "CREATE TABLE counts (n INT, c INT, trace STRING, dup STRING) WITH ("
           "'connector' = 'filesystem', 'path' = '%s', 'format' = 'csv');\n" % files +
           "EXECUTE STATEMENT SET BEGIN\n"
           "INSERT INTO dst SELECT n, MAP['from', CAST('sluice' AS BYTES), 'trace', "
           "headers['trace'], 'nothing', CAST(NULL AS BYTES)] FROM src;\n"
           "INSERT INTO counts SELECT n, CARDINALITY(headers), "
           "CAST(headers['trace'] AS STRING), CAST(headers['dup'] AS STRING) FROM src;\n"
           "END;\n")
    job = Job(a.sluice, os.path.join(base, "data"), write_job(base, "headers", sql))
    wait_for(lambda: len(kcat_headers(out_topic)) >= n and len(csv_rows(files)) >= n,
             DEADLINE_S, job, "the records")
    job.stop()
    out = kcat_headers(out_topic)
    if len(out) != n:
        fail("%d records written for %d read" % (len(out), n))
    for v, hs in got_in.items():
        names = dict(hs)  # kcat's order: a later value of a name replaces the earlier
        want = [("from", "sluice"), ("trace", names.get("trace")), ("nothing", None)]
        if "trace" not in names:  # headers['trace'] is NULL: the header has no value
            want[1] = ("trace", None)
        if out.get(v) != want:
            fail("record %s written with headers %r, want %r" % (v, out.get(v), want))
    rows = {int(r[0]): r[1:] for r in csv_rows(files)}
    if len(rows) != n:
        fail("%d count rows for %d records" % (len(rows), n))
    for v, hs in got_in.items():
        names = dict(hs)
        want = [str(len(names)), names.get("trace") or "", names.get("dup") or ""]
        if rows[v] != want:
            fail("record %s: count, trace, dup %r, kcat read %r" % (v, rows[v], want))
    print("headers: %d records read with their headers as kcat sees them and written "
          "exactly once with the headers built from them" % n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--topic-tool", required=True)
    ap.add_argument("--case", required=True, choices=["read", "write", "headers"])
    a = ap.parse_args()
    run = "sl-m-%s-%d-%d" % (a.case, int(time.time()), os.getpid())
    base = tempfile.mkdtemp(prefix="sluice-km-")
    try:
        {"read": case_read, "write": case_write, "headers": case_headers}[a.case](a, run, base)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print("ok: kafka metadata %s" % a.case)


if __name__ == "__main__":
    main()
