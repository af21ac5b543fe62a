#!/usr/bin/env python3
"""Live results in the shell: rows of an unbounded query as they arrive,
Flink's result modes (tableau, changelog, table: the full-screen view),
Ctrl-C during a query, print-sink rows above the line being typed, and
--format csv|tsv|json for scripts.

The REPL runs on a pseudo-terminal (test_shell.py's Pty); what the screen
shows is checked with a terminal emulator (the pyte package). Results are
checked against rows computed here from the input file, with Python's own
csv and json parsers.

Usage: test_live.py --sluice PATH --case NAME   (--list prints the cases).
"""
import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_shell as ts  # noqa: E402
from test_shell import Failure, check, PROMPT  # noqa: E402

# A bounded input whose rows are known here: (k, name, v) with awkward text.
ROWS = [(i, ["plain", "with,comma", 'with "quote"', " spaced ", "naïve ✓", ""][i % 6] + str(i % 7),
         None if i % 5 == 0 else i * 3) for i in range(1, 61)]


def csv_input(sb):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for k, name, v in ROWS:
        w.writerow([k, name, "" if v is None else v])
    return sb.path("in.csv", buf.getvalue())


def file_table(sb):
    return ("CREATE TABLE f (k INT, name STRING, v INT) WITH ('connector' = 'filesystem', "
            "'path' = '%s', 'format' = 'csv');" % csv_input(sb))


SLOW = ("CREATE TABLE g (a INT, s STRING) WITH ('connector' = 'datagen', "
        "'rows-per-second' = '%d', 'fields.a.kind' = 'sequence', 'fields.a.start' = '1', "
        "'fields.a.end' = '1000000', 'fields.s.length' = '6');")

ROW_LINE = re.compile(r"^\| +(-?\d+) \| \w{6} +\|$")


def screen_of(data, rows=50, cols=200):
    """The screens data draws: (normal screen, alternate screen), each a list
    of lines, the alternate screen (?1049h .. ?1049l) emulated apart."""
    try:
        import pyte
    except ImportError:
        raise Failure("the pyte package is missing (scripts/setup installs python3-pyte; "
                      "or pip install pyte)")
    normal, alt = pyte.Screen(cols, rows), pyte.Screen(cols, rows)
    sn, sa = pyte.ByteStream(normal), pyte.ByteStream(alt)
    cur = sn
    for part in re.split(rb"(\x1b\[\?1049[hl])", data):
        if part == b"\x1b[?1049h":
            alt.reset()
            cur = sa
        elif part == b"\x1b[?1049l":
            cur = sn
        else:
            cur.feed(part)
    return normal.display, alt.display


def expected_groups():
    counts = {}
    for k, _, _ in ROWS:
        counts[k % 7] = counts.get(k % 7, 0) + 1
    return counts


def apply_changes(rows):
    """Materialize a changelog of (op, values...) tuples as a multiset."""
    out = []
    for op, *vals in rows:
        check(op in ("+I", "-U", "+U", "-D"), "op %r" % op)
        if op in ("+I", "+U"):
            out.append(tuple(vals))
        else:
            check(tuple(vals) in out, "retraction of a row not there", op, vals, out)
            out.reverse()
            out.remove(tuple(vals))
            out.reverse()
    return sorted(out)


def table_rows(out):
    """Data rows of a bordered table in out: lists of cell texts."""
    rows, seen_header = [], 0
    for line in out.splitlines():
        if line.startswith("+-"):
            seen_header += 1
            continue
        if line.startswith("|") and seen_header >= 2:
            rows.append([c.strip() for c in line[1:-1].split("|")])
    return rows


# ---------------------------------------------------------------------------
# Streaming and Ctrl-C.

