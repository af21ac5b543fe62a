#!/usr/bin/env python3
"""server.shellclient.* — the `sluice` shell as a client of `sluice serve`.

Each case starts its own server (srv_util.Server: a free port, its own data
directory). The remote shell's output is compared byte for byte with the
local shell's on an equivalent data directory (the same formats: tables,
alignment, values, error blocks with their caret), and what it did on the
server is checked through psql (the independent reader). The REPL runs on a
pseudo-terminal with the helpers of tests/shell/test_shell.py.

Usage: shellclient_test.py --case NAME ("all" runs every case; --list prints
the case names). SLUICE_BIN names the binary. Standard library only.
"""
import os
import re
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "shell"))

import srv_util  # noqa: E402
from srv_util import Server, free_port, psql  # noqa: E402
import test_shell as ts  # noqa: E402
from test_shell import PROMPT, RE_ROWS, caret_under, check, quit_ok, repl  # noqa: E402

# Bounded, deterministic (sequence fields only, parallelism 1) source.
CREATE = ("CREATE TABLE t (a INT, b BIGINT, `é` STRING) WITH ('connector' = 'datagen', "
          "'number-of-rows' = '5', 'fields.a.kind' = 'sequence', 'fields.a.start' = '1', "
          "'fields.a.end' = '5', 'fields.b.kind' = 'sequence', 'fields.b.start' = '-2', "
          "'fields.b.end' = '2', 'fields.é.length' = '3');")
# Every kind of column the table printer treats differently: numbers
# (right-aligned), text with wide characters, booleans, NULL, dates/times.
SERIAL = "SET 'parallelism.default' = '1'; "  # rows in the source's order
QUERY = (SERIAL + "SELECT a, b * 1000000 AS big, CAST(a AS DECIMAL(10, 2)) / 4 AS d, "
         "CAST(b AS DOUBLE) / 3 AS f, a > 2 AS gt, "
         "CASE WHEN a = 3 THEN NULL ELSE CONCAT('値', CAST(a AS STRING)) END AS s, "
         "DATE '2024-02-29' AS dt, TIMESTAMP '2024-01-01 12:34:56.5' AS ts FROM t;")
# Every type whose PostgreSQL text differs from the engine's: the remote
# shell must print the engine's (sluice.result_format = engine), a plain
# PostgreSQL client gets PostgreSQL's.
TYPES = ("SELECT CAST(1e20 AS DOUBLE) AS dbl, CAST(-0.1 AS FLOAT) AS flt, "
         "CAST(TIMESTAMP '2024-01-01 12:34:56.5' AS TIMESTAMP(3)) AS ts3, "
         "CAST(TIMESTAMP '2024-07-01 12:00:00' AS TIMESTAMP_LTZ(3)) AS ltz, "
         "INTERVAL '1 02:03:04.5' DAY TO SECOND AS iv, INTERVAL '1-2' YEAR TO MONTH AS ym, "
         "CAST(1.5 AS DECIMAL(10, 2)) AS dec, CAST('é!' AS BYTES) AS byt, "
         "TRUE AS yes, FALSE AS no, TIME '01:02:03' AS tm")
ENGINE_TYPES = ("1.0E20|-0.1|2024-01-01 12:34:56.500|2024-07-01 12:00:00.000|+1 02:03:04.500|"
                "+1-02|1.50|x'c3a921'|TRUE|FALSE|01:02:03")
PG_TYPES = ("1e+20|-0.1|2024-01-01 12:34:56.5|2024-07-01 12:00:00+02|1 day 02:03:04.5|"
            "1 year 2 mons|1.50|\\xc3a921|t|f|01:02:03")


def remote_args(port):
    return ["-h", "127.0.0.1", "-p", str(port)]


def shell_env(sb):
    """The shell's environment (leak checks on), without libpq variables."""
    env = sb.env()
    for k in ("PGHOST", "PGPORT", "PGDATABASE", "PGUSER", "PGSERVICE", "PGOPTIONS"):
        env.pop(k, None)
    return env


def run_remote(sb, port, args, stdin=b""):
    return ts.run(sb, remote_args(port) + args, stdin=stdin, data_dir=False, env=shell_env(sb))


def run_local(sb, args, stdin=b""):
    return ts.run(sb, args, stdin=stdin, env=shell_env(sb))


def new_server(sb):
    return Server(os.path.join(sb.dir, "served"))


# ---------------------------------------------------------------------------
# Cases.

