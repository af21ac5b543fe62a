"""server.extended — the extended query protocol and the wire forms of
values, checked on the raw bytes (tests/server/pgwire_client.py), against
values this test computes itself:

- Parse / Bind / Execute of named and unnamed statements and portals, text
  and binary result formats (one for all, per column), decoded here;
- Close S / P, re-Bind, the unnamed statement replaced by the next Parse;
  Flush answers without ending the batch;
- errors: duplicate statement (42P05), unknown statement (26000) and portal
  (34000), several commands in one Parse (42601), a bad format code
  (22023), a malformed Bind (08P01); after an error every message up to
  Sync is skipped, then the connection works;
- an empty query (EmptyQueryResponse), in simple and extended query;
- simple query: command tags (SELECT n for SELECT / SHOW / EXPLAIN; INSERT 0 0
  plus the engine's notice for a background INSERT, INSERT 0 n for one run
  to its end), ReadyForQuery 'I';
- PostgreSQL text forms: float8 / float4 as PostgreSQL prints them, times
  without trailing fraction zeros, timestamptz with the zone's offset,
  bytea as \\x hex, bool t/f;
- a cursor of DECLARE is a portal to Describe P; CAST($1 AS T) types $1;
- streaming: an Execute without a row limit over an unbounded datagen table
  sends rows before the query ends, and a CancelRequest ends it with 57014;
  then the connection still works.
"""
import datetime
import decimal
import os
import struct
import sys

from pgwire_client import (PgWire, bin_bool, bin_date, bin_float, bin_int, bin_numeric,
                           bin_timestamp, cancel, error, kinds, rows)
from srv_util import Server, tmpdir

SEQ = ("CREATE TABLE t (a INT) WITH ('connector'='datagen', 'number-of-rows'='3', "
       "'fields.a.kind'='sequence', 'fields.a.start'='1', 'fields.a.end'='3')")
UNBOUNDED = ("CREATE TABLE u (a BIGINT) WITH ('connector'='datagen', 'rows-per-second'='200', "
             "'fields.a.kind'='random', 'fields.a.min'='1', 'fields.a.max'='9')")


def pg_float(x, single=False):
    """PostgreSQL's float8out / float4out (extra_float_digits > 0), written
    from Python's shortest repr: fixed for exponents -4 .. 14 (float4 .. 5)."""
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    if single:  # the shortest decimal that reads back as the same float32
        for p in range(1, 10):
            s = "%.*e" % (p - 1, x)
            if struct.unpack("!f", struct.pack("!f", float(s)))[0] == x:
                break
        d = decimal.Decimal(s)
    else:
        d = decimal.Decimal(repr(x))
    if d == 0:
        return "-0" if str(d).startswith("-") else "0"
    sign, digits, exp = d.normalize().as_tuple()
    digits = "".join(map(str, digits))
    e10 = len(digits) - 1 + exp
    neg = "-" if sign else ""
    if -4 <= e10 < (6 if single else 15):
        return neg + format(d.normalize(), "f")
    mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return "%s%se%s%02d" % (neg, mant, "-" if e10 < 0 else "+", abs(e10))


