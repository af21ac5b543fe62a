#!/usr/bin/env bash
# tests/postgres/script_test.sh — scripts/postgres itself (ctest pg.script),
# on a server of its own (PG_PORT, PG_RUN_DIR from ctest: the fixture's port
# + 1000, <build>/pg-script-run), checked with psql and pg_isready:
#   1. status is 3 before start, 0 when running, 1 while the postmaster is
#      stopped (SIGSTOP), 3 after stop; stop twice is fine;
#   2. after a SIGKILL of the postmaster (stale postmaster.pid and socket
#      lock), start with PG_KEEP_DATA=1 comes up on the same data, and
#      restart --immediate brings a dead server back with its data;
#   3. a plain start is fresh (the table is gone), PG_MAX_PREPARED_TRANSACTIONS
#      is applied by start and by restart;
#   4. start fails clearly when the port is taken by another server.
set -euo pipefail

script=${SLUICE_PG_SCRIPT:?}
port=${PG_PORT:?}
run_dir=${PG_RUN_DIR:?}
export PG_PORT PG_RUN_DIR

step() { echo "== $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
pg() { "$script" "$@"; }
status_is() {
  local rc=0
  pg status >/dev/null || rc=$?
  [ "$rc" = "$1" ] || fail "status exited $rc, expected $1 ($2)"
}
sql() {
  PGPASSWORD=sluice PGCONNECT_TIMEOUT=10 timeout 60 \
    psql -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U sluice -d sluice -c "$1"
}
postmaster() { head -n 1 "$run_dir/data/postmaster.pid"; }
cleanup() {
  if [ -n "${stopped_pid:-}" ]; then kill -CONT "$stopped_pid" 2>/dev/null || true; fi
  pg stop >/dev/null 2>&1 || true
  PG_RUN_DIR=$run_dir-other "$script" stop >/dev/null 2>&1 || true
}
trap cleanup EXIT

step "status before start, start, status"
pg stop >/dev/null
status_is 3 "not started"
pg start
status_is 0 "running"
[ "$(sql 'SHOW max_prepared_transactions')" = 64 ] || fail "max_prepared_transactions is not 64"
sql "CREATE TABLE kept (v int); INSERT INTO kept VALUES (7)"

step "status while the postmaster does not answer"
stopped_pid=$(postmaster)
kill -STOP "$stopped_pid"
status_is 1 "stopped postmaster"
kill -CONT "$stopped_pid"
stopped_pid=
status_is 0 "continued"

step "SIGKILL, then start with PG_KEEP_DATA=1 on the stale pid file"
kill -KILL "$(postmaster)"
status_is 3 "killed"
[ -f "$run_dir/data/postmaster.pid" ] || fail "no stale postmaster.pid to test with"
PG_KEEP_DATA=1 pg start
[ "$(sql 'SELECT v FROM kept')" = 7 ] || fail "the data was not kept"

step "SIGKILL, then restart --immediate"
kill -KILL "$(postmaster)"
pg restart --immediate
status_is 0 "restarted"
[ "$(sql 'SELECT v FROM kept')" = 7 ] || fail "the data was not kept through restart"
pg restart --immediate
[ "$(sql 'SELECT v FROM kept')" = 7 ] || fail "the data was not kept through restart of a live server"

step "PG_MAX_PREPARED_TRANSACTIONS by restart, then a fresh start"
PG_MAX_PREPARED_TRANSACTIONS=0 pg restart
[ "$(sql 'SHOW max_prepared_transactions')" = 0 ] || fail "restart did not apply 0"
pg restart
[ "$(sql 'SHOW max_prepared_transactions')" = 0 ] || fail "restart without the variable changed it"
pg stop
pg stop
status_is 3 "stopped"
PG_MAX_PREPARED_TRANSACTIONS=5 pg start
[ "$(sql 'SHOW max_prepared_transactions')" = 5 ] || fail "start did not apply 5"
[ "$(sql "SELECT count(*) FROM pg_tables WHERE tablename = 'kept'")" = 0 ] \
  || fail "a plain start kept the old data"

step "a port in use by another server"
out=$(PG_RUN_DIR=$run_dir-other "$script" start 2>&1) && fail "start on a busy port succeeded: $out"
echo "$out" | grep -q "port $port is in use" || fail "unclear error: $out"
pg stop
status_is 3 "stopped at the end"
echo "pg.script: ok"
