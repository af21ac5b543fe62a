#!/usr/bin/env python3
"""docs.examples — every SQL example in README.md and docs/*.md runs.

Each ```sql block of the documentation is one of three kinds, named by
the words after `sql` on its fence line:

  ```sql            an example: run with `sluice -f` in a fresh data
                    directory (its own working directory, so relative
                    paths land there); it must exit 0 within the timeout
                    with no ERROR on stderr.
  ```sql continuous a continuous job (an INSERT over a source without end):
                    it must still be running, without an ERROR, after
                    CONTINUOUS_SECONDS (what it writes is another test's:
                    e.g. e2e.readme_datagen checks README's windows).
  ```sql synopsis   grammar (brackets, `|`, `...`): not run.
  ```sql fragment   an excerpt that needs context the page leaves out
                    (`WITH (...)`): not run. Prefer a runnable example.

An example that needs tables the page does not show (an OVER example over
`bid`) gets them from an HTML comment right before its fence, invisible
on the rendered page:

  <!-- docs-test setup
  CREATE TABLE bid (...) WITH ('connector' = 'datagen', 'number-of-rows' = '50');
  -->

Any other word after `sql`, or an example that fails, fails the test, with
the file and line of the block and what sluice printed.

Usage: doc_examples.py SLUICE [REPO]   (REPO defaults to this file's ../..)
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

KINDS = {"", "continuous", "synopsis", "fragment"}
TIMEOUT = 60
CONTINUOUS_SECONDS = 5


def blocks(path):
    """(line, kind, setup, sql) for each ```sql block of path."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = re.match(r"^```sql\b(.*)$", lines[i])
        if not m:
            i += 1
            continue
        kind = m.group(1).strip()
        setup = ""
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        if k >= 0 and lines[k].strip() == "-->":
            start = k
            while start >= 0 and not lines[start].startswith("<!--"):
                start -= 1
            if start >= 0 and lines[start].strip() == "<!-- docs-test setup":
                setup = "\n".join(lines[start + 1:k])
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        out.append((i + 1, kind, setup, "\n".join(lines[i + 1:j])))
        i = j + 1
    return out


def run(sluice, setup, sql, continuous=False):
    """None when the example ran cleanly, else what went wrong."""
    with tempfile.TemporaryDirectory(prefix="sluice-doc-") as tmp:
        script = os.path.join(tmp, "example.sql")
        with open(script, "w", encoding="utf-8") as f:
            if setup:
                f.write(setup.rstrip() + "\n")
            f.write(sql.rstrip() + "\n")
        cmd = [sluice, "-D", os.path.join(tmp, "data"), "-f", script]
        if continuous:
            with open(os.path.join(tmp, "err"), "w+", encoding="utf-8") as err:
                p = subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.DEVNULL, stderr=err,
                                     stdin=subprocess.DEVNULL)
                try:
                    rc = p.wait(CONTINUOUS_SECONDS)
                except subprocess.TimeoutExpired:
                    rc = None
                    p.terminate()
                    p.wait(30)
                err.seek(0)
                text = err.read()
            if rc is not None or "ERROR:" in text:
                return "a continuous job ended (exit %r) or failed:\n%s" % (rc, text[-2000:])
            return None
        try:
            p = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=TIMEOUT,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return "did not finish within %d s (an unbounded source? give the example "\
                   "bounded tables in its setup, or fence it ```sql continuous)" % TIMEOUT
        if p.returncode != 0 or "ERROR:" in p.stderr:
            return "exit %d\n%s%s" % (p.returncode, p.stdout[-2000:], p.stderr[-2000:])
    return None


def main():
    sluice = os.path.abspath(sys.argv[1])
    repo = sys.argv[2] if len(sys.argv) > 2 else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    files = [os.path.join(repo, "README.md")] + sorted(glob.glob(os.path.join(repo, "docs", "*.md")))
    failures, ran, skipped = [], 0, 0
    for path in files:
        rel = os.path.relpath(path, repo)
        for line, kind, setup, sql in blocks(path):
            where = "%s:%d" % (rel, line)
            if kind not in KINDS:
                failures.append("%s: unknown kind %r after ```sql (one of: continuous, "
                                "synopsis, fragment)" % (where, kind))
                continue
            if kind in ("synopsis", "fragment"):
                skipped += 1
                continue
            ran += 1
            why = run(sluice, setup, sql, continuous=kind == "continuous")
            print("%s %s" % ("FAIL" if why else "ok  ", where), flush=True)
            if why:
                failures.append("%s: %s" % (where, why))
    print("%d examples run, %d synopses/fragments skipped" % (ran, skipped))
    if ran == 0:
        failures.append("no examples found")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
