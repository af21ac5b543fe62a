"""server.extended_params — what the extended query protocol needs of the
engine (sl_session_describe, sl_session_exec_params, cursors), on the raw
bytes (tests/server/pgwire_client.py), against values computed here:

- parameters of each type, in text and in binary form, read back in binary
  and in text (int2/int4/int8, numeric, text, varchar, bool, float4/float8,
  date, timestamp, timestamptz, bytea — last, as hex digits to the engine);
  bad binary data is 22P03 naming the parameter;
- Describe S: ParameterDescription (declared and inferred types) and
  RowDescription; Describe P: RowDescription with the portal's formats;
  NoData for a statement without rows;
- Execute with a row limit: PortalSuspended while rows remain, then the
  rest and CommandComplete; the same over an unbounded datagen table while
  it runs, ended by Close, and one ended by a CancelRequest; inside BEGIN a portal outlives Sync (pgJDBC's
  setFetchSize) and COMMIT closes it; a row limit on a statement that is
  not a query runs it whole;
- a statement described before its table changed: Execute fails with 0A000
  instead of sending rows that differ from the RowDescription.
"""
import datetime
import decimal
import os
import struct
import sys

from pgwire_client import (OID, PgWire, bin_bool, bin_date, bin_float, bin_int, bin_numeric,
                           bin_timestamp, cancel, error, kinds, rows, to_numeric)
from srv_util import Server, tmpdir

SEQ = ("CREATE TABLE t (a INT) WITH ('connector'='datagen', 'number-of-rows'='10', "
       "'fields.a.kind'='sequence', 'fields.a.start'='1', 'fields.a.end'='10')")
UNBOUNDED = ("CREATE TABLE u (a BIGINT) WITH ('connector'='datagen', 'rows-per-second'='500', "
             "'fields.a.kind'='random', 'fields.a.min'='1', 'fields.a.max'='9')")

EPOCH = datetime.datetime(2000, 1, 1)
TS = datetime.datetime(2024, 3, 1, 12, 30, 45, 123456)
TS_US = (TS - EPOCH) // datetime.timedelta(microseconds=1)

# (type, text form sent, binary form sent, check of the binary result, text result)
CASES = [
    ("int2", "-42", struct.pack("!h", -42), lambda b: bin_int(b) == -42 and len(b) == 2, "-42"),
    ("int4", "123456", struct.pack("!i", 123456), lambda b: bin_int(b) == 123456, "123456"),
    ("int8", "-9000000000", struct.pack("!q", -9000000000), lambda b: bin_int(b) == -9000000000,
     "-9000000000"),
    ("numeric", "-1234.5600", to_numeric("-1234.5600"),
     lambda b: bin_numeric(b) == decimal.Decimal("-1234.56"), None),
    ("numeric", "123456789012345678901.5", to_numeric("123456789012345678901.5"),
     lambda b: bin_numeric(b) == decimal.Decimal("123456789012345678901.5"), None),
    ("text", "héllo", "héllo".encode(), lambda b: b == "héllo".encode(), "héllo"),
    ("varchar", "abc", b"abc", lambda b: b == b"abc", "abc"),
    ("bool", "t", b"\x01", lambda b: bin_bool(b), "t"),
    ("float8", "0.1", struct.pack("!d", 0.1), lambda b: bin_float(b) == 0.1, "0.1"),
    ("float4", "1.5", struct.pack("!f", 1.5), lambda b: bin_float(b) == 1.5, "1.5"),
    ("date", "2024-02-29", struct.pack("!i", (datetime.date(2024, 2, 29) - datetime.date(2000, 1, 1)).days),
     lambda b: bin_date(b) == datetime.date(2024, 2, 29), "2024-02-29"),
    ("timestamp", "2024-03-01 12:30:45.123456", struct.pack("!q", TS_US),
     lambda b: bin_timestamp(b) == TS, "2024-03-01 12:30:45.123456"),
    # an instant: 12:30:45.123456 UTC is 18:00:45.123456 in Kolkata
    ("timestamptz", "2024-03-01 12:30:45.123456+00", struct.pack("!q", TS_US),
     lambda b: bin_timestamp(b) == TS, "2024-03-01 18:00:45.123456+05:30"),
]
# bytea parameters reach the engine as hex digits (the text inside X'...');
# checked last, on its own (see check_bytea)
BYTEA = ("bytea", "\\x00ff10", b"\x00\xff\x10", lambda b: b == b"\x00\xff\x10", "\\x00ff10")


