"""server.syscat / server.syscat_pg — PostgreSQL's catalog relations through
`sluice serve`, read by psql (the independent client): psql's own \\dt, \\dv,
\\l and \\dt NAME, the columns query of \\d NAME, and the queries pgJDBC's
DatabaseMetaData.getTables / getColumns send (captured from a real PostgreSQL 15 into
tests/server/syscat_queries/). Expected rows are computed here from the
tables the test creates.

With --pg (server.syscat_pg, the `pg` fixture: SLUICE_PG_PORT), the same
table is created on the real PostgreSQL server and psql's \\dt NAME output and
getColumns' rows for it must be the same on both (the reference is
PostgreSQL itself). So must, for the same objects in a database of their own
(PG_DB_DDL), psql's \\d (all relations), \\d VIEW, and the rows of \\d NAME's
index query (pg_get_indexdef, pg_get_constraintdef) and \\d+ NAME's columns
query (storage, col_description). \\d NAME and \\d+ NAME of a table as a whole
must print what PostgreSQL's psql prints for the same table, character for
character (its publications query runs string_agg in a correlated scalar
subquery, its policies query a correlated ARRAY(subquery); the rows of
those over empty relations are checked here too: psql_d_5 ... psql_d_9)."""
import os
import sys

from srv_util import Server, psql, psql_ok, psql_rows, tmpdir

HERE = os.path.dirname(os.path.abspath(__file__))
QUERIES = os.path.join(HERE, "syscat_queries")

SLUICE_DDL = [
    "CREATE TABLE syscat_t (id BIGINT, name STRING NOT NULL COMMENT 'who', "
    "amount DECIMAL(10, 2), ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED) "
    "WITH ('connector' = 'datagen')",
    "CREATE TABLE \"Mixed\" (k INT, v VARCHAR(20)) WITH ('connector' = 'datagen')",
    "CREATE VIEW syscat_v AS SELECT k FROM \"Mixed\"",
]
PG_DB = "syscat_psqld"
PG_DB_DDL = ("CREATE TABLE syscat_t (id bigint PRIMARY KEY, name text NOT NULL, "
             "amount numeric(10,2), ts timestamp(3)); "
             "COMMENT ON COLUMN syscat_t.name IS 'who'; "
             "CREATE TABLE \"Mixed\" (k int, v varchar(20)); "
             "CREATE VIEW syscat_v AS SELECT k FROM \"Mixed\"")
PG_DDL = ("DROP TABLE IF EXISTS syscat_t; CREATE TABLE syscat_t (id bigint PRIMARY KEY, "
          "name text NOT NULL, amount numeric(10,2), ts timestamp(3))")


def query(name, table):
    with open(os.path.join(QUERIES, name + ".sql")) as f:
        return f.read().replace("LIKE 't'", "LIKE '%s'" % table)


