#!/usr/bin/env python3
"""my_eo_test.py — exactly-once into MariaDB (connectors/jdbc/my_*.c)
through crashes, a server restart and a zombie, modelled on
tests/postgres/pg_eo_test.py. The reader is the `mariadb` client through
mariadb_util (never Sluice); every reference is computed here.

Servers (tests/mariadb/tests.cmake):
  my   the fixture `mariadb` (SLUICE_MARIADB_PORT, SLUICE_MARIADB_RUN_DIR):
       log_bin ON, sync_binlog 1, innodb_flush_log_at_trx_commit 1 — XA
       is durable: the sink is a preparable participant
  lr   the fixture `mariadb_lr` (SLUICE_MARIADB_LR_PORT,
       SLUICE_MARIADB_LR_RUN_DIR): started with --sync-binlog=0 — log_bin
       ON without a synced binary log, which allows at-least-once only
       (my_check.c); the cases below change its settings (SET GLOBAL as its
       administrator, through its socket) and set them back

The job (a statement set): a datagen sequence 1..N (replayable, bounded) at
parallelism 2 with checkpoints every 300 ms into two tables of one
database, both exactly-once:
  <run>_ledger (id, k, amount)           every event once (no key: a replay
                                         shows as a duplicate)
  <run>_totals (k PRIMARY KEY, total, n) SUM(amount), COUNT(*) per k
                                         (INSERT ... ON DUPLICATE KEY UPDATE)
Both commit in one transaction per epoch.

The reader thread (MariaDB has no xmin): again and again, in one
transaction (START TRANSACTION WITH CONSISTENT SNAPSHOT, REPEATABLE READ),
reads aggregates of the ledger and every row of totals. Subtask k of the
datagen source generates the ids with id % 2 != k, in order, so every
committed epoch leaves in the ledger a prefix of the odd ids and a prefix
of the even ids, each once (no duplicate, no hole); and in totals exactly
the aggregate of a prefix of the odd ids and a prefix of the even ids (the
totals pipeline reads the source on its own, so its prefixes differ from
the ledger's). A snapshot that shows anything else saw a torn epoch.

--case prep     25 SIGKILLs on `my` (XA): every third after XA PREPARE and
                before the decision (SLUICE_TEST_PAUSE=prepare), every third
                after the decision and before XA COMMIT (seal), the rest at
                random moments; then a run to the end. Both tables equal the
                reference, the reader never saw a torn epoch, the prepared
                xid seen at a pause has the documented form
                ('sluice:<prefix>:<epoch>:<token>', formatID 1), none of ours
                is left in XA RECOVER, the progress row is there.
--case control  the same at-least-once with 8 kills, every other one after
                the sink wrote a checkpoint's rows and before the checkpoint
                was decided (pre-commit: deterministic): the ledger must
                hold duplicates (proof that the checks can fail).
--case restart  the server is restarted (scripts/mariadb restart --immediate:
                SIGKILL and crash recovery) twice in the middle of a run
                (URL jdbc:mysql:); the job recovers by its restart strategy
                (the same process); the result is exactly the reference, no
                xid of ours is left.
--case zombie   instance A runs, is frozen (SIGSTOP); B starts from a copy
                of A's data directory and fences A; A is let go on
                (SIGCONT): it stops with 55006 naming the prefix; B runs to
                the end; the tables equal the reference.
--case zombie_xa  the same, A frozen during its pause after XA PREPARE (an
                undecided epoch prepared: B rolls it back), then again
                during its pause after the seal (decided, not committed: B
                commits it); A, let go on, must stop with 55006.
--case refuse   plan-time refusals on `my`: a wrong password (28P01), an
                unreachable server (08001), a missing database (3D000), a
                missing table (42P01, naming where it looked), a missing
                column (42703), the read-only user writing (42501), a
                PRIMARY KEY the table's unique indexes do not hold (42P10),
                a prefix longer than SL__MY_PREFIX_MAX (56) bytes (22023;
                one of 56 bytes runs), exactly-once into a table that is not
                InnoDB (0A000); DROP TABLE while an xid of the table's
                prefix is prepared (55006 naming it; a neighbouring
                prefix's does not count), allowed after XA ROLLBACK. Never
                the password in the output.
--case lr       the last resource (the role of a server whose XA RECOVER is
                refused, forced by SLUICE_TEST_MARIADB_NO_XA=1; on `lr` with
                sync_binlog = 1 for the case): 10 SIGKILLs after the
                decision (the COMMIT) and before the seal (SLUICE_TEST_PAUSE=
                decide), inside checkpoints (state-sink), at random; then a
                run to the end. EXPLAIN shows the commit role "last
                resource"; no xid of ours appears in XA RECOVER at a pause;
                the tables equal the reference.
--case settings on `lr`: as started (sync_binlog = 0, log_bin ON), then with
                SET GLOBAL innodb_flush_log_at_trx_commit = 2 (sync_binlog
                1): exactly-once refused with 0A000 naming the setting; with
                SET 'sink.guarantee-fallback' = 'downgrade' the job runs
                at-least-once with a WARNING naming it and writes every row;
                the settings back as they were (always).

Usage: my_eo_test.py --sluice PATH --case NAME [--kills N] [--rows N]
                     [--rate N] [--pause-ms N]
"""
import argparse
import decimal
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mariadb_util as mu  # noqa: E402

KEYS = 13
FAILED = []
PASSWORD_SECRET = "Wrong-pw-0815"


def fail(msg):
    print("my_eo_test: FAILED: " + msg, flush=True)
    FAILED.append(msg)


def say(msg):
    print("my_eo_test: " + msg, flush=True)


# --- the servers -----------------------------------------------------------

def port_of(which):
    if which == "lr":
        return int(os.environ.get("SLUICE_MARIADB_LR_PORT", str(mu.port() + 500)))
    return mu.port()


def run_dir_of(which):
    if which == "lr":
        return os.path.realpath(os.environ.get("SLUICE_MARIADB_LR_RUN_DIR") or os.path.join(
            mu.HERE, "..", "..", ".cache", "mariadb", "run-%d" % port_of("lr")))
    return mu.run_dir()