def check_params(c, cases=CASES):
    for typ, text, binary, check_bin, text_out in cases:
        sql = "SELECT $1 AS v FROM t WHERE a = 1"
        # text in, binary out
        m = c.run(sql, [OID[typ]], [text], [0], [1])
        assert not error(m) and len(rows(m)) == 1, (typ, m)
        assert check_bin(rows(m)[0][0]), (typ, m)
        # binary in, text out (and binary out again)
        m = c.run(sql, [OID[typ]], [binary], [1], [0])
        assert not error(m) and len(rows(m)) == 1, (typ, m)
        if text_out is not None:
            assert rows(m)[0][0].decode() == text_out, (typ, m)
        else:
            assert decimal.Decimal(rows(m)[0][0].decode()) == decimal.Decimal(text), (typ, m)
        m = c.run(sql, [OID[typ]], [binary], [1], [1])
        assert check_bin(rows(m)[0][0]), (typ, m)

    # a parameter in a predicate: which rows come back is the engine's answer
    m = c.run("SELECT a FROM t WHERE a > $1 AND a <= $2", [OID["int8"], 0],
              [struct.pack("!q", 7), b"9"], [1, 0], [0])
    assert sorted(int(r[0]) for r in rows(m)) == [8, 9], m
    # NULL
    m = c.run("SELECT $1 AS v FROM t WHERE a = 1", [OID["int4"]], [None], [], [0])
    assert rows(m) == [[None]], m

    # bad binary data: 22P03 naming the parameter
    m = c.run("SELECT a FROM t WHERE a = $1 OR a = $2", [OID["int4"], OID["int4"]],
              [struct.pack("!i", 1), b"\x01\x02"], [1], [0])
    e = error(m)
    assert e and e["C"] == "22P03" and "parameter 2" in e["M"], m
    # a numeric digit out of range
    m = c.run("SELECT $1 AS v FROM t WHERE a = 1", [OID["numeric"]],
              [struct.pack("!hhHhh", 1, 0, 0, 0, 12000)], [1], [0])
    assert error(m) and error(m)["C"] == "22P03", m


def check_describe(c):
    c.parse("d", "SELECT a, $1 AS x FROM t WHERE a > $2", [OID["text"]])
    c.describe("S", "d")
    c.sync()
    m = c.until_ready()
    assert kinds(m) == "1tTZ", m
    pd = next(v for t, v in m if t == "t")
    assert pd == [OID["text"], OID["int4"]], m
    rd = next(v for t, v in m if t == "T")
    assert [(n, oid, fmt) for n, oid, _s, _m, fmt in rd] == [("a", 23, 0), ("x", 25, 0)], rd

    c.bind("p", "d", ["x", "5"], [], [1, 0])
    c.describe("P", "p")
    c.execute("p", 0)
    c.sync()
    m = c.until_ready()
    assert kinds(m) == "2TDDDDDCZ", m
    rd = next(v for t, v in m if t == "T")
    assert [fmt for *_x, fmt in rd] == [1, 0], rd
    assert sorted(bin_int(r[0]) for r in rows(m)) == [6, 7, 8, 9, 10], m
    assert all(r[1] == b"x" for r in rows(m)), m

    # no rows: NoData
    c.parse("", "SET 'parallelism.default' = '1'")
    c.describe("S", "")
    c.sync()
    m = c.until_ready()
    assert kinds(m) == "1tnZ", m


