#!/usr/bin/env python3
"""Tests of the `sluice` command as a user drives it.

Script modes (-e, -f, standard input) run through subprocess and check exit
codes, stdout and stderr. The REPL runs on a pseudo-terminal: the test types
keys (including Ctrl-C, Ctrl-D, TAB and the up arrow) and waits for the
expected prompt or output with a deadline; nothing sleeps for correctness.

Every case gets a fresh temporary directory holding the data directory, HOME
and SLUICE_HISTFILE. Under AddressSanitizer, leaks make the process exit
non-zero, so every exit-status check is also a leak check (lsan.supp next to
this file lists libedit/terminfo allocations that are not ours).

Usage: test_shell.py --sluice PATH --case NAME   (NAME "all" runs every case;
       --list prints the case names). Python 3 standard library only.
"""
import argparse
import errno
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
import traceback
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
SLUICE = None  # path of the binary, from --sluice
TIMEOUT = 20.0  # seconds any single wait may take

PROMPT = b"sluice> "
MORE = b"    -> "
RE_ROWS = re.compile(rb"\d+ rows? in set")
CREATE_T = "CREATE TABLE t (a INT, b STRING) WITH ('connector' = 'blackhole');"


class Failure(Exception):
    pass


def check(cond, msg, *context):
    if not cond:
        extra = "".join("\n--- %s" % (c if isinstance(c, str) else repr(c)) for c in context)
        raise Failure(msg + extra)


# ---------------------------------------------------------------------------
# Environment and script-mode helpers.

class Sandbox:
    """A temporary directory with a data dir, HOME and history file."""

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="sluice-shell-")
        self.dir = self.tmp.name
        self.data = os.path.join(self.dir, "data")
        self.home = os.path.join(self.dir, "home")
        os.mkdir(self.home)
        self.histfile = os.path.join(self.dir, "history")

    def env(self, **extra):
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
        env.update(HOME=self.home, SLUICE_HISTFILE=self.histfile, LANG="C.UTF-8",
                   LC_ALL="C.UTF-8", TERM="xterm", EDITRC=os.path.join(self.dir, "no-editrc"))
        supp = os.path.join(HERE, "lsan.supp")
        env["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0"
        env["LSAN_OPTIONS"] = "suppressions=%s:print_suppressions=0" % supp
        env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
        env.update(extra)
        return env

    def path(self, name, content=None):
        p = os.path.join(self.dir, name)
        if content is not None:
            with open(p, "w", encoding="utf-8") as f:
                f.write(content)
        return p

    def cleanup(self):
        self.tmp.cleanup()


def run(sb, args, stdin=b"", data_dir=True, env=None):
    """Run sluice with args; returns (exit code, stdout, stderr) as str."""
    argv = [SLUICE] + (["--data-dir", sb.data] if data_dir else []) + args
    p = subprocess.run(argv, input=stdin, capture_output=True, timeout=TIMEOUT * 2,
                       env=env or sb.env(), cwd=sb.dir)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def no_sanitizer_report(err):
    check("Sanitizer" not in err and "runtime error" not in err, "sanitizer report", err)


def width(s):
    """Display columns of s (East Asian wide characters count 2)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def caret_under(err, word):
    """The caret line must point at the first occurrence of word in the LINE line."""
    lines = err.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("LINE ") and i + 1 < len(lines):
            caret = lines[i + 1]
            check(caret.strip() == "^", "caret line malformed", err)
            check(line.find(word) == caret.index("^"),
                  "caret not under %r" % word, line, caret)
            return
    raise Failure("no LINE block in:\n" + err)


# ---------------------------------------------------------------------------
# Pseudo-terminal session.

class Pty:
    """sluice running on a pseudo-terminal (its controlling terminal)."""

    def __init__(self, sb, args=(), data_dir=True):
        argv = [SLUICE] + (["--data-dir", sb.data] if data_dir else []) + list(args)
        env = sb.env()
        pid, fd = pty.fork()
        if pid == 0:  # child
            try:
                os.chdir(sb.dir)
                os.execve(SLUICE, argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        self.buf = b""   # everything read so far
        self.pos = 0     # expect() searches from here
        self.status = None

    def _read(self, deadline):
        """Read what is available before deadline; False at EOF."""
        left = deadline - time.monotonic()
        if left <= 0:
            return True
        r, _, _ = select.select([self.fd], [], [], left)
        if not r:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError as e:
            if e.errno == errno.EIO:
                return False
            raise
        if not data:
            return False
        self.buf += data
        return True

    def expect(self, pattern, timeout=TIMEOUT):
        """Wait for pattern (bytes or compiled regex) after the last match."""
        deadline = time.monotonic() + timeout
        while True:
            if isinstance(pattern, bytes):
                i = self.buf.find(pattern, self.pos)
                m = (i, i + len(pattern)) if i >= 0 else None
            else:
                mm = pattern.search(self.buf, self.pos)
                m = (mm.start(), mm.end()) if mm else None
            if m:
                text = self.buf[self.pos:m[1]]
                self.pos = m[1]
                if pattern in (PROMPT, MORE):
                    self.wait_reading(deadline)
                return text
            if time.monotonic() >= deadline or not self._read(deadline):
                raise Failure("timed out waiting for %r; output since last match:\n%r"
                              % (pattern, self.buf[self.pos:]))

    def wait_reading(self, deadline):
        """After a prompt: wait until libedit has put the terminal in raw mode.

        libedit prints the prompt before it leaves canonical mode, so a key
        sent at once could be taken by the kernel's line discipline (a ^D
        would become a lost canonical EOF). tcgetattr on the master reports
        the slave's modes."""
        while termios.tcgetattr(self.fd)[3] & termios.ICANON:
            if time.monotonic() >= deadline:
                raise Failure("terminal never left canonical mode; output:\n%r" % self.buf)
            time.sleep(0.005)  # polling a condition, bounded by the deadline
        self.wait_blocked_in_read(deadline)

    def wait_blocked_in_read(self, deadline):
        """Wait until the shell is blocked waiting for a key (ppoll, or a
        read(2) on the terminal), as when a person types. /proc/<pid>/syscall
        starts with the number of the blocking syscall (read: 0 on x86_64,
        63 on arm64; ppoll: 271 on x86_64, 73 on arm64); where it cannot be
        read, the raw-mode check above is all we have."""
        path = "/proc/%d/syscall" % self.pid
        while time.monotonic() < deadline:
            try:
                with open(path) as f:
                    nr = f.read().split(" ", 1)[0]
            except OSError:
                return
            if nr in ("0", "63", "271", "73"):
                return
            time.sleep(0.002)  # polling a condition, bounded by the deadline

    def send(self, data):
        os.write(self.fd, data if isinstance(data, bytes) else data.encode())

    def wait_exit(self, timeout=TIMEOUT):
        """Read to EOF and return the exit status."""
        deadline = time.monotonic() + timeout
        while self._read(deadline):
            if time.monotonic() >= deadline:
                break
        while time.monotonic() < deadline:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(st)
                os.close(self.fd)
                return self.status
            time.sleep(0.02)  # polling for exit, bounded by the deadline
        self.kill()
        raise Failure("sluice did not exit; output:\n%r" % self.buf)

    def kill(self):
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            self.status = -9
            try:
                os.close(self.fd)
            except OSError:
                pass

    def since(self, start):
        return self.buf[start:].decode("utf-8", "replace")


def repl(sb, args=(), data_dir=True):
    p = Pty(sb, args, data_dir)
    p.expect(PROMPT)
    return p


def quit_ok(p):
    """Ctrl-D on an empty line: exit status 0, no sanitizer report."""
    p.send(b"\x04")
    st = p.wait_exit()
    out = p.buf.decode("utf-8", "replace")
    no_sanitizer_report(out)
    check(st == 0, "exit status %s after Ctrl-D" % st, out)


# ---------------------------------------------------------------------------
# Cases: command line.

