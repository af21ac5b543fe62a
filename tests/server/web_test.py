"""server.web.* — the web page of jobs and /metrics of `sluice serve`
(server/web.c, server/webjobs.c, server/web/page.html).

Each case starts a server with --http-listen on a port of its own and a
background job: datagen (a sequence at a known rate) into an exactly-once
filesystem sink (jobs_util.gen_job).

  page     headless Chromium (Debian's chromium) loads / and runs its
           JavaScript: the DOM it dumps (parsed here with html.parser) shows
           the running job, and between two loads its rows-out cell grows
           and its throughput plot's data changes; the page's static HTML
           (a plain GET) names no job — the control: what the DOM shows
           came from /api/jobs through the page's script.
  metrics  /metrics parses with prometheus_client's parser; while the job
           runs, its counters bracket SHOW JOBS' (read through psql: a
           /metrics before <= SHOW JOBS <= a /metrics after) and grow; once
           STOP JOB ended it they equal SHOW JOBS' exactly, and rows out
           equals the rows committed to the sink's files, whose ids are
           exactly those a reference computed here says rows in covers
           (one task reads the sequence). The
           job's name holds a quote and a backslash: the label must come
           back intact from the parser.
  http     malformed, oversized and refused requests get their status (400,
           404, 405, 408, 413, 414, 431, 505), 200 random byte strings and
           48 idle connections (503 past the limit) don't stop it, and
           afterwards / , /metrics and the PostgreSQL port still answer.

Every case ends with SIGTERM, which must end the server with status 0 (no
leak under ASan).
"""
import html.parser
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request

from srv_util import ENV, SLUICE, Server, free_port, psql_ok, tmpdir
from jobs_util import LOG_ENV, committed, fail, run_script, show_jobs, gen_job, wait_status


def start(prefix, name, rate=300, settings=""):
    tmp = tmpdir("srv-web-%s-" % prefix)
    http = free_port()
    srv = Server(os.path.join(tmp, "data"), "--http-listen", "127.0.0.1:%d" % http, env=LOG_ENV)
    srv.http = http
    out = os.path.join(tmp, "out")
    run_script(srv.port, settings + gen_job(10 ** 8, rate, out, name))
    wait_status(srv.port, name, ["RUNNING"])
    return srv, out


def get(port, path, timeout=10):
    with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=timeout) as r:
        return r.status, r.headers, r.read().decode("utf-8")


# ---- page -----------------------------------------------------------------

class Dom(html.parser.HTMLParser):
    """The parts of the dumped DOM the test looks at."""

    def __init__(self, job):
        super().__init__()
        self.job = job
        self.cells = {}        # data-field -> text of the job's table row
        self.updates = None    # body's data-updates
        self.samples = None    # the job's throughput plot's data-samples
        self.series = {}       # polyline class -> (points, data-values)
        self.checkpoints = None  # the job's checkpoint timeline's marks
        self.bars = []         # the job's checkpoint durations: (epoch, ms, bytes)
        self._durations = False
        self._row = False
        self._field = None
        self._plot = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.updates = int(a.get("data-updates", "0"))
        if tag == "tr":
            self._row = a.get("data-job") == self.job
        if tag == "td" and self._row:
            self._field = a.get("data-field")
            self.cells[self._field] = ""
        if tag == "svg" and "throughput" in a.get("class", ""):
            self._plot = a.get("data-job") == self.job
            if self._plot:
                self.samples = int(a.get("data-samples"))
        if tag == "svg" and "checkpoints" in a.get("class", "") and self.samples is not None \
                and self.checkpoints is None:
            self.checkpoints = int(a.get("data-count"))
        if tag == "svg" and "checkpoint-durations" in a.get("class", ""):
            self._durations = self.samples is not None and not self.bars
        if tag == "rect" and self._durations and a.get("class") == "chk":
            self.bars.append((int(a["data-epoch"]), int(a["data-duration-ms"]),
                              int(a["data-bytes"])))
        if tag == "polyline" and self._plot:
            self.series[a.get("class")] = (a.get("points"), a.get("data-values"))

    def handle_endtag(self, tag):
        if tag == "td":
            self._field = None
        if tag == "tr":
            self._row = False
        if tag == "svg":
            self._plot = False
            self._durations = False

    def handle_data(self, data):
        if self._row and self._field:
            self.cells[self._field] += data


