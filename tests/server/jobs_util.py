"""jobs_util.py — shared by the server's job tests (tests/server/jobs_*_test.py;
standard library only).

- E2E: tests/e2e on sys.path (sluice_e2e: committed_rows, ...).
- LOG_ENV: the server's environment for these tests (SLUICE_LOG=info: the
  per-job log lines are what the tests look for; leak checks on: every
  SIGTERM-stopped server must exit 0).
- run_script(port, sql): statements sent one by one in one psql session
  (settings hold for the INSERT after them); fails the test on an error.
- show_jobs(port): SHOW JOBS through psql, {name: [cells]}.
- job_status(port, name) / wait_status(port, name, statuses, timeout).
- wait_checkpoint(port, name, n): until SHOW JOBS shows checkpoint n or later.
- wait_log(srv, text, timeout, start=0): until the server's log holds text
  (after offset start).
- stop_cleanly(srv): SIGTERM, which must end the server with exit 0.
- kill_and_restart(srv, name, pause): SIGKILL and a start of the server,
  until job name resumes from its checkpoint (with pause, a step of
  SLUICE_TEST_PAUSE: until the job has paused 1.5 s after that step).
- restart_without_resume(srv, {name: status}): a clean stop and a start:
  no job starts again (nothing resumes in the log) and each named job
  keeps its status; then a clean stop.
- gen_job(rows, rate, out_dir, name, sync, table): a datagen sequence 1..rows
  into an exactly-once filesystem sink table (JSON) writing out_dir,
  checkpointing every 200 ms ('table.dml-sync' when sync; through a
  temporary view of the session when view), and
  reference(rows): its result computed here, not by Sluice.
"""
import collections
import os
import sys
import time

from srv_util import psql

E2E = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e")
sys.path.insert(0, E2E)
import sluice_e2e  # noqa: E402

LOG_ENV = {"SLUICE_LOG": "info",
           # A server stopped by SIGTERM exits non-zero when it leaked (ASan builds).
           "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=1"}


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def run_script(port, sql, expect_ok=True, timeout=120):
    rc, out, err = psql(port, None, "-f", "-", stdin=sql, timeout=timeout)
    if expect_ok and rc != 0:
        fail("psql failed (%d):\n%s\n%s" % (rc, out, err))
    return rc, out, err


def show_jobs(port):
    rc, out, err = psql(port, "SHOW JOBS", "-A", "-t")
    if rc != 0:
        fail("SHOW JOBS failed: %s" % err)
    jobs = {}
    for line in out.splitlines():
        cells = line.split("|")
        if len(cells) >= 10:
            jobs[cells[0]] = cells
    return jobs


def job_status(port, name):
    cells = show_jobs(port).get(name)
    return cells[1] if cells else None


def wait_status(port, name, statuses, timeout=90):
    end = time.monotonic() + timeout
    st = None
    while time.monotonic() < end:
        st = job_status(port, name)
        if st in statuses:
            return st
        time.sleep(0.3)
    fail("job %s is %s after %d s, not one of %s" % (name, st, timeout, statuses))


def wait_checkpoint(port, name, n, timeout=60):
    """Until SHOW JOBS says job name's last checkpoint is n or later."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        cells = show_jobs(port).get(name)
        if cells and cells[4].isdigit() and int(cells[4]) >= n:
            return
        time.sleep(0.2)
    fail("job %s has no checkpoint %d after %d s" % (name, n, timeout))


def wait_log(srv, text, timeout=60, start=0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if text in srv.log()[start:]:
            return
        time.sleep(0.1)
    fail("the server's log does not say %r:\n%s" % (text, srv.log()[-4000:]))


def stop_cleanly(srv):
    if srv.stop() != 0:
        fail("the server did not stop cleanly:\n" + srv.log()[-4000:])


def kill_and_restart(srv, name, pause=None):
    mark = len(srv.log())
    srv.kill()
    if pause:
        srv.env["SLUICE_TEST_PAUSE"] = "%s:1500" % pause
    else:
        srv.env.pop("SLUICE_TEST_PAUSE", None)
    srv.start()
    wait_log(srv, 'job "%s" resumes from checkpoint' % name, start=mark, timeout=60)
    if pause:
        wait_log(srv, "sluice-test: paused after " + pause, start=mark, timeout=60)


def restart_without_resume(srv, want):
    stop_cleanly(srv)
    mark = len(srv.log())
    srv.start()
    time.sleep(1.0)
    tail = srv.log()[mark:]
    if "resumes" in tail or "could not resume" in tail:
        fail("a job was started again:\n" + tail)
    for name, status in want.items():
        st = job_status(srv.port, name)
        if st != status:
            fail("job %s is %s after a restart, not %s" % (name, st, status))
    stop_cleanly(srv)


def gen_job(rows, rate, out_dir, name, sync=False, table="out_fs", view=False):
    return """
CREATE TABLE IF NOT EXISTS gen (id BIGINT, pad STRING) WITH (
  'connector' = 'datagen', 'number-of-rows' = '{rows}', 'rows-per-second' = '{rate}',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '{rows}',
  'fields.pad.length' = '4');
CREATE TABLE IF NOT EXISTS {table} (id BIGINT, x BIGINT, tag STRING) WITH (
  'connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');
SET 'execution.checkpointing.interval' = '200 ms';
SET 'pipeline.name' = '{name}';
{sync}{view}INSERT INTO {table} SELECT id, id * 3, CASE WHEN id % 2 = 0 THEN 'even' ELSE 'odd' END
FROM {src} WHERE id % 7 <> 0;
""".format(view="CREATE TEMPORARY VIEW gen_v AS SELECT id FROM gen;\n" if view else "",
           src="gen_v" if view else "gen", rows=rows, rate=rate, out=out_dir, name=name, table=table,
           sync="SET 'table.dml-sync' = 'true';\n" if sync else "")


def reference(rows):
    return collections.Counter(
        (i, i * 3, "even" if i % 2 == 0 else "odd") for i in range(1, rows + 1) if i % 7 != 0)


def committed(out_dir):
    return collections.Counter((r["id"], r["x"], r["tag"])
                               for r in sluice_e2e.committed_rows(out_dir))


def check_exactly_once(out_dir, rows):
    want, got = reference(rows), committed(out_dir)
    missing, extra = want - got, got - want
    doubled = sum(n - 1 for n in got.values() if n > 1)
    print("expected %d rows, committed %d: %d missing, %d extra, %d doubled" %
          (sum(want.values()), sum(got.values()), sum(missing.values()), sum(extra.values()),
           doubled))
    if missing or extra or doubled:
        fail("the committed output is not exactly the reference")