def case_version_help(sb):
    rc, out, err = run(sb, ["--version"], data_dir=False)
    check(rc == 0 and re.fullmatch(r"sluice \d+\.\d+\.\d+\n", out), "--version", out, err)
    rc, out, err = run(sb, ["--help"], data_dir=False)
    check(rc == 0 and out.startswith("Usage: sluice") and "--data-dir" in out, "--help", out, err)
    rc, out2, err = run(sb, ["-?"], data_dir=False)
    check(rc == 0 and out2 == out, "-? is --help", out2, err)
    check("-D, --data-dir" in out and "-h, --host" in out and "-d, --dbname" in out,
          "psql's options", out)
    rc, out, err = run(sb, ["--no-such-option"], data_dir=False)
    check(rc == 2 and "--help" in err and out == "", "bad option", rc, out, err)
    rc, out, err = run(sb, ["stray-argument"], data_dir=False)
    check(rc == 2 and "stray-argument" in err, "stray argument", rc, out, err)
    check(not os.path.exists(os.path.join(sb.dir, "sluice-data")), "usage errors create nothing")


def case_exec_ok(sb):
    rc, out, err = run(sb, ["-e", CREATE_T + " SHOW TABLES; DESCRIBE t; SET 'pipeline.name' = 'v'; DROP TABLE t;"])
    check(rc == 0, "exit code %d" % rc, out, err)
    no_sanitizer_report(err)
    check(out.startswith("CREATE TABLE\n"), "command tag first", out)
    check("1 row in set" in out and "| t " in out, "SHOW TABLES table", out)
    check(re.search(r"^SET$", out, re.M) and re.search(r"^DROP TABLE$", out, re.M), "tags", out)
    check("ERROR" not in err, "no error", err)
    # the last statement may lack ';'
    rc, out, err = run(sb, ["-e", "SHOW TABLES"])
    check(rc == 0 and "Empty set" in out, "statement without ';'", rc, out, err)


def case_exec_fail(sb):
    rc, out, err = run(sb, ["-e", "SHOW TABLES; SELECT * FROM nope; SHOW TABLES;"])
    check(rc == 1, "exit code %d" % rc, out, err)
    no_sanitizer_report(err)
    check(out.count("Empty set") == 1, "stops at the failure", out)
    lines = err.splitlines()
    check(lines[0].startswith("ERROR:  ") and "nope" in lines[0], "first line", err)
    check(lines[1] == "LINE 1: SELECT * FROM nope;", "LINE line", err)
    caret_under(err, "nope")
    check(lines[-1] == "SQLSTATE: 42P01", "SQLSTATE last", err)


def case_exec_multiline_error(sb):
    sql = "SELECT *\n  FROM\tnope\n WHERE a = 1;"
    rc, out, err = run(sb, ["-e", sql])
    check(rc == 1, "exit code", rc, err)
    check("LINE 2:   FROM nope" in err, "statement-relative line, tab shown as space", err)
    caret_under(err, "nope")


def case_exec_long_line(sb):
    cols = ", ".join("column_number_%d" % i for i in range(20))
    conds = " AND ".join("column_number_%d = 1" % i for i in range(20))
    rc, out, err = run(sb, ["-e", "SELECT %s FROM nope WHERE %s;" % (cols, conds)])
    check(rc == 1, "exit code", rc, err)
    line = next(l for l in err.splitlines() if l.startswith("LINE "))
    check(len(line) <= 90, "long line cut to ~80 columns", line)
    check(line.startswith("LINE 1: ...") and line.endswith("..."), "cut marks on both sides", line)
    caret_under(err, "nope")


def case_exec_multiple(sb):
    rc, out, err = run(sb, ["-e", CREATE_T, "-e", "SHOW TABLES;", "-q", "-e", "DROP TABLE t"])
    check(rc == 0, "exit code", rc, out, err)
    check("CREATE TABLE" not in out and "DROP TABLE" not in out, "-q hides tags", out)
    check("1 row in set" in out, "-e run in order", out)


def case_file_error(sb):
    script = ("-- a script\n"
              + CREATE_T + "\n"
              + "SELECT * FROM nope;\n"
              + "CREATE TABLE after_err (a INT) WITH ('connector' = 'blackhole');\n")
    path = sb.path("script.sql", script)
    rc, out, err = run(sb, ["-f", path])
    check(rc == 1, "exit code %d" % rc, out, err)
    no_sanitizer_report(err)
    first = err.splitlines()[0]
    check(first.startswith("%s:3:15: ERROR:  " % path), "FILE:LINE:COL prefix", first)
    check("LINE 1: SELECT * FROM nope;" in err, "LINE block", err)
    caret_under(err, "nope")
    check("SQLSTATE: 42P01" in err, "SQLSTATE", err)
    check(out.count("CREATE TABLE") == 1, "statements after the error do not run", out)
    rc, out, err = run(sb, ["-e", "SHOW TABLES;"])
    check(rc == 0 and "after_err" not in out and "| t " in out, "catalog after the script", out, err)


def case_continue_on_error(sb):
    script = CREATE_T + "\nSELECT * FROM nope;\nSELECT * FROM nope2;\nDROP TABLE t;\n"
    path = sb.path("script.sql", script)
    rc, out, err = run(sb, ["--continue-on-error", "-f", path])
    check(rc == 1, "exit code %d" % rc, out, err)
    check(err.count("ERROR:") == 2, "both errors reported", err)
    check(":2:15: ERROR:" in err and ":3:15: ERROR:" in err, "positions", err)
    check("CREATE TABLE" in out and "DROP TABLE" in out, "later statements ran", out)


def case_stdin_script(sb):
    script = (CREATE_T + "\nSHOW TABLES;\n\nSELECT *\n  FROM nope;\n").encode()
    rc, out, err = run(sb, [], stdin=script)
    check(rc == 1, "exit code %d" % rc, out, err)
    check("CREATE TABLE" in out and "1 row in set" in out, "stdin statements ran", out)
    check(err.startswith("<stdin>:5:8: ERROR:  "), "<stdin> prefix", err)
    check("LINE 2:   FROM nope;" in err, "LINE block relative to statement", err)
    rc, out, err = run(sb, ["-f", "-"], stdin=b"SHOW TABLES;")
    check(rc == 0 and "1 row in set" in out, "-f -", rc, out, err)


def case_missing_file(sb):
    rc, out, err = run(sb, ["-f", os.path.join(sb.dir, "does-not-exist.sql")])
    check(rc == 2, "exit code %d" % rc, out, err)
    check("does-not-exist.sql" in err and "could not read" in err, "message", err)
    check(not os.path.exists(sb.data), "nothing created before the files are read")


def case_bad_data_dir(sb):
    f = sb.path("a-file", "not a directory")
    rc, out, err = run(sb, ["--data-dir", f, "-e", "SHOW TABLES;"], data_dir=False)
    check(rc == 2, "exit code %d" % rc, out, err)
    check("ERROR:  " in err and "SQLSTATE: " in err, "error printed", err)
    no_sanitizer_report(err)
    # SLUICE_DATA is used when --data-dir is absent
    d = os.path.join(sb.dir, "from-env")
    rc, out, err = run(sb, ["-e", "SHOW TABLES;"], data_dir=False, env=sb.env(SLUICE_DATA=d))
    check(rc == 0 and os.path.isdir(d), "SLUICE_DATA", rc, out, err)


def case_table_format(sb):
    rc, out, err = run(sb, ["-e", CREATE_T + " DESCRIBE t;"])
    check(rc == 0, "exit code", rc, out, err)
    table = [l for l in out.splitlines() if l.startswith(("+", "|"))]
    check(len(table) >= 6, "a table", out)
    check(all(width(l) == width(table[0]) for l in table), "all lines equally wide", out)
    check(table[0] == table[2] == table[-1] and set(table[0]) <= set("+-"), "rules", out)
    check(re.search(r"^\| a +\| INT", out, re.M), "text columns left-aligned", out)
    check(re.search(r"^\| name +\| type +\|", out, re.M), "headers aligned as their column", out)
    check(re.search(r"^\d+ rows? in set\n\n$", out, re.M), "row count and blank line", out)


def case_notice(sb):
    path = sb.path("n.sql", "SHOW TABLES;\n  DROP TABLE IF EXISTS nope;\n")
    rc, out, err = run(sb, ["-f", path])
    check(rc == 0, "a notice is not a failure", rc, out, err)
    check(re.match(r"%s:2:3: NOTICE:  .*nope" % re.escape(path), err), "notice format", err)
    check("SQLSTATE" not in err and "LINE" not in err, "no SQLSTATE/LINE for notices", err)
    check(re.search(r"^DROP TABLE$", out, re.M), "tag still printed", out)
    rc, out, err = run(sb, ["-e", "DROP TABLE IF EXISTS nope"])
    check(rc == 0 and err.startswith("NOTICE:  "), "-e: no prefix", rc, err)


