#!/usr/bin/env bash
# bench/reconcile_bench.sh — RECONCILE of N source events (csv files)
# against an N-row PostgreSQL ledger, against the ceiling: PostgreSQL's own
# `COPY ledger TO STDOUT` of the same table (docs/BENCHMARKS.md, "RECONCILE").
#
#   PG_PORT=25910 scripts/postgres start
#   bench/reconcile_bench.sh build/dev/sluice 25910 10000000
#
# Prints both times, their ratio and RECONCILE's peak RSS (GNU time), and
# checks that the result is CONSISTENT (the ledger is the source's rows).
# RECONCILE_MEMORY='64 mb' runs it with that 'table.exec.reconcile.memory'
# (the key table spills past it).
set -euo pipefail
sluice=$(realpath "$1")
port=$2
n=${3:-10000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PGPASSWORD=sluice
psql_() { psql -X -q -h 127.0.0.1 -p "$port" -U sluice -d sluice "$@"; }
psql_ -c "DROP TABLE IF EXISTS rec_bench" \
      -c "CREATE TABLE rec_bench (event_id BIGINT PRIMARY KEY, amount NUMERIC(12, 2), campaign TEXT)" \
      -c "INSERT INTO rec_bench SELECT i, (i % 100000) / 100.0, 'c' || (i % 7) FROM generate_series(1, $n) i" \
      -c "VACUUM ANALYZE rec_bench"
mkdir -p "$work/src"
psql_ -c "COPY (SELECT i, to_char((i % 100000) / 100.0, 'FM999990.00'), 'c' || (i % 7)
               FROM generate_series(1, $n) i) TO STDOUT WITH (FORMAT csv)" >"$work/src/part-0.csv"
t0=$(date +%s.%N)
psql_ -c "COPY rec_bench TO STDOUT" >/dev/null
t1=$(date +%s.%N)
memory=
[ -n "${RECONCILE_MEMORY:-}" ] && memory="SET 'table.exec.reconcile.memory' = '$RECONCILE_MEMORY';"
cat >"$work/rec.sql" <<SQL
$memory
CREATE TABLE clicks (event_id BIGINT, amount DECIMAL(12, 2), campaign STRING)
  WITH ('connector' = 'filesystem', 'path' = '$work/src', 'format' = 'csv');
CREATE TABLE ledger (event_id BIGINT, amount DECIMAL(12, 2), campaign STRING,
  PRIMARY KEY (event_id) NOT ENFORCED) WITH ('connector' = 'jdbc',
  'url' = 'jdbc:postgresql://127.0.0.1:$port/sluice', 'table-name' = 'rec_bench',
  'username' = 'sluice', 'password' = 'sluice', 'scan.fetch-size' = '10000');
RECONCILE ledger AGAINST clicks ON event_id COMPARE amount, campaign;
SQL
t2=$(date +%s.%N)
/usr/bin/time -v "$sluice" --data-dir "$work/data" -q --format=csv -f "$work/rec.sql" \
  >"$work/out" 2>"$work/time"
t3=$(date +%s.%N)
grep -q '^verdict,TRUE,0,CONSISTENT' "$work/out" || { cat "$work/out" "$work/time"; exit 1; }
rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$work/time")
awk -v c="$(echo "$t1 - $t0" | bc)" -v r="$(echo "$t3 - $t2" | bc)" -v n="$n" -v rss="$rss" 'BEGIN {
  printf "rows %d: COPY TO %.2f s, RECONCILE %.2f s, ratio %.2f, peak RSS %.0f MB\n", n, c, r, r / c, rss / 1024 }'
psql_ -c "DROP TABLE rec_bench"
