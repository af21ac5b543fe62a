#!/usr/bin/env bash
# run_golden.sh SLUICE FILE.sql — run a golden SQL file and compare its output
# (stdout + stderr, in order) with FILE.out. The exit status of sluice is
# appended as a last line "-- exit: N" so that it is part of the expectation.
#
# A file with a line "-- golden: sort-results" (parallel jobs, UNION ALL of
# several sources: row order not deterministic) has its output passed through
# golden_sort.awk: each result table's rows sorted, and an updating result
# (op column) replaced by its final rows once the changelog is applied.
set -uo pipefail
# The machine's time zone (table.local-time-zone = 'default') is UTC for every run.
export TZ=UTC
sluice=$1
sql=$2
expected=${sql%.sql}.out
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$(dirname "$sql")"
name=$(basename "$sql")
# @TMP@ in a file stands for this run's scratch directory (file sinks write
# there, never into the repository); @DATA@ for examples/data; @SQLDATA@ for
# tests/sql/data (input files of the golden tests).
mkdir -p "$tmp/files"
data=$(cd ../../examples/data && pwd)
sqldata=$(pwd)/data
subst() { sed -e "s#@TMP@#$tmp/files#g" -e "s#@DATA@#$data#g" -e "s#@SQLDATA@#$sqldata#g" "$1" >"$tmp/$1"; }
subst "$name"
[ -f "${name%.sql}.restart" ] && subst "${name%.sql}.restart"
srcdir=$(pwd)
expected=$srcdir/$(basename "$expected")
cd "$tmp"
# A second run in the same data directory checks that the catalog persisted:
# a file <name>.restart runs after the main file, in a new process.
"$sluice" --data-dir "$tmp/data" --continue-on-error -f "$name" >"$tmp/out" 2>&1
echo "-- exit: $?" >>"$tmp/out"
restart=${name%.sql}.restart
if [ -f "$restart" ]; then
  echo "-- restart" >>"$tmp/out"
  "$sluice" --data-dir "$tmp/data" --continue-on-error -f "$restart" >>"$tmp/out" 2>&1
  echo "-- exit: $?" >>"$tmp/out"
fi
# Paths of this run in messages (a checkpoint's path, a file's) are written
# back as @TMP@, @DATA@, @SQLDATA@, and @RUN@ for the run's own directory.
sed -e "s#$tmp/files#@TMP@#g" -e "s#$tmp#@RUN@#g" -e "s#$data#@DATA@#g" -e "s#$sqldata#@SQLDATA@#g" \
  "$tmp/out" >"$tmp/out.paths" && mv "$tmp/out.paths" "$tmp/out"
# SHOW JOBS' start and checkpoint times differ in every run (golden_jobs.awk).
LC_ALL=C awk -f "$srcdir/golden_jobs.awk" "$tmp/out" >"$tmp/masked" && mv "$tmp/masked" "$tmp/out"
if grep -q '^-- golden: sort-results' "$name"; then
  LC_ALL=C awk -f "$srcdir/golden_sort.awk" "$tmp/out" >"$tmp/sorted" && mv "$tmp/sorted" "$tmp/out"
fi
if [ "${SLUICE_GOLDEN_UPDATE:-0}" = 1 ]; then
  cp "$tmp/out" "$expected"
  echo "updated $expected"
  exit 0
fi
if [ ! -f "$expected" ]; then
  echo "missing $expected; output was:"; cat "$tmp/out"; exit 1
fi
diff -u "$expected" "$tmp/out"
