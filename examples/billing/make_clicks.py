#!/usr/bin/env python3
"""Writes the clicks of examples/billing (deterministic; run from this folder).

data/morning.csv    2026-10-04 00:00 to 11:59: 1000 clicks, in order up to
                    2 s of jitter (within the 5 s watermark delay)
data/evening.csv    12:00 to 23:59: 1000 more, with two accidents in it —
                    a producer retry (click 1500 sent twice, byte for byte)
                    and a conflict (click 1700 again, with another amount) —
                    then three clicks of 2026-10-05 that move the watermark
                    past midnight, so the day can close
data/late.csv       one click of 2026-10-04 23:59:58 that arrives after the
                    day was closed

Columns: event_id, campaign_id, amount, ts (as the Kafka table declares).
"""
import random
import time

rnd = random.Random(20261004)
DAY = 1791072000  # 2026-10-04 00:00:00 UTC


def stamp(t):
    ms = int(round(t * 1000))
    s, ms = divmod(ms, 1000)
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(s)) + ".%03d" % ms


def click(i):
    t = DAY + (i - 1) * 43.2 + rnd.uniform(0.0, 2.0)
    return [i, rnd.choice(["c-north", "c-south", "c-east", "c-west"]),
            "%.2f" % (rnd.randint(5, 400) / 100.0), stamp(t)]


def write(name, rows):
    with open(name, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(",".join(str(v) for v in r) + "\n")


clicks = [click(i) for i in range(1, 2001)]
evening = clicks[1000:]
retry = clicks[1499]                      # click 1500, sent again as it was
evening.insert(evening.index(retry) + 1, list(retry))
original = clicks[1699]                   # click 1700, again with another amount
conflict = [original[0], original[1], "%.2f" % (float(original[2]) + 1.00), original[3]]
evening.insert(evening.index(original) + 3, conflict)
for k in range(3):                        # the next day: the watermark passes midnight
    evening.append([2001 + k, "c-north", "0.50", stamp(DAY + 86400 + 10 + 5 * k)])
write("data/morning.csv", clicks[:1000])
write("data/evening.csv", evening)
write("data/late.csv", [[2004, "c-east", "1.25", stamp(DAY + 86398)]])
