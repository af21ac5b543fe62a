"""server.jobs.stop — what does not resume, and what a client's going away
does to the jobs it started.

1. A background job started over psql keeps running after psql
   disconnected; STOP JOB from another psql session stops it (STOPPED);
   after SIGTERM and a start of the server it is not started again (no
   "resumes" in the log, SHOW JOBS still says STOPPED).
2. A 'table.dml-sync' INSERT belongs to its statement: cancelled by psql
   (SIGINT -> CancelRequest) it stops with a savepoint: psql gets the
   notice, the server logs the path, which exists.
3. The same INSERT whose psql is killed (SIGKILL: the socket closes) stops
   with a savepoint too (logged), and the server serves on.
Neither synchronous job resumes after a restart."""
import os
import re
import sys
import time

from jobs_util import (LOG_ENV, fail, gen_job, job_status, restart_without_resume, run_script,
                       wait_log, wait_status)
from srv_util import Server, psql, psql_sigint, psql_start, tmpdir


def sync_job(srv, tmp, name):
    """psql running a 'table.dml-sync' INSERT (job name into table name),
    once the job runs: (the psql process, the log's offset before it)."""
    mark = len(srv.log())
    script = os.path.join(tmp, name + ".sql")
    with open(script, "w", encoding="utf-8") as f:
        f.write(gen_job(10 ** 9, 2000, os.path.join(tmp, name), name, sync=True,
                        table=name.replace("-", "_")))
    p = psql_start(srv.port, None, "-f", script)
    wait_log(srv, 'job "%s" started (table.dml-sync' % name, start=mark)
    time.sleep(1.0)
    return p, mark


def check_savepoint(srv, name, start):
    """The job stopped with a savepoint (its log line), which exists."""
    m = re.search(r'job "%s" stopped with savepoint (\S+) \(its statement was cancelled\)' % name,
                  srv.log()[start:])
    if not m or not os.path.exists(os.path.join(m.group(1), "_metadata")):
        fail("the savepoint of job %s does not exist: %s" % (name, m and m.group(1)))


def main():
    tmp = tmpdir("srv-jobs-stop-")
    data = os.path.join(tmp, "data")
    srv = Server(data, env=LOG_ENV)
    try:
        # 1. STOP JOB is final.
        run_script(srv.port, gen_job(10 ** 9, 2000, os.path.join(tmp, "out1"), "stopped-job",
                                    table="out1"))
        wait_log(srv, 'job "stopped-job" started in the background')
        time.sleep(1.0)
        if job_status(srv.port, "stopped-job") != "RUNNING":
            fail("the job does not run after its client disconnected")
        rc, out, err = psql(srv.port, "STOP JOB 'stopped-job'")
        if rc != 0 or "STOP JOB" not in out:
            fail("STOP JOB failed: %s %s" % (out, err))
        if job_status(srv.port, "stopped-job") != "STOPPED":
            fail("the job is not STOPPED after STOP JOB")

        # 2. A synchronous INSERT cancelled by its client.
        p, mark = sync_job(srv, tmp, "sync-cancel")
        err = psql_sigint(p, timeout=60)
        # The statement ends with its savepoint (as the shell's Ctrl-C does).
        if 'job "sync-cancel" stopped with savepoint' not in err:
            fail("psql does not report the stop: %s" % err)
        wait_log(srv, 'job "sync-cancel" stopped with savepoint', start=mark)
        check_savepoint(srv, "sync-cancel", mark)
        if job_status(srv.port, "sync-cancel") != "STOPPED":
            fail("the cancelled job is not STOPPED")

        # 3. A synchronous INSERT whose client went away.
        p, mark = sync_job(srv, tmp, "sync-gone")
        p.kill()
        p.communicate()
        wait_log(srv, 'job "sync-gone" stopped with savepoint', start=mark, timeout=30)
        check_savepoint(srv, "sync-gone", mark)
        wait_status(srv.port, "sync-gone", ("STOPPED",), timeout=30)

        # None of them starts again with the server.
        restart_without_resume(srv, {"stopped-job": "STOPPED", "sync-cancel": "STOPPED",
                                     "sync-gone": "STOPPED"})
    finally:
        srv.kill()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
