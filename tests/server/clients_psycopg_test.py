"""server.clients.psycopg.<case> — psycopg 3 (PyPI, the pure Python package
over the system's libpq; scripts/clients installs it into a venv whose
python runs this file) against `sluice serve`. psycopg is the client under
test; psql checks independently what a statement left behind.

  transaction   the default mode: psycopg sends BEGIN before the first
                statement; commit / rollback; statements take effect when
                they run (a CREATE TABLE rolled back stays, as psql sees);
                an error in a block makes the next statement 25P02
                (InFailedSqlTransaction) until ROLLBACK
  autocommit    autocommit=True: no BEGIN, the connection stays idle
  named_cursor  a server-side (named) cursor over an unbounded streaming
                query: DECLARE / FETCH FORWARD n / CLOSE, in batches
  errors        SQLSTATEs map to psycopg.errors classes: UndefinedColumn
                (42703), UndefinedTable (42P01), SyntaxError (42601), with
                the statement position in characters
  params        server-side parameters ($n) in text and binary

Usage: python (of the venv) clients_psycopg_test.py CASE
"""
import psycopg
from psycopg import errors, pq

from srv_util import psql_ok, run_case

UNBOUNDED = ("CREATE TABLE s (id BIGINT, v STRING) WITH ('connector'='datagen', "
             "'rows-per-second'='1000', 'fields.id.kind'='random', 'fields.id.min'='1', "
             "'fields.id.max'='1000000', 'fields.v.length'='8')")
NUMS = ("CREATE TABLE n (id BIGINT, x DOUBLE) WITH ('connector'='datagen', 'number-of-rows'='5', "
        "'fields.id.kind'='sequence', 'fields.id.start'='1', 'fields.id.end'='5')")


def connect(srv, **kw):
    return psycopg.connect(host="127.0.0.1", port=srv.port, user="sluice", dbname="sluice",
                           connect_timeout=10, **kw)


def tables_seen_by_psql(srv):
    return psql_ok(srv.port, "SHOW TABLES", "-A", "-t").split()


def case_transaction(srv):
    IDLE, INTRANS, INERROR = (pq.TransactionStatus.IDLE, pq.TransactionStatus.INTRANS,
                              pq.TransactionStatus.INERROR)
    with connect(srv) as conn:
        assert not conn.autocommit
        assert conn.info.transaction_status == IDLE
        conn.execute(NUMS)  # psycopg sends BEGIN first
        assert conn.info.transaction_status == INTRANS, conn.info.transaction_status
        # Not transactional: the table exists before COMMIT, for every session.
        assert "n" in tables_seen_by_psql(srv)
        rows = conn.execute("SELECT id FROM n").fetchall()
        assert sorted(r[0] for r in rows) == [1, 2, 3, 4, 5], rows
        conn.commit()
        assert conn.info.transaction_status == IDLE
        conn.execute("CREATE TABLE kept (a INT) WITH ('connector'='blackhole')")
        conn.rollback()  # ROLLBACK ends the block; it undoes nothing
        assert conn.info.transaction_status == IDLE
        assert "kept" in tables_seen_by_psql(srv)
        # A failed statement makes the block fail until ROLLBACK.
        try:
            conn.execute("SELECT nope FROM n")
            raise AssertionError("an unknown column ran")
        except errors.UndefinedColumn:
            pass
        assert conn.info.transaction_status == INERROR
        try:
            conn.execute("SELECT id FROM n")
            raise AssertionError("a statement ran in a failed block")
        except errors.InFailedSqlTransaction as e:
            assert e.sqlstate == "25P02", e.sqlstate
        conn.rollback()
        assert conn.info.transaction_status == IDLE
        assert len(conn.execute("SELECT id FROM n").fetchall()) == 5
        conn.commit()
        # The transaction() context: BEGIN ... COMMIT around its block.
        with conn.transaction():
            assert len(conn.execute("SELECT id FROM n").fetchall()) == 5
        assert conn.info.transaction_status == IDLE