def check_extended_basics(c):
    # unnamed statement and portal, text formats: rows and tag
    m = c.run("SELECT a, a * 10 AS b FROM t")
    assert kinds(m) == "12DDDCZ", m
    assert sorted(rows(m)) == [[b"1", b"10"], [b"2", b"20"], [b"3", b"30"]], m
    assert m[-2] == ("C", "SELECT 3"), m

    # binary result formats, one code for all columns, decoded here
    c.parse("all", "SELECT a, CAST(a AS BIGINT) * 10000000000 AS big, CAST(a AS SMALLINT) AS s, "
            "CAST(a AS DOUBLE) / 4 AS f8, CAST(a AS DECIMAL(12, 3)) / 8 AS dec, "
            "CAST('x' AS STRING) AS str, a > 1 AS bo, DATE '2024-02-29' AS dt, "
            "TIMESTAMP '1999-12-31 23:59:59.250' AS ts, CAST(a AS FLOAT) AS f4 FROM t")
    c.bind("p", "all", result_formats=[1])
    c.execute("p", 0)
    c.sync()
    m = c.until_ready()
    got = {}
    for r in rows(m):
        a = bin_int(r[0])
        got[a] = r
        assert len(r[0]) == 4 and len(r[1]) == 8 and len(r[2]) == 2, r
        assert bin_int(r[1]) == a * 10000000000, r
        assert bin_int(r[2]) == a, r
        assert bin_float(r[3]) == a / 4, r
        assert bin_numeric(r[4]) == (decimal.Decimal(a) / 8).quantize(decimal.Decimal("0.000001")) \
            or bin_numeric(r[4]) == decimal.Decimal(a) / 8, (r, bin_numeric(r[4]))
        assert r[5] == b"x", r
        assert bin_bool(r[6]) == (a > 1) and len(r[6]) == 1, r
        assert bin_date(r[7]) == datetime.date(2024, 2, 29), r
        assert bin_timestamp(r[8]) == datetime.datetime(1999, 12, 31, 23, 59, 59, 250000), r
        assert len(r[9]) == 4 and bin_float(r[9]) == float(a), r
    assert sorted(got) == [1, 2, 3], m

    # per-column formats: text, binary, text
    c.bind("", "all", result_formats=[0, 1, 0, 1, 1, 0, 0, 1, 1, 0])
    c.execute("", 0)
    c.sync()
    m = c.until_ready()
    assert not error(m), m
    for r in rows(m):
        a = int(r[0])
        assert bin_int(r[1]) == a * 10000000000 and r[2] == str(a).encode(), r
        assert r[6] == (b"t" if a > 1 else b"f"), r

    # the named statement survives Sync; the portal "p" was closed by it
    c.execute("p", 0)
    c.sync()
    m = c.until_ready()
    assert error(m) and error(m)["C"] == "34000", m
    c.bind("p", "all")
    c.execute("p", 0)
    c.close("P", "p")
    c.execute("p", 0)  # closed: an error, then skipped until Sync
    c.sync()
    m = c.until_ready()
    assert kinds(m).startswith("2DDDC3E") and kinds(m).endswith("Z"), m
    assert error(m)["C"] == "34000", m

    # Flush without Sync: the replies arrive, and the batch goes on after it
    c.parse("", "SELECT a FROM t WHERE a = 1")
    c.bind("", "")
    c.execute("", 0)
    c.flush()
    m = c.until("C")
    assert kinds(m) == "12DC" and rows(m) == [[b"1"]], m
    c.bind("", "")
    c.execute("", 0)
    c.sync()
    m = c.until_ready()
    assert kinds(m) == "2DCZ", m

    # Close S; a statement name reused after it
    c.close("S", "all")
    c.parse("all", "SELECT a FROM t WHERE a = 2")
    c.bind("", "all")
    c.execute("", 0)
    c.sync()
    m = c.until_ready()
    assert kinds(m) == "312DCZ", m
    assert rows(m) == [[b"2"]], m


def check_errors(c):
    c.parse("dup", "SELECT a FROM t")
    c.parse("dup", "SELECT a FROM t")
    c.bind("", "dup")
    c.execute("", 0)
    c.sync()
    m = c.until_ready()
    assert kinds(m) == "1EZ" and error(m)["C"] == "42P05", m
    assert 'prepared statement "dup" already exists' == error(m)["M"], m

    c.bind("", "nope")
    c.sync()
    m = c.until_ready()
    assert kinds(m) == "EZ" and error(m)["C"] == "26000", m

    c.parse("", "SELECT a FROM t; SELECT a FROM t")
    c.sync()
    m = c.until_ready()
    assert kinds(m) == "EZ" and error(m)["C"] == "42601", m

    c.parse("", "SELECT a FROM t")
    c.bind("", "", result_formats=[7])
    c.sync()
    m = c.until_ready()
    assert kinds(m) == "1EZ" and error(m)["C"] == "22023", m

    # a Bind whose parameter length runs past the message: 08P01, not a crash
    c.send("B", b"\0\0" + struct.pack("!hh", 0, 1) + struct.pack("!i", 1000) + b"ab")
    c.sync()
    m = c.until_ready()
    assert kinds(m) == "EZ" and error(m)["C"] == "08P01", m

    # an error in the middle of a batch: everything after it up to Sync is
    # skipped (no rows of the good statement), then the connection works
    c.parse("", "SELECT nope FROM t")
    c.bind("", "")
    c.execute("", 0)
    c.parse("good", "SELECT a FROM t")
    c.bind("", "good")
    c.execute("", 0)
    c.sync()
    m = c.until_ready()
    assert sum(1 for t, _ in m if t == "E") == 1 and not rows(m), m
    assert kinds(m)[kinds(m).index("E"):] == "EZ", m
    assert error(m)["C"] == "42703" or error(m)["C"] == "0A000", m
    assert m[-1] == ("Z", "I"), m
    c.parse("good", "SELECT a FROM t")
    c.bind("", "good")
    c.execute("", 0)
    c.sync()
    m = c.until_ready()
    assert kinds(m) == "12DDDCZ", m

    # the position of an error counts characters of the statement, 1-based
    m = c.run("SELECT 'é', nope FROM t")
    e = error(m)
    if e["C"] == "42703":
        assert int(e["P"]) == "SELECT 'é', nope FROM t".index("nope") + 1, e

    # empty query string: EmptyQueryResponse in both protocols
    m = c.run("  ", describe="P")
    assert kinds(m) == "12nIZ", m
    assert kinds(c.query("")) == "IZ"
    assert kinds(c.query(" ; ")) == "IZ"


