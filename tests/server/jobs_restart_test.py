"""server.jobs.restart — a job belongs to the server and survives its
restart (SIGTERM, then a start).

An exactly-once datagen -> filesystem job, reading through a temporary
view of its session, is started over psql (in the background: psql returns and disconnects while the job runs on). SIGTERM
stops the server; the job stops with a savepoint (logged). The server starts
again and the job resumes by itself from its checkpoint (the log line, SHOW
JOBS through psql says RUNNING) and runs to its end. The committed files,
read here, hold the reference computed here exactly once. A further restart
does not start the finished job again."""
import os
import re
import sys
import time

from jobs_util import (LOG_ENV, check_exactly_once, fail, gen_job, job_status,
                       restart_without_resume, run_script, stop_cleanly, wait_log, wait_status)
from srv_util import Server, tmpdir

ROWS, RATE = 24000, 4000


def main():
    tmp = tmpdir("srv-jobs-restart-")
    data, out_dir = os.path.join(tmp, "data"), os.path.join(tmp, "out")
    srv = Server(data, env=LOG_ENV)
    try:
        _, out, err = run_script(srv.port, gen_job(ROWS, RATE, out_dir, "restart-job", view=True))
        if "INSERT 0 0" not in out or 'job "restart-job" submitted' not in err:
            fail("the INSERT did not start a background job:\n%s\n%s" % (out, err))
        # psql has disconnected: the job runs on.
        wait_log(srv, 'job "restart-job" started in the background')
        time.sleep(1.5)
        if job_status(srv.port, "restart-job") != "RUNNING":
            fail("the job does not run after its client disconnected")
        stop_cleanly(srv)
        m = re.search(r'job "restart-job" stopped with savepoint (\S+)', srv.log())
        if not m or not os.path.isdir(m.group(1)):
            fail("no savepoint in the log:\n" + srv.log())
        mark = len(srv.log())
        srv.start()
        wait_log(srv, 'job "restart-job" resumes', start=mark)
        wait_log(srv, 'job "restart-job" resumes from checkpoint', start=mark)
        st = job_status(srv.port, "restart-job")
        if st not in ("RUNNING", "FINISHED"):
            fail("SHOW JOBS after the restart says %s" % st)
        if st == "FINISHED":
            print("warning: the job finished before SHOW JOBS looked")
        wait_status(srv.port, "restart-job", ("FINISHED",), timeout=120)
        wait_log(srv, 'job "restart-job" finished', start=mark)
        check_exactly_once(out_dir, ROWS)
        # A finished job is not started again.
        restart_without_resume(srv, {"restart-job": "FINISHED"})
    finally:
        srv.kill()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
