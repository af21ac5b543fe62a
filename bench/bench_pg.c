/*
** bench_pg.c — the jdbc sink into a local PostgreSQL, as ratios to a
** ceiling (issue 11's benchmark).
**
** N rows (id BIGINT, grp BIGINT, amount DECIMAL(12,2), note STRING of
** about 30 bytes, ts TIMESTAMP_LTZ(3)) into a table with a PRIMARY KEY
** (id), each case into a fresh table:
**
**   (a)  ceiling   a plain libpq COPY FROM STDIN (text) of the same rows, as
**                  one COPY in one transaction;
**   (a2) pipeline  the same rows as prepared INSERT ... ON CONFLICT DO
**                  UPDATE statements in libpq's pipeline mode, one sync per
**                  128 rows (what the sink does for a table with a key), one
**                  transaction: the mechanism's own ceiling;
**   (b0) sluice    `sluice -f`: INSERT INTO t SELECT ... FROM datagen (a
**                  table without a key in Sluice: COPY), guarantee none: a
**                  commit per batch of 'sink.buffer-flush.max-rows' (100);
**   (b)  sluice    the same, at-least-once, checkpoints every 1 s: batches
**                  of 100 rows written, committed every
**                  'sink.buffer-flush.interval' (1 s) and at checkpoints;
**   (c)  sluice    the same, exactly-once (preparable participant),
**                  checkpoints every 1 s — run with the argument "eo" once
**                  pg_txn.c is in;
**   (d)  sluice    upsert at-least-once (the Sluice table has the PRIMARY
**                  KEY): every 10th row repeats the key of an earlier row.
**
** The rate of a sluice case is N over the whole run of `sluice -f` (start
** to the last commit: the job ends after its final checkpoint committed);
** the ceiling's is N over the COPY. Ratios: b/a, c/b, d/a2.
**
** Delay (b0, b, and c with "eo"): a datagen at R rows/s for D s whose rows
** carry CURRENT_TIMESTAMP (taken as they leave the source); a poller here
** reads the new rows every 10 ms (SELECT ... WHERE id > last, a committed
** read) and records, per row, the time from its stamp to the poll that
** first saw it: p50, p99, max (the poll adds up to 10 ms).
**
**   build/dev/bench/bench_pg PORT SLUICE [rows] [rate] [seconds] [eo]
**
** e.g. PG_PORT=25910 scripts/postgres start
**      build/dev/bench/bench_pg 25910 build/dev/sluice 1000000 20000 10
** (role sluice / password sluice, database sluice: scripts/postgres's).
*/
#include <libpq-fe.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *g_port;
static const char *g_sluice;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void die(const char *what, const char *why)
{
    fprintf(stderr, "bench_pg: %s: %s\n", what, why);
    exit(1);
}

static PGconn *db(void)
{
    char ci[256];
    snprintf(ci, sizeof ci,
             "host=127.0.0.1 port=%s user=sluice password=sluice dbname=sluice "
             "options='-c TimeZone=UTC -c client_min_messages=warning'",
             g_port);
    PGconn *c = PQconnectdb(ci);
    if (PQstatus(c) != CONNECTION_OK)
        die("connect", PQerrorMessage(c));
    return c;
}

static void run(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
        die(sql, PQerrorMessage(c));
    PQclear(r);
}

static long long count(PGconn *c, const char *table)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        die(sql, PQerrorMessage(c));
    long long n = atoll(PQgetvalue(r, 0, 0));
    PQclear(r);
    return n;
}

static void fresh(PGconn *c, const char *table)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "DROP TABLE IF EXISTS %s; CREATE TABLE %s (id bigint PRIMARY KEY, grp bigint, "
             "amount numeric(12,2), note text, ts timestamptz)",
             table, table);
    run(c, sql);
}

/* Row i's values as the Sluice job computes them (see sluice_case). */
static int row_text(long long i, char *buf, size_t n, bool copy)
{
    long long ms = 1764633600000LL + i;
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    return snprintf(buf, n, "%lld%c%lld%c%lld.%02lld%cnote-%lld-abcdefghijkl%c"
                    "%04d-%02d-%02d %02d:%02d:%02d.%03lld+00%s",
                    i, copy ? '\t' : 0, i % 1000, copy ? '\t' : 0, i / 100, i % 100,
                    copy ? '\t' : 0, i, copy ? '\t' : 0, tm.tm_year + 1900, tm.tm_mon + 1,
                    tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms % 1000, copy ? "\n" : "");
}

