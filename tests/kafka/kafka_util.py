"""kafka_util.py — helpers shared by the Kafka tests (standard library only;
imported by the test scripts beside it). The independent reader of every
test is kcat, never Sluice.

- BROKER: the test broker (scripts/kafka at 127.0.0.1:$KAFKA_PORT).
- kcat / create_topic / produce / consume: the broker through kcat and the
  kafka_topic tool (kcat cannot create topics); consume reads a whole topic
  with the given isolation level.
- Job: a `sluice -f job.sql` process whose standard error is read by a
  thread, so a test can wait for a line ("sluice-test: paused after
  decide") and kill the job right there.
- compare: a Counter of output rows against the reference; prints what it
  found and returns (missing, extra, duplicates).
"""
import collections
import os
import signal
import subprocess
import sys
import threading
import time

BROKER = "127.0.0.1:%s" % os.environ.get("KAFKA_PORT", "9092")
ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1")


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def kcat(*args, stdin=None, broker=None, timeout=60, tolerant=False):
    """kcat's output; a failure fails the test, or (tolerant) returns None."""
    r = subprocess.run(["kcat", "-b", broker or BROKER] + list(args), input=stdin,
                       capture_output=True, timeout=timeout)
    if r.returncode != 0:
        if tolerant:
            return None
        fail("kcat %s: %s" % (" ".join(args), r.stderr.decode(errors="replace")))
    return r.stdout


def create_topic(tool, topic, partitions, broker=None):
    r = subprocess.run([tool, broker or BROKER, topic, str(partitions)], capture_output=True,
                       timeout=90)
    if r.returncode != 0:
        fail("could not create topic %s: %s" % (topic, r.stderr.decode(errors="replace")))
    # The broker answers before every partition has a leader in the metadata
    # a client sees: wait for them, so that a reader right after does not
    # fail with "Unknown topic or partition" on a busy machine.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        m = subprocess.run(["kcat", "-b", broker or BROKER, "-L", "-t", topic], capture_output=True,
                           timeout=30)
        text = m.stdout.decode(errors="replace")
        if (m.returncode == 0 and "Unknown" not in text and "error" not in text.lower()
                and "leader -1" not in text and text.count("leader ") >= partitions):
            return
        time.sleep(0.2)
    fail("topic %s has no leader for each of its %d partitions after 30 s" % (topic, partitions))


def produce(topic, records, partition=None, broker=None):
    """records: [(key, value)]; keyed, so the partitioner spreads them
    (unless a partition is given)."""
    args = ["-P", "-t", topic, "-K", "\t", "-X", "acks=all"]
    if partition is not None:
        args += ["-p", str(partition)]
    data = "".join("%s\t%s\n" % kv for kv in records).encode()
    kcat(*args, stdin=data, broker=broker)


def consume(topic, isolation="read_committed", broker=None, fmt="%s\\n", tolerant=False):
    """Every record of topic, as values (one line each); tolerant: [] when
    the broker cannot be read right now."""
    out = kcat("-C", "-t", topic, "-o", "beginning", "-e", "-q", "-X",
               "isolation.level=" + isolation, "-f", fmt, broker=broker, timeout=120,
               tolerant=tolerant)
    return [line for line in (out or b"").decode(errors="replace").split("\n") if line]


def wait_usable(broker, tool, timeout=90):
    """Until a record can be written and read back: a broker that just started
    may still drop connections while it loads."""
    topic = "sl-usable-%d-%d" % (os.getpid(), int(time.monotonic() * 1000))
    subprocess.run([tool, broker, topic, "1"], capture_output=True, timeout=90)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if kcat("-P", "-t", topic, "-X", "acks=all", stdin=b"x\n", broker=broker,
                tolerant=True) is not None and consume(topic, broker=broker, tolerant=True):
            return
        time.sleep(1.0)
    fail("the broker at %s did not become usable within %d s" % (broker, timeout))


def partition_counts(topic, broker=None):
    out = kcat("-C", "-t", topic, "-o", "beginning", "-e", "-q", "-f", "%p\\n", broker=broker)
    return collections.Counter(int(x) for x in out.decode().split())


class Job:
    """sluice -f <sql file> --data-dir <data>, stderr collected by a thread."""

    def __init__(self, sluice, data, sql_path, env=None, cwd=None):
        self.lines = []
        self.cv = threading.Condition()
        self.p = subprocess.Popen([os.path.abspath(sluice), "--data-dir", os.path.abspath(data),
                                   "-q", "-f", os.path.abspath(sql_path)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  env=dict(ENV, **(env or {})), cwd=cwd)
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        for raw in self.p.stderr:
            with self.cv:
                self.lines.append(raw.decode(errors="replace").rstrip("\n"))
                self.cv.notify_all()
        with self.cv:
            self.cv.notify_all()

    def wait_line(self, text, timeout, start=0):
        """Index of the first line from `start` on containing text, or -1
        (timeout, or the job exited)."""
        end = time.monotonic() + timeout
        with self.cv:
            i = start
            while True:
                while i < len(self.lines):
                    if text in self.lines[i]:
                        return i
                    i += 1
                left = end - time.monotonic()
                if left <= 0 or (self.p.poll() is not None and not self.t.is_alive()):
                    return -1
                self.cv.wait(min(left, 0.2))

    def alive(self):
        return self.p.poll() is None

    def stderr(self):
        """Everything it wrote, once it has exited."""
        self.t.join(timeout=10)
        return self.stderr_now()

    def stderr_now(self):
        """What it has written so far."""
        with self.cv:
            return "\n".join(self.lines)

    def kill(self, sig=signal.SIGKILL):
        if self.p.poll() is None:
            self.p.send_signal(sig)

    def stop(self, timeout=60):
        """SIGTERM (a final checkpoint), then wait; SIGKILL after timeout."""
        self.kill(signal.SIGTERM)
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            self.p.wait()
        return self.p.returncode

    def wait(self, timeout):
        try:
            return self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None


def compare(got, want, label):
    """got, want: Counters of rows. Returns (missing, extra, duplicates)."""
    missing = [k for k in want if got[k] < want[k]]
    extra = [k for k in got if k not in want]
    dups = sum(got[k] - want[k] for k in want if got[k] > want[k])
    print("%s: %d records read, %d distinct, %d duplicates, %d missing, %d not in the reference"
          % (label, sum(got.values()), len(got), dups, len(missing), len(extra)))
    return missing, extra, dups
