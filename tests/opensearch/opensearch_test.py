"""opensearch_test.py — the opensearch sink against a single OpenSearch node
(scripts/opensearch, the ctest fixture `opensearch`), checked by reading the
index back independently with plain HTTP (_refresh, then _search), against
a reference computed here from datagen's sequence.

Modes (--mode):
  keyed     an aggregate by key (updates: -U skipped, +U re-indexed) into a
            table with a PRIMARY KEY, SIGKILLed about --kills times at
            random moments (checkpoints every 200 ms), restarted on the same
            data directory until it ends: the index holds exactly the
            reference's documents (a replay rewrites the same _ids).
  control   datagen rows into a table without a key (generated ids), killed
            the same way, every other kill right after a checkpoint's bulk
            was answered and before the checkpoint completed
            (SLUICE_TEST_PAUSE=pre-commit): nothing missing and duplicates
            > 0 (the check above can fail); no duplicate means the run
            proved nothing, and the test fails.
  conflict  an index whose mapping makes 'n' an integer, a row whose n is
            'seventeen': the job fails naming the document's _id, the error
            type and reason, with neither the password nor the URL's
            credentials in the message; with 'sink.failure-handler' =
            'ignore' the job finishes, the rest indexed. The first of two
            'hosts' refuses connections (the second is used). Then deletes:
            groups retracted by HAVING are deleted from the index.
  faults    against a fake _bulk endpoint in this process (no server
            needed): a 503 for a whole request and a 429 for one item are
            retried under 'sink.bulk-flush.backoff.strategy' = 'CONSTANT'
            (only the rejected item is sent again, every document arrives
            once, with basic auth); with the default DISABLED a 503 fails
            the job at once, naming the status, the URL and the backoff
            option. A quiet input (three rows, then none; checkpoints 10
            minutes apart): 'sink.bulk-flush.interval' sends them (the
            sink's flush timer).

Usage: opensearch_test.py --sluice PATH --mode keyed|control|conflict|faults [--kills 10]
                          [--seed N]   (SLUICE_OPENSEARCH_URL: the server)
"""
import argparse
import base64
import collections
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
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

URL = os.environ.get("SLUICE_OPENSEARCH_URL", "http://127.0.0.1:9200")
ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1")


# ---- the independent reader ------------------------------------------------

