#!/usr/bin/env python3
"""pg_eo_test.py — exactly-once into PostgreSQL (connectors/jdbc/pg_txn.c)
through crashes, a server restart and a zombie. The reader is psql through
pg_util (never Sluice); every reference is computed here.

The job (a statement set): a datagen sequence 1..N (replayable, bounded) at
parallelism 2 with checkpoints every 300 ms into two tables of one
database, both exactly-once:
  ledger (id, k, amount)           every event once (COPY, no key: a replay
                                   would show as a duplicate)
  totals (k PRIMARY KEY, total, n) SUM(amount), COUNT(*) per k (upserts)
Both commit in one transaction per epoch. The statement set reads the
source twice (two pipelines, each with its own position at a barrier), so
sum(ledger) = sum(totals) holds at the end but not at every checkpoint;
what a reader can check at every moment is the transactions: a reader
thread asks, in one statement (one snapshot), again and again while the
job is killed, for transactions (xmin) that last wrote a totals row but
wrote no ledger row: there must be none while the ledger is incomplete
(once the ledger's pipeline has read all of its input, the totals' one may
still be behind and write its last epochs alone). The final tables must
equal the reference (so the sums agree).

--case prep  (issue test 1, on `pg`, preparable): 25 SIGKILLs, every third
             after PREPARE and before the decision (SLUICE_TEST_PAUSE=
             prepare), every third after the decision and before COMMIT
             PREPARED (seal), the rest at random moments; then a run to the
             end. Both tables equal the reference, the invariant never
             broke, no prepared transaction of ours is left.
--case lr    (issue test 2 and test 8's "max_prepared_transactions = 0 at
             parallelism 2", on `pg0`): the same as the last resource: 25
             SIGKILLs (after the decision before _metadata, inside
             checkpoints, at random).
--case control  the same statement set at-least-once with 8 kills: the
             checks above must find a broken invariant or duplicates in the
             ledger (proof that they can fail).
--case restart  (test 3): the server is restarted with pg_ctl restart -m
             immediate twice in the middle of a run; the job recovers by its
             restart strategy (the same process) and the result is exactly
             the reference.
--case zombie  (test 4): instance A runs, is frozen (SIGSTOP); B starts from
             a copy of A's data directory and fences A; A is let go on
             (SIGCONT): it stops with 55006 naming the prefix; B runs to the
             end; the tables equal the reference.
--case refuse  plan-time refusals: a prefix too long for a gid (22023); an
             unreachable server (08001); DROP TABLE while a prepared
             transaction of the table's prefix exists (55006, naming it).
--case set   (test 5; needs the `kafka` fixture too, --topic-tool): one
             statement set: Kafka exactly-once (the last resource) + the
             ledger exactly-once on `pg` (preparable) + files exactly-once,
             20 SIGKILLs (after PREPARE, after Kafka's decision, at random):
             the topic (read_committed, kcat), the table (psql) and the
             committed files each hold every event exactly once; no prepared
             transaction is left.
--case two_lr  (test 8's part; `kafka` fixture) Kafka exactly-once + the
             ledger exactly-once on `pg0` (max_prepared_transactions = 0:
             a second last resource): refused at plan time, the reason and
             hint naming max_prepared_transactions.
--case kafka_window  (issue test 1 as written; `kafka` fixture): clicks
             (event_id, campaign_id, amount DECIMAL(10,2), ts) in JSON,
             produced while the job runs into a 3-partition topic, 120 per
             batch every 0.4 s, event times out of order by up to 300 ms
             (within the watermark's 1 s delay: none late); the job: WATERMARK,
             TUMBLE(1 s) COUNT and SUM(amount) per campaign and window into a
             table without key on `pg` (a replayed window shows as a second
             row), exactly-once (preparable), parallelism 2, checkpoints every
             300 ms, an idle timeout; 25 SIGKILLs (after PREPARE, after the
             seal before COMMIT PREPARED, inside checkpoints (state-sink), at
             random); then one click per partition 5 s of event time later
             (closes every window) and a last run until the table holds the
             reference, stopped with SIGTERM. The table (psql) equals the
             reference computed here from the produced clicks (exact decimal
             sums); no prepared transaction of ours is left.
--case kafka_window_control  the same at-least-once with 8 kills, every
             other one after the sink wrote a checkpoint's rows and before
             the checkpoint was sealed (SLUICE_TEST_PAUSE=pre-commit): no
             window is lost and at least one is duplicated (the check above
             can fail).
--case lr_files  (issue test 2 as written): CSV files written by this
             script while the job runs (under a hidden name, then renamed)
             read by the filesystem source ('source.monitor-interval') into
             a table without key on `pg0` (max_prepared_transactions = 0:
             the last resource), exactly-once, 25 SIGKILLs (after the
             decision before the seal — the last resource's crash window —,
             inside checkpoints, at random); a last run until the table holds
             every row; the table equals the rows of the files.

Usage: pg_eo_test.py --sluice PATH --case NAME [--kills N] [--rows N]
                      [--topic-tool PATH]
"""
import argparse
import collections
import csv
import datetime
import decimal
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pg_util

KEYS = 13
FAILED = []


def fail(msg):
    print("pg_eo_test: FAILED: " + msg)
    FAILED.append(msg)