def case_same_output(sb):
    """-e and -f through a server print exactly what the local shell prints
    (tables, command tags, a notice, an error block with its caret after a
    multi-byte identifier, script-name prefixes); exit codes match too."""
    script = sb.path("job.sql", CREATE + "\nSHOW TABLES;\n" + QUERY + "\n"
                     "  DROP TABLE IF EXISTS nope;\nSELECT `é`, nope\n  FROM t;\n")
    with new_server(sb) as srv:
        r_e = run_remote(sb, srv.port, ["-e", CREATE + " SHOW TABLES; " + QUERY])
        l_e = run_local(sb, ["-e", CREATE + " SHOW TABLES; " + QUERY])
        check(r_e[0] == 0 and l_e[0] == 0, "-e succeeds both ways", r_e, l_e)
        check(r_e[1] == l_e[1], "-e output differs from the local shell's", r_e[1], l_e[1])
        check("5 rows in set" in r_e[1] and "<NULL>" in r_e[1] and "TRUE" in r_e[1],
              "the query's table", r_e[1])
        # Floats, timestamps, intervals, bytes ...: the engine's text remotely.
        types = ("SET 'table.local-time-zone' = 'Europe/Berlin'; SHOW sluice.result_format; " +
                 TYPES + ";")
        r_t = run_remote(sb, srv.port, ["-e", types])
        l_t = run_local(sb, ["-e", types])
        check(r_t[0] == 0 and l_t[0] == 0, "the types' query succeeds both ways", r_t, l_t)
        check(r_t[1] == l_t[1].replace("| postgres ", "| engine   "),
              "types' output differs from the local shell's", r_t[1], l_t[1])
        for v in ENGINE_TYPES.split("|"):
            check("| %s |" % v in r_t[1], "the engine's text of a value: " + v, r_t[1])
        # A plain PostgreSQL client gets PostgreSQL's text on the same server;
        # with the parameter, the engine's.
        pg_types = "SET TIME ZONE 'Europe/Berlin'; " + TYPES
        rc, out, err = psql(srv.port, pg_types, "-A", "-t")
        check(rc == 0 and out.split("\n")[1] == PG_TYPES, "psql gets PostgreSQL's text", rc, out, err)
        rc, out, err = psql(srv.port, pg_types, "-A", "-t",
                            env={"PGOPTIONS": "-c sluice.result_format=engine"})
        check(rc == 0 and out.split("\n")[1] == ENGINE_TYPES, "psql asks for the engine's text", rc, out,
              err)
        rc, out, err = psql(srv.port, "SET sluice.result_format = engine; SHOW sluice.result_format; "
                            "RESET sluice.result_format; SELECT TRUE, CAST(1e20 AS DOUBLE)",
                            "-A", "-t")
        check(rc == 0 and out.split() == ["SET", "engine", "RESET", "t|1e+20"], "SET, SHOW, RESET", rc, out, err)
        # A connection string whose options replace the shell's: it SETs it.
        rc, out, err = ts.run(sb, ["-d", "host=127.0.0.1 port=%d options='-c DateStyle=ISO'"
                                   % srv.port, "-e", TYPES + ";"], data_dir=False,
                              env=shell_env(sb))
        check(rc == 0 and "| 1.0E20 |" in out and "| TRUE |" in out and "x'c3a921'" in out,
              "-d with options of its own", rc, out, err)
        # A fresh data directory for each side of -f.
        rc, out, err = psql(srv.port, "DROP TABLE t")
        check(rc == 0, "psql drops t", out, err)
        ts.run(sb, ["-e", "DROP TABLE t;"], env=shell_env(sb))
        r_f = run_remote(sb, srv.port, ["-f", script])
        l_f = run_local(sb, ["-f", script])
        check(r_f[0] == 1 and l_f[0] == 1, "a failing statement exits 1 both ways", r_f, l_f)
        check(r_f[1] == l_f[1], "-f output differs", r_f[1], l_f[1])
        check(r_f[2] == l_f[2], "-f error block differs", r_f[2], l_f[2])
        check(r_f[2].startswith("%s:4:3: NOTICE:  " % script), "the notice, prefixed", r_f[2])
        check("%s:5:" % script in r_f[2] and 'column "nope" does not exist' in r_f[2],
              "error with the script's line", r_f[2])
        caret_under(r_f[2], "nope")
        # The same through -e: no prefix, caret after the multi-byte name.
        rc, out, err = run_remote(sb, srv.port, ["-e", "SELECT `é`, nope FROM t;"])
        check(rc == 1 and 'column "nope" does not exist' in err and "SQLSTATE: 42703" in err,
              "error through -e", rc, out, err)
        caret_under(err, "nope")
        # What the remote shell created is on the server (psql reads it).
        rc, out, err = psql(srv.port, "SELECT a FROM t", "-A", "-t")
        check(rc == 0 and sorted(int(x) for x in out.split()) == [1, 2, 3, 4, 5],
              "psql reads the table the shell created", rc, out, err)
        # Standard input as a script, through the server.
        rc, out, err = run_remote(sb, srv.port, [], stdin=b"SHOW TABLES;\n")
        check(rc == 0 and "| t " in out, "stdin script", rc, out, err)
        ts.no_sanitizer_report(err)