def load_page(port, profile):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        fail("chromium is not installed (scripts/setup installs it)")
    p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--no-first-run", "--user-data-dir=" + profile,
                        "--virtual-time-budget=3000", "--dump-dom",
                        "http://127.0.0.1:%d/" % port],
                       capture_output=True, text=True, timeout=90)
    if p.returncode != 0 or "<body" not in p.stdout:
        fail("chromium could not load the page (%d):\n%s" % (p.returncode, p.stderr[-2000:]))
    return p.stdout


def dir_bytes(path):
    """The bytes of the files under path, or None when it is gone."""
    try:
        return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(path) for f in fs) \
            if os.path.isdir(path) else None
    except FileNotFoundError:
        return None


def number(text):
    return int(text.replace(",", ""))


def case_page():
    srv, _ = start("page", "webjob")
    with srv:
        status, headers, static = get(srv.http, "/")
        assert status == 200 and headers["Content-Type"].startswith("text/html"), headers
        assert "webjob" not in static, "the static page already names the job: no control"
        profile = tmpdir("srv-web-chromium-")
        first = Dom("webjob")
        first.feed(load_page(srv.http, profile))
        print("first load:", first.cells, first.samples, first.updates)
        if first.cells.get("status") != "RUNNING":
            fail("the page does not show webjob RUNNING: %r" % first.cells)
        if not first.updates or first.samples is None or "rows-out" not in first.series:
            fail("the page did not render the job's plot: %r %r" % (first.updates, first.series))
        time.sleep(2.0)
        second = Dom("webjob")
        second.feed(load_page(srv.http, profile))
        print("second load:", second.cells, second.samples)
        rows1, rows2 = number(first.cells["rows_out"]), number(second.cells["rows_out"])
        if not rows2 > rows1 > 0:
            fail("rows out did not grow between two loads: %d then %d" % (rows1, rows2))
        if second.series["rows-out"] == first.series["rows-out"] or second.samples <= first.samples:
            fail("the throughput plot did not move: %r then %r"
                 % (first.series["rows-out"], second.series["rows-out"]))
        if not second.checkpoints or second.checkpoints < (first.checkpoints or 0):
            fail("the checkpoint timeline shows no checkpoint: %r" % second.checkpoints)
        # Checkpoint durations and sizes, from the job's record: each bar a
        # checkpoint with its size on disk; the newest one still on disk is
        # measured here (older ones are removed as new ones are decided).
        if not second.bars or any(b <= 0 or ms < 0 for _, ms, b in second.bars):
            fail("the page shows no checkpoint durations and sizes: %r" % second.bars)
        measured = 0
        for epoch, _, shown in second.bars:
            d = os.path.join(srv.data_dir, "jobs", "webjob", "chk-%d" % epoch)
            size = dir_bytes(d)
            if size is not None and os.path.isdir(d):
                measured += 1
                if size != shown:
                    fail("checkpoint %d: the page says %d bytes, %d on disk" % (epoch, shown, size))
        print("checkpoint bars:", second.bars, "measured on disk:", measured)
        values = [int(v) for v in second.series["rows-out"][1].split()]
        if not values or max(values) <= 0:
            fail("the throughput plot shows no rows/s: %r" % values)
        # What the page showed is no more than SHOW JOBS says after it.
        cells = show_jobs(srv.port)["webjob"]
        if rows2 > int(cells[6]):
            fail("the page shows %d rows out, more than SHOW JOBS' later %s" % (rows2, cells[6]))
        if srv.stop() != 0:
            fail("the server did not stop cleanly:\n" + srv.log()[-4000:])


# ---- metrics --------------------------------------------------------------

