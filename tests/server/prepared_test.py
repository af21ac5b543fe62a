"""server.prepared — statements with parameters run again and again (the
engine's parse cache, planner/session_cursor.c), on the raw bytes
(tests/server/pgwire_client.py), against values computed here:

- one named statement executed 200 times with a new value each time
  returns each value (a cached AST gets each run's value, not the last);
- 40 statement texts (more than the cache keeps), each executed twice in
  turn, return their own results;
- after DROP TABLE / CREATE TABLE changed a column's type from INT to
  STRING, the same text (Parse again, as drivers do) types its parameter
  as STRING: 'x' is refused with 22P02 before the change (the control: a
  stale INT type would fail the check) and accepted after it;
- with a temporary view, whose definition changes without the catalog's
  version changing, the parameter is typed by the view as it is now.
"""
import sys

from pgwire_client import PgWire, error, rows
from srv_util import Server, tmpdir


def run(c, sql, params, stmt=""):
    """Parse (unless stmt is a named, prepared statement), Bind, Execute,
    Sync: (rows, error fields)."""
    if not stmt:
        c.parse("", sql)
    c.bind("", stmt, params)
    c.execute("", 0)
    c.sync()
    m = c.until_ready()
    return [r[0].decode() if r[0] is not None else None for r in rows(m)], error(m)


def ok(c, sql, params, stmt=""):
    got, err = run(c, sql, params, stmt)
    assert err is None, (sql, params, err)
    return got


def main():
    d = tmpdir("prepared")
    with Server(d) as srv:
        c = PgWire(srv.port)
        # one prepared statement, many values
        c.parse("s", "SELECT CAST($1 AS BIGINT) * 2 + 1 AS v")
        c.sync()
        assert error(c.until_ready()) is None
        for v in range(-100, 100):
            assert ok(c, None, [str(v)], stmt="s") == [str(2 * v + 1)], v

        # more texts than the cache keeps, each run twice in turn
        texts = ["SELECT CAST($1 AS BIGINT) + %d AS v" % i for i in range(40)]
        for rnd in range(2):
            for i, t in enumerate(texts):
                assert ok(c, t, [str(1000 * rnd)]) == [str(1000 * rnd + i)], (rnd, i)

        # a catalog change retypes the parameter
        q = "SELECT a FROM k WHERE a = $1"
        c.query("CREATE TABLE k (a INT) WITH ('connector'='datagen', 'number-of-rows'='5', "
                "'fields.a.kind'='sequence', 'fields.a.start'='1', 'fields.a.end'='5')")
        assert ok(c, q, ["3"]) == ["3"]
        assert ok(c, q, ["4"]) == ["4"]
        _, err = run(c, q, ["x"])
        assert err is not None and err["C"] == "22P02", err  # the control
        assert error(c.query("DROP TABLE k")) is None
        assert error(c.query("CREATE TABLE k (a STRING) WITH ('connector'='datagen', "
                             "'number-of-rows'='5', 'fields.a.length'='4')")) is None
        got, err = run(c, q, ["x"])
        assert err is None and got == [], (got, err)  # random 4-letter strings: not 'x'

        # a temporary view: typed by its definition as it is now
        tq = "SELECT a FROM tv WHERE a = $1"
        assert error(c.query("CREATE TABLE n (a INT) WITH ('connector'='datagen', "
                             "'number-of-rows'='5', 'fields.a.kind'='sequence', "
                             "'fields.a.start'='1', 'fields.a.end'='5')")) is None
        assert error(c.query("CREATE TEMPORARY VIEW tv AS SELECT a FROM n")) is None
        assert ok(c, tq, ["2"]) == ["2"]
        _, err = run(c, tq, ["x"])
        assert err is not None and err["C"] == "22P02", err
        assert error(c.query("DROP VIEW tv")) is None
        assert error(c.query("CREATE TEMPORARY VIEW tv AS SELECT CAST(a AS STRING) AS a "
                             "FROM n")) is None
        assert ok(c, tq, ["2"]) == ["2"]
        got, err = run(c, tq, ["x"])
        assert err is None and got == [], (got, err)
        c.terminate()
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
