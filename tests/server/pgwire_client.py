"""pgwire_client.py — the one PostgreSQL v3 frontend of the server tests,
over a raw socket (standard library only): the bytes on the wire are built
and read here, independently of the server's code, and no driver sits
between the test and the protocol.

Packets and frames, as bytes (for tests that send malformed input too):
  startup_packet(params, version), ssl_request(), gss_request(),
  cancel_request(pid, secret), frame(type, body); PROTO_30 and the codes.

A connection:
    c = PgWire(port)                     # startup (trust), up to ReadyForQuery
    c.query("SELECT 1")                  # simple query: [(type, value), ...] up to Z
    c.parse("s1", "SELECT $1", [23])     # frontend messages are queued ...
    c.bind("p1", "s1", [b"42"], param_formats=[0], result_formats=[1])
    c.describe("P", "p1"); c.execute("p1", 10); c.sync()
    msgs = c.until_ready()               # ... sent, and the replies read up to Z
    c.run(sql, oids, params, ...)        # unnamed Parse/Bind/Execute/Sync in one go
    c.query_ok(sql, ...)                 # simple queries that must not fail
  PgWire(port, startup=False) is a bare connection for the startup phase:
  send_raw(bytes), read_byte() (the answer to SSLRequest), wrap_tls(ctx),
  startup(params, version); a refused startup raises PgError(fields).
  read() raises EOFError when the server closed the connection between
  messages; at_eof() says whether it closed without sending more;
  rows_then_error() reads a stream of rows up to its ErrorResponse.

Each backend message is returned decoded as (type, value):
  'T' [(name, type_oid, typlen, typmod, format), ...]   'D' [bytes|None, ...]
  'C' tag   'E'/'N' {field_code: text}   't' [oid, ...]   'Z' status
  'S' (name, value)   'K' (pid, secret)   'R' (code, data)
  'v' (newest minor version, [option names])   '1' '2' '3' 'n' 's' 'I' None
Helpers over a list of them: rows, error, errors, kinds, tags, parameters.
cancel(port, pid, secret) sends a CancelRequest on a new connection.
PG_EPOCH and the binary decoders (int, float, numeric, date, timestamp) and
to_numeric (an encoder) are independent of the server's.
"""
import datetime
import decimal
import socket
import struct

PG_EPOCH = datetime.datetime(2000, 1, 1)

PROTO_30 = 196608
SSL_CODE = 80877103
GSS_CODE = 80877104
CANCEL_CODE = 80877102
MAX_MESSAGE = 1 << 26  # longer than anything the server sends: a corrupt length

OID = dict(bool=16, bytea=17, int8=20, int2=21, int4=23, text=25, float4=700, float8=701,
           unknown=705, bpchar=1042, varchar=1043, date=1082, time=1083, timestamp=1114,
           timestamptz=1184, interval=1186, numeric=1700)


# ---- packets and frames, as bytes
def startup_packet(params, version=PROTO_30):
    body = struct.pack("!i", version) + b"".join(
        k.encode() + b"\0" + v.encode() + b"\0" for k, v in params.items()) + b"\0"
    return struct.pack("!i", len(body) + 4) + body


def ssl_request():
    return struct.pack("!ii", 8, SSL_CODE)


def gss_request():
    return struct.pack("!ii", 8, GSS_CODE)


def cancel_request(pid, secret):
    return struct.pack("!iiii", 16, CANCEL_CODE, pid, secret)


def frame(t, body=b""):
    """A message: its type byte (str or bytes), its length, its body."""
    return (t if isinstance(t, bytes) else t.encode()) + struct.pack("!i", len(body) + 4) + body


# ---- backend messages, decoded
def _cstr(b, off):
    end = b.index(b"\0", off)
    return b[off:end].decode(), end + 1


def fields(b):
    """An ErrorResponse / NoticeResponse body as {code: text}."""
    out, off = {}, 0
    while b[off] != 0:
        val, end = _cstr(b, off + 1)
        out[chr(b[off])] = val
        off = end
    return out