def check_changelog_op(c):
    """An updating result carries its row kind as a first column named op;
    applying the changelog gives the counts this test computes."""
    m = c.query("SELECT a % 2 AS k, COUNT(*) AS n FROM t GROUP BY a % 2")
    desc = next(v for t, v in m if t == "T")
    assert [d[0] for d in desc] == ["op", "k", "n"] and desc[0][1] in (25, 1042, 1043), desc
    state = {}
    for op, k, n in rows(m):
        op = op.decode().strip()
        assert op in ("+I", "-U", "+U", "-D"), op
        if op in ("+I", "+U"):
            state[int(k)] = int(n)
        else:
            assert state.pop(int(k)) == int(n), m
    assert state == {1: 2, 0: 1}, (state, m)  # a = 1, 2, 3


def check_simple_polish(c, srv):
    m = c.query("SELECT a FROM t; EXPLAIN SELECT a FROM t; SHOW TABLES")
    tags = [v for t, v in m if t == "C"]
    assert tags[0] == "SELECT 3" and tags[1].startswith("SELECT ") and tags[2] == "SELECT 2", m
    assert int(tags[1].split()[1]) == sum(1 for t, v in m if t == "D") - 3 - 2, m
    assert m[-1] == ("Z", "I"), m

    m = c.query("CREATE TABLE sink (a INT) WITH ('connector'='blackhole')")
    assert kinds(m) == "CZ", m
    m = c.query("INSERT INTO sink SELECT a FROM t")
    notices = [v for t, v in m if t == "N"]
    assert ("C", "INSERT 0 0") in m, m
    assert any("submitted" in n["M"] for n in notices), m
    m = c.query("SET 'table.dml-sync' = 'true'")
    assert ("C", "SET") in m, m
    m = c.query("SET 'pipeline.name' = 'sync-insert'")
    m = c.query("INSERT INTO sink SELECT a FROM t")
    assert ("C", "INSERT 0 3") in m, m


def check_text_forms(c):
    m = c.query("SELECT a, CAST(a AS DOUBLE) / 3 AS third, CAST(a AS DOUBLE) * 1e20 AS big, "
                "CAST(a AS DOUBLE) / 100000 AS small, CAST(a AS DOUBLE) * 100 AS hundred, "
                "CAST(a AS FLOAT) / 10 AS f4, CAST(a AS DOUBLE) * 123456789012345 AS wide, "
                "TIMESTAMP '2024-01-02 03:04:05.500' AS ts, "
                "CAST(TIMESTAMP '2024-01-02 03:04:05' AS TIMESTAMP_LTZ(3)) AS tz, "
                "CAST('ab' AS BYTES) AS byt, a = 2 AS bo FROM t")
    cols = [col[0] for t, v in m if t == "T" for col in v]
    oids = [col[1] for t, v in m if t == "T" for col in v]
    assert oids == [23, 701, 701, 701, 701, 700, 701, 1114, 1184, 17, 16], m
    for r in rows(m):
        d = dict(zip(cols, [x.decode() for x in r]))
        a = int(d["a"])
        assert d["bo"] == ("t" if a == 2 else "f"), d
        assert d["third"] == pg_float(a / 3), (d, pg_float(a / 3))
        assert d["big"] == pg_float(a * 1e20), (d, pg_float(a * 1e20))
        assert d["small"] == pg_float(a / 100000), (d, pg_float(a / 100000))
        assert d["hundred"] == str(a * 100), d
        f4 = struct.unpack("!f", struct.pack("!f", a))[0] / struct.unpack("!f", struct.pack("!f", 10))[0]
        f4 = struct.unpack("!f", struct.pack("!f", f4))[0]
        assert d["f4"] == pg_float(f4, single=True), (d, pg_float(f4, single=True))
        assert d["wide"] == pg_float(a * 123456789012345.0), d
        assert d["ts"] == "2024-01-02 03:04:05.5", d
        # TZ=Asia/Kolkata for the server: local time there, offset +05:30
        assert d["tz"] == "2024-01-02 03:04:05+05:30", d
        assert d["byt"] == "\\x6162", d
    assert pg_float(1e-05) == "1e-05" and pg_float(1e15) == "1e+15" and pg_float(0.5) == "0.5"

    # the same timestamptz in binary: the instant, microseconds since 2000
    # (a row limit larger than the result)
    m = c.run("SELECT CAST(TIMESTAMP '2024-01-02 03:04:05' AS TIMESTAMP_LTZ(3)) AS tz FROM t",
              result_formats=[1], max_rows=1 << 30)
    if not error(m):
        for r in rows(m):
            assert bin_timestamp(r[0]) == datetime.datetime(2024, 1, 1, 21, 34, 5), r


