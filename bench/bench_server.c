/*
** bench_server.c — `sluice serve` from a libpq client, as ratios to a real
** PostgreSQL server on the same machine (issue 12's benchmark).
**
** It starts `sluice serve` on a free loopback port with a fresh data
** directory and connects to it and to a PostgreSQL server (scripts/postgres,
** role sluice / password sluice, database sluice). Cases, each for a fixed
** time or a fixed row count:
**
**   (a) round trips   PQexec of the cheapest statement, one at a time for
**                     SECONDS s: simple-query round trips per second. The
**                     statement is `SELECT 1` on both; while the server
**                     cannot run it (SELECT without FROM), Sluice runs
**                     `SHOW TABLES` (an empty catalog) and the report says so.
**   (b) prepared      PQprepare once, then PQexecPrepared of
**                     `SELECT CAST($1 AS BIGINT)` with a new value each
**                     time, for SECONDS s: extended-protocol executes per
**                     second (Bind / Execute / Sync per call).
**   (c) streaming     ROWS rows of (id BIGINT, x DOUBLE) to the client:
**                     Sluice: a plain SELECT over a bounded datagen table
**                     (a sequence 1..ROWS), read in libpq's single-row mode;
**                     PostgreSQL: `COPY (SELECT g, random() FROM
**                     generate_series(1, ROWS) g) TO STDOUT` read with
**                     PQgetCopyData (the ceiling), and the same SELECT
**                     in single-row mode (for reference). Every case checks
**                     it received ROWS rows.
**   (c2) streaming    the same with the id column alone (no DOUBLE to
**                     format): the wire path without the cost of the
**                     engine's shortest-round-trip DOUBLE text.
**
** Ratios: a = sluice / postgres round trips; b = the same for prepared
** executes; c (c2) = sluice rows/s / COPY rows/s. Targets: a, b >= 0.8, c >= 0.8.
**
**   build/dev/bench/bench_server SLUICE PG_PORT [seconds] [rows]
**
** e.g. PG_PORT=25911 scripts/postgres start
**      build/dev/bench/bench_server build/dev/sluice 25911 5 2000000
*/
#include <arpa/inet.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t g_server = -1;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void stop_server(void)
{
    if (g_server > 0) {
        kill(g_server, SIGTERM);
        waitpid(g_server, NULL, 0);
        g_server = -1;
    }
}

static void die(const char *what, const char *why)
{
    fprintf(stderr, "bench_server: %s: %s\n", what, why);
    stop_server();
    exit(1);
}

/* A TCP port on 127.0.0.1 that nobody listens on now. */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t n = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &n) != 0)
        die("free port", "bind failed");
    close(fd);
    return ntohs(a.sin_port);
}

static PGconn *connect_to(const char *ci)
{
    PGconn *c = PQconnectdb(ci);
    if (PQstatus(c) != CONNECTION_OK)
        die(ci, PQerrorMessage(c));
    return c;
}

/* Start `sluice serve` on port with a fresh data directory; wait (bounded)
** until it answers. */
static void start_server(const char *sluice, int port, char *ci, size_t cisz)
{
    char dir[128], rm[160], listen[64];
    snprintf(dir, sizeof dir, "/tmp/bench_server-%d.data", (int)getpid());
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    if (system(rm) != 0)
        die("rm", dir);
    snprintf(listen, sizeof listen, "127.0.0.1:%d", port);
    fflush(stdout);
    g_server = fork();
    if (g_server == 0) {
        FILE *o = freopen("/tmp/bench_server.log", "w", stderr);
        (void)o;
        execl(sluice, sluice, "serve", "-D", dir, "--listen", listen, (char *)NULL);
        _exit(127);
    }
    snprintf(ci, cisz, "host=127.0.0.1 port=%d user=sluice dbname=sluice", port);
    for (int i = 0; i < 600; i++) {
        if (PQping(ci) == PQPING_OK)
            return;
        usleep(50000);
    }
    die("sluice serve", "did not answer within 30 s (see /tmp/bench_server.log)");
}