def url(which="my", scheme="mariadb", port=None, db="sluice"):
    return "jdbc:%s://127.0.0.1:%d/%s" % (scheme, port or port_of(which), db)


def query(sql, which="my", **kw):
    return mu.query(sql, port=port_of(which), **kw)


def execute(sql, which="my", **kw):
    return mu.execute(sql, port=port_of(which), **kw)


def admin_execute(sql, which):
    """sql as the server's administrator (the OS user's account through
    the server's unix socket, as scripts/mariadb does)."""
    sock = None
    with open(os.path.join(run_dir_of(which), "my.cnf")) as f:
        for line in f:
            m = re.match(r"^socket\s*=\s*(\S+)\s*$", line)
            if m:
                sock = m.group(1)
    if not sock:
        raise RuntimeError("no socket in %s/my.cnf" % run_dir_of(which))
    r = subprocess.run(["mariadb", "--no-defaults", "--protocol=socket", "-S", sock,
                        "--batch", "--skip-column-names", "-e", sql],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError("as administrator: %s: %s" % (sql, r.stderr.strip()))
    return r.stdout


def xids(prefix_head, which="my"):
    """XA RECOVER's rows whose data (gtrid and bqual joined) starts with
    'sluice:' + prefix_head: [(formatID, gtrid_length, bqual_length, data)]."""
    out = []
    for fmt, glen, blen, data in query("XA RECOVER", which):
        if data.startswith("sluice:" + prefix_head):
            out.append((int(fmt), int(glen), int(blen), data))
    return out


# --- the job ---------------------------------------------------------------

def sink(name, table, which, guarantee, scheme, extra=""):
    return ("CREATE TABLE IF NOT EXISTS {n} ({cols}) WITH ('connector' = 'jdbc', 'url' = '{url}', "
            "'table-name' = '{t}', 'username' = 'sluice', 'password' = 'sluice', "
            "'sink.delivery-guarantee' = '{g}', 'sink.transactional-id-prefix' = '{t}'{x});\n"
            ).format(n=name, t=table, url=url(which, scheme), g=guarantee, x=extra,
                     cols="id BIGINT, k BIGINT, amount BIGINT" if name == "ledger" else
                     "k BIGINT, total BIGINT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED")


def job_sql(run, which, rows, rate, guarantee="exactly-once", extra="", scheme="mariadb",
            head=""):
    if guarantee == "at-least-once":
        extra += (", 'sink.buffer-flush.max-rows' = '10', "
                  "'sink.buffer-flush.interval' = '20 ms'")
    return (head +
            "SET 'parallelism.default' = '2';\n"
            "SET 'execution.checkpointing.interval' = '300 ms';\n"
            "SET 'restart-strategy.fixed-delay.delay' = '500 ms';\n"
            "SET 'pipeline.name' = '%s';\n" % run +
            "CREATE TABLE IF NOT EXISTS gen (id BIGINT) WITH ('connector' = 'datagen', "
            "'number-of-rows' = "
            "'%d', 'rows-per-second' = '%d', 'fields.id.kind' = 'sequence', "
            "'fields.id.start' = '1', 'fields.id.end' = '%d');\n" % (rows, rate, rows) +
            sink("ledger", run + "_ledger", which, guarantee, scheme, extra) +
            sink("totals", run + "_totals", which, guarantee, scheme, extra) +
            "EXECUTE STATEMENT SET BEGIN\n"
            "INSERT INTO ledger SELECT id, id %% %d, id * 7 %% 101 FROM gen;\n"
            "INSERT INTO totals SELECT id %% %d, SUM(id * 7 %% 101), COUNT(*) FROM gen "
            "GROUP BY id %% %d;\nEND;\n" % (KEYS, KEYS, KEYS))


def forget_run(run, which):
    """Rolls back prepared xids a previous run of `run` left (their locks
    would hold DROP TABLE), removes its progress rows."""
    for fmt, glen, blen, data in xids(run + "_", which):
        bqual = data[glen:glen + blen]
        execute("XA ROLLBACK X'%s',%s,%d" % (data[:glen].encode().hex(),
                                             "X'%s'" % bqual.encode().hex() if bqual else "''",
                                             fmt), which)
    if query("SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'sluice' "
             "AND TABLE_NAME = 'sluice_progress'", which):
        execute("DELETE FROM sluice_progress WHERE LEFT(prefix, %d) = %s"
                % (len(run) + 1, mu.literal(run + "_")), which)


def setup_tables(run, which):
    forget_run(run, which)
    execute("SET SESSION lock_wait_timeout = 20; "
            "DROP TABLE IF EXISTS {r}_ledger, {r}_totals; "
            "CREATE TABLE {r}_ledger (id BIGINT, k BIGINT, amount BIGINT) ENGINE=InnoDB; "
            "CREATE TABLE {r}_totals (k BIGINT PRIMARY KEY, total BIGINT, n BIGINT) "
            "ENGINE=InnoDB".format(r=run), which)


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


# --- the reference and the reader ------------------------------------------

def reference(rows):
    ledger = {i: (i % KEYS, i * 7 % 101) for i in range(1, rows + 1)}
    totals = {}
    for i, (k, amt) in ledger.items():
        t, n = totals.get(k, (0, 0))
        totals[k] = (t + amt, n + 1)
    return ledger, totals


class Prefixes:
    """Per key, the count and the sum of amounts of the first j odd ids
    (1, 3, ...) and of the first j even ids (2, 4, ...) of 1..rows."""

    def __init__(self, rows):
        self.odd = self._table(range(1, rows + 1, 2))
        self.even = self._table(range(2, rows + 1, 2))

    @staticmethod
    def _table(ids):
        acc = [(0,) * (2 * KEYS + 1)]  # per key n, per key total, the total of all
        cur = [0] * (2 * KEYS + 1)
        for i in ids:
            cur[i % KEYS] += 1
            cur[KEYS + i % KEYS] += i * 7 % 101
            cur[2 * KEYS] += i * 7 % 101
            acc.append(tuple(cur))
        return acc

    def explains(self, totals):
        """Whether totals {k: (total, n)} is the aggregate of a prefix of
        the odd ids and a prefix of the even ids."""
        want_n = [totals.get(k, (0, 0))[1] for k in range(KEYS)]
        want_t = [totals.get(k, (0, 0))[0] for k in range(KEYS)]
        s_n, s_t = sum(want_n), sum(want_t)
        for a in range(max(0, s_n - (len(self.even) - 1)), min(s_n, len(self.odd) - 1) + 1):
            o, e = self.odd[a], self.even[s_n - a]
            if o[2 * KEYS] + e[2 * KEYS] != s_t:
                continue
            if all(o[k] + e[k] == want_n[k] and o[KEYS + k] + e[KEYS + k] == want_t[k]
                   for k in range(KEYS)):
                return True
        return False


LEDGER_STATS = ("SELECT COUNT(*), COUNT(DISTINCT id), "
                "COUNT(DISTINCT CASE WHEN id %% 2 = 1 THEN id END), "
                "COALESCE(MAX(CASE WHEN id %% 2 = 1 THEN id END), 0), "
                "COUNT(DISTINCT CASE WHEN id %% 2 = 0 THEN id END), "
                "COALESCE(MAX(CASE WHEN id %% 2 = 0 THEN id END), 0) FROM %s_ledger")


class Invariant(threading.Thread):
    """The reader of the module doc: in one REPEATABLE READ transaction
    (one snapshot) the ledger's aggregates and totals' rows; a snapshot
    whose ledger is not a prefix of the odd and of the even ids each once,
    or whose totals are not the aggregate of such prefixes, is broken."""

    def __init__(self, run, which, rows):
        super().__init__(daemon=True)
        self.sql = ("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ; "
                    "START TRANSACTION WITH CONSISTENT SNAPSHOT; " + LEDGER_STATS % run +
                    "; SELECT k, total, n FROM %s_totals; COMMIT" % run)
        self.which = which
        self.prefixes = Prefixes(rows)
        self.stop = threading.Event()
        self.reads = 0
        self.nonempty = 0
        self.broken = []

    def check(self, got):
        stats = [r for r in got if len(r) == 6]
        if len(stats) != 1:
            return "the read returned %r" % (got[:5],)
        n, distinct, odd, max_odd, even, max_even = (int(x) for x in stats[0])
        totals = {int(k): (int(t), int(c)) for k, t, c in (r for r in got if len(r) == 3)}
        if n:
            self.nonempty += 1
        why = []
        if n != distinct:
            why.append("ledger: %d rows, %d distinct ids" % (n, distinct))
        if odd != (max_odd + 1) // 2 or even != max_even // 2:
            why.append("ledger: %d odd ids up to %d, %d even up to %d (holes)"
                       % (odd, max_odd, even, max_even))
        if not self.prefixes.explains(totals):
            why.append("totals %r are no prefix's aggregate" % sorted(totals.items()))
        return "; ".join(why)

    def run(self):
        while not self.stop.is_set():
            try:
                got = query(self.sql, self.which, timeout=20)
            except (mu.MariaDBError, subprocess.TimeoutExpired):
                time.sleep(0.1)  # the server restarting
                continue
            self.reads += 1
            why = self.check(got)
            if why:
                self.broken.append(why)
            time.sleep(0.03)


def check_tables(run, which, rows, expect_exact=True):
    """Compares both tables with the reference; returns (differences,
    duplicates)."""
    ledger, totals = reference(rows)
    got = query("SELECT id, k, amount FROM %s_ledger" % run, which)
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
          query("SELECT k, total, n FROM %s_totals" % run, which)}
    twrong = sorted(k for k in set(totals) | set(gt) if totals.get(k) != gt.get(k))
    say("%s: ledger %d rows (%d duplicates, %d missing, %d wrong); totals %d keys wrong"
        % (run, len(got), dups, missing, wrong, len(twrong)))
    bad = dups + missing + wrong + len(twrong)
    if expect_exact and bad:
        fail("%s: not exactly-once: %d duplicates, %d missing, %d wrong ledger rows, %d wrong "
             "totals (missing ids: %s; totals (key: got, want): %s)"
             % (run, dups, missing, wrong, len(twrong), gone[:20],
                [(k, gt.get(k), totals.get(k)) for k in twrong[:5]]))
    return bad, dups


