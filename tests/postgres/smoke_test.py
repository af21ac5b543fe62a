#!/usr/bin/env python3
"""smoke_test.py — the servers of scripts/postgres are what the PostgreSQL
tests expect (ctest pg.smoke, fixtures `pg` and `pg0`), checked through
pg_util, whose reading of rows it checks too:

  1. `sluice` connects over TCP with its password; the settings for tests
     (loopback only, SCRAM, fsync on, max_connections 200,
     max_prepared_transactions 64 on pg and 0 on pg0); run as root, the
     server runs as another OS user;
  2. query() returns NULL, '', newlines, separators and non-ASCII text as
     they are stored;
  3. PREPARE TRANSACTION: invisible until COMMIT PREPARED; kept through
     `scripts/postgres restart --immediate`; ROLLBACK PREPARED; refused on
     pg0 with 55000;
  4. sluice_ro reads but may not INSERT, UPDATE, DELETE or CREATE (42501);
  5. a wrong password is refused (28P01 in the server's log), for the
     superuser and the read-only role.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pg_util  # noqa: E402
from pg_util import PgError  # noqa: E402


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def expect_error(sqlstate, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except PgError as e:
        check(e.sqlstate == sqlstate, "expected SQLSTATE %s, got %s: %s"
              % (sqlstate, e.sqlstate, e.stderr))
        return e
    fail("expected SQLSTATE %s, but %s succeeded" % (sqlstate, args[0] if args else fn))
    return None


def step(msg):
    print("== " + msg, flush=True)


PG = pg_util.port_of("pg")
PG0 = pg_util.port_of("pg0")
tag = "smoke_%d_%d" % (os.getpid(), int(time.time()))

step("connect and settings (pg on %d, pg0 on %d)" % (PG, PG0))
for port, mpt in ((PG, "64"), (PG0, "0")):
    rows = pg_util.query(
        "SELECT current_user, current_database(), inet_server_addr()::text,"
        " current_setting('listen_addresses'), current_setting('password_encryption'),"
        " current_setting('fsync'), current_setting('max_connections'),"
        " current_setting('max_prepared_transactions'), current_setting('server_encoding')",
        port=port)
    want = [("sluice", "sluice", "127.0.0.1/32", "127.0.0.1", "scram-sha-256", "on", "200",
             mpt, "UTF8")]
    check(rows == want, "port %d: %r, expected %r" % (port, rows, want))
if os.geteuid() == 0:
    for which in ("pg", "pg0"):
        pid = pg_util.postmaster_pid(which)
        with open("/proc/%d/status" % pid) as f:
            uid = [line.split()[1] for line in f if line.startswith("Uid:")][0]
        check(uid != "0", "the %s server runs as root" % which)

step("query() reads values as stored")
values = ["plain", "", "two\nlines", "tab\there", "comma,\"quote\"", "é ü 日本 \U0001F600",
          "\x1f\x1e\x01", "NULL", "\\N"]
sql = "SELECT " + ", ".join(pg_util.literal(v) for v in values) + ", NULL, 42, 1.5::float8"
got = pg_util.query(sql)
check(got == [tuple(values) + (None, "42", "1.5")], "query() read %r" % (got,))
check(pg_util.query("SELECT 1 WHERE false") == [], "an empty result is not []")
check(pg_util.query("SELECT ''") == [("",)], "one empty string is not [('',)]")
got = pg_util.query("SELECT g, NULL FROM generate_series(1, 3) g")
check(got == [("1", None), ("2", None), ("3", None)], "three rows read as %r" % (got,))

step("PREPARE TRANSACTION and COMMIT PREPARED on pg")
table = tag + "_t"
pg_util.execute("CREATE TABLE %s (id int PRIMARY KEY, v text)" % table)
gid = tag + "-commit"
pg_util.execute("BEGIN; INSERT INTO %s VALUES (1, 'a'), (2, 'b'); PREPARE TRANSACTION %s;"
                % (table, pg_util.literal(gid)))
check(pg_util.prepared_xacts(tag) == [gid], "prepared: %r" % pg_util.prepared_xacts(tag))
check(pg_util.query("SELECT count(*) FROM %s" % table) == [("0",)],
      "a prepared transaction's rows are visible")
step("the prepared transaction survives restart --immediate")
pg_util.restart(immediate=True, which="pg")
check(pg_util.prepared_xacts(tag) == [gid], "after the restart: %r" % pg_util.prepared_xacts(tag))
pg_util.execute("COMMIT PREPARED %s" % pg_util.literal(gid))
check(pg_util.prepared_xacts(tag) == [], "still prepared after COMMIT PREPARED")
got = pg_util.query("SELECT id, v FROM %s ORDER BY id" % table)
check(got == [("1", "a"), ("2", "b")], "after COMMIT PREPARED: %r" % (got,))
gid = tag + "-rollback"
pg_util.execute("BEGIN; INSERT INTO %s VALUES (3, 'c'); PREPARE TRANSACTION %s;"
                % (table, pg_util.literal(gid)))
pg_util.execute("ROLLBACK PREPARED %s" % pg_util.literal(gid))
check(pg_util.prepared_xacts(tag) == [], "still prepared after ROLLBACK PREPARED")
check(pg_util.query("SELECT count(*) FROM %s" % table) == [("2",)], "rolled back rows are there")
expect_error("23505", pg_util.execute, "INSERT INTO %s VALUES (1, 'dup')" % table)

step("PREPARE TRANSACTION is refused on pg0")
pg_util.execute("CREATE TABLE %s (id int)" % table, port=PG0)
expect_error("55000", pg_util.execute, "BEGIN; INSERT INTO %s VALUES (1); PREPARE TRANSACTION %s;"
             % (table, pg_util.literal(tag + "-pg0")), port=PG0)
check(pg_util.prepared_xacts(tag, port=PG0) == [], "pg0 has a prepared transaction")
check(pg_util.query("SELECT count(*) FROM %s" % table, port=PG0) == [("0",)],
      "pg0 kept the rows of a refused PREPARE TRANSACTION")

step("sluice_ro reads but does not write")
ro = dict(user=pg_util.RO_USER, password=pg_util.RO_PASSWORD)
got = pg_util.query("SELECT id FROM %s ORDER BY id" % table, **ro)
check(got == [("1",), ("2",)], "sluice_ro read %r" % (got,))
for stmt in ("INSERT INTO %s VALUES (9, 'x')" % table,
             "UPDATE %s SET v = 'x'" % table,
             "DELETE FROM %s" % table,
             "CREATE TABLE %s_ro (id int)" % tag):
    expect_error("42501", pg_util.execute, stmt, **ro)
check(pg_util.query("SELECT count(*) FROM %s" % table) == [("2",)], "sluice_ro changed rows")

step("a wrong password is refused with 28P01")
log = os.path.join(pg_util.run_dir("pg"), "postgres.log")
for user in (pg_util.USER, pg_util.RO_USER):
    with open(log, "rb") as f:
        f.seek(0, os.SEEK_END)
        start = f.tell()
    e = expect_error(None, pg_util.query, "SELECT 1", user=user, password="wrong")
    check("password authentication failed" in e.message, "refused with: %s" % e.stderr)
    deadline = time.monotonic() + 10
    while True:
        with open(log, "rb") as f:
            f.seek(start)
            new = f.read().decode(errors="replace")
        if ('28P01 %s@sluice FATAL:  password authentication failed for user "%s"'
                % (user, user)) in new:
            break
        check(time.monotonic() < deadline, "no 28P01 for %s in %s:\n%s" % (user, log, new))
        time.sleep(0.1)

pg_util.execute("DROP TABLE %s" % table)
pg_util.execute("DROP TABLE %s" % table, port=PG0)
print("pg.smoke: ok")
