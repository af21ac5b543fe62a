"""http_test.py — the http-sink connector against a real HTTP receiver
(receiver.py, its own process), checked by reading what the receiver
recorded, against a reference computed here from datagen's sequence.

Modes (--mode):
  rows     datagen 1..N -> http-sink, once in single mode (PRIMARY KEY: an
           Idempotency-Key per row, stable per key) and once in batch mode
           (PUT, JSON arrays of at most the batch size): the rows recorded
           equal the reference, each exactly once; headers as configured.
  faults   the receiver answers 500, 429 (Retry-After: 1) and sleeps past
           the client's timeout: each is retried and every row arrives once.
           Then a 400: the job fails at once with the status and the URL
           (without its credentials or query) in the error, and the receiver
           saw no retry of it.
  crash    a job with a key (single mode) SIGKILLed about --kills times at
           random moments (checkpoints every 200 ms), restarted on the same
           data directory until it ends; the receiver honours keys: every
           row exactly once, nothing missing, and it answered repeats.
  control  the same, the receiver ignoring keys: nothing missing and
           duplicates > 0 (the check above can fail); no duplicate at all
           means the run proved nothing, and the test fails.
  batch    the same SIGKILL loop in batch mode (batches of 50, no key):
           nothing missing (at-least-once); the duplicates are counted.

Usage: http_test.py --sluice PATH --mode rows|faults|crash|control|batch [--kills 10]
                    [--seed N]
"""
import argparse
import collections
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1")


class Receiver:
    def __init__(self, work, name, honour=True, faults="", sleep=3.0):
        self.record = os.path.join(work, name + ".rec")
        self.stats_file = os.path.join(work, name + ".stats")
        port_file = os.path.join(work, name + ".port")
        cmd = [sys.executable, os.path.join(HERE, "receiver.py"), "--record", self.record,
               "--stats", self.stats_file, "--port-file", port_file, "--faults", faults,
               "--sleep", str(sleep)]
        if honour:
            cmd.append("--honour-keys")
        self.proc = subprocess.Popen(cmd)
        deadline = time.monotonic() + 30
        while not os.path.exists(port_file):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("the receiver did not start")
            time.sleep(0.05)
        with open(port_file) as f:
            self.port = int(f.read())

    def requests(self):
        out = []
        if os.path.exists(self.record):
            with open(self.record, encoding="utf-8") as f:
                out = [json.loads(line) for line in f if line.strip()]
        return out

    def stats(self):
        with open(self.stats_file) as f:
            return json.load(f)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


def reference(rows):
    """The INSERT's rows, from its definition (not from Sluice)."""
    return collections.Counter((i, i * 3, "even" if i % 2 == 0 else "odd")
                               for i in range(1, rows + 1))


def recorded_rows(reqs):
    got = collections.Counter()
    for r in reqs:
        body = json.loads(r["body"])
        for o in body if isinstance(body, list) else [body]:
            got[(o["id"], o["x"], o["tag"])] += 1
    return got


def job_sql(port, rows, rate, table, options, name, interval="200 ms"):
    return """
SET 'parallelism.default' = '1';
SET 'execution.checkpointing.interval' = '{interval}';
SET 'pipeline.name' = '{name}';
CREATE TABLE IF NOT EXISTS gen (id BIGINT) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');
CREATE TABLE IF NOT EXISTS {table} (id BIGINT, x BIGINT, tag STRING{pk}) WITH (
  'connector' = 'http-sink', 'url' = 'http://{cred}127.0.0.1:{port}/rows?sig=sekrit77',
  'format' = 'json'{options});
INSERT INTO {table} SELECT id, id * 3, CASE WHEN id % 2 = 0 THEN 'even' ELSE 'odd' END FROM gen;
""".format(interval=interval, name=name, rows=rows, rate=rate, table=table, port=port,
           pk=", PRIMARY KEY (id) NOT ENFORCED" if "single" in options.values() else "",
           cred="user:pw7788@" if "faults" in name else "",
           options="".join(",\n  '%s' = '%s'" % kv for kv in options.items()))


def run(sluice, work, sql, timeout=120):
    path = os.path.join(work, "job.sql")
    with open(path, "w", encoding="utf-8") as f:
        f.write(sql)
    return subprocess.run([sluice, "--data-dir", os.path.join(work, "data"), "-q", "-f", path],
                          capture_output=True, text=True, env=ENV, timeout=timeout)


