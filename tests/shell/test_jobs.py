#!/usr/bin/env python3
"""Tests of what the shell shows of jobs and of its script habits (issue 14,
"progress you can see"): -f interrupted by Ctrl-C, SHOW CREATE TABLE as
plain text that round-trips, SHOW JOBS / DESCRIBE JOB / DROP JOB, the status
line of a synchronous INSERT on a terminal.

Cases run as test_shell.py's do (its Sandbox, run, Pty and cases_main):
usage test_jobs.py --sluice PATH --case NAME. Python 3 standard library only.
"""
import json
import os
import re
import select
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_shell as ts  # noqa: E402
from test_shell import ENDLESS, check, committed_ids, no_sanitizer_report, run, sink_table  # noqa: E402


def wait_for(cond, what, timeout=ts.TIMEOUT):
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() >= deadline:
            raise ts.Failure("timed out waiting for " + what)
        time.sleep(0.05)  # polling a condition, bounded by the deadline


def case_script_sigint_exit_130(sb):
    """-f running an endless INSERT (synchronous in a script): Ctrl-C
    (SIGINT) stops the job with a savepoint, runs nothing more and exits
    130."""
    script = (ENDLESS + "\n" + sink_table(sb) + "\n"
              "SET 'execution.checkpointing.interval' = '200 ms';\n"
              "SET 'pipeline.name' = 'endless';\n"
              "INSERT INTO sink SELECT id FROM src;\n"
              "CREATE TABLE after_int (a INT) WITH ('connector' = 'blackhole');\n")
    path = sb.path("endless.sql", script)
    proc = subprocess.Popen([ts.SLUICE, "--data-dir", sb.data, "-f", path],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=sb.env(),
                            cwd=sb.dir)
    try:
        wait_for(lambda: committed_ids(os.path.join(sb.dir, "sink")), "a committed part file")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=ts.TIMEOUT)
        out, err = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    no_sanitizer_report(err)
    check(proc.returncode == 130, "exit status %s" % proc.returncode, out, err)
    m = re.search(r'job "endless" stopped with savepoint (\S+)', err + out)
    check(m and os.path.isfile(os.path.join(m.group(1), "_metadata")), "savepoint", out, err)
    with open(os.path.join(sb.data, "jobs", "endless", "_job.json"), encoding="utf-8") as f:
        rec = json.load(f)
    check(rec["status"] == "STOPPED", "the job stopped cleanly", rec)
    ids = committed_ids(os.path.join(sb.dir, "sink"))
    check(len(ids) == rec["rows_out"] and len(ids) == len(set(ids)),
          "every row out committed once", len(ids), rec)
    rc, out, err = run(sb, ["-e", "SHOW TABLES;"])
    check(rc == 0 and "after_int" not in out, "nothing ran after the interrupt", out, err)


def case_show_create_table_round_trip(sb):
    """SHOW CREATE TABLE prints the statement as plain text; pasted into
    another data directory it creates the same table (same SHOW CREATE
    TABLE, same DESCRIBE)."""
    ddl = ("CREATE TABLE clicks (\n"
           "  id BIGINT NOT NULL COMMENT 'it''s unique',\n"
           "  `user name` STRING,\n"
           "  amount DECIMAL(10, 2),\n"
           "  tags ARRAY<STRING>,\n"
           "  cost AS amount * 2,\n"
           "  ts TIMESTAMP(3),\n"
           "  PRIMARY KEY (id) NOT ENFORCED,\n"
           "  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND\n"
           ") COMMENT 'the clicks' WITH ('connector' = 'datagen', 'rows-per-second' = '5');")
    rc, out, err = run(sb, ["-e", ddl])
    check(rc == 0, "create", out, err)
    rc, shown, err = run(sb, ["-e", "SHOW CREATE TABLE clicks;"])
    check(rc == 0 and err == "", "show create", shown, err)
    check(shown.startswith("CREATE TABLE `clicks` (\n") and shown.endswith(";\n\n"),
          "plain text ending in ';' and an empty line", shown)
    check("|" not in shown and "+--" not in shown and "row in set" not in shown,
          "no table around it", shown)
    rc, desc1, err = run(sb, ["-e", "DESCRIBE clicks;"])
    other = os.path.join(sb.dir, "other")
    rc, out, err = run(sb, ["--data-dir", other, "-e", shown], data_dir=False)
    check(rc == 0 and out.strip() == "CREATE TABLE", "pasted back", shown, out, err)
    rc, shown2, err = run(sb, ["--data-dir", other, "-e", "SHOW CREATE TABLE clicks;"],
                          data_dir=False)
    check(shown2 == shown, "the same statement again", shown, shown2)
    rc, desc2, err = run(sb, ["--data-dir", other, "-e", "DESCRIBE clicks;"], data_dir=False)
    check(desc1 == desc2 and "it's unique" in desc1, "the same table", desc1, desc2)


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    sys.exit(ts.cases_main(CASES))
