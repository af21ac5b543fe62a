#!/usr/bin/env python3
"""xa_test.py — what MariaDB's XA guarantees across a client disconnect and a
server crash, checked against the server of scripts/mariadb (ctest
mariadb.xa, fixture `mariadb`): the facts a MySQL/MariaDB exactly-once sink
will rely on. Every value is read with the `mariadb` client (mariadb_util).

  a. `sluice` logs in over TCP with its password; a wrong password is
     refused with 1045 (for sluice and sluice_ro); sluice_ro reads but may
     not INSERT (1142); the reader reads values as stored (NULL vs 'NULL');
  b. the durability settings scripts/mariadb sets, read back with the probe
     a sink runs at plan time:
       SELECT @@version, @@log_bin, @@sync_binlog, @@innodb_flush_log_at_trx_commit
     (log_bin 1, sync_binlog 1, innodb_flush_log_at_trx_commit 1, InnoDB);
     sluice has no global privilege;
  c. XA START/INSERT/XA END/XA PREPARE 'x1' in one session, which then
     disconnects: x1 is still listed by XA RECOVER in another session (and
     in sluice_ro's: no privilege guards it) and its rows are invisible.
     A prepared transaction whose session is still connected is listed by
     XA RECOVER, but XA COMMIT from another session says 1397 (XAER_NOTA,
     as for an unknown xid) until that session ends: sluice may KILL a
     session of its own, then XA COMMIT works. An empty
     transaction, prepared and detached, answers XA COMMIT with 1402
     (XA_RBROLLBACK);
  d. after `scripts/mariadb restart --immediate` (SIGKILL, crash recovery:
     the log must say so) XA RECOVER lists x1 and x2 exactly; XA COMMIT 'x1'
     makes its rows visible exactly once; XA ROLLBACK 'x2' leaves none of
     its rows; XA COMMIT of x1 again, of the rolled-back x2 and of an xid
     never seen are all 1397 XAER_NOTA;
  e. x3, only XA END'ed (not prepared) when the server was killed, is gone
     after recovery (not listed, no rows, XA COMMIT 1397); so is an empty
     prepared transaction;
  f. controls: rows committed before the kill are there after it, and the
     rows of a transaction left open (not prepared) at the kill are not:
     the visibility checks above can see rows and can miss them;
  g. a prepared transaction stays prepared across a clean restart too.

Exits non-zero with a message on the first deviation. --any-settings skips
the checks of b (printing the values only), to watch the crash checks fail
on a server started with weaker settings, e.g.
  MARIADB_SERVER_OPTS=--innodb-flush-log-at-trx-commit=0 scripts/mariadb start
  tests/mariadb/xa_test.py --any-settings
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mariadb_util as mu  # noqa: E402
from mariadb_util import MariaDBError  # noqa: E402


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr, flush=True)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def step(msg):
    print("== " + msg, flush=True)


def saw(msg):
    print("   " + msg, flush=True)


def expect_error(errno, fn, *args, **kw):
    """fn(*args) must fail with MariaDB error errno; returns the error."""
    try:
        fn(*args, **kw)
    except MariaDBError as e:
        check(e.errno == errno, "expected error %d, got %s" % (errno, e.stderr.strip()))
        return e
    fail("expected error %d, but %s succeeded" % (errno, args[0] if args else fn))
    return None


ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--any-settings", action="store_true",
                help="print the durability settings without requiring them")
opt = ap.parse_args()

t_start = time.monotonic()
tag = "t%d_%d" % (os.getpid() % 100000, int(time.time()) % 1000000)
table = "xa_" + tag
ro = dict(user=mu.RO_USER, password=mu.RO_PASSWORD)
print("server 127.0.0.1:%d, run dir %s, xids ('x1', '%s') ..." % (mu.port(), mu.run_dir(), tag))


def xid(name):
    """The SQL of xid (name, tag): gtrid name, bqual the run's tag."""
    return "'%s','%s'" % (name, tag)