COUNTERS = {"sluice_job_rows_in": 5, "sluice_job_rows_out": 6, "sluice_job_late_rows": 7,
            "sluice_job_skipped_rows": 8, "sluice_job_restarts": 9, "sluice_job_conflicts": 10}


def metrics(port):
    from prometheus_client.parser import text_string_to_metric_families
    status, headers, text = get(port, "/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain; version=0.0.4"), headers
    fams = {}
    for fam in text_string_to_metric_families(text):
        fams[fam.name] = fam
    return fams


def value(fams, family, job, suffix=""):
    fam = fams.get(family)
    if fam is None:
        fail("/metrics has no family %s" % family)
    for s in fam.samples:
        if s.name == family + suffix and s.labels.get("job") == job:
            return s.value, s.labels
    fail("/metrics has no %s%s for job %r: %r" % (family, suffix, job, fam.samples))


def case_metrics():
    name = 'web"job\\m'
    # One task: the ids read are exactly 1..rows in (two tasks split the sequence).
    srv, out = start("metrics", name, settings="SET 'parallelism.default' = '1';\n")
    with srv:
        for fam in COUNTERS:
            m = metrics(srv.http)
            if m[fam].type != "counter":
                fail("%s is a %s, not a counter" % (fam, m[fam].type))
        time.sleep(1.0)
        before = metrics(srv.http)
        cells = show_jobs(srv.port)[name]
        time.sleep(1.2)
        after = metrics(srv.http)
        for fam, col in COUNTERS.items():
            a = value(before, fam, name, "_total")[0]
            b = value(after, fam, name, "_total")[0]
            if not a <= int(cells[col]) <= b:
                fail("%s: /metrics said %s then %s around SHOW JOBS' %s" % (fam, a, b, cells[col]))
        for fam in ("sluice_job_rows_in", "sluice_job_rows_out"):
            if not value(after, fam, name, "_total")[0] > value(before, fam, name, "_total")[0] > 0:
                fail("%s does not grow" % fam)
        if value(after, "sluice_job_running", name)[0] != 1:
            fail("sluice_job_running is not 1 for the running job")
        info = value(after, "sluice_job_info", name)[1]
        if info.get("status") != "RUNNING" or info.get("guarantee") != cells[3]:
            fail("sluice_job_info's labels %r do not match SHOW JOBS' %r" % (info, cells))

        # Stopped: the figures are final, and equal SHOW JOBS' and the sink's.
        psql_ok(srv.port, "STOP JOB '%s'" % name)
        final = metrics(srv.http)
        cells = show_jobs(srv.port)[name]
        for fam, col in COUNTERS.items():
            got = value(final, fam, name, "_total")[0]
            if got != int(cells[col]):
                fail("%s is %s after STOP JOB, SHOW JOBS says %s" % (fam, got, cells[col]))
        if value(final, "sluice_job_last_checkpoint", name)[0] != int(cells[4]):
            fail("sluice_job_last_checkpoint differs from SHOW JOBS' %s" % cells[4])
        size = value(final, "sluice_job_last_checkpoint_size_bytes", name)[0]
        on_disk = dir_bytes(os.path.join(srv.data_dir, "jobs", name, "chk-%s" % cells[4]))
        if size <= 0 or (on_disk is not None and size != on_disk) or \
                value(final, "sluice_job_last_checkpoint_duration_seconds", name)[0] < 0:
            fail("the last checkpoint's size %s differs from its %s bytes on disk" % (size, on_disk))
        if value(final, "sluice_job_running", name)[0] != 0 or \
                value(final, "sluice_job_info", name)[1].get("status") != cells[1]:
            fail("the stopped job's status is not what SHOW JOBS says (%s)" % cells[1])
        rows_in = int(value(final, "sluice_job_rows_in", name, "_total")[0])
        rows_out = int(value(final, "sluice_job_rows_out", name, "_total")[0])
        got = committed(out)
        want = {(i, i * 3, "even" if i % 2 == 0 else "odd") for i in range(1, rows_in + 1) if i % 7}
        print("rows in %d, rows out %d, committed %d" % (rows_in, rows_out, sum(got.values())))
        ids = sorted(r[0] for r in got)
        print("committed ids %d..%d; missing %r; extra %r" % (
            ids[0], ids[-1], sorted(want - set(got))[:10], sorted(set(got) - want)[:10]))
        if sum(got.values()) != rows_out or set(got) != want:
            fail("the sink holds %d rows; /metrics says %d written of %d read"
                 % (sum(got.values()), rows_out, rows_in))
        running = [s for s in final["sluice_jobs"].samples if s.labels["status"] == cells[1]]
        if not running or running[0].value != 1:
            fail("sluice_jobs{status=%s} is not 1: %r" % (cells[1], final["sluice_jobs"].samples))
        if srv.stop() != 0:
            fail("the server did not stop cleanly:\n" + srv.log()[-4000:])


