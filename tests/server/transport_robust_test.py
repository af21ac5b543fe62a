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

from srv_util import Server, psql, tmpdir
import transport_wire as w


def outcome(s):
    """What the server did: ('E', fields) for an ErrorResponse, ('closed',)
    when it closed without one. Anything else fails."""
    try:
        while True:
            m = w.read_msg(s)
            if m is None:
                return ("closed",)
            if m[0] == b"E":
                return ("E", w.fields(m[1]))
            assert m[0] in (b"N", b"Z", b"S", b"R", b"K", b"v", b"T", b"D", b"C", b"I"), m
    except (ConnectionResetError, BrokenPipeError):
        return ("closed",)
    finally:
        s.close()


def raw(port, data, close_write=False):
    s = w.sock_to(port, timeout=60)
    try:
        s.sendall(data)
        if close_write:
            s.shutdown(socket.SHUT_WR)
    except (ConnectionResetError, BrokenPipeError):
        pass
    return outcome(s)


def ready(port, extra, close_write=False):
    s, _, _, _ = w.connect(port)
    try:
        s.sendall(extra)
        if close_write:
            s.shutdown(socket.SHUT_WR)
    except (ConnectionResetError, BrokenPipeError):
        pass
    return outcome(s)


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
        fatal(raw(port, struct.pack("!ii", 20000, w.PROTO_30) + b"x" * 100), "08P01",
              "invalid length of startup packet")
        assert raw(port, struct.pack("!ii", 100, w.PROTO_30) + b"user\0", close_write=True) == ("closed",)
        fatal(raw(port, struct.pack("!ii", 13, w.PROTO_30) + b"user\0"), "08P01", "invalid startup packet")
        fatal(raw(port, w.startup({"database": "x"})), "28000", "no PostgreSQL user name")
        fatal(raw(port, w.startup({"user": "u"}, 0x12345678)), "0A000", "unsupported frontend protocol")
        # Messages after the startup.
        fatal(ready(port, b"Q" + struct.pack("!i", 3)), "08P01", "invalid message length")
        fatal(ready(port, b"Q" + struct.pack("!I", (64 << 20) + 5)), "08P01", "invalid message length")
        fatal(ready(port, b"Q" + struct.pack("!i", 0x7FFFFFFF)), "08P01", "invalid message length")
        fatal(ready(port, w.msg(b"Q", b"SHOW TABLES")), "08P01", "invalid Query message")
        fatal(ready(port, w.msg(b"Q", b"SHOW TABLES\0\0")), "08P01", "invalid Query message")
        fatal(ready(port, w.msg(b"!", b"junk")), "08P01", "invalid frontend message type")
        fatal(ready(port, w.msg(b"p", b"SCRAM-SHA-256\0\0\0\0\0")), "08P01")
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
        s, _, _, _ = w.connect(port)
        assert not w.errors(w.simple(s, "SHOW TABLES"))
        s.close()
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
