"""server.transport_robust — bad input on raw sockets: each case gets an
ErrorResponse or a closed connection, never a crash or a hang (every read
has a timeout), and the server still answers psql afterwards.

Cases: startup packets too short, too long (over 10000 bytes) and cut off;
messages with lengths below 4 and above the 64 MiB bound; a Query without
its terminating NUL; a message type that does not exist, and a SASL
response outside authentication (out of order); a truncated message and a
client that vanishes mid-message; 300 connections of seeded random garbage,
before and after the startup packet."""
import os
import random
import socket
import struct
import sys

from pgwire_client import PROTO_30, PgWire, errors, frame, startup_packet
from srv_util import Server, psql, tmpdir


def outcome(c, data, close_write):
    """Sends data on connection c; what the server did: ('E', fields) for an
    ErrorResponse, ('closed',) when it closed without one. Anything else
    fails."""
    try:
        c.send_raw(data)
        if close_write:
            c.sock.shutdown(socket.SHUT_WR)
    except (ConnectionResetError, BrokenPipeError):
        pass  # what it sent before it closed is still to be read
    try:
        while True:
            t, v = c.read()
            if t == "E":
                return ("E", v)
            assert t in "NZSRKvTDCI", (t, v)
    except (EOFError, ConnectionResetError, BrokenPipeError):
        return ("closed",)
    finally:
        c.sock.close()


def raw(port, data, close_write=False):
    """data as the first bytes of a connection."""
    return outcome(PgWire(port, startup=False), data, close_write)


def ready(port, data, close_write=False):
    """data after a startup, at ReadyForQuery."""
    return outcome(PgWire(port), data, close_write)


def fatal(o, code, text=None):
    assert o[0] == "E", o
    assert o[1]["C"] == code and o[1]["S"] == "FATAL", o
    if text:
        assert text in o[1]["M"], o


def main():
    tmp = tmpdir("srv-robust-")
    with Server(os.path.join(tmp, "data")) as srv:
        port = srv.port
        # Startup packets.
        fatal(raw(port, struct.pack("!i", 4) + b"\0" * 4), "08P01", "invalid length of startup packet")
        fatal(raw(port, struct.pack("!ii", 20000, PROTO_30) + b"x" * 100), "08P01",
              "invalid length of startup packet")
        assert raw(port, struct.pack("!ii", 100, PROTO_30) + b"user\0", close_write=True) == ("closed",)
        fatal(raw(port, struct.pack("!ii", 13, PROTO_30) + b"user\0"), "08P01", "invalid startup packet")
        fatal(raw(port, startup_packet({"database": "x"})), "28000", "no PostgreSQL user name")
        fatal(raw(port, startup_packet({"user": "u"}, 0x12345678)), "0A000", "unsupported frontend protocol")
        # Messages after the startup.
        fatal(ready(port, b"Q" + struct.pack("!i", 3)), "08P01", "invalid message length")
        fatal(ready(port, b"Q" + struct.pack("!I", (64 << 20) + 5)), "08P01", "invalid message length")
        fatal(ready(port, b"Q" + struct.pack("!i", 0x7FFFFFFF)), "08P01", "invalid message length")
        fatal(ready(port, frame(b"Q", b"SHOW TABLES")), "08P01", "invalid Query message")
        fatal(ready(port, frame(b"Q", b"SHOW TABLES\0\0")), "08P01", "invalid Query message")
        fatal(ready(port, frame(b"!", b"junk")), "08P01", "invalid frontend message type")
        fatal(ready(port, frame(b"p", b"SCRAM-SHA-256\0\0\0\0\0")), "08P01")
        # A message cut short, the client gone: the connection just ends.
        assert ready(port, b"Q" + struct.pack("!i", 100) + b"SHOW", close_write=True) == ("closed",)
        # A startup packet's worth of garbage, then more garbage.
        rnd = random.Random(12)
        for i in range(300):
            junk = bytes(rnd.getrandbits(8) for _ in range(rnd.randint(1, 300)))
            if i % 2:
                o = ready(port, junk, close_write=True)
            else:
                o = raw(port, junk, close_write=True)
            assert o[0] in ("E", "closed"), o
            if o[0] == "E":
                assert len(o[1].get("C", "")) == 5, o
        # Still serving: psql and a raw session both work.
        rc, out, err = psql(port, "SHOW TABLES")
        assert rc == 0, err
        c = PgWire(port)
        assert not errors(c.query("SHOW TABLES"))
        c.terminate()
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
