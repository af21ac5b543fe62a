"""server.flink_client — the Flink SQL client's statements work over the
PostgreSQL wire protocol, as they enter through the same planner API:
HELP, SHOW CATALOGS / DATABASES / CURRENT ..., USE (and 3D000 for another
name, with its caret), a 0A000 statement, a temporary table that another
session does not see, and BEGIN STATEMENT SET; ... END; in one psql session
whose sink files are read back here."""
import csv
import glob
import os
import sys
import time

from srv_util import Server, psql, psql_ok, psql_rows, tmpdir


def main():
    tmp = tmpdir("srv-flink-client-")
    with Server(os.path.join(tmp, "data")) as srv:
        out = psql_ok(srv.port, "HELP", "-A", "-t")
        stmts = [r[0] for r in psql_rows(out)]
        assert "SHOW CATALOGS" in stmts and "USE CATALOG" in stmts, out
        assert psql_rows(psql_ok(srv.port, "SHOW CATALOGS", "-A", "-t")) == [["default_catalog"]]
        assert psql_rows(psql_ok(srv.port, "SHOW DATABASES", "-A", "-t")) == [["default_database"]]
        assert psql_rows(psql_ok(srv.port, "SHOW CURRENT DATABASE", "-A", "-t")) == \
            [["default_database"]]
        assert psql_ok(srv.port, "USE CATALOG default_catalog").strip() == "USE CATALOG"
        rc, out, err = psql(srv.port, "USE CATALOG hive")
        assert rc != 0 and "a catalog with name [hive] does not exist" in err, err
        rc, out, err = psql(srv.port, "USE CATALOG hive", "-v", "VERBOSITY=verbose")
        assert "3D000" in err, err
        rc, out, err = psql(srv.port, "LOAD MODULE hive", "-v", "VERBOSITY=verbose")
        assert rc != 0 and "0A000" in err and "LOAD MODULE is not supported" in err, err
        # One psql session: a temporary source, two sinks, a statement set.
        src = ("'connector' = 'datagen', 'number-of-rows' = '6', 'fields.a.kind' = 'sequence', "
               "'fields.a.start' = '1', 'fields.a.end' = '6'")
        script = "\n".join([
            "SET 'parallelism.default' = '1';",
            "CREATE TEMPORARY TABLE src (a INT) WITH (%s);" % src,
            "CREATE TABLE evens (a INT) WITH ('connector' = 'filesystem', 'path' = '%s/evens', "
            "'format' = 'csv');" % tmp,
            "CREATE TABLE odds (a INT) WITH ('connector' = 'filesystem', 'path' = '%s/odds', "
            "'format' = 'csv');" % tmp,
            "BEGIN STATEMENT SET;",
            "INSERT INTO evens SELECT a FROM src WHERE MOD(a, 2) = 0;",
            "INSERT INTO odds SELECT a FROM src WHERE MOD(a, 2) = 1;",
            "END;",
            "SHOW TABLES;",
        ]) + "\n"
        out = psql_ok(srv.port, None, "-A", "-t", stdin=script)
        assert "src" in out, out

        def committed(name):
            vals = []
            for f in glob.glob(os.path.join(tmp, name, "**", "*"), recursive=True):
                if os.path.isfile(f) and not os.path.basename(f).startswith((".", "_")):
                    with open(f) as fh:
                        vals += [int(r[0]) for r in csv.reader(fh) if r]
            return sorted(vals)
        # A server's INSERTs run as background jobs: wait for their commit.
        deadline = time.time() + 60
        while committed("odds") != [1, 3, 5] and time.time() < deadline:
            time.sleep(0.2)
        assert committed("evens") == [2, 4, 6], committed("evens")
        assert committed("odds") == [1, 3, 5], committed("odds")
        # Another session: the temporary table was that session's only.
        tables = [r[0] for r in psql_rows(psql_ok(srv.port, "SHOW TABLES", "-A", "-t"))]
        assert tables == ["evens", "odds"], tables
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