def check(cond, what, failures):
    print("http_test: %s: %s" % ("ok" if cond else "FAILED", what))
    if not cond:
        failures.append(what)


def mode_rows(a, work, failures):
    rows = 200
    rc = Receiver(work, "rows")
    try:
        single = {"http.sink.writer.request.mode": "single",
                  "http.sink.header.Authorization": "Bearer tok-123456",
                  "http.sink.header.X-Source": "sluice"}
        p = run(a.sluice, work, job_sql(rc.port, rows, 100000, "api_single", single, "single"))
        check(p.returncode == 0, "single-mode job ran (%s)" % p.stderr.strip()[-300:], failures)
        reqs = rc.requests()
        got = recorded_rows(reqs)
        check(got == reference(rows), "single mode: %d rows recorded = the reference of %d"
              % (sum(got.values()), rows), failures)
        check(len(reqs) == rows, "single mode: one request a row (%d)" % len(reqs), failures)
        hdr_ok = all(r["method"] == "POST" and r["headers"].get("Authorization") ==
                     "Bearer tok-123456" and r["headers"].get("X-Source") == "sluice" and
                     r["headers"].get("Content-Type") == "application/json" for r in reqs)
        check(hdr_ok, "single mode: POST with the configured headers and Content-Type", failures)
        keys = {}
        for r in reqs:
            keys.setdefault(json.loads(r["body"])["id"], set()).add(
                r["headers"].get("Idempotency-Key"))
        distinct = {k for ks in keys.values() for k in ks}
        check(all(len(ks) == 1 and None not in ks for ks in keys.values()) and
              len(distinct) == rows, "single mode: one distinct Idempotency-Key a row", failures)
        # The key is derived from the row's key only: the same on a rerun.
        shutil.rmtree(os.path.join(work, "data"))
        open(rc.record, "w").close()
        p = run(a.sluice, work, job_sql(rc.port, rows, 100000, "api_single", single, "single"))
        again = {json.loads(r["body"])["id"]: r["headers"].get("Idempotency-Key")
                 for r in rc.requests()}
        st = rc.stats()
        check(p.returncode == 0 and st["repeats"] == rows and
              all(keys[i] == {k} for i, k in again.items()) and not again,
              "single mode: a rerun sends the same keys (all %d answered as repeats, %d "
              "recorded again)" % (st["repeats"], len(again)), failures)

        open(rc.record, "w").close()
        shutil.rmtree(os.path.join(work, "data"))
        batch = {"insert-method": "PUT", "http.sink.request.batch.size": "7"}
        p = run(a.sluice, work, job_sql(rc.port, rows, 100000, "api_batch", batch, "batch"))
        check(p.returncode == 0, "batch-mode job ran (%s)" % p.stderr.strip()[-300:], failures)
        reqs = rc.requests()
        got = recorded_rows(reqs)
        check(got == reference(rows), "batch mode: %d rows recorded = the reference of %d"
              % (sum(got.values()), rows), failures)
        arrays = [json.loads(r["body"]) for r in reqs]
        check(all(isinstance(b, list) and 1 <= len(b) <= 7 for b in arrays) and
              len(reqs) >= (rows + 6) // 7,
              "batch mode: %d requests, each a JSON array of 1..7 rows" % len(reqs), failures)
        check(all(r["method"] == "PUT" and "Idempotency-Key" not in r["headers"] for r in reqs),
              "batch mode: PUT, no key header", failures)
    finally:
        rc.stop()


