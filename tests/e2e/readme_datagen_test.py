#!/usr/bin/env python3
"""readme_datagen_test.py — the README's datagen TUMBLE example produces windows.

Runs exactly the SQL of README.md's block that creates the datagen table
`clicks` (extracted from README.md, not copied) with `sluice -f`, reads the
print sink's lines from its standard output, and stops it once two full
windows came out. The reference is computed here from the rate and window
size the README's SQL states: every window is `size` seconds long and aligned,
consecutive, and holds rate * size rows, except the first (the job started
within it), which holds about (its end - the job's start) * rate.

Usage: readme_datagen_test.py --sluice PATH [--readme README.md]
"""
import argparse
import calendar
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def readme_block(readme):
    """The ```sql block of the README that creates the datagen table."""
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    for block in re.findall(r"```sql(?: continuous)?\n(.*?)```", text, re.S):
        if "'connector' = 'datagen'" in block and "TUMBLE" in block and "INSERT INTO" in block:
            return block
    return None


def parse_ts(text):
    """'2026-01-01 00:00:10' or '... .000' -> epoch seconds (UTC) as a float."""
    day, _, frac = text.strip().partition(".")
    return calendar.timegm(time.strptime(day, "%Y-%m-%d %H:%M:%S")) + (float("0." + frac) if frac else 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--readme", default=os.path.join(HERE, "..", "..", "README.md"))
    ap.add_argument("--timeout", type=float, default=90)
    a = ap.parse_args()
    sql = readme_block(a.readme)
    if not sql:
        print("readme_datagen_test: README.md has no datagen block with a TUMBLE INSERT")
        return 1
    rate = int(re.search(r"'rows-per-second'\s*=\s*'(\d+)'", sql).group(1))
    insert = sql[sql.index("INSERT INTO"):]
    size = int(re.search(r"TUMBLE\(.*?INTERVAL\s+'(\d+)'\s+SECOND", insert, re.S).group(1))
    work = tempfile.mkdtemp(prefix="sluice-readme-")
    job = os.path.join(work, "readme.sql")
    with open(job, "w", encoding="utf-8") as f:
        f.write(sql)
    t_start = time.time()
    p = subprocess.Popen([a.sluice, "-D", os.path.join(work, "data"), "-f", job],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=work)
    windows, buf, out = [], b"", []
    deadline = time.monotonic() + a.timeout
    row = re.compile(r"^(?:\S*> )?\+I\[([^,]+), ([^,]+), (\d+)\]$")
    while time.monotonic() < deadline and len(windows) < 3 and p.poll() is None:
        r, _, _ = select.select([p.stdout], [], [], 0.5)
        if not r:
            continue
        chunk = os.read(p.stdout.fileno(), 65536)
        if not chunk:
            break
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            line = line.decode()
            out.append(line)
            m = row.match(line)
            if m:
                windows.append((parse_ts(m.group(1)), parse_ts(m.group(2)), int(m.group(3))))
    elapsed = time.time() - t_start
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    err = p.stderr.read().decode(errors="replace")
    problems = []
    if len(windows) < 3:
        problems.append("%d windows after %.0f s (want 3)" % (len(windows), elapsed))
    for k, (ws, we, n) in enumerate(windows):
        if we - ws != size or ws % size != 0:
            problems.append("window %d: [%s, %s) is not an aligned %d s window" % (k, ws, we, size))
        if k and ws != windows[k - 1][1]:
            problems.append("window %d does not follow window %d" % (k, k - 1))
        if k == 0:
            want = (we - t_start) * rate  # the job started within the first window
            if not (1 <= n <= size * rate and abs(n - want) <= 3 * rate):
                problems.append("first window: %d rows, about %.0f expected" % (n, want))
        elif n != size * rate:
            problems.append("window %d: %d rows, %d expected (%d rows/s * %d s)"
                            % (k, n, size * rate, rate, size))
    print("readme_datagen_test: %d rows/s, %d s windows: %r in %.1f s"
          % (rate, size, [w[2] for w in windows], elapsed))
    if problems:
        for pr in problems:
            print("  " + pr)
        print("stdout:\n" + "\n".join(out[-20:]) + "\nstderr:\n" + err[-2000:])
        print("readme_datagen_test: kept %s" % work)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