def case_script_non_utf8(sb):
    rc, out, err = run(sb, [], stdin=b"SELECT '\xff\xfe' FROM nope;\nSELECT \xc3( FROM\n")
    check(rc == 1, "exit code %d" % rc, out, err)
    no_sanitizer_report(err)
    check("ERROR:  " in err and "SQLSTATE: " in err, "error reported", err)
    rc, out, err = run(sb, [], stdin=b"")
    check(rc == 0 and out == "" and err == "", "empty script", rc, out, err)


def case_script_bad_utf8(sb):
    # Invalid UTF-8 in a comment before a statement, in an option value, in a
    # back-quoted name: 22021 at the bad byte, nothing created, and the data
    # directory still opens (before, CREATE succeeded and every later start
    # failed on the catalog).
    path = os.path.join(sb.dir, "bad.sql")
    with open(path, "wb") as f:
        f.write(b"-- caf\xe9 comment\nCREATE TABLE a (x INT) WITH ('connector' = 'blackhole');\n"
                b"CREATE TABLE b (x INT) WITH ('connector' = 'blackhole', 'k' = 'v\xff');\n"
                b"CREATE TABLE `c\xc0\xaf` (x INT) WITH ('connector' = 'blackhole');\n"
                b"CREATE TABLE ok (x INT) WITH ('connector' = 'blackhole');\n")
    rc, out, err = run(sb, ["--continue-on-error", "-f", path])
    check(rc == 1, "exit code %d" % rc, out, err)
    no_sanitizer_report(err)
    check(err.count("SQLSTATE: 22021") == 3, "three 22021 errors", err)
    check("%s:1:7: ERROR:  invalid byte sequence for encoding \"UTF8\": 0xe9" % path in err,
          "the comment's byte, by line and column", err)
    check("%s:3:65: ERROR:" % path in err and "0xff" in err, "the option value's byte", err)
    check("%s:4:16: ERROR:" % path in err and "0xc0" in err, "the quoted name's byte", err)
    rc, out, err = run(sb, ["-e", "SHOW TABLES;"])
    check(rc == 0, "the data directory still opens", rc, out, err)
    names = re.findall(r"^\| (\w+) +\|$", out, re.M)
    check(names == ["table name", "ok"] or names == ["ok"], "only ok was created", out)


# ---------------------------------------------------------------------------
# Cases: REPL on a pseudo-terminal.

def case_repl_multiline(sb):
    p = repl(sb)
    try:
        p.send("CREATE TABLE t (a INT,\n")
        p.expect(MORE)
        p.send("  b STRING)\n")
        p.expect(MORE)
        p.send("  WITH ('connector' = 'blackhole');\n")
        p.expect(b"CREATE TABLE\r\n")
        p.expect(PROMPT)
        p.send("SHOW TABLES;\n")
        p.expect(b"1 row in set")
        p.expect(PROMPT)
        p.send("\n\n")  # empty lines are ignored: plain prompts again
        p.expect(PROMPT)
        quit_ok(p)
    finally:
        p.kill()


def case_repl_two_statements(sb):
    p = repl(sb)
    try:
        p.send(CREATE_T + " SHOW TABLES;\n")
        p.expect(b"CREATE TABLE\r\n")
        p.expect(b"1 row in set")
        p.expect(PROMPT)
        p.send("SELECT * FROM nope; SHOW TABLES; SELECT 1\n")  # error does not stop the line
        out = p.expect(b"1 row in set")
        check(b"42P01" in out, "error shown", out)
        p.expect(MORE)  # "SELECT 1" is pending
        quit_ok(p)
    finally:
        p.kill()


def case_repl_ctrl_c(sb):
    p = repl(sb)
    try:
        p.send("SELECT * FROM\n")
        p.expect(MORE)
        p.send("nope WHERE\n")
        p.expect(MORE)
        p.send(b"\x03")
        p.expect(PROMPT)
        start = p.pos
        p.send("SHOW TABLES;\n")
        p.expect(b"Empty set")
        p.expect(PROMPT)
        check("ERROR" not in p.since(start), "pending input was cleared", p.since(start))
        p.send("SHOW TAB")  # Ctrl-C on a partly typed line
        p.send(b"\x03")
        p.expect(PROMPT)
        p.send("SHOW TABLES;\n")
        p.expect(b"Empty set")
        p.expect(PROMPT)
        quit_ok(p)
    finally:
        p.kill()


def case_repl_history(sb):
    p = repl(sb)
    try:
        p.send("CREATE TABLE h (a INT)\n")
        p.expect(MORE)
        p.send("  WITH ('connector' = 'blackhole');\n")
        p.expect(b"CREATE TABLE\r\n")
        p.expect(PROMPT)
        quit_ok(p)
    finally:
        p.kill()
    with open(sb.histfile, "rb") as f:  # libedit's format: strvis-encoded lines
        hist = re.sub(rb"\\([0-7]{3})", lambda m: bytes([int(m.group(1), 8)]), f.read())
    check(b"CREATE TABLE h (a INT)\n  WITH" in hist, "history saved as one entry", hist)
    p = repl(sb)
    try:
        p.send(b"\x1b[A")  # up arrow: the whole two-line statement
        p.send(b"\r")
        out = p.expect(b"42P07")  # it runs again: duplicate table
        check(MORE not in out, "recalled as one entry", out)
        p.expect(PROMPT)
        quit_ok(p)
    finally:
        p.kill()


def case_repl_complete_keyword(sb):
    p = repl(sb)
    try:
        p.send(b"sho\t")  # completes to "SHOW "
        p.send("TABLES;\n")
        p.expect(b"Empty set")
        p.expect(PROMPT)
        quit_ok(p)
    finally:
        p.kill()


def case_repl_complete_table(sb):
    rc, out, err = run(sb, ["-e", "CREATE TABLE zz_target (a INT) WITH ('connector' = 'blackhole');"])
    check(rc == 0, "setup", out, err)
    p = repl(sb)
    try:
        p.send(b"DESCRIBE zz_t\t")  # completes to "DESCRIBE zz_target "
        p.send(";\n")
        out = p.expect(RE_ROWS)
        check(b"ERROR" not in out, "completed statement ran", out)
        p.expect(PROMPT)
        quit_ok(p)
    finally:
        p.kill()


def case_repl_complete_option(sb):
    p = repl(sb)
    try:
        p.send(b"CREATE TABLE o (a INT) WITH ('connecto\t")  # completes to 'connector'
        p.send(" = 'blackhole');\n")
        p.expect(b"CREATE TABLE\r\n")
        p.expect(PROMPT)
        quit_ok(p)
    finally:
        p.kill()


def case_repl_exit_commands(sb):
    for word in (b"quit\n", b"exit;\n", b"\\q\n", b"QUIT;\n"):
        p = repl(sb)
        try:
            p.send(word)
            st = p.wait_exit()
            check(st == 0, "exit status %s for %r" % (st, word), p.buf)
        finally:
            p.kill()


def table_rows(text):
    """The data rows of the bordered tables in text (cells stripped), parsed here."""
    rows, seps = [], 0
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.startswith("+"):
            seps += 1
        elif line.startswith("|") and seps % 3 == 2:
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def case_repl_backslash(sb):
    """psql habits: \\?, \\dt, \\d, \\d name, \\h answer at once; an unknown
    command says so and the prompt stays a fresh one (no continuation)."""
    p = repl(sb)
    try:
        p.send(CREATE_T + "\n")
        p.expect(PROMPT)
        start = len(p.buf)
        p.send(b"\\?\n")
        out = p.expect(PROMPT)
        check(b"\\dt" in out and b"\\d NAME" in out and b"\\q" in out, "\\? lists commands", out)
        p.send(b"\\dt\n")
        out = p.expect(RE_ROWS) + p.expect(PROMPT)
        check(table_rows(out.decode()) == [["t"]], "\\dt lists table t", out)
        p.send(b"\\d t\n")
        out = p.expect(RE_ROWS) + p.expect(PROMPT)
        names = [r[0] for r in table_rows(out.decode())]
        check(names == ["a", "b"], "\\d t describes t's columns", out)
        p.send(b"\\h\n")
        out = p.expect(RE_ROWS) + p.expect(PROMPT)
        stmts = [r[0] for r in table_rows(out.decode())]
        check("SHOW CATALOGS" in stmts and "BEGIN STATEMENT SET" in stmts, "\\h is HELP", out)
        p.send(b"\\x\n")
        out = p.expect(PROMPT)
        check(b"invalid command \\x" in out and MORE not in out, "unknown command", out)
        p.send(b"\\q\n")
        st = p.wait_exit()
        check(st == 0, "\\q exits 0", p.since(start))
    finally:
        p.kill()


