"""receiver.py — a small threaded HTTP receiver for the http-sink tests
(standard library only).

It records every request it applies, one JSON line per request, to the
record file: {"method", "path", "headers", "body"} (body as text). With
--honour-keys, a request whose Idempotency-Key (--key-header) was seen and
answered 2xx before is answered 200 and not recorded again (counted in
the stats file as "repeats"); without it (the control) keys are ignored.

Faults (--faults): a comma-separated plan, one entry per request in
arrival order, each of: ok, 500, 429 (with 'Retry-After: 1'), 400, sleep
(sleeps --sleep seconds before answering 200, past the client's timeout:
the request is not recorded, as a server that gave up would not apply
it). Requests after the plan are ok. Every request, applied or not, is
counted in the stats file ({"requests", "repeats", "faults": {...}}),
rewritten after each request.

The port it listens on (an ephemeral one) is written to --port-file once
it listens.
"""
import argparse
import http.server
import json
import os
import threading
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--record", required=True)
    ap.add_argument("--stats", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--honour-keys", action="store_true")
    ap.add_argument("--key-header", default="Idempotency-Key")
    ap.add_argument("--faults", default="")
    ap.add_argument("--sleep", type=float, default=3.0)
    args = ap.parse_args()

    plan = [f for f in args.faults.split(",") if f]
    lock = threading.Lock()
    state = {"requests": 0, "repeats": 0, "faults": {}, "applied": 0}
    seen = set()
    rec = open(args.record, "a", buffering=1)

    def write_stats():
        tmp = args.stats + ".tmp"
        with open(tmp, "w") as f:
            json.dump(state, f)
        os.replace(tmp, args.stats)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # an answer is not held back waiting for an ACK
        wbufsize = 1 << 16              # headers and body leave in one write

        def log_message(self, *a):
            pass

        def answer(self, status, body=b"", headers=()):
            self.send_response(status)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def handle_any(self):
            n = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(n).decode("utf-8")
            with lock:
                i = state["requests"]
                state["requests"] += 1
                fault = plan[i] if i < len(plan) else "ok"
                if fault != "ok":
                    state["faults"][fault] = state["faults"].get(fault, 0) + 1
                write_stats()
            if fault == "500":
                return self.answer(500, b"internal trouble, try again")
            if fault == "429":
                return self.answer(429, b"slow down", [("Retry-After", "1")])
            if fault == "400":
                return self.answer(400, b'{"error": "bad row for this API"}')
            if fault == "sleep":
                time.sleep(args.sleep)
                try:
                    return self.answer(503, b"gave up")
                except OSError:
                    return
            key = self.headers.get(args.key_header)
            with lock:
                if args.honour_keys and key is not None and key in seen:
                    state["repeats"] += 1
                    write_stats()
                    return self.answer(200, b"already applied")
                if key is not None:
                    seen.add(key)
                rec.write(json.dumps({"method": self.command, "path": self.path,
                                      "headers": dict(self.headers.items()),
                                      "body": body}) + "\n")
                state["applied"] += 1
                write_stats()
            self.answer(200, b"ok")

        do_POST = handle_any
        do_PUT = handle_any

    class Server(http.server.ThreadingHTTPServer):
        def handle_error(self, request, client_address):
            pass  # a client SIGKILLed mid-request resets its connection: expected here

    srv = Server(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    with open(args.stats, "w") as f:
        json.dump(state, f)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.replace(tmp, args.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