def sink(name, table, which, guarantee, extra=""):
    return ("CREATE TABLE IF NOT EXISTS {n} ({cols}) WITH ('connector' = 'jdbc', 'url' = '{url}', "
            "'table-name' = '{t}', 'username' = 'sluice', 'password' = 'sluice', "
            "'sink.delivery-guarantee' = '{g}', 'sink.transactional-id-prefix' = '{t}'{x});\n"
            ).format(n=name, t=table, url=pg_util.jdbc_url(port=pg_util.port_of(which)),
                     g=guarantee, x=extra,
                     cols="id BIGINT, k BIGINT, amount BIGINT" if name == "ledger" else
                     "k BIGINT, total BIGINT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED")


def job_sql(run, which, rows, rate, guarantee="exactly-once", extra=""):
    if guarantee == "at-least-once":
        extra += (", 'sink.buffer-flush.max-rows' = '10', "
                  "'sink.buffer-flush.interval' = '20 ms'")
    return ("SET 'parallelism.default' = '2';\n"
            "SET 'execution.checkpointing.interval' = '300 ms';\n"
            "SET 'restart-strategy.fixed-delay.delay' = '500 ms';\n"
            "SET 'pipeline.name' = '%s';\n" % run +
            "CREATE TABLE IF NOT EXISTS gen (id BIGINT) WITH ('connector' = 'datagen', "
            "'number-of-rows' = "
            "'%d', 'rows-per-second' = '%d', 'fields.id.kind' = 'sequence', "
            "'fields.id.start' = '1', 'fields.id.end' = '%d');\n" % (rows, rate, rows) +
            sink("ledger", run + "_ledger", which, guarantee, extra) +
            sink("totals", run + "_totals", which, guarantee, extra) +
            "EXECUTE STATEMENT SET BEGIN\n"
            "INSERT INTO ledger SELECT id, id %% %d, id * 7 %% 101 FROM gen;\n"
            "INSERT INTO totals SELECT id %% %d, SUM(id * 7 %% 101), COUNT(*) FROM gen "
            "GROUP BY id %% %d;\nEND;\n" % (KEYS, KEYS, KEYS))


def setup_tables(run, which):
    port = pg_util.port_of(which)
    pg_util.execute("DROP TABLE IF EXISTS {r}_ledger, {r}_totals; "
                    "CREATE TABLE {r}_ledger (id bigint, k bigint, amount bigint); "
                    "CREATE TABLE {r}_totals (k bigint PRIMARY KEY, total bigint, n bigint); "
                    "DO $$ BEGIN IF to_regclass('sluice_progress') IS NOT NULL THEN "
                    "DELETE FROM sluice_progress WHERE starts_with(prefix, '{r}_'); END IF; END $$"
                    .format(r=run), port=port)


class Job:
    """A sluice process running sql on data; stderr into a file."""

    def __init__(self, a, data, sql, env=None):
        self.work = os.path.dirname(data)
        self.sqlf = data + "-job.sql"
        with open(self.sqlf, "w") as f:
            f.write(sql)
        self.errf = tempfile.NamedTemporaryFile(dir=self.work, prefix="stderr-", delete=False)
        e = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1")
        e.update(env or {})
        self.p = subprocess.Popen([a.sluice, "--data-dir", data, "-f", self.sqlf],
                                  stdout=subprocess.DEVNULL, stderr=self.errf, env=e)

    def stderr(self):
        with open(self.errf.name, encoding="utf-8", errors="replace") as f:
            return f.read()

    def wait_line(self, text, timeout, start=0):
        """The offset of text in stderr at or after start, waiting up to timeout; -1."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            at = self.stderr().find(text, start)
            if at >= 0:
                return at
            if self.p.poll() is not None:
                return self.stderr().find(text, start)
            time.sleep(0.05)
        return -1

    def alive(self):
        return self.p.poll() is None

    def kill(self, sig=signal.SIGKILL):
        if self.p.poll() is None:
            self.p.send_signal(sig)

    def wait(self, timeout):
        try:
            return self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None


class Invariant(threading.Thread):
    """Reads, in one statement (one snapshot), again and again, the
    transactions (xmin) that last wrote a row of totals and are not among
    those that wrote a row of the ledger. Each epoch's transaction writes
    both tables (the aggregation changes only as the ledger's events
    arrive), so there is none when they commit together; at-least-once
    commits each sink's batches in transactions of its own."""

    def __init__(self, run, which, rows):
        super().__init__(daemon=True)
        self.sql = ("SELECT (SELECT count(*) FROM (SELECT xmin::text FROM {r}_totals EXCEPT "
                    "SELECT xmin::text FROM {r}_ledger) s), (SELECT count(*) FROM {r}_ledger)"
                    .format(r=run))
        self.rows = rows
        self.port = pg_util.port_of(which)
        self.stop = threading.Event()
        self.reads = 0
        self.broken = []

    def run(self):
        while not self.stop.is_set():
            try:
                (orphans, n), = pg_util.query(self.sql, port=self.port, timeout=20)
            except pg_util.PgError:
                time.sleep(0.1)  # the server restarting
                continue
            self.reads += 1
            # Once the ledger's pipeline has read all of its input, the
            # totals' pipeline (its own read of the source) may still be
            # behind: its last epochs write totals alone, rightly.
            if int(orphans) and int(n) < self.rows:
                self.broken.append((orphans, n))
            time.sleep(0.02)