def case_set_effective_values(sb):
    """SET; shows effective values: parallelism.default is one task per CPU
    (computed here from the machine), no <NULL>."""
    rc, out, err = run(sb, ["-e", "SET;"])
    check(rc == 0, "exit 0", out, err)
    vals = {r[0]: r[1] if len(r) > 1 else "" for r in table_rows(out)}
    ncpu = os.sysconf("SC_NPROCESSORS_ONLN")
    check(vals.get("parallelism.default") == str(max(1, ncpu)), "parallelism is the CPU count", out)
    check(vals.get("execution.savepoint.path") == "" and "<NULL>" not in out, "no <NULL>", out)


def case_repl_ctrl_d(sb):
    p = repl(sb)
    try:
        quit_ok(p)
        check(p.buf.endswith(b"\n"), "newline printed on exit", p.buf)
    finally:
        p.kill()


def case_repl_table(sb):
    p = repl(sb)
    try:
        p.send(CREATE_T + " DESCRIBE t;\n")
        out = p.expect(RE_ROWS).decode("utf-8", "replace")
        table = [l for l in out.split("\r\n") if l.startswith(("+", "|"))]
        check(len(table) >= 6 and all(width(l) == width(table[0]) for l in table),
              "aligned table on the terminal", out)
        p.expect(PROMPT)
        quit_ok(p)
    finally:
        p.kill()


def case_repl_non_utf8(sb):
    p = repl(sb)
    try:
        p.send(b"SELECT '\xff\xfe\xc3';\n")
        p.expect(PROMPT)
        p.send(b"\xe2\x82\n")  # truncated sequence alone on a line
        p.expect(PROMPT)
        p.send("SHOW TABLES;\n")
        p.expect(b"Empty set")
        p.expect(PROMPT)
        quit_ok(p)
    finally:
        p.kill()


# ---------------------------------------------------------------------------
# Cases: jobs. The REPL starts an INSERT in the background ('table.dml-sync'
# is false there); scripts run it to its end unless they SET it to false.

ENDLESS = ("CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', "
           "'rows-per-second' = '1000', 'fields.id.kind' = 'sequence', "
           "'fields.id.start' = '1', 'fields.id.end' = '1000000000');")
RE_SUBMITTED = re.compile(rb'NOTICE:  job "([^"]+)" submitted')
RE_SAVEPOINT_ROW = re.compile(rb"\| (\S+/chk-\d+) +\|")


def sink_table(sb, name="sink"):
    return ("CREATE TABLE %s (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '%s', "
            "'format' = 'json');" % (name, os.path.join(sb.dir, name)))


def committed_ids(path):
    """ids of the committed part files of a filesystem sink (in-progress
    files start with '.'), read independently of Sluice."""
    ids = []
    for f in sorted(os.listdir(path)) if os.path.isdir(path) else []:
        if f.startswith("part-"):
            with open(os.path.join(path, f), encoding="utf-8") as fh:
                ids += [json.loads(line)["id"] for line in fh if line.strip()]
    return ids


def check_prefixes(ids, parallelism, what):
    """No id twice, and for each subtask (datagen: id - 1 = i, subtask
    i % parallelism) a gap-free prefix of its ids."""
    check(len(ids) == len(set(ids)), "%s: duplicates" % what,
          sorted(i for i in set(ids) if ids.count(i) > 1)[:20])
    for k in range(parallelism):
        mine = sorted(i for i in ids if (i - 1) % parallelism == k)
        want = list(range(1 + k, 1 + k + parallelism * len(mine), parallelism))
        check(mine == want, "%s: subtask %d has a gap" % (what, k), mine[:10], len(mine))


def show_jobs(p, name):
    """Run SHOW JOBS; (status, checkpoint, rows in, rows out) of job name."""
    p.send("SHOW JOBS;\n")
    out = p.expect(RE_ROWS)
    p.expect(PROMPT)
    for line in out.decode("utf-8", "replace").split("\r\n"):
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) >= 11 and cells[0] == name:
            num = lambda v: int(v) if v.lstrip("-").isdigit() else -1
            return cells[1], num(cells[4]), num(cells[5]), num(cells[6])
    raise Failure("job %s not in SHOW JOBS:\n%s" % (name, out))


def wait_rows(p, name, more_than, timeout=TIMEOUT):
    """SHOW JOBS until job name has written more than more_than rows."""
    deadline = time.monotonic() + timeout
    while True:
        st = show_jobs(p, name)
        if st[3] > more_than or time.monotonic() >= deadline:
            return st
        time.sleep(0.05)  # polling a condition, bounded by the deadline


def stop_with_savepoint(p, name):
    p.send("STOP JOB '%s' WITH SAVEPOINT;\n" % name)
    out = p.expect(RE_ROWS)
    p.expect(PROMPT)
    m = RE_SAVEPOINT_ROW.search(out)
    check(m, "savepoint_path row", out)
    path = m.group(1).decode()
    check(b"savepoint_path" in out and b"1 row in set" in out, "one row, column savepoint_path", out)
    with open(os.path.join(path, "_metadata"), encoding="utf-8") as f:
        meta = json.load(f)
    check(meta.get("savepoint") is True, "_metadata marks a savepoint", meta)
    return path


def case_repl_statement_set(sb):
    """Flink's client form in the REPL: BEGIN STATEMENT SET; each INSERT is
    answered at once (added, not run); END; runs them as one job, whose two
    sinks are read back here."""
    bounded = ("CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '6', "
               "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '6');")
    rc, out, err = run(sb, ["-e", bounded + sink_table(sb, "ev") + sink_table(sb, "od")])
    check(rc == 0, "setup", out, err)
    p = repl(sb)
    try:
        p.send("SET 'parallelism.default' = '1';\n")
        p.expect(PROMPT)
        p.send("BEGIN STATEMENT SET;\n")
        out = p.expect(PROMPT)
        check(b"BEGIN STATEMENT SET" in out, "set opened", out)
        p.send("INSERT INTO ev SELECT id FROM nums WHERE MOD(id, 2) = 0;\n")
        out = p.expect(PROMPT, timeout=5)
        check(b"added to the statement set (1)" in out and MORE not in out, "first INSERT added", out)
        p.send("INSERT INTO od SELECT id FROM nums WHERE MOD(id, 2) = 1;\n")
        out = p.expect(PROMPT, timeout=5)
        check(b"added to the statement set (2)" in out, "second INSERT added", out)
        check(committed_ids(os.path.join(sb.dir, "ev")) == [], "nothing ran before END")
        p.send("END;\n")
        p.expect(PROMPT)
        deadline = time.monotonic() + TIMEOUT
        while sorted(committed_ids(os.path.join(sb.dir, "od"))) != [1, 3, 5] and \
                time.monotonic() < deadline:
            time.sleep(0.05)  # polling the committed files, bounded by the deadline
        check(sorted(committed_ids(os.path.join(sb.dir, "ev"))) == [2, 4, 6], "ev rows",
              committed_ids(os.path.join(sb.dir, "ev")))
        check(sorted(committed_ids(os.path.join(sb.dir, "od"))) == [1, 3, 5], "od rows",
              committed_ids(os.path.join(sb.dir, "od")))
        quit_ok(p)
    finally:
        p.kill()