def ours(user=mu.USER, password=mu.PASSWORD):
    """The gtrids XA RECOVER lists with this run's bqual, sorted; checks
    the format ID (1, the default of XA START)."""
    got = []
    for fmt, gtrid, bqual in mu.xa_recover(user=user, password=password):
        if bqual == tag:
            check(fmt == 1, "XA RECOVER: formatID %d for %s" % (fmt, gtrid))
            got.append(gtrid)
    return sorted(got)


def rows_of(name, **who):
    return [r[0] for r in mu.query("SELECT id FROM %s WHERE xid = %s ORDER BY id"
                                   % (table, mu.literal(name)), **who)]


def prepare_detached(name, ids):
    """XA START ... XA PREPARE in one client session, which then exits."""
    inserts = "".join("INSERT INTO %s VALUES (%d, %s, 'v%d');\n" % (table, i, mu.literal(name), i)
                      for i in ids)
    mu.execute("XA START %s;\n%sXA END %s;\nXA PREPARE %s;"
               % (xid(name), inserts, xid(name), xid(name)))


# ---- a ---------------------------------------------------------------------
step("a. password logins over TCP; wrong passwords; sluice_ro read-only")
got = mu.query("SELECT CURRENT_USER(), DATABASE(), @@bind_address, @@port,"
               " (SELECT HOST FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID())")
saw("sluice: CURRENT_USER, DATABASE, bind_address, port, client host = %r" % (got,))
check(len(got) == 1 and got[0][:4] == ("sluice@%", "sluice", "127.0.0.1", str(mu.port()))
      and got[0][4].startswith("127.0.0.1:"), "sluice's session: %r" % (got,))
for user in (mu.USER, mu.RO_USER):
    e = expect_error(1045, mu.query, "SELECT 1", user=user, password="wrong")
    saw("%s with a wrong password: ERROR %d (%s): %s" % (user, e.errno, e.sqlstate, e.message))
    check(e.sqlstate == "28000" and "Access denied" in e.message, "refused with %s" % e.stderr)
mu.execute("CREATE TABLE %s (id INT PRIMARY KEY, xid VARCHAR(16) NOT NULL, v VARCHAR(64))"
           " ENGINE=InnoDB" % table)
mu.execute("INSERT INTO %s VALUES (1, 'pre', 'a')" % table)
check(mu.query("SELECT id, v FROM %s" % table, **ro) == [("1", "a")], "sluice_ro cannot read")
e = expect_error(1142, mu.execute, "INSERT INTO %s VALUES (2, 'ro', 'b')" % table, **ro)
saw("sluice_ro INSERT: ERROR %d (%s): %s" % (e.errno, e.sqlstate, e.message))
expect_error(1142, mu.execute, "CREATE TABLE %s_ro (id INT)" % table, **ro)
mu.execute("DELETE FROM %s" % table)
pid = mu.server_pid()
with open("/proc/%d/status" % pid) as f:
    uid = [line.split()[1] for line in f if line.startswith("Uid:")][0]
saw("mariadbd pid %d runs as uid %s (this test: uid %d)" % (pid, uid, os.getuid()))
check(uid == str(os.getuid()), "the server runs as uid %s, not as its caller" % uid)

values = ["plain", "", "two\nlines", "tab\there", "back\\slash", "<a & \"b\">", "NULL", "\\N",
          "é ü 日本 \U0001F600", "\x1f\x1e\x01"]
sql = "SELECT " + ", ".join(mu.literal(v) for v in values) + ", NULL, 42, 1.5e0"
got = mu.query(sql)
check(got == [tuple(values) + (None, "42", "1.5")], "the reader read %r" % (got,))
check(mu.query("SELECT 1 FROM DUAL WHERE FALSE") == [], "an empty result is not []")
saw("the reader: NULL as None, 'NULL', tabs, newlines, backslashes, non-ASCII as stored")

