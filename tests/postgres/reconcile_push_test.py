#!/usr/bin/env python3
"""reconcile_push_test.py — RECONCILE's range predicate pushed into a
PostgreSQL ledger's COPY (planner/reconcile_push.c, the jdbc scan's
'scan.copy.where'): a day's settlement reads the day's rows, not the whole
ledger (ctest pg.reconcile_push, fixture `pg`).

The ledger is a view over a table of three days of clicks whose amount is
1 / 0 for every row outside the middle day: reading any of those rows fails
with 22012 (PostgreSQL evaluates the select list only for the rows its WHERE
keeps). So
  - RECONCILE ... WHERE ts >= <day> AND ts < <day + 1> (plus conjuncts that
    are not pushed: an arithmetic one, one on a column of both sides) must
    succeed, CONSISTENT: only the day's rows were read;
  - the same without WHERE must fail with 22012 (the control: the trap
    works, the ledger is read whole then);
  - a predicate that keeps rows outside the day through OR, or compares
    strings by order, is not pushed: it fails with 22012 too (a weaker
    condition is never wrong, a stronger one would be);
  - IN, BETWEEN, IS NOT NULL and a DATE literal on the day are pushed: they
    succeed, and with a row of the day deleted by psql, missing names
    exactly that id (the reference: the ids of the day this test wrote).

Usage: reconcile_push_test.py --sluice PATH
"""
import argparse
import datetime
import os
import subprocess
import sys
import tempfile

import pg_util

FAILED = []


def fail(msg):
    print("reconcile_push_test: FAILED: " + msg)
    FAILED.append(msg)


def run(sluice, data, sql):
    with open(data + ".sql", "w") as f:
        f.write(sql)
    p = subprocess.run([sluice, "--data-dir", data, "-q", "--format=csv", "-f", data + ".sql"],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="sluice-recpush-")
    t0 = datetime.datetime(2026, 10, 3, 0, 0)
    rows = [(i, "%d.%02d" % (i // 100, i % 100), t0 + datetime.timedelta(minutes=20 * i))
            for i in range(1, 3 * 72 + 1)]  # three days, one click every 20 minutes
    day = [r for r in rows if r[2].day == 4]
    os.makedirs(os.path.join(work, "src"))
    with open(os.path.join(work, "src", "part-0.csv"), "w") as f:
        for i, amt, ts in rows:
            f.write("%d,%s,c%d,%s\n" % (i, amt, i % 3, ts.strftime("%Y-%m-%d %H:%M:%S")))
    pg_util.execute(
        "DROP VIEW IF EXISTS recpush_ledger; DROP TABLE IF EXISTS recpush_t; "
        "CREATE TABLE recpush_t (event_id bigint PRIMARY KEY, amount numeric(10, 2), "
        "campaign text, ts timestamp(3)); "
        "INSERT INTO recpush_t VALUES %s; "
        "CREATE VIEW recpush_ledger AS SELECT event_id, CASE WHEN ts < '2026-10-04' OR "
        "ts >= '2026-10-05' THEN (1 / (event_id - event_id))::numeric(10, 2) ELSE amount END "
        "AS amount, campaign, ts FROM recpush_t" %
        ", ".join("(%d, %s, 'c%d', '%s')" % (i, amt, i % 3, ts) for i, amt, ts in rows))
    ddl = ("CREATE TABLE clicks (event_id BIGINT, amount DECIMAL(10, 2), campaign STRING, "
           "ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv');"
           "CREATE TABLE ledger (event_id BIGINT, amount DECIMAL(10, 2), campaign STRING, "
           "ts TIMESTAMP(3), PRIMARY KEY (event_id) NOT ENFORCED) WITH ('connector' = 'jdbc', "
           "'url' = '%s', 'table-name' = 'recpush_ledger', 'username' = 'sluice', "
           "'password' = 'sluice');" % (os.path.join(work, "src"), pg_util.jdbc_url()))
    rec = "RECONCILE ledger AGAINST clicks ON event_id COMPARE amount, campaign"
    day_where = " WHERE ts >= TIMESTAMP '2026-10-04 00:00:00' AND ts < TIMESTAMP '2026-10-05 00:00:00'"
    cases = [
        ("day", day_where + " AND amount * 2 >= 0 AND campaign IS NOT NULL", True),
        ("whole", "", False),
        ("or", " WHERE ts >= TIMESTAMP '2026-10-04 00:00:00' AND (ts < TIMESTAMP "
         "'2026-10-05 00:00:00' OR event_id > 1000)", False),
        ("strings", " WHERE campaign >= 'c0' AND ts BETWEEN TIMESTAMP '2026-10-02 00:00:00' "
         "AND TIMESTAMP '2026-10-09 00:00:00'", False),
        ("between", " WHERE ts BETWEEN TIMESTAMP '2026-10-04 00:00:00' AND TIMESTAMP "
         "'2026-10-04 23:59:59' AND event_id IN (%s)" % ", ".join(str(r[0]) for r in day), True),
    ]
    for n, (name, where, ok) in enumerate(cases):
        rc, out, err = run(a.sluice, os.path.join(work, "d%d" % n), ddl + rec + where + ";")
        if ok and (rc != 0 or "verdict,TRUE,0,CONSISTENT" not in out):
            fail("%s: expected CONSISTENT (only the day read), got rc %d:\n%s%s" %
                 (name, rc, out, err))
        if not ok and (rc == 0 or "22012" not in err):
            fail("%s: expected 22012 (rows outside the day read), got rc %d:\n%s%s" %
                 (name, rc, out, err))
    # A row of the day deleted: missing names it, read through the pushed range.
    gone = day[len(day) // 2][0]
    pg_util.execute("DELETE FROM recpush_t WHERE event_id = %d" % gone)
    rc, out, err = run(a.sluice, os.path.join(work, "dm"), ddl + rec + day_where + ";")
    want = "missing,FALSE,1,event_id=%d" % gone
    if rc != 0 or want not in out:
        fail("delete: expected %r, got rc %d:\n%s%s" % (want, rc, out, err))
    pg_util.execute("DROP VIEW recpush_ledger; DROP TABLE recpush_t")
    print("reconcile_push_test: %d cases, %d failed" % (len(cases) + 1, len(FAILED)))
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
