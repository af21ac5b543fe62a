"""server.cursors — PostgreSQL's cursor statements through `sluice serve`,
read by psql (the independent client): DECLARE / FETCH / MOVE / CLOSE over
a bounded and an unbounded datagen table in one session (the rows psql
prints are checked against the sequence the table generates), the errors
34000 / 42P03 with their SQLSTATE as psql reports them, and a session that
ends with a cursor still open over an endless query (the server goes on
answering, and stops cleanly: nothing waits on the abandoned query)."""
import os
import sys

from srv_util import Server, psql, tmpdir

TABLES = (
    "CREATE TABLE nums (id BIGINT) WITH ('connector'='datagen', 'number-of-rows'='25', "
    "'fields.id.kind'='sequence', 'fields.id.start'='1', 'fields.id.end'='25');\n"
    "CREATE TABLE endless (id BIGINT) WITH ('connector'='datagen', 'rows-per-second'='5000', "
    "'fields.id.kind'='sequence', 'fields.id.start'='1', 'fields.id.end'='1000000000');\n")


def script(srv, text, *args):
    return psql(srv.port, None, "-A", "-t", "-q", *args, stdin=text)


def main():
    tmp = tmpdir("srv-cursors-")
    with Server(os.path.join(tmp, "data")) as srv:
        rc, out, err = script(srv, TABLES)
        assert rc == 0, err
        # One session: the cursor lives across statements. One task per
        # query so that the bounded table's rows come in sequence order.
        rc, out, err = script(srv, (
            "SET 'parallelism.default' = '1';\n"
            "DECLARE c NO SCROLL CURSOR FOR SELECT id FROM nums;\n"
            "FETCH FORWARD 4 FROM c;\n"
            "MOVE 6 IN c;\n"
            "FETCH 3 c;\n"
            "FETCH ALL FROM c;\n"
            "FETCH 10 FROM c;\n"
            "CLOSE c;\n"))
        assert rc == 0, err
        got = [int(x) for x in out.split()]
        assert got == [1, 2, 3, 4] + list(range(11, 26)), out
        # The command tags: psql echoes those of statements without rows, and
        # libpq reads the count of "FETCH n" / "MOVE n" into ROW_COUNT.
        rc, out, err = psql(srv.port, None, "-A", "-t", stdin=(
            "SET 'parallelism.default' = '1';\n"
            "DECLARE c CURSOR FOR SELECT id FROM nums;\n"
            "MOVE 20 FROM c;\n"
            "\\echo moved :ROW_COUNT\n"
            "FETCH ALL FROM c;\n"
            "\\echo fetched :ROW_COUNT\n"
            "CLOSE c;\n"))
        assert rc == 0, err
        lines = [l for l in out.splitlines() if l.strip()]
        assert lines == ["SET", "DECLARE CURSOR", "MOVE 20", "moved 20", "21", "22", "23", "24",
                         "25", "fetched 5", "CLOSE CURSOR"], lines
        # An unbounded query read in pieces: the sequence continues across FETCHes.
        rc, out, err = script(srv, (
            "SET 'parallelism.default' = '1';\n"
            "DECLARE e CURSOR WITH HOLD FOR SELECT id FROM endless;\n"
            "FETCH 10 FROM e;\nFETCH 10 FROM e;\nFETCH 10 FROM e;\n"
            "CLOSE e;\n"))
        assert rc == 0, err
        assert [int(x) for x in out.split()] == list(range(1, 31)), out
        # Errors: unknown and duplicate cursors, with their SQLSTATEs.
        rc, out, err = psql(srv.port, "FETCH 1 FROM nope", "-v", "VERBOSITY=verbose")
        assert rc != 0 and "34000" in err and 'cursor "nope" does not exist' in err, err
        rc, out, err = script(srv, ("DECLARE d CURSOR FOR SELECT id FROM nums;\n"
                                    "DECLARE d CURSOR FOR SELECT id FROM nums;\n"),
                              "-v", "VERBOSITY=verbose")
        assert rc != 0 and "42P03" in err and 'cursor "d" already exists' in err, err
        # A client that leaves with a cursor open over an endless query.
        rc, out, err = script(srv, ("SET 'parallelism.default' = '1';\n"
                                    "DECLARE left_open CURSOR FOR SELECT id FROM endless;\n"
                                    "FETCH 2 FROM left_open;\n"))
        assert rc == 0 and out.split() == ["1", "2"], (out, err)
        rc, out, err = psql(srv.port, "SHOW TABLES", "-A", "-t")
        assert rc == 0 and "nums" in out, err
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