# ---- b ---------------------------------------------------------------------
step("b. durability settings (the sink's plan-time probe)")
probe = "SELECT @@version, @@log_bin, @@sync_binlog, @@innodb_flush_log_at_trx_commit"
got = mu.query(probe)
saw("%s -> %r" % (probe, got))
more = mu.query("SELECT @@binlog_format, @@default_storage_engine, @@innodb_doublewrite,"
                " (SELECT ENGINE FROM information_schema.TABLES"
                "  WHERE TABLE_SCHEMA = 'sluice' AND TABLE_NAME = %s)" % mu.literal(table))
saw("binlog_format, default_storage_engine, innodb_doublewrite, engine of the table -> %r"
    % (more,))
version = got[0][0]
major_minor = tuple(int(x) for x in version.split("-")[0].split(".")[:2])
check(major_minor >= (10, 5), "MariaDB %s: prepared XA transactions survive a disconnect"
      " only from 10.5 (MDEV-742)" % version)
check(more[0][3] == "InnoDB", "the table is not InnoDB: %r" % (more,))
if opt.any_settings:
    saw("--any-settings: not requiring them")
else:
    check(got[0][1:] == ("1", "1", "1"),
          "log_bin, sync_binlog, innodb_flush_log_at_trx_commit are %r, expected 1, 1, 1"
          % (got[0][1:],))
    check(more[0][:3] == ("ROW", "InnoDB", "1"), "binlog_format etc. are %r" % (more,))
grants = [r[0] for r in mu.query("SHOW GRANTS")]
saw("SHOW GRANTS for sluice: %r" % [g.split(" IDENTIFIED")[0] for g in grants])
check(len(grants) == 2 and grants[0].startswith("GRANT USAGE ON *.* TO `sluice`@`%`")
      and grants[1] == "GRANT ALL PRIVILEGES ON `sluice`.* TO `sluice`@`%`",
      "sluice's grants: %r" % grants)

# ---- c ---------------------------------------------------------------------
step("c. XA PREPARE 'x1', then the session disconnects")
prepare_detached("x1", [11, 12, 13])
saw("XA START/INSERT 11,12,13/XA END/XA PREPARE %s in one session, which exited" % xid("x1"))
got = ours()
saw("XA RECOVER in another session (sluice): %r" % got)
check(got == ["x1"], "XA RECOVER lists %r, expected ['x1'] (MDEV-742)" % got)
got = ours(**ro)
saw("XA RECOVER as sluice_ro: %r" % got)
check(got == ["x1"], "sluice_ro's XA RECOVER lists %r" % got)
for who, kw in (("sluice", {}), ("sluice_ro", ro)):
    got = rows_of("x1", **kw)
    saw("rows of x1 seen by %s: %r" % (who, got))
    check(got == [], "%s sees the rows of the prepared x1: %r" % (who, got))

step("c. a prepared transaction whose session is still connected")
sa = mu.Session()
sa.run("XA START %s; INSERT INTO %s VALUES (61, 'xatt', 'v61'); XA END %s; XA PREPARE %s"
       % (xid("xatt"), table, xid("xatt"), xid("xatt")))
got = ours()
saw("XA RECOVER while its session is connected: %r" % got)
check(got == ["x1", "xatt"], "XA RECOVER lists %r, expected x1 and xatt" % got)
e = expect_error(1397, mu.execute, "XA COMMIT %s" % xid("xatt"))
saw("XA COMMIT %s from another session: ERROR %d (%s): %s"
    % (xid("xatt"), e.errno, e.sqlstate, e.message))
check(rows_of("xatt") == [], "the rows of xatt are visible")
cid = sa.run("SELECT CONNECTION_ID()")
check(len(cid) == 1 and cid[0].isdigit(), "CONNECTION_ID() printed %r" % cid)
mu.execute("KILL CONNECTION %s" % cid[0])
saw("sluice (no global privilege) ends that session of its own: KILL CONNECTION %s: ok" % cid[0])
deadline = time.monotonic() + 30
while True:
    try:
        mu.execute("XA COMMIT %s" % xid("xatt"))
        break
    except MariaDBError as e:  # the KILL is asynchronous: the session detaches when it ends
        check(e.errno == 1397 and time.monotonic() < deadline, "XA COMMIT after KILL: %s" % e)
        time.sleep(0.05)
