#!/usr/bin/env python3
"""billing_example_test.py — examples/billing/run, as the README tells a user
to run it, against the ctest fixtures' Kafka broker and PostgreSQL server;
then every table it wrote is read back with psql (pg_util) and compared
with a reference computed here from the example's CSV files, not from
anything Sluice printed:

- settlement.ledger: one row per event id, its first version in arrival
  order (the morning, the evening, then the late click) — nothing lost or
  doubled through the SIGKILL while a transaction was prepared;
- click_conflicts: exactly the one conflict (click 1700, both amounts);
  the producer's retry (click 1500 twice, identical) is not one;
- late_clicks: exactly the click that came after its day closed;
- campaign_day: each campaign's clicks and spend of 2026-10-04 without the
  late click; no row for 2026-10-05 (its window has not closed);
- closed_days: the day, closed once, with the ledger's rows and amount;
- no prepared transaction of the job is left behind.
The script's own exit status says that the second settlement was refused.

Usage: billing_example_test.py --sluice PATH
"""
import argparse
import csv
import decimal
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "server"))
import pg_util  # noqa: E402
from srv_util import free_port  # noqa: E402

DATA = os.path.join(ROOT, "examples", "billing", "data")


def read(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return [(int(r[0]), r[1], decimal.Decimal(r[2]), r[3]) for r in csv.reader(f)]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--work", default=None)
    a = ap.parse_args()
    env = dict(os.environ)
    env.update(SLUICE=os.path.abspath(a.sluice), SLUICE_PORT=str(free_port()),
               PG_PORT=str(pg_util.port_of()), PG_RUN_DIR=pg_util.run_dir(),
               SETTLE_TIMEOUT="60")
    if a.work:
        env["BILLING_WORK"] = a.work
    r = subprocess.run([os.path.join(ROOT, "examples", "billing", "run")], env=env,
                       capture_output=True, text=True, timeout=600)
    sys.stdout.write(r.stdout[-6000:])
    sys.stderr.write(r.stderr[-4000:])
    if r.returncode != 0:
        fail("examples/billing/run exited with %d" % r.returncode)

    arrivals = read("morning.csv") + read("evening.csv") + read("late.csv")
    first = {}
    conflicts = []
    for row in arrivals:
        if row[0] not in first:
            first[row[0]] = row
        elif first[row[0]] != row:
            conflicts.append((first[row[0]], row))
    ledger = {int(e): (int(e), c, decimal.Decimal(m), t) for e, c, m, t in pg_util.query(
        "SELECT event_id, campaign_id, amount, to_char(ts, 'YYYY-MM-DD HH24:MI:SS.MS') "
        "FROM settlement.ledger")}
    n = pg_util.query("SELECT count(*) FROM settlement.ledger")[0][0]
    if int(n) != len(first) or ledger != first:
        fail("ledger: %s rows, %d expected; differing ids: %s" % (
            n, len(first), sorted(set(ledger.items()) ^ set(first.items()))[:5]))

    got = pg_util.query("SELECT conflict_key, stored_row, conflicting_row "
                        "FROM settlement.click_conflicts")
    if len(conflicts) != 1 or len(got) != 1:
        fail("conflicts: %d recorded, %d expected: %s" % (len(got), len(conflicts), got))
    key, stored, conflicting = got[0]
    (kept, other), = conflicts
    if ('"event_id"' not in key or str(kept[0]) not in key or str(kept[2]) not in stored
            or str(other[2]) not in conflicting):
        fail("conflict row %s does not show click %d with %s and %s" % (
            got[0], kept[0], kept[2], other[2]))

    day_end = "2026-10-05 00:00:00.000"
    watermark = max(r[3] for r in read("evening.csv"))
    late = [r for r in read("late.csv")]
    got = pg_util.query("SELECT to_char(event_time, 'YYYY-MM-DD HH24:MI:SS.MS'), \"row\" "
                        "FROM settlement.late_clicks")
    # row: the window's input columns (the ones the query uses: no event_id)
    row = json.loads(got[0][1]) if len(got) == 1 else {}
    if (len(got) != 1 or got[0][0] != late[0][3] or row.get("campaign_id") != late[0][1]
            or decimal.Decimal(str(row.get("amount"))) != late[0][2]
            or row.get("ts") != late[0][3]):
        fail("late_clicks: %s, expected click %s" % (got, late[0]))
    assert late[0][3] < day_end < watermark

    expect = {}
    for e, c, m, t in first.values():
        if t < day_end and (e, c, m, t) not in late:
            k = expect.setdefault(c, [0, decimal.Decimal(0)])
            k[0] += 1
            k[1] += m
    got = {c: [int(n), decimal.Decimal(s)] for d, c, n, s in pg_util.query(
        "SELECT to_char(day, 'YYYY-MM-DD'), campaign_id, clicks, spend "
        "FROM settlement.campaign_day")}
    days = {d for d, *_ in pg_util.query("SELECT DISTINCT to_char(day, 'YYYY-MM-DD') "
                                         "FROM settlement.campaign_day")}
    if got != expect or days != {"2026-10-04"}:
        fail("campaign_day: %s (days %s), expected %s" % (got, days, expect))

    on_day = [r for r in first.values() if r[3] < day_end and r not in late]
    got = pg_util.query("SELECT to_char(day, 'YYYY-MM-DD'), ledger_rows, ledger_amount "
                        "FROM settlement.closed_days")
    want = [("2026-10-04", str(len(on_day)), str(sum(r[2] for r in on_day)))]
    if got != want:
        fail("closed_days: %s, expected %s" % (got, want))

    left = pg_util.prepared_xacts("sluice:settle-")
    if left:
        fail("prepared transactions left behind: %s" % left)
    print("ok: ledger %d rows, 1 conflict, 1 late click, %d campaigns, day closed once"
          % (len(first), len(expect)))


if __name__ == "__main__":
    main()
