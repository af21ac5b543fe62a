"""server.aggregates / server.aggregates_pg — aggregate calls over
PostgreSQL's catalog relations through `sluice serve` (the bounded path runs
them with the engine's group aggregation, exec/op_agg.c), read by psql.

Every expected value is computed here from rows psql reads with plain
SELECTs of the same relations (no aggregate): count(*), string_agg /
LISTAGG in scan order (DISTINCT: first appearances), min / max / sum,
GROUP BY with HAVING, a global aggregate over no rows (one row: COUNT 0,
the others NULL), a GROUP BY over no rows (no row), string_agg in a
correlated scalar subquery (psql's \\d publications query has one), the
extended protocol (a $1 parameter, Describe's row types, a row limit on
Execute), and errors with their SQLSTATE.

With --pg (server.aggregates_pg, the `pg` fixture: SLUICE_PG_PORT), the
same objects are created in a database of their own on the real PostgreSQL
server and the aggregate queries over its public schema must give the same
rows there (the reference is PostgreSQL itself)."""
import os
import sys

from pgwire_client import PgWire, error, rows as wire_rows
from srv_util import Server, psql, psql_ok, psql_rows, tmpdir

DDL = [
    "CREATE TABLE agg_orders (id BIGINT, note STRING, amount DECIMAL(10, 2)) "
    "WITH ('connector' = 'datagen')",
    "CREATE TABLE \"Agg Mixed\" (k INT, v VARCHAR(20)) WITH ('connector' = 'datagen')",
    "CREATE VIEW agg_v AS SELECT k FROM \"Agg Mixed\"",
]
PG_DB = "aggregates_cmp"
PG_DDL = ("CREATE TABLE agg_orders (id bigint, note text, amount numeric(10,2)); "
          "CREATE TABLE \"Agg Mixed\" (k int, v varchar(20)); "
          "CREATE VIEW agg_v AS SELECT k FROM \"Agg Mixed\"")
PUBLIC = ("FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
          "WHERE n.nspname = 'public'")




def q(port, sql, **kw):
    return psql_rows(psql_ok(port, None, "-A", "-t", "-c", sql, **kw))


def fails(port, sql, sqlstate, text):
    rc, out, err = psql(port, None, "-A", "-t", "-v", "VERBOSITY=verbose", "-c", sql)
    assert rc != 0 and sqlstate in err and text in err, (sql, out, err)


def check_sluice(port):
    cls = q(port, "SELECT relname, relkind, relnamespace, oid FROM pg_class")
    assert len(cls) > 10, cls
    # count(*), with and without a filter
    assert q(port, "SELECT count(*) FROM pg_class") == [[str(len(cls))]]
    ns = q(port, "SELECT oid FROM pg_namespace WHERE nspname = 'public'")[0][0]
    pub = [r for r in cls if r[2] == ns]
    assert sorted(r[0] for r in pub) == ["Agg Mixed", "agg_orders", "agg_v"], pub
    # string_agg and LISTAGG: the values in scan order, one separator between them
    got = q(port, "SELECT string_agg(relname, ', '), LISTAGG(relname), LISTAGG(relname, '') "
                  "FROM pg_class WHERE relnamespace = %s" % ns)
    names = [r[0] for r in pub]
    assert got == [[", ".join(names), ",".join(names), "".join(names)]], (got, names)
    # DISTINCT keeps first appearances
    kinds = []
    for r in cls:
        if r[1] not in kinds:
            kinds.append(r[1])
    assert q(port, "SELECT LISTAGG(DISTINCT relkind, '') FROM pg_class") == [["".join(kinds)]]
    # GROUP BY + HAVING + ORDER BY, several aggregates at once
    got = q(port, "SELECT relkind, count(*), string_agg(relname, ';'), min(relname), max(oid), "
                  "sum(oid) FROM pg_class GROUP BY relkind HAVING count(*) > 1 ORDER BY relkind")
    want = []
    for k in sorted(set(r[1] for r in cls)):
        g = [r for r in cls if r[1] == k]
        if len(g) > 1:
            want.append([k, str(len(g)), ";".join(r[0] for r in g), min(r[0] for r in g),
                         str(max(int(r[3]) for r in g)), str(sum(int(r[3]) for r in g))])
    assert got == want, (got, want)
    assert len(want) >= 2, want  # the check compares something
    # HAVING filters groups out: none has more rows than the relation
    assert q(port, "SELECT relkind FROM pg_class GROUP BY relkind HAVING count(*) > %d"
             % len(cls)) == []
    # a global aggregate over no rows: one row, COUNT 0, the others NULL (empty with -A)
    assert q(port, "SELECT count(*), count(relname), string_agg(relname, ','), sum(oid), "
                   "max(relname) FROM pg_class WHERE relname = 'no such'") == [["0", "0", "", "", ""]]
    got = psql_ok(port, None, "-A", "-t", "-P", "null=<null>", "-c",
                  "SELECT string_agg(relname, ','), count(*) FROM pg_class WHERE false")
    assert got.split() == ["<null>|0"], got
    # ... and a GROUP BY over no rows: no row
    assert q(port, "SELECT relkind, count(*) FROM pg_class WHERE relname = 'no such' "
                   "GROUP BY relkind") == []
    # string_agg in a correlated scalar subquery (psql's \d publications query)
    att = q(port, "SELECT attrelid, attname FROM pg_attribute WHERE attnum > 0")
    got = q(port, "SELECT c.relname, (SELECT string_agg(attname, ', ') FROM pg_attribute "
                  "WHERE attrelid = c.oid AND attnum > 0) FROM pg_class c "
                  "WHERE relnamespace = %s ORDER BY 1" % ns)
    want = sorted([r[0], ", ".join(a[1] for a in att if a[0] == r[3])] for r in pub)
    assert got == want, (got, want)
    # errors: a clean message with its SQLSTATE
    fails(port, "SELECT string_agg(oid, ',') FROM pg_class", "42883", "does not exist")
    fails(port, "SELECT string_agg(relname) FROM pg_class", "42883", "separator")
    fails(port, "SELECT string_agg(relname, relname) FROM pg_class", "0A000", "string literal")