def http(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(URL + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def fresh_index(name, mappings=None):
    http("DELETE", "/" + name)
    body = {"settings": {"number_of_shards": 1, "number_of_replicas": 0}}
    if mappings:
        body["mappings"] = mappings
    st, out = http("PUT", "/" + name, body)
    if st != 200:
        raise RuntimeError("creating index %s: %s %s" % (name, st, out))


def documents(name):
    """Every document of the index: [(_id, _source)], by a scroll."""
    st, out = http("POST", "/%s/_refresh" % name)
    if st != 200:
        raise RuntimeError("refresh %s: %s %s" % (name, st, out))
    docs = []
    st, out = http("POST", "/%s/_search?scroll=1m" % name,
                   {"size": 1000, "query": {"match_all": {}}})
    while st == 200 and out["hits"]["hits"]:
        docs += [(h["_id"], h["_source"]) for h in out["hits"]["hits"]]
        st, out = http("POST", "/_search/scroll", {"scroll": "1m", "scroll_id": out["_scroll_id"]})
    if st != 200:
        raise RuntimeError("search %s: %s %s" % (name, st, out))
    st, cnt = http("GET", "/%s/_count" % name)
    if cnt["count"] != len(docs):
        raise RuntimeError("_count %d but %d documents read" % (cnt["count"], len(docs)))
    return docs


# ---- jobs --------------------------------------------------------------------

class Job:
    """A sluice -f run whose standard error is read as it comes."""

    def __init__(self, sluice, work, sql, env=None):
        path = os.path.join(work, "job.sql")
        with open(path, "w", encoding="utf-8") as f:
            f.write(sql)
        self.lines = []
        self.p = subprocess.Popen([sluice, "--data-dir", os.path.join(work, "data"), "-q",
                                   "-f", path], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, env=dict(ENV, **(env or {})))
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        for line in self.p.stderr:
            self.lines.append(line.decode(errors="replace"))

    def stderr(self):
        return "".join(self.lines)

    def wait_line(self, text, timeout):
        """True once a line containing text was printed; False when the job
        ended or timeout passed first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(text in l for l in self.lines):
                return True
            if self.p.poll() is not None:
                self.t.join(5)
                return any(text in l for l in self.lines)
            time.sleep(0.02)
        return False

    def kill(self):
        self.p.send_signal(signal.SIGKILL)
        self.wait(30)

    def wait(self, timeout):
        self.p.wait(timeout=timeout)
        self.t.join(10)
        return self.p.returncode


def table_sql(index, cols, pk, options=None):
    opts = {"connector": "opensearch", "hosts": URL, "index": index, "format": "json"}
    opts.update(options or {})
    return "CREATE TABLE IF NOT EXISTS docs (%s%s) WITH (\n  %s);\n" % (
        cols, ", PRIMARY KEY (%s) NOT ENFORCED" % pk if pk else "",
        ",\n  ".join("'%s' = '%s'" % kv for kv in opts.items()))


def gen_sql(rows, rate, name):
    return """
SET 'parallelism.default' = '1';
SET 'execution.checkpointing.interval' = '200 ms';
SET 'pipeline.name' = '{name}';
CREATE TABLE IF NOT EXISTS gen (id BIGINT) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}');
""".format(rows=rows, rate=rate, name=name)


def check(cond, what, failures):
    print("opensearch_test: %s: %s" % ("ok" if cond else "FAILED", what))
    if not cond:
        failures.append(what)


def crash_loop(a, work, sql, rnd, failures, pause_every=0):
    """Runs sql until it ends, SIGKILLing it a.kills times: kill k (k odd
    when pause_every) right after a checkpoint's pre-commit, else at a
    random moment. Returns False when a run failed."""
    kills = runs = 0
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        runs += 1
        paused = pause_every and kills < a.kills and kills % pause_every == 1
        job = Job(a.sluice, work, sql, {"SLUICE_TEST_PAUSE": "pre-commit:1500"} if paused else {})
        if kills < a.kills:
            if paused:
                # not always the first checkpoint of a run
                for _ in range(rnd.randint(1, 3)):
                    n = sum("paused after pre-commit" in l for l in job.lines)
                    t0 = time.monotonic()
                    while (sum("paused after pre-commit" in l for l in job.lines) == n and
                           job.p.poll() is None and time.monotonic() - t0 < 30):
                        time.sleep(0.02)
                hit = job.p.poll() is None
            else:
                time.sleep(rnd.uniform(0.5, 1.3))
                hit = job.p.poll() is None
            if hit:
                job.kill()
                kills += 1
                continue
        rc = job.wait(240)
        if rc != 0:
            check(False, "run %d failed: %s" % (runs, job.stderr()[-800:]), failures)
            return False
        break
    check(kills >= a.kills, "%d SIGKILLs in %d runs" % (kills, runs), failures)
    return True


# ---- modes -------------------------------------------------------------------

def mode_keyed(a, work, failures):
    rows, rate, groups = 8000, 600, 400  # ~13 s of input: room for every kill
    index = "sl-keyed-%d" % a.seed
    fresh_index(index)
    rnd = random.Random(a.seed)
    sql = (gen_sql(rows, rate, "keyed") +
           table_sql(index, "k BIGINT, c BIGINT, s BIGINT, tag STRING", "k, tag",
                     {"document-id.key-delimiter": "~", "sink.bulk-flush.max-actions": "100"}) +
           "INSERT INTO docs SELECT id %% %d, COUNT(*), SUM(id), 'g' FROM gen "
           "GROUP BY id %% %d;\n" % (groups, groups))
    if not crash_loop(a, work, sql, rnd, failures):
        return
    ref = {}
    for i in range(1, rows + 1):
        c, s = ref.get(i % groups, (0, 0))
        ref[i % groups] = (c + 1, s + i)
    want = {"%d~g" % k: {"k": k, "c": c, "s": s, "tag": "g"} for k, (c, s) in ref.items()}
    docs = documents(index)
    got = {}
    for i, src in docs:
        got.setdefault(i, []).append(src)
    print("opensearch_test: keyed: %d documents expected, %d read" % (len(want), len(docs)))
    check(len(docs) == len(got), "one document per _id", failures)
    bad = [i for i in set(want) | set(got) if got.get(i) != [want.get(i)]]
    check(not bad, "the index equals the reference (_id = key values joined by '~'; "
          "differing: %s)" % bad[:5], failures)
    http("DELETE", "/" + index)


def mode_control(a, work, failures):
    rows, rate = 5000, 400  # ~12 s of input: room for every kill
    index = "sl-control-%d" % a.seed
    fresh_index(index)
    rnd = random.Random(a.seed)
    sql = (gen_sql(rows, rate, "control") +
           table_sql(index, "id BIGINT, x BIGINT, tag STRING", None) +
           "INSERT INTO docs SELECT id, id * 3, CASE WHEN id % 2 = 0 THEN 'even' ELSE 'odd' "
           "END FROM gen;\n")
    if not crash_loop(a, work, sql, rnd, failures, pause_every=2):
        return
    ref = collections.Counter((i, i * 3, "even" if i % 2 == 0 else "odd")
                              for i in range(1, rows + 1))
    docs = documents(index)
    got = collections.Counter((s["id"], s["x"], s["tag"]) for _, s in docs)
    missing = sum((ref - got).values())
    extra = sum((got - ref).values())
    doubled = sum(n - 1 for n in got.values() if n > 1)
    print("opensearch_test: control: %d rows expected, %d documents: %d missing, %d extra, "
          "%d doubled" % (rows, len(docs), missing, extra, doubled))
    check(missing == 0, "nothing missing (at-least-once)", failures)
    check(extra == doubled, "nothing but duplicates extra", failures)
    check(doubled > 0, "the control shows duplicates (else the kills proved nothing)", failures)
    check(len({i for i, _ in docs}) == len(docs), "every document has its own generated _id",
          failures)
    http("DELETE", "/" + index)


def mode_conflict(a, work, failures):
    index = "sl-conflict-%d" % a.seed
    port = URL.rsplit(":", 1)[1]
    opts = {"hosts": "http://127.0.0.1:1;http://u7:pw-in-url-55@127.0.0.1:%s" % port,
            "username": "elastic", "password": "pw-secret-4411",
            "sink.bulk-flush.max-actions": "8"}
    body = ("INSERT INTO docs SELECT id, CASE WHEN id = 17 THEN 'seventeen' "
            "ELSE CAST(id * 2 AS STRING) END FROM gen;\n")
    for handler in ("fail", "ignore"):
        fresh_index(index, {"properties": {"id": {"type": "long"}, "n": {"type": "integer"}}})
        shutil.rmtree(os.path.join(work, "data"), ignore_errors=True)
        o = dict(opts, **{"sink.failure-handler": handler})
        sql = gen_sql(40, 100000, "conflict-" + handler) + \
            table_sql(index, "id BIGINT, n STRING", "id", o) + body
        job = Job(a.sluice, work, sql)
        rc = job.wait(120)
        err = job.stderr()
        docs = dict(documents(index))
        if handler == "fail":
            print("opensearch_test: the conflict's error:\n" + err.strip()[-1500:])
            check(rc != 0, "a mapping conflict fails the job", failures)
            check('_id "17"' in err and "mapper_parsing_exception" in err and
                  "seventeen" in err, "the error names the document's _id, the error type and "
                  "the document", failures)
            check("http://127.0.0.1:%s/_bulk" % port in err,
                  "the error names the URL (the second host's)", failures)
            check("pw-secret-4411" not in err and "pw-in-url-55" not in err,
                  "neither the password nor the URL's credentials are shown", failures)
            check("17" not in docs, "the refused document is not in the index", failures)
        else:
            check(rc == 0, "with 'ignore' the job finishes (%s)" % err.strip()[-300:], failures)
            want = {str(i): {"id": i, "n": str(i * 2)} for i in range(1, 41) if i != 17}
            check(docs == want, "with 'ignore' every other document is indexed (%d of %d)"
                  % (len(docs), len(want)), failures)
            check("skipped 1 refused document" in err, "the skip is counted in the log",
                  failures)
    # Deletes: groups whose count reaches 4 are retracted by HAVING.
    fresh_index(index)
    shutil.rmtree(os.path.join(work, "data"), ignore_errors=True)
    sql = gen_sql(33, 100000, "deletes") + table_sql(index, "k BIGINT, c BIGINT", "k") + \
        "INSERT INTO docs SELECT id % 10, COUNT(*) FROM gen GROUP BY id % 10 " \
        "HAVING COUNT(*) < 4;\n"
    job = Job(a.sluice, work, sql)
    rc = job.wait(120)
    check(rc == 0, "the job with deletes ran (%s)" % job.stderr().strip()[-300:], failures)
    docs = dict(documents(index))
    want = {str(k): {"k": k, "c": 3} for k in (0, 4, 5, 6, 7, 8, 9)}
    check(docs == want, "retracted groups are deleted, the others indexed (%s)"
          % sorted(docs), failures)
    # _id text as Flink's key extractor writes it (Java's toString): a job
    # moved from Flink overwrites the same documents. Also no 'format': json.
    fresh_index(index)
    shutil.rmtree(os.path.join(work, "data"), ignore_errors=True)
    opts = {"connector": "elasticsearch-7", "hosts": URL, "index": index}
    sql = gen_sql(4, 100000, "ids") + (
        "CREATE TABLE IF NOT EXISTS docs (b BOOLEAN, ts TIMESTAMP(6), t TIME(3), d DATE, "
        "x DECIMAL(6, 2), PRIMARY KEY (b, ts, t, d, x) NOT ENFORCED) WITH (\n  %s);\n" %
        ",\n  ".join("'%s' = '%s'" % kv for kv in opts.items())) + (
        "INSERT INTO docs SELECT MOD(id, 2) = 0, CASE id "
        "WHEN 1 THEN TIMESTAMP '2026-01-02 03:04:00' "
        "WHEN 2 THEN TIMESTAMP '2026-01-02 03:04:05' "
        "WHEN 3 THEN TIMESTAMP '2026-01-02 03:04:05.5' "
        "ELSE TIMESTAMP '1969-12-31 23:59:59.000123' END, CASE id "
        "WHEN 1 THEN TIME '12:00:00' WHEN 2 THEN TIME '12:00:01' "
        "WHEN 3 THEN TIME '00:00:00.25' ELSE TIME '23:59:59.999' END, "
        "DATE '2026-03-04', CAST(id AS DECIMAL(6, 2)) / 4 FROM gen;\n")
    job = Job(a.sluice, work, sql)
    rc = job.wait(120)
    check(rc == 0, "the job with temporal keys ran (%s)" % job.stderr().strip()[-300:], failures)
    got = sorted(i for i, _ in documents(index))
    want = sorted([
        "false_2026-01-02T03:04_12:00_2026-03-04_0.25",
        "true_2026-01-02T03:04:05_12:00:01_2026-03-04_0.50",
        "false_2026-01-02T03:04:05.500_00:00:00.250_2026-03-04_0.75",
        "true_1969-12-31T23:59:59.000123_23:59:59.999_2026-03-04_1.00"])
    check(got == want, "_ids as Flink writes them: %r" % got, failures)
    http("DELETE", "/" + index)


class FakeBulk:
    """A _bulk endpoint answering from a script: each request takes the next
    fault ("503": the whole request; "429@i": item i rejected; "ok")."""

    def __init__(self, faults):
        self.faults = list(faults)
        self.requests = []  # (path, auth header, [(action, doc)])
        self.accepted = []  # the _ids of the items answered 201
        fake = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"])).decode()
                lines = body.split("\n")[:-1]
                acts, i = [], 0
                while i < len(lines):
                    a = json.loads(lines[i])
                    doc = json.loads(lines[i + 1]) if "index" in a else None
                    acts.append((a, doc))
                    i += 2 if doc is not None else 1
                fake.requests.append((self.path, self.headers.get("Authorization"), acts))
                fault = fake.faults.pop(0) if fake.faults else "ok"
                if fault == "503":
                    out, st = {"error": "unavailable"}, 503
                else:
                    bad = int(fault.split("@")[1]) if fault.startswith("429@") else -1
                    items = []
                    for k, (a, _) in enumerate(acts):
                        op = next(iter(a))
                        items.append({op: {"status": 429, "error": {
                            "type": "rejected_execution_exception", "reason": "queue full"}}}
                                     if k == bad else {op: {"status": 201}})
                        if k != bad:
                            fake.accepted.append(a[op].get("_id"))
                    out, st = {"errors": bad >= 0, "items": items}, 200
                data = json.dumps(out).encode()
                self.send_response(st)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.port = self.srv.server_address[1]
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def stop(self):
        self.srv.shutdown()


def mode_faults(a, work, failures):
    global URL
    rows = 30
    fake = FakeBulk(["503", "429@3", "ok"])
    URL = "http://127.0.0.1:%d" % fake.port
    try:
        o = {"sink.bulk-flush.backoff.strategy": "CONSTANT",
             "sink.bulk-flush.backoff.delay": "50 ms", "sink.bulk-flush.backoff.max-retries": "3",
             "sink.bulk-flush.max-actions": "100", "connection.path-prefix": "/es/",
             "username": "elastic", "password": "pw-secret-4411"}
        sql = gen_sql(rows, 100000, "faults") + table_sql("faults", "id BIGINT", "id", o) + \
            "INSERT INTO docs SELECT id FROM gen;\n"
        job = Job(a.sluice, work, sql)
        rc = job.wait(120)
        err = job.stderr()
        check(rc == 0, "the job survived a 503 and a rejected item (%s)" % err.strip()[-300:],
              failures)
        reqs = fake.requests
        check(len(reqs) >= 3 and len(reqs[0][2]) == rows and reqs[0][2] == reqs[1][2],
              "the 503'd request was sent again whole (%d requests)" % len(reqs), failures)
        resent = reqs[2][2] if len(reqs) > 2 else []
        check(len(resent) == 1 and resent[0] == reqs[1][2][3],
              "only the rejected item was sent again (%s)" % resent, failures)
        got = collections.Counter(fake.accepted)
        check(got == collections.Counter(str(i) for i in range(1, rows + 1)),
              "every document arrived once after the retries", failures)
        auth = "Basic " + base64.b64encode(b"elastic:pw-secret-4411").decode()
        check(all(r[0].startswith("/es/_bulk?") and r[1] == auth for r in reqs),
              "POST /es/_bulk with basic auth", failures)
        check("status 503, retry 1 of 3" in err and "1 of 30 documents rejected" in err,
              "the retries are logged", failures)
        # DISABLED (the default): a 503 fails at once.
        shutil.rmtree(os.path.join(work, "data"), ignore_errors=True)
        fake.faults, fake.requests = ["503"], []
        sql = gen_sql(rows, 100000, "faults2") + table_sql("faults", "id BIGINT", "id") + \
            "INSERT INTO docs SELECT id FROM gen;\n"
        job = Job(a.sluice, work, sql)
        rc = job.wait(120)
        err = job.stderr()
        print("opensearch_test: the 503's error:\n" + err.strip()[-800:])
        check(rc != 0 and "failed with status 503" in err and
              "http://127.0.0.1:%d/_bulk" % fake.port in err and
              "sink.bulk-flush.backoff.strategy" in err and len(fake.requests) == 1,
              "without a backoff strategy a 503 fails the job at once, naming the status, the "
              "URL and the option", failures)
        # A quiet input: three rows, then none (a monitored directory), and
        # checkpoints 10 minutes apart: 'sink.bulk-flush.interval' sends
        # them all the same (the flush timer), before any checkpoint would.
        shutil.rmtree(os.path.join(work, "data"), ignore_errors=True)
        fake.faults, fake.requests, fake.accepted = [], [], []
        quiet = os.path.join(work, "quiet")
        os.makedirs(quiet, exist_ok=True)
        with open(os.path.join(quiet, "part-0.csv"), "w") as f:
            f.write("101\n102\n103\n")
        sql = ("SET 'execution.checkpointing.interval' = '10 min';\n"
               "SET 'pipeline.name' = 'quiet';\n"
               "CREATE TABLE IF NOT EXISTS q (id BIGINT) WITH ('connector' = 'filesystem', "
               "'path' = '%s', 'format' = 'csv', 'source.monitor-interval' = '1 h');\n" % quiet +
               table_sql("quiet", "id BIGINT", "id", {"sink.bulk-flush.interval": "200 ms",
                                                       "sink.bulk-flush.max-actions": "1000"}) +
               "INSERT INTO docs SELECT id FROM q;\n")
        job = Job(a.sluice, work, sql)
        t0 = time.monotonic()
        while time.monotonic() - t0 < 15 and len(fake.accepted) < 3 and job.p.poll() is None:
            time.sleep(0.05)
        took = time.monotonic() - t0
        alive = job.p.poll() is None
        if alive:
            job.kill()
        check(alive and sorted(fake.accepted) == ["101", "102", "103"],
              "a quiet input's rows are sent by the interval (%.1f s after the start, no "
              "checkpoint; %s): %s" % (took, fake.accepted, job.stderr().strip()[-300:]),
              failures)
    finally:
        fake.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--mode", required=True, choices=["keyed", "control", "conflict", "faults"])
    ap.add_argument("--kills", type=int, default=10)
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    if a.seed is None:
        a.seed = random.randrange(1 << 30)
    work = tempfile.mkdtemp(prefix="sluice-opensearch-")
    print("opensearch_test: mode %s, seed %d, server %s, work dir %s"
          % (a.mode, a.seed, URL, work))
    failures = []
    {"keyed": mode_keyed, "control": mode_control, "conflict": mode_conflict,
     "faults": mode_faults}[a.mode](
        a, work, failures)
    if failures:
        print("opensearch_test: FAILED (%d checks); work dir kept: %s" % (len(failures), work))
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("opensearch_test: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