def case_repl_stream_and_ctrl_c(sb):
    p = ts.repl(sb)
    p.send(SLOW % 2 + "\n")
    p.expect(PROMPT)
    # one reader: the rows come in sequence order (with two, row 4 may come
    # before row 3, and the count below would be taken too early)
    p.send("SET 'parallelism.default' = '1';\n")
    p.expect(PROMPT)
    start = len(p.buf)
    t0 = time.monotonic()
    p.send("SELECT * FROM g;\n")
    p.expect(re.compile(rb"\|\s+1 \| \w{6}\s+\|"), timeout=10)
    first = time.monotonic() - t0
    check(first < 2.0, "first row after %.2fs" % first, p.since(start))
    p.expect(re.compile(rb"\|\s+4 \| "), timeout=10)
    p.send(b"\x03")
    p.expect(re.compile(rb"Query terminated, received a total of (\d+) rows?"))
    p.expect(PROMPT)
    out = p.since(start).replace("\r\n", "\n")
    lines = [l.split("\r")[-1] for l in out.split("\n")]  # as the terminal shows them
    term = next(i for i, l in enumerate(lines) if l.startswith("Query terminated"))
    n = int(re.search(r"total of (\d+)", lines[term]).group(1))
    body = [l for l in lines[:term] if l.startswith("|") or l.startswith("+")]
    data = [l for l in body[3:] if l.startswith("|")]
    check(all(ROW_LINE.match(l) for l in data), "every row line whole", out)
    check(body[-1].startswith("+--") and body[-1].endswith("+"), "closing rule", out)
    check(len(data) == n and n >= 4, "count %d matches %d rows printed" % (n, len(data)), out)
    check(sorted(int(ROW_LINE.match(l).group(1)) for l in data) == list(range(1, n + 1)),
          "no row lost", out)
    # the prompt works after
    p.send("SHOW TABLES;\n")
    p.expect(b"1 row in set")
    p.expect(PROMPT)
    ts.quit_ok(p)


def case_script_stream_and_interrupt(sb):
    script = sb.path("q.sql", SLOW % 2 + "\nSELECT * FROM g;\n")
    argv = [ts.SLUICE, "--data-dir", sb.data, "-f", script]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=sb.env(),
                            cwd=sb.dir, bufsize=0)
    try:
        t0 = time.monotonic()
        lines = []
        while True:
            line = proc.stdout.readline().decode()
            check(line != "", "output ended early", lines)
            lines.append(line.rstrip("\n"))
            if ROW_LINE.match(lines[-1]):
                break
        first = time.monotonic() - t0
        check(first < 4.0, "first row of a -f script after %.2fs (startup included)" % first, lines)
        time.sleep(1.0)  # let a few more rows come
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=ts.TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
    out = "\n".join(lines) + "\n" + rest.decode()
    ts.no_sanitizer_report(err.decode())
    m = re.search(r"Query terminated, received a total of (\d+) rows?", out)
    check(m, "terminated line", out, err)
    data = [l for l in out.splitlines() if l.startswith("| ") and ROW_LINE.match(l)]
    check(len(data) == int(m.group(1)), "count matches", out)


# ---------------------------------------------------------------------------
# Result modes in scripts.

GROUPED = "SELECT MOD(k, 7) AS g, COUNT(*) AS c FROM f GROUP BY MOD(k, 7);"


def case_result_mode_tableau(sb):
    rc, out, err = ts.run(sb, ["-e", file_table(sb) + GROUPED])
    check(rc == 0, "exit", rc, out, err)
    rows = table_rows(out)
    check(out.split("\n")[2].split("|")[1].strip() == "op", "op column first", out)
    got = apply_changes([(r[0], int(r[1]), int(r[2])) for r in rows])
    check(got == sorted(expected_groups().items()), "final counts", got, out)
    # an insert-only result has no op column in tableau mode
    rc, out, err = ts.run(sb, ["-e", "SELECT k FROM f WHERE k < 3;"])
    check(rc == 0 and "| op" not in out and table_rows(out) == [["1"], ["2"]], "insert-only", out, err)


