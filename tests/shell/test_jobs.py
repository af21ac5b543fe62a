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


def tables(out):
    """The bordered tables of out, each a list of rows of stripped cells (the
    header row first), parsed independently of the shell."""
    result, cur = [], None
    for line in out.splitlines():
        if line.startswith("+-"):
            if cur is None:
                cur = []
            continue
        if line.startswith("| ") and cur is not None:
            cur.append([c.strip() for c in line[2:-2].split(" | ")])
            continue
        if cur is not None:
            result.append(cur)
            cur = None
    if cur is not None:
        result.append(cur)
    return result


def props(table):
    """A DESCRIBE JOB table as a dict; continuation lines joined by newlines."""
    d, last = {}, None
    for k, v in table[1:]:
        if k:
            d[k], last = v, k
        else:
            d[last] += "\n" + v
    return d


def record(sb, name):
    path = os.path.join(sb.data, "jobs", name, "_job.json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def chk_dirs(sb, name):
    d = os.path.join(sb.data, "jobs", name)
    return sorted(e for e in os.listdir(d) if e.startswith("chk-")) if os.path.isdir(d) else []


def du(path):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(path) for f in fs)


NUMS = ("CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '300', "
        "'rows-per-second' = '1000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
        "'fields.id.end' = '300');")


def case_describe_and_show_jobs(sb):
    """DESCRIBE JOB shows a finished and a failed job in full; SHOW JOBS has
    the new columns with numbers right-aligned; figures checked against the
    sink's files and the checkpoint directory."""
    script = "\n".join([
        NUMS, sink_table(sb), sink_table(sb, "bad"),
        "SET 'execution.checkpointing.interval' = '100 ms';",
        "SET 'pipeline.name' = 'good';",
        "INSERT INTO sink SELECT id FROM nums;",
        "SET 'pipeline.name' = 'broken';",
        "INSERT INTO bad SELECT 10 / (id - 250) FROM nums;"])
    rc, out, err = run(sb, ["--continue-on-error", "-e", script])
    check(rc == 1 and "SQLSTATE: 22012" in err, "the broken job fails", out, err)
    rc, out, err = run(sb, ["-e", "SHOW JOBS; DESCRIBE JOB 'good'; SHOW JOB 'broken';"])
    no_sanitizer_report(err)
    check(rc == 0, "show", out, err)
    jobs, good, broken = tables(out)
    head = jobs[0]
    for col in ("started", "uptime", "rows/s", "last checkpoint at", "failure"):
        check(col in head, "SHOW JOBS has %r" % col, head)
    rows = {r[0]: dict(zip(head, r)) for r in jobs[1:]}
    ids = committed_ids(os.path.join(sb.dir, "sink"))
    check(sorted(ids) == list(range(1, 301)), "the sink holds every row once")
    check(rows["good"]["rows out"] == "300" and rows["good"]["failure"] == "<NULL>",
          "good's row", rows)
    check(rows["broken"]["status"] == "FAILED" and
          rows["broken"]["failure"] == "22012: division by zero", "broken's failure", rows)
    check(re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$", rows["good"]["started"]),
          "start time", rows)
    # Numbers right-aligned: the cell's text ends at the column's right edge.
    line = next(l for l in out.splitlines() if l.startswith("| good "))
    cells = line[1:-1].split("|")
    i = head.index("rows out")
    check(cells[i].endswith(" 300 ") and cells[i].startswith("  "), "right-aligned", line)
    check(cells[0].startswith(" good "), "names left-aligned", line)
    g = props(good)
    rec = record(sb, "good")
    check(g["status"] == "FINISHED" and g["rows out"] == "300" and g["rows in"] == "300",
          "good's counters", g)
    check(g["statement"] == "INSERT INTO sink SELECT id FROM nums", "statement", g)
    check("Sink: sink" in g["plan"] and g["guarantee"] == "exactly-once", "plan", g)
    last = int(g["last checkpoint"])
    check(last == rec["last_checkpoint"], "last checkpoint", g, rec)
    m = re.match(r"at \S+ \S+, took (\d+) ms, (\d+) bytes$", g.get("checkpoint %d" % last, ""))
    check(m, "the newest checkpoint in the history", g)
    size = du(os.path.join(sb.data, "jobs", "good", "chk-%d" % last))
    check(int(m.group(2)) == size, "its size is what is on disk", m.group(2), size)
    b = props(broken)
    check(b["status"] == "FAILED" and b["failure"] == "22012: division by zero", "failure", b)
    rc, out, err = run(sb, ["-e", "DESCRIBE JOB 'nope';"])
    check(rc == 1 and "SQLSTATE: 42704" in err and 'job "nope" does not exist' in err,
          "unknown job", err)


