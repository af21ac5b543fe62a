#!/usr/bin/env python3
"""branch_test.py — a property test of savepoints as branch points: whatever
sequence of runs, SIGKILLs, STOP JOB ... WITH SAVEPOINT, resumes from
savepoints, re-runs and forks a user goes through, an exactly-once sink never
holds a row twice and never loses a committed row.

The shell runs on a pseudo-terminal (its REPL: INSERT starts a background
job, so STOP JOB can stop it at any moment) over one data directory. Every
job reads a deterministic datagen sequence 1..N (rate-limited, so a run can
be stopped or killed midway) into one of three exactly-once filesystem sinks
a, b, c, with 100 ms checkpoints. A seeded random sequence of steps, each a
new shell process:

  run      a job by name (new, or again: it resumes from its newest checkpoint)
  resume   a job from one of ITS savepoints taken so far (maybe an old one)
  rerun    the previous step's script again, savepoint setting and all
  fork     a job under another name from ANY savepoint taken so far, with
           'execution.savepoint-restore-mode' claim or no_claim, into the
           sink of the savepoint's job or another one

and each run ends by SIGKILL, by STOP JOB ... WITH SAVEPOINT (its path is
kept for later steps) or by running to its end, at a random moment. Sluice
refuses some starts (55000 / 55006): that is fine — the property is about
the sinks. After every step this script, not Sluice, reads each sink's
committed part files: no id may be there twice, and every row committed
before must still be there. A refusal must carry SQLSTATE 55000 or 55006;
no job may fail, nothing may crash (sanitizer reports included).

--control: two jobs of different names into one sink, run to their end, are
each exactly-once but not together: the check must find the duplicates (the
control passes when the check FAILS), proof that it can fail.

Usage: branch_test.py --sluice PATH [--sequences 2] [--steps 12] [--seed S]
                      [--parallelism N] [--control]
"""
import argparse
import collections
import errno
import json
import os
import pty
import random
import re
import select
import shutil
import signal
import sys
import tempfile
import time

ROWS = 6000
RATE = 2000
PROMPT = b"sluice> "
RE_ROWS = re.compile(rb"\d+ rows? in set")
RE_SAVEPOINT = re.compile(rb"\| (/\S+/chk-\d+) +\|")
TIMEOUT = 60.0
SINKS = ("a", "b", "c")

TABLES = """CREATE TABLE IF NOT EXISTS gen (id BIGINT) WITH ('connector' = 'datagen',
 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}', 'fields.id.kind' = 'sequence',
 'fields.id.start' = '1', 'fields.id.end' = '{rows}');
""" + "".join(
    "CREATE TABLE IF NOT EXISTS out_%s (id BIGINT) WITH ('connector' = 'filesystem', "
    "'path' = '{work}/out_%s', 'format' = 'json');\n" % (s, s) for s in SINKS) + """\
SET 'execution.checkpointing.interval' = '100 ms';
SET 'parallelism.default' = '{parallelism}';
"""


class Failure(Exception):
    pass


