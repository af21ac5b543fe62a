#!/usr/bin/env python3
"""Writes clicks.csv for the quickstart: 3000 ad clicks over 30 minutes of
event time, mostly in order (jitter of up to 2 s, within the 5 s watermark
delay), plus two clicks that arrive 10 minutes late. Deterministic."""
import random
import time

rnd = random.Random(42)
start = 1767225600  # 2026-01-01 00:00:00 UTC
rows = []
for i in range(1, 3001):
    t = start + i * 0.6 + rnd.uniform(-2.0, 0.0)
    rows.append((i, rnd.choice("abcde"), rnd.randint(1, 250) / 100.0, t))
rows.insert(2000, (3001, "a", 1.00, start + 60))   # late: ten minutes behind
rows.insert(2500, (3002, "b", 2.00, start + 120))  # late as well
with open("clicks.csv", "w", encoding="utf-8") as f:
    for i, c, amount, t in rows:
        ms = int(round(t * 1000))
        s, ms = divmod(ms, 1000)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(s)) + ".%03d" % ms
        f.write("%d,%s,%.2f,%s\n" % (i, c, amount, stamp))