def reference(rows):
    ledger = {i: (i % KEYS, i * 7 % 101) for i in range(1, rows + 1)}
    totals = {}
    for i, (k, amt) in ledger.items():
        t, n = totals.get(k, (0, 0))
        totals[k] = (t + amt, n + 1)
    return ledger, totals


def check_tables(run, which, rows, expect_exact=True):
    """Compares both tables with the reference; returns the number of
    differences (duplicates, missing, wrong)."""
    port = pg_util.port_of(which)
    ledger, totals = reference(rows)
    got = pg_util.query("SELECT id, k, amount FROM %s_ledger" % run, port=port)
    seen, dups, wrong = {}, 0, 0
    for i, k, amt in got:
        i = int(i)
        if i in seen:
            dups += 1
        seen[i] = (int(k), int(amt))
        if ledger.get(i) != seen[i]:
            wrong += 1
    gone = sorted(set(ledger) - set(seen))
    missing = len(gone)
    gt = {int(k): (int(t), int(n)) for k, t, n in
          pg_util.query("SELECT k, total, n FROM %s_totals" % run, port=port)}
    twrong = sum(1 for k in set(totals) | set(gt) if totals.get(k) != gt.get(k))
    print("pg_eo_test: %s: ledger %d rows (%d duplicates, %d missing, %d wrong); totals %d "
          "keys wrong" % (run, len(got), dups, missing, wrong, twrong))
    bad = dups + missing + wrong + twrong
    if expect_exact and bad:
        fail("%s: not exactly-once: %d duplicates, %d missing, %d wrong ledger rows, %d wrong "
             "totals (missing ids: %s)" % (run, dups, missing, wrong, twrong, gone[:20]))
    return bad, dups


def no_prepared_left(run, which):
    left = pg_util.prepared_xacts("sluice:" + run, port=pg_util.port_of(which))
    if left:
        fail("%s: prepared transactions left: %s" % (run, left))


def crash_loop(a, data, sql, kills, pauses, rnd, skip=2, pause_ms=1500):
    """Runs of sql SIGKILLed `kills` times: kill k pauses at
    pauses[k % len(pauses)] (None: a random moment) and is killed there,
    after 0..skip earlier pauses of pause_ms. Returns kills done."""
    done = 0
    for k in range(kills):
        step = pauses[k % len(pauses)]
        env = {"SLUICE_TEST_PAUSE": "%s:%d" % (step, pause_ms)} if step else {}
        job = Job(a, data, sql, env)
        if step:
            at = -1
            for _ in range(rnd.randint(0, skip) + 1):  # not always the first checkpoint
                at = job.wait_line("sluice-test: paused after " + step, 40, at + 1)
                if at < 0:
                    break
            if at < 0:
                job.kill()
                job.wait(30)
                if job.p.returncode == -signal.SIGKILL or "SQLSTATE" not in job.stderr():
                    return done  # the input ran out: the job ended
                fail("kill %d: no pause at %s:\n%s" % (k, step, job.stderr()[-3000:]))
                return done
        else:
            time.sleep(rnd.uniform(0.3, 1.5))
        if not job.alive():
            if job.p.returncode == 0:
                return done
            fail("kill %d: the job failed by itself (%r):\n%s" % (k, job.p.returncode,
                                                               job.stderr()[-3000:]))
            return done
        job.kill()
        job.wait(30)
        done += 1
    return done


def finish(a, data, sql, what):
    job = Job(a, data, sql)
    rc = job.wait(180)
    if rc != 0:
        job.kill()
        fail("%s: the last run ended with %r:\n%s" % (what, rc, job.stderr()[-3000:]))
    return job


def case_crash(a, which, run, pauses, guarantee="exactly-once", kills=None):
    rnd = random.Random(int(os.environ.get("SLUICE_TEST_SEED", "11")))
    setup_tables(run, which)
    data = os.path.join(a.work, run)
    sql = job_sql(run, which, a.rows, a.rate, guarantee)
    inv = Invariant(run, which, a.rows)
    inv.start()
    kills = a.kills if kills is None else kills
    done = crash_loop(a, data, sql, kills, pauses, rnd)
    finish(a, data, sql, run)
    inv.stop.set()
    inv.join(30)
    print("pg_eo_test: %s: %d SIGKILLs, %d invariant reads, %d broken" %
          (run, done, inv.reads, len(inv.broken)))
    if done < kills:
        fail("%s: only %d of %d kills happened (the input ran out: raise --rows)" %
             (run, done, kills))
    return inv, done


def case_exactly(a, which, run, pauses):
    inv, _ = case_crash(a, which, run, pauses)
    if inv.reads < 20:
        fail("%s: the invariant reader read only %d times" % (run, inv.reads))
    if inv.broken:
        fail("%s: a reader saw one table's epoch without the other's: %s" %
             (run, inv.broken[:5]))
    check_tables(run, which, a.rows)
    no_prepared_left(run, which)