/* (a) COPY FROM STDIN. */
static double ceiling_copy(long long rows)
{
    PGconn *c = db();
    fresh(c, "bench_a");
    double t0 = now_s();
    run(c, "BEGIN");
    PGresult *r = PQexec(c, "COPY bench_a (id, grp, amount, note, ts) FROM STDIN");
    if (PQresultStatus(r) != PGRES_COPY_IN)
        die("copy", PQerrorMessage(c));
    PQclear(r);
    static char buf[1 << 16];
    size_t len = 0;
    for (long long i = 1; i <= rows; i++) {
        len += (size_t)row_text(i, buf + len, sizeof buf - len, true);
        if (len > sizeof buf - 256 || i == rows) {
            if (PQputCopyData(c, buf, (int)len) != 1)
                die("copy", PQerrorMessage(c));
            len = 0;
        }
    }
    if (PQputCopyEnd(c, NULL) != 1)
        die("copy", PQerrorMessage(c));
    while ((r = PQgetResult(c))) {
        if (PQresultStatus(r) != PGRES_COMMAND_OK)
            die("copy", PQerrorMessage(c));
        PQclear(r);
    }
    run(c, "COMMIT");
    double s = now_s() - t0;
    if (count(c, "bench_a") != rows)
        die("copy", "rows missing");
    PQfinish(c);
    return s;
}

/* (a2) prepared upserts in pipeline mode. */
static double ceiling_pipeline(long long rows)
{
    PGconn *c = db();
    fresh(c, "bench_a2");
    PGresult *r = PQprepare(c, "up",
                            "INSERT INTO bench_a2 (id, grp, amount, note, ts) VALUES ($1, $2, $3, "
                            "$4, $5) ON CONFLICT (id) DO UPDATE SET grp = EXCLUDED.grp, amount = "
                            "EXCLUDED.amount, note = EXCLUDED.note, ts = EXCLUDED.ts",
                            5, NULL);
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        die("prepare", PQerrorMessage(c));
    PQclear(r);
    double t0 = now_s();
    run(c, "BEGIN");
    if (PQenterPipelineMode(c) != 1)
        die("pipeline", PQerrorMessage(c));
    char buf[256];
    for (long long i = 1; i <= rows;) {
        int sent = 0;
        for (; i <= rows && sent < 128; i++, sent++) {
            row_text(i, buf, sizeof buf, false);
            const char *p[5];
            const char *q = buf;
            for (int k = 0; k < 5; k++) {
                p[k] = q;
                q += strlen(q) + 1;
            }
            if (PQsendQueryPrepared(c, "up", 5, p, NULL, NULL, 0) != 1)
                die("send", PQerrorMessage(c));
        }
        PQpipelineSync(c);
        for (int k = 0; k < sent; k++) {
            r = PQgetResult(c);
            if (PQresultStatus(r) != PGRES_COMMAND_OK)
                die("upsert", PQerrorMessage(c));
            PQclear(r);
            while ((r = PQgetResult(c)))
                PQclear(r);
        }
        r = PQgetResult(c);
        if (PQresultStatus(r) != PGRES_PIPELINE_SYNC)
            die("sync", PQerrorMessage(c));
        PQclear(r);
    }
    PQexitPipelineMode(c);
    run(c, "COMMIT");
    double s = now_s() - t0;
    if (count(c, "bench_a2") != rows)
        die("pipeline", "rows missing");
    PQfinish(c);
    return s;
}

