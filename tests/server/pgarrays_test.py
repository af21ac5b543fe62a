"""server.pgarrays / server.pgarrays_pg — PostgreSQL's arrays (kept as their
text '{a,"b c",NULL}') in queries over the catalog relations, through `sluice
serve`, read by psql (the independent client): ARRAY(subquery), also
correlated (run per outer row), generate_series and unnest in FROM, a[i],
expr::type[], array_upper and array_to_string, and psql's policies query of
\\d NAME (psql_d_5), which needs them. Expected rows are written here; with
--pg (the `pg` fixture: SLUICE_PG_PORT) every query of COMPARED must also give
what the real PostgreSQL 15 gives for the same table."""
import os
import sys

from srv_util import Server, psql, psql_ok, psql_rows, tmpdir

HERE = os.path.dirname(os.path.abspath(__file__))

SLUICE_DDL = ("CREATE TABLE arr_t (id BIGINT, name STRING NOT NULL, amount DECIMAL(10, 2), "
              "ts TIMESTAMP(3)) WITH ('connector' = 'datagen')")
PG_DDL = ("DROP TABLE IF EXISTS arr_t; CREATE TABLE arr_t (id bigint, name text NOT NULL, "
          "amount numeric(10,2), ts timestamp(3))")

# query -> the rows psql -A -t prints
COMPARED = [
    ("SELECT ('{a,\"b c\",NULL,d}'::text[])[2], ('{a,b}'::text[])[3] IS NULL, "
     "('{a,NULL}'::text[])[2] IS NULL, array_upper('{a,b,c}'::text[], 1), "
     "array_upper('{}'::text[], 1) IS NULL, array_upper('{1,2}'::pg_catalog.int2[], 1)",
     [["b c", "t", "t", "3", "t", "2"]]),
    ("SELECT array_to_string('{a,NULL,\"x,y\"}'::text[], ', '), "
     "array_to_string('{a,NULL}'::text[], '-', '*')",
     [["a, x,y", "a-*"]]),
    ("SELECT s FROM pg_catalog.generate_series(1, 4) s", [["1"], ["2"], ["3"], ["4"]]),
    ("SELECT s, x FROM generate_series(5, 1, -2) AS s, unnest('{a,\"b c\",NULL}'::text[]) x "
     "ORDER BY 1, 2",
     [[s, x] for s in ("1", "3", "5") for x in ("a", "b c", "")]),
    ("SELECT c.relname, ARRAY(SELECT a.attname FROM pg_catalog.pg_attribute a "
     "WHERE a.attrelid = c.oid AND a.attnum > 0 ORDER BY a.attnum DESC) "
     "FROM pg_catalog.pg_class c WHERE c.relname = 'arr_t'",
     [["arr_t", "{ts,amount,name,id}"]]),
    ("SELECT array_to_string(ARRAY(SELECT attname FROM pg_catalog.pg_attribute "
     "WHERE attrelid = c.oid AND attnum > 0 AND attname <> 'id' ORDER BY 1), ',') AS cols, "
     "ARRAY(SELECT attname FROM pg_catalog.pg_attribute WHERE attrelid = c.oid AND attnum > 10) "
     "FROM pg_catalog.pg_class c WHERE relname = 'arr_t'",
     [["amount,name,ts", "{}"]]),
    # quoting of the elements as PostgreSQL's array output
    ("SELECT ARRAY(SELECT x || '' FROM unnest('{\"a b\",\"\",\"q\\\"q\",x}'::text[]) x)",
     [['{"a b","","q\\"q",x}']]),
]

ERRORS = [
    ("SELECT * FROM generate_series(1, 2, 0) s", "22023", "step size cannot equal zero"),
    ("SELECT * FROM nosuchfn(1) f", "42883", "function nosuchfn does not exist"),
    ("SELECT ARRAY(SELECT relname, oid FROM pg_catalog.pg_class) FROM pg_catalog.pg_am",
     "42601", "subquery must return only one column"),
    ("SELECT ARRAY(SELECT nope FROM pg_catalog.pg_am) FROM pg_catalog.pg_am", "42703",
     "column \"nope\" does not exist"),
    ("SELECT 'x'::nosuchtype[]", "42704", "type \"nosuchtype\" does not exist"),
    ("SELECT ARRAY(SELECT name FROM arr_t)", "0A000", "catalog relations"),
]


def policies(port, **kw):
    oid = psql_ok(port, "SELECT oid FROM pg_catalog.pg_class WHERE relname = 'arr_t'",
                  "-A", "-t", **kw).strip()
    with open(os.path.join(HERE, "syscat_queries", "psql_d_5.sql")) as f:
        q = f.read().replace("@OID@", oid)
    return psql_rows(psql_ok(port, None, "-A", "-t", "-c", q, **kw))


def main():
    tmp = tmpdir("srv-pgarrays-")
    with Server(os.path.join(tmp, "data")) as srv:
        psql_ok(srv.port, SLUICE_DDL)
        for q, want in COMPARED:
            got = psql_rows(psql_ok(srv.port, None, "-A", "-t", "-c", q))
            assert got == want, (q, got, want)
        for q, state, msg in ERRORS:
            rc, out, err = psql(srv.port, None, "-v", "VERBOSITY=verbose", "-c", q)
            assert rc != 0 and state in err and msg in err, (q, err)
        assert policies(srv.port) == []
        if "--pg" in sys.argv:
            pg = int(os.environ["SLUICE_PG_PORT"])
            env = {"PGPASSWORD": "sluice"}
            psql_ok(pg, PG_DDL, env=env)
            for q, want in COMPARED:
                got = psql_rows(psql_ok(pg, None, "-A", "-t", "-c", q, env=env))
                assert got == want, ("postgresql", q, got, want)
            for q, state, msg in ERRORS[:4]:
                rc, out, err = psql(pg, None, "-v", "VERBOSITY=verbose", "-c", q, env=env)
                assert rc != 0 and state in err, ("postgresql", q, err)
            assert policies(pg, env=env) == []
            psql_ok(pg, "DROP TABLE arr_t", env=env)
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