def case_result_mode_changelog(sb):
    rc, out, err = ts.run(sb, ["-e", file_table(sb) + "SET 'sql-client.execution.result-mode' = "
                               "'changelog'; SELECT k, v FROM f WHERE k <= 10; " + GROUPED])
    check(rc == 0, "exit", rc, out, err)
    tables = out.split("in set")
    first = table_rows(tables[0])
    check([r[0] for r in first] == ["+I"] * 10, "every change with its op", out)
    check([(int(r[1]), None if r[2] == "<NULL>" else int(r[2])) for r in first] ==
          [(k, v) for k, _, v in ROWS[:10]], "the rows", out)
    got = apply_changes([(r[0], int(r[1]), int(r[2])) for r in table_rows(tables[1])])
    check(got == sorted(expected_groups().items()), "final counts", got, out)


def case_result_mode_table_script(sb):
    rc, out, err = ts.run(sb, ["-e", file_table(sb) + "SET 'sql-client.execution.result-mode' = "
                               "'table';" + GROUPED])
    check(rc == 0, "exit", rc, out, err)
    rows = table_rows(out)
    check("| op" not in out, "no op column", out)
    check(sorted((int(a), int(b)) for a, b in rows) == sorted(expected_groups().items()),
          "the final table, not a pipe's changes", out)


# ---------------------------------------------------------------------------
# The full-screen table view.

def view_rows(alt):
    """Rows shown on the view's screen: lines between the names and the keys."""
    names = next(i for i, l in enumerate(alt) if l.split()[:2] == ["k", "c"])
    keys = next(i for i, l in enumerate(alt) if l.startswith(" Q Quit"))
    return [tuple(int(x) for x in l.split()) for l in alt[names + 1:keys] if l.strip()]


def wait_screen(p, pred, what):
    deadline = time.monotonic() + ts.TIMEOUT
    while True:
        normal, alt = screen_of(p.buf)
        if pred(normal, alt):
            return normal, alt
        if time.monotonic() > deadline:
            raise Failure("screen never showed %s:\n%s" % (what, "\n".join(alt)))
        p._read(time.monotonic() + 0.2)


def case_repl_table_view(sb):
    p = ts.repl(sb)
    p.send(file_table(sb) + "\n")
    p.expect(PROMPT)
    p.send("SET 'sql-client.execution.result-mode' = 'table';\n")
    p.expect(PROMPT)
    # 60 groups, each updated: a materialized table of 60 rows, 45 a page
    p.send("SELECT k, COUNT(*) AS c FROM (SELECT k FROM f UNION ALL SELECT k FROM f) GROUP BY k;\n")
    normal, alt = wait_screen(p, lambda n, a: "Query finished" in a[1], "Query finished")
    check("SQL Query Result (Table)" in alt[0], "title", alt[0])
    check("Page: 1 of 2" in alt[1] or "Page: Last of 2" in alt[1], "two pages", alt[1])
    check("Rows: 60" in alt[1], "row count", alt[1])
    seen = {}
    # first page, then the next with PgDn, back with PgUp
    p.send(b"\x1b[H")  # Home: the first page
    normal, alt = wait_screen(p, lambda n, a: "Page: 1 of 2" in a[1], "page 1")
    page1 = view_rows(alt)
    check(len(page1) == 45, "a full page", len(page1), alt)
    p.send(b"\x1b[6~")
    normal, alt = wait_screen(p, lambda n, a: "Page: Last of 2" in a[1], "page 2")
    page2 = view_rows(alt)
    check(len(page2) == 15, "the rest", alt)
    for k, c in page1 + page2:
        seen[k] = c
    check(len(page1 + page2) == 60 and seen == {k: 2 for k, _, _ in ROWS},
          "materialized rows: every k once with count 2", page1 + page2)
    p.send(b"\x1b[5~")
    wait_screen(p, lambda n, a: "Page: 1 of 2" in a[1], "back to page 1")
    p.send(b"q")
    p.expect(b"\x1b[?1049l")
    p.expect(PROMPT)
    normal, alt = screen_of(p.buf)
    text = "\n".join(normal)
    check("SQL Query Result" not in text and "SET" in text and normal[-1].strip() == "" or
          any(l.startswith("sluice> ") for l in normal), "the normal screen is back", text)
    # the terminal works as before: a statement runs and echoes
    p.send("SHOW TABLES;\n")
    p.expect(b"1 row in set")
    p.expect(PROMPT)
    ts.quit_ok(p)


