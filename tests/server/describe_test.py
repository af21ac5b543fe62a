"""server.describe — pgJDBC's DatabaseMetaData queries (captured from
pgJDBC 42.7.4 into tests/server/syscat_queries/) over the extended query
protocol, as a driver sends them, on the raw bytes (pgwire_client.py):
Parse with $n parameters (the table name pattern bound with LIKE),
Describe S (ParameterDescription, RowDescription), Bind, Describe P,
Execute (getTables, getColumns, getPrimaryKeys: _pg_expandarray) — whole, with a row limit (PortalSuspended, a cursor on the
catalog relations) and inside BEGIN as setFetchSize does — and with
'execution.runtime-mode' = 'batch' (catalog relations are bounded);
parameters in subqueries in WHERE; 21000 from a scalar subquery.
Expected rows are computed here from the tables the test creates.
"""
import os

from pgwire_client import OID, PgWire, error, kinds, rows
from srv_util import Server, tmpdir

HERE = os.path.dirname(os.path.abspath(__file__))
QUERIES = os.path.join(HERE, "syscat_queries")

DDL = [
    "CREATE TABLE orders (id BIGINT NOT NULL, amount DECIMAL(10, 2), note STRING COMMENT 'free', "
    "ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'datagen')",
    "CREATE TABLE users (uid INT, name VARCHAR(20), PRIMARY KEY (uid, name) NOT ENFORCED) "
    "WITH ('connector' = 'datagen')",
    "CREATE TABLE other (k INT) WITH ('connector' = 'datagen')",
]

# getColumns: (attname, atttypid, attnotnull, atttypmod, attnum, description)
ORDERS_COLS = [("id", "20", "t", "-1", "1", None), ("amount", "1700", "f", str(((10 << 16) | 2) + 4), "2", None),
               ("note", "25", "f", "-1", "3", "free"), ("ts", "1114", "f", "3", "4", None)]


def sql_of(name):
    with open(os.path.join(QUERIES, name + ".sql")) as f:
        return f.read().strip().rstrip(";")


def text(v):
    return None if v is None else v.decode()


def run(c, sql, params, oids=(), max_rows=0):
    """Parse / Describe S / Bind / Describe P / Execute / Sync: the replies,
    without an error."""
    m = c.run(sql, oids, params, describe="SP", max_rows=max_rows)
    assert not error(m), error(m)
    return m


def check_get_tables(c):
    sql = sql_of("jdbc_get_tables").replace("c.relname LIKE '%'", "c.relname LIKE $1")
    assert "$1" in sql
    m = run(c, sql, ["%"])
    t = [v for k, v in m if k == "t"]
    assert t == [[OID["text"]]], t  # the pattern's type, inferred from LIKE
    desc = [v for k, v in m if k == "T"]
    assert len(desc) == 2 and [d[0].lower() for d in desc[0]][:4] == ["table_cat", "table_schem", "table_name",
                                                            "table_type"], desc
    got = [(text(r[1]), text(r[2]), text(r[3])) for r in rows(m)]
    assert got == [("public", "orders", "TABLE"), ("public", "other", "TABLE"),
                   ("public", "users", "TABLE")], got
    assert ("C", "SELECT 3") in m, m
    # one table by its name
    m = run(c, sql, ["us%"])
    assert [text(r[2]) for r in rows(m)] == ["users"], rows(m)
    m = run(c, sql, ["nothing"])
    assert rows(m) == [] and ("C", "SELECT 0") in m, m


def check_get_columns(c):
    sql = sql_of("jdbc_get_columns").replace("c.relname LIKE 't'", "c.relname LIKE $1").replace(
        "attname LIKE '%'", "attname LIKE $2")
    assert "$2" in sql
    m = run(c, sql, ["orders", "%"])
    assert [v for k, v in m if k == "t"] == [[OID["text"], OID["text"]]], m
    got = [(text(r[2]), text(r[3]), text(r[4]), text(r[5]), text(r[8]), text(r[12])) for r in rows(m)]
    assert got == ORDERS_COLS, got
    m = run(c, sql, ["orders", "n%"])
    assert [text(r[2]) for r in rows(m)] == ["note"], rows(m)
    # a row limit: a cursor over the catalog relations
    m = run(c, sql, ["orders", "%"], max_rows=3)
    assert kinds(m).endswith("sZ"), kinds(m)
    assert [text(r[2]) for r in rows(m)] == ["id", "amount", "note"], rows(m)
    # inside a transaction the portal outlives Sync (setFetchSize)
    assert not error(c.query("BEGIN"))
    c.parse("", sql)
    c.bind("p", "", ["orders", "%"])
    c.execute("p", 2)
    c.sync()
    m = c.until_ready()
    assert not error(m) and "s" in kinds(m), m
    got = [text(r[2]) for r in rows(m)]
    for _ in range(3):
        c.execute("p", 2)
        c.sync()
        m = c.until_ready()
        assert not error(m), m
        got += [text(r[2]) for r in rows(m)]
        if "C" in kinds(m):
            break
    assert got == ["id", "amount", "note", "ts"], got
    assert not error(c.query("COMMIT"))