def case_repl_background_job(sb):
    rc, out, err = run(sb, ["-e", ENDLESS + sink_table(sb)])
    check(rc == 0, "setup", out, err)
    p = repl(sb)
    try:
        p.send("SET 'execution.checkpointing.interval' = '200 ms';\n")
        p.expect(PROMPT)
        p.send("SET 'parallelism.default' = '2';\n")
        p.expect(PROMPT)
        insert = "INSERT INTO sink SELECT id FROM src;\n"
        p.send(insert)
        out = p.expect(PROMPT, timeout=5)  # an endless source: it returns at once all the same
        m = RE_SUBMITTED.search(out)
        check(m and b"INSERT 0 0" in out, "submitted, command tag", out)
        name = m.group(1).decode()
        status, _, _, first = wait_rows(p, name, 0)
        check(status == "RUNNING" and first > 0, "RUNNING with rows", status, first)
        status, _, _, later = wait_rows(p, name, first)
        check(status == "RUNNING" and later > first, "rows grow", first, later)

        # Another job under the same name is refused while it runs.
        p.send(insert)
        out = p.expect(PROMPT)
        check(b"SQLSTATE: 55006" in out and b"already running" in out, "55006", out)
        p.send("STOP JOB 'no-such-job';\n")
        out = p.expect(PROMPT)
        check(b"SQLSTATE: 42704" in out and b"SHOW JOBS lists the jobs." in out, "42704", out)
        caret_under(out.decode().replace("\r\n", "\n"), "'no-such-job'")

        path = stop_with_savepoint(p, name)
        status, chk, _, rows1 = show_jobs(p, name)
        check(status == "STOPPED" and path.endswith("/chk-%d" % chk), "STOPPED at the savepoint",
              status, chk, path)
        ids1 = committed_ids(os.path.join(sb.dir, "sink"))
        check(len(ids1) == rows1 > 0, "committed rows = rows out", len(ids1), rows1)
        check_prefixes(ids1, 2, "first run")
        p.send("STOP JOB '%s';\n" % name)
        out = p.expect(PROMPT)
        check(b"SQLSTATE: 55000" in out and b"DETAIL:  Its status is STOPPED." in out, "55000", out)

        # From the savepoint: the job says so, and continues where it stopped.
        p.send("SET 'execution.savepoint.path' = '%s';\n" % path)
        p.expect(PROMPT)
        p.send(insert)
        p.expect(RE_SUBMITTED)
        out = p.expect(re.compile(rb"NOTICE:  job \"%s\" (resumes|starts) from [^\r\n]*"
                                  % re.escape(name.encode())))
        check(path.encode() in out or b"checkpoint %d" % chk in out, "resumes from the savepoint",
              out)
        wait_rows(p, name, 0)
        path2 = stop_with_savepoint(p, name)
        check(path2 != path, "a new savepoint", path, path2)
        ids2 = committed_ids(os.path.join(sb.dir, "sink"))
        check(len(ids2) > len(ids1), "the second run wrote rows", len(ids1), len(ids2))
        check(set(ids1) <= set(ids2), "the first run's rows stay", len(ids1))
        check_prefixes(ids2, 2, "both runs")
        quit_ok(p)
    finally:
        p.kill()


def case_repl_job_message_redraw(sb):
    """A job's message while a line is half typed: printed below it, the
    prompt and the line redrawn, and the line still runs as typed."""
    rc, out, err = run(sb, ["-e", sink_table(sb) + " CREATE TABLE slow (id BIGINT) WITH ("
                            "'connector' = 'datagen', 'number-of-rows' = '20', "
                            "'rows-per-second' = '20', 'fields.id.kind' = 'sequence', "
                            "'fields.id.start' = '1', 'fields.id.end' = '20');"])
    check(rc == 0, "setup", out, err)
    p = repl(sb)
    try:
        p.send("SET 'pipeline.name' = 'slow';\n")
        p.expect(PROMPT)
        p.send("INSERT INTO sink SELECT id FROM slow;\n")
        p.expect(b"INSERT 0 0")
        p.expect(PROMPT)
        p.send("SHOW JO")
        out = p.expect(b'NOTICE:  job "slow" finished: 20 rows written')
        check(out.startswith(b"SHOW JO") and b"\n" in out.split(b"NOTICE")[0],
              "the message starts below the typed line", out)
        redraw = p.expect(b"SHOW JO")
        check(PROMPT in redraw, "prompt and line redrawn", redraw)
        p.wait_blocked_in_read(time.monotonic() + TIMEOUT)
        p.send("BS;\n")
        out = p.expect(RE_ROWS)
        check(b"| slow " in out and b"FINISHED" in out, "the line ran as typed", out)
        p.expect(PROMPT)
        check(sorted(committed_ids(os.path.join(sb.dir, "sink"))) == list(range(1, 21)),
              "all rows committed once")
        quit_ok(p)
    finally:
        p.kill()


def case_repl_exit_stops_jobs(sb):
    rc, out, err = run(sb, ["-e", ENDLESS + sink_table(sb)])
    check(rc == 0, "setup", out, err)
    p = repl(sb)
    try:
        p.send("SET 'pipeline.name' = 'forever';\n")
        p.expect(PROMPT)
        p.send("INSERT INTO sink SELECT id FROM src;\n")
        p.expect(PROMPT)
        wait_rows(p, "forever", 0)
        p.send(b"\x03")  # Ctrl-C at the prompt does not stop a background job
        p.expect(PROMPT)
        status, _, _, rows = show_jobs(p, "forever")
        check(status == "RUNNING", "still running after Ctrl-C", status)
        start = p.pos
        quit_ok(p)  # Ctrl-D: stops it with a savepoint first
        m = re.search(r'NOTICE:  job "forever" stopped with savepoint (\S+)', p.since(start))
        check(m, "savepoint notice on exit", p.since(start))
        with open(os.path.join(m.group(1), "_metadata"), encoding="utf-8") as f:
            check(json.load(f).get("savepoint") is True, "a savepoint")
        with open(os.path.join(sb.data, "jobs", "forever", "_job.json"), encoding="utf-8") as f:
            rec = json.load(f)
        check(rec["status"] == "STOPPED" and rec["rows_out"] >= rows, "record STOPPED", rec)
        ids = committed_ids(os.path.join(sb.dir, "sink"))
        check(len(ids) == rec["rows_out"], "every row out committed", len(ids), rec)
        check(len(ids) == len(set(ids)), "no duplicates")
    finally:
        p.kill()


def case_script_background_jobs(sb):
    """-f with 'table.dml-sync' = 'false': the script's end waits for its
    jobs; a failed one makes the exit status 1."""
    script = (sink_table(sb) + "\n" + sink_table(sb, "bad_sink") + "\n"
              "CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', "
              "'number-of-rows' = '500', 'rows-per-second' = '1000', "
              "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '500');\n"
              "SET 'table.dml-sync' = 'false';\n"
              "SET 'pipeline.name' = 'bounded';\n"
              "INSERT INTO sink SELECT id FROM nums;\n"
              "SET 'pipeline.name' = 'broken';\n"
              "INSERT INTO bad_sink SELECT 10 / (id - 400) FROM nums;\n")
    path = sb.path("bg.sql", script)
    rc, out, err = run(sb, ["-f", path])
    no_sanitizer_report(err)
    check(rc == 1, "a failed background job fails the script", rc, out, err)
    check(out.count("INSERT 0 0") == 2, "both returned at once", out)
    check('NOTICE:  job "bounded" finished: 500 rows written' in err, "finished", err)
    check('ERROR:  job "broken" failed: division by zero' in err and "SQLSTATE: 22012" in err,
          "failure reported", err)
    check(sorted(committed_ids(os.path.join(sb.dir, "sink"))) == list(range(1, 501)),
          "the script waited for the bounded job")
    check(committed_ids(os.path.join(sb.dir, "bad_sink")) == [], "nothing of the failed job")


def case_script_sigterm_stops_jobs(sb):
    script = (ENDLESS + "\n" + sink_table(sb) + "\n"
              "SET 'execution.checkpointing.interval' = '200 ms';\n"
              "SET 'table.dml-sync' = 'false';\n"
              "SET 'pipeline.name' = 'endless';\n"
              "INSERT INTO sink SELECT id FROM src;\n")
    path = sb.path("endless.sql", script)
    proc = subprocess.Popen([SLUICE, "--data-dir", sb.data, "-f", path], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=sb.env(), cwd=sb.dir)
    try:
        # The script ended and waits for its job: its output says so.
        deadline = time.monotonic() + TIMEOUT
        err = b""
        os.set_blocking(proc.stderr.fileno(), False)
        while b"waiting for 1 background job" not in err and time.monotonic() < deadline:
            select.select([proc.stderr], [], [], 0.1)
            err += proc.stderr.read() or b""
        check(b"waiting for 1 background job" in err, "waits for its job", err)
        rec = os.path.join(sb.data, "jobs", "endless", "_job.json")
        while time.monotonic() < deadline and not committed_ids(os.path.join(sb.dir, "sink")):
            time.sleep(0.05)  # polling a condition, bounded by the deadline
        proc.send_signal(signal.SIGTERM)
        out, rest = proc.communicate(timeout=TIMEOUT)
        err = (err + rest).decode("utf-8", "replace")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    no_sanitizer_report(err)
    check(proc.returncode == 0, "exit status %s" % proc.returncode, err)
    m = re.search(r'NOTICE:  job "endless" stopped with savepoint (\S+)', err)
    check(m and os.path.isfile(os.path.join(m.group(1), "_metadata")), "savepoint", err)
    with open(rec, encoding="utf-8") as f:
        r = json.load(f)
    ids = committed_ids(os.path.join(sb.dir, "sink"))
    check(r["status"] == "STOPPED" and len(ids) == r["rows_out"] > 0, "stopped, committed", r)
    check(len(ids) == len(set(ids)), "no duplicates")


