"""server.pgsession — PostgreSQL's session statements over the wire, read by
independent clients: psql (SET / SHOW, the transaction block and 25P02,
session functions) and raw protocol bytes (ParameterStatus after SET, the
transaction status of every ReadyForQuery, a startup parameter refused).

The raw client is tests/server/pgwire_client.py (protocol 3.0, standard
library only); nothing here trusts what the server says about itself
except the protocol messages."""
import os
import sys

from pgwire_client import PgError, PgWire, errors, parameters, rows, tags
from srv_util import Server, psql, tmpdir


def status(msgs):
    assert msgs[-1][0] == "Z", msgs
    return msgs[-1][1]


def check_raw(port):
    c = PgWire(port, database="rawdb", params=dict(
        application_name="first", TimeZone="Europe/Berlin",
        options="-c DateStyle=ISO,\\ DMY -c extra_float_digits=2"))
    msgs = c.startup_msgs
    ps = dict(parameters(msgs))
    assert ps.get("application_name") == "first", ps
    assert ps.get("TimeZone") == "Europe/Berlin", ps
    assert ps.get("client_encoding") == "UTF8" and ps.get("DateStyle") == "ISO, DMY", ps
    assert ps.get("server_version", "").startswith("15.0 (Sluice "), ps
    assert ps.get("session_authorization") == "sluice", ps
    assert status(msgs) == "I", msgs

    # SET of a reported parameter: ParameterStatus before CommandComplete
    msgs = c.query("SET application_name = 'second'")
    types = [t for t, _ in msgs]
    assert parameters(msgs) == [("application_name", "second")], msgs
    assert types.index("S") < types.index("C"), types
    # the same value again: nothing to report; an unreported one: nothing either
    assert parameters(c.query("SET application_name TO 'second'")) == [], "no change, no report"
    assert parameters(c.query("SET extra_float_digits = 3")) == []
    assert parameters(c.query("SET TIME ZONE 'UTC'")) == [("TimeZone", "UTC")]
    assert parameters(c.query("SET DateStyle = 'ISO, YMD'")) == [("DateStyle", "ISO, YMD")]
    msgs = c.query("SET DateStyle = 'German'")
    assert errors(msgs)[0]["C"] == "22023" and parameters(msgs) == [], msgs
    # RESET ALL returns to the startup packet's values and reports each change
    assert sorted(parameters(c.query("RESET ALL"))) == [
        ("DateStyle", "ISO, DMY"), ("TimeZone", "Europe/Berlin"), ("application_name", "first")]

    # the transaction status of ReadyForQuery
    assert status(c.query("BEGIN")) == "T"
    msgs = c.query("SET application_name = 'in block'")
    assert status(msgs) == "T" and parameters(msgs) == [("application_name", "in block")]
    msgs = c.query("SELECT nosuch")
    assert status(msgs) == "E" and errors(msgs)[0]["C"] == "42703", msgs
    msgs = c.query("SELECT 1")
    assert status(msgs) == "E" and errors(msgs)[0]["C"] == "25P02", msgs
    msgs = c.query("COMMIT")
    assert tags(msgs) == ["ROLLBACK"] and status(msgs) == "I", msgs
    # ROLLBACK restored the setting and said so
    assert ("application_name", "first") in parameters(msgs), msgs
    msgs = c.query("COMMIT")
    notices = [v for t, v in msgs if t == "N"]
    assert notices and notices[0]["C"] == "25P01" and status(msgs) == "I", msgs
    msgs = c.query("SELECT current_database(), pg_backend_pid()")
    assert len(rows(msgs)) == 1 and rows(msgs)[0][0] == b"rawdb", msgs
    c.terminate()

    # a startup parameter that SET would refuse ends the connection with its error
    try:
        PgWire(port, database="rawdb", params={"client_encoding": "LATIN1"})
        raise AssertionError("client_encoding LATIN1 was accepted")
    except PgError as e:
        f = e.fields
    assert f["C"] == "22023" and f["S"] == "FATAL", f


def check_psql(port):
    rc, out, err = psql(port, None, "-A", "-t", stdin=(
        "SET application_name = 'psql test';\n"
        "SHOW application_name;\n"
        "SELECT 1 + 1, version() LIKE 'PostgreSQL 15.0 (Sluice %', current_user;\n"
        "SHOW transaction isolation level;\n"))
    assert rc == 0, (out, err)
    lines = [l for l in out.splitlines() if l and l != "SET"]
    assert lines == ["psql test", "2|t|sluice", "read committed"], lines

    script = ("\\set VERBOSITY verbose\n"
              "BEGIN;\n"
              "SELECT nosuch;\n"
              "SELECT 1;\n"
              "ROLLBACK;\n"
              "SELECT 40 + 2;\n")
    rc, out, err = psql(port, None, "-A", "-t", "-v", "ON_ERROR_STOP=0", stdin=script)
    assert "ERROR:  42703" in err, err
    assert "ERROR:  25P02: current transaction is aborted, commands ignored until end of " \
           "transaction block" in err, err
    assert out.split()[-1] == "42", out
    # the control: without BEGIN the same statements do not fail with 25P02
    rc, out, err = psql(port, None, "-A", "-t", "-v", "ON_ERROR_STOP=0",
                        stdin=script.replace("BEGIN;\n", "").replace("ROLLBACK;\n", ""))
    assert "25P02" not in err and "ERROR:  42703" in err, err
    assert out.split() == ["1", "42"], out

    rc, out, err = psql(port, "SELECT current_database()", "-A", "-t", db="analytics")
    assert rc == 0 and out.strip() == "analytics", (out, err)
    rc, out, err = psql(port, "SET nosuch = 1", "-v", "VERBOSITY=verbose")
    assert rc != 0 and '42704: unrecognized configuration parameter "nosuch"' in err, err


def main():
    tmp = tmpdir("srv-pgsession-")
    with Server(os.path.join(tmp, "data")) as srv:
        check_raw(srv.port)
        check_psql(srv.port)
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
