#!/usr/bin/env python3
"""kafka_eo_test.py — the Kafka sink's guarantees against a real broker
(scripts/kafka), through crashes, a zombie and a broker restart. The reader
is kcat (isolation.level=read_committed unless said), never Sluice; every
reference is computed here from the input this script produced.

The input: clicks (event_id, campaign, amount DECIMAL(10,2), ts) in JSON,
produced in batches while the job runs, into a 3-partition topic: batch b
holds 60 records per partition with event times b s + j * 15 ms, in order
within each partition. The job runs at parallelism 2 with checkpoints every
300 ms.

--case crash (tests 1 and 3 of issue 5): Kafka -> TUMBLE(1 s) aggregation
  (COUNT, SUM of DECIMAL per campaign) -> Kafka, exactly-once. The engine is
  SIGKILLed 24 times and restarted: every third kill right after a
  checkpoint's transaction committed and before its _metadata was written
  (SLUICE_TEST_PAUSE=decide: the run after it must resume from the
  checkpoint the transaction decided), every third inside a checkpoint
  before the decision (state-sink), the others at random moments. Per-
  partition watermarks make late rows impossible under any interleaving,
  and a last record per partition far in the future fires every window.
  The read_committed output must equal the reference exactly: every
  (window, campaign) once, with its exact count and sum. Test 3: a
  read_uncommitted reader of the same topic must see more records (the
  aborted transactions' ones) — proof that the check can see them.
--case alo (test 2): the same job at-least-once, 8 kills: nothing missing,
  nothing foreign; duplicates are counted and reported.
--case zombie (test 4): a passthrough job, exactly-once. Instance A runs,
  is frozen (SIGSTOP); B starts from a copy of A's data directory (a
  failover onto shared checkpoint storage) and fences A; A is let go on
  (SIGCONT): it must stop with an error naming the fencing, and the output
  stays exactly-once (nothing A wrote after the copy is visible).
--case broker (test 5): a broker of its own ($KAFKA_RESTART_PORT) is
  stopped and started again (on its data) in the middle of an exactly-once
  passthrough run; the job recovers by itself (the same process); output
  exactly-once.
--case set (test 6): a statement set writing two topics exactly-once, 12
  kills; afterwards both topics hold exactly the reference, record for
  record.
--case skip (test 7, the skipping half; kafka_connector_test.py --case
  malformed has the failing one): malformed records in the input with
  'json.ignore-parse-errors': every good record arrives once, and the job
  counts exactly the malformed ones (SHOW JOBS).
--case branch: a savepoint is a branch point. A job copies a topic
  exactly-once, stops with a savepoint, goes on and stops again; a job of
  another name continuing the first savepoint with the same transactional
  id prefix is refused (55000) by the session, and — once the data
  directory lost the newer checkpoints — by the runtime, from the decision
  the prefix's consumer group holds; the topic holds every record once.

Usage: kafka_eo_test.py --sluice PATH --topic-tool PATH --kafka-script PATH --case NAME
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
from kafka_util import Job, compare, consume, create_topic, fail, produce

PARTITIONS = 3
PER_PARTITION = 60   # records per partition and batch
CAMPAIGNS = ["c%d" % i for i in range(5)]
T0 = datetime.datetime(2026, 1, 1)
DEADLINE_S = 120     # longest wait for the complete output


def event(b, p, j):
    """Record j of partition p in batch b."""
    eid = (b * PARTITIONS + p) * 1000 + j
    ts = T0 + datetime.timedelta(milliseconds=b * 1000 + j * 15)
    amount = decimal.Decimal(eid % 997) / 100
    return {"event_id": eid, "campaign": CAMPAIGNS[(eid * 7 + b) % len(CAMPAIGNS)],
            "amount": amount, "ts": ts}


def encode(e):
    return json.dumps({"event_id": e["event_id"], "campaign": e["campaign"],
                       "amount": float(e["amount"]), "ts": e["ts"].strftime(
                           "%Y-%m-%d %H:%M:%S.%f")[:-3]})


def batch(b):
    return [(p, event(b, p, j)) for p in range(PARTITIONS) for j in range(PER_PARTITION)]


class Producer(threading.Thread):
    """Produces batches 0..n-1 (one every `every` s), then the last record of
    each partition far in the future (it fires every window), unless
    flush is False."""

    def __init__(self, topic, n, every=0.4, flush=True, broker=None):
        super().__init__(daemon=True)
        self.topic, self.n, self.every, self.flush, self.broker = topic, n, every, flush, broker
        self.go = threading.Event()
        self.go.set()
        self.done = threading.Event()
        self.error = None

    def run(self):
        try:
            for b in range(self.n):
                self.go.wait()
                for p in range(PARTITIONS):
                    produce(self.topic, [(e["event_id"], encode(e)) for q, e in batch(b) if q == p],
                            partition=p, broker=self.broker)
                time.sleep(self.every)
            if self.flush:
                for p in range(PARTITIONS):
                    e = event(self.n + 3, p, 0)
                    e["campaign"] = "flush"
                    produce(self.topic, [(e["event_id"], encode(e))], partition=p,
                            broker=self.broker)
        except SystemExit as x:  # kafka_util.fail in this thread
            self.error = x
        self.done.set()


def events(n):
    return [e for b in range(n) for _, e in batch(b)]


def window_reference(n):
    want = collections.Counter()
    acc = collections.defaultdict(lambda: [0, decimal.Decimal(0)])
    for e in events(n):
        w = e["ts"].replace(microsecond=0)
        a = acc[(w, e["campaign"])]
        a[0] += 1
        a[1] += e["amount"]
    for (w, c), (cnt, total) in acc.items():
        want[(w.strftime("%Y-%m-%d %H:%M:%S"), c, cnt, total)] += 1
    return want


def read_windows(topic, isolation="read_committed"):
    got = collections.Counter()
    for v in consume(topic, isolation):
        r = json.loads(v, parse_float=decimal.Decimal)
        got[(r["window_start"][:19], r["campaign"], r["clicks"],
             decimal.Decimal(str(r["total"])))] += 1
    return got


def passthrough_reference(n):
    return collections.Counter((e["event_id"], e["campaign"], e["amount"]) for e in events(n))


def read_passthrough(topic, broker=None, tolerant=False):
    got = collections.Counter()
    for v in consume(topic, broker=broker, tolerant=tolerant):
        r = json.loads(v, parse_float=decimal.Decimal)
        got[(r["event_id"], r["campaign"], decimal.Decimal(str(r["amount"])))] += 1
    return got


def table_sql(run, src, broker):
    return ("CREATE TABLE IF NOT EXISTS clicks (event_id BIGINT, campaign STRING, "
            "amount DECIMAL(10, 2), ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND"
            ") WITH ('connector' = 'kafka', 'topic' = '%s', "
            "'properties.bootstrap.servers' = '%s', 'format' = 'json', "
            "'scan.startup.mode' = 'earliest-offset');\n" % (src, broker))


def sink_sql(name, cols, topic, broker, guarantee, prefix):
    txn = ", 'sink.transactional-id-prefix' = '%s'" % prefix if guarantee == "exactly-once" else ""
    return ("CREATE TABLE IF NOT EXISTS %s (%s) WITH ('connector' = 'kafka', 'topic' = '%s', "
            "'properties.bootstrap.servers' = '%s', 'format' = 'json', "
            "'sink.delivery-guarantee' = '%s'%s);\n" % (name, cols, topic, broker, guarantee, txn))


def job_file(data, run, body):
    """The job's SQL, beside the data directory (which must hold only Sluice's own files)."""
    path = os.path.join(os.path.dirname(data), os.path.basename(data) + "-job.sql")
    with open(path, "w") as f:
        f.write("SET 'parallelism.default' = '2';\n"
                "SET 'execution.checkpointing.interval' = '300 ms';\n"
                "SET 'pipeline.name' = '%s';\n" % run + body)
    return path


def window_job(data, run, src, dst, guarantee, broker=None):
    broker = broker or kafka_util.BROKER
    return job_file(data, run, table_sql(run, src, broker) + sink_sql(
        "totals", "window_start TIMESTAMP(3), campaign STRING, clicks BIGINT, "
        "total DECIMAL(38, 2)", dst, broker, guarantee, run + "-") +
        "INSERT INTO totals SELECT window_start, campaign, COUNT(*), SUM(amount) FROM "
        "TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND)) "
        "GROUP BY window_start, window_end, campaign;\n")


def passthrough_job(data, run, src, dst, broker=None, sink_options=""):
    broker = broker or kafka_util.BROKER
    return job_file(data, run, table_sql(run, src, broker) + sink_sql(
        "copy", "event_id BIGINT, campaign STRING, amount DECIMAL(10, 2)", dst, broker,
        "exactly-once", run + "-").replace("'format'", sink_options + "'format'") +
        "INSERT INTO copy SELECT event_id, campaign, amount FROM clicks;\n")


def crash_loop(a, data, sql, kills, decision="decide"):
    """Start the job and SIGKILL it `kills` times (see the module doc for
    where; `decision` names the step after which a checkpoint is decided:
    "decide" with transactions, "seal" without); returns how many kills
    landed after a decision and inside a checkpoint."""
    rnd = random.Random(int(os.environ.get("SLUICE_TEST_SEED", "5")))
    decided = in_chk = 0
    for k in range(kills):
        mode = k % 3
        env = {}
        if mode == 0:
            env["SLUICE_TEST_PAUSE"] = decision + ":1500"
        elif mode == 1:
            env["SLUICE_TEST_PAUSE"] = "state-sink:1500"
        job = Job(a.sluice, data, sql, env)
        if mode in (0, 1):
            # Not the first checkpoint of a run every time: let some pass.
            skip = rnd.randint(0, 3)
            at = -1
            for _ in range(skip + 1):
                at = job.wait_line("sluice-test: paused after", 40, at + 1)
                if at < 0:
                    break
            if at < 0:
                job.kill()
                fail("kill %d: the job did not reach its pause (exit %r)\n%s"
                     % (k, job.p.poll(), job.stderr()))
            decided += mode == 0
            in_chk += mode == 1
        else:
            time.sleep(rnd.uniform(0.5, 3.0))
        if not job.alive():
            fail("kill %d: the job exited by itself (%r):\n%s" % (k, job.p.returncode,
                                                               job.stderr()))
        job.kill()
        job.wait(30)
    return decided, in_chk


def final_run(a, data, sql, read, want, producer, job=None):
    """Run the job (or let `job` run on) until the output holds the
    reference (bounded), then stop it with SIGTERM. Returns the output read
    after the stop, and the job."""
    producer.join(timeout=DEADLINE_S)
    if producer.error:
        raise producer.error
    job = job or Job(a.sluice, data, sql)
    end = time.monotonic() + DEADLINE_S
    got = collections.Counter()
    while time.monotonic() < end and job.alive():
        got = read()
        if all(got[k] >= want[k] for k in want):
            break
        time.sleep(1.0)
    rc = job.stop()
    if rc not in (0, 143, -15):
        fail("the last run ended with %r:\n%s" % (rc, job.stderr()))
    return read(), job


def setup(a, run, topics):
    for t, n in topics:
        create_topic(a.topic_tool, t, n)


def case_crash(a, run, data):
    src, dst = run + "-in", run + "-out"
    setup(a, run, [(src, PARTITIONS), (dst, 3)])
    n = 40
    producer = Producer(src, n)
    producer.start()
    sql = window_job(data, run, src, dst, "exactly-once")
    decided, in_chk = crash_loop(a, data, sql, 24)
    want = window_reference(n)
    got, job = final_run(a, data, sql, lambda: read_windows(dst), want, producer)
    missing, extra, dups = compare(got, want, "crash (read_committed)")
    print("kills: 24 (%d after a decision, %d inside a checkpoint, the rest at random)"
          % (decided, in_chk))
    if missing or extra or dups:
        fail("not exactly-once: %d missing (e.g. %r), %d foreign (e.g. %r), %d doubled"
             % (len(missing), missing[:3], len(extra), extra[:3], dups))
    # Test 3: the aborted transactions' records are in the log; a reader
    # that does not skip them sees more, so the check above could fail.
    raw = read_windows(dst, "read_uncommitted")
    print("read_uncommitted: %d records (read_committed: %d)" % (sum(raw.values()),
                                                                  sum(got.values())))
    if sum(raw.values()) <= sum(got.values()):
        fail("a read_uncommitted reader saw no aborted records: the crashes left no aborted "
             "transaction with data, so this run proves nothing")
    if any(raw[k] < got[k] for k in got):
        fail("read_uncommitted misses committed records")


def case_alo(a, run, data):
    src, dst = run + "-in", run + "-out"
    setup(a, run, [(src, PARTITIONS), (dst, 3)])
    n = 20
    producer = Producer(src, n)
    producer.start()
    sql = window_job(data, run, src, dst, "at-least-once")
    crash_loop(a, data, sql, 8, decision="seal")
    want = window_reference(n)
    got, _ = final_run(a, data, sql, lambda: read_windows(dst), want, producer)
    missing, extra, dups = compare(got, want, "at-least-once")
    print("at-least-once: %d duplicates after 8 kills (allowed)" % dups)
    if missing or extra:
        fail("%d missing (e.g. %r), %d foreign (e.g. %r)" % (len(missing), missing[:3],
                                                            len(extra), extra[:3]))


def case_zombie(a, run, data, stalled=False):
    """A frozen instance A, a copy B of its data directory that takes over;
    A wakes up. stalled: A is frozen longer than its transaction timeout, so
    Kafka's fencing looks like a timeout to it and the restart strategy
    restarts it: it must then refuse to start (B decided checkpoints its
    directory lacks) without fencing B."""
    src, dst = run + "-in", run + "-out"
    setup(a, run, [(src, PARTITIONS), (dst, 3)])
    n = 30
    producer = Producer(src, n, every=0.5, flush=False)
    producer.start()
    sql = passthrough_job(data, run, src, dst, sink_options=(
        "'properties.transaction.timeout.ms' = '3000', " if stalled else ""))
    first = Job(a.sluice, data, sql)
    end = time.monotonic() + 60
    while time.monotonic() < end and sum(read_passthrough(dst).values()) == 0:
        time.sleep(0.5)
    if not first.alive() or sum(read_passthrough(dst).values()) == 0:
        fail("instance A produced no output:\n" + first.stderr())
    time.sleep(1.0)
    first.kill(signal.SIGSTOP)
    time.sleep(0.5)
    frozen = sum(read_passthrough(dst).values())
    copy = data + "-copy"
    shutil.copytree(data, copy, symlinks=True)
    sql_b = sql
    second = Job(a.sluice, copy, sql_b)
    # B fences A (init_transactions) and goes on from A's checkpoint.
    end = time.monotonic() + 60
    while time.monotonic() < end and sum(read_passthrough(dst).values()) <= frozen:
        time.sleep(0.5)
    if not second.alive() or sum(read_passthrough(dst).values()) <= frozen:
        first.kill(signal.SIGCONT)
        first.kill()
        fail("instance B made no progress:\n" + second.stderr())
    if stalled:
        # B's decisions go past A's directory; the broker's timeout check
        # (every 5 s, scripts/kafka) has long passed A's transaction.
        time.sleep(6)
    first.kill(signal.SIGCONT)
    rc = first.wait(60)
    err_a = first.stderr()
    if rc is None:
        first.kill()
        fail("the fenced instance A did not stop within 60 s")
    print("instance A exited with %r:\n%s" % (rc, "\n".join(err_a.split("\n")[-6:])))
    if stalled:
        if rc == 0 or "SQLSTATE: XX001" not in err_a or "restarting it" not in err_a:
            fail("instance A was not restarted and then refused (exit %r):\n%s" % (rc, err_a))
        if not second.alive() or "was fenced" in second.stderr_now():
            fail("instance B did not survive A's restart:\n" + second.stderr_now())
    elif rc == 0 or "was fenced" not in err_a or "SQLSTATE: 55006" not in err_a:
        fail("instance A did not stop with the fencing error (exit %r):\n%s" % (rc, err_a))
    want = passthrough_reference(n)
    got, _ = final_run(a, copy, sql_b, lambda: read_passthrough(dst), want, producer, second)
    missing, extra, dups = compare(got, want, "zombie")
    if missing or extra or dups:
        fail("not exactly-once: %d missing, %d foreign, %d doubled" % (len(missing), len(extra),
                                                                     dups))


def case_broker(a, run, data):
    port = os.environ.get("KAFKA_RESTART_PORT")
    if not port:
        fail("KAFKA_RESTART_PORT is not set")
    broker = "127.0.0.1:%s" % port
    kenv = dict(os.environ, KAFKA_PORT=port, KAFKA_RUN_DIR=os.path.join(data, "broker"))

    def kafka(cmd, keep=False):
        env = dict(kenv, KAFKA_KEEP_DATA="1") if keep else kenv
        r = subprocess.run([a.kafka_script, cmd], env=env, capture_output=True, timeout=300)
        print("scripts/kafka %s: %s" % (cmd, r.stdout.decode().strip()))
        if r.returncode != 0:
            fail("scripts/kafka %s failed:\n%s" % (cmd, r.stderr.decode()))

    def broker_log():
        """The broker's last warnings and errors, for a failure's message."""
        try:
            with open(os.path.join(data, "broker", "broker.log"), errors="replace") as f:
                lines = [l.rstrip() for l in f if " WARN " in l or " ERROR " in l]
        except OSError as e:
            return "(no broker log: %s)" % e
        return "\nthe broker's last warnings:\n" + "\n".join(l[:400] for l in lines[-30:])

    kafka("start")
    try:
        kafka_util.wait_usable(broker, a.topic_tool)
        src, dst = run + "-in", run + "-out"
        create_topic(a.topic_tool, src, PARTITIONS, broker=broker)
        create_topic(a.topic_tool, dst, 3, broker=broker)
        n = 24
        producer = Producer(src, n, every=0.5, flush=False, broker=broker)
        producer.go.clear()
        producer.start()
        jobdata = os.path.join(data, "sluice")
        os.makedirs(jobdata)
        # A short transaction timeout: a decision is retried for 10 s, so the
        # outage (longer) fails the job and the restart strategy brings it
        # back. (A transaction spans two pauses and an interval: ~5.5 s.)
        sql = passthrough_job(jobdata, run, src, dst, broker, "'properties.transaction.timeout.ms' = '10000', ")
        # The broker goes down between a checkpoint's pre-commit and its
        # decision: every sink has flushed epoch N, the decision of N meets
        # no broker (the hardest moment of the protocol for an outage).
        job = Job(a.sluice, jobdata, sql, env={"SLUICE_TEST_PAUSE": "state-sink:2500"})
        producer.go.set()
        end = time.monotonic() + 60
        while time.monotonic() < end and sum(read_passthrough(dst, broker, True).values()) < 1000:
            time.sleep(0.5)
        if not job.alive():
            fail("the job failed before the broker restart:\n" + job.stderr())
        producer.go.clear()  # (kcat would fail while the broker is down)
        at = job.wait_line("sluice-test: paused after state-sink", 30, len(job.lines))
        if at < 0:
            fail("no checkpoint paused before its decision:\n" + job.stderr())
        kafka("stop")
        time.sleep(12)
        kafka("start", keep=True)
        kafka_util.wait_usable(broker, a.topic_tool)
        producer.go.set()
        want = passthrough_reference(n)
        end = time.monotonic() + DEADLINE_S
        got = collections.Counter()
        while time.monotonic() < end and job.alive():
            got = read_passthrough(dst, broker, True)
            if all(got[k] >= want[k] for k in want):
                break
            time.sleep(1.0)
        alive = job.alive()
        job.stop()
        err = job.stderr()
        if not alive:
            fail("the job did not survive the broker restart:\n" + err + broker_log())
        restarts = err.count("restarting it from its last checkpoint")
        for line in err.splitlines():
            if "restarting it from its last checkpoint" in line:
                print("  " + line[line.find("NOTICE"):][:300])
        print("broker restart: the job went on (%d restart%s by the restart strategy)"
              % (restarts, "" if restarts == 1 else "s"))
        if restarts < 1:
            fail("the outage did not fail the job once: the restart strategy was not exercised\n"
                 + err[-3000:])
        got = read_passthrough(dst, broker)
        missing, extra, dups = compare(got, want, "broker restart")
        if missing or extra or dups:
            fail("not exactly-once: %d missing, %d foreign, %d doubled\n%s%s"
                 % (len(missing), len(extra), dups, err[-3000:], broker_log()))
    finally:
        kafka("stop")


def case_timeout(a, run, data):
    """Every transaction stays open past 'properties.transaction.timeout.ms'
    (each checkpoint pauses before its decision), so Kafka aborts each one:
    the job fails with 40000 naming the timeout, is restarted once, fails
    again, and nothing it wrote is visible to read_committed readers."""
    src, dst = run + "-in", run + "-out"
    setup(a, run, [(src, PARTITIONS), (dst, 3)])
    producer = Producer(src, 4)
    producer.start()
    producer.join(timeout=DEADLINE_S)
    sql = passthrough_job(data, run, src, dst,
                          sink_options="'properties.transaction.timeout.ms' = '2000', ")
    with open(sql) as f:
        body = f.read()
    with open(sql, "w") as f:
        f.write("SET 'restart-strategy.fixed-delay.attempts' = '1';\n" + body)
    # Past the timeout and the broker's check for timed-out transactions
    # (every 5 s, scripts/kafka).
    job = Job(a.sluice, data, sql, env={"SLUICE_TEST_PAUSE": "state-sink:8000"})
    rc = job.wait(120)
    err = job.stderr()
    if rc is None:
        job.kill()
        fail("the job did not fail within 120 s:\n" + err)
    print("the job exited with %r:\n%s" % (rc, "\n".join(err.split("\n")[-6:])))
    if rc == 0 or "SQLSTATE: 40000" not in err or "restart 1 of at most 1" not in err:
        fail("the job did not fail with 40000 after one restart:\n" + err)
    if "longer than 'properties.transaction.timeout.ms' (2000 ms)" not in err:
        fail("the error does not name the transaction timeout:\n" + err)
    committed = sum(read_passthrough(dst).values())
    written = len(consume(dst, isolation="read_uncommitted"))
    print("timeout: %d records committed, %d written (aborted)" % (committed, written))
    if committed != 0:
        fail("%d records of aborted transactions are visible" % committed)
    if written == 0:
        fail("the job wrote nothing: the check above could not fail")


def case_set(a, run, data):
    src, da, db = run + "-in", run + "-a", run + "-b"
    setup(a, run, [(src, PARTITIONS), (da, 2), (db, 3)])
    n = 24
    producer = Producer(src, n, flush=False)
    producer.start()
    broker = kafka_util.BROKER
    sql = job_file(data, run, table_sql(run, src, broker) +
                   sink_sql("out_a", "event_id BIGINT, campaign STRING", da, broker,
                            "exactly-once", run + "-a-") +
                   sink_sql("out_b", "event_id BIGINT, amount DECIMAL(10, 2)", db, broker,
                            "exactly-once", run + "-b-") +
                   "EXECUTE STATEMENT SET BEGIN\n"
                   "INSERT INTO out_a SELECT event_id, campaign FROM clicks WHERE event_id % 2 = 0;\n"
                   "INSERT INTO out_b SELECT event_id, amount FROM clicks WHERE event_id % 2 = 0;\n"
                   "END;\n")
    crash_loop(a, data, sql, 12)
    evs = [e for e in events(n) if e["event_id"] % 2 == 0]
    want_a = collections.Counter((e["event_id"], e["campaign"]) for e in evs)
    want_b = collections.Counter((e["event_id"], e["amount"]) for e in evs)

    def read_a():
        return collections.Counter((r["event_id"], r["campaign"])
                                   for r in map(json.loads, consume(da)))

    def read_b():
        return collections.Counter((r["event_id"], decimal.Decimal(str(r["amount"])))
                                   for r in (json.loads(v, parse_float=decimal.Decimal)
                                             for v in consume(db)))

    final_run(a, data, sql, read_a, want_a, producer)
    got_a, got_b = read_a(), read_b()
    for got, want, label in ((got_a, want_a, "topic a"), (got_b, want_b, "topic b")):
        missing, extra, dups = compare(got, want, label)
        if missing or extra or dups:
            fail("%s not exactly-once: %d missing, %d foreign, %d doubled" % (label, len(missing),
                                                                             len(extra), dups))
    if sorted(k[0] for k in got_a) != sorted(k[0] for k in got_b):
        fail("the two topics disagree")


def case_skip(a, run, data):
    src, dst = run + "-in", run + "-out"
    setup(a, run, [(src, PARTITIONS), (dst, 1)])
    good, bad = [], 0
    for p in range(PARTITIONS):
        recs = []
        for j in range(50):
            if j % 10 == 7:
                recs.append((j, '{"event_id": %d, "campaign": oops}' % j))
                bad += 1
            else:
                e = event(0, p, j)
                recs.append((e["event_id"], encode(e)))
                good.append(e)
        produce(src, recs, partition=p)
    broker = kafka_util.BROKER
    sql = job_file(data, run, table_sql(run, src, broker).replace(
        "'format' = 'json',", "'format' = 'json', 'json.ignore-parse-errors' = 'true',", 1) +
        sink_sql("copy", "event_id BIGINT, campaign STRING, amount DECIMAL(10, 2)", dst, broker,
                 "exactly-once", run + "-") +
        "INSERT INTO copy SELECT event_id, campaign, amount FROM clicks;\n")
    want = collections.Counter((e["event_id"], e["campaign"], e["amount"]) for e in good)
    job = Job(a.sluice, data, sql)
    end = time.monotonic() + DEADLINE_S
    while time.monotonic() < end and job.alive() and sum(read_passthrough(dst).values()) < len(good):
        time.sleep(0.5)
    job.stop()
    err = job.stderr()
    got = read_passthrough(dst)
    missing, extra, dups = compare(got, want, "skip")
    if missing or extra or dups:
        fail("%d missing, %d foreign, %d doubled\n%s" % (len(missing), len(extra), dups, err))
    r = subprocess.run([a.sluice, "--data-dir", data, "-q", "-e", "SHOW JOBS;"],
                       capture_output=True, timeout=60, env=kafka_util.ENV)
    out = r.stdout.decode()
    row = [line for line in out.split("\n") if run in line]
    print("SHOW JOBS:\n" + out)
    cells = [c.strip() for c in row[0].split("|")] if row else []
    header = [c.strip() for c in out.split("\n")[1].split("|")]
    if "skipped rows" not in header or not row:
        fail("SHOW JOBS has no skipped count for the job:\n" + out)
    if int(cells[header.index("skipped rows")]) != bad:
        fail("the job counted %s skipped records, the input has %d malformed"
             % (cells[header.index("skipped rows")], bad))


def case_branch(a, run, data):
    """A savepoint is a branch point: a job continuing another one's older
    savepoint with the same transactional id prefix is refused, by the
    session (the origin's checkpoints) and, when the data directory no
    longer shows the newer checkpoint, by the runtime (the decision the
    prefix's consumer group holds); the topic holds every record once."""
    import re
    src, dst = run + "-in", run + "-out"
    setup(a, run, [(src, PARTITIONS), (dst, 1)])
    good = []

    def feed(b):
        for p in range(PARTITIONS):
            recs = []
            for j in range(30):
                e = event(b, p, j)
                recs.append((e["event_id"], encode(e)))
                good.append(e)
            produce(src, recs, partition=p)

    def copy_until_complete(sql):
        want = collections.Counter((e["event_id"], e["campaign"], e["amount"]) for e in good)
        job = Job(a.sluice, data, sql)
        end = time.monotonic() + DEADLINE_S
        while time.monotonic() < end and job.alive() and \
                sum(read_passthrough(dst).values()) < len(good):
            time.sleep(0.5)
        time.sleep(1.0)  # a checkpoint after the last record
        job.stop()
        err = job.stderr()
        m = re.search(r'stopped with savepoint (\S+)', err)
        if not m:
            fail("no savepoint:\n" + err)
        return m.group(1), want

    sql = passthrough_job(data, run, src, dst)
    feed(0)
    s1, _ = copy_until_complete(sql)
    feed(1)
    s2, want = copy_until_complete(sql)  # the job went on after s1
    n1 = int(s1.rsplit("-", 1)[1])
    with open(sql) as f:
        text = f.read()
    fork = text.replace(
        "SET 'pipeline.name' = '%s';" % run,
        "SET 'pipeline.name' = '%s-heir';\nSET 'execution.savepoint.path' = '%s';" % (run, s1))
    fork_path = os.path.join(os.path.dirname(data), "fork.sql")
    with open(fork_path, "w") as f:
        f.write(fork)
    job = Job(a.sluice, data, fork_path)
    job.wait(60)
    err = job.stderr()
    if "55000" not in err or "older than checkpoint" not in err:
        fail("a job continuing an older savepoint was not refused:\n" + err)
    # The data directory loses the newer checkpoints (moved, restored from
    # a backup): only the transactions still tell.
    jdir = os.path.dirname(s1)
    for name in os.listdir(jdir):
        if name.startswith("chk-") and int(name[4:]) > n1:
            shutil.rmtree(os.path.join(jdir, name))
    job = Job(a.sluice, data, fork_path)
    job.wait(60)
    err = job.stderr()
    if "55000" not in err or "which the transactions of job" not in err:
        fail("the runtime did not refuse a savepoint older than the prefix's decision:\n" + err)
    got = read_passthrough(dst)
    missing, extra, dups = compare(got, want, "branch")
    if missing or extra or dups:
        fail("%d missing, %d foreign, %d doubled" % (len(missing), len(extra), dups))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--topic-tool", required=True)
    ap.add_argument("--kafka-script", required=True)
    ap.add_argument("--case", required=True,
                    choices=["crash", "alo", "zombie", "stalled", "broker", "timeout", "set",
                             "skip", "branch"])
    a = ap.parse_args()
    run = "sl-eo-%s-%d-%d" % (a.case, int(time.time()), os.getpid())
    base = tempfile.mkdtemp(prefix="sluice-eo-")
    data = os.path.join(base, "data")
    os.makedirs(data)
    try:
        {"crash": case_crash, "alo": case_alo, "zombie": case_zombie,
         "stalled": lambda a, run, data: case_zombie(a, run, data, stalled=True),
         "broker": case_broker, "timeout": case_timeout,
         "set": case_set, "skip": case_skip, "branch": case_branch}[a.case](a, run, data)
    finally:
        # SLUICE_TEST_KEEP=1 keeps the job's data and the broker's logs.
        if os.environ.get("SLUICE_TEST_KEEP"):
            print("kept: %s" % base)
        else:
            shutil.rmtree(base, ignore_errors=True)
    print("ok: kafka %s" % a.case)


if __name__ == "__main__":
    main()
