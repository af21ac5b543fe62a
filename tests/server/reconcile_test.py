"""server.reconcile — RECONCILE over the wire (planner/session_reconcile.c):
an ordinary result set, by the simple and the extended query protocol
(Parse, Describe S: its RowDescription before it runs, Bind, Execute),
columns check text, ok bool, count int8, sample text, command tag
SELECT 6 (as a query's); the rows against what the test's own files hold (a ledger
missing key 3, key 2 twice with another amount, foreign key 9); an
unknown table is 42P01 with its position.
"""
import os

from pgwire_client import OID, PgWire, error, rows, tags
from srv_util import Server, tmpdir


def text(v):
    return None if v is None else v.decode()


def main():
    tmp = tmpdir("srv-reconcile-")
    for d, lines in (("src", ["1,10.50,a", "2,20.00,b", "3,30,c"]),
                     ("led", ["1,10.5,a", "2,21,b", "2,21,b", "9,1,z"])):
        os.makedirs(os.path.join(tmp, d))
        with open(os.path.join(tmp, d, "part-0.csv"), "w") as f:
            f.write("\n".join(lines) + "\n")
    want = [("missing", "f", "1", "event_id=3"), ("duplicated", "f", "1", "event_id=2"),
            ("extra", "f", "1", "event_id=9"), ("mismatched", "f", "1", "event_id=2"),
            ("late", "t", "0", "no late-rows table"), ("verdict", "f", "4", "INCONSISTENT")]
    sql = "RECONCILE ledger AGAINST clicks ON event_id COMPARE amount, campaign"
    with Server(os.path.join(tmp, "data")) as srv:
        c = PgWire(srv.port)
        c.query_ok("CREATE TABLE clicks (event_id BIGINT, amount DECIMAL(10, 2), campaign STRING) "
                   "WITH ('connector' = 'filesystem', 'path' = '%s/src', 'format' = 'csv')" % tmp,
                   "CREATE TABLE ledger (event_id INT, amount DECIMAL(12, 3), campaign STRING) "
                   "WITH ('connector' = 'filesystem', 'path' = '%s/led', 'format' = 'csv')" % tmp)
        m = c.query(sql)
        assert not error(m), error(m)
        desc = next(v for t, v in m if t == "T")
        assert [(d[0], d[1]) for d in desc] == [("check", OID["text"]), ("ok", OID["bool"]),
                                                ("count", OID["int8"]), ("sample", OID["text"])], desc
        got = [tuple(text(x) for x in r) for r in rows(m)]
        assert got == want, got
        assert tags(m) == ["SELECT 6"], tags(m)  # a result set is tagged as a query's
        m = c.run(sql, describe="SP")
        assert not error(m), error(m)
        descs = [v for t, v in m if t == "T"]
        assert len(descs) == 2 and all(len(d) == 4 for d in descs), descs
        got = [tuple(text(x) for x in r) for r in rows(m)]
        assert got == want, got
        m = c.query("RECONCILE nope AGAINST clicks ON event_id")
        e = error(m)
        assert e and e.get("C") == "42P01" and e.get("P") == "11", e
        c.terminate()
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    main()