static bool try_exec(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    PQclear(r);
    return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
}

static void run(PGconn *c, const char *sql)
{
    if (!try_exec(c, sql))
        die(sql, PQerrorMessage(c));
}

/* (a) PQexec(sql) round trips per second for secs seconds. */
static double round_trips(PGconn *c, const char *sql, double secs)
{
    long n = 0;
    double t0 = now_s(), t;
    do {
        for (int i = 0; i < 64; i++, n++)
            run(c, sql);
        t = now_s();
    } while (t - t0 < secs);
    return (double)n / (t - t0);
}

/* (b) PQexecPrepared per second; < 0 when the server cannot prepare. */
static double prepared(PGconn *c, double secs)
{
    PGresult *r = PQprepare(c, "bench", "SELECT CAST($1 AS BIGINT)", 1, NULL);
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (!ok) {
        printf("(prepare failed: %s)\n", strtok(PQerrorMessage(c), "\n"));
        return -1;
    }
    long n = 0;
    double t0 = now_s(), t;
    do {
        for (int i = 0; i < 64; i++, n++) {
            char v[24];
            snprintf(v, sizeof v, "%ld", n);
            const char *vals[1] = {v};
            r = PQexecPrepared(c, "bench", 1, vals, NULL, NULL, 0);
            if (PQresultStatus(r) != PGRES_TUPLES_OK || strcmp(PQgetvalue(r, 0, 0), v) != 0)
                die("execute prepared", PQerrorMessage(c));
            PQclear(r);
        }
        t = now_s();
    } while (t - t0 < secs);
    return (double)n / (t - t0);
}

/* (c) A query's rows in single-row mode: rows per second; checks the count. */
static double stream_select(PGconn *c, const char *sql, long long rows)
{
    double t0 = now_s();
    if (!PQsendQuery(c, sql) || !PQsetSingleRowMode(c))
        die(sql, PQerrorMessage(c));
    long long n = 0;
    PGresult *r;
    while ((r = PQgetResult(c)) != NULL) {
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_SINGLE_TUPLE)
            n++;
        else if (st != PGRES_TUPLES_OK)
            die(sql, PQerrorMessage(c));
        PQclear(r);
    }
    double t = now_s() - t0;
    if (n != rows) {
        char msg[96];
        snprintf(msg, sizeof msg, "got %lld rows, not %lld", n, rows);
        die(sql, msg);
    }
    return (double)rows / t;
}

/* (c) ceiling: COPY (...) TO STDOUT, rows per second; checks the count. */
static double stream_copy(PGconn *c, const char *select, long long rows)
{
    char sql[256];
    snprintf(sql, sizeof sql, "COPY (%s) TO STDOUT", select);
    double t0 = now_s();
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COPY_OUT)
        die(sql, PQerrorMessage(c));
    PQclear(r);
    long long n = 0;
    char *buf;
    int len;
    while ((len = PQgetCopyData(c, &buf, 0)) > 0) {
        n += buf[len - 1] == '\n';
        PQfreemem(buf);
    }
    if (len == -2)
        die("copy", PQerrorMessage(c));
    r = PQgetResult(c);
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        die("copy", PQerrorMessage(c));
    PQclear(r);
    while ((r = PQgetResult(c)) != NULL)
        PQclear(r);
    double t = now_s() - t0;
    if (n != rows)
        die("copy", "row count differs");
    return (double)rows / t;
}