def case_exit_codes(sb):
    """Connection refused: exit 2 with libpq's message. A failing statement
    stops the script (exit 1); --continue-on-error runs the rest."""
    port = free_port()
    rc, out, err = run_remote(sb, port, ["-e", "SHOW TABLES;"])
    check(rc == 2 and out == "" and "Connection refused" in err and str(port) in err,
          "connection refused", rc, out, err)
    with new_server(sb) as srv:
        rc, out, err = run_remote(sb, srv.port, ["-e", "SELECT * FROM nope; SHOW TABLES;"])
        check(rc == 1 and "Empty set" not in out and "SQLSTATE: 42P01" in err,
              "stops at the failure", rc, out, err)
        rc, out, err = run_remote(sb, srv.port, ["--continue-on-error", "-e",
                                                 "SELECT * FROM nope; SHOW TABLES;"])
        check(rc == 1 and "Empty set" in out, "--continue-on-error", rc, out, err)
        rc, out, err = ts.run(sb, remote_args(srv.port) + ["-D", sb.data, "-e", "SHOW TABLES;"],
                              data_dir=False, env=shell_env(sb))
        check(rc == 2 and "--data-dir" in err, "-D with -h is a usage error", rc, out, err)
        ts.no_sanitizer_report(err)


def case_script_cancel(sb):
    """SIGINT to a script streaming an endless SELECT from a server cancels
    it there (57014), runs nothing more and exits 130 (Ctrl-C); the server
    serves on."""
    with new_server(sb) as srv:
        rc, out, err = psql(srv.port, "CREATE TABLE endless (id BIGINT) WITH ("
                            "'connector' = 'datagen', 'rows-per-second' = '5000')")
        check(rc == 0, "psql creates the endless source", out, err)
        proc = subprocess.Popen([ts.SLUICE] + remote_args(srv.port) +
                                ["-e", "SELECT id FROM endless; SHOW TABLES;"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=shell_env(sb))
        try:
            for _ in range(5000):  # the header, then rows as they stream
                line = proc.stdout.readline()
                if not line:
                    check(False, "output ended before rows streamed", proc.stderr.read())
                if re.match(rb"\| +-?\d+ \|", line):
                    break
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=ts.TIMEOUT)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        err = err.decode("utf-8", "replace")
        check(proc.returncode == 130 and "canceling statement due to user request" in err and
              "SQLSTATE: 57014" in err, "cancelled", proc.returncode, err)
        check(b"table name" not in out, "nothing ran after it", out[-300:])
        rc, out, err = psql(srv.port, "SHOW TABLES", "-A", "-t")
        check(rc == 0 and out.split() == ["endless"], "the server serves on", rc, out, err)
        ts.no_sanitizer_report(err)


def case_libpq_options(sb):
    """Where to connect comes from libpq as psql users expect: PGHOST/PGPORT
    with only -U given, and -d as a connection string."""
    with new_server(sb) as srv:
        env = shell_env(sb)
        env.update(PGHOST="127.0.0.1", PGPORT=str(srv.port))
        rc, out, err = ts.run(sb, ["-U", "someone", "-e", "SHOW TABLES;"], data_dir=False, env=env)
        check(rc == 0 and "Empty set" in out, "PGHOST/PGPORT", rc, out, err)
        rc, out, err = ts.run(sb, ["-d", "host=127.0.0.1 port=%d user=someone" % srv.port,
                                   "-e", "SHOW TABLES;"], data_dir=False, env=shell_env(sb))
        check(rc == 0 and "Empty set" in out, "-d conninfo", rc, out, err)
        rc, out, err = ts.run(sb, ["-d", "postgresql://127.0.0.1:%d/db" % srv.port,
                                   "-e", "SHOW TABLES;"], data_dir=False, env=shell_env(sb))
        check(rc == 0 and "Empty set" in out, "-d URI", rc, out, err)
        # PGHOST alone does not turn the local shell into a client.
        rc, out, err = ts.run(sb, ["-e", "SHOW TABLES;"], env=env)
        check(rc == 0 and os.path.isdir(sb.data), "local despite PGHOST", rc, out, err)
        ts.no_sanitizer_report(err)