/* Start `sluice -f` on the job; its output to /tmp/bench_pg-<tag>.log. */
static pid_t sluice_start(const char *tag, const char *sql)
{
    char path[128], dir[128], log[128];
    snprintf(path, sizeof path, "/tmp/bench_pg-%s.sql", tag);
    snprintf(dir, sizeof dir, "/tmp/bench_pg-%s.data", tag);
    snprintf(log, sizeof log, "/tmp/bench_pg-%s.log", tag);
    FILE *f = fopen(path, "w");
    if (!f)
        die("write", path);
    fputs(sql, f);
    fclose(f);
    char rm[200];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    if (system(rm) != 0)
        die("rm", dir);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        FILE *o = freopen(log, "w", stdout);
        if (o)
            dup2(fileno(o), 2);
        execl(g_sluice, g_sluice, "--data-dir", dir, "-q", "-f", path, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static void sluice_wait(pid_t pid, const char *tag)
{
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "bench_pg: case %s failed; see /tmp/bench_pg-%s.log\n", tag, tag);
        exit(1);
    }
}

static const char *guarantee_sql(const char *g)
{
    static char buf[256];
    if (strcmp(g, "exactly-once") == 0)
        snprintf(buf, sizeof buf,
                 "'sink.delivery-guarantee' = 'exactly-once', "
                 "'sink.transactional-id-prefix' = 'bench-%d-'",
                 (int)getpid());
    else
        snprintf(buf, sizeof buf, "'sink.delivery-guarantee' = '%s'", g);
    return buf;
}