def no_xid_left(run, which):
    left = xids(run + "_", which)
    if left:
        fail("%s: XA RECOVER still lists xids of ours: %s" % (run, left))


def progress_row(run, which, min_token=None):
    """The progress row of the statement set's participant (keyed by a
    sink's prefix): there, its epoch >= 0, its token >= min_token."""
    try:
        got = query("SELECT prefix, job, epoch, token FROM sluice_progress WHERE prefix IN "
                    "('%s_ledger', '%s_totals')" % (run, run), which)
    except mu.MariaDBError as e:
        return fail("%s: sluice_progress cannot be read: %s" % (run, e))
    say("%s: sluice_progress: %r" % (run, got))
    if len(got) != 1:
        return fail("%s: expected one progress row for the statement set's prefix, found %r"
                    % (run, got))
    if int(got[0][2]) < 0:
        fail("%s: the progress row has no committed epoch: %r" % (run, got))
    if min_token is not None and int(got[0][3]) < min_token:
        fail("%s: the progress row's token %s: fewer than the %d incarnations" %
             (run, got[0][3], min_token))


XID_FORM = r"sluice:%s_(ledger|totals):(\d+):(\d+)"


def check_xid_form(seen, run):
    """seen: XA RECOVER rows of ours read at a pause after prepare."""
    ok = False
    for fmt, glen, blen, data in seen:
        m = re.fullmatch(XID_FORM % run, data)
        if not m or fmt != 1:
            fail("%s: an xid of ours not of the form 'sluice:<prefix>:<epoch>:<token>' with "
                 "formatID 1: formatID %d, gtrid %r, bqual %r" % (run, fmt, data[:glen],
                                                                 data[glen:glen + blen]))
        else:
            ok = True
    return ok


def crash_loop(a, data, sql, kills, pauses, rnd, skip=2, pause_ms=1000, at_pause=None):
    """Runs of sql SIGKILLed `kills` times: kill k pauses at
    pauses[k % len(pauses)] (None: a random moment) and is killed there,
    after 0..skip earlier pauses of pause_ms; at_pause(step) runs just
    before such a kill. Returns kills done."""
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
            if at_pause and job.alive():
                at_pause(step)
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