got = rows_of("xatt")
saw("XA COMMIT %s from another session now: ok; rows %r" % (xid("xatt"), got))
check(got == ["61"], "rows of xatt after XA COMMIT: %r" % got)
rc = sa.close()
saw("the killed session's client exits %d" % rc)

step("c. an empty transaction, prepared and detached")
mu.execute("XA START %s; XA END %s; XA PREPARE %s" % (xid("xempty"), xid("xempty"), xid("xempty")))
got = ours()
saw("XA RECOVER: %r" % got)
check(got == ["x1", "xempty"], "XA RECOVER lists %r, expected x1 and xempty" % got)
e = expect_error(1402, mu.execute, "XA COMMIT %s" % xid("xempty"))
saw("XA COMMIT %s: ERROR %d (%s): %s" % (xid("xempty"), e.errno, e.sqlstate, e.message))
check(ours() == ["x1"], "xempty is still listed after its XA COMMIT")

# ---- before the kill -------------------------------------------------------
step("d/e/f. before the kill: x2 prepared, x3 XA END'ed, an open transaction, committed rows")
prepare_detached("x2", [21, 22])
mu.execute("XA START %s; XA END %s; XA PREPARE %s" % (xid("x4"), xid("x4"), xid("x4")))
s3 = mu.Session()
s3.run("XA START %s; INSERT INTO %s VALUES (31, 'x3', 'v31'), (32, 'x3', 'v32'); XA END %s"
       % (xid("x3"), table, xid("x3")))
su = mu.Session()
su.run("BEGIN; INSERT INTO %s VALUES (41, 'u', 'v41'), (42, 'u', 'v42')" % table)
mu.execute("INSERT INTO %s VALUES (51, 'c', 'v51'), (52, 'c', 'v52'), (53, 'c', 'v53')" % table)
got = ours()
saw("XA RECOVER: %r (x3 is IDLE in a connected session, x4 empty and prepared)" % got)
check(got == ["x1", "x2", "x4"], "XA RECOVER lists %r before the kill" % got)
got = mu.query("SELECT xid, COUNT(*) FROM %s GROUP BY xid ORDER BY xid" % table)
saw("visible rows by xid: %r" % got)
check(got == [("c", "3"), ("xatt", "1")], "visible rows before the kill: %r" % got)

step("d. scripts/mariadb restart --immediate (SIGKILL, crash recovery)")
log_size = os.path.getsize(mu.log_path())
old_pid = mu.server_pid()
took = mu.restart(immediate=True)
new_pid = mu.server_pid()
with open(mu.log_path(), "rb") as f:
    f.seek(log_size)
    log = f.read().decode(errors="replace")
evidence = [line.split("] ", 1)[-1] for line in log.splitlines()
            if "crash recovery" in line or "prepared" in line or "Recovering" in line]
saw("restart --immediate took %.2f s; mariadbd pid %d -> %d" % (took, old_pid, new_pid))
for line in evidence:
    saw("log: " + line)
check(new_pid != old_pid, "the server's pid did not change")
check("InnoDB: Starting crash recovery" in log,
      "the log does not show a crash recovery:\n" + log[-3000:])
for name, s in (("x3", s3), ("open transaction", su)):
    rc = s.close()
    saw("the %s session's client exited %d" % (name, rc))

got = ours()
saw("XA RECOVER after recovery: %r" % got)
check(got == ["x1", "x2"], "XA RECOVER lists %r after the crash, expected ['x1', 'x2']" % got)
got = mu.query("SELECT xid, COUNT(*) FROM %s GROUP BY xid ORDER BY xid" % table)
saw("visible rows by xid: %r" % got)

