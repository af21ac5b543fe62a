"""server.bytes — binary strings over the wire: X'..' literals and bytea
parameters, checked on the raw bytes (tests/server/pgwire_client.py) and
with psql, against values computed here.

- X'..' in a query is a bytea column (OID 17): text form \\x.., binary form
  the bytes themselves (NUL and bytes that are not UTF-8 included);
- bytea parameters, text (\\x.. and the escape format) and binary, declared
  and left to the statement (an X'..' beside it types it), carry every byte
  value 0..255: the engine compares them with an X'..' literal and sends
  them back unchanged;
- a bad X'..' is an ErrorResponse with its SQLSTATE and a position counted
  in characters (after a multi-byte character).
"""
import os
import sys

from pgwire_client import OID, PgWire, error, rows
from srv_util import Server, psql, tmpdir

SEQ = ("CREATE TABLE t (a INT) WITH ('connector'='datagen', 'number-of-rows'='3', "
       "'fields.a.kind'='sequence', 'fields.a.start'='1', 'fields.a.end'='3')")
ALL = bytes(range(256))  # every byte value, NUL first


def check_literals(c):
    m = c.query("SELECT X'00FF10' AS b, x'' AS e, X'0a' || X'00' AS j")
    assert not error(m), m
    rd = next(v for t, v in m if t == "T")
    assert [(n, oid) for n, oid, *_ in rd] == [("b", 17), ("e", 17), ("j", 17)], rd
    assert rows(m) == [[b"\\x00ff10", b"\\x", b"\\x0a00"]], m
    # binary result format: the bytes themselves
    m = c.run("SELECT X'" + ALL.hex() + "' AS b", [], [], [], [1], describe="P")
    assert not error(m) and rows(m) == [[ALL]], m


def check_params(c):
    sql = "SELECT $1 = X'" + ALL.hex().upper() + "' AS eq, $1 AS v FROM t WHERE a = 1"
    sent = [
        ([OID["bytea"]], [ALL], [1]),                          # binary, declared
        ([0], [ALL], [1]),                                     # binary, typed by X'..'
        ([OID["bytea"]], [b"\\x" + ALL.hex().encode()], [0]),  # text, hex
        ([0], [b"\\x" + ALL.hex().upper().encode()], [0]),     # text, hex, upper case
        # text, escape format: \\ for a backslash, \ooo for the rest
        ([OID["bytea"]], [b"".join(b"\\\\" if x == 92 else b"\\%03o" % x for x in ALL)], [0]),
    ]
    for oids, params, pformats in sent:
        m = c.run(sql, oids, params, pformats, [0, 1], describe="P")
        assert not error(m), (oids, pformats, m)
        assert rows(m) == [[b"t", ALL]], (oids, pformats, m)
    # a different value is not equal: the comparison is the engine's
    m = c.run(sql, [OID["bytea"]], [ALL[:-1] + b"\x00"], [1], [0, 0], describe="P")
    assert rows(m) == [[b"f", b"\\x" + (ALL[:-1] + b"\x00").hex().encode()]], m
    # NUL bytes in a predicate choose the rows
    m = c.run("SELECT a FROM t WHERE $1 IN (X'0000', X'00') AND a < 3", [OID["bytea"]],
              [b"\x00"], [1], [0], describe="P")
    assert sorted(rows(m)) == [[b"1"], [b"2"]], m
    # NULL
    m = c.run("SELECT $1 IS NULL FROM t WHERE a = 1", [OID["bytea"]], [None], [], [0], describe="P")
    assert rows(m) == [[b"t"]], m
    # bad hex in text form: 22P02
    m = c.run("SELECT $1 FROM t", [OID["bytea"]], [b"\\x0g"], [0], [0], describe="P")
    assert error(m) and error(m)["C"] == "22P02", m


def check_errors(c):
    # P counts characters: 'é' is one
    m = c.query("SELECT 'é', X'0é'")
    e = error(m)
    assert e and e["C"] == "22P02" and e["P"] == "16", m
    assert e["M"] == '"é" is not a valid hexadecimal digit', m
    m = c.query("SELECT 'é', X'abc'")
    e = error(m)
    assert e and e["C"] == "42601" and e["P"] == "13", m
    m = c.query("SELECT X'00' = '00'")
    assert error(m) and error(m)["C"] == "42804", m


def main():
    tmp = tmpdir("srv-bytes-")
    with Server(os.path.join(tmp, "data")) as srv:
        c = PgWire(srv.port)
        c.query_ok(SEQ)
        check_literals(c)
        check_params(c)
        check_errors(c)
        c.terminate()
        # psql reads bytea as PostgreSQL prints it
        rc, out, err = psql(srv.port, "SELECT X'00FF' AS b, X'0a' = x'0A' AS eq", "-At")
        assert rc == 0 and out.strip() == "\\x00ff|t", (rc, out, err)
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