def check_streaming_and_cancel(port, c):
    """Rows of an unbounded query arrive while it runs; CancelRequest ends it."""
    c.parse("", "SELECT a FROM u")
    c.bind("", "", result_formats=[1])
    c.execute("", 0)
    c.flush()
    assert kinds(c.until("2")) == "12"
    n = 0
    while n < 20:
        t, v = c.read()
        assert t == "D", (t, v)
        assert 1 <= bin_int(v[0]) <= 9 and len(v[0]) == 8, v
        n += 1
    cancel(port, c.pid, c.secret)
    _, e = c.rows_then_error()
    assert e["C"] == "57014", e
    c.sync()
    m = c.until_ready()
    assert kinds(m) == "Z", m
    m = c.query("SELECT a FROM t")
    assert kinds(m) == "TDDDCZ", m


def check_declared_cursor_and_cast_param(c):
    """A cursor of DECLARE is a portal to Describe P (psycopg's named cursors
    describe it so); CAST($1 AS T) makes an untyped $1 a T, as PostgreSQL
    does (pgJDBC's setTimestamp sends a zone, which a timestamp ignores)."""
    c.query_ok("BEGIN", "DECLARE dc CURSOR FOR SELECT a, CAST(a AS DOUBLE) / 4 AS d FROM t")
    c.describe("P", "dc")
    c.sync()
    m = c.until_ready()
    assert kinds(m) == "TZ", m
    assert [(n, oid) for n, oid, _s, _m, fmt in m[0][1]] == [("a", 23), ("d", 701)], m
    m = c.query("FETCH 2 FROM dc")
    got = rows(m)
    assert len(got) == 2 and all(pg_float(int(a) / 4).encode() == d for a, d in got), m
    c.query_ok("CLOSE dc", "COMMIT")
    c.describe("P", "dc")
    c.sync()
    m = c.until_ready()
    assert error(m)["C"] == "34000", m
    c.parse("ts", "SELECT CAST($1 AS TIMESTAMP(3)) AS ts")
    c.describe("S", "ts")
    c.bind("", "ts", params=["2024-02-29 12:34:56.789+00"])
    c.execute("", 0)
    c.sync()
    m = c.until_ready()
    assert not error(m), m
    assert [v for t, v in m if t == "t"] == [[1114]], m
    assert rows(m) == [[b"2024-02-29 12:34:56.789"]], m
    c.close("S", "ts")
    c.sync()
    c.until_ready()


def main():
    tmp = tmpdir("srv-ext-")
    with Server(os.path.join(tmp, "data"), env={"TZ": "Asia/Kolkata"}) as srv:
        c = PgWire(srv.port)
        c.query_ok(SEQ, UNBOUNDED, "SET 'table.local-time-zone' = 'Asia/Kolkata'")
        check_extended_basics(c)
        check_errors(c)
        check_text_forms(c)
        check_streaming_and_cancel(srv.port, c)
        check_changelog_op(c)
        check_declared_cursor_and_cast_param(c)
        check_simple_polish(c, srv)
        c.terminate()
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
