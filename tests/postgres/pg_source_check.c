/*
** pg_source_check.c — the jdbc source's positions against a real server
** (ctest pg.source_seek): a subtask stopped after some rows and a new one
** restored from its position() read, together, exactly the rows of the
** subtask's partitions, each once, for every subtask of a parallelism-2
** partitioned scan and of an unpartitioned one, with the stop inside a
** partition and at a partition's end. The reference is the table's known
** contents (ids 1..N, written here through libpq). Control: a new source
** that is NOT restored reads the stopped one's rows again (duplicates), so
** the check can fail.
**
** With 'scan.copy' (one unordered COPY per partition): each subtask reads
** its partitions' rows once, and a position inside a partition is refused
** on restore (0A000: the rows have no fixed order).
**
** Usage: pg_source_check PORT   (the `pg` fixture's; user sluice)
*/
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_connector.h"
#include "jdbc/jdbc_int.h"

#define N 500
static int failures;

#define FAILF(...)                                                                                 \
    do {                                                                                           \
        fprintf(stderr, "FAIL: " __VA_ARGS__);                                                     \
        fputc('\n', stderr);                                                                       \
        failures++;                                                                                \
    } while (0)

static char url[128];

static sl_kvlist *opts(bool partitioned)
{
    sl_kvlist *l = sl_kvlist_new();
    sl_kvlist_add(l, "connector", "jdbc", -1, -1);
    sl_kvlist_add(l, "url", url, -1, -1);
    sl_kvlist_add(l, "table-name", "pgplan_seek", -1, -1);
    sl_kvlist_add(l, "username", "sluice", -1, -1);
    sl_kvlist_add(l, "password", "sluice", -1, -1);
    sl_kvlist_add(l, "scan.fetch-size", "7", -1, -1);
    if (partitioned) {
        sl_kvlist_add(l, "scan.partition.column", "k", -1, -1);
        sl_kvlist_add(l, "scan.partition.num", "5", -1, -1);
        sl_kvlist_add(l, "scan.partition.lower-bound", "1", -1, -1);
        sl_kvlist_add(l, "scan.partition.upper-bound", "500", -1, -1);
    }
    return l;
}

static const char *names[] = {"id", "k", "v"};
static sl_type types[3];

/* Read with s into seen[] (counts by id) until END or `stop` rows; returns
** the rows read, -1 on error. */
static int drain(sl_source *s, int *seen, int stop)
{
    sl_error err = SL_ERROR_INIT;
    int total = 0;
    sl_chunk *c = sl_chunk_new(3, types, 16);
    for (int guard = 0; guard < 100000; guard++) {
        sl_chunk_reset(c);
        int rc = s->ops->poll(s, c, &err);
        if (rc < 0) {
            FAILF("poll: %s", err.message);
            sl_error_reset(&err);
            sl_chunk_free(c);
            return -1;
        }
        for (int r = 0; r < c->nrows; r++) {
            int64_t id = c->cols[0].v.i64[r];
            char want[32];
            snprintf(want, sizeof want, "v%lld", (long long)id);
            sl_str v = c->cols[2].v.str[r];
            if (id < 1 || id > N || c->cols[1].v.i64[r] != id || v.len != strlen(want) ||
                memcmp(v.ptr, want, v.len) != 0)
                FAILF("row %lld has wrong values", (long long)id);
            else
                seen[id]++;
        }
        total += c->nrows;
        if (rc == SL_SOURCE_END || (stop >= 0 && total >= stop))
            break;
    }
    sl_chunk_free(c);
    return total;
}

static sl_source *make(const sl_kvlist *l, int subtask, int par)
{
    sl_error err = SL_ERROR_INIT;
    sl_source_args a = {.options = l, .ncols = 3, .names = names, .types = types,
                        .subtask = subtask, .parallelism = par, .table = "pgplan_seek",
                        .npk = 1, .pk = (const int[]){0}};
    sl_source *s = NULL;
    if (sl__pg_source_create(&a, &s, &err) != 0) {
        FAILF("create: %s", err.message);
        sl_error_reset(&err);
        return NULL;
    }
    return s;
}

/* Which ids subtask `subtask` of `par` reads (Flink's split of [1, 500]
** into 5 ranges of 100; unpartitioned: subtask 0 reads all). */
static bool mine(int id, int subtask, int par, bool partitioned)
{
    if (!partitioned)
        return subtask == 0;
    return ((id - 1) / 100) % par == subtask;
}