def case_attach(sb):
    """A shell given the data directory a running server holds works through
    that server (a notice says so); once the server stopped, the directory
    opens locally again."""
    with new_server(sb) as srv:
        data = srv.data_dir
        rc, out, err = ts.run(sb, ["-D", data, "-e", CREATE + " SHOW JOBS;"], data_dir=False,
                              env=shell_env(sb))
        want = "NOTICE:  connected to the server at 127.0.0.1:%d (it holds %s)" % (srv.port, data)
        check(rc == 0 and want in err, "attach notice", rc, out, err)
        check("CREATE TABLE" in out, "statements ran", out)
        rc, out, err = psql(srv.port, "SHOW TABLES", "-A", "-t")
        check(rc == 0 and out.split() == ["t"], "the server has the table", rc, out, err)
        check(srv.stop() == 0, "server stops", srv.log())
    check(not os.path.exists(os.path.join(data, "SLUICE.server")), "address file removed")
    rc, out, err = ts.run(sb, ["-D", data, "-e", "SHOW TABLES;"], data_dir=False, env=shell_env(sb))
    check(rc == 0 and "connected" not in err and "| t " in out, "local again", rc, out, err)
    ts.no_sanitizer_report(err)


def case_repl(sb):
    """The REPL on a terminal, remotely: a statement over two lines, TAB
    completes a table name the server knows, Ctrl-C cancels a streaming
    SELECT (the server's 57014) and the session goes on; the server's stop
    is reported at the prompt; Ctrl-D exits 0."""
    with new_server(sb) as srv:
        rc, out, err = psql(srv.port, "CREATE TABLE zz_target (a INT) WITH ('connector' = 'blackhole')")
        check(rc == 0, "psql creates a table", out, err)
        rc, out, err = psql(srv.port, "CREATE TABLE endless (id BIGINT) WITH ('connector' = 'datagen', "
                            "'rows-per-second' = '5000')")
        check(rc == 0, "psql creates the endless source", out, err)
        ts.SLUICE = srv_util.SLUICE
        p = repl(sb, remote_args(srv.port), data_dir=False)
        try:
            check(b"(server: 127.0.0.1:%d)" % srv.port in p.buf, "banner names the server", p.buf)
            p.send("SHOW\n")
            p.expect(ts.MORE)
            p.send("TABLES;\n")
            out = p.expect(RE_ROWS)
            check(b"zz_target" in out and b"endless" in out, "SHOW TABLES", out)
            p.expect(PROMPT)
            p.send(b"DESCRIBE zz_t\t")  # completes to "DESCRIBE zz_target "
            p.send(";\n")
            out = p.expect(RE_ROWS)
            check(b"ERROR" not in out and b"zz_target" in p.buf, "completed statement ran", out)
            p.expect(PROMPT)
            p.send("SELECT id FROM endless;\n")
            p.expect(re.compile(rb"\| +-?\d+ \|"))  # rows stream (past 1000 buffered)
            p.send(b"\x03")
            out = p.expect(PROMPT)
            check(b"canceling statement due to user request" in out and b"57014" in out,
                  "Ctrl-C cancelled on the server", out)
            p.send("SHOW TABLES;\n")
            out = p.expect(RE_ROWS)
            check(b"zz_target" in out, "the connection goes on", out)
            p.expect(PROMPT)
            # The server goes away while the shell waits for a key: said at
            # once; the next statement fails (no server to reconnect to).
            check(srv.stop() == 0, "server stops", srv.log())
            out = p.expect(PROMPT)
            check(b"ERROR:  " in out and b"SQLSTATE: 08006" in out, "connection loss shown", out)
            p.send("SHOW TABLES;\n")
            out = p.expect(PROMPT)
            check(b"no connection to the server" in out, "statement without a server", out)
            quit_ok(p)
        finally:
            p.kill()


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}


if __name__ == "__main__":
    sys.exit(ts.cases_main(CASES, sluice=srv_util.SLUICE))
