"""sluice_e2e.py — small helpers shared by the end-to-end tests (standard
library only; imported by the test scripts beside it).

- ENV: the environment for sluice runs (ASan: no leak check — SIGKILLed and
  SIGTERMed processes are the point — and abort on the first error).
- fnv1a64 / subtask_of: which reader task of a monitored-directory source a
  file name goes to. connectors/filesystem/fs_source.c: with parallelism p,
  subtask k reads the files whose name's 64-bit FNV-1a hash is k modulo p.
  The tests use it only to make sure every reader task gets files (a reader
  without files holds the downstream watermark back forever).
- committed_rows: the rows of the committed part files of a filesystem sink
  directory (visible files only: in-progress files start with '.');
  check_parallelism: the part files were written by every sink subtask.
- kill_in_checkpoint: SIGKILL a job while one of its checkpoints is being
  written (a chk-N directory without _metadata exists).
- closing_files / kill_loop: for jobs over a monitored directory, the next
  file names that reach each reader task, and runs of `sluice -f` killed
  (SIGKILL) after a random life while the input files are written.
- crash_setup: the options every crash test takes (--sluice, --kills,
  --parallelism, --seed and, where it has them, --rows / --seconds /
  --files), its seeded random generator and its work directory.
- stamp / write_atomic: an event time (ms since the epoch) as a TIMESTAMP(3)
  literal in UTC; an input file written under a hidden name and renamed, so
  that a monitored-directory source never sees half of it.
- Runner: starts `sluice -f job.sql` with a data directory, and tells after a
  SIGKILL whether the kill interrupted a checkpoint (it left an unsealed
  chk-N directory) or an epoch (it left in-progress part files).
"""
import argparse
import collections
import json
import os
import random
import signal
import subprocess
import tempfile
import time

ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1")



def crash_setup(prefix, kills=20, rows=None, seconds=None, files=None, more=None):
    """Parse a crash test's options: (args, rnd, work). args.seed is the
    seed used (given or drawn), rnd a random.Random seeded with it, work a
    fresh directory named prefix...; more(parser) adds a test's own options."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--kills", type=int, default=kills)
    if rows is not None:
        ap.add_argument("--rows", type=int, default=rows)
    if seconds is not None:
        ap.add_argument("--seconds", type=float, default=seconds,
                        help="input duration at full speed")
    if files is not None:
        ap.add_argument("--files", type=int, default=files)
    ap.add_argument("--parallelism", type=int, default=1)
    ap.add_argument("--seed", type=int, default=None)
    if more:
        more(ap)
    a = ap.parse_args()
    if a.seed is None:
        a.seed = random.randrange(1 << 30)
    return a, random.Random(a.seed), tempfile.mkdtemp(prefix=prefix)


def stamp(t_ms):
    """t_ms (ms since the epoch) as 'YYYY-MM-DD HH:MM:SS.mmm' in UTC."""
    s, ms = divmod(t_ms, 1000)
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(s)) + ".%03d" % ms


def write_atomic(directory, name, lines):
    """Write lines (strings with their line ends) as directory/name: first
    under a hidden name, then renamed."""
    tmp = os.path.join(directory, "." + name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.writelines(lines)
    os.rename(tmp, os.path.join(directory, name))


FNV_OFFSET = 14695981039346656037
FNV_PRIME = 1099511628211


def fnv1a64(data):
    h = FNV_OFFSET
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def subtask_of(name, parallelism):
    """The reader task of a file name (fs_source.c: FNV-1a of the name, modulo p)."""
    if parallelism <= 1:
        return 0
    return fnv1a64(name.encode("utf-8")) % parallelism


def visible(name):
    return not (name.startswith(".") or name.startswith("_"))


def committed_files(out_dir):
    if not os.path.isdir(out_dir):
        return []
    return [os.path.join(out_dir, n) for n in sorted(os.listdir(out_dir)) if visible(n)]


def sink_subtasks(out_dir):
    """Subtask indexes in the committed part file names
    (part-<id>-<subtask>-<epoch>-<seq>.<ext>, connectors/filesystem/fs_sink.c):
    proof that the job ran with that many sink instances."""
    found = set()
    for path in committed_files(out_dir):
        parts = os.path.basename(path).split("-")
        if len(parts) >= 5 and parts[0] == "part" and parts[2].isdigit():
            found.add(int(parts[2]))
    return found


def check_parallelism(out_dir, parallelism):
    """None, or why the committed files do not show `parallelism` writers."""
    found = sink_subtasks(out_dir)
    if found != set(range(parallelism)):
        return ("the committed files come from sink subtasks %r, not from each of 0..%d: did the "
                "job run at parallelism %d?" % (sorted(found), parallelism - 1, parallelism))
    return None


def committed_rows(out_dir, parse_float=None):
    """Every JSON row of the committed (visible) part files, as dicts."""
    rows = []
    for path in committed_files(out_dir):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    rows.append(json.loads(line, parse_float=parse_float))
    return rows


def sealed_checkpoints(job_dir):
    """Ids of a job's sealed checkpoints (chk-N with _metadata), ascending."""
    if not os.path.isdir(job_dir):
        return []
    return sorted(int(n[4:]) for n in os.listdir(job_dir)
                  if n.startswith("chk-") and os.path.exists(os.path.join(job_dir, n, "_metadata")))


