/*
** bench_server.c — `sluice serve` from a libpq client, as ratios to a real
** PostgreSQL server on the same machine (issue 12's benchmark).
**
** It starts `sluice serve` on a free loopback port with a fresh data
** directory and connects to it and to a PostgreSQL server (scripts/postgres,
** role sluice / password sluice, database sluice). Cases:
**
**   (a) round trips   PQexec of `SELECT 1` (checking the 1 it returns), one
**                     at a time per connection: simple-query round trips
**                     per second.
**   (b) prepared      PQprepare once per connection, then PQexecPrepared of
**                     `SELECT CAST($1 AS BIGINT)` with a new value each time
**                     (checking it comes back): extended-protocol executes
**                     per second (Bind / Describe / Execute / Sync per call).
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
** (a) and (b) run one loop (rate_run): CLIENTS connections to each server,
** each on a thread of its own, for SECONDS s per server, cut into slices
** that alternate between the two servers (PostgreSQL, Sluice, Sluice,
** PostgreSQL, ...): on a shared machine whose load moves, both see the same
** load and the ratio holds still better than the rates do. (c) and (c2)
** run one connection each, one after the other.
**
** Ratios: a = sluice / postgres round trips; b = the same for prepared
** executes; c (c2) = sluice rows/s / COPY rows/s. Targets: a, b >= 0.8, c >= 0.8.
**
**   build/dev/bench/bench_server SLUICE PG_PORT [seconds] [rows] [clients]
**
** e.g. PG_PORT=25911 scripts/postgres start
**      build/dev/bench/bench_server build/dev/sluice 25911 5 2000000 5
*/
#include <arpa/inet.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pthread.h>
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

static void run(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    PQclear(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        die(sql, PQerrorMessage(c));
}

/* ------------------------------------------------------------------------
** (a), (b): operations per second from CLIENTS connections per server
*/

enum { PG, SL, NSERVERS };

#define SLICES 6 /* per server; PG SL SL PG PG SL ... */

/* One rate case: prepare (may be NULL) once per connection, then op for
** every operation; op checks the answer (dies otherwise). */
typedef struct rate_case {
    const char *label;
    bool (*prepare)(PGconn *c);        /* false: the server cannot (n/a) */
    void (*op)(PGconn *c, long n);
} rate_case;

/* The slices' schedule, shared by the worker threads. */
typedef struct rate_run {
    const rate_case *k;
    pthread_barrier_t start, end; /* workers + the main thread */
    int target;                   /* the server of the slice */
    double deadline;              /* its end (now_s) */
    bool quit;
    bool ok[NSERVERS];            /* prepare worked on every connection */
} rate_run;

typedef struct rate_worker {
    rate_run *run;
    PGconn *conn[NSERVERS];
    long count[NSERVERS]; /* operations done */
    pthread_t thread;
} rate_worker;

static void *rate_worker_main(void *arg)
{
    rate_worker *w = arg;
    rate_run *r = w->run;
    for (;;) {
        pthread_barrier_wait(&r->start);
        if (r->quit)
            return NULL;
        int t = r->target;
        PGconn *c = w->conn[t];
        long n = w->count[t];
        do {
            for (int i = 0; i < 16; i++)
                r->k->op(c, n++);
        } while (now_s() < r->deadline);
        w->count[t] = n;
        pthread_barrier_wait(&r->end);
    }
}

/* Run case k: rates[s] operations per second of server s (-1: n/a). */
static void rate_measure(const rate_case *k, const char *const ci[NSERVERS], int clients,
                         double secs, double rates[NSERVERS])
{
    rate_run r = {.k = k, .ok = {true, true}};
    rate_worker *w = calloc((size_t)clients, sizeof *w);
    for (int i = 0; i < clients; i++) {
        w[i].run = &r;
        for (int s = 0; s < NSERVERS; s++) {
            w[i].conn[s] = connect_to(ci[s]);
            if (k->prepare && r.ok[s] && !k->prepare(w[i].conn[s]))
                r.ok[s] = false;
        }
    }
    pthread_barrier_init(&r.start, NULL, (unsigned)clients + 1);
    pthread_barrier_init(&r.end, NULL, (unsigned)clients + 1);
    for (int i = 0; i < clients; i++)
        pthread_create(&w[i].thread, NULL, rate_worker_main, &w[i]);
    double spent[NSERVERS] = {0, 0};
    for (int slice = 0; slice < 2 * SLICES; slice++) {
        int t = (slice + 1) / 2 % 2 == 0 ? PG : SL; /* PG SL SL PG PG SL ... */
        if (!r.ok[t])
            continue;
        r.target = t;
        double t0 = now_s();
        r.deadline = t0 + secs / SLICES;
        pthread_barrier_wait(&r.start);
        pthread_barrier_wait(&r.end);
        spent[t] += now_s() - t0;
    }
    r.quit = true;
    pthread_barrier_wait(&r.start);
    for (int s = 0; s < NSERVERS; s++) {
        long n = 0;
        for (int i = 0; i < clients; i++)
            n += w[i].count[s];
        rates[s] = r.ok[s] && spent[s] > 0 ? (double)n / spent[s] : -1;
    }
    for (int i = 0; i < clients; i++) {
        pthread_join(w[i].thread, NULL);
        for (int s = 0; s < NSERVERS; s++)
            PQfinish(w[i].conn[s]);
    }
    pthread_barrier_destroy(&r.start);
    pthread_barrier_destroy(&r.end);
    free(w);
}

/* (a) */
static void op_select_1(PGconn *c, long n)
{
    (void)n;
    PGresult *r = PQexec(c, "SELECT 1");
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1 ||
        strcmp(PQgetvalue(r, 0, 0), "1") != 0)
        die("SELECT 1", PQerrorMessage(c));
    PQclear(r);
}