/* (b0), (b), (c), (d): the whole run of sluice -f. */
static double sluice_case(const char *tag, const char *table, const char *g, bool key,
                          long long rows, long long *expect)
{
    PGconn *c = db();
    fresh(c, table);
    char sql[4096];
    const char *id = key ? "CASE WHEN MOD(id, 10) = 0 THEN id - 5 ELSE id END" : "id";
    snprintf(sql, sizeof sql,
             "SET 'execution.checkpointing.interval' = '1 s';\n"
             "SET 'parallelism.default' = '1';\n"
             "SET 'pipeline.name' = 'bench-pg-%s';\n"
             "CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = "
             "'%lld', 'rows-per-second' = '1000000000', 'fields.id.kind' = 'sequence', "
             "'fields.id.start' = '1', 'fields.id.end' = '%lld');\n"
             "CREATE TABLE t (id BIGINT, grp BIGINT, amount DECIMAL(12, 2), note STRING, "
             "ts TIMESTAMP_LTZ(3)%s) WITH ('connector' = 'jdbc', 'url' = "
             "'jdbc:postgresql://127.0.0.1:%s/sluice', 'table-name' = '%s', 'username' = "
             "'sluice', 'password' = 'sluice', %s);\n"
             "INSERT INTO t SELECT %s, MOD(id, 1000), CAST(id AS DECIMAL(12, 2)) / 100, "
             "CONCAT('note-', CAST(id AS STRING), '-abcdefghijkl'), "
             "TO_TIMESTAMP_LTZ(1764633600000 + id, 3) FROM gen;\n",
             tag, rows, rows, key ? ", PRIMARY KEY (id) NOT ENFORCED" : "", g_port, table,
             guarantee_sql(g), id);
    double t0 = now_s();
    pid_t pid = sluice_start(tag, sql);
    sluice_wait(pid, tag);
    double s = now_s() - t0;
    *expect = key ? rows - rows / 10 : rows;
    long long n = count(c, table);
    if (n != *expect) {
        fprintf(stderr, "bench_pg: case %s: %lld rows in %s, expected %lld\n", tag, n, table,
                *expect);
        exit(1);
    }
    PQfinish(c);
    return s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The delay from a row's source stamp to the poll that first saw it. */
static void delay_case(const char *tag, const char *g, long long rate, int seconds)
{
    PGconn *c = db();
    char table[64];
    snprintf(table, sizeof table, "bench_lat_%s", tag);
    char sql[4096];
    snprintf(sql, sizeof sql,
             "DROP TABLE IF EXISTS %s; CREATE TABLE %s (id bigint PRIMARY KEY, t timestamptz)",
             table, table);
    run(c, sql);
    long long rows = rate * seconds;
    snprintf(sql, sizeof sql,
             "SET 'execution.checkpointing.interval' = '1 s';\n"
             "SET 'parallelism.default' = '1';\n"
             "SET 'pipeline.name' = 'bench-pg-lat-%s';\n"
             "CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = "
             "'%lld', 'rows-per-second' = '%lld', 'fields.id.kind' = 'sequence', "
             "'fields.id.start' = '1', 'fields.id.end' = '%lld');\n"
             "CREATE TABLE t (id BIGINT, t TIMESTAMP_LTZ(3)) WITH ('connector' = 'jdbc', "
             "'url' = 'jdbc:postgresql://127.0.0.1:%s/sluice', 'table-name' = '%s', "
             "'username' = 'sluice', 'password' = 'sluice', %s);\n"
             "INSERT INTO t SELECT id, CURRENT_TIMESTAMP FROM gen;\n",
             tag, rows, rate, rows, g_port, table, guarantee_sql(g));
    char lat_tag[64];
    snprintf(lat_tag, sizeof lat_tag, "lat-%s", tag);
    pid_t pid = sluice_start(lat_tag, sql);
    double *d = malloc(sizeof(double) * (size_t)rows);
    long long seen = 0, last = 0;
    double deadline = now_s() + seconds + 120;
    char q[256];
    while (seen < rows && now_s() < deadline) {
        snprintf(q, sizeof q,
                 "SELECT id, extract(epoch FROM t) * 1000 FROM %s WHERE id > %lld ORDER BY id",
                 table, last);
        PGresult *r = PQexec(c, q);
        double at = wall_ms();
        if (PQresultStatus(r) != PGRES_TUPLES_OK)
            die("poll", PQerrorMessage(c));
        for (int i = 0; i < PQntuples(r); i++) {
            long long id = atoll(PQgetvalue(r, i, 0));
            if (id > last)
                last = id;
            if (seen < rows)
                d[seen++] = at - atof(PQgetvalue(r, i, 1));
        }
        PQclear(r);
        struct timespec ts = {0, 10 * 1000000};
        nanosleep(&ts, NULL);
    }
    sluice_wait(pid, lat_tag);
    qsort(d, (size_t)seen, sizeof(double), cmp_double);
    if (seen > 0)
        printf("  delay %-14s %lld rows at %lld/s: p50 %.0f ms, p99 %.0f ms, max %.0f ms\n", g,
               seen, rate, d[seen / 2], d[(long long)((double)seen * 0.99)], d[seen - 1]);
    free(d);
    PQfinish(c);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_pg PORT SLUICE [rows] [rate] [seconds] [eo]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    g_port = argv[1];
    g_sluice = argv[2];
    long long rows = argc > 3 ? atoll(argv[3]) : 1000000;
    long long rate = argc > 4 ? atoll(argv[4]) : 20000;
    int seconds = argc > 5 ? atoi(argv[5]) : 10;
    bool eo = argc > 6 && strcmp(argv[6], "eo") == 0;
    long long n = 0;
    printf("bench_pg: %lld rows into a table with a primary key (PostgreSQL on port %s)\n", rows,
           g_port);
    double a = ceiling_copy(rows);
    printf("  (a)  COPY FROM STDIN (ceiling)    %8.2f s  %9.0f rows/s\n", a, rows / a);
    double a2 = ceiling_pipeline(rows);
    printf("  (a2) pipelined prepared upserts   %8.2f s  %9.0f rows/s\n", a2, rows / a2);
    double b0 = sluice_case("none", "bench_b0", "none", false, rows, &n);
    printf("  (b0) sluice append, none          %8.2f s  %9.0f rows/s  b0/a %.2f\n", b0, rows / b0,
           a / b0);
    double b = sluice_case("alo", "bench_b", "at-least-once", false, rows, &n);
    printf("  (b)  sluice append, at-least-once %8.2f s  %9.0f rows/s  b/a %.2f\n", b, rows / b,
           a / b);
    if (eo) {
        double c = sluice_case("eo", "bench_c", "exactly-once", false, rows, &n);
        printf("  (c)  sluice append, exactly-once  %8.2f s  %9.0f rows/s  c/b %.2f\n", c,
               rows / c, b / c);
    }
    double d = sluice_case("upsert", "bench_d", "at-least-once", true, rows, &n);
    printf("  (d)  sluice upsert, at-least-once %8.2f s  %9.0f rows/s  d/a %.2f  d/a2 %.2f "
           "(10%% repeated keys)\n",
           d, rows / d, a / d, a2 / d);
    delay_case("none", "none", rate, seconds);
    delay_case("alo", "at-least-once", rate, seconds);
    if (eo)
        delay_case("eo", "exactly-once", rate, seconds);
    return 0;
}