def unsealed_checkpoints(job_dir):
    """chk-N directories of a job without _metadata (being written, or left by a crash)."""
    if not os.path.isdir(job_dir):
        return []
    return [n for n in os.listdir(job_dir)
            if n.startswith("chk-") and not os.path.exists(os.path.join(job_dir, n, "_metadata"))]


def in_progress_files(out_dir):
    """In-progress part files under out_dir, partition directories included."""
    if not os.path.isdir(out_dir):
        return []
    return [n for _, _, names in os.walk(out_dir) for n in names if ".inprogress." in n]


def kill_in_checkpoint(p, job_dir, timeout):
    """Poll the job's directory and SIGKILL p as soon as a checkpoint is being
    written; after `timeout` seconds kill it anyway. True when the kill came
    while an unsealed chk-N directory existed."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and p.poll() is None:
        if unsealed_checkpoints(job_dir):
            p.send_signal(signal.SIGKILL)
            return True
        time.sleep(0.001)
    if p.poll() is None:
        p.send_signal(signal.SIGKILL)
    return False


class Runner:
    """Runs `sluice --data-dir DATA -q -f JOB` and counts what kills hit."""

    def __init__(self, sluice, data, job, job_name, out_dir):
        self.sluice, self.data, self.job = sluice, data, job
        self.job_dir = os.path.join(data, "jobs", job_name)
        self.out_dir = out_dir
        self.runs = self.kills = 0
        self.kills_in_checkpoint = 0   # left an unsealed chk-N behind
        self.kills_in_epoch = 0        # left in-progress part files behind

    def start(self, stdout=subprocess.DEVNULL):
        self.runs += 1
        return subprocess.Popen([self.sluice, "--data-dir", self.data, "-q", "-f", self.job],
                                stdout=stdout, stderr=subprocess.PIPE, env=ENV)

    def killed(self, p):
        """After p was sent SIGKILL: reap it, record what the kill interrupted,
        and return its (stdout, stderr)."""
        out, err = p.communicate()
        self.kills += 1
        if unsealed_checkpoints(self.job_dir):
            self.kills_in_checkpoint += 1
        if in_progress_files(self.out_dir):
            self.kills_in_epoch += 1
        return out, err

    def summary(self):
        return ("%d runs, %d SIGKILLs (%d inside a checkpoint, %d with an epoch's files in "
                "progress)" % (self.runs, self.kills, self.kills_in_checkpoint,
                               self.kills_in_epoch))


def closing_files(first, parallelism, file_name):
    """The file numbers from `first` on whose names (file_name(k)) reach each
    of the `parallelism` reader tasks first, ascending: a click far ahead in
    each closes every window (or candidate) of the others' readers."""
    closers, k = {}, first
    while len(closers) < parallelism:
        closers.setdefault(subtask_of(file_name(k), parallelism), k)
        k += 1
    return sorted(closers.values())



