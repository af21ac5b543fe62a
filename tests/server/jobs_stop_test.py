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


def sync_client(port, sql, tmp):
    """psql running the script sql (its INSERT waits for the job)."""
    script = os.path.join(tmp, "sync.sql")
    with open(script, "w", encoding="utf-8") as f:
        f.write(sql)
    return psql_start(port, None, "-f", script)


def savepoint_logged(srv, name, start):
    m = re.search(r'job "%s" stopped with savepoint (\S+) \(its statement was cancelled\)' % name,
                  srv.log()[start:])
    return m.group(1) if m else None


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
        mark = len(srv.log())
        p = sync_client(srv.port, gen_job(10 ** 9, 2000, os.path.join(tmp, "out2"), "sync-cancel",
                                          sync=True, table="out2"), tmp)
        wait_log(srv, 'job "sync-cancel" started (table.dml-sync', start=mark)
        time.sleep(1.0)
        err = psql_sigint(p, timeout=60)
        # The statement ends with its savepoint (as the shell's Ctrl-C does).
        if 'job "sync-cancel" stopped with savepoint' not in err:
            fail("psql does not report the stop: %s" % err)
        wait_log(srv, 'job "sync-cancel" stopped with savepoint', start=mark)
        path = savepoint_logged(srv, "sync-cancel", mark)
        if not path or not os.path.exists(os.path.join(path, "_metadata")):
            fail("the savepoint %s of the cancelled job does not exist" % path)
        if job_status(srv.port, "sync-cancel") != "STOPPED":
            fail("the cancelled job is not STOPPED")

        # 3. A synchronous INSERT whose client went away.
        mark = len(srv.log())
        p = sync_client(srv.port, gen_job(10 ** 9, 2000, os.path.join(tmp, "out3"), "sync-gone",
                                          sync=True, table="out3"), tmp)
        wait_log(srv, 'job "sync-gone" started (table.dml-sync', start=mark)
        time.sleep(1.0)
        p.kill()
        p.communicate()
        wait_log(srv, 'job "sync-gone" stopped with savepoint', start=mark, timeout=30)
        path = savepoint_logged(srv, "sync-gone", mark)
        if not path or not os.path.exists(os.path.join(path, "_metadata")):
            fail("the savepoint %s of the abandoned job does not exist" % path)
        wait_status(srv.port, "sync-gone", ("STOPPED",), timeout=30)

        # None of them starts again with the server.
        restart_without_resume(srv, {"stopped-job": "STOPPED", "sync-cancel": "STOPPED",
                                     "sync-gone": "STOPPED"})
    finally:
        srv.kill()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