class Shell:
    """sluice's REPL on a pseudo-terminal."""

    def __init__(self, sluice, data, cwd):
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
        env.update(HOME=cwd, SLUICE_HISTFILE=os.path.join(cwd, "history"), LANG="C.UTF-8",
                   LC_ALL="C.UTF-8", TERM="dumb", EDITRC=os.path.join(cwd, "no-editrc"),
                   ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
                   UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
        pid, fd = pty.fork()
        if pid == 0:
            try:
                os.chdir(cwd)
                os.execve(sluice, [sluice, "--data-dir", data], env)
            finally:
                os._exit(127)
        self.pid, self.fd, self.buf, self.pos, self.status = pid, fd, b"", 0, None
        self.expect(PROMPT)

    def _read(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            return True
        r, _, _ = select.select([self.fd], [], [], left)
        if not r:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError as e:
            if e.errno == errno.EIO:
                return False
            raise
        if not data:
            return False
        self.buf += data
        return True

    def expect(self, pattern, timeout=TIMEOUT):
        deadline = time.monotonic() + timeout
        while True:
            if isinstance(pattern, bytes):
                i = self.buf.find(pattern, self.pos)
                m = (i, i + len(pattern)) if i >= 0 else None
            else:
                mm = pattern.search(self.buf, self.pos)
                m = (mm.start(), mm.end()) if mm else None
            if m:
                text = self.buf[self.pos:m[1]]
                self.pos = m[1]
                return text
            if time.monotonic() >= deadline or not self._read(deadline):
                raise Failure("timed out waiting for %r; output:\n%s" % (
                    pattern, self.buf[self.pos:].decode("utf-8", "replace")))

    def sql(self, text, until=None):
        """Send statements one line each; the output up to the prompt after
        the last one's `until` (a background job's notices reprint the
        prompt, so a statement that runs while one runs says what ends it)."""
        out = b""
        for stmt in [s.strip() for s in text.split(";\n") if s.strip()]:
            stmt = " ".join(stmt.split())
            os.write(self.fd, (stmt.rstrip(";") + ";\n").encode())
            if until is not None:
                out += self.expect(re.compile(until.pattern + rb"|SQLSTATE: \w{5}"))
            out += self.expect(PROMPT)
        return out.decode("utf-8", "replace")

    def kill(self):
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.status = -9
            self._drain()

    def _drain(self):
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline and self._read(deadline):
            pass
        try:
            os.close(self.fd)
        except OSError:
            pass

    def quit(self):
        """QUIT: stops running jobs with a savepoint, then exits."""
        os.write(self.fd, b"QUIT;\n")
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(st)
                self._drain()
                return self.status
            self._read(time.monotonic() + 0.05)
        self.kill()
        raise Failure("sluice did not exit after Ctrl-D")

    def text(self):
        return self.buf.decode("utf-8", "replace")


def committed(out_dir):
    """The independent reader: ids of the committed (visible) part files."""
    got = collections.Counter()
    if os.path.isdir(out_dir):
        for name in sorted(os.listdir(out_dir)):
            if name.startswith(".") or name.startswith("_"):
                continue
            with open(os.path.join(out_dir, name), encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        got[json.loads(line)["id"]] += 1
    return got


def show_jobs(sh, name):
    out = sh.sql("SHOW JOBS;", until=RE_ROWS)
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 11 and cells[0] == name:
            return cells
    return None


class World:
    """The data directory, the sinks, the steps so far and what they left."""

    def __init__(self, a, work):
        self.a, self.work = a, work
        self.data = os.path.join(work, "data")
        self.tables = TABLES.format(rows=ROWS, rate=RATE, work=work, parallelism=a.parallelism)
        self.sink_of = {}        # job name -> its sink
        self.savepoints = []     # (path, job name)
        self.seen = {s: collections.Counter() for s in SINKS}
        self.log = []
        self.refused = collections.Counter()
        self.accepted = collections.Counter()
        self.last = None
        self.started = set()     # names whose INSERT started once

    def out_dir(self, sink):
        return os.path.join(self.work, "out_" + sink)

    def step(self, kind, name, savepoint=None, mode=None, end="kill", delay=0.5, script=None):
        """One shell process: setup, the INSERT, then end it as asked."""
        if script is None:
            script = self.tables + "SET 'pipeline.name' = '%s';\n" % name
            if savepoint:
                script += "SET 'execution.savepoint.path' = '%s';\n" % savepoint
            if mode:
                script += "SET 'execution.savepoint-restore-mode' = '%s';\n" % mode
            script += "INSERT INTO out_%s SELECT id FROM gen;\n" % self.sink_of[name]
        self.last = (kind, name, script)
        sh = Shell(self.a.sluice, self.data, self.work)
        what = "%s %s%s%s -> %s" % (kind, name, " from %s" % savepoint if savepoint else "",
                                     " (%s)" % mode if mode else "", self.sink_of[name])
        try:
            setup, insert = script.rsplit("INSERT", 1)
            sh.sql(setup)
            out = sh.sql("INSERT" + insert,
                         until=re.compile(rb'job "%s" submitted' % re.escape(name.encode())))
            if "ERROR" in out:
                m = re.search(r"SQLSTATE: (\w{5})", out) or re.search(r"\((\w{5})\)", out)
                state = m.group(1) if m else "?"
                if state not in ("55000", "55006"):
                    raise Failure("%s: refused with %s, not 55000/55006:\n%s" % (what, state, out))
                self.refused[kind] += 1
                self.log.append("%s: refused (%s)" % (what, state))
                sh.quit()
                return
            if "submitted" not in out:
                raise Failure("%s: the INSERT neither started nor failed:\n%s" % (what, out))
            self.accepted[kind] += 1
            self.started.add(name)
            time.sleep(delay)
            if end == "kill":
                sh.kill()
                self.log.append("%s: SIGKILL after %.2f s" % (what, delay))
            elif end == "stop":
                out = sh.sql("STOP JOB '%s' WITH SAVEPOINT;" % name, until=RE_ROWS)
                m = RE_SAVEPOINT.search(out.encode())
                if m:
                    self.savepoints.append((m.group(1).decode(), name))
                    self.log.append("%s: STOP JOB WITH SAVEPOINT -> %s" % (what, m.group(1).decode()))
                elif "is not running" in out:  # it finished first
                    self.log.append("%s: finished before STOP JOB" % what)
                else:
                    raise Failure("%s: STOP JOB WITH SAVEPOINT gave no path:\n%s" % (what, out))
                sh.quit()
            else:
                deadline = time.monotonic() + TIMEOUT
                while time.monotonic() < deadline:
                    cells = show_jobs(sh, name)
                    if cells and cells[1] != "RUNNING":
                        break
                    time.sleep(0.1)
                self.log.append("%s: ran to its end" % what)
                sh.quit()
        finally:
            if sh.status is None:
                sh.kill()
            text = sh.text()
            if "Sanitizer" in text or "runtime error" in text:
                raise Failure("%s: sanitizer report:\n%s" % (what, text))
            if re.search(r'job "[^"]*" failed', text):
                raise Failure("%s: a job failed:\n%s" % (what, text))
            if sh.status not in (0, -9):
                raise Failure("%s: exit status %s:\n%s" % (what, sh.status, text))

    def check(self):
        """No id twice in a sink; nothing committed before is gone."""
        problems = []
        for s in SINKS:
            now = committed(self.out_dir(s))
            twice = sorted(i for i, n in now.items() if n > 1)
            if twice:
                problems.append("sink %s holds %d ids more than once (e.g. %s)" %
                                (s, len(twice), twice[:5]))
            gone = sorted(i for i in self.seen[s] if i not in now)
            if gone:
                problems.append("sink %s lost %d committed ids (e.g. %s)" % (s, len(gone), gone[:5]))
            self.seen[s] = now
        return problems


def sequence(a, seed, work):
    """One random sequence; the problems found (empty: the property held)."""
    rnd = random.Random(seed)
    w = World(a, work)
    names = []

    def new_name():
        name = "j%d" % len(names)
        names.append(name)
        return name

    first = new_name()
    w.sink_of[first] = "a"
    w.started.add(first)
    for i in range(a.steps):
        end = rnd.choice(["kill", "kill", "stop", "stop", "finish"]) if i else "stop"
        delay = rnd.uniform(0.3, 1.2)
        kind = rnd.choice(["run", "resume", "resume", "rerun", "fork", "fork"]) if i else "run"
        if kind == "resume" and not w.savepoints or kind == "rerun" and not w.last:
            kind = "run"
        if kind == "run":
            # A name that never started would be a new job into a sink
            # others write: allowed with a WARNING, outside the property.
            name = rnd.choice(sorted(w.started))
            w.step("run", name, end=end, delay=delay)
        elif kind == "resume":
            path, name = rnd.choice(w.savepoints)
            w.step("resume", name, savepoint=path, end=end, delay=delay)
        elif kind == "rerun":
            _, name, script = w.last
            w.step("rerun", name, end=end, delay=delay, script=script)
        else:
            if not w.savepoints:
                continue
            path, origin = rnd.choice(w.savepoints)
            mode = rnd.choice(["claim", "no_claim"])
            forks = [n for n in names if n != origin]
            name = rnd.choice(forks) if forks and rnd.random() < 0.3 else new_name()
            if name not in w.sink_of:
                w.sink_of[name] = (w.sink_of[origin] if rnd.random() < 0.5
                                   else rnd.choice([s for s in SINKS if s != w.sink_of[origin]]))
            w.step("fork", name, savepoint=path, mode=mode, end=end, delay=delay)
        problems = w.check()
        if problems:
            return w, problems
    return w, []


def control(a, work):
    w = World(a, work)
    for name in ("x", "y"):
        w.sink_of[name] = "a"
        w.step("run", name, end="finish")
    return w, w.check()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--sequences", type=int, default=2)
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--parallelism", type=int, default=1)
    ap.add_argument("--control", action="store_true")
    a = ap.parse_args()
    a.sluice = os.path.abspath(a.sluice)
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    root = tempfile.mkdtemp(prefix="sluice-branch-")
    print("branch_test: seed %d, work dir %s" % (seed, root))
    started = time.monotonic()
    if a.control:
        try:
            w, problems = control(a, root)
        except Failure as e:
            print("branch_test: control: %s" % e)
            return 1
        for line in w.log:
            print("  " + line)
        if not problems:
            print("branch_test: CONTROL FAILED: two jobs into one sink left no duplicate the "
                  "check could see (kept %s)" % root)
            return 1
        print("branch_test: control: the check found %s (as it must)" % "; ".join(problems))
        shutil.rmtree(root, ignore_errors=True)
        return 0
    totals_refused, totals_accepted = collections.Counter(), collections.Counter()
    for k in range(a.sequences):
        work = os.path.join(root, "seq-%d" % k)
        os.makedirs(work)
        try:
            w, problems = sequence(a, seed + k, work)
        except Failure as e:
            print("branch_test: sequence %d (seed %d): %s\nbranch_test: kept %s" %
                  (k, seed + k, e, root))
            return 1
        for line in w.log:
            print("  [%d] %s" % (k, line))
        if problems:
            for p in problems:
                print("  " + p)
            print("branch_test: sequence %d (seed %d) broke exactly-once; kept %s" %
                  (k, seed + k, root))
            return 1
        totals_refused.update(w.refused)
        totals_accepted.update(w.accepted)
    print("branch_test: %d sequences in %.0f s; started: %s; refused: %s" % (
        a.sequences, time.monotonic() - started, dict(totals_accepted), dict(totals_refused)))
    shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