def stop_when(p, ready, timeout=120):
    """The last run of a crash test: wait (at most timeout s) until ready()
    holds, then stop the job with SIGTERM (it takes a savepoint). None when
    it stopped cleanly, else what went wrong."""
    stop_at = time.monotonic() + timeout
    while time.monotonic() < stop_at and not ready():
        time.sleep(0.1)
    p.send_signal(signal.SIGTERM)
    try:
        _, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        return "SIGTERM did not stop the job"
    if p.returncode != 0:
        return "the last run failed (%d):\n%s" % (p.returncode, err.decode("utf-8", "replace"))
    return None

def kill_loop(cmd, env, files, write_file, kills, rnd, deadline_s=600):
    """Run cmd again and again, each run for a random 0.2-0.8 s while the
    input files are written (write_file(i, files[i]), one every 30 ms) and
    then SIGKILLed, until `kills` kills were made and every file written.
    Returns (p, runs, kills, error): p the run still alive (None when the
    last one was killed); error the stderr of a run that ended by itself."""
    written = done = runs = 0
    deadline = time.monotonic() + deadline_s
    p = None
    while time.monotonic() < deadline and (done < kills or written < len(files)):
        runs += 1
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        life = time.monotonic() + rnd.uniform(0.2, 0.8)
        while time.monotonic() < life and p.poll() is None:
            if written < len(files):
                write_file(written, files[written])
                written += 1
            time.sleep(0.03)
        if p.poll() is not None:
            return p, runs, done, "run %d ended by itself (status %d):\n%s" % (
                runs, p.returncode, p.stderr.read().decode("utf-8", "replace"))
        if done < kills:
            p.send_signal(signal.SIGKILL)
            p.wait()
            p.stderr.close()
            done += 1
            p = None
    return p, runs, done, None


def crash_until_done(run, out_dir, kills, rnd, name, end_kills_wanted=3, deadline_s=600):
    """Start run's job again and again until it finishes by itself: the
    first `kills` runs are SIGKILLed (every third inside a checkpoint, the
    others 0.15-0.6 s in), then up to end_kills_wanted runs are killed the
    moment output files are in progress (the end's commit). Returns
    (error, end_kills): error is None when the job finished with status 0
    after at least min(kills, 20) kills, else a message saying why not."""
    deadline = time.monotonic() + deadline_s
    end_kills = 0
    while time.monotonic() < deadline:
        p = run.start()
        if run.kills < kills:
            if run.kills % 3 == 2:
                kill_in_checkpoint(p, run.job_dir, rnd.uniform(0.3, 0.8))
            else:
                try:
                    p.wait(timeout=rnd.uniform(0.15, 0.6))
                except subprocess.TimeoutExpired:
                    p.send_signal(signal.SIGKILL)
        elif end_kills < end_kills_wanted:
            until = time.monotonic() + 120
            while time.monotonic() < until and p.poll() is None:
                if in_progress_files(out_dir):
                    p.send_signal(signal.SIGKILL)
                    end_kills += 1
                    break
                time.sleep(0.0005)
        try:
            p.wait(timeout=300)
        except subprocess.TimeoutExpired:
            p.kill()
            return "%s: run %d did not finish in 300 s" % (name, run.runs), end_kills
        if p.returncode == -signal.SIGKILL:
            run.killed(p)
            continue
        _, err = p.communicate()
        if p.returncode != 0:
            return ("%s: run %d failed with status %d:\n%s" %
                    (name, run.runs, p.returncode, err.decode("utf-8", "replace"))), end_kills
        if run.kills < min(kills, 20):
            return ("%s: only %d kills happened before the job finished; make --seconds larger"
                    % (name, run.kills)), end_kills
        return None, end_kills
    return "%s: the job did not finish in time" % name, end_kills


def printed_rows(outputs):
    """Rows +I[a, b, c] that print sinks wrote, counted, from the stdout of
    each run. With parallelism > 1 a line may start with the printing task's
    prefix ("1> +I[...]", as Flink prints). A SIGKILLed run's output can end
    mid-line, so each run's output is split on its own: the torn tail never
    joins the next run's first line."""
    got = collections.Counter()
    for text in outputs:
        for line in text.splitlines():
            line = line.strip()
            if "> " in line and not line.startswith("+I["):
                line = line.split("> ", 1)[1]
            if line.startswith("+I[") and line.endswith("]"):
                a, b, c = [v.strip() for v in line[3:-1].split(",")]
                got[(int(a), int(b), c)] += 1
    return got