def mode_faults(a, work, failures):
    rows = 20
    opts = {"http.sink.writer.request.mode": "single", "http.sink.request.timeout": "1 s",
            "http.sink.max-retries": "3",
            "http.sink.retry-strategy.exponential-delay.initial-backoff": "50 ms"}
    # request 1: 500, its retry 429, then a sleep past the timeout, then ok
    rc = Receiver(work, "faults", faults="ok,500,429,sleep,ok,ok,500", sleep=2.5)
    try:
        t0 = time.monotonic()
        p = run(a.sluice, work, job_sql(rc.port, rows, 100000, "api_f", opts, "faults"))
        took = time.monotonic() - t0
        check(p.returncode == 0, "the job survived 500, 429 and a timeout (%s)"
              % p.stderr.strip()[-300:], failures)
        got = recorded_rows(rc.requests())
        st = rc.stats()
        check(got == reference(rows), "every row arrived once (%d rows)" % sum(got.values()),
              failures)
        check(st["faults"] == {"500": 2, "429": 1, "sleep": 1} and st["requests"] == rows + 4,
              "each fault was retried: %d requests for %d rows, faults %s"
              % (st["requests"], rows, st["faults"]), failures)
        check(took >= 1.0, "the 429's Retry-After (1 s) was waited for (%.1f s)" % took, failures)
    finally:
        rc.stop()
    shutil.rmtree(os.path.join(work, "data"))
    rc = Receiver(work, "faults400", faults="ok,ok,400")
    try:
        p = run(a.sluice, work, job_sql(rc.port, rows, 100000, "api_f", opts, "faults400"))
        st = rc.stats()
        err = p.stderr
        print("http_test: the 400's error:\n" + err.strip())
        check(p.returncode != 0, "a 400 fails the job", failures)
        check("400" in err and "http://127.0.0.1:%d/rows" % rc.port in err and
              "POST" in err and "bad row for this API" in err,
              "the error names the method, the URL, the status and the body", failures)
        check("pw7788" not in err and "sekrit77" not in err,
              "the error shows neither the URL's credentials nor its query", failures)
        check(st["requests"] == 3, "the 400 was not retried (%d requests)" % st["requests"],
              failures)
    finally:
        rc.stop()


def mode_crash(a, work, failures, control, batch=False):
    rows, rate = 6000, 400  # 15 s of input at full speed: room for every kill
    rnd = random.Random(a.seed)
    rc = Receiver(work, "crash", honour=not control)
    opts = ({"http.sink.request.batch.size": "50"} if batch
            else {"http.sink.writer.request.mode": "single"})
    sql = job_sql(rc.port, rows, rate, "api_c", opts, "crash")
    kills = runs = 0
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            runs += 1
            path = os.path.join(work, "job.sql")
            with open(path, "w", encoding="utf-8") as f:
                f.write(sql)
            p = subprocess.Popen([a.sluice, "--data-dir", os.path.join(work, "data"), "-q",
                                  "-f", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env=ENV)
            try:
                timeout = rnd.uniform(0.4, 1.2) if kills < a.kills else 300
                out, err = p.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
                p.communicate()
                kills += 1
                continue
            if p.returncode != 0:
                check(False, "run %d failed: %s" % (runs, err.decode()[-500:]), failures)
                return
            break
        check(kills >= a.kills, "%d SIGKILLs in %d runs" % (kills, runs), failures)
        got = recorded_rows(rc.requests())
        ref = reference(rows)
        missing = sum((ref - got).values())
        extra = sum((got - ref).values())
        doubled = sum(n - 1 for n in got.values() if n > 1)
        st = rc.stats()
        print("http_test: %s: %d rows expected, %d recorded: %d missing, %d extra, %d doubled; "
              "the receiver answered %d repeated keys"
              % ("batch" if batch else "control" if control else "keys honoured", rows, sum(got.values()), missing,
                 extra, doubled, st["repeats"]))
        check(missing == 0, "nothing missing", failures)
        if batch:
            check(extra == doubled, "nothing but duplicates extra", failures)
        elif control:
            check(doubled > 0, "the control shows duplicates (else the kills proved nothing)",
                  failures)
        else:
            check(extra == 0 and doubled == 0, "every row exactly once", failures)
            check(st["repeats"] > 0, "replays resent keys the receiver had (else the kills "
                  "proved nothing)", failures)
    finally:
        rc.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--mode", required=True, choices=["rows", "faults", "crash", "control", "batch"])
    ap.add_argument("--kills", type=int, default=10)
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    if a.seed is None:
        a.seed = random.randrange(1 << 30)
    work = tempfile.mkdtemp(prefix="sluice-http-")
    print("http_test: mode %s, seed %d, work dir %s" % (a.mode, a.seed, work))
    failures = []
    if a.mode == "rows":
        mode_rows(a, work, failures)
    elif a.mode == "faults":
        mode_faults(a, work, failures)
    else:
        mode_crash(a, work, failures, a.mode != "crash", a.mode == "batch")
    if failures:
        print("http_test: FAILED (%d checks); work dir kept: %s" % (len(failures), work))
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("http_test: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