step("f. controls: committed rows are there, the open transaction's are not")
check(rows_of("c") == ["51", "52", "53"], "the committed rows after the crash: %r" % rows_of("c"))
check(rows_of("u") == [], "rows of the open transaction after the crash: %r" % rows_of("u"))
saw("committed before the kill: 51, 52, 53 there; open at the kill: none of 41, 42")

step("d. XA COMMIT x1, XA ROLLBACK x2, and 1397 for what is not prepared")
check(rows_of("x1") == [] and rows_of("x2") == [], "prepared rows visible before XA COMMIT")
mu.execute("XA COMMIT %s" % xid("x1"))
got = mu.query("SELECT id, COUNT(*) FROM %s WHERE xid = 'x1' GROUP BY id ORDER BY id" % table)
saw("XA COMMIT %s: ok; rows of x1 (id, count): %r" % (xid("x1"), got))
check(got == [("11", "1"), ("12", "1"), ("13", "1")], "rows of x1 after XA COMMIT: %r" % got)
got = rows_of("x1", **ro)
check(got == ["11", "12", "13"], "sluice_ro sees x1's rows as %r" % got)
mu.execute("XA ROLLBACK %s" % xid("x2"))
got = rows_of("x2")
saw("XA ROLLBACK %s: ok; rows of x2: %r" % (xid("x2"), got))
check(got == [], "rows of x2 after XA ROLLBACK: %r" % got)
errors = {}
for what, stmt in (("x1 again (committed)", "XA COMMIT %s" % xid("x1")),
                   ("x2 (rolled back)", "XA COMMIT %s" % xid("x2")),
                   ("x2 again (rolled back)", "XA ROLLBACK %s" % xid("x2")),
                   ("an xid never used", "XA COMMIT %s" % xid("never")),
                   ("x3 (only XA END'ed at the kill)", "XA COMMIT %s" % xid("x3")),
                   ("x4 (empty, prepared at the kill)", "XA COMMIT %s" % xid("x4"))):
    e = expect_error(1397, mu.execute, stmt)
    saw("%s -> ERROR %d (%s): %s  [%s]" % (stmt, e.errno, e.sqlstate, e.message, what))
    errors[(e.errno, e.sqlstate, e.message)] = True
check(list(errors) == [(1397, "XAE04", "XAER_NOTA: Unknown XID")],
      "XAER_NOTA is not always the same: %r" % list(errors))
got = rows_of("x1")
check(got == ["11", "12", "13"], "rows of x1 after the second XA COMMIT: %r" % got)

step("e. x3 (XA END'ed, not prepared, at the kill) is gone")
check(rows_of("x3") == [], "rows of x3 after the crash: %r" % rows_of("x3"))
check(ours() == [], "XA RECOVER still lists %r" % ours())
saw("x3: not listed, no rows, XA COMMIT 1397; XA RECOVER is empty")
got = mu.query("SELECT xid, COUNT(*) FROM %s GROUP BY xid ORDER BY xid" % table)
saw("final rows by xid: %r" % got)
check(got == [("c", "3"), ("x1", "3"), ("xatt", "1")], "final rows: %r" % got)

# ---- g ---------------------------------------------------------------------
step("g. a prepared transaction across a clean restart (scripts/mariadb restart)")
prepare_detached("x5", [71, 72])
took = mu.restart(immediate=False)
got = ours()
saw("restart (clean shutdown) took %.2f s; XA RECOVER: %r; rows of x5: %r"
    % (took, got, rows_of("x5")))
check(got == ["x5"] and rows_of("x5") == [], "after a clean restart: %r, rows %r"
      % (got, rows_of("x5")))
mu.execute("XA COMMIT %s" % xid("x5"))
check(rows_of("x5") == ["71", "72"], "rows of x5 after XA COMMIT: %r" % rows_of("x5"))
saw("XA COMMIT %s: ok; rows 71, 72" % xid("x5"))

mu.execute("DROP TABLE %s" % table)
print("mariadb.xa: ok (%.1f s)" % (time.monotonic() - t_start), flush=True)