def case_control(a):
    # every other kill after the sink wrote a checkpoint's rows and before
    # the seal: a replay of them (the duplicates the checks must see)
    inv, _ = case_crash(a, "pg", "pgeo_ctl", ["pre-commit", None], "at-least-once", kills=8)
    bad, dups = check_tables("pgeo_ctl", "pg", a.rows, expect_exact=False)
    if not inv.broken and not dups:
        fail("control: at-least-once with 8 kills broke neither the invariant nor the ledger: "
             "the checks would not see it")


def case_restart(a):
    run, which = "pgeo_rs", "pg"
    setup_tables(run, which)
    data = os.path.join(a.work, run)
    job = Job(a, data, job_sql(run, which, a.rows, a.rate))
    for n in range(2):
        end = time.monotonic() + 60
        start = int(pg_util.query("SELECT count(*) FROM %s_ledger" % run)[0][0])
        while time.monotonic() < end and job.alive() and \
                int(pg_util.query("SELECT count(*) FROM %s_ledger" % run)[0][0]) <= start:
            time.sleep(0.2)
        time.sleep(0.5)
        if not job.alive():
            break
        print("pg_eo_test: restart %d: pg_ctl restart -m immediate" % (n + 1))
        pg_util.restart(immediate=True, which=which)
    rc = job.wait(240)
    err = job.stderr()
    if rc != 0:
        job.kill()
        fail("restart: the job did not recover (exit %r):\n%s" % (rc, err[-3000:]))
    elif "restarting it" not in err:
        fail("restart: the job never restarted (the server restart was not seen?):\n%s" %
             err[-2000:])
    if check_tables(run, which, a.rows)[0]:
        print("pg_eo_test: the job's stderr:\n" + err[-12000:])
    no_prepared_left(run, which)


def case_zombie(a):
    run, which = "pgeo_zb", "pg"
    setup_tables(run, which)
    data = os.path.join(a.work, run)
    sql = job_sql(run, which, a.rows, a.rate)
    first = Job(a, data, sql)
    count = "SELECT count(*) FROM %s_ledger" % run
    end = time.monotonic() + 60
    while time.monotonic() < end and first.alive() and int(pg_util.query(count)[0][0]) == 0:
        time.sleep(0.2)
    time.sleep(1.0)
    if not first.alive():
        return fail("instance A stopped early:\n" + first.stderr()[-3000:])
    first.kill(signal.SIGSTOP)
    time.sleep(0.5)
    frozen = int(pg_util.query(count)[0][0])
    copy = data + "-copy"
    shutil.copytree(data, copy, symlinks=True)
    second = Job(a, copy, sql)
    end = time.monotonic() + 60
    while time.monotonic() < end and second.alive() and int(pg_util.query(count)[0][0]) <= frozen:
        time.sleep(0.2)
    if int(pg_util.query(count)[0][0]) <= frozen:
        first.kill(signal.SIGCONT)
        first.kill()
        second.kill()
        return fail("instance B made no progress:\n" + second.stderr()[-3000:])
    first.kill(signal.SIGCONT)
    rc = first.wait(60)
    err = first.stderr()
    print("pg_eo_test: zombie: instance A exited with %r: %s" % (
        rc, " / ".join(err.strip().split("\n")[-3:])))
    if rc is None:
        first.kill()
        fail("the fenced instance A did not stop within 60 s")
    elif rc == 0 or "SQLSTATE: 55006" not in err or "'%s_ledger'" % run not in err:
        fail("instance A did not stop with 55006 naming the prefix (exit %r):\n%s" % (rc, err))
    rc = second.wait(180)
    if rc != 0:
        second.kill()
        fail("instance B ended with %r:\n%s" % (rc, second.stderr()[-3000:]))
    check_tables(run, which, a.rows)
    no_prepared_left(run, which)


def case_refuse(a):
    data = os.path.join(a.work, "refuse")
    long_prefix = "p" * 153
    sql = ("SET 'execution.checkpointing.interval' = '300 ms';\n"
           "CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '5');\n"
           "CREATE TABLE o (id BIGINT) WITH ('connector' = 'jdbc', 'url' = '%s', "
           "'table-name' = 'o', 'password' = 'sluice', 'username' = 'sluice', "
           "'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = '%s');\n"
           "INSERT INTO o SELECT id FROM gen;\n")
    pg_util.execute("DROP TABLE IF EXISTS o; CREATE TABLE o (id bigint)")
    job = Job(a, data, sql % (pg_util.jdbc_url(), long_prefix))
    job.wait(60)
    err = job.stderr()
    if "SQLSTATE: 22023" not in err or "sink.transactional-id-prefix" not in err:
        fail("a 153-byte prefix was not refused with 22023:\n" + err[-2000:])
    shutil.rmtree(data, ignore_errors=True)
    job = Job(a, data, sql % ("jdbc:postgresql://127.0.0.1:1/sluice", "ok"))
    job.wait(60)
    err = job.stderr()
    if "SQLSTATE: 08001" not in err or "sluice'" in err.replace("'sluice'", ""):
        fail("an unreachable server was not refused with 08001:\n" + err[-2000:])
    # DROP TABLE while a prepared transaction of its prefix exists: refused
    # naming it (a neighbouring prefix's does not count); allowed after.
    shutil.rmtree(data, ignore_errors=True)
    decl = ("CREATE TABLE d (id BIGINT) WITH ('connector' = 'jdbc', 'url' = '%s', "
            "'table-name' = 'o', 'password' = 'sluice', 'username' = 'sluice', "
            "'sink.transactional-id-prefix' = 'pgeo-drop');\n" % pg_util.jdbc_url())
    for gid in ("sluice:pgeo-drop:3:1", "sluice:pgeo-dropx:3:1"):
        pg_util.execute("BEGIN; INSERT INTO o VALUES (1); PREPARE TRANSACTION %s" %
                        pg_util.literal(gid))
    job = Job(a, data, decl + "DROP TABLE d;\n")
    job.wait(60)
    err = job.stderr()
    if "SQLSTATE: 55006" not in err or ":pgeo-drop:3:1'" not in err or \
            "pgeo-dropx" in err:
        fail("DROP TABLE with a prepared transaction of its prefix was not refused naming "
             "it:\n" + err[-2000:])
    pg_util.execute("ROLLBACK PREPARED 'sluice:pgeo-drop:3:1'")
    job = Job(a, data, "DROP TABLE d;\n")
    job.wait(60)
    if job.p.returncode != 0:
        fail("DROP TABLE after the rollback failed:\n" + job.stderr()[-2000:])
    pg_util.execute("ROLLBACK PREPARED 'sluice:pgeo-dropx:3:1'")