def check_extended(port, cls):
    """Parse with a $1 parameter, Describe, Bind, Execute 1 row at a time."""
    want = {}
    for r in cls:
        if r[0] != "agg_v":
            want.setdefault(r[1], []).append(r[0])
    c = PgWire(port)
    try:
        c.parse("s", "SELECT relkind, count(*), string_agg(relname, '/') FROM pg_class "
                     "WHERE relname <> $1 GROUP BY relkind ORDER BY 1")
        c.describe("S", "s")
        c.bind("", "s", ["agg_v"])
        c.execute("", 1)
        c.execute("", 0)
        c.sync()
        m = c.until_ready()
        assert not error(m), m
        desc = next(v for t, v in m if t == "T")
        assert [(d[0], d[1]) for d in desc][1:] == [("EXPR$1", 20), ("EXPR$2", 25)], desc
        kinds = "".join(t for t, _ in m)
        assert "s" in kinds, kinds  # PortalSuspended after the first row
        got = [[v.decode() for v in r] for r in wire_rows(m)]
        exp = [[k, str(len(want[k])), "/".join(want[k])] for k in sorted(want)]
        assert got == exp and len(exp) >= 2, (got, exp)
    finally:
        c.terminate()


def check_against_pg(port, pg_port):
    env = {"PGPASSWORD": "sluice"}
    psql_ok(pg_port, "DROP DATABASE IF EXISTS " + PG_DB, env=env)
    psql_ok(pg_port, "CREATE DATABASE " + PG_DB, env=env)
    pg = {"env": env, "db": PG_DB}
    psql_ok(pg_port, PG_DDL, **pg)
    for sql in (
            "SELECT count(*) " + PUBLIC,
            "SELECT c.relkind, count(*), min(c.relname), max(c.relname) " + PUBLIC +
            " GROUP BY c.relkind HAVING count(*) > 1 ORDER BY 1",
            "SELECT c.relkind, count(*) " + PUBLIC + " GROUP BY c.relkind ORDER BY 1",
            "SELECT string_agg(relname, ', ') FROM (SELECT c.relname " + PUBLIC +
            " ORDER BY c.relname) s",
            "SELECT count(*), string_agg(c.relname, ','), max(c.relname) " + PUBLIC +
            " AND c.relname = 'no such'",
            "SELECT c.relname, (SELECT string_agg(a.attname, ', ') FROM pg_catalog.pg_attribute a "
            "WHERE a.attrelid = c.oid AND a.attnum > 0) " + PUBLIC + " ORDER BY 1"):
        want = q(pg_port, sql, **pg)
        got = q(port, sql)
        assert got == want, (sql, got, want)
    psql_ok(pg_port, "DROP DATABASE " + PG_DB, env=env)


def main():
    tmp = tmpdir("srv-aggregates-")
    with Server(os.path.join(tmp, "data")) as srv:
        for ddl in DDL:
            psql_ok(srv.port, ddl)
        check_sluice(srv.port)
        check_extended(srv.port, q(srv.port, "SELECT relname, relkind FROM pg_class"))
        if "--pg" in sys.argv:
            check_against_pg(srv.port, int(os.environ["SLUICE_PG_PORT"]))
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