def case_autocommit(srv):
    with connect(srv, autocommit=True) as conn:
        conn.execute(NUMS)
        assert conn.info.transaction_status == pq.TransactionStatus.IDLE
        assert "n" in tables_seen_by_psql(srv)
        cur = conn.execute("SELECT id, x FROM n")
        assert [d.name for d in cur.description] == ["id", "x"], cur.description
        assert cur.description[0].type_code == 20 and cur.description[1].type_code == 701, cur.description
        rows = cur.fetchall()
        assert sorted(r[0] for r in rows) == [1, 2, 3, 4, 5] and all(isinstance(r[1], float) for r in rows)
        assert conn.info.transaction_status == pq.TransactionStatus.IDLE
        # What drivers and tools ask on their own.
        assert conn.execute("SHOW transaction isolation level").fetchone()[0]
        conn.execute("SET application_name = 'psycopg-test'")
        assert conn.info.parameter_status("application_name") == "psycopg-test"
        assert conn.info.parameter_status("server_encoding") == "UTF8"
        assert conn.info.server_version >= 90000, conn.info.server_version


def case_named_cursor(srv):
    with connect(srv) as conn:
        conn.execute(UNBOUNDED)
        conn.commit()
        with conn.cursor(name="stream") as cur:
            cur.itersize = 100
            cur.execute("SELECT id, v FROM s")
            assert [d.name for d in cur.description] == ["id", "v"], cur.description
            got = 0
            for _ in range(5):
                batch = cur.fetchmany(100)
                assert len(batch) == 100, len(batch)
                for i, v in batch:
                    assert 1 <= i <= 1000000 and len(v) == 8, (i, v)
                got += len(batch)
            assert got == 500
            it = iter(cur)
            assert all(next(it) for _ in range(250))
        # Closing the cursor stopped the query; the block goes on.
        assert conn.info.transaction_status == pq.TransactionStatus.INTRANS
        assert "s" in [r[0] for r in conn.execute("SHOW TABLES").fetchall()]
        conn.commit()


def case_errors(srv):
    with connect(srv, autocommit=True) as conn:
        conn.execute("CREATE TABLE t (a INT, `é` STRING) WITH ('connector'='datagen', 'number-of-rows'='1')")
        cases = [("SELECT `é`, nope FROM t", errors.UndefinedColumn, "42703", "nope"),
                 ("SELECT a FROM missing_table", errors.UndefinedTable, "42P01", "missing_table"),
                 ("SELECT `é` FROM t WHERE WHERE", errors.SyntaxError, "42601", "WHERE")]
        for sql, cls, state, at in cases:
            try:
                conn.execute(sql)
                raise AssertionError("ran: " + sql)
            except cls as e:
                assert e.sqlstate == state and e.diag.sqlstate == state, (sql, e.sqlstate)
                assert e.diag.severity == "ERROR" and e.diag.message_primary, e.diag
                pos = int(e.diag.statement_position)  # 1-based, in characters
                assert sql[pos - 1:].startswith(at), (sql, pos)
            # The connection stays usable after each.
            assert conn.execute("SELECT a FROM t").fetchone() is not None
        # Every error is a psycopg.Error with its class by SQLSTATE.
        assert errors.lookup("42703") is errors.UndefinedColumn


def case_params(srv):
    with connect(srv, autocommit=True) as conn:
        conn.execute(NUMS)
        for binary in (False, True):
            cur = conn.cursor(binary=binary)
            rows = cur.execute("SELECT id, id * %s AS m, %s AS label FROM n WHERE id > %s",
                               (10, "héllo", 2)).fetchall()
            assert sorted(rows) == [(3, 30, "héllo"), (4, 40, "héllo"), (5, 50, "héllo")], (binary, rows)
            # A value never becomes SQL.
            rows = cur.execute("SELECT id FROM n WHERE CAST(id AS STRING) = %s", ("1' OR '1'='1",)).fetchall()
            assert rows == [], rows
            # Prepared on the server after prepare_threshold executions.
            for i in range(1, 8):
                row = cur.execute("SELECT id FROM n WHERE id = %s", (i % 5 + 1,), prepare=(i > 3)).fetchone()
                assert row == (i % 5 + 1,), row


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


if __name__ == "__main__":
    run_case(CASES, "srv-psycopg")