def case_drop_job(sb):
    """DROP JOB: a stopped or finished job's checkpoints go (savepoints only
    WITH SAVEPOINTS); a running job is refused (55006), an unknown one 42704,
    a failed exactly-once one 55000; an exactly-once job's name stays taken
    so that its sink is never written over."""
    script = "\n".join([
        NUMS, ENDLESS, sink_table(sb), sink_table(sb, "bad"),
        "CREATE TABLE bh (id BIGINT) WITH ('connector' = 'blackhole');",
        "SET 'execution.checkpointing.interval' = '100 ms';",
        "SET 'pipeline.name' = 'fin';",
        "INSERT INTO sink SELECT id FROM nums;",
        "SET 'pipeline.name' = 'plain';",
        "INSERT INTO bh SELECT id FROM nums;",
        "SET 'pipeline.name' = 'broken';",
        "INSERT INTO bad SELECT 10 / (id - 250) FROM nums;",
        "SET 'table.dml-sync' = 'false';",
        "SET 'pipeline.name' = 'endless';",
        "INSERT INTO bh SELECT id FROM src;",
        "DROP JOB 'endless';",
        "STOP JOB 'endless' WITH SAVEPOINT;"])
    rc, out, err = run(sb, ["--continue-on-error", "-e", script])
    no_sanitizer_report(err)
    check("ERROR:  job \"endless\" is running" in err and "SQLSTATE: 55006" in err,
          "a running job is refused", err)
    check(chk_dirs(sb, "endless") and chk_dirs(sb, "fin") and chk_dirs(sb, "plain"),
          "checkpoints before", chk_dirs(sb, "fin"))
    before = sorted(committed_ids(os.path.join(sb.dir, "sink")))
    check(before == list(range(1, 301)), "fin's output")
    rc, out, err = run(sb, ["--continue-on-error", "-e",
                            "DROP JOB 'plain'; DROP JOB 'fin'; DROP JOB 'broken'; "
                            "DROP JOB 'endless'; DROP JOB 'nope'; SHOW JOBS;"])
    no_sanitizer_report(err)
    check(out.count("DROP JOB\n") == 3, "three dropped", out, err)
    check(not os.path.exists(os.path.join(sb.data, "jobs", "plain")), "plain's directory gone")
    check(chk_dirs(sb, "fin") == [], "fin's checkpoints gone", chk_dirs(sb, "fin"))
    check(record(sb, "fin")["status"] == "DROPPED", "fin's tombstone")
    check('job "broken" failed: its exactly-once output may not be committed yet' in err and
          "SQLSTATE: 55000" in err, "a failed exactly-once job is refused", err)
    check(chk_dirs(sb, "broken"), "broken's checkpoints kept")
    sp = chk_dirs(sb, "endless")
    check(len(sp) == 1 and 'its 1 savepoint is kept' in err, "the savepoint stays", sp, err)
    with open(os.path.join(sb.data, "jobs", "endless", sp[0], "_metadata"), encoding="utf-8") as f:
        check(json.load(f)["savepoint"] is True, "what stays is the savepoint")
    check('job "nope" does not exist' in err and "SQLSTATE: 42704" in err, "unknown", err)
    names = [r[0] for r in tables(out)[0][1:]]
    check(names == ["broken"], "SHOW JOBS lists what is left", out)
    # The name of a dropped exactly-once job stays taken: its part files stay whole.
    rc, out, err = run(sb, ["-e", "SET 'pipeline.name' = 'fin'; INSERT INTO sink SELECT id FROM nums;"])
    check(rc == 1 and 'job name "fin" belongs to a dropped job' in err and "SQLSTATE: 55000" in err,
          "refused", out, err)
    check(sorted(committed_ids(os.path.join(sb.dir, "sink"))) == before, "sink untouched")
    rc, out, err = run(sb, ["-e", "DROP JOB 'endless' WITH SAVEPOINTS; DROP JOB 'fin';"])
    check(rc == 1 and chk_dirs(sb, "endless") == [] and "SQLSTATE: 42704" in err,
          "a dropped job is gone", out, err)
    # 'plain' (no exactly-once sink, no savepoint) is free again.
    rc, out, err = run(sb, ["-e", "SET 'pipeline.name' = 'plain'; INSERT INTO bh SELECT id FROM nums;"])
    check(rc == 0 and "INSERT 0 300" in out, "plain runs again", out, err)


def case_repl_status_line(sb):
    """A synchronous INSERT in the REPL shows a status line on the terminal,
    redrawn in place while it runs and erased before its result; a script
    (stderr not a terminal) never shows it."""
    slow = ("CREATE TABLE slow (id BIGINT) WITH ('connector' = 'datagen', "
            "'number-of-rows' = '40', 'rows-per-second' = '10', 'fields.id.kind' = 'sequence', "
            "'fields.id.start' = '1', 'fields.id.end' = '40');")
    setup = [slow, sink_table(sb), "SET 'execution.checkpointing.interval' = '300 ms';",
             "SET 'table.dml-sync' = 'true';", "SET 'pipeline.name' = 'slow';"]
    p = ts.repl(sb)
    try:
        for stmt in setup:
            p.send(stmt + "\n")
            p.expect(ts.PROMPT)
        start = len(p.buf)
        p.send("INSERT INTO sink SELECT id FROM slow;\n")
        p.expect(b"INSERT 0 40")
        p.expect(ts.PROMPT)
        seen = p.buf[start:]
        ts.quit_ok(p)
    finally:
        p.kill()
    text = seen.decode("utf-8", "replace")
    lines = re.findall(r'\r\x1b\[Kjob "slow": (\d+) rows in, (\d+) out, [\d.]+ rows/s, '
                       r'(no checkpoint yet|checkpoint \d+ \(\d+s ago\)), 0 late, 0 skipped', text)
    check(len(lines) >= 3, "redrawn several times", text)
    ins = [int(a) for a, _, _ in lines]
    check(ins == sorted(ins) and ins[-1] <= 40, "rows in grow", ins)
    check(any(c.startswith("checkpoint") for _, _, c in lines), "a checkpoint shown", text)
    last = text.rfind('job "slow":')
    erase = text.find("\r\x1b[K", last)
    check(0 <= erase < text.find("INSERT 0 40"), "erased before the result", text)
    check(sorted(committed_ids(os.path.join(sb.dir, "sink"))) == list(range(1, 41)), "the rows")
    # A script: no status line (stderr is a pipe), same rows.
    rc, out, err = run(sb, ["-e", "SET 'pipeline.name' = 'slow2'; SET 'execution.checkpointing.interval' = '300 ms'; "
                            "INSERT INTO sink SELECT id FROM slow;"])
    check(rc == 0 and "rows/s" not in err + out and "\x1b" not in err + out, "no status line", out, err)


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    sys.exit(ts.cases_main(CASES))
