"""transport_wire.py — a raw PostgreSQL v3 client over sockets, for the
transport tests (standard library only): the bytes on the wire are built
and read here, independently of the server's code.

- startup(params, version): a startup packet; ssl_request(), gss_request(),
  cancel_request(pid, secret): the other startup-class packets.
- msg(type, body), query(sql), TERMINATE: frontend messages.
- read_msg(sock): (type, body) of one backend message, or None at EOF.
- fields(body): an ErrorResponse / NoticeResponse body as {code: text}.
- connect(port, user=...): a trusted connection after ReadyForQuery:
  (sock, pid, secret, messages).
- simple(sock, sql): send a Query, read until ReadyForQuery, return the
  messages [(type, body)].
"""
import socket
import struct

PROTO_30 = 196608
SSL_CODE = 80877103
GSS_CODE = 80877104
CANCEL_CODE = 80877102


def startup(params, version=PROTO_30):
    body = struct.pack("!i", version)
    for k, v in params.items():
        body += k.encode() + b"\0" + v.encode() + b"\0"
    body += b"\0"
    return struct.pack("!i", len(body) + 4) + body


def ssl_request():
    return struct.pack("!ii", 8, SSL_CODE)


def gss_request():
    return struct.pack("!ii", 8, GSS_CODE)


def cancel_request(pid, secret):
    return struct.pack("!iiii", 16, CANCEL_CODE, pid, secret)


def msg(t, body=b""):
    return t + struct.pack("!i", len(body) + 4) + body


def query(sql):
    return msg(b"Q", sql.encode() + b"\0")


TERMINATE = msg(b"X")


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def read_msg(sock):
    head = recv_exact(sock, 5)
    if head is None:
        return None
    t, n = head[:1], struct.unpack("!i", head[1:])[0]
    assert 4 <= n < (1 << 26), ("bad length from server", head)
    body = recv_exact(sock, n - 4)
    assert body is not None, "truncated message from server"
    return t, body


def fields(body):
    out = {}
    for part in body.split(b"\0"):
        if part:
            out[part[:1].decode()] = part[1:].decode()
    return out


def read_until_ready(sock):
    msgs = []
    while True:
        m = read_msg(sock)
        if m is None:
            return msgs
        msgs.append(m)
        if m[0] == b"Z":
            return msgs


def sock_to(port, timeout=30):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.settimeout(timeout)
    return s


def connect(port, user="sluice", params=None, timeout=30):
    s = sock_to(port, timeout)
    p = {"user": user, "database": "sluice"}
    p.update(params or {})
    s.sendall(startup(p))
    msgs = read_until_ready(s)
    assert msgs and msgs[-1][0] == b"Z", msgs
    key = [b for t, b in msgs if t == b"K"]
    assert key, msgs
    pid, secret = struct.unpack("!ii", key[0])
    return s, pid, secret, msgs


def simple(sock, sql):
    sock.sendall(query(sql))
    return read_until_ready(sock)


def errors(msgs):
    return [fields(b) for t, b in msgs if t == b"E"]