def explain_role(a, run, which, want):
    """EXPLAIN of the ledger's INSERT names the commit role `want`."""
    data = os.path.join(a.work, run + "-explain")
    sqlf = data + ".sql"
    with open(sqlf, "w") as f:
        f.write(job_sql(run, which, a.rows, a.rate).split("EXECUTE STATEMENT SET")[0] +
                "EXPLAIN INSERT INTO ledger SELECT id, id %% %d, id * 7 %% 101 FROM gen;\n"
                % KEYS)
    out = subprocess.run([a.sluice, "--data-dir", data, "-f", sqlf], capture_output=True,
                         text=True, timeout=60)
    text = out.stdout + out.stderr
    lines = [l.strip() for l in text.splitlines() if "commit role" in l or "Sink " in l]
    say("%s: EXPLAIN: %s" % (run, " / ".join(lines)))
    if out.returncode != 0 or ("commit role: " + want) not in text:
        fail("%s: EXPLAIN does not show the commit role %r (exit %r):\n%s" %
             (run, want, out.returncode, text[-3000:]))


# --- the cases -------------------------------------------------------------

def case_crash(a, which, run, pauses, guarantee="exactly-once", kills=None, at_pause=None):
    rnd = random.Random(int(os.environ.get("SLUICE_TEST_SEED", "11")))
    setup_tables(run, which)
    data = os.path.join(a.work, run)
    sql = job_sql(run, which, a.rows, a.rate, guarantee)
    inv = Invariant(run, which, a.rows)
    inv.start()
    kills = a.kills if kills is None else kills
    t0 = time.monotonic()
    done = crash_loop(a, data, sql, kills, pauses, rnd, pause_ms=a.pause_ms, at_pause=at_pause)
    t1 = time.monotonic()
    finish(a, data, sql, run)
    inv.stop.set()
    inv.join(30)
    say("%s: %d SIGKILLs in %.1f s, the last run %.1f s; %d reader snapshots (%d with rows), "
        "%d broken" % (run, done, t1 - t0, time.monotonic() - t1, inv.reads, inv.nonempty,
                       len(inv.broken)))
    if done < kills:
        fail("%s: only %d of %d kills happened (the input ran out: raise --rows)" %
             (run, done, kills))
    return inv, done