def check_sluice(port):
    # \dt and \dv: psql's own queries (LEFT JOINs, CASE, IN, !~, ORDER BY 1,2)
    dt = psql_rows(psql_ok(port, "\\dt", "-A", "-t"))
    assert dt == [["public", "Mixed", "table", "sluice"], ["public", "syscat_t", "table", "sluice"]], dt
    dv = psql_rows(psql_ok(port, "\\dv", "-A", "-t"))
    assert dv == [["public", "syscat_v", "view", "sluice"]], dv
    # \dt NAME: OPERATOR(pg_catalog.~) with COLLATE, a double-quoted name
    one = psql_rows(psql_ok(port, '\\dt "Mixed"', "-A", "-t"))
    assert one == [["public", "Mixed", "table", "sluice"]], one
    # \l: one database, UTF8
    dbs = psql_rows(psql_ok(port, "\\l", "-A", "-t"))
    assert [r[:3] for r in dbs] == [["sluice", "sluice", "UTF8"]], dbs
    # pgJDBC getTables (TABLE): comma join, LEFT JOIN pg_description, 'pg_class'::regclass
    tables = psql_rows(psql_ok(port, None, "-A", "-t", "-f", os.path.join(QUERIES, "jdbc_get_tables.sql")))
    assert [(r[1], r[2], r[3]) for r in tables] == [
        ("public", "Mixed", "TABLE"), ("public", "syscat_t", "TABLE")], tables
    # pgJDBC getColumns: a subquery with ROW_NUMBER() OVER, five joins, type oids
    cols = psql_rows(psql_ok(port, None, "-A", "-t", "-c", query("jdbc_get_columns", "syscat_t")))
    got = [(r[2], r[3], r[4], r[5], r[8], r[12]) for r in cols]
    want = [("id", "20", "t", "-1", "1", ""), ("name", "25", "t", "-1", "2", "who"),
            ("amount", "1700", "f", str(((10 << 16) | 2) + 4), "3", ""),
            ("ts", "1114", "f", "3", "4", "")]
    assert got == want, got
    # information_schema
    info = psql_rows(psql_ok(port, "SELECT table_name, ordinal_position, column_name, is_nullable "
                             "FROM information_schema.columns WHERE table_schema = 'public' "
                             "ORDER BY table_name, ordinal_position", "-A", "-t"))
    assert info == [["Mixed", "1", "k", "YES"], ["Mixed", "2", "v", "YES"],
                    ["syscat_t", "1", "id", "NO"], ["syscat_t", "2", "name", "NO"],
                    ["syscat_t", "3", "amount", "YES"], ["syscat_t", "4", "ts", "YES"]], info
    # select-list subqueries that cannot be joins run per row (an APPLY):
    # ORDER BY + LIMIT, an aggregate, none found (NULL), several (21000)
    q = ("SELECT relname, (SELECT attname FROM pg_attribute a WHERE a.attrelid = c.oid "
         "AND attnum > %d ORDER BY attnum DESC LIMIT 1), (SELECT count(*) FROM pg_attribute a "
         "WHERE a.attrelid = c.oid) AS n FROM pg_class c WHERE relname IN ('syscat_t', 'Mixed') "
         "ORDER BY relname")
    got = psql_rows(psql_ok(port, q % 0, "-A", "-t"))
    assert got == [["Mixed", "v", "2"], ["syscat_t", "ts", "4"]], got
    got = psql_rows(psql_ok(port, q % 3, "-A", "-t"))
    assert got == [["Mixed", "", "2"], ["syscat_t", "ts", "4"]], got
    rc, out, err = psql(port, "SELECT relname, (SELECT attname FROM pg_attribute a WHERE "
                        "a.attrelid = c.oid ORDER BY attnum) FROM pg_class c "
                        "WHERE relname = 'syscat_t'", "-v", "VERBOSITY=verbose")
    assert rc != 0 and "21000" in err and "more than one row" in err, err
    # a bad query over them: a clean error with its position
    rc, out, err = psql(port, "SELECT relname ~ '(' FROM pg_class")
    assert rc != 0 and "invalid regular expression" in err and "2201B" not in out, err
    return one, cols


def check_against_pg(port, pg_port):
    env = {"PGPASSWORD": "sluice"}
    psql_ok(pg_port, PG_DDL, env=env)
    want = psql_ok(pg_port, "\\dt syscat_t", env=env)
    got = psql_ok(port, "\\dt syscat_t")
    assert got == want, (got, want)
    q = query("jdbc_get_columns", "syscat_t")
    want = psql_rows(psql_ok(pg_port, None, "-A", "-t", "-c", q, env=env))
    got = psql_rows(psql_ok(port, None, "-A", "-t", "-c", q))
    # nspname relname attname atttypid attnotnull atttypmod attlen typtypmod attnum
    # (descriptions differ: PostgreSQL's table has no comment)
    assert [r[:10] for r in got] == [r[:10] for r in want], (got, want)
    # psql's \d NAME: the columns query (scalar subqueries, format_type, ORDER BY
    # a column not selected), each server with its own oid of the table
    for port_, e in ((pg_port, env), (port, None)):
        oid = psql_ok(port_, "SELECT oid FROM pg_catalog.pg_class WHERE relname = 'syscat_t'",
                      "-A", "-t", env=e).strip()
        out = psql_ok(port_, None, "-A", "-t", "-c",
                      query("psql_d_3", "syscat_t").replace("@OID@", oid), env=e)
        if port_ == pg_port:
            want = psql_rows(out)
        else:
            got = psql_rows(out)
    assert got == want and len(got) == 4, (got, want)
    check_describe_against_pg(port, pg_port, env)