/* (b) */
static bool prepare_cast(PGconn *c)
{
    PGresult *r = PQprepare(c, "bench", "SELECT CAST($1 AS BIGINT)", 1, NULL);
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (!ok)
        printf("(prepare failed: %s)\n", strtok(PQerrorMessage(c), "\n"));
    return ok;
}

static void op_exec_cast(PGconn *c, long n)
{
    char v[24];
    snprintf(v, sizeof v, "%ld", n);
    const char *vals[1] = {v};
    PGresult *r = PQexecPrepared(c, "bench", 1, vals, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1 ||
        strcmp(PQgetvalue(r, 0, 0), v) != 0)
        die("execute prepared", PQerrorMessage(c));
    PQclear(r);
}

/* ------------------------------------------------------------------------
** (c), (c2): streaming
*/

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

/* A streaming case: Sluice's table (its columns after id) and PostgreSQL's
** select list over generate_series. */
typedef struct stream_case {
    const char *label;   /* the line's start */
    const char *table;   /* Sluice's datagen table */
    const char *columns; /* its columns after id BIGINT, with their datagen options */
    const char *pg;      /* PostgreSQL's select list */
    const char *ratio;
} stream_case;

static const stream_case stream_cases[] = {
    {"(c) rows/s         ", "big", ", x DOUBLE) WITH ('fields.x.min'='0', 'fields.x.max'='1', ",
     "g, random()", "c: streaming sluice/COPY"},
    {"(c2) rows/s, BIGINT", "big2", ") WITH (", "g", "c2: streaming BIGINT sluice/COPY"},
};

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_server SLUICE PG_PORT [seconds] [rows] [clients]\n");
        return 2;
    }
    const char *sluice = argv[1];
    double secs = argc > 3 ? atof(argv[3]) : 5.0;
    long long rows = argc > 4 ? atoll(argv[4]) : 2000000;
    int clients = argc > 5 ? atoi(argv[5]) : 1;
    if (secs <= 0 || rows <= 0 || clients < 1 || clients > 64) {
        fprintf(stderr, "bench_server: seconds and rows must be positive, clients 1 to 64\n");
        return 2;
    }
    char ci[NSERVERS][256];
    snprintf(ci[PG], sizeof ci[PG],
             "host=127.0.0.1 port=%s user=sluice password=sluice dbname=sluice", argv[2]);
    PGconn *pg = connect_to(ci[PG]);
    start_server(sluice, free_port(), ci[SL], sizeof ci[SL]);
    PGconn *sl = connect_to(ci[SL]);
    printf("postgres %s; sluice serve %s; %d client%s per server\n",
           PQparameterStatus(pg, "server_version"), PQparameterStatus(sl, "server_version"),
           clients, clients == 1 ? "" : "s");

    static const rate_case rate_cases[] = {
        {"(a) round trips/s   postgres %10.0f  sluice %10.0f  (SELECT 1)\n", NULL, op_select_1},
        {"(b) prepared/s      postgres %10.0f  sluice %10.0f\n", prepare_cast, op_exec_cast},
    };
    const char *const cis[NSERVERS] = {ci[PG], ci[SL]};
    double rates[2][NSERVERS];
    for (int i = 0; i < 2; i++) {
        rate_measure(&rate_cases[i], cis, clients, secs, rates[i]);
        printf(rate_cases[i].label, rates[i][PG], rates[i][SL] < 0 ? 0 : rates[i][SL]);
    }

    double copy[2], sl_sel[2];
    for (int i = 0; i < 2; i++) {
        const stream_case *k = &stream_cases[i];
        char ddl[512], q[128], sq[64];
        snprintf(ddl, sizeof ddl,
                 "CREATE TABLE %s (id BIGINT%s'connector'='datagen', 'number-of-rows'='%lld', "
                 "'rows-per-second'='1000000000', 'fields.id.kind'='sequence', "
                 "'fields.id.start'='1', 'fields.id.end'='%lld')",
                 k->table, k->columns, rows, rows);
        run(sl, ddl);
        snprintf(q, sizeof q, "SELECT %s FROM generate_series(1, %lld) g", k->pg, rows);
        snprintf(sq, sizeof sq, "SELECT %s FROM %s", i == 0 ? "id, x" : "id", k->table);
        copy[i] = stream_copy(pg, q, rows);
        double pgsel = stream_select(pg, q, rows);
        sl_sel[i] = stream_select(sl, sq, rows);
        printf("%s postgres COPY %10.0f  postgres SELECT %10.0f  sluice SELECT %10.0f\n",
               k->label, copy[i], pgsel, sl_sel[i]);
    }

    ratio("a: round trips sluice/postgres", rates[0][SL], rates[0][PG]);
    ratio("b: prepared sluice/postgres", rates[1][SL], rates[1][PG]);
    for (int i = 0; i < 2; i++)
        ratio(stream_cases[i].ratio, sl_sel[i], copy[i]);
    PQfinish(sl);
    PQfinish(pg);
    stop_server();
    return 0;
}