def case_script_huge_in_list_jobs(sb):
    """Background jobs filtering with IN / NOT IN lists of 200000 constants
    (once an OR chain whose evaluation overflowed a task thread's stack and
    took the whole process down): the process survives, each job writes
    exactly the rows a Python reference selects, read back from the sink."""
    evens = ", ".join(str(2 * k) for k in range(1, 200001))
    script = (sink_table(sb) + "\n" + sink_table(sb, "odd_sink") + "\n"
              "CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', "
              "'number-of-rows' = '500', 'fields.id.kind' = 'sequence', "
              "'fields.id.start' = '1', 'fields.id.end' = '500');\n"
              "SET 'parallelism.default' = '2';\n"
              "SET 'table.dml-sync' = 'false';\n"
              "SET 'pipeline.name' = 'in_list';\n"
              "INSERT INTO sink SELECT id FROM nums WHERE id IN (%s);\n"
              "SET 'pipeline.name' = 'not_in_list';\n"
              "INSERT INTO odd_sink SELECT id FROM nums WHERE id NOT IN (%s, NULL) "
              "OR id NOT IN (%s);\n" % (evens, evens, evens))
    path = sb.path("in.sql", script)
    rc, out, err = run(sb, ["-f", path])
    no_sanitizer_report(err)
    check(rc == 0, "exit status %s" % rc, out[-2000:], err[-2000:])
    check('job "in_list" finished: 250 rows written' in err, "in_list finished", err[-2000:])
    check('job "not_in_list" finished: 250 rows written' in err, "not_in_list finished",
          err[-2000:])
    check(sorted(committed_ids(os.path.join(sb.dir, "sink"))) == list(range(2, 501, 2)),
          "IN: the even ids")
    check(sorted(committed_ids(os.path.join(sb.dir, "odd_sink"))) == list(range(1, 501, 2)),
          "NOT IN: the odd ids (NOT IN with a NULL is never TRUE)")


# ---------------------------------------------------------------------------
# Cases: the stdin connector (each line of standard input is one record).

def stdin_tables(sb, fmt="json", extra="", sink="out"):
    """A stdin table `src` (id BIGINT, name STRING) and a filesystem sink `out`."""
    return ("CREATE TABLE src (id BIGINT, name STRING) WITH ('connector' = 'stdin', "
            "'format' = '%s'%s); "
            "CREATE TABLE %s (id BIGINT, name STRING) WITH ('connector' = 'filesystem', "
            "'path' = '%s', 'format' = 'json'); " % (fmt, extra, sink, os.path.join(sb.dir, sink)))


def committed_rows(path):
    """(id, name) of the committed part files of a filesystem sink, read
    independently of Sluice; sorted."""
    rows = []
    for f in sorted(os.listdir(path)) if os.path.isdir(path) else []:
        if f.startswith("part-"):
            with open(os.path.join(path, f), encoding="utf-8") as fh:
                for line in fh:
                    if line.strip():
                        r = json.loads(line)
                        rows.append((r["id"], r.get("name")))
    return sorted(rows, key=lambda r: (r[0], r[1] or ""))


def case_stdin_source_json(sb):
    """JSON lines piped into `sluice -e`: an empty line, CRLF, a last line
    without newline; parallelism 1 and 2 (only one task reads)."""
    data = (b'{"id": 1, "name": "a"}\n\n{"id": 2, "name": "b"}\r\n'
            b'{"id": 3, "name": "\xc3\xa9t\xc3\xa9"}\n{"id": 4}')
    want = [(1, "a"), (2, "b"), (3, "\u00e9t\u00e9"), (4, None)]
    for par in (1, 2):
        sink = "out%d" % par
        sql = ("SET 'parallelism.default' = '%d'; " % par + stdin_tables(sb, sink=sink)
               + "INSERT INTO %s SELECT id, name FROM src;" % sink)
        rc, out, err = run(sb, ["-e", sql], stdin=data)
        no_sanitizer_report(err)
        check(rc == 0, "p=%d: exit code %d" % (par, rc), out, err)
        check("INSERT 0 4" in out, "p=%d: rows written" % par, out)
        got = committed_rows(os.path.join(sb.dir, sink))
        check(got == want, "p=%d: committed rows" % par, got)
        # the next run's tables exist already
        run(sb, ["-e", "DROP TABLE src;"])


def case_stdin_source_csv(sb):
    """CSV lines, some ending in CRLF, one longer than the source's 64 KiB
    read block, into a filtering INSERT at parallelism 2; and an empty
    standard input."""
    long_name = "x" * 200000
    lines = ["%d,n%d" % (i, i) for i in range(1, 501)]
    lines.insert(250, "9999,%s" % long_name)
    lines[:20] = [l + "\r" for l in lines[:20]]  # CRLF line breaks
    data = ("\n".join(lines) + "\n").encode()
    sql = ("SET 'parallelism.default' = '2'; " + stdin_tables(sb, "csv")
           + "INSERT INTO out SELECT id, name FROM src WHERE id % 2 = 1 OR id = 9999;")
    rc, out, err = run(sb, ["-e", sql], stdin=data)
    no_sanitizer_report(err)
    check(rc == 0, "exit code %d" % rc, out, err)
    want = sorted([(i, "n%d" % i) for i in range(1, 501, 2)] + [(9999, long_name)])
    got = committed_rows(os.path.join(sb.dir, "out"))
    check(len(got) == len(want) and got == want, "committed rows", len(got), got[:3], got[-1:])
    check("INSERT 0 %d" % len(want) in out, "rows written", out)
    # An empty standard input is a bounded input with no rows.
    rc, out, err = run(sb, ["-e", "INSERT INTO out SELECT id, name FROM src;"], stdin=b"")
    check(rc == 0 and "INSERT 0 0" in out, "empty stdin", rc, out, err)


def case_stdin_source_malformed(sb):
    data = b'{"id": 1, "name": "a"}\n{"id": 2, "name": "b"}\n{"id": 3, "name": oops}\n' \
           b'{"id": 4, "name": "d"}\nnot json\n{"id": 6, "name": "f"}\n'
    rc, out, err = run(sb, ["-e", stdin_tables(sb) + "INSERT INTO out SELECT * FROM src;"],
                       stdin=data)
    no_sanitizer_report(err)
    check(rc == 1, "a malformed line fails the job: exit code %d" % rc, out, err)
    check("ERROR:  malformed JSON record" in err, "message", err)
    check('in stdin:3: {"id": 3, "name": oops}' in err, "names stdin:<line> and the record", err)
    check("SQLSTATE: 22P02" in err, "SQLSTATE", err)
    check(committed_rows(os.path.join(sb.dir, "out")) == [], "nothing committed")
    # Skipped and counted with json.ignore-parse-errors.
    sql = (stdin_tables(sb, "json", ", 'json.ignore-parse-errors' = 'true'", sink="out2")
           .replace("CREATE TABLE src", "CREATE TABLE src2")
           + "INSERT INTO out2 SELECT * FROM src2;")
    rc, out, err = run(sb, ["-e", sql], stdin=data)
    no_sanitizer_report(err)
    check(rc == 0, "exit code %d" % rc, out, err)
    check("WARNING:  2 malformed records were skipped" in err, "the warning counts them", err)
    check("INSERT 0 4" in out, "rows written", out)
    check(committed_rows(os.path.join(sb.dir, "out2")) == [(1, "a"), (2, "b"), (4, "d"), (6, "f")],
          "the good rows", committed_rows(os.path.join(sb.dir, "out2")))
    # CSV: one line, one record; the line number counts empty lines.
    sql = (stdin_tables(sb, "csv", sink="out3").replace("CREATE TABLE src", "CREATE TABLE src3")
           + "INSERT INTO out3 SELECT * FROM src3;")
    rc, out, err = run(sb, ["-e", sql], stdin=b"1,a\n\n2,b\nthree,c\n")
    check(rc == 1 and "ERROR:  malformed CSV record" in err and "in stdin:4: three,c" in err,
          "CSV stdin:<line>", rc, err)


