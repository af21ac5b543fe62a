"""server.jobs.kill — SIGKILL of the server at random moments, then a start,
several rounds: each start resumes the job by itself from its newest
decided checkpoint, and the output stays exactly-once.

An exactly-once datagen -> filesystem job is started over psql; the server
is then killed (SIGKILL) after a random life, 10 times, each start resuming
the job (its record still says RUNNING). Then the job runs to its end and
the committed files, read here, must hold the reference computed here
exactly once. SHOW JOBS (psql) counts the restarts: at least one, at most
one per kill.

Usage: jobs_kill_test.py [--kills 10] [--seed N]"""
import argparse
import os
import random
import sys
import time

from jobs_util import (LOG_ENV, check_exactly_once, fail, gen_job, run_script, show_jobs,
                       stop_cleanly, wait_log, wait_status)
from srv_util import Server, tmpdir

ROWS, RATE = 40000, 4000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kills", type=int, default=10)
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rnd = random.Random(seed)
    tmp = tmpdir("srv-jobs-kill-")
    data, out_dir = os.path.join(tmp, "data"), os.path.join(tmp, "out")
    print("jobs_kill_test: seed %d, work dir %s" % (seed, tmp))
    srv = Server(data, env=LOG_ENV)
    try:
        run_script(srv.port, gen_job(ROWS, RATE, out_dir, "kill-job"))
        wait_log(srv, 'job "kill-job" started in the background')
        resumed = 0
        for k in range(a.kills):
            time.sleep(rnd.uniform(0.2, 0.9))
            srv.kill()
            mark = len(srv.log())
            srv.start()
            # Each start resumes it (unless the job had already finished).
            wait_log(srv, 'job "kill-job" resumes', start=mark, timeout=30)
            resumed += 1
        wait_status(srv.port, "kill-job", ("FINISHED",), timeout=120)
        check_exactly_once(out_dir, ROWS)
        cells = show_jobs(srv.port)["kill-job"]
        print("SHOW JOBS: %s" % cells)
        restarts = int(cells[9]) if cells[9].isdigit() else -1
        if not 1 <= restarts <= a.kills:
            fail("SHOW JOBS should count 1..%d restarts, not %s" % (a.kills, cells[9]))
        stop_cleanly(srv)
        print("%d kills, %d resumes" % (a.kills, resumed))
    except SystemExit:
        print("jobs_kill_test: kept %s (seed %d)" % (tmp, seed))
        raise
    finally:
        srv.kill()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