static void ratio(const char *what, double s, double p)
{
    if (s < 0 || p <= 0)
        printf("%-34s n/a\n", what);
    else
        printf("%-34s %.2f\n", what, s / p);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_server SLUICE PG_PORT [seconds] [rows]\n");
        return 2;
    }
    const char *sluice = argv[1];
    double secs = argc > 3 ? atof(argv[3]) : 5.0;
    long long rows = argc > 4 ? atoll(argv[4]) : 2000000;
    char pgci[256], slci[256];
    snprintf(pgci, sizeof pgci,
             "host=127.0.0.1 port=%s user=sluice password=sluice dbname=sluice", argv[2]);
    PGconn *pg = connect_to(pgci);
    start_server(sluice, free_port(), slci, sizeof slci);
    PGconn *sl = connect_to(slci);
    printf("postgres %s; sluice serve %s\n", PQparameterStatus(pg, "server_version"),
           PQparameterStatus(sl, "server_version"));

    /* (a) */
    const char *sl_rt = "SELECT 1";
    if (!try_exec(sl, sl_rt)) {
        sl_rt = "SHOW TABLES";
        printf("(sluice cannot run SELECT 1 yet: measuring SHOW TABLES)\n");
    }
    double a_pg = round_trips(pg, "SELECT 1", secs);
    double a_sl = round_trips(sl, sl_rt, secs);
    printf("(a) round trips/s   postgres %10.0f  sluice %10.0f  (%s)\n", a_pg, a_sl, sl_rt);

    /* (b) */
    double b_pg = prepared(pg, secs);
    double b_sl = prepared(sl, secs);
    if (PQstatus(sl) != CONNECTION_OK) /* a server without Parse closes the connection */
        PQreset(sl);
    printf("(b) prepared/s      postgres %10.0f  sluice %10.0f\n", b_pg, b_sl < 0 ? 0 : b_sl);

    /* (c) (id BIGINT, x DOUBLE), then (c2) id BIGINT alone */
    char ddl[512], q[128];
    snprintf(ddl, sizeof ddl,
             "CREATE TABLE big (id BIGINT, x DOUBLE) WITH ('connector'='datagen', "
             "'number-of-rows'='%lld', 'rows-per-second'='1000000000', 'fields.id.kind'='sequence', "
             "'fields.id.start'='1', 'fields.id.end'='%lld', 'fields.x.min'='0', 'fields.x.max'='1')",
             rows, rows);
    run(sl, ddl);
    snprintf(q, sizeof q, "SELECT g, random() FROM generate_series(1, %lld) g", rows);
    double c_copy = stream_copy(pg, q, rows);
    double c_pgsel = stream_select(pg, q, rows);
    double c_sl = stream_select(sl, "SELECT id, x FROM big", rows);
    printf("(c) rows/s          postgres COPY %10.0f  postgres SELECT %10.0f  sluice SELECT %10.0f\n",
           c_copy, c_pgsel, c_sl);
    snprintf(ddl, sizeof ddl,
             "CREATE TABLE big2 (id BIGINT) WITH ('connector'='datagen', 'number-of-rows'='%lld', "
             "'rows-per-second'='1000000000', 'fields.id.kind'='sequence', 'fields.id.start'='1', "
             "'fields.id.end'='%lld')",
             rows, rows);
    run(sl, ddl);
    snprintf(q, sizeof q, "SELECT g FROM generate_series(1, %lld) g", rows);
    double c2_copy = stream_copy(pg, q, rows);
    double c2_pgsel = stream_select(pg, q, rows);
    double c2_sl = stream_select(sl, "SELECT id FROM big2", rows);
    printf("(c2) rows/s, BIGINT postgres COPY %10.0f  postgres SELECT %10.0f  sluice SELECT %10.0f\n",
           c2_copy, c2_pgsel, c2_sl);

    ratio("a: round trips sluice/postgres", a_sl, a_pg);
    ratio("b: prepared sluice/postgres", b_sl, b_pg);
    ratio("c: streaming sluice/COPY", c_sl, c_copy);
    ratio("c2: streaming BIGINT sluice/COPY", c2_sl, c2_copy);
    PQfinish(sl);
    PQfinish(pg);
    stop_server();
    return 0;
}