def decode(t, b):
    if t == "T":
        (n,) = struct.unpack("!h", b[:2])
        off, cols = 2, []
        for _ in range(n):
            name, off = _cstr(b, off)
            _tab, _col, oid, size, mod, fmt = struct.unpack("!ihihih", b[off:off + 18])
            off += 18
            cols.append((name, oid, size, mod, fmt))
        return cols
    if t == "D":
        (n,) = struct.unpack("!h", b[:2])
        off, vals = 2, []
        for _ in range(n):
            (ln,) = struct.unpack("!i", b[off:off + 4])
            off += 4
            if ln < 0:
                vals.append(None)
            else:
                vals.append(b[off:off + ln])
                off += ln
        return vals
    if t == "C":
        return _cstr(b, 0)[0]
    if t in "EN":
        return fields(b)
    if t == "t":
        (n,) = struct.unpack("!h", b[:2])
        return list(struct.unpack("!%di" % n, b[2:2 + 4 * n]))
    if t == "Z":
        return chr(b[0])
    if t == "S":
        k, off = _cstr(b, 0)
        return (k, _cstr(b, off)[0])
    if t == "K":
        return struct.unpack("!ii", b)
    if t == "R":
        return (struct.unpack("!i", b[:4])[0], b[4:])
    if t == "v":
        newest, n = struct.unpack("!ii", b[:8])
        names, off = [], 8
        for _ in range(n):
            name, off = _cstr(b, off)
            names.append(name)
        return (newest, names)
    return None


class PgError(Exception):
    """The server refused the startup: its ErrorResponse fields."""

    def __init__(self, f):
        super().__init__("startup failed: %r" % f)
        self.fields = f


class PgWire:
    def __init__(self, port, user="sluice", database="sluice", host="127.0.0.1", timeout=60,
                 params=None, startup=True, sock=None):
        self.port = port
        self.sock = sock or socket.create_connection((host, port), timeout=timeout)
        self.sock.settimeout(timeout)
        self.buf = b""
        self.out = b""
        self.pid = self.secret = None
        self.status = {}
        self.startup_msgs = []
        if startup:
            self.startup(dict(user=user, database=database, **(params or {})))

    def startup(self, params, version=PROTO_30):
        """The startup packet, then the replies up to ReadyForQuery (kept in
        startup_msgs); an ErrorResponse instead raises PgError."""
        self.send_raw(startup_packet(params, version))
        msgs = self.until("ZE")
        if msgs[-1][0] == "E":
            raise PgError(msgs[-1][1])
        self.startup_msgs = msgs
        return msgs

    # ---- framing
    def send(self, t, body=b""):
        self.out += frame(t, body)

    def flush_out(self):
        if self.out:
            self.sock.sendall(self.out)
            self.out = b""

    def send_raw(self, data):
        """Bytes as they are, after what is queued."""
        self.flush_out()
        self.sock.sendall(data)

    def wrap_tls(self, ctx):
        assert not self.buf, "bytes before the TLS handshake"
        self.sock = ctx.wrap_socket(self.sock)

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            if self.buf:
                raise AssertionError("truncated message from server: %r" % self.buf[:64])
            raise EOFError("server closed the connection")
        self.buf += chunk

    def read_byte(self):
        """One byte (the answer to SSLRequest / GSSENCRequest)."""
        self.flush_out()
        if not self.buf:
            self._fill()
        b, self.buf = self.buf[:1], self.buf[1:]
        return b

    def at_eof(self):
        """True when the server closed the connection without sending more."""
        self.flush_out()
        if self.buf:
            return False
        chunk = self.sock.recv(65536)
        self.buf += chunk
        return chunk == b""

    def read(self):
        """The next backend message, decoded; EOFError when the server closed
        the connection between messages."""
        self.flush_out()
        while len(self.buf) < 5:
            self._fill()
        t = chr(self.buf[0])
        (n,) = struct.unpack("!i", self.buf[1:5])
        assert 4 <= n < MAX_MESSAGE, ("bad length from server", self.buf[:5])
        while len(self.buf) < 1 + n:
            self._fill()
        body = self.buf[5:1 + n]
        self.buf = self.buf[1 + n:]
        v = decode(t, body)
        if t == "S":
            self.status[v[0]] = v[1]
        elif t == "K":
            self.pid, self.secret = v
        return t, v

    def until(self, types):
        msgs = []
        while True:
            m = self.read()
            msgs.append(m)
            if m[0] in types:
                return msgs

    def until_ready(self):
        return self.until("Z")

    # ---- messages
    def send_query(self, sql):
        self.send("Q", sql.encode() + b"\0")

    def query(self, sql):
        self.send_query(sql)
        return self.until_ready()

    def query_ok(self, *sqls):
        """Each statement as a simple query, none of which may fail: the
        last one's replies."""
        for sql in sqls:
            m = self.query(sql)
            assert not error(m), (sql, m)
        return m

    def rows_then_error(self):
        """DataRows up to an ErrorResponse (anything else fails): (rows, its fields)."""
        got = []
        while True:
            t, v = self.read()
            if t == "E":
                return got, v
            assert t == "D", (t, v)
            got.append(v)

    def parse(self, name, sql, oids=()):
        self.send("P", name.encode() + b"\0" + sql.encode() + b"\0" +
                  struct.pack("!h", len(oids)) + b"".join(struct.pack("!i", o) for o in oids))

    def bind(self, portal, stmt, params=(), param_formats=(), result_formats=()):
        b = portal.encode() + b"\0" + stmt.encode() + b"\0"
        b += struct.pack("!h", len(param_formats)) + b"".join(struct.pack("!h", f) for f in param_formats)
        b += struct.pack("!h", len(params))
        for p in params:
            if p is None:
                b += struct.pack("!i", -1)
            else:
                if isinstance(p, str):
                    p = p.encode()
                b += struct.pack("!i", len(p)) + p
        b += struct.pack("!h", len(result_formats)) + b"".join(struct.pack("!h", f) for f in result_formats)
        self.send("B", b)

    def describe(self, kind, name):
        self.send("D", kind.encode() + name.encode() + b"\0")

    def execute(self, portal, max_rows=0):
        self.send("E", portal.encode() + b"\0" + struct.pack("!i", max_rows))

    def close(self, kind, name):
        self.send("C", kind.encode() + name.encode() + b"\0")

    def sync(self):
        self.send("S")

    def flush(self):
        self.send("H")

    def run(self, sql, oids=(), params=(), param_formats=(), result_formats=(), describe="",
            max_rows=0):
        """Parse, Bind, Execute, Sync of the unnamed statement and portal
        (describe "S", "P" or "SP": Describe them too): the replies up to Z."""
        self.parse("", sql, oids)
        if "S" in describe:
            self.describe("S", "")
        self.bind("", "", params, param_formats, result_formats)
        if "P" in describe:
            self.describe("P", "")
        self.execute("", max_rows)
        self.sync()
        return self.until_ready()

    def terminate(self):
        self.send("X")
        self.flush_out()
        self.sock.close()