def case_repl_table_view_ctrl_c(sb):
    p = ts.repl(sb)
    p.send(SLOW % 5 + "\n")
    p.expect(PROMPT)
    p.send("SET 'sql-client.execution.result-mode' = 'table';\n")
    p.expect(PROMPT)
    p.send("SELECT a, s FROM g;\n")
    wait_screen(p, lambda n, a: "Rows: " in a[1] and "Rows: 0 " not in a[1], "rows")
    p.send(b"\x03")  # Ctrl-C: the query stops, the prompt comes back
    p.expect(b"\x1b[?1049l")
    p.expect(PROMPT)
    p.send("SHOW TABLES;\n")
    p.expect(b"1 row in set")
    p.expect(PROMPT)
    # q on a running unbounded query ends it too
    p.send("SELECT a, s FROM g;\n")
    wait_screen(p, lambda n, a: "Refresh: live" in a[1] and "Rows: 0 " not in a[1], "rows again")
    p.send(b"q")
    p.expect(b"\x1b[?1049l")
    p.expect(PROMPT)
    ts.quit_ok(p)


# ---------------------------------------------------------------------------
# Print-sink rows above the line being typed.

def empty_prompt_after(normal, typed):
    """The screen shows, below the last line showing typed, an empty prompt
    that a row was printed under: one drawn whole, not caught half drawn."""
    lines = [l.rstrip() for l in normal if l.strip()]
    last = max((i for i, l in enumerate(lines) if l == typed), default=None)
    return last is not None and any(
        lines[i] == "sluice>" and re.match(r"pr(:\d)?> \+I\[", lines[i + 1])
        for i in range(last + 1, len(lines) - 1))


def case_repl_print_above_prompt(sb):
    p = ts.repl(sb)
    p.send(SLOW % 4 + "\n")
    p.expect(PROMPT)
    p.send("CREATE TABLE out (a INT) WITH ('connector' = 'print', 'print-identifier' = 'pr');\n")
    p.expect(PROMPT)
    p.send("INSERT INTO out SELECT a FROM g;\n")
    p.expect(PROMPT)
    p.send("SELECT 'half")  # typed, not sent
    mark = len(p.buf)
    p.expect(re.compile(rb"pr(:\d)?> \+I\[\d+\]"))
    p.expect(re.compile(rb"pr(:\d)?> \+I\[\d+\]"))
    p.expect(b"SELECT 'half")  # the prompt line redrawn
    deadline = time.monotonic() + ts.TIMEOUT
    while True:  # the screen: rows above, the half-typed line last and intact
        normal, _ = screen_of(p.buf)
        lines = [l.rstrip() for l in normal if l.strip()]
        if lines and lines[-1] == "sluice> SELECT 'half" and any(re.match(r"pr(:\d)?> \+I\[", l) for l in lines):
            break
        if time.monotonic() > deadline:
            raise Failure("screen:\n" + "\n".join(normal))
        p._read(time.monotonic() + 0.2)
    check(all(re.fullmatch(r"pr(:\d)?> \+I\[\d+\]", l) for l in lines if "+I[" in l) and
          all(l == "sluice> SELECT 'half" for l in lines if "'half" in l), "no garbled line",
          "\n".join(lines))
    check(re.search(rb"pr(:\d)?> ", p.buf[mark:]), "rows came while typing")
    p.send(b"\x03")
    # The prompts drawn again above new rows look alike: wait until the screen
    # shows the Ctrl-C done (an empty prompt below the half-typed line), or a
    # Ctrl-D sent before it would be among the keys a Ctrl-C discards.
    wait_screen(p, lambda n, a: empty_prompt_after(n, "sluice> SELECT 'half"),
                "an empty prompt after Ctrl-C")
    ts.quit_ok(p)


