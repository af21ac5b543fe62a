#!/usr/bin/env python3
"""The expected counts of tests/sql/reconcile_spill.sql, computed from the
rules that break its ledger, apart from Sluice."""
src = {i: i for i in range(1, 50001)}
led = {}
for i, a in src.items():
    if i % 11 != 3:
        led.setdefault(i, []).append(a + 1 if i % 19 == 2 else a)
    if i % 13 == 7 and i % 11 != 3:
        led.setdefault(i, []).append(a + 2 if i % 26 == 7 else a)
    if i % 17 == 5:
        led.setdefault(i + 100000, []).append(a)
missing = sum(1 for k in src if k not in led)
duplicated = sum(1 for k, v in led.items() if len(v) > 1)
extra = sum(1 for k in led if k not in src)
mismatched = sum(1 for k, v in led.items() if k in src and any(x != src[k] for x in v))
print(f"missing {missing}, duplicated {duplicated}, extra {extra}, mismatched {mismatched}")
