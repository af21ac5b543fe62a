#!/usr/bin/env python3
"""kafka_features_test.py — the kafka and upsert-kafka connectors' features
against a real broker, each checked by an independent reader (kcat, or the
kafka_topic tool for group offsets) against a reference computed here.

--case upsert: a statement set of two updating queries into upsert-kafka
  tables, exactly-once, through 12 SIGKILLs while clicks arrive (every
  third right after a checkpoint's transaction committed): (1) clicks and their exact DECIMAL
  sum per campaign — the final value of every key must equal the reference,
  and since each committed update follows the one before it, the counts of a
  key never go back in the read_committed log (a replayed epoch would); (2)
  how many users' latest click is in each campaign (deduplication, then a
  count over its retractions) — campaigns every user left must end with a
  tombstone. The readers apply the log as a compacted topic would: the
  last record per key, a tombstone deleting it.
--case upsert_source: an upsert-kafka table read as a source (ChangelogNormalize
  by its PRIMARY KEY) into a copy and a count per value, exactly-once
  through 6 kills: the copy equals the compacted input, tombstones
  included, and the counts equal Python's.
--case keys: a source whose records carry the user in a JSON key and the
  rest in the value ('value.fields-include' = 'EXCEPT_KEY'); a sink keyed
  by the user in the raw format: every record's key is its user, and it is
  in the partition Java's producer (murmur2) would choose.
--case pattern: 'topic-pattern' over two topics; while the job runs a third
  matching topic appears and a topic grows by two partitions
  ('scan.topic-partition-discovery.interval' = '1 s'); a topic that does not
  match is never read. Exactly-once sink: everything from the matching
  topics once.
--case horizon: topics created with retention.ms 30 d, 3 d and forever
  (kafka_topic); EXPLAIN under 'table.exec.state.ttl' = 7 d reads each
  through the admin API and says which replays escape the deduplication;
  the INSERT warns.
--case offsets: once checkpoints are decided, the source's offsets are
  committed to its consumer group ('properties.group.id'): the group's
  committed offsets reach the end of every partition.
--case prefix: a second running job into the same exactly-once table (its
  transactional id prefix) is refused with 55006 instead of fencing the
  first.
--case example: examples/kafka_ledger.sql (loading the bundled clicks into
  Kafka, then billing them per minute exactly-once into a ledger topic)
  gives every window that fired exactly once, with its exact spend.
--case probe: the live probe reads the broker's transaction.max.timeout.ms
  (60000 in scripts/kafka): exactly-once with a longer transaction timeout
  is refused naming it; a cluster that cannot be reached is an error, not a
  hang.

Usage: kafka_features_test.py --sluice PATH --topic-tool PATH --case NAME
"""
import argparse
import collections
import datetime
import decimal
import json
import os
import random
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import kafka_util
from kafka_util import Job, compare, consume, create_topic, fail, kcat, produce

DEADLINE_S = 90


def header(run, interval="300 ms"):
    return ("SET 'parallelism.default' = '2';\n"
            "SET 'execution.checkpointing.interval' = '%s';\n"
            "SET 'pipeline.name' = '%s';\n" % (interval, run))


def write_job(base, name, sql):
    path = os.path.join(base, name + ".sql")
    with open(path, "w") as f:
        f.write(sql)
    return path


def topic_tool(a, *args):
    r = subprocess.run([a.topic_tool, kafka_util.BROKER] + [str(x) for x in args],
                       capture_output=True, timeout=90)
    if r.returncode != 0:
        fail("kafka_topic %s: %s" % (" ".join(map(str, args)), r.stderr.decode()))
    return r.stdout.decode()