def case_stdin_source_script_conflict(sb):
    """The shell reads its statements from standard input: a stdin table
    cannot read it too; nor when the process has no standard input."""
    script = (stdin_tables(sb) + "\nSELECT * FROM src;\n").encode()
    for args in ([], ["-f", "-"]):
        rc, out, err = run(sb, args, stdin=script)
        no_sanitizer_report(err)
        check(rc == 1, "%s: exit code %d" % (args, rc), out, err)
        check("ERROR:  standard input is in use: the shell reads its statements from it" in err,
              "%s: message" % args, err)
        check("HINT:  Give the statements with -f FILE or -e so that standard input is free "
              "for data." in err, "%s: hint" % args, err)
        check("SQLSTATE: 55006" in err, "%s: SQLSTATE" % args, err)
        run(sb, ["-e", "DROP TABLE src; DROP TABLE out;"])
    # No standard input at all (closed): an error, not a read of whatever
    # file the process opened as fd 0 (its data directory's lock file).
    p = subprocess.run([SLUICE, "--data-dir", sb.data, "-e", stdin_tables(sb)
                        + "SELECT * FROM src;"], capture_output=True, timeout=TIMEOUT,
                       env=sb.env(), cwd=sb.dir, preexec_fn=lambda: os.close(0))
    err = p.stderr.decode("utf-8", "replace")
    check(p.returncode == 1 and "ERROR:  standard input is not open" in err
          and "SQLSTATE: 58030" in err, "stdin closed", p.returncode, err)
    run(sb, ["-e", "DROP TABLE src; DROP TABLE out;"])
    # -f FILE leaves standard input free.
    path = sb.path("q.sql", stdin_tables(sb) + "INSERT INTO out SELECT * FROM src;\n")
    rc, out, err = run(sb, ["-f", path], stdin=b'{"id": 7, "name": "g"}\n')
    check(rc == 0 and committed_rows(os.path.join(sb.dir, "out")) == [(7, "g")], "-f FILE",
          rc, out, err)


def case_stdin_source_concurrent(sb):
    """Two background jobs reading two stdin tables: one fails with 55006
    instead of splitting the lines; the other reads every line."""
    sql = (stdin_tables(sb) + stdin_tables(sb, sink="out2").replace("TABLE src", "TABLE src2")
           + "SET 'parallelism.default' = '2'; SET 'table.dml-sync' = 'false'; "
           "SET 'pipeline.name' = 'one'; INSERT INTO out SELECT * FROM src; "
           "SET 'pipeline.name' = 'two'; INSERT INTO out2 SELECT * FROM src2;")
    proc = subprocess.Popen([SLUICE, "--data-dir", sb.data, "-e", sql], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=sb.env(),
                            cwd=sb.dir)
    try:
        # Standard input stays open (no data yet) until one job has failed.
        deadline = time.monotonic() + TIMEOUT
        err = b""
        os.set_blocking(proc.stderr.fileno(), False)
        while b"SQLSTATE: 55006" not in err and time.monotonic() < deadline:
            select.select([proc.stderr], [], [], 0.1)
            err += proc.stderr.read() or b""
        check(b"SQLSTATE: 55006" in err, "one job refused", err)
        data = b"".join(b'{"id": %d, "name": "r%d"}\n' % (i, i) for i in range(1, 101))
        out, rest = proc.communicate(input=data, timeout=TIMEOUT)
        err = (err + rest).decode("utf-8", "replace")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    no_sanitizer_report(err)
    m = re.search(r'ERROR:  job "(one|two)" failed: standard input is already being read by '
                  r'table "(src|src2)"', err)
    check(m, "the refused job and the reading table are named", err)
    failed, reader = m.group(1), m.group(2)
    check((failed == "one") == (reader == "src2"), "the other job reads", err)
    check(proc.returncode == 1, "a failed background job fails the run", proc.returncode, err)
    ok = "two" if failed == "one" else "one"
    check('NOTICE:  job "%s" finished: 100 rows written' % ok in err, "the other finished", err)
    rows = committed_rows(os.path.join(sb.dir, "out2" if ok == "two" else "out"))
    check(rows == [(i, "r%d" % i) for i in range(1, 101)], "every line once", rows[:5], len(rows))
    check(committed_rows(os.path.join(sb.dir, "out" if ok == "two" else "out2")) == [],
          "nothing from the refused job")


def case_stdin_source_terminal(sb):
    """`sluice -e` on a terminal reads the typed lines until Ctrl-D; the REPL
    reads its statements from the terminal and refuses a stdin table."""
    rc, out, err = run(sb, ["-e", stdin_tables(sb, "csv")])
    check(rc == 0, "setup", out, err)
    p = Pty(sb, ["-e", "INSERT INTO out SELECT * FROM src;"])
    try:
        p.send("1,typed\r")
        p.send("2,lines\r")
        p.send(b"\x04")
        st = p.wait_exit()
        text = p.buf.decode("utf-8", "replace")
        no_sanitizer_report(text)
        check(st == 0 and "INSERT 0 2" in text, "exit status %s" % st, text)
    finally:
        p.kill()
    check(committed_rows(os.path.join(sb.dir, "out")) == [(1, "typed"), (2, "lines")],
          "typed rows committed", committed_rows(os.path.join(sb.dir, "out")))
    p = repl(sb)
    try:
        p.send("SELECT * FROM src;\n")
        out = p.expect(PROMPT)
        check(b"standard input is in use" in out and b"SQLSTATE: 55006" in out, "REPL: 55006",
              out)
        quit_ok(p)
    finally:
        p.kill()


# ---------------------------------------------------------------------------
# Cases: secrets (issue 10 item 12). A value set in DDL under a key that
# Flink's sensitive-key rule makes secret never leaves the engine; the
# catalog file keeps it, readable by its owner only.

SECRET = "hunter2"


def secret_kafka_table(name="k", extra="", jaas=True):
    """A Kafka table holding secrets (every value containing SECRET); no
    broker listens on its address. librdkafka refuses a JAAS configuration
    (Java's) when a job starts."""
    jaas_opt = ("'properties.sasl.jaas.config' = 'x.PlainLoginModule required "
                "password=\"%s-jaas\";', " % SECRET) if jaas else ""
    return ("CREATE TABLE %s (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'orders', "
            "'properties.bootstrap.servers' = '127.0.0.1:9', 'format' = 'json', "
            "'properties.security.protocol' = 'SASL_PLAINTEXT', "
            "'properties.sasl.mechanism' = 'PLAIN', 'properties.sasl.username' = 'alice', "
            "'properties.sasl.password' = '%s-sasl', %s"
            "'properties.ssl.key.password' = '%s-key'%s);" % (name, SECRET, jaas_opt, SECRET, extra))


def files_under(top):
    for d, _, names in os.walk(top):
        for n in names:
            yield os.path.join(d, n)


def check_no_secret(where, text):
    check(SECRET not in text, "%s shows a secret value" % where, text)


def mode_of(path):
    return os.stat(path).st_mode & 0o777


