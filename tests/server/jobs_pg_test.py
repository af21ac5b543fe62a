"""server.jobs.pg_prep / server.jobs.pg_lr — datagen -> PostgreSQL
exactly-once through the server, with SIGKILL rounds of the server: each
start resumes the job by itself (same job name: its own checkpoints and
transaction ids), and psql (tests/postgres/pg_util, never Sluice) finds
every row exactly once and no prepared transaction left.

The job: a datagen sequence 1..N at parallelism 2, checkpoints every 300 ms,
into a table without key (a replayed row would show as a duplicate) through
the jdbc sink, exactly-once: on `pg` with two-phase commit (--which pg),
on `pg0` as the last resource (--which pg0). The server is SIGKILLed 8
times: every third kill at a checkpoint step (pg: after PREPARE, before the
decision; pg0: right after the decision, before _metadata), the others at
random moments. Then the job runs to its end.

Usage: jobs_pg_test.py --which pg|pg0 [--kills 8] [--rows N]"""
import argparse
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "postgres"))
import pg_eo_test  # noqa: E402
import pg_util  # noqa: E402
from jobs_util import (LOG_ENV, fail, kill_and_restart, run_script, stop_cleanly,  # noqa: E402
                       wait_checkpoint, wait_log, wait_status)
from srv_util import Server, tmpdir  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--which", choices=["pg", "pg0"], required=True)
    ap.add_argument("--kills", type=int, default=8)
    ap.add_argument("--rows", type=int, default=60000)
    ap.add_argument("--rate", type=int, default=2500)
    a = ap.parse_args()
    rnd = random.Random(int(os.environ.get("SLUICE_TEST_SEED", "13")))
    run = "srvjob_" + a.which
    step = "prepare" if a.which == "pg" else "decide"
    pg_eo_test.setup_tables(run, a.which)
    sql = ("SET 'parallelism.default' = '2';\n"
           "SET 'execution.checkpointing.interval' = '300 ms';\n"
           "SET 'pipeline.name' = '%s';\n" % run +
           "CREATE TABLE IF NOT EXISTS gen (id BIGINT) WITH ('connector' = 'datagen', "
           "'number-of-rows' = '%d', 'rows-per-second' = '%d', 'fields.id.kind' = 'sequence', "
           "'fields.id.start' = '1', 'fields.id.end' = '%d');\n" % (a.rows, a.rate, a.rows) +
           pg_eo_test.sink("ledger", run + "_ledger", a.which, "exactly-once") +
           "INSERT INTO ledger SELECT id, id %% %d, id * 7 %% 101 FROM gen;\n" % pg_eo_test.KEYS)
    tmp = tmpdir("srv-jobs-%s-" % a.which)
    srv = Server(os.path.join(tmp, "data"), env=LOG_ENV)
    try:
        run_script(srv.port, sql)
        wait_log(srv, 'job "%s" started in the background' % run)
        wait_checkpoint(srv.port, run, 2)  # something to resume from
        for k in range(a.kills):
            if k % 3 == 0:
                kill_and_restart(srv, run, pause=step)
            else:
                kill_and_restart(srv, run)
                time.sleep(rnd.uniform(0.3, 1.5))
        kill_and_restart(srv, run)
        wait_status(srv.port, run, ("FINISHED",), timeout=180)
        stop_cleanly(srv)
    finally:
        srv.kill()
    # The independent reader: psql.
    got = pg_util.query("SELECT id, k, amount FROM %s_ledger" % run,
                        port=pg_util.port_of(a.which))
    ledger, _ = pg_eo_test.reference(a.rows)
    seen, dups, wrong = {}, 0, 0
    for i, k, amt in got:
        i = int(i)
        dups += i in seen
        seen[i] = (int(k), int(amt))
        wrong += ledger.get(i) != seen[i]
    missing = len(set(ledger) - set(seen))
    if missing:
        print("missing ids:", sorted(set(ledger) - set(seen))[:20])
    print("%s: %d kills; ledger %d rows (%d duplicates, %d missing, %d wrong)"
          % (run, a.kills, len(got), dups, missing, wrong))
    if dups or missing or wrong:
        fail("not exactly-once")
    left = pg_util.prepared_xacts("sluice:" + run, port=pg_util.port_of(a.which))
    if left:
        fail("prepared transactions left: %s" % left)
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