def wait_for(pred, timeout, job=None, what="the output"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        if job and not job.alive():
            fail("the job exited while waiting for %s:\n%s" % (what, job.stderr()))
        time.sleep(0.5)
    fail("%s did not arrive within %d s%s" % (what, timeout,
                                             "\n" + job.stderr() if job else ""))


def keyed_log(topic):
    """[(key, value or None)] of a topic in offset order per partition, read
    with read_committed (kcat: -Z makes an empty value NULL)."""
    out = kcat("-C", "-t", topic, "-o", "beginning", "-e", "-q", "-Z", "-X",
               "isolation.level=read_committed", "-f", "%p\t%o\t%k\t%S\t%s\n", timeout=120)
    rows = []
    for line in out.decode().split("\n"):
        if not line:
            continue
        p, o, k, size, v = line.split("\t", 4)
        rows.append((int(p), int(o), k, None if size == "-1" else v))
    rows.sort()
    return [(k, v) for _, _, k, v in rows]


def compacted(log):
    """The table a compacted topic keeps: the last value per key."""
    state = {}
    for k, v in log:
        if v is None:
            state.pop(k, None)
        else:
            state[k] = v
    return state


# ---- upsert -----------------------------------------------------------------

USERS = ["u%d" % i for i in range(20)]


def upsert_events():
    """Clicks of 20 users over 5 campaigns; later clicks avoid c4, so every
    user leaves it and its count of latest clicks must end deleted."""
    rnd = random.Random(11)
    evs = []
    for i in range(2400):
        late = i >= 1200
        u = USERS[rnd.randrange(len(USERS))]
        c = "c%d" % rnd.randrange(4 if late else 5)
        evs.append({"user": u, "campaign": c, "amount": decimal.Decimal(rnd.randrange(1, 10000)) / 100,
                    "seq": i})
    return evs


def case_upsert(a, run, base):
    src, dt, dl = run + "-in", run + "-totals", run + "-latest"
    for t, n in ((src, 3), (dt, 2), (dl, 2)):
        create_topic(a.topic_tool, t, n)
    evs = upsert_events()
    broker = kafka_util.BROKER
    # (SLUICE_TEST_UPSERT_GUARANTEE=at-least-once shows that the check below
    # catches a replay: that run must fail.)
    guarantee = os.environ.get("SLUICE_TEST_UPSERT_GUARANTEE", "exactly-once")
    decision = "decide" if guarantee == "exactly-once" else "seal"
    sink = ("'connector' = 'upsert-kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s', "
            "'key.format' = 'json', 'value.format' = 'json', "
            "'sink.delivery-guarantee' = '" + guarantee + "', "
            "'sink.transactional-id-prefix' = '%s'")
    sql = (header(run) +
           "CREATE TABLE IF NOT EXISTS clicks (user_id STRING, campaign STRING, "
           "amount DECIMAL(10, 2), seq BIGINT, ts TIMESTAMP(3), "
           "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'kafka', "
           "'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'format' = 'json', "
           "'scan.startup.mode' = 'earliest-offset');\n" % (src, broker) +
           "CREATE TABLE IF NOT EXISTS totals (campaign STRING, clicks BIGINT, "
           "total DECIMAL(38, 2), PRIMARY KEY (campaign) NOT ENFORCED) WITH (%s);\n"
           % (sink % (dt, broker, run + "-t-")) +
           "CREATE TABLE IF NOT EXISTS latest (campaign STRING, users BIGINT, "
           "PRIMARY KEY (campaign) NOT ENFORCED) WITH (%s);\n" % (sink % (dl, broker, run + "-l-")) +
           "EXECUTE STATEMENT SET BEGIN\n"
           "INSERT INTO totals SELECT campaign, COUNT(*), SUM(amount) FROM clicks "
           "GROUP BY campaign;\n"
           "INSERT INTO latest SELECT campaign, COUNT(*) FROM (SELECT user_id, campaign FROM "
           "(SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts DESC) AS rn "
           "FROM clicks) WHERE rn = 1) GROUP BY campaign;\n"
           "END;\n")
    path = write_job(base, "upsert", sql)
    data = os.path.join(base, "data")

    def produce_all():  # keyed by user: a user's clicks stay in order in one partition
        for i in range(0, len(evs), 100):
            produce(src, [(e["user"], json.dumps({
                "user_id": e["user"], "campaign": e["campaign"], "amount": float(e["amount"]),
                "seq": e["seq"], "ts": "2026-01-01 00:%02d:%02d.%03d"
                % (e["seq"] // 60000, e["seq"] // 1000 % 60, e["seq"] % 1000)}))
                for e in evs[i:i + 100]])
            time.sleep(0.25)

    producer = threading.Thread(target=produce_all, daemon=True)
    producer.start()
    rnd = random.Random(3)
    for k in range(12):  # the kills land while clicks arrive
        env = {"SLUICE_TEST_PAUSE": decision + ":1200"} if k % 3 == 0 else {}
        job = Job(a.sluice, data, path, env)
        if env:
            if job.wait_line("sluice-test: paused after " + decision, 60) < 0:
                job.kill()
                fail("kill %d: the job did not reach a decision\n%s" % (k, job.stderr()))
        else:
            time.sleep(rnd.uniform(0.8, 2.0))
        if not job.alive():
            fail("kill %d: the job exited by itself:\n%s" % (k, job.stderr()))
        job.kill()
        job.wait(30)
    producer.join()
    totals = collections.defaultdict(lambda: [0, decimal.Decimal(0)])
    last = {}
    for e in evs:
        t = totals[e["campaign"]]
        t[0] += 1
        t[1] += e["amount"]
        last[e["user"]] = e["campaign"]
    want_t = {c: (n, s) for c, (n, s) in totals.items()}
    want_l = collections.Counter(last.values())

    def state_t():
        return {json.loads(k)["campaign"]: (json.loads(v)["clicks"],
                                            decimal.Decimal(str(json.loads(v)["total"])))
                for k, v in compacted(keyed_log(dt)).items()}

    def state_l():
        return {json.loads(k)["campaign"]: json.loads(v)["users"]
                for k, v in compacted(keyed_log(dl)).items()}

    job = Job(a.sluice, data, path)
    wait_for(lambda: state_t() == want_t and state_l() == dict(want_l), DEADLINE_S, job,
             "the final state")
    job.stop()
    got_t, got_l = state_t(), state_l()
    print("totals: %r" % sorted(got_t.items()))
    print("latest: %r (c4 deleted: %s)" % (sorted(got_l.items()), "c4" not in got_l))
    if got_t != want_t:
        fail("totals differ: %r, want %r" % (got_t, want_t))
    if got_l != dict(want_l) or "c4" in got_l:
        fail("latest differs: %r, want %r" % (got_l, dict(want_l)))
    # A tombstone for c4 is in the log (not merely a missing key).
    if not any(v is None and json.loads(k)["campaign"] == "c4" for k, v in keyed_log(dl)):
        fail("no tombstone for c4")
    # Exactly-once: per key, the committed counts only go up.
    seen = {}
    for k, v in keyed_log(dt):
        n = json.loads(v)["clicks"]
        if n <= seen.get(k, 0):
            fail("key %s went from %d to %d clicks: an update was committed twice" %
                 (k, seen[k], n))
        seen[k] = n
    print("upsert: %d updates committed to totals, each count above the one before" %
          len(keyed_log(dt)))


# ---- reading upsert-kafka -----------------------------------------------------

def case_upsert_source(a, run, base):
    """An upsert-kafka table read as a source (its changelog normalized by the
    PRIMARY KEY), copied into another upsert-kafka table and counted per
    value, exactly-once through 6 kills: the copy's final state equals the
    compacted input (tombstones included) and the counts equal Python's."""
    src, dm, dh = run + "-users", run + "-mirror", run + "-hist"
    for t, n in ((src, 3), (dm, 2), (dh, 2)):
        create_topic(a.topic_tool, t, n)
    rnd = random.Random(7)
    log = []
    for i in range(1500):
        u = "u%d" % rnd.randrange(60)
        if rnd.random() < 0.15:
            log.append((u, None))  # delete the user
        else:
            log.append((u, rnd.randrange(5)))
    final = {}
    for u, level in log:
        if level is None:
            final.pop(u, None)
        else:
            final[u] = level
    want_hist = collections.Counter(final.values())

    def put(lo, hi):  # keyed JSON records; an empty value is a tombstone (kcat -Z)
        recs = [(json.dumps({"id": u}), "" if lv is None else json.dumps({"id": u, "level": lv}))
                for u, lv in log[lo:hi]]
        data = "".join("%s\t%s\n" % kv for kv in recs).encode()
        kcat("-P", "-t", src, "-K", "\t", "-Z", "-X", "acks=all", stdin=data)

    broker = kafka_util.BROKER
    table = ("'connector' = 'upsert-kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s', "
             "'key.format' = 'json', 'value.format' = 'json'")
    eo = ", 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '%s'"
    sql = (header(run) +
           "CREATE TABLE IF NOT EXISTS users (id STRING, level INT, PRIMARY KEY (id) NOT ENFORCED) "
           "WITH (%s);\n" % (table % (src, broker)) +
           "CREATE TABLE IF NOT EXISTS mirror (id STRING, level INT, PRIMARY KEY (id) NOT ENFORCED) "
           "WITH (%s%s);\n" % (table % (dm, broker), eo % (run + "-m-")) +
           "CREATE TABLE IF NOT EXISTS hist (level INT, users BIGINT, PRIMARY KEY (level) NOT "
           "ENFORCED) WITH (%s%s);\n" % (table % (dh, broker), eo % (run + "-h-")) +
           "EXECUTE STATEMENT SET BEGIN\n"
           "INSERT INTO mirror SELECT id, level FROM users;\n"
           "INSERT INTO hist SELECT level, COUNT(*) FROM users GROUP BY level;\n"
           "END;\n")
    path = write_job(base, "upsert_source", sql)
    data = os.path.join(base, "data")
    rnd = random.Random(5)
    for k in range(6):
        put(k * 250, (k + 1) * 250)
        env = {"SLUICE_TEST_PAUSE": "decide:800"} if k % 2 == 0 else {}
        job = Job(a.sluice, data, path, env)
        if env and job.wait_line("sluice-test: paused after decide", 60) < 0:
            job.kill()
            fail("kill %d: the job did not reach a decision\n%s" % (k, job.stderr()))
        if not env:
            time.sleep(rnd.uniform(0.8, 2.0))
        if not job.alive():
            fail("kill %d: the job exited by itself:\n%s" % (k, job.stderr()))
        job.kill()
        job.wait(30)

    def mirror():
        return {json.loads(k)["id"]: json.loads(v)["level"]
                for k, v in compacted(keyed_log(dm)).items()}

    def hist():
        return {json.loads(k)["level"]: json.loads(v)["users"]
                for k, v in compacted(keyed_log(dh)).items()}

    job = Job(a.sluice, data, path)
    wait_for(lambda: mirror() == final and hist() == dict(want_hist), DEADLINE_S, job,
             "the final state")
    job.stop()
    print("upsert source: %d users left of 60 (%d deletes in the input), levels %r" %
          (len(final), sum(1 for _, lv in log if lv is None), sorted(hist().items())))
    if mirror() != final or hist() != dict(want_hist):
        fail("the copy or the counts differ from the compacted input")


# ---- keys --------------------------------------------------------------------

def murmur2(data):
    """Kafka's Java partitioner hash (Utils.murmur2)."""
    m, r = 0x5bd1e995, 24
    h = (0x9747b28c ^ len(data)) & 0xffffffff
    n4 = len(data) // 4
    for i in range(n4):
        k = int.from_bytes(data[i * 4:i * 4 + 4], "little")
        k = (k * m) & 0xffffffff
        k ^= k >> r
        k = (k * m) & 0xffffffff
        h = ((h * m) & 0xffffffff) ^ k
    rest, tail = len(data) % 4, n4 * 4
    if rest >= 3:
        h ^= data[tail + 2] << 16
    if rest >= 2:
        h ^= data[tail + 1] << 8
    if rest >= 1:
        h ^= data[tail]
        h = (h * m) & 0xffffffff
    h ^= h >> 13
    h = (h * m) & 0xffffffff
    h ^= h >> 15
    return h


def case_keys(a, run, base):
    src, dst = run + "-in", run + "-out"
    create_topic(a.topic_tool, src, 3)
    create_topic(a.topic_tool, dst, 4)
    recs = [(json.dumps({"user": "user-%d" % (i % 37)}),
             json.dumps({"amount": (i % 500) / 4, "n": i})) for i in range(600)]
    produce(src, recs)
    broker = kafka_util.BROKER
    sql = (header(run) +
           "CREATE TABLE src (`user` STRING, amount DECIMAL(10, 2), n INT) WITH ("
           "'connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s', "
           "'key.format' = 'json', 'key.fields' = 'user', 'value.format' = 'json', "
           "'value.fields-include' = 'EXCEPT_KEY', 'scan.startup.mode' = 'earliest-offset');\n"
           % (src, broker) +
           "CREATE TABLE dst (`user` STRING, n INT, doubled DECIMAL(12, 2)) WITH ("
           "'connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s', "
           "'key.format' = 'raw', 'key.fields' = 'user', 'format' = 'json');\n" % (dst, broker) +
           "INSERT INTO dst SELECT `user`, n, amount * 2 FROM src;\n")
    job = Job(a.sluice, os.path.join(base, "data"), write_job(base, "keys", sql))

    def rows():
        out = kcat("-C", "-t", dst, "-o", "beginning", "-e", "-q", "-f", "%p\t%k\t%s\n")
        return [line.split("\t", 2) for line in out.decode().split("\n") if line]

    wait_for(lambda: len(rows()) >= len(recs), DEADLINE_S, job)
    job.stop()
    got = rows()
    want = {(json.loads(k)["user"], json.loads(v)["n"],
             decimal.Decimal(str(json.loads(v)["amount"])) * 2) for k, v in recs}
    seen = set()
    for p, k, v in got:
        r = json.loads(v, parse_float=decimal.Decimal)
        if k != r["user"]:
            fail("record with key %r holds user %r" % (k, r["user"]))
        if int(p) != (murmur2(k.encode()) & 0x7fffffff) % 4:
            fail("key %r is in partition %s, Java's producer would choose %d"
                 % (k, p, (murmur2(k.encode()) & 0x7fffffff) % 4))
        seen.add((r["user"], r["n"], decimal.Decimal(str(r["doubled"]))))
    if seen != want or len(got) != len(recs):
        fail("%d records, %d distinct, %d missing" % (len(got), len(seen), len(want - seen)))
    print("keys: %d records, each keyed by its user, in murmur2's partition" % len(got))


# ---- pattern -----------------------------------------------------------------

def case_pattern(a, run, base):
    ta, tb, tc, other = run + "-a", run + "-b", run + "-c", run + "x-d"
    dst = run + "x-out"  # (not matching: the job would read its own output)
    create_topic(a.topic_tool, ta, 2)
    create_topic(a.topic_tool, tb, 1)
    create_topic(a.topic_tool, other, 1)
    create_topic(a.topic_tool, dst, 2)
    want = set()

    def put(topic, part, lo, hi):
        produce(topic, [(i, json.dumps({"src": topic, "n": i})) for i in range(lo, hi)],
                partition=part)
        want.update((topic, i) for i in range(lo, hi))

    put(ta, 0, 0, 50)
    put(ta, 1, 50, 100)
    put(tb, 0, 100, 150)
    produce(other, [(0, json.dumps({"src": other, "n": 0}))])
    broker = kafka_util.BROKER
    sql = (header(run) +
           "CREATE TABLE src (src STRING, n INT) WITH ('connector' = 'kafka', "
           "'topic-pattern' = '%s-.*', 'properties.bootstrap.servers' = '%s', 'format' = 'json', "
           "'scan.startup.mode' = 'earliest-offset', "
           "'scan.topic-partition-discovery.interval' = '1 s');\n" % (run.replace(".", "\\."), broker) +
           "CREATE TABLE dst (src STRING, n INT) WITH ('connector' = 'kafka', 'topic' = '%s', "
           "'properties.bootstrap.servers' = '%s', 'format' = 'json', "
           "'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '%s-');\n"
           % (dst, broker, run) +
           "INSERT INTO dst SELECT src, n FROM src;\n")
    job = Job(a.sluice, os.path.join(base, "data"), write_job(base, "pattern", sql))

    def got():
        return collections.Counter((r["src"], r["n"]) for r in map(json.loads, consume(dst)))

    wait_for(lambda: set(got()) >= want, DEADLINE_S, job, "the first topics")
    create_topic(a.topic_tool, tc, 2)
    put(tc, 0, 200, 230)
    put(tc, 1, 230, 260)
    topic_tool(a, "--add-partitions", ta, 4)
    time.sleep(1.5)  # the producer learns the new partitions
    put(ta, 2, 300, 320)
    put(ta, 3, 320, 340)
    put(ta, 0, 340, 350)
    wait_for(lambda: set(got()) >= want, DEADLINE_S, job, "the new topic and partitions")
    time.sleep(1.0)
    job.stop()
    out = got()
    missing, extra, dups = compare(out, collections.Counter(want), "pattern")
    if missing or extra or dups:
        fail("not exactly the matching topics once: %d missing, %d foreign (%r), %d doubled"
             % (len(missing), len(extra), extra[:3], dups))


# ---- offsets -----------------------------------------------------------------

def case_offsets(a, run, base):
    src, group = run + "-in", run + "-group"
    create_topic(a.topic_tool, src, 3)
    for p in range(3):
        produce(src, [(i, json.dumps({"n": i})) for i in range(10 * p, 10 * p + 10 + p)],
                partition=p)
    ends = {p: 10 + p for p in range(3)}
    broker = kafka_util.BROKER
    sql = (header(run) +
           "CREATE TABLE src (n INT) WITH ('connector' = 'kafka', 'topic' = '%s', "
           "'properties.bootstrap.servers' = '%s', 'properties.group.id' = '%s', "
           "'format' = 'json', 'scan.startup.mode' = 'earliest-offset');\n" % (src, broker, group) +
           "CREATE TABLE sink (n INT) WITH ('connector' = 'blackhole');\n"
           "INSERT INTO sink SELECT n FROM src;\n")
    job = Job(a.sluice, os.path.join(base, "data"), write_job(base, "offsets", sql))

    def committed():
        return {int(p): int(o) for p, o in
                (line.split() for line in topic_tool(a, "--committed", group, src, 3).split("\n")
                 if line)}

    wait_for(lambda: committed() == ends, DEADLINE_S, job, "the group's committed offsets")
    job.stop()
    print("offsets: group %s committed %r (the ends of the partitions)" % (group, committed()))


# ---- probe -------------------------------------------------------------------

def case_probe(a, run, base):
    broker = kafka_util.BROKER
    data = os.path.join(base, "data")

    def run_sql(sql):
        r = subprocess.run([a.sluice, "--data-dir", data, "-q", "-e", sql], capture_output=True,
                           timeout=120, env=kafka_util.ENV)
        return r.returncode, r.stderr.decode()

    table = ("CREATE TABLE IF NOT EXISTS src (n INT) WITH ('connector' = 'datagen', "
             "'number-of-rows' = '10');\n"
             "CREATE TABLE IF NOT EXISTS %s (n INT) WITH ('connector' = 'kafka', 'topic' = '%s', "
             "'properties.bootstrap.servers' = '%s', 'format' = 'json', "
             "'sink.delivery-guarantee' = 'exactly-once', "
             "'sink.transactional-id-prefix' = '%s-', %s);\n")
    rc, err = run_sql(table % ("slow", run, broker, run + "s",
                               "'properties.transaction.timeout.ms' = '120000'") +
                      "INSERT INTO slow SELECT n FROM src;\n")
    if rc == 0 or "exceeds the system's largest, 60000 ms" not in err or "0A000" not in err:
        fail("a transaction timeout above the broker's limit was not refused:\n" + err)
    print("probe: refused with\n" + err)
    t0 = time.monotonic()
    rc, err = run_sql(table % ("nowhere", run, "127.0.0.1:1", run + "n",
                               "'properties.transaction.timeout.ms' = '30000'") +
                      "INSERT INTO nowhere SELECT n FROM src;\n")
    if rc == 0 or "could not reach the Kafka cluster" not in err or "08006" not in err:
        fail("an unreachable cluster was not reported:\n" + err)
    print("probe: unreachable cluster reported in %.1f s" % (time.monotonic() - t0))


# ---- the replay horizon against a deduplication's TTL ----------------------------

def case_horizon(a, run, base):
    """EXPLAIN's == Deduplication State == reads each topic's retention.ms
    from the broker (the kafka_topic tool set it): the seed scenario (TTL
    7 d, retention 30 d: replays escape unless the sink catches them), a
    topic kept 3 d (within the TTL), one kept forever; an INSERT into a
    sink that catches nothing gets the WARNING."""
    broker = kafka_util.BROKER
    day = 86400000
    for name, ms in (("month", 30 * day), ("days", 3 * day), ("ever", -1)):
        topic_tool(a, "%s-%s" % (run, name), 1, "retention.ms=%d" % ms)
    tables = "".join(
        "CREATE TABLE %s (event_id BIGINT, amount DECIMAL(10, 2), ts TIMESTAMP(3), "
        "WATERMARK FOR ts AS ts) WITH ('connector' = 'kafka', 'topic' = '%s-%s', "
        "'properties.bootstrap.servers' = '%s', 'format' = 'json', "
        "'scan.startup.mode' = 'earliest-offset');\n" % (name, run, name, broker)
        for name in ("month", "days", "ever"))
    tables += ("CREATE TABLE ledger (event_id BIGINT, amount DECIMAL(10, 2), ts TIMESTAMP(3)) "
               "WITH ('connector' = 'blackhole');\n"
               "SET 'table.exec.state.ttl' = '7 d';\n")
    dedup = ("INSERT INTO ledger SELECT event_id, amount, ts FROM (SELECT *, ROW_NUMBER() "
             "OVER (PARTITION BY event_id ORDER BY ts) AS rn FROM %s) WHERE rn = 1;\n")
    sql = tables + "".join("EXPLAIN " + dedup % t for t in ("month", "days", "ever"))
    r = subprocess.run([a.sluice, "--data-dir", os.path.join(base, "d1"), "-q", "-e", sql],
                       capture_output=True, timeout=120, env=kafka_util.ENV)
    out = r.stdout.decode()
    want = [
        "Source month (kafka): replay horizon 30 d (retention.ms): a row replayed more than "
        "7 d after its key was first seen is emitted again",
        "Source days (kafka): replay horizon 3 d (retention.ms), within the TTL: every "
        "replayed duplicate is caught",
        "Source ever (kafka): replay horizon unbounded (retention.ms): a row replayed more than "
        "7 d after its key was first seen is emitted again",
        "Sink ledger (blackhole): nothing catches them: they are written again",
    ]
    for w in want:
        if w not in out:
            fail("EXPLAIN lacks %r:\n%s\n%s" % (w, out, r.stderr.decode()))
    # The INSERT warns when it is planned; its job (over an endless topic) is
    # then stopped.
    p = subprocess.Popen([a.sluice, "--data-dir", os.path.join(base, "d2"), "-q", "-e",
                          tables + "SET 'table.dml-sync' = 'true';\n" + dedup % "month"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=kafka_util.ENV)
    err, end = b"", time.monotonic() + 90
    os.set_blocking(p.stderr.fileno(), False)
    while time.monotonic() < end and b"does not catch it" not in err and p.poll() is None:
        err += p.stderr.read() or b""
        time.sleep(0.2)
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
    err = (err + (p.stderr.read() or b"")).decode()
    if "WARNING" not in err or "replay horizon 30 d" not in err or \
            "sink \"ledger\" does not catch it" not in err:
        fail("the INSERT did not warn:\n" + err)
    print("horizon: EXPLAIN and the INSERT's warning as expected")


# ---- one prefix, one job -------------------------------------------------------

def case_prefix(a, run, base):
    """A second running job into the same exactly-once table (so the same
    transactional id prefix) is refused, rather than fencing the first."""
    broker = kafka_util.BROKER
    create_topic(a.topic_tool, run + "-out", 1)
    sql = ("SET 'table.dml-sync' = 'false';\n"
           "CREATE TABLE gen (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '10');\n"
           "CREATE TABLE out (n BIGINT) WITH ('connector' = 'kafka', 'topic' = '%s-out', "
           "'properties.bootstrap.servers' = '%s', 'format' = 'json', "
           "'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '%s-');\n"
           "SET 'pipeline.name' = 'first';\n"
           "INSERT INTO out SELECT n FROM gen;\n"
           "SET 'pipeline.name' = 'second';\n"
           "INSERT INTO out SELECT n + 1 FROM gen;\n" % (run, broker, run))
    # (the script then waits for the first job, which SIGTERM stops)
    job = Job(a.sluice, os.path.join(base, "data"), write_job(base, "prefix", sql))
    job.wait_line("is in use by running job", 60)
    job.wait_line("waiting for 1 background job", 30)
    job.stop()
    err = job.stderr()
    if ("transactional id prefix '%s-' is in use by running job \"first\"" % run) not in err or \
            "SQLSTATE: 55006" not in err or "was fenced" in err or \
            'job "first" stopped with savepoint' not in err:
        fail("the second job was not refused (or the first did not go on):\n" + err)
    print("prefix: the second job was refused, the first went on:\n" + err)


# ---- the example -------------------------------------------------------------

def case_example(a, run, base):
    """examples/kafka_ledger.sql as written (its broker, topics, prefix and job
    names made this run's own): the loaded clicks billed per minute."""
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(repo, "examples", "kafka_ledger.sql")) as f:
        sql = f.read()
    for old, new in (("127.0.0.1:9092", kafka_util.BROKER), ("'clicks'", "'%s-clicks'" % run),
                     ("'ledger'", "'%s-ledger'" % run), ("'billing-'", "'%s-billing-'" % run),
                     ("'ledger-load'", "'%s-load'" % run),
                     ("'ledger-billing'", "'%s-billing'" % run)):
        if old not in sql:
            fail("examples/kafka_ledger.sql no longer has %s" % old)
        sql = sql.replace(old, new)
    path = write_job(base, "example", sql)
    clicks = []
    with open(os.path.join(repo, "examples", "data", "clicks.csv")) as f:
        for line in f:
            eid, camp, amount, ts = line.strip().split(",")
            clicks.append((camp, decimal.Decimal(amount),
                           datetime.datetime.strptime(ts, "%Y-%m-%d %H:%M:%S.%f")))
    watermark = max(ts for _, _, ts in clicks) - datetime.timedelta(seconds=5)
    acc = collections.defaultdict(lambda: [0, decimal.Decimal(0)])
    for camp, amount, ts in clicks:
        start = ts.replace(second=0, microsecond=0)
        if start + datetime.timedelta(minutes=1) <= watermark:  # the windows that fire
            acc[(start.strftime("%Y-%m-%d %H:%M:%S"), camp)][0] += 1
            acc[(start.strftime("%Y-%m-%d %H:%M:%S"), camp)][1] += amount
    want = collections.Counter((w, c, n, s) for (w, c), (n, s) in acc.items())

    def got():
        return collections.Counter(
            (r["window_start"][:19], r["campaign_id"], r["clicks"], decimal.Decimal(str(r["spend"])))
            for r in (json.loads(v, parse_float=decimal.Decimal)
                      for v in consume(run + "-ledger", tolerant=True)))

    job = Job(a.sluice, os.path.join(base, "data"), path, cwd=repo)
    wait_for(lambda: sum(got().values()) >= sum(want.values()), DEADLINE_S, job, "the ledger")
    time.sleep(1.5)
    job.stop()
    missing, extra, dups = compare(got(), want, "example ledger")
    if missing or extra or dups:
        fail("the ledger is not the clicks billed once: %d missing, %d foreign (%r), %d doubled"
             % (len(missing), len(extra), extra[:3], dups))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--topic-tool", required=True)
    ap.add_argument("--case", required=True,
                    choices=["upsert", "upsert_source", "keys", "pattern", "offsets", "probe",
                             "prefix", "example", "horizon"])
    a = ap.parse_args()
    run = "sl-f-%s-%d-%d" % (a.case, int(time.time()), os.getpid())
    base = tempfile.mkdtemp(prefix="sluice-kf-")
    try:
        {"upsert": case_upsert, "upsert_source": case_upsert_source, "keys": case_keys, "pattern": case_pattern,
         "offsets": case_offsets, "probe": case_probe, "prefix": case_prefix,
         "example": case_example, "horizon": case_horizon}[a.case](
             a, run, base)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print("ok: kafka %s" % a.case)


if __name__ == "__main__":
    main()
