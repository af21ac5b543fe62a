"""server.jobs.resume_fail — a job that cannot resume fails, says why in
the log (with its SQLSTATE), is not tried again at the next start, and the
server serves on.

1. The catalog changed under a running job: its source table is dropped
   (DROP TABLE over psql while the job runs on its own snapshot), then the
   server is killed (SIGKILL). At the next start the job cannot be planned
   again: "could not resume" with 42P01 in the log, SHOW JOBS says FAILED.
2. The job's output directory is replaced by a file while the server is
   down (SIGTERM: the job stopped with a savepoint). At the next start the
   job resumes, and fails writing: "failed: ... (SQLSTATE ...)" in the log,
   SHOW JOBS says FAILED.
A further start tries neither again, and psql's queries are answered."""
import os
import shutil
import sys
import time

from jobs_util import (LOG_ENV, fail, gen_job, job_status, restart_without_resume, run_script,
                       stop_cleanly, wait_checkpoint, wait_log, wait_status)
from srv_util import Server, psql, tmpdir


def main():
    tmp = tmpdir("srv-jobs-resume-fail-")
    data = os.path.join(tmp, "data")
    out1, out2 = os.path.join(tmp, "out1"), os.path.join(tmp, "out2")
    srv = Server(data, env=LOG_ENV)
    try:
        run_script(srv.port, gen_job(10 ** 9, 2000, out1, "dropped-source", table="out1")
                   .replace(" gen", " gen1"))
        run_script(srv.port, gen_job(10 ** 9, 2000, out2, "gone-output", table="out2"))
        wait_log(srv, 'job "dropped-source" started in the background')
        wait_log(srv, 'job "gone-output" started in the background')
        time.sleep(1.0)
        rc, out, err = psql(srv.port, "DROP TABLE gen1")
        if rc != 0:
            fail("DROP TABLE failed: %s" % err)
        if job_status(srv.port, "dropped-source") != "RUNNING":
            fail("the job stopped when its source table was dropped")
        # 1: killed with the job running, gone-output after a checkpoint (the
        # one it must resume from).
        wait_checkpoint(srv.port, "gone-output", 1)
        srv.kill()
        mark = len(srv.log())
        srv.start()
        wait_log(srv, 'job "dropped-source" could not resume', start=mark)
        line = [l for l in srv.log()[mark:].splitlines() if "could not resume" in l][0]
        print("logged: " + line)
        if "gen1" not in line or "42P01" not in line:
            fail("the log does not say why: " + line)
        if job_status(srv.port, "dropped-source") != "FAILED":
            fail("the job that could not resume is not FAILED")
        wait_log(srv, 'job "gone-output" resumes from checkpoint', start=mark)
        # 2: stopped with a savepoint; its output directory is replaced by a file.
        stop_cleanly(srv)
        shutil.rmtree(out2)
        with open(out2, "w") as f:
            f.write("not a directory\n")
        mark = len(srv.log())
        srv.start()
        wait_status(srv.port, "gone-output", ("FAILED",), timeout=60)
        wait_log(srv, 'job "gone-output" failed', start=mark)
        line = [l for l in srv.log()[mark:].splitlines() if 'job "gone-output" failed' in l][0]
        print("logged: " + line)
        if "SQLSTATE" not in line:
            fail("the failure is logged without its SQLSTATE: " + line)
        # Neither is tried again; the server answers.
        restart_without_resume(srv, {"dropped-source": "FAILED", "gone-output": "FAILED"})
    finally:
        srv.kill()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