def oid_of(port, name, **kw):
    return psql_ok(port, "SELECT oid FROM pg_catalog.pg_class WHERE relname = '%s'" % name,
                   "-A", "-t", **kw).strip()


def check_describe_against_pg(port, pg_port, env):
    """psql's \\d, \\d VIEW and the queries of \\d NAME / \\d+ NAME that run,
    on a database of the real PostgreSQL holding the same objects."""
    psql_ok(pg_port, "DROP DATABASE IF EXISTS " + PG_DB, env=env)
    psql_ok(pg_port, "CREATE DATABASE " + PG_DB, env=env)
    pg = {"env": env, "db": PG_DB}
    psql_ok(pg_port, PG_DB_DDL, **pg)
    # psql's own output, headers and alignment included
    for cmd in ("\\d", "\\d syscat_v", "\\dv syscat_v", "\\d syscat_t", "\\d+ syscat_t",
                "\\d \"Mixed\""):
        want = psql_ok(pg_port, cmd, **pg)
        got = psql_ok(port, cmd)
        assert got == want, (cmd, got, want)
    # \\d+ (pg_table_size, pg_size_pretty, obj_description): the Size column
    # differs, as it must: Sluice's tables store nothing (0 bytes), PostgreSQL's
    # with a toastable column have a toast index (8192 bytes)
    want = psql_rows(psql_ok(pg_port, "\\d+", "-A", "-t", **pg))
    got = psql_rows(psql_ok(port, "\\d+", "-A", "-t"))
    assert [r[:6] + r[7:] for r in got] == [r[:6] + r[7:] for r in want], (got, want)
    assert [r[6] for r in got] == ["0 bytes"] * 3, got
    # \\d NAME's index query (pg_get_indexdef, pg_get_constraintdef) and \\d+ NAME's
    # columns query, each server with its own oid of the table
    for name, n in (("psql_d_4", 1), ("psql_dplus_3", 4), ("psql_d_5", 0), ("psql_d_6", 0),
                    ("psql_d_8", 0), ("psql_d_9", 0)):
        res = []
        for port_, kw in ((pg_port, pg), (port, {})):
            q = query(name, "syscat_t").replace("@OID@", oid_of(port_, "syscat_t", **kw))
            res.append(psql_rows(psql_ok(port_, None, "-A", "-t", "-c", q, **kw)))
        assert res[1] == res[0] and len(res[0]) == n, (name, res)
    # the view's columns (\d+ VIEW's definition is printed differently: Sluice
    # shows its own SQL text of the query, not PostgreSQL's deparsed form)
    res = []
    for port_, kw in ((pg_port, pg), (port, {})):
        q = query("psql_dplus_3", "syscat_v").replace("@OID@", oid_of(port_, "syscat_v", **kw))
        res.append(psql_rows(psql_ok(port_, None, "-A", "-t", "-c", q, **kw)))
    assert res[1] == res[0] and len(res[0]) == 1, res
    psql_ok(pg_port, "DROP DATABASE " + PG_DB, env=env)


def main():
    tmp = tmpdir("srv-syscat-")
    with Server(os.path.join(tmp, "data")) as srv:
        for ddl in SLUICE_DDL:
            psql_ok(srv.port, ddl)
        check_sluice(srv.port)
        if "--pg" in sys.argv:
            check_against_pg(srv.port, int(os.environ["SLUICE_PG_PORT"]))
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