static void run(bool partitioned, int par, int stop, bool control)
{
    sl_kvlist *l = opts(partitioned);
    for (int sub = 0; sub < par; sub++) {
        int seen[N + 1] = {0};
        sl_source *a = make(l, sub, par);
        if (!a)
            break;
        int got = drain(a, seen, stop);
        sl_strbuf pos = SL_STRBUF_INIT;
        sl_error err = SL_ERROR_INIT;
        a->ops->position(a, &pos, &err);
        a->ops->free(a);
        sl_source *b = make(l, sub, par);
        if (!b) {
            sl_strbuf_free(&pos);
            break;
        }
        if (!control && b->ops->seek(b, pos.buf, pos.len, &err) != 0)
            FAILF("seek: %s", err.message);
        drain(b, seen, -1);
        b->ops->free(b);
        int dup = 0, missing = 0, stray = 0;
        for (int id = 1; id <= N; id++) {
            bool m = mine(id, sub, par, partitioned);
            if (m && seen[id] == 0)
                missing++;
            if (seen[id] > 1)
                dup++;
            if (!m && seen[id])
                stray++;
        }
        if (control) {
            if (got > 0 && dup == 0)
                FAILF("control: a source that was not restored read no row twice");
            else
                printf("ok   control (%s, subtask %d/%d): %d rows read twice without the "
                       "position\n",
                       partitioned ? "partitioned" : "whole", sub, par, dup);
        } else if (dup || missing || stray) {
            FAILF("%s, subtask %d/%d, stopped after %d rows at %s: %d read twice, %d missing, "
                  "%d not its own",
                  partitioned ? "partitioned" : "whole", sub, par, got, sl_strbuf_cstr(&pos), dup,
                  missing, stray);
        } else {
            printf("ok   %s, subtask %d/%d, stopped after %d rows at %s\n",
                   partitioned ? "partitioned" : "whole", sub, par, got, sl_strbuf_cstr(&pos));
        }
        sl_strbuf_free(&pos);
        sl_error_reset(&err);
    }
    sl_kvlist_free(l);
}

/* 'scan.copy': every subtask's rows once; restoring inside a partition is 0A000. */
static void copy_mode(void)
{
    sl_kvlist *l = opts(true);
    sl_kvlist_add(l, "scan.copy", "true", -1, -1);
    for (int sub = 0; sub < 2; sub++) {
        int seen[N + 1] = {0};
        sl_source *a = make(l, sub, 2);
        if (!a)
            break;
        drain(a, seen, -1);
        a->ops->free(a);
        int bad = 0;
        for (int id = 1; id <= N; id++)
            bad += seen[id] != (mine(id, sub, 2, true) ? 1 : 0);
        if (bad)
            FAILF("scan.copy, subtask %d/2: %d ids not read exactly once", sub, bad);
        else
            printf("ok   scan.copy, subtask %d/2: its rows once each\n", sub);
    }
    int seen[N + 1] = {0};
    sl_source *a = make(l, 0, 2), *b = make(l, 0, 2);
    if (a && b) {
        drain(a, seen, 37);
        sl_strbuf pos = SL_STRBUF_INIT;
        sl_error err = SL_ERROR_INIT;
        a->ops->position(a, &pos, &err);
        if (b->ops->seek(b, pos.buf, pos.len, &err) == 0 || strcmp(err.sqlstate, "0A000") != 0)
            FAILF("scan.copy: restoring at %s was not refused with 0A000", sl_strbuf_cstr(&pos));
        else
            printf("ok   scan.copy: restoring at %s is refused: %s\n", sl_strbuf_cstr(&pos),
                   err.message);
        sl_strbuf_free(&pos);
        sl_error_reset(&err);
    }
    if (a)
        a->ops->free(a);
    if (b)
        b->ops->free(b);
    sl_kvlist_free(l);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: pg_source_check PORT\n");
        return 2;
    }
    snprintf(url, sizeof url, "jdbc:postgresql://127.0.0.1:%s/sluice", argv[1]);
    types[0] = sl_type_make(SL_TYPE_INT);
    types[1] = sl_type_make(SL_TYPE_BIGINT);
    types[2] = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    char conninfo[160];
    snprintf(conninfo, sizeof conninfo,
             "host=127.0.0.1 port=%s dbname=sluice user=sluice password=sluice", argv[1]);
    PGconn *c = NULL;
    for (int i = 0; i < 300; i++) { /* up to 30 s while the server starts */
        c = PQconnectdb(conninfo);
        if (PQstatus(c) == CONNECTION_OK)
            break;
        PQfinish(c);
        c = NULL;
        sl_sleep_nanos(100 * 1000000LL);
    }
    if (!c) {
        fprintf(stderr, "FAIL: cannot connect to the server on port %s\n", argv[1]);
        return 1;
    }
    /* Rows inserted in a shuffled order: the scan's order is its own. */
    PGresult *r = PQexec(c, "DROP TABLE IF EXISTS pgplan_seek; "
                            "CREATE TABLE pgplan_seek (id int PRIMARY KEY, k int8, v text); "
                            "INSERT INTO pgplan_seek SELECT g, g, 'v' || g FROM "
                            "generate_series(1, 500) g ORDER BY md5(g::text)");
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        fprintf(stderr, "FAIL: setup: %s", PQerrorMessage(c));
        PQclear(r);
        PQfinish(c);
        return 1;
    }
    PQclear(r);
    PQfinish(c);
    run(true, 2, 37, false);   /* inside the first partition */
    run(true, 2, 100, false);  /* at the end of the first partition */
    run(true, 2, 233, false);  /* inside a later partition */
    run(false, 2, 150, false); /* unpartitioned: subtask 0 reads all, 1 nothing */
    run(true, 2, 37, true);    /* control: not restored */
    run(false, 1, 150, true);
    copy_mode();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("all passed\n");
    return 0;
}
