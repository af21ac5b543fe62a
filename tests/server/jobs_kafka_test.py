"""server.jobs.kafka — Kafka -> Kafka exactly-once through the server,
with SIGKILL rounds of the server: each start resumes the job by itself
(same job name: its own checkpoints and transactional ids), and a
read_committed kcat sees every input record exactly once.

The input and the reference come from tests/kafka/kafka_eo_test.py: click
records produced in batches into a 3-partition topic while the job runs.
The job (parallelism 2, checkpoints every 300 ms) is started over psql. The
server is SIGKILLed 8 times: every third kill right after a checkpoint's
transaction committed and before its _metadata was written
(SLUICE_TEST_PAUSE=decide: the next start must resume from the checkpoint
the transaction decided); every third one after the sinks flushed the first
checkpoint of a start and before it was decided (SLUICE_TEST_PAUSE=
pre-commit: that checkpoint carries the backlog of the start's downtime, so
its transactions hold records, which the next start aborts); the others at
random moments. A read_uncommitted reader must see more records than the
read_committed one (the aborted transactions' records): proof that the check
could see duplicates.

Usage: jobs_kafka_test.py --topic-tool PATH [--kills 8]"""
import argparse
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kafka"))
import kafka_eo_test  # noqa: E402
import kafka_util  # noqa: E402
from jobs_util import (LOG_ENV, fail, job_status, kill_and_restart, run_script,  # noqa: E402
                       stop_cleanly, wait_log)
from srv_util import Server, tmpdir  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--topic-tool", required=True)
    ap.add_argument("--kills", type=int, default=8)
    a = ap.parse_args()
    rnd = random.Random(int(os.environ.get("SLUICE_TEST_SEED", "7")))
    run = "srvjob-%d-%d" % (os.getpid(), int(time.time()) % 100000)
    src, dst = run + "-in", run + "-out"
    kafka_util.create_topic(a.topic_tool, src, kafka_eo_test.PARTITIONS)
    kafka_util.create_topic(a.topic_tool, dst, 3)
    n = 30
    producer = kafka_eo_test.Producer(src, n, flush=False)
    producer.start()
    broker = kafka_util.BROKER
    sql = ("SET 'parallelism.default' = '2';\n"
           "SET 'execution.checkpointing.interval' = '300 ms';\n"
           "SET 'pipeline.name' = '%s';\n" % run +
           kafka_eo_test.table_sql(run, src, broker) +
           kafka_eo_test.sink_sql("copy", "event_id BIGINT, campaign STRING, amount DECIMAL(10, 2)",
                                  dst, broker, "exactly-once", run + "-") +
           "INSERT INTO copy SELECT event_id, campaign, amount FROM clicks;\n")
    tmp = tmpdir("srv-jobs-kafka-")
    srv = Server(os.path.join(tmp, "data"), env=LOG_ENV)
    try:
        run_script(srv.port, sql)
        wait_log(srv, 'job "%s" started in the background' % run)
        wait_log(srv, "kafka: checkpoint 2 committed")  # something to resume from
        decided = flushed = 0
        for k in range(a.kills):
            if k % 3 == 0:
                # The next kill comes right after a transaction decided a checkpoint.
                kill_and_restart(srv, run, pause="decide")
                decided += 1
            elif k % 3 == 1:
                # The next kill comes with a flushed, undecided transaction
                # (while the producer still runs: the first rounds).
                kill_and_restart(srv, run, pause="pre-commit")
                flushed += 1
            else:
                kill_and_restart(srv, run)
                time.sleep(rnd.uniform(0.5, 2.5))
        kill_and_restart(srv, run)
        if job_status(srv.port, run) != "RUNNING":
            fail("SHOW JOBS does not show the resumed job RUNNING")
        producer.join(timeout=kafka_eo_test.DEADLINE_S)
        want = kafka_eo_test.passthrough_reference(n)
        end = time.monotonic() + kafka_eo_test.DEADLINE_S
        got = None
        while time.monotonic() < end:
            got = kafka_eo_test.read_passthrough(dst)
            if all(got[k] >= want[k] for k in want):
                break
            time.sleep(1.0)
        stop_cleanly(srv)
        got = kafka_eo_test.read_passthrough(dst)
        missing, extra, dups = kafka_util.compare(got, want, "server kafka (read_committed)")
        print("kills: %d (%d right after a decision, %d before one)" % (a.kills, decided, flushed))
        if missing or extra or dups:
            fail("not exactly-once: %d missing, %d foreign, %d doubled"
                 % (len(missing), len(extra), dups))
        raw = len(kafka_util.consume(dst, "read_uncommitted"))
        print("read_uncommitted: %d records (read_committed: %d)" % (raw, sum(got.values())))
        if raw <= sum(got.values()):
            fail("a read_uncommitted reader saw no aborted records: this run proves nothing")
    finally:
        srv.kill()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