# ---------------------------------------------------------------------------
# --format.

def expected_text_rows():
    return [(str(k), name, None if v is None else str(v)) for k, name, v in ROWS]


def case_format_csv(sb):
    for args in (["--format", "csv"], ["--csv"], ["--format=CSV"]):
        rc, out, err = ts.run(sb, args + ["-e", file_table(sb) + "SELECT k, name, v FROM f; DROP TABLE f;"])
        check(rc == 0, "exit", args, rc, out, err)
        check(out.startswith("CREATE TABLE\n") and out.endswith("DROP TABLE\n"), "command tags stay", out)
        body = out[len("CREATE TABLE\n"):-len("DROP TABLE\n")]
        rows = list(csv.reader(io.StringIO(body, newline="")))
        check(rows[0] == ["k", "name", "v"], "header", rows[:2])
        got = [(a, b, None if c == "" else c) for a, b, c in rows[1:]]
        check(got == expected_text_rows(), "rows", got[:5], out)


def case_format_tsv(sb):
    rc, out, err = ts.run(sb, ["--format", "tsv", "-e", file_table(sb) + "SELECT k, name, v FROM f;"])
    check(rc == 0, "exit", rc, out, err)
    lines = out.split("\n")[1:-1]
    check(lines[0] == "k\tname\tv", "header", lines[:2])

    def unescape(f):
        if f == "\\N":
            return None
        return re.sub(r"\\(.)", lambda m: {"t": "\t", "n": "\n", "r": "\r"}.get(m.group(1), m.group(1)), f)
    got = [tuple(unescape(f) for f in l.split("\t")) for l in lines[1:]]
    check(got == expected_text_rows(), "rows", got[:5], out)


def case_format_json(sb):
    rc, out, err = ts.run(sb, ["--format", "json", "-e", file_table(sb) +
                               "SELECT k, name, v, v > 30 AS big, CAST(k AS DOUBLE) / 4 AS q FROM f;"])
    check(rc == 0, "exit", rc, out, err)
    lines = out.split("\n")[1:-1]
    objs = [json.loads(l) for l in lines]  # one object a line
    want = [{"k": k, "name": name, "v": v, "big": None if v is None else v > 30, "q": k / 4}
            for k, name, v in ROWS]
    check(objs == want, "rows", objs[:3], want[:3])
    check(all(list(o) == ["k", "name", "v", "big", "q"] for o in objs), "keys in column order")
    check('"v":null' in lines[4] and '"k":5,' in lines[4], "NULL as null, numbers unquoted", lines[4])
    # an updating result keeps its op column; tags and empty results
    rc, out, err = ts.run(sb, ["--format", "json", "-e", "SELECT k FROM f WHERE k > 1000;"])
    check(rc == 0 and out == "", "no rows: nothing", out, err)
    rc, out, err = ts.run(sb, ["--format", "xml", "-e", "SHOW TABLES;"])
    check(rc == 2 and "unknown output format" in err, "bad format", rc, err)


CASES = {name[5:]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")}


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print("\n".join(CASES))
        return 0
    ts.SLUICE = os.path.abspath(a.sluice)
    names = list(CASES) if a.case == "all" else [a.case]
    failed = 0
    for name in names:
        sb = ts.Sandbox()
        try:
            CASES[name](sb)
            print("ok", name)
        except Exception:
            import traceback
            traceback.print_exc()
            print("FAIL", name)
            failed += 1
        finally:
            sb.cleanup()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