def kafka_modules():
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "kafka"))
    sys.path.insert(0, os.path.join(here, "..", "e2e"))
    import kafka_util
    import sluice_e2e
    return kafka_util, sluice_e2e


def set_sql(run, rows, rate, which, topic, out_dir, broker):
    return ("SET 'parallelism.default' = '2';\n"
            "SET 'execution.checkpointing.interval' = '300 ms';\n"
            "SET 'pipeline.name' = '%s';\n" % run +
            "CREATE TABLE IF NOT EXISTS gen (id BIGINT) WITH ('connector' = 'datagen', "
            "'number-of-rows' = '%d', 'rows-per-second' = '%d', 'fields.id.kind' = "
            "'sequence', 'fields.id.start' = '1', 'fields.id.end' = '%d');\n" % (rows, rate, rows) +
            "CREATE TABLE IF NOT EXISTS k_out (id BIGINT, amount BIGINT) WITH ('connector' = "
            "'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'format' = 'json', "
            "'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = "
            "'%s-k-');\n" % (topic, broker, run) +
            sink("ledger", run + "_ledger", which, "exactly-once") +
            "CREATE TABLE IF NOT EXISTS f_out (id BIGINT, amount BIGINT) WITH ('connector' = "
            "'filesystem', 'path' = '%s', 'format' = 'json');\n" % out_dir +
            "EXECUTE STATEMENT SET BEGIN\n"
            "INSERT INTO k_out SELECT id, id * 7 %% 101 FROM gen;\n"
            "INSERT INTO ledger SELECT id, id %% %d, id * 7 %% 101 FROM gen;\n"
            "INSERT INTO f_out SELECT id, id * 7 %% 101 FROM gen;\n"
            "END;\n" % KEYS)


def case_set(a):
    kafka_util, sluice_e2e = kafka_modules()
    run, which = "pgeo_set", "pg"
    rnd = random.Random(int(os.environ.get("SLUICE_TEST_SEED", "13")))
    setup_tables(run, which)
    topic = "%s-%d" % (run, os.getpid())
    kafka_util.create_topic(a.topic_tool, topic, 3)
    data = os.path.join(a.work, run)
    out_dir = os.path.join(a.work, "files")
    sql = set_sql(run, a.rows, a.rate, which, topic, out_dir, kafka_util.BROKER)
    kills = min(a.kills, 20)
    done = crash_loop(a, data, sql, kills, ["prepare", "decide", None], rnd)
    finish(a, data, sql, run)
    print("pg_eo_test: set: %d SIGKILLs" % done)
    if done < kills:
        fail("set: only %d of %d kills happened (raise --rows)" % (done, kills))
    want = sorted((i, i * 7 % 101) for i in range(1, a.rows + 1))
    got_k = sorted((r["id"], r["amount"]) for r in
                   (json.loads(v) for v in kafka_util.consume(topic)))
    got_p = sorted((int(i), int(m)) for i, m in
                   pg_util.query("SELECT id, amount FROM %s_ledger" % run))
    got_f = sorted((r["id"], r["amount"]) for r in sluice_e2e.committed_rows(out_dir))
    for name, got in (("kafka", got_k), ("postgresql", got_p), ("files", got_f)):
        print("pg_eo_test: set: %s holds %d records (%d expected)" % (name, len(got), len(want)))
        if got != want:
            fail("set: %s differs from the reference (%d records, %d expected)" %
                 (name, len(got), len(want)))
    no_prepared_left(run, which)


