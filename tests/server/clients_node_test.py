"""server.clients.node.<case> — node-postgres (npm `pg`, installed by
scripts/clients) against `sluice serve`: starts a server and runs
tests/server/clients/node_pg_client.js CASE against it (simple: queries
without values; params: $n values through the extended protocol, named
statements). The JavaScript client is the independent reader.

Environment: SLUICE_CLIENTS (scripts/clients' cache). Usage:
clients_node_test.py simple|params
"""
import os
import subprocess
import sys

from srv_util import Server, tmpdir

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "clients", "node_pg_client.js")


def main():
    case = sys.argv[1]
    tmp = tmpdir("srv-node-%s-" % case)
    env = dict(os.environ, NODE_PATH=os.path.join(os.environ["SLUICE_CLIENTS"], "node", "node_modules"))
    with Server(os.path.join(tmp, "data")) as srv:
        p = subprocess.run(["node", SCRIPT, str(srv.port), case], capture_output=True, text=True,
                           env=env, timeout=120)
        assert p.returncode == 0 and p.stdout.strip() == "ok", \
            "node_pg_client.js %s failed:\n%s%s\nserver log:\n%s" % (case, p.stdout, p.stderr, srv.log())
        assert srv.stop() == 0, srv.log()
    print("ok")


if __name__ == "__main__":
    sys.exit(main())