def rows(msgs):
    return [v for t, v in msgs if t == "D"]


def error(msgs):
    return next((v for t, v in msgs if t == "E"), None)


def errors(msgs):
    return [v for t, v in msgs if t == "E"]


def kinds(msgs):
    return "".join(t for t, _ in msgs)


def tags(msgs):
    return [v for t, v in msgs if t == "C"]


def parameters(msgs):
    """ParameterStatus messages as [(name, value)], in order."""
    return [v for t, v in msgs if t == "S"]


def cancel(port, pid, secret, host="127.0.0.1"):
    """A CancelRequest on a connection of its own; the server never answers
    one: it closes the connection."""
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(cancel_request(pid, secret))
        assert s.recv(1) == b"", "a CancelRequest is never answered"


# ---- binary forms, decoded independently of the server
def bin_int(b):
    return int.from_bytes(b, "big", signed=True)


def bin_float(b):
    return struct.unpack("!f" if len(b) == 4 else "!d", b)[0]


def bin_bool(b):
    return b == b"\x01"


def bin_numeric(b):
    ndigits, weight, sign, dscale = struct.unpack("!hhHh", b[:8])
    digits = struct.unpack("!%dh" % ndigits, b[8:8 + 2 * ndigits])
    v = decimal.Decimal(0)
    for i, d in enumerate(digits):
        v += decimal.Decimal(d).scaleb(4 * (weight - i))
    if sign == 0x4000:
        v = -v
    return v.quantize(decimal.Decimal(1).scaleb(-dscale)) if dscale else v.to_integral_value()


def bin_date(b):
    return datetime.date(2000, 1, 1) + datetime.timedelta(days=bin_int(b))


def bin_timestamp(b):
    return PG_EPOCH + datetime.timedelta(microseconds=bin_int(b))


def to_numeric(text):
    """PostgreSQL's numeric binary form of a decimal string (independent encoder)."""
    d = decimal.Decimal(text)
    sign = 0x4000 if d < 0 else 0
    t = d.as_tuple()
    dscale = max(0, -t.exponent)
    digits = "".join(map(str, t.digits))
    intpart = digits[:len(digits) - dscale] if len(digits) > dscale else ""
    frac = digits[len(digits) - dscale:] if dscale else ""
    frac = frac.rjust(dscale, "0")
    intpart = intpart.lstrip("0")
    ip = intpart.rjust((len(intpart) + 3) // 4 * 4, "0")
    fp = frac.ljust((len(frac) + 3) // 4 * 4, "0")
    groups = [int(ip[i:i + 4]) for i in range(0, len(ip), 4)] + [int(fp[i:i + 4]) for i in range(0, len(fp), 4)]
    weight = len(ip) // 4 - 1
    while groups and groups[0] == 0:
        groups.pop(0)
        weight -= 1
    while groups and groups[-1] == 0:
        groups.pop()
    if not groups:
        weight, sign = 0, 0
    return struct.pack("!hhHh", len(groups), weight, sign, dscale) + b"".join(struct.pack("!h", g) for g in groups)