def case_two_lr(a):
    kafka_util, _ = kafka_modules()
    run = "pgeo_2lr"
    setup_tables(run, "pg0")
    topic = "%s-%d" % (run, os.getpid())
    kafka_util.create_topic(a.topic_tool, topic, 1)
    data = os.path.join(a.work, run)
    sql = set_sql(run, 10, 10, "pg0", topic, os.path.join(a.work, "files"), kafka_util.BROKER)
    job = Job(a, data, sql)
    job.wait(60)
    err = job.stderr()
    print("pg_eo_test: two_lr:\n" + err[-1500:])
    if job.p.returncode == 0 or "last-resource participants" not in err or \
            "max_prepared_transactions" not in err:
        fail("Kafka exactly-once + PostgreSQL exactly-once without prepared transactions was "
             "not refused naming max_prepared_transactions (exit %r):\n%s" %
             (job.p.returncode, err[-3000:]))
    if "SQLSTATE" not in err:
        fail("two_lr: no SQLSTATE in the refusal")


# --- issue test 1: Kafka -> TUMBLE window -> PostgreSQL, preparable ------

CLICK_T0 = datetime.datetime(2026, 1, 1)
CLICK_PARTITIONS = 3
CLICKS_PER_BATCH = 40   # per partition and batch: one second of event time
CAMPAIGNS = 7


def click(b, p, j):
    """Click j of partition p in batch b: event time b s + j * 25 ms, moved
    back by up to 300 ms (out of order within the watermark's 1 s delay,
    so never late); amount has two decimals."""
    eid = (b * CLICK_PARTITIONS + p) * 1000 + j
    ts = CLICK_T0 + datetime.timedelta(milliseconds=b * 1000 + j * 25 - eid * 7919 % 301)
    return {"event_id": eid, "campaign_id": (eid * 13 + b) % CAMPAIGNS,
            "amount": decimal.Decimal(eid * 37 % 99991) / 100, "ts": ts}


def click_json(c):
    return ('{"event_id": %d, "campaign_id": %d, "amount": %s, "ts": "%s"}' %
            (c["event_id"], c["campaign_id"], c["amount"],
             c["ts"].strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]))


class ClickProducer(threading.Thread):
    """Produces batch after batch (kcat, one call per partition) every
    `every` s until stop is set, then one click per partition 5 s of event
    time past the last batch (campaign 999: its window never closes; it
    moves every partition's watermark past the real windows). batches:
    how many were produced (the reference is computed from them)."""

    def __init__(self, kafka_util, topic, every=0.4, min_batches=3):
        super().__init__(daemon=True)
        self.ku, self.topic, self.every, self.min_batches = kafka_util, topic, every, min_batches
        self.stop = threading.Event()
        self.batches = 0
        self.error = None

    def run(self):
        try:
            while not self.stop.is_set() or self.batches < self.min_batches:
                b = self.batches
                for p in range(CLICK_PARTITIONS):
                    self.ku.produce(self.topic, [(c["event_id"], click_json(c)) for c in
                                                 (click(b, p, j) for j in range(CLICKS_PER_BATCH))],
                                    partition=p)
                self.batches += 1
                self.stop.wait(self.every)
            for p in range(CLICK_PARTITIONS):
                c = click(self.batches + 5, p, 0)
                c["campaign_id"] = 999
                self.ku.produce(self.topic, [(c["event_id"], click_json(c))], partition=p)
        except BaseException as x:  # kafka_util.fail raises SystemExit
            self.error = x

    def finish(self, kafka_util):
        self.stop.set()
        self.join(120)
        if self.is_alive() or self.error:
            kafka_util.fail("the producer failed: %r" % (self.error,))


def window_reference(batches):
    acc = collections.defaultdict(lambda: [0, decimal.Decimal(0)])
    for b in range(batches):
        for p in range(CLICK_PARTITIONS):
            for j in range(CLICKS_PER_BATCH):
                c = click(b, p, j)
                w = acc[(c["ts"].replace(microsecond=0), c["campaign_id"])]
                w[0] += 1
                w[1] += c["amount"]
    return collections.Counter({(w.strftime("%Y-%m-%d %H:%M:%S.000"), k, n, total): 1
                                for (w, k), (n, total) in acc.items()})


def read_windows(run):
    return collections.Counter(
        (ws, int(k), int(n), decimal.Decimal(t)) for ws, k, n, t in pg_util.query(
            "SELECT to_char(window_start, 'YYYY-MM-DD HH24:MI:SS.MS'), campaign_id, clicks, "
            "total FROM %s_win" % run))


def window_sql(run, topic, broker, guarantee):
    extra = ""
    if guarantee == "at-least-once":
        extra = (", 'sink.buffer-flush.max-rows' = '10', "
                 "'sink.buffer-flush.interval' = '20 ms'")
    return ("SET 'parallelism.default' = '2';\n"
            "SET 'execution.checkpointing.interval' = '300 ms';\n"
            "SET 'table.exec.source.idle-timeout' = '5 s';\n"
            "SET 'pipeline.name' = '%s';\n" % run +
            "CREATE TABLE IF NOT EXISTS clicks (event_id BIGINT, campaign_id INT, "
            "amount DECIMAL(10, 2), ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
            "WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s', "
            "'format' = 'json', 'scan.startup.mode' = 'earliest-offset');\n" % (topic, broker) +
            "CREATE TABLE IF NOT EXISTS wins (window_start TIMESTAMP(3), campaign_id INT, "
            "clicks BIGINT, total DECIMAL(38, 2)) WITH ('connector' = 'jdbc', 'url' = '%s', "
            "'table-name' = '%s_win', 'username' = 'sluice', 'password' = 'sluice', "
            "'sink.delivery-guarantee' = '%s', 'sink.transactional-id-prefix' = '%s_win'%s);\n"
            % (pg_util.jdbc_url(port=pg_util.port_of("pg")), run, guarantee, run, extra) +
            "INSERT INTO wins SELECT window_start, campaign_id, COUNT(*), SUM(amount) FROM "
            "TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' SECOND)) "
            "GROUP BY window_start, window_end, campaign_id;\n")