def check_row_limit(c):
    c.parse("", "SELECT a FROM t")
    c.bind("", "", result_formats=[1])
    c.execute("", 4)
    c.execute("", 4)
    c.execute("", 4)
    c.sync()
    m = c.until_ready()
    assert kinds(m) == "12DDDDsDDDDsDDCZ", m
    assert sorted(bin_int(r[0]) for r in rows(m)) == list(range(1, 11)), m
    assert m[-2][1].startswith("SELECT"), m

    # an unbounded query read by a row limit while it runs; Close ends it
    c.parse("u", "SELECT a FROM u")
    c.bind("up", "u")
    for _ in range(3):
        c.execute("up", 5)
        c.flush()
        got = c.until("sEC")
        assert kinds(got) in ("12DDDDDs", "DDDDDs"), got
        assert all(1 <= int(r[0]) <= 9 for r in rows(got)), got
    c.close("P", "up")
    c.sync()
    m = c.until_ready()
    assert kinds(m) == "3Z", m

    # a CancelRequest while a row-limited Execute waits for rows of an
    # unbounded query: its rows so far arrive, then 57014; the portal is gone
    c.bind("up2", "u")
    c.execute("up2", 1000000)
    c.flush()
    assert kinds(c.until("2")) == "2"
    for _ in range(10):
        t, v = c.read()
        assert t == "D", (t, v)
    cancel(c.port, c.pid, c.secret)
    _, e = c.rows_then_error()
    assert e["C"] == "57014", e
    c.sync()
    assert kinds(c.until_ready()) == "Z"

    # a row limit on a statement that is not a query: it runs whole
    m = c.run("SET 'parallelism.default' = '2'", max_rows=5)
    assert kinds(m) == "12CZ" and m[2] == ("C", "SET"), m


def check_changed_result_type(c):
    """A statement described before its table changed: Execute refuses rows
    that differ from what Describe announced (PostgreSQL's cached plans)."""
    spec = ("CREATE TABLE w (%s) WITH ('connector'='datagen', 'number-of-rows'='2', "
            "'fields.a.kind'='sequence', 'fields.a.start'='1', 'fields.a.end'='2')")
    assert not error(c.query(spec % "a INT"))
    c.parse("w", "SELECT * FROM w")
    c.describe("S", "w")
    c.sync()
    assert kinds(c.until_ready()) == "1tTZ"
    assert not error(c.query("DROP TABLE w"))
    assert not error(c.query(spec % "a BIGINT, b STRING"))
    c.bind("", "w")
    c.describe("P", "")
    c.execute("", 0)
    c.sync()
    m = c.until_ready()
    assert not rows(m) and error(m) and error(m)["C"] == "0A000", m
    c.close("S", "w")
    c.parse("w", "SELECT * FROM w")
    c.bind("", "w")
    c.describe("P", "")
    c.execute("", 0)
    c.sync()
    m = c.until_ready()
    assert kinds(m) == "312TDDCZ", m
    m = c.query("SELECT a FROM t WHERE a = 3")
    assert rows(m) == [[b"3"]], m


def check_fetch_in_transaction(c):
    """pgJDBC's setFetchSize: inside BEGIN a portal outlives Sync, read a few
    rows per Execute; COMMIT ends it (needs BEGIN from the pgsession slice)."""
    m = c.query("BEGIN")
    assert not error(m) and m[-1] == ("Z", "T"), m
    c.parse("S_1", "SELECT a FROM t")
    c.bind("C_1", "S_1")
    c.describe("P", "C_1")
    c.execute("C_1", 4)
    c.sync()
    m = c.until_ready()
    assert kinds(m) == "12TDDDDsZ" and m[-1] == ("Z", "T"), m
    got = [int(r[0]) for r in rows(m)]
    for _ in range(2):
        c.execute("C_1", 4)
        c.sync()
        m = c.until_ready()
        got += [int(r[0]) for r in rows(m)]
    assert kinds(m) == "DDCZ", m
    assert sorted(got) == list(range(1, 11)), got
    c.bind("C_2", "S_1")
    c.execute("C_2", 1)
    c.sync()
    assert kinds(c.until_ready()) == "2DsZ"
    m = c.query("COMMIT")
    assert m[-1] == ("Z", "I"), m
    c.execute("C_2", 1)  # the transaction's end closed it
    c.sync()
    m = c.until_ready()
    assert error(m)["C"] == "34000", m


def main():
    tmp = tmpdir("srv-extp-")
    with Server(os.path.join(tmp, "data"), env={"TZ": "Asia/Kolkata"}) as srv:
        c = PgWire(srv.port)
        c.query_ok(SEQ, UNBOUNDED, "SET 'table.local-time-zone' = 'Asia/Kolkata'")
        check_params(c)
        check_describe(c)
        check_row_limit(c)
        check_changed_result_type(c)
        check_fetch_in_transaction(c)
        check_params(c, [BYTEA])
        c.terminate()
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