def case_secrets_script(sb):
    """A script exercising every way a value can leave: SHOW CREATE TABLE,
    DESCRIBE, EXPLAIN, SET, errors quoting the statement (LINE block), a
    job into the secret-holding table that fails (librdkafka's errors, the
    job's record), the debug log. Nothing shows the secret; the catalog file
    has it, mode 0600, in a data directory of mode 0700."""
    sql = "\n".join([
        "SET 'parallelism.default' = '1';",
        "SET 'restart-strategy.type' = 'none';",
        "SET 'execution.checkpointing.interval' = '500 ms';",
        secret_kafka_table(extra=", 'properties.message.timeout.ms' = '1500'", jaas=False),
        secret_kafka_table("kj"),
        "SHOW CREATE TABLE k;",
        "SHOW CREATE TABLE kj;",
        "DESCRIBE k;",
        "ALTER TABLE k SET ('properties.ssl.keystore.password' = '%s-altered');" % SECRET,
        "SHOW CREATE TABLE k;",
        "CREATE TABLE nums (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3',"
        " 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '3');",
        "EXPLAIN INSERT INTO k SELECT id FROM nums;",
        "INSERT INTO k SELECT id FROM nums;",
        "INSERT INTO kj SELECT id FROM nums;",
        "SHOW JOBS;",
        # errors in statements that hold secrets
        secret_kafka_table("bad", ", 'bogus' = 'x'"),
        "SET 'properties.sasl.password' = '%s-set';" % SECRET,
        "SET;",
    ])
    script = sb.path("s.sql", sql + "\n")
    rc, out, err = run(sb, ["--continue-on-error", "-f", script], env=sb.env(SLUICE_LOG="debug"))
    no_sanitizer_report(err)
    check(rc == 1, "exit code %d (the failed statements)" % rc, out, err)
    # It ran: the table, its redacted options, the job's failure, the errors.
    check("'properties.sasl.password' = '******'" in out, "SHOW CREATE TABLE redacts", out)
    check("'properties.sasl.jaas.config' = '******'" in out, "jaas.config redacted (kj)", out)
    check("'properties.ssl.keystore.password' = '******'" in out, "ALTER'ed secret redacted", out)
    check("'properties.sasl.username' = 'alice'" in out, "other values shown", out)
    check("== Guarantees ==" in out, "EXPLAIN ran", out)
    check("could not write to Kafka topic" in err, "the job failed", err)
    check("invalid value for option 'properties.sasl.jaas.config'" in err and
          "librdkafka:" in err, "librdkafka refused the JAAS configuration", err)
    check("unrecognized option 'bogus'" in err and "LINE 1:" in err, "error with LINE", err)
    check("unrecognized configuration parameter" in err, "SET error", err)
    check_no_secret("stdout", out)
    check_no_secret("stderr", err)
    # Every file of the data directory but the catalog: job records, checkpoints.
    others = [f for f in files_under(sb.data) if os.path.basename(f) != "catalog.json"]
    check(any(f.endswith("_job.json") for f in others), "a job record", others)
    for f in others:
        with open(f, "rb") as fh:
            check(SECRET.encode() not in fh.read(), "%s holds a secret value" % f)
    # The catalog keeps the values (jobs need them), for its owner only.
    cat = os.path.join(sb.data, "catalog.json")
    with open(cat, encoding="utf-8") as fh:
        text = fh.read()
    for v in ("-sasl", "-jaas", "-key", "-altered"):
        check(SECRET + v in text, "catalog keeps %s" % v, text)
    check(mode_of(cat) == 0o600, "catalog.json mode %o" % mode_of(cat))
    check(mode_of(sb.data) == 0o700, "data directory mode %o" % mode_of(sb.data))


def case_secrets_catalog_mode(sb):
    """The catalog stays 0600 when it is rewritten, even over a catalog and
    a leftover catalog.json.tmp that another mode (an older version, a
    chmod) left group- and world-readable."""
    rc, out, err = run(sb, ["-e", secret_kafka_table()])
    check(rc == 0, "create", out, err)
    cat = os.path.join(sb.data, "catalog.json")
    os.chmod(cat, 0o644)
    with open(cat + ".tmp", "w") as fh:
        fh.write("leftover")
    os.chmod(cat + ".tmp", 0o644)
    rc, out, err = run(sb, ["-e", "ALTER TABLE k SET ('topic' = 'other');"])
    check(rc == 0, "alter", out, err)
    check(mode_of(cat) == 0o600, "catalog.json mode %o after a rewrite" % mode_of(cat))
    with open(cat, encoding="utf-8") as fh:
        check(SECRET + "-sasl" in fh.read(), "catalog keeps the value")
    # A data directory that exists (empty) keeps its mode: it is the user's.
    pre = os.path.join(sb.dir, "premade")
    os.mkdir(pre, 0o755)
    os.chmod(pre, 0o755)
    rc, out, err = run(sb, ["--data-dir", pre, "-e", "SHOW TABLES;"], data_dir=False)
    check(rc == 0, "premade data dir", out, err)
    check(mode_of(pre) == 0o755, "an existing directory keeps its mode")
    check(mode_of(os.path.join(pre, "catalog.json")) == 0o600, "its catalog is 0600")


def case_repl_history_secret(sb):
    """A CREATE TABLE with secrets typed into the REPL: the error's LINE block
    and the history file (mode 0600) show '******', recalling the entry
    brings back the redacted text."""
    p = repl(sb)
    try:
        p.send(secret_kafka_table("bad", ", 'bogus' = 'x'") + "\n")
        out = p.expect(b"22023")
        check(b"LINE 1:" in out and SECRET.encode() not in out.split(b"\n", 1)[1],
              "LINE block redacted", out)
        p.expect(PROMPT)
        p.send(secret_kafka_table() + "\n")
        p.expect(b"CREATE TABLE\r\n")
        p.expect(PROMPT)
        quit_ok(p)
    finally:
        p.kill()
    with open(sb.histfile, "rb") as f:  # libedit's format: strvis-encoded lines
        hist = re.sub(rb"\\([0-7]{3})", lambda m: bytes([int(m.group(1), 8)]), f.read())
    check(SECRET.encode() not in hist, "history file holds a secret value", hist)
    check(b"'properties.sasl.password' = '******'" in hist.replace(b"\\", b""),
          "history keeps the redacted statement", hist)
    check(b"'properties.sasl.username' = 'alice'" in hist.replace(b"\\", b""),
          "history keeps the rest", hist)
    check(mode_of(sb.histfile) == 0o600, "history file mode %o" % mode_of(sb.histfile))
    p = repl(sb)
    try:
        p.send(b"\x1b[A")  # up arrow: the redacted CREATE TABLE
        p.send(b"\r")
        out = p.expect(b"42P07")  # it runs again: duplicate table
        check(SECRET.encode() not in out, "recalled entry is redacted", out)
        p.expect(PROMPT)
        quit_ok(p)
    finally:
        p.kill()


def case_stdin_default_warning(sb):
    """Issue 10 item 11: stdin (not replayable) into a filesystem sink, whose
    default is exactly-once, with nothing requested: the job runs at none,
    never silently: a WARNING at INSERT, SHOW JOBS and the job's record say
    the default was lowered (not that it was requested)."""
    sql = ("SET 'parallelism.default' = '1'; " + stdin_tables(sb)
           + "INSERT INTO out SELECT id, name FROM src; SHOW JOBS;")
    rc, out, err = run(sb, ["-e", sql], stdin=b'{"id": 1, "name": "a"}\n')
    no_sanitizer_report(err)
    check(rc == 0, "exit code %d" % rc, out, err)
    check(committed_rows(os.path.join(sb.dir, "out")) == [(1, "a")], "the rows", out)
    want = ("WARNING:  sink \"out\" runs none, not exactly-once (the default of connector "
            "'filesystem'): source \"src\" (connector 'stdin') cannot be replayed")
    check(want in err, "a warning names the lowered default", err)
    check("| none (default exactly-once) |" in out, "SHOW JOBS", out)
    jobs = os.path.join(sb.data, "jobs")
    (name,) = os.listdir(jobs)
    with open(os.path.join(jobs, name, "_job.json"), encoding="utf-8") as fh:
        rec = json.load(fh)
    check(rec["guarantee"] == "none (default exactly-once)", "job record", rec)
    check("cannot be replayed" in rec["guarantees"], "job record's reasons", rec)
    # Asked for nothing and given the default: no warning (datagen is replayable).
    sql = ("CREATE TABLE nums (id BIGINT, name STRING) WITH ('connector' = 'datagen', "
           "'number-of-rows' = '2'); INSERT INTO out SELECT id, name FROM nums;")
    rc, out, err = run(sb, ["-e", sql])
    check(rc == 0 and "WARNING" not in err, "no warning when the default holds", out, err)


CASES = {name[len("case_"):]: fn for name, fn in globals().items() if name.startswith("case_")}


def cases_main(cases, sluice=None):
    """main() of a script of case_* functions (this one and
    tests/server/shellclient_test.py): --list prints their names; --case
    a,b (default all) runs each in a fresh Sandbox with the binary --sluice
    (default: sluice): 1 when one failed."""
    global SLUICE
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", default=sluice)
    ap.add_argument("--case", default="all")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print("\n".join(cases))
        return 0
    SLUICE = os.path.abspath(a.sluice)
    failed = 0
    for name in (list(cases) if a.case == "all" else a.case.split(",")):
        sb = Sandbox()
        try:
            cases[name](sb)
            print("ok   %s" % name)
        except Exception as e:  # Failure, timeouts, OS errors
            failed += 1
            print("FAIL %s: %s" % (name, e))
            traceback.print_exc()  # which step of the case
        finally:
            sb.cleanup()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(cases_main(CASES))
