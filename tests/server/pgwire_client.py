"""pgwire_client.py — a tiny PostgreSQL v3 client codec over a raw socket
(standard library only), for tests that check the bytes the server sends:
no driver sits between the test and the protocol.

    c = PgWire(port)                     # startup (trust), waits for ReadyForQuery
    c.query("SELECT 1")                  # simple query: [(type, fields), ...] up to Z
    c.parse("s1", "SELECT $1", [23])     # frontend messages are queued ...
    c.bind("p1", "s1", [b"42"], param_formats=[0], result_formats=[1])
    c.describe("P", "p1"); c.execute("p1", 10); c.sync()
    msgs = c.until_ready()               # ... sent, and the replies read up to Z

Each backend message is returned decoded as (type, value):
  'T' [(name, type_oid, typlen, typmod, format), ...]   'D' [bytes|None, ...]
  'C' tag   'E'/'N' {field_code: text}   't' [oid, ...]   'Z' status
  'S' (name, value)   'K' (pid, secret)   '1' '2' '3' 'n' 's' 'I' None
Helpers: rows(msgs), error(msgs), types(msgs); cancel(port, pid, secret)
sends a CancelRequest on a new connection; PG_EPOCH and the binary decoders
(int, float, numeric, date, timestamp) are independent of the server's.
"""
import datetime
import decimal
import socket
import struct

PG_EPOCH = datetime.datetime(2000, 1, 1)

OID = dict(bool=16, bytea=17, int8=20, int2=21, int4=23, text=25, float4=700, float8=701,
           unknown=705, bpchar=1042, varchar=1043, date=1082, time=1083, timestamp=1114,
           timestamptz=1184, interval=1186, numeric=1700)


class PgWire:
    def __init__(self, port, user="sluice", database="sluice", host="127.0.0.1", timeout=60,
                 params=None):
        self.port = port
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buf = b""
        self.out = b""
        self.pid = self.secret = None
        self.status = {}
        kv = dict(user=user, database=database, **(params or {}))
        body = struct.pack("!i", 196608) + b"".join(
            k.encode() + b"\0" + v.encode() + b"\0" for k, v in kv.items()) + b"\0"
        self.sock.sendall(struct.pack("!i", len(body) + 4) + body)
        for t, v in self.until_ready():
            if t == "E":
                raise RuntimeError("startup failed: %r" % v)

    # ---- framing
    def send(self, t, body=b""):
        self.out += t.encode() + struct.pack("!i", len(body) + 4) + body

    def flush_out(self):
        if self.out:
            self.sock.sendall(self.out)
            self.out = b""

    def _need(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("server closed the connection")
            self.buf += chunk

    def read(self):
        """The next backend message, decoded."""
        self.flush_out()
        self._need(5)
        t = chr(self.buf[0])
        (n,) = struct.unpack("!i", self.buf[1:5])
        self._need(1 + n)
        body = self.buf[5:1 + n]
        self.buf = self.buf[1 + n:]
        return t, self._decode(t, body)

    def until(self, types):
        msgs = []
        while True:
            m = self.read()
            msgs.append(m)
            if m[0] in types:
                return msgs

    def until_ready(self):
        return self.until("Z")

    @staticmethod
    def _cstr(b, off):
        end = b.index(b"\0", off)
        return b[off:end].decode(), end + 1

    def _decode(self, t, b):
        if t == "T":
            (n,) = struct.unpack("!h", b[:2])
            off, cols = 2, []
            for _ in range(n):
                name, off = self._cstr(b, off)
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
            return self._cstr(b, 0)[0]
        if t in "EN":
            fields, off = {}, 0
            while b[off] != 0:
                code = chr(b[off])
                val, off = self._cstr(b, off + 1)
                fields[code] = val
            return fields
        if t == "t":
            (n,) = struct.unpack("!h", b[:2])
            return list(struct.unpack("!%di" % n, b[2:2 + 4 * n]))
        if t == "Z":
            return chr(b[0])
        if t == "S":
            k, off = self._cstr(b, 0)
            v, _ = self._cstr(b, off)
            self.status[k] = v
            return (k, v)
        if t == "K":
            self.pid, self.secret = struct.unpack("!ii", b)
            return (self.pid, self.secret)
        if t == "R":
            return struct.unpack("!i", b[:4])[0]
        return None

    # ---- messages
    def query(self, sql):
        self.send("Q", sql.encode() + b"\0")
        return self.until_ready()

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

    def terminate(self):
        self.send("X")
        self.flush_out()
        self.sock.close()


def rows(msgs):
    return [v for t, v in msgs if t == "D"]


def error(msgs):
    return next((v for t, v in msgs if t == "E"), None)


def kinds(msgs):
    return "".join(t for t, _ in msgs)


def cancel(port, pid, secret, host="127.0.0.1"):
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(struct.pack("!iiii", 16, 80877102, pid, secret))
        s.recv(1)  # the server closes it


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