# ---- http -----------------------------------------------------------------

def raw(port, data, timeout=10.0, half_close=False):
    """Send data, read until the server closes: (status or None, headers, body)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        if data:
            s.sendall(data)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            try:
                b = s.recv(65536)
            except ConnectionResetError:
                break
            if not b:
                break
            chunks.append(b)
    finally:
        s.close()
    resp = b"".join(chunks)
    if not resp:
        return None, {}, b""
    head, _, body = resp.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or parts[0] != "HTTP/1.1" or not parts[1].isdigit():
        fail("not an HTTP/1.1 status line: %r" % lines[0])
    headers = {}
    for l in lines[1:]:
        k, _, v = l.partition(":")
        headers[k.strip().lower()] = v.strip()
    if "content-length" in headers and int(headers["content-length"]) != len(body) and \
            not data.startswith(b"HEAD "):
        fail("Content-Length %s for a body of %d bytes" % (headers["content-length"], len(body)))
    return int(parts[1]), headers, body


def expect(port, data, status, **kw):
    got, headers, body = raw(port, data, **kw)
    if got != status:
        fail("%r: status %s, expected %d (%r)" % (data[:80], got, status, body[:200]))
    if headers.get("connection") != "close":
        fail("%r: no Connection: close" % data[:80])
    return headers, body


def case_http():
    srv, _ = start("http", "webjob", rate=50)
    port = srv.http
    with srv:
        slow = {}

        def idle():  # connects and says nothing: 408 after the 5 s deadline
            t0 = time.monotonic()
            slow["status"] = raw(port, b"", timeout=20)[0]
            slow["took"] = time.monotonic() - t0
        th = threading.Thread(target=idle)
        th.start()
        ok = b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n"
        _, body = expect(port, ok % b"/", 200)
        assert b"<html" in body
        h, body = expect(port, b"HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 200)
        assert body == b"" and int(h["content-length"]) > 0, h
        expect(port, ok % b"/metrics?x=1", 200)
        expect(port, ok % b"/api/jobs", 200)
        json.loads(expect(port, b"GET /api/jobs HTTP/1.0\r\n\r\n", 200)[1])
        expect(port, ok % b"/nope", 404)
        expect(port, ok % b"/metricsx", 404)
        h, _ = expect(port, b"POST / HTTP/1.1\r\nHost: x\r\n\r\n", 405)
        assert h.get("allow") == "GET, HEAD", h
        expect(port, b"get / HTTP/1.1\r\nHost: x\r\n\r\n", 405)
        expect(port, b"GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505)
        expect(port, b"GET / HTTP/1.1\r\n\r\n", 400)  # no Host
        expect(port, b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400)
        expect(port, b"GET /\r\n\r\n", 400)  # HTTP/0.9
        expect(port, b"GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400)
        expect(port, b"GET http://x/metrics HTTP/1.1\r\nHost: x\r\n\r\n", 200)
        expect(port, b"GET http://x HTTP/1.1\r\nHost: x\r\n\r\n", 200)
        expect(port, b"GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400)
        expect(port, b"GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400)
        expect(port, b"GET / HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n", 400)
        expect(port, b"GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", 400)
        expect(port, b"GET / HTTP/1.1\r\nHost: \x01\r\n\r\n", 400)
        expect(port, b"GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n", 400)
        expect(port, b"GET /\xff HTTP/1.1\r\nHost: x\r\n\r\n", 400)
        expect(port, b"GET / HTTP/1.1\rHost: x\r\n\r\n", 400)
        expect(port, b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", 413)
        expect(port, b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400)
        expect(port, b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 200)
        expect(port, b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 413)
        expect(port, ok % (b"/" + b"a" * 3000), 414)
        expect(port, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 20000 + b"\r\n\r\n", 431)
        expect(port, b"GET / HTTP/1.1\r\nHost: x\r\n", 400, half_close=True)  # ended early
        expect(port, b"\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", 200)  # leading blank lines

        rnd = random.Random(14)
        alphabet = b"GETHOST/ :\r\n\x00\x7f\xff\t1.0PHA?"
        for i in range(200):
            n = rnd.choice([1, 5, 20, 100, 1000, 9000])
            if i % 2:
                data = bytes(rnd.choice(alphabet) for _ in range(n)) + b"\r\n\r\n"
            else:
                data = bytes(rnd.getrandbits(8) for _ in range(n)) + b"\r\n\r\n"
            status = raw(port, data, half_close=True)[0]
            if status not in (200, 400, 404, 405, 413, 414, 431, 505):
                fail("random request %d (%r): status %s" % (i, data[:60], status))

        th.join(30)  # (its slot is free again before the next step counts slots)
        if slow.get("status") != 408 or not 4.0 <= slow["took"] <= 8.0:
            fail("an idle connection got %r" % slow)
        time.sleep(0.5)  # (the server's threads of the requests above end after their client)

        # Past SL_WEB_MAX_CONNS idle connections: 503 at once, then served again.
        idle_socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(48)]
        time.sleep(0.3)
        busy = raw(port, ok % b"/")[0]
        for s in idle_socks:
            s.close()
        if busy != 503:
            fail("with 48 idle connections a request got %s, not 503" % busy)
        end = time.monotonic() + 10
        while raw(port, ok % b"/")[0] != 200:
            if time.monotonic() > end:
                fail("the web page does not answer again after the idle connections closed")
            time.sleep(0.1)

        # An address given with --http-listen that is taken stops the start.
        other = os.path.join(tmpdir("srv-web-taken-"), "data")
        p = subprocess.run([SLUICE, "serve", "-D", other, "--listen", "127.0.0.1:%d" % free_port(),
                            "--http-listen", "127.0.0.1:%d" % port],
                           capture_output=True, text=True, timeout=60, env=ENV)
        if p.returncode != 2 or "could not listen on 127.0.0.1:%d" % port not in p.stderr:
            fail("a taken --http-listen: status %d, %r" % (p.returncode, p.stderr))
        p = subprocess.run([SLUICE, "serve", "-D", other, "--http-listen", "nope:x"],
                           capture_output=True, text=True, timeout=60, env=ENV)
        if p.returncode != 2 or "invalid --http-listen" not in p.stderr:
            fail("a malformed --http-listen: status %d, %r" % (p.returncode, p.stderr))

        # off: the server starts without the page.
        with Server(other, "--http-listen", "off") as off:
            psql_ok(off.port, "SELECT 1")  # (the log's start lines are written by now)
            if "web page of jobs on" not in srv.log() or "web page of jobs on" in off.log():
                fail("--http-listen off still serves the page:\n" + off.log())
            psql_ok(off.port, "SELECT 1")

        if get(port, "/metrics")[0] != 200:
            fail("/metrics does not answer after the malformed requests")
        if psql_ok(srv.port, "SELECT 1", "-A", "-t").strip() != "1":
            fail("the PostgreSQL port does not answer after the malformed requests")
        if srv.stop() != 0:
            fail("the server did not stop cleanly:\n" + srv.log()[-4000:])


CASES = {"page": case_page, "metrics": case_metrics, "http": case_http}

if __name__ == "__main__":
    CASES[sys.argv[1]]()
    print("ok")