def check_get_primary_keys(c):
    # _pg_expandarray(i.indkey) in a subquery, (result.KEYS).x, ORDER BY result.table_name
    sql = sql_of("jdbc_get_primary_keys").replace("ct.relname = 't'", "ct.relname = $1")
    assert "$1" in sql
    m = run(c, sql, ["users"])
    desc = [v for k, v in m if k == "T"][0]
    assert [d[0].lower() for d in desc] == ["table_cat", "table_schem", "table_name", "column_name",
                                            "key_seq", "pk_name"], desc
    assert desc[4][1] == OID["int4"], desc
    got = [tuple(text(v) for v in r) for r in rows(m)]
    assert got == [(None, "public", "users", "uid", "1", "users_pkey"),
                   (None, "public", "users", "name", "2", "users_pkey")], got
    m = run(c, sql, ["orders"])
    assert [(text(r[3]), text(r[4])) for r in rows(m)] == [("id", "1")], rows(m)
    m = run(c, sql, ["other"])  # no primary key
    assert rows(m) == [], rows(m)
    # the same, read one row at a time
    m = run(c, sql, ["users"], max_rows=1)
    assert [text(r[3]) for r in rows(m)] == ["uid"] and kinds(m).endswith("sZ"), m


def check_batch_mode(c):
    assert not error(c.query("SET 'execution.runtime-mode' = 'batch'"))
    sql = sql_of("jdbc_get_tables").replace("c.relname LIKE '%'", "c.relname LIKE $1")
    m = run(c, sql, ["o%"])
    assert [text(r[2]) for r in rows(m)] == ["orders", "other"], rows(m)
    m = run(c, sql, ["o%"], max_rows=1)
    assert [text(r[2]) for r in rows(m)] == ["orders"] and "s" in kinds(m), m
    assert not error(c.query("RESET 'execution.runtime-mode'"))


def check_session_functions(c):
    # pgJDBC 42.7.14's getTables names the catalog with current_database():
    # described and run over the extended protocol; set_config() described
    # has no effect, run it has
    m = run(c, "SELECT current_database() AS cat, relname FROM pg_catalog.pg_class "
               "WHERE relname LIKE $1", ["ord%"])
    assert [(text(r[0]), text(r[1])) for r in rows(m)] == [("sluice", "orders"), ("sluice", "orders_pkey")], rows(m)
    sql = "SELECT set_config('application_name', 'described', false)"
    c.parse("sc", sql)
    c.describe("S", "sc")
    c.sync()
    m = c.until_ready()
    assert not error(m) and [d[0][1] for k, d in m if k == "T"] == [OID["text"]], m
    m = c.query("SHOW application_name")
    assert rows(m) != [[b"described"]], m
    m = run(c, sql, [])
    assert rows(m) == [[b"described"]], m
    m = c.query("SHOW application_name")
    assert rows(m) == [[b"described"]], m


def check_subqueries(c):
    # parameters inside a subquery in WHERE (EXISTS / IN): typed from their context there
    sql = ("SELECT relname FROM pg_catalog.pg_class c WHERE c.relname LIKE $1 AND EXISTS "
           "(SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid AND i.indnatts = $2) "
           "ORDER BY 1")
    m = run(c, sql, ["%", "2"])
    assert [v for k, v in m if k == "t"] == [[OID["text"], OID["int4"]]], m
    assert [text(r[0]) for r in rows(m)] == ["users"], rows(m)
    sql = ("SELECT relname FROM pg_catalog.pg_class WHERE relkind = 'r' AND relnamespace = 2200 AND oid NOT IN "
           "(SELECT indrelid FROM pg_catalog.pg_index WHERE indnatts >= $1) ORDER BY 1")
    m = run(c, sql, ["1"])
    assert [text(r[0]) for r in rows(m)] == ["other"], rows(m)
    # several rows for a scalar subquery: 21000, and the session goes on
    c.parse("", "SELECT (SELECT a.attname FROM pg_catalog.pg_attribute a WHERE a.attrelid = c.oid) "
                "FROM pg_catalog.pg_class c WHERE c.relname = $1")
    c.bind("", "", ["orders"])
    c.execute("")
    c.sync()
    e = error(c.until_ready())
    assert e and e["C"] == "21000" and e["M"] == "more than one row returned by a subquery used as an expression", e


def check_errors(c):
    # a bad parameter value: a clean error, and the session goes on
    sql = "SELECT relname FROM pg_catalog.pg_class WHERE relnatts = $1"
    c.parse("", sql, [OID["int4"]])
    c.bind("", "", ["x"])
    c.execute("")
    c.sync()
    e = error(c.until_ready())
    assert e and e["C"] == "22P02", e
    m = run(c, sql, ["4"])
    assert [text(r[0]) for r in rows(m)] == ["orders"], rows(m)


def main():
    tmp = tmpdir("srv-describe-")
    with Server(os.path.join(tmp, "data")) as srv:
        c = PgWire(srv.port)
        c.query_ok(*DDL)
        check_get_tables(c)
        check_get_columns(c)
        check_get_primary_keys(c)
        check_batch_mode(c)
        check_session_functions(c)
        check_subqueries(c)
        check_errors(c)
        c.terminate()
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    main()