def setup_table(run, which, name, cols):
    pg_util.execute("DROP TABLE IF EXISTS {r}_{n}; CREATE TABLE {r}_{n} ({c}); "
                    "DO $$ BEGIN IF to_regclass('sluice_progress') IS NOT NULL THEN "
                    "DELETE FROM sluice_progress WHERE starts_with(prefix, '{r}_'); END IF; END $$"
                    .format(r=run, n=name, c=cols), port=pg_util.port_of(which))


def run_until(a, data, sql, complete, what, timeout=90):
    """A run of sql until complete() holds (polled every 0.5 s, at most
    timeout s; the sources here never end), then SIGTERM."""
    job = Job(a, data, sql)
    end = time.monotonic() + timeout
    ok = False
    while time.monotonic() < end and job.alive():
        if complete():
            ok = True
            break
        time.sleep(0.5)
    if not job.alive():
        return fail("%s: the last run ended by itself (%r):\n%s" %
                    (what, job.p.returncode, job.stderr()[-3000:]))
    job.kill(signal.SIGTERM)
    rc = job.wait(60)
    if rc is None:
        job.kill()
        job.wait(10)
        fail("%s: the last run did not stop within 60 s of SIGTERM" % what)
    elif rc not in (0, 143, -15):
        fail("%s: the last run ended with %r:\n%s" % (what, rc, job.stderr()[-3000:]))
    if not ok:
        fail("%s: the output was not complete within %d s:\n%s" %
             (what, timeout, job.stderr()[-2000:]))


def compare(got, want, what):
    missing = sum((want - got).values())
    extra = sum(n for k, n in got.items() if k not in want)
    dups = sum(n - max(want[k], 1) for k, n in got.items() if n > max(want[k], 1))
    print("pg_eo_test: %s: %d rows (%d expected): %d missing, %d not in the reference, "
          "%d duplicated" % (what, sum(got.values()), sum(want.values()), missing, extra, dups))
    return missing, extra, dups


def case_kafka_window(a, guarantee="exactly-once"):
    """Issue test 1 (the module doc: --case kafka_window / kafka_window_control)."""
    kafka_util, _ = kafka_modules()
    exact = guarantee == "exactly-once"
    run = "pgeo_kwin" if exact else "pgeo_kalo"
    rnd = random.Random(int(os.environ.get("SLUICE_TEST_SEED", "17")))
    setup_table(run, "pg", "win", "window_start timestamp(3), campaign_id int, clicks bigint, "
                "total numeric(38,2)")
    topic = "%s-%d" % (run, os.getpid())
    kafka_util.create_topic(a.topic_tool, topic, CLICK_PARTITIONS)
    producer = ClickProducer(kafka_util, topic)
    producer.start()
    data = os.path.join(a.work, run)
    sql = window_sql(run, topic, kafka_util.BROKER, guarantee)
    kills = a.kills if exact else 8
    # The control: every other kill after the sink wrote a checkpoint's rows
    # and before the checkpoint was sealed (its windows are replayed: the
    # duplicates it must show), the others at random moments.
    pauses = (["prepare", "seal", None, "prepare", "seal", "state-sink"] if exact
              else ["pre-commit", None])
    done = crash_loop(a, data, sql, kills, pauses, rnd, skip=1, pause_ms=1000)
    producer.finish(kafka_util)
    want = window_reference(producer.batches)
    print("pg_eo_test: %s: %d SIGKILLs; %d batches of %d clicks, %d windows expected" %
          (run, done, producer.batches, CLICK_PARTITIONS * CLICKS_PER_BATCH, len(want)))
    if done < kills:
        fail("%s: only %d of %d kills happened" % (run, done, kills))
    run_until(a, data, sql, lambda: not (want - read_windows(run)), run)
    missing, extra, dups = compare(read_windows(run), want, run)
    if exact:
        if missing or extra or dups:
            fail("%s: the table differs from the reference: %d missing, %d foreign, %d "
                 "duplicated" % (run, missing, extra, dups))
        no_prepared_left(run, "pg")
    else:
        if missing or extra:
            fail("%s: at-least-once lost or invented windows: %d missing, %d foreign" %
                 (run, missing, extra))
        if not dups:
            fail("%s: at-least-once with %d kills duplicated no window: the exactly-once "
                 "check would not see a replay" % (run, done))


# --- issue test 2: files -> PostgreSQL, last resource (pg0) --------------

FILE_ROWS = 120   # rows per file


def file_rows(f):
    return [(i, i % KEYS, decimal.Decimal(i * 7919 % 100000) / 100, "n,%d \"q\"" % (i % 50))
            for i in range(f * FILE_ROWS + 1, (f + 1) * FILE_ROWS + 1)]