def case_prep(a):
    run, which = "myprep", "my"
    seen = []

    def at_pause(step):
        if step == "prepare":
            seen.extend(xids(run + "_", which))

    setup_tables(run, which)
    explain_role(a, run, which, "preparable")
    inv, done = case_crash(a, which, run, ["prepare", "seal", None], at_pause=at_pause)
    if inv.nonempty < 20:
        fail("%s: the reader read only %d snapshots with rows" % (run, inv.nonempty))
    if inv.broken:
        fail("%s: the reader saw a torn epoch (%d times): %s" %
             (run, len(inv.broken), inv.broken[:3]))
    say("%s: XA RECOVER at the prepare pauses: %d xids of ours, e.g. %r" %
        (run, len(seen), seen[:2]))
    if not check_xid_form(seen, run):
        fail("%s: XA RECOVER never listed a prepared xid of ours while the job was paused "
             "after prepare (%d pauses)" % (run, (done + 2) // 3))
    check_tables(run, which, a.rows)
    no_xid_left(run, which)
    progress_row(run, which, min_token=done)


def case_control(a):
    # every other kill after the sink wrote a checkpoint's rows and before
    # the decision: a replay of them (the duplicates the checks must see)
    run = "myctl"
    inv, done = case_crash(a, "my", run, ["pre-commit", None], "at-least-once", kills=8)
    bad, dups = check_tables(run, "my", a.rows, expect_exact=False)
    say("%s: the reader saw %d torn snapshots at-least-once, e.g. %s" %
        (run, len(inv.broken), inv.broken[:1]))
    if not dups:
        fail("control: at-least-once with %d kills (every other one at pre-commit) left no "
             "duplicate in the ledger: the exactly-once check would not see a replay" % done)


def case_restart(a):
    run, which = "myrs", "my"
    setup_tables(run, which)
    data = os.path.join(a.work, run)
    inv = Invariant(run, which, a.rows)
    inv.start()
    job = Job(a, data, job_sql(run, which, a.rows, a.rate, scheme="mysql"))
    count = "SELECT COUNT(*) FROM %s_ledger" % run
    restarts = 0
    for n in range(2):
        end = time.monotonic() + 60
        start = int(query(count)[0][0])
        while time.monotonic() < end and job.alive() and int(query(count)[0][0]) <= start:
            time.sleep(0.2)
        time.sleep(0.5)
        if not job.alive():
            break
        took = mu.restart(immediate=True)
        restarts += 1
        say("restart %d: scripts/mariadb restart --immediate (%.1f s) with %s ledger rows"
            % (n + 1, took, query(count)[0][0]))
    rc = job.wait(240)
    inv.stop.set()
    inv.join(30)
    err = job.stderr()
    say("restart: %d reader snapshots, %d broken" % (inv.reads, len(inv.broken)))
    if restarts < 2:
        fail("restart: the job ended before the second server restart (raise --rows)")
    if rc != 0:
        job.kill()
        fail("restart: the job did not recover (exit %r):\n%s" % (rc, err[-3000:]))
    elif "restarting it" not in err:
        fail("restart: the job never restarted (the server restart was not seen?):\n%s" %
             err[-2000:])
    if inv.broken:
        fail("restart: the reader saw a torn epoch: %s" % inv.broken[:3])
    if check_tables(run, which, a.rows)[0]:
        say("the job's stderr:\n" + err[-12000:])
    no_xid_left(run, which)
    progress_row(run, which)


def zombie(a, run, pause=None):
    """Instance A runs (with pause: SLUICE_TEST_PAUSE=<pause>:3000, frozen
    during its second pause: it holds a prepared XA transaction, decided
    or not); it is frozen (SIGSTOP); B starts from a copy of A's data
    directory, fences A and makes progress; A is let go on (SIGCONT) and
    must stop with 55006 naming the prefix; B runs to the end; the tables
    equal the reference, no xid of ours is left."""
    which = "my"
    setup_tables(run, which)
    data = os.path.join(a.work, run)
    sql = job_sql(run, which, a.rows, a.rate)
    first = Job(a, data, sql, {"SLUICE_TEST_PAUSE": "%s:3000" % pause} if pause else None)
    count = "SELECT COUNT(*) FROM %s_ledger" % run
    if pause:
        at = first.wait_line("sluice-test: paused after " + pause, 60)
        at = first.wait_line("sluice-test: paused after " + pause, 60, at + 1) if at >= 0 else -1
        if at < 0:
            first.kill()
            return fail("%s: instance A never paused twice after %s:\n%s" %
                        (run, pause, first.stderr()[-3000:]))
    else:
        end = time.monotonic() + 60
        while time.monotonic() < end and first.alive() and int(query(count)[0][0]) == 0:
            time.sleep(0.2)
        time.sleep(1.0)
    if not first.alive():
        return fail("%s: instance A stopped early:\n%s" % (run, first.stderr()[-3000:]))
    first.kill(signal.SIGSTOP)
    time.sleep(0.3)
    held = xids(run + "_", which)
    frozen = int(query(count)[0][0])
    say("%s: A frozen%s at %d ledger rows, holding %r" %
        (run, " in its pause after " + pause if pause else "", frozen, held))
    if pause and not held:
        fail("%s: A is frozen after %s but XA RECOVER lists no xid of ours" % (run, pause))
    copy = data + "-copy"
    shutil.copytree(data, copy, symlinks=True)
    second = Job(a, copy, sql)
    end = time.monotonic() + 60
    while time.monotonic() < end and second.alive() and int(query(count)[0][0]) <= frozen:
        time.sleep(0.2)
    if int(query(count)[0][0]) <= frozen:
        first.kill(signal.SIGCONT)
        first.kill()
        second.kill()
        return fail("%s: instance B made no progress past A's %d ledger rows:\n%s" %
                    (run, frozen, second.stderr()[-3000:]))
    first.kill(signal.SIGCONT)
    rc = first.wait(60)
    err = first.stderr()
    say("%s: instance A exited with %r: %s" % (
        run, rc, " / ".join(err.strip().split("\n")[-3:])))
    if rc is None:
        first.kill()
        fail("%s: the fenced instance A did not stop within 60 s" % run)
    elif rc == 0 or "SQLSTATE: 55006" not in err or "%s_ledger" % run not in err:
        fail("%s: instance A did not stop with 55006 naming the prefix %s_ledger (exit %r):\n%s"
             % (run, run, rc, err[-3000:]))
    rc = second.wait(180)
    if rc != 0:
        second.kill()
        fail("%s: instance B ended with %r:\n%s" % (run, rc, second.stderr()[-3000:]))
    check_tables(run, which, a.rows)
    no_xid_left(run, which)


def case_zombie(a):
    zombie(a, "myzb")


def case_zombie_xa(a):
    # A frozen holding a prepared, undecided epoch (B rolls it back), then
    # one holding a decided epoch not yet committed (B commits it)
    zombie(a, "myzbp", "prepare")
    zombie(a, "myzbs", "seal")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Plan:
    """One sluice process per statement: sluice -D <fresh dir> -e sql."""

    def __init__(self, a):
        self.a = a
        self.n = 0

    def run(self, sql, timeout=120):
        self.n += 1
        data = os.path.join(self.a.work, "plan-%d" % self.n)
        t0 = time.monotonic()
        r = subprocess.run([self.a.sluice, "-D", data, "-e", sql], capture_output=True,
                           text=True, timeout=timeout)
        return r.returncode, r.stdout + r.stderr, time.monotonic() - t0


def jdbc(name, cols, table, user="sluice", pw="sluice", extra="", u=None):
    return ("CREATE TABLE %s (%s) WITH ('connector' = 'jdbc', 'url' = '%s', "
            "'table-name' = '%s', 'username' = '%s', 'password' = '%s'%s);"
            % (name, cols, u or url(), table, user, pw, extra))


SRC = ("SET 'execution.checkpointing.interval' = '300 ms'; "
       "CREATE TABLE src (x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');")
EO = (", 'sink.delivery-guarantee' = 'exactly-once', "
      "'sink.transactional-id-prefix' = 'myref_eo'")


def expect(pl, case, sql, state, *words, max_s=None):
    rc, out, dt = pl.run(sql)
    # a word may be a tuple of alternatives
    ok = rc != 0 and ("SQLSTATE: %s" % state) in out and all(
        any(x in out for x in (w if isinstance(w, tuple) else (w,))) for w in words)
    if "Sanitizer" in out or "runtime error:" in out:
        fail("%s: a sanitizer report:\n%s" % (case, out))
    if PASSWORD_SECRET in out:
        fail("%s: the password appears in the output:\n%s" % (case, out))
    if max_s is not None and dt > max_s:
        fail("%s: took %.1f s, more than %s s" % (case, dt, max_s))
    if not ok:
        fail("%s: expected SQLSTATE %s with %s, got (exit %d):\n%s" % (case, state, words, rc,
                                                                     out[-3000:]))
    else:
        say("ok   %s (%s, %.1f s): %s" % (case, state, dt, next(
            (l.strip() for l in out.splitlines() if "ERROR" in l), "")))


def case_refuse(a):
    pl = Plan(a)
    forget_run("myref", "my")
    execute("SET SESSION lock_wait_timeout = 20; "
            "DROP TABLE IF EXISTS myref_ledger, myref_nokey, myref_other, myref_isam, myref_two; "
            "CREATE TABLE myref_ledger (id BIGINT PRIMARY KEY, amount DECIMAL(8,2)) "
            "ENGINE=InnoDB; "
            "CREATE TABLE myref_nokey (id BIGINT, amount DECIMAL(8,2)) ENGINE=InnoDB; "
            "CREATE TABLE myref_other (id BIGINT, amount DECIMAL(8,2), UNIQUE KEY (amount)) "
            "ENGINE=InnoDB; "
            "CREATE TABLE myref_isam (id BIGINT, amount DECIMAL(8,2)) ENGINE=MyISAM; "
            "CREATE TABLE myref_two (id BIGINT PRIMARY KEY, amount DECIMAL(8,2), "
            "UNIQUE KEY by_amount (amount)) ENGINE=InnoDB")
    ins = " INSERT INTO t SELECT x, 1 FROM src;"
    led = "id BIGINT, amount DECIMAL(8, 2)"
    pk = ", PRIMARY KEY (id) NOT ENFORCED"

    # A correct declaration runs (3 rows, exactly-once), so the refusals
    # below are the checks' doing.
    rc, out, dt = pl.run(SRC + jdbc("t", led + pk, "myref_ledger", extra=EO) + ins)
    got = query("SELECT COUNT(*) FROM myref_ledger")
    if rc != 0 or got != [("3",)]:
        fail("a correct declaration (exactly-once, upsert) does not run (exit %d, rows %r):\n%s"
             % (rc, got, out[-3000:]))
    else:
        say("ok   a correct declaration runs exactly-once (%.1f s)" % dt)

    expect(pl, "wrong password", SRC + jdbc("t", led, "myref_ledger", pw=PASSWORD_SECRET) + ins,
           "28P01", "sluice")
    closed = free_port()
    expect(pl, "unreachable server (closed port)",
           SRC + jdbc("t", led, "myref_ledger", u=url(port=closed),
                      extra=", 'connection.max-retry-timeout' = '1 s'") + ins,
           "08001", "127.0.0.1", str(closed), max_s=10)
    # MariaDB says 1049 (unknown database) only to a user with a grant on
    # that name; to others 1044 (access denied), whether it exists or not.
    admin_execute("GRANT ALL PRIVILEGES ON myref_nodb.* TO 'sluice'@'%'", "my")
    try:
        expect(pl, "missing database", SRC + jdbc("t", led, "myref_ledger",
                                                  u=url(db="myref_nodb")) + ins,
               "3D000", "myref_nodb")
    finally:  # mariadb.xa checks sluice's grants exactly
        admin_execute("REVOKE ALL PRIVILEGES ON myref_nodb.* FROM 'sluice'@'%'", "my")
    # (the output masks the password, "sluice", wherever it appears: in the
    # database's name too, and the read-only user's name is its password)
    expect(pl, "missing table", SRC + jdbc("t", led, "myref_missing") + ins,
           "42P01", "myref_missing", "127.0.0.1:%d" % port_of("my"))
    expect(pl, "missing column", SRC + jdbc("t", "id BIGINT, amt DECIMAL(8, 2)",
                                            "myref_ledger") + ins,
           "42703", "amt", "myref_ledger")
    expect(pl, "read-only user writes",
           SRC + jdbc("t", led, "myref_ledger", user=mu.RO_USER, pw=mu.RO_PASSWORD) + ins,
           "42501", "INSERT", "myref_ledger")
    expect(pl, "key without a unique index",
           SRC + jdbc("t", led + pk, "myref_nokey") + ins, "42P10", "(id)", "myref_nokey")
    expect(pl, "key on another column than the table's",
           SRC + jdbc("t", led + ", PRIMARY KEY (amount) NOT ENFORCED", "myref_ledger") + ins,
           "42P10", "(amount)", "myref_ledger")
    expect(pl, "key (id) where the unique index is on (amount)",
           SRC + jdbc("t", led + pk, "myref_other") + ins, "42P10", "(id)", "myref_other")
    # ON DUPLICATE KEY acts on any unique index: a second one is refused
    # (a row colliding on it would change another row and be lost).
    expect(pl, "a unique index besides the key's",
           SRC + jdbc("t", led + pk, "myref_two") + ins, "0A000", "by_amount", "myref_two")
    expect(pl, "prefix of 57 bytes", SRC + jdbc(
        "t", led, "myref_nokey", extra=", 'sink.delivery-guarantee' = 'exactly-once', "
        "'sink.transactional-id-prefix' = '%s'" % ("p" * 57)) + ins,
           "22023", "sink.transactional-id-prefix")
    execute("DELETE FROM myref_nokey")
    rc, out, _ = pl.run(SRC + jdbc(
        "t", led, "myref_nokey", extra=", 'sink.delivery-guarantee' = 'exactly-once', "
        "'sink.transactional-id-prefix' = 'myref_%s'" % ("p" * 50)) + ins)
    got = query("SELECT COUNT(*) FROM myref_nokey")
    if rc != 0 or got != [("3",)]:
        fail("a prefix of 56 bytes does not run (exit %d, rows %r):\n%s" % (rc, got, out[-3000:]))
    else:
        say("ok   a prefix of 56 bytes runs")
    if xids("myref_"):
        fail("refuse: xids of ours left: %r" % xids("myref_"))
    # DROP TABLE while a prepared XA transaction of the table's prefix
    # exists: refused naming it (a neighbouring prefix's does not count);
    # allowed after XA ROLLBACK.
    decl = ("CREATE TABLE d (id BIGINT) WITH ('connector' = 'jdbc', 'url' = '%s', "
            "'table-name' = 'myref_nokey', 'password' = 'sluice', 'username' = 'sluice', "
            "'sink.transactional-id-prefix' = 'myref_drop');\n" % url())
    for gtrid in ("sluice:myref_drop:", "sluice:myref_dropx:"):
        execute("XA START '%s','3:1'; INSERT INTO myref_nokey VALUES (9, 1); XA END '%s','3:1'; "
                "XA PREPARE '%s','3:1'" % (gtrid, gtrid, gtrid))
    data = os.path.join(a.work, "drop")
    r = subprocess.run([a.sluice, "-D", data, "-e", decl + "DROP TABLE d;"],
                       capture_output=True, text=True, timeout=60)
    out = r.stdout + r.stderr
    if r.returncode == 0 or "SQLSTATE: 55006" not in out or \
            "sluice:myref_drop:3:1" not in out.replace("******", "sluice") or "myref_dropx" in out:
        fail("DROP TABLE with a prepared XA transaction of its prefix was not refused with "
             "55006 naming it (and only it):\n" + out[-2000:])
    else:
        say("ok   DROP TABLE refused while 'sluice:myref_drop:','3:1' is prepared: %s" % next(
            (l.strip() for l in out.splitlines() if "ERROR" in l), ""))
    execute("XA ROLLBACK 'sluice:myref_drop:','3:1'")
    r = subprocess.run([a.sluice, "-D", data, "-e", "DROP TABLE d;"],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        fail("DROP TABLE after the XA ROLLBACK failed:\n" + (r.stdout + r.stderr)[-2000:])
    execute("XA ROLLBACK 'sluice:myref_dropx:','3:1'")
    expect(pl, "exactly-once into a MyISAM table",
           SRC + jdbc("t", led, "myref_isam", extra=EO) + ins, "0A000", ("InnoDB", "MyISAM"))
    if query("SELECT COUNT(*) FROM myref_isam") != [("0",)]:
        fail("the refused job wrote into myref_isam")


def case_lr(a):
    """The last resource: the role my_check.c gives a server whose XA
    RECOVER is refused (MySQL 8 without XA_RECOVER_ADMIN), forced by
    SLUICE_TEST_MARIADB_NO_XA=1, on `lr` with sync_binlog set to 1 for the
    case (the sync_binlog = 0 it starts with allows at-least-once only:
    case settings)."""
    run, which = "mylr", "lr"
    seen = []

    def at_pause(step):
        seen.extend(xids(run + "_", which))

    os.environ["SLUICE_TEST_MARIADB_NO_XA"] = "1"  # every sluice process of this case
    before = admin_execute("SELECT @@GLOBAL.sync_binlog", which).strip()
    admin_execute("SET GLOBAL sync_binlog = 1", which)
    try:
        setup_tables(run, which)
        explain_role(a, run, which, "last resource")
        inv, done = case_crash(a, which, run, ["decide", "state-sink", None], at_pause=at_pause)
    finally:
        admin_execute("SET GLOBAL sync_binlog = %s" % (before or "0"), which)
    if inv.broken:
        fail("%s: the reader saw a torn epoch (%d times): %s" %
             (run, len(inv.broken), inv.broken[:3]))
    if seen:
        fail("%s: the last resource left XA transactions at its pauses: %r" % (run, seen[:5]))
    check_tables(run, which, a.rows)
    no_xid_left(run, which)
    progress_row(run, which, min_token=done)


def refused(a, data, sql, which, setting, head=""):
    """sql (exactly-once) is refused with 0A000 naming setting, nothing
    written; with the downgrade policy it runs at-least-once with a WARNING
    naming it and writes every row."""
    run = "myset"
    rows = 200
    job = Job(a, data, sql)
    rc = job.wait(60)
    err = job.stderr()
    say("settings: %s: exactly-once: exit %r: %s" % (setting, rc, " / ".join(
        l.strip() for l in err.splitlines() if "ERROR" in l or "DETAIL" in l
        or "HINT" in l or "SQLSTATE" in l)[:1500]))
    if rc is None:
        job.kill()
    if rc == 0 or "SQLSTATE: 0A000" not in err or setting not in err:
        fail("exactly-once with %s was not refused with 0A000 naming the setting (exit %r):\n%s"
             % (head, rc, err[-3000:]))
    got = query("SELECT COUNT(*) FROM %s_ledger" % run, which)
    if got != [("0",)]:
        fail("the refused job wrote %r ledger rows" % got)
    shutil.rmtree(data, ignore_errors=True)
    job = Job(a, data, "SET 'sink.guarantee-fallback' = 'downgrade';\n" + sql)
    rc = job.wait(120)
    err = job.stderr()
    warn = [l.strip() for l in err.splitlines() if "WARNING" in l]
    say("settings: %s: downgrade: exit %r, warnings: %s" % (setting, rc, warn))
    if rc != 0 or not any(setting in w and "at-least-once" in w for w in warn):
        if rc is None:
            job.kill()
        fail("with %s and the downgrade policy the job did not run at-least-once with a "
             "WARNING naming %s (exit %r):\n%s" % (head, setting, rc, err[-3000:]))
    else:
        bad, dups = check_tables(run, which, rows, expect_exact=False)
        if bad:
            fail("downgraded at-least-once run without a crash: %d differences from the "
                 "reference" % bad)
    shutil.rmtree(data, ignore_errors=True)


def case_settings(a):
    """On `lr`: sync_binlog = 0 with the binary log on (as it starts), then
    innodb_flush_log_at_trx_commit = 2: exactly-once refused naming the
    setting, or downgraded with a WARNING."""
    which, run = "lr", "myset"
    data = os.path.join(a.work, run)
    sql = job_sql(run, which, 200, 2000)
    got = query("SELECT @@log_bin, @@sync_binlog, @@innodb_flush_log_at_trx_commit", which)
    say("settings: log_bin, sync_binlog, innodb_flush_log_at_trx_commit: %r" % (got,))
    if got != [("1", "0", "1")]:
        return fail("the mariadb_lr server does not run with log_bin 1, sync_binlog 0: %r"
                    % (got,))
    setup_tables(run, which)
    refused(a, data, sql, which, "sync_binlog", "sync_binlog = 0 and log_bin ON")
    sync = admin_execute("SELECT @@GLOBAL.sync_binlog", which).strip()
    flush = admin_execute("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit", which).strip()
    admin_execute("SET GLOBAL sync_binlog = 1", which)
    admin_execute("SET GLOBAL innodb_flush_log_at_trx_commit = 2", which)
    try:
        setup_tables(run, which)
        refused(a, data, sql, which, "innodb_flush_log_at_trx_commit",
                "innodb_flush_log_at_trx_commit = 2")
    finally:
        admin_execute("SET GLOBAL innodb_flush_log_at_trx_commit = %s" % (flush or "1"), which)
        admin_execute("SET GLOBAL sync_binlog = %s" % (sync or "0"), which)
    if xids(run + "_", which):
        fail("settings: xids of ours left: %r" % xids(run + "_", which))


def case_conflicts(a):
    """'sink.on-duplicate-key' = 'ignore' / 'error' on MariaDB: a ledger holds
    events 1..40 (amount = 100 * e); the job writes events 1..60 where every
    10th event comes with another amount (a conflict) and the others with the
    stored one (an identical replay: absorbed). ignore: the ledger keeps the
    stored amounts and gains 41..60; exactly the conflicting keys are in the
    conflict table with their stored and conflicting rows (read as JSON
    here); error: the job fails with 23505 naming a conflicting key and the
    ledger is unchanged. Once at-least-once, once exactly-once (the
    records must come in the epoch's XA transaction)."""
    pl = Plan(a)
    forget_run("mycf", "my")
    for g in ("at-least-once", "exactly-once"):
        execute("SET SESSION lock_wait_timeout = 20; "
                "DROP TABLE IF EXISTS mycf_ledger, mycf_conflicts; "
                "CREATE TABLE mycf_ledger (event_id BIGINT PRIMARY KEY, amount DECIMAL(12,2)) "
                "ENGINE=InnoDB; "
                "INSERT INTO mycf_ledger SELECT seq, seq * 100 FROM seq_1_to_40")
        src = ("SET 'execution.checkpointing.interval' = '300 ms'; "
               "CREATE TABLE src (e BIGINT) WITH ('connector' = 'datagen', "
               "'number-of-rows' = '60', 'rows-per-second' = '200', "
               "'fields.e.kind' = 'sequence', 'fields.e.start' = '1', 'fields.e.end' = '60');")
        ins = (" INSERT INTO t SELECT e, CAST(CASE WHEN MOD(e, 10) = 0 AND e <= 40 THEN "
               "e * 100 + 1 ELSE e * 100 END AS DECIMAL(12, 2)) FROM src;")
        cols = "event_id BIGINT, amount DECIMAL(12, 2), PRIMARY KEY (event_id) NOT ENFORCED"
        eo = (", 'sink.delivery-guarantee' = 'exactly-once', "
              "'sink.transactional-id-prefix' = 'mycf_eo'") if g == "exactly-once" else \
            ", 'sink.delivery-guarantee' = 'at-least-once'"
        rc, out, _ = pl.run(src + jdbc("t", cols, "mycf_ledger", extra=eo + (
            ", 'sink.on-duplicate-key' = 'ignore', 'sink.conflict-table' = 'mycf_conflicts'"))
            + ins)
        if rc != 0:
            fail("conflicts (%s): ignore did not run (exit %d):\n%s" % (g, rc, out[-3000:]))
            continue
        got = dict((int(e), decimal.Decimal(v))
                   for e, v in query("SELECT event_id, amount FROM mycf_ledger"))
        want = dict((e, decimal.Decimal(e * 100)) for e in range(1, 61))
        if got != want:
            bad = sorted(e for e in set(got) | set(want) if got.get(e) != want.get(e))
            fail("conflicts (%s): the ledger differs at %r" % (g, bad[:10]))
        recs = query("SELECT conflict_key, stored_row, conflicting_row, sink_table, job, "
                     "epoch IS NULL FROM mycf_conflicts")
        keys = set()
        for key, stored, conflicting, table, job, no_epoch in recs:
            k = json.loads(key)["event_id"]
            keys.add(k)
            st, cf = json.loads(stored), json.loads(conflicting)
            if decimal.Decimal(str(st["amount"])) != k * 100 or \
                    decimal.Decimal(str(cf["amount"])) != k * 100 + 1 or table != "mycf_ledger":
                fail("conflicts (%s): record %r does not match event %d" % (
                    g, (key, stored, conflicting, table), k))
            if (no_epoch == "1") != (g != "exactly-once"):
                fail("conflicts (%s): record of %d has epoch NULL = %s" % (g, k, no_epoch))
        if keys != {10, 20, 30, 40} or len(recs) != 4:
            fail("conflicts (%s): recorded keys %r (%d records), expected 10, 20, 30, 40" % (
                g, sorted(keys), len(recs)))
        logged = set(int(k) for k in re.findall(r"conflict: Key \(event_id\)=\((\d+)\)", out))
        if logged != {10, 20, 30, 40}:
            fail("conflicts (%s): logged keys %r" % (g, sorted(logged)))
        say("ok   conflicts %s: ignore kept %d stored rows, recorded and logged 4 conflicts" % (
            g, 40))
        # error: fails with 23505 naming a conflicting key; nothing of it stays
        execute("DELETE FROM mycf_ledger WHERE event_id > 40")
        # (another prefix: the one above has its checkpoints in another data
        # directory, which a new one with the same job name must not pass for)
        rc, out, _ = pl.run(src + jdbc("t", cols, "mycf_ledger", extra=eo.replace(
            "mycf_eo", "mycf_eo_err") + ", 'sink.on-duplicate-key' = 'error'") + ins)
        m = re.search(r"ERROR:\s+writing \"t\": duplicate key value with different values: "
                      r"Key \(event_id\)=\((\d+)\)", out)
        if rc == 0 or "23505" not in out or not m or int(m.group(1)) % 10 != 0:
            fail("conflicts (%s): 'error' did not fail with 23505 naming a conflicting key "
                 "(exit %d):\n%s" % (g, rc, out[-3000:]))
        elif g == "exactly-once" and query("SELECT COUNT(*) FROM mycf_ledger") != [("40",)]:
            fail("conflicts (exactly-once): 'error' left rows of its failed epochs: %r" %
                 query("SELECT COUNT(*) FROM mycf_ledger"))
        else:
            say("ok   conflicts %s: error failed with 23505 at key %s" % (g, m.group(1)))
    if xids("mycf_"):
        fail("conflicts: xids of ours left: %r" % xids("mycf_"))


CASES = {"prep": case_prep, "control": case_control, "restart": case_restart,
         "zombie": case_zombie, "zombie_xa": case_zombie_xa, "refuse": case_refuse, "lr": case_lr,
         "settings": case_settings, "conflicts": case_conflicts}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    ap.add_argument("--kills", type=int, default=25)
    ap.add_argument("--rows", type=int, default=12000)
    ap.add_argument("--rate", type=int, default=400)
    ap.add_argument("--pause-ms", type=int, default=900)
    a = ap.parse_args()
    a.sluice = os.path.abspath(a.sluice)
    a.work = tempfile.mkdtemp(prefix="sluice-myeo-")
    started = time.monotonic()
    try:
        CASES[a.case](a)
    except mu.MariaDBError as e:
        fail("%s: the reader failed: %s" % (a.case, e))
    say("%s took %.1f s" % (a.case, time.monotonic() - started))
    if FAILED:
        say("kept %s" % a.work)
        print("0 passed, 1 failed")
        return 1
    shutil.rmtree(a.work, ignore_errors=True)
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