class FileWriter(threading.Thread):
    """Writes in-00000.csv, in-00001.csv, ... into dir every `every` s
    until stop is set, each under a hidden name first, then renamed
    (complete when it appears). files: how many were written."""

    def __init__(self, dir, every=0.25):
        super().__init__(daemon=True)
        self.dir, self.every = dir, every
        self.stop = threading.Event()
        self.files = 0

    def run(self):
        os.makedirs(self.dir, exist_ok=True)
        while not self.stop.is_set() or self.files < 3:
            tmp = os.path.join(self.dir, ".in-%05d.tmp" % self.files)
            with open(tmp, "w", newline="") as f:
                csv.writer(f, lineterminator="\n").writerows(file_rows(self.files))
            os.rename(tmp, os.path.join(self.dir, "in-%05d.csv" % self.files))
            self.files += 1
            self.stop.wait(self.every)


def read_files_table(run):
    return collections.Counter(
        (int(i), int(k), decimal.Decimal(m), n) for i, k, m, n in
        pg_util.query("SELECT id, k, amount, note FROM %s_files" % run,
                      port=pg_util.port_of("pg0")))


def case_lr_files(a):
    """Issue test 2 (the module doc: --case lr_files)."""
    run, which = "pgeo_lrf", "pg0"
    rnd = random.Random(int(os.environ.get("SLUICE_TEST_SEED", "19")))
    setup_table(run, which, "files", "id bigint, k bigint, amount numeric(10,2), note text")
    indir = os.path.join(a.work, "in")
    writer = FileWriter(indir)
    writer.start()
    data = os.path.join(a.work, run)
    sql = ("SET 'parallelism.default' = '2';\n"
           "SET 'execution.checkpointing.interval' = '300 ms';\n"
           "SET 'pipeline.name' = '%s';\n" % run +
           "CREATE TABLE IF NOT EXISTS src (id BIGINT, k BIGINT, amount DECIMAL(10, 2), "
           "note STRING) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv', "
           "'source.monitor-interval' = '100 ms');\n" % indir +
           "CREATE TABLE IF NOT EXISTS dst (id BIGINT, k BIGINT, amount DECIMAL(10, 2), "
           "note STRING) WITH ('connector' = 'jdbc', 'url' = '%s', 'table-name' = '%s_files', "
           "'username' = 'sluice', 'password' = 'sluice', "
           "'sink.delivery-guarantee' = 'exactly-once', "
           "'sink.transactional-id-prefix' = '%s_files');\n"
           % (pg_util.jdbc_url(port=pg_util.port_of(which)), run, run) +
           "INSERT INTO dst SELECT id, k, amount, note FROM src;\n")
    done = crash_loop(a, data, sql, a.kills, ["decide", "state-sink", None, "decide"], rnd,
                      skip=1, pause_ms=1000)
    writer.stop.set()
    writer.join(30)
    want = collections.Counter(r for f in range(writer.files) for r in file_rows(f))
    print("pg_eo_test: %s: %d SIGKILLs; %d files, %d rows expected" %
          (run, done, writer.files, sum(want.values())))
    if done < a.kills:
        fail("%s: only %d of %d kills happened" % (run, done, a.kills))
    count = "SELECT count(*) FROM %s_files" % run
    run_until(a, data, sql, lambda: int(pg_util.query(count, port=pg_util.port_of(which))[0][0])
              >= sum(want.values()), run)
    missing, extra, dups = compare(read_files_table(run), want, run)
    if missing or extra or dups:
        fail("%s: the table differs from the reference: %d missing, %d foreign, %d duplicated"
             % (run, missing, extra, dups))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--case", required=True)
    ap.add_argument("--kills", type=int, default=25)
    ap.add_argument("--rows", type=int, default=12000)
    ap.add_argument("--rate", type=int, default=400)
    ap.add_argument("--topic-tool")
    a = ap.parse_args()
    a.work = tempfile.mkdtemp(prefix="sluice-pgeo-")
    started = time.monotonic()
    if a.case == "prep":
        case_exactly(a, "pg", "pgeo_prep", ["prepare", "seal", None])
    elif a.case == "lr":
        case_exactly(a, "pg0", "pgeo_lr", ["decide", "state-sink", None])
    elif a.case == "control":
        case_control(a)
    elif a.case == "restart":
        case_restart(a)
    elif a.case == "zombie":
        case_zombie(a)
    elif a.case == "refuse":
        case_refuse(a)
    elif a.case == "set":
        case_set(a)
    elif a.case == "two_lr":
        case_two_lr(a)
    elif a.case == "kafka_window":
        case_kafka_window(a)
    elif a.case == "kafka_window_control":
        case_kafka_window(a, "at-least-once")
    elif a.case == "lr_files":
        case_lr_files(a)
    else:
        fail("unknown case " + a.case)
    print("pg_eo_test: %s took %.1f s" % (a.case, time.monotonic() - started))
    if FAILED:
        print("pg_eo_test: kept %s" % a.work)
        print("0 passed, 1 failed")
        return 1
    shutil.rmtree(a.work, ignore_errors=True)
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
