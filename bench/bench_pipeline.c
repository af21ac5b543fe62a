/*
** bench_pipeline.c — whole jobs through the engine, as ratios to a ceiling.
**
** Ceiling: the datagen source alone, polled to exhaustion and discarded
** (the same rows generated with no engine in between). Measured, each as an
** INSERT into blackhole through the session API, over the same rows:
**   filter/project   SELECT id, amount * 2 FROM gen WHERE id % 2 = 0
**   checkpoints      the same with a checkpoint every second vs. none
**   group by         GROUP BY id % 1000000 (COUNT, SUM)
**   tumbling window  per-second windows on an event-time column
** All single-threaded (rows/s = rows/s per core).
**
**   build/release/bench/bench_pipeline [rows]
*/
#include "sl_connector.h"
#include "sl_planner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double sl__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The ceiling: rows per second of the datagen source alone. */
static double sl__ceiling(long rows)
{
    const sl_connector *dg = sl_connector_find("datagen");
    sl_kvlist *opts = sl_kvlist_new();
    char n[32];
    snprintf(n, sizeof n, "%ld", rows);
    sl_kvlist_add(opts, "connector", "datagen", -1, -1);
    sl_kvlist_add(opts, "number-of-rows", n, -1, -1);
    sl_kvlist_add(opts, "rows-per-second", "1000000000000", -1, -1);
    sl_kvlist_add(opts, "fields.id.kind", "sequence", -1, -1);
    sl_kvlist_add(opts, "fields.id.start", "1", -1, -1);
    sl_kvlist_add(opts, "fields.id.end", n, -1, -1);
    sl_type types[3] = {sl_type_make(SL_TYPE_BIGINT), sl_type_make_p(SL_TYPE_DECIMAL, 10, 2),
                        sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0)};
    const char *names[3] = {"id", "amount", "ts"};
    sl_source_args args = {opts, 3, names, types, 0, 1, "gen"};
    sl_source *src = NULL;
    sl_error err = SL_ERROR_INIT;
    if (dg->create_source(&args, &src, &err) != 0) {
        fprintf(stderr, "bench_pipeline: %s\n", err.message);
        exit(1);
    }
    sl_chunk *c = sl_chunk_new(3, types, SL_CHUNK_ROWS);
    long got = 0;
    double t0 = sl__now();
    for (;;) {
        sl_chunk_reset(c);
        int rc = src->ops->poll(src, c, &err);
        got += c->nrows;
        if (rc != SL_SOURCE_MORE)
            break;
    }
    double secs = sl__now() - t0;
    sl_chunk_free(c);
    src->ops->free(src);
    sl_kvlist_free(opts);
    return (double)got / secs;
}

static void sl__exec(sl_session *s, const char *sql)
{
    sl_error err = SL_ERROR_INIT;
    if (sl_session_exec(s, sql, strlen(sql), NULL, &err) != 0) {
        fprintf(stderr, "bench_pipeline: %s\n  in: %s\n", err.message, sql);
        exit(1);
    }
}

/* Rows per second of the source side of an INSERT over `rows` input rows. */
static double sl__job(sl_session *s, const char *sql, long rows)
{
    double t0 = sl__now();
    sl__exec(s, sql);
    return (double)rows / (sl__now() - t0);
}

int main(int argc, char **argv)
{
    long rows = argc > 1 ? atol(argv[1]) : 5000000;
    char tmpl[] = "/tmp/sluice-bench-XXXXXX";
    if (!mkdtemp(tmpl))
        return 1;
    char *dir = sl_path_join(tmpl, "data");
    sl_engine *eng = NULL;
    sl_error err = SL_ERROR_INIT;
    if (sl_engine_open(dir, &eng, &err) != 0)
        return 1;
    sl_session *s = sl_session_new(eng);
    char *create = sl_sprintf(
        "CREATE TABLE gen (id BIGINT, amount DECIMAL(10, 2), ts TIMESTAMP(3), "
        "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen', "
        "'number-of-rows' = '%ld', 'rows-per-second' = '1000000000000', "
        "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '%ld', "
        "'fields.ts.max-past' = '1 h')",
        rows, rows);
    sl__exec(s, create);
    sl__exec(s, "CREATE TABLE bh1 (id BIGINT, a DECIMAL(11, 2)) WITH ('connector' = 'blackhole')");
    sl__exec(s, "CREATE TABLE bh2 (k BIGINT, n BIGINT, total DECIMAL(38, 2)) "
                "WITH ('connector' = 'blackhole')");
    sl__exec(s, "CREATE TABLE bh3 (ws TIMESTAMP(3), n BIGINT, total DECIMAL(38, 2)) "
                "WITH ('connector' = 'blackhole')");

    double ceiling = sl__ceiling(rows);
    printf("rows: %ld\n", rows);
    printf("ceiling (datagen alone)     %12.0f rows/s\n", ceiling);

    sl__exec(s, "SET 'execution.checkpointing.interval' = '0'");
    double calc = sl__job(s,
                          "INSERT INTO bh1 SELECT id, amount * 2 FROM gen WHERE id % 2 = 0", rows);
    printf("filter/project              %12.0f rows/s  ratio %.3f\n", calc, calc / ceiling);

    sl__exec(s, "SET 'execution.checkpointing.interval' = '1 s'");
    sl__exec(s, "SET 'pipeline.name' = 'bench-checkpointed'");
    double chk = sl__job(s,
                         "INSERT INTO bh1 SELECT id, amount * 2 FROM gen WHERE id % 2 = 0", rows);
    printf("filter/project, 1 s chk     %12.0f rows/s  overhead %.1f %%\n", chk,
           100.0 * (1.0 - chk / calc));
    sl__exec(s, "RESET 'pipeline.name'");
    sl__exec(s, "SET 'execution.checkpointing.interval' = '0'");

    const char *group = "INSERT INTO bh2 SELECT id % 1000000, COUNT(*), SUM(amount) FROM gen "
                        "GROUP BY id % 1000000";
    sl_error e2 = SL_ERROR_INIT;
    double t0 = sl__now();
    if (sl_session_exec(s, group, strlen(group), NULL, &e2) == 0)
        printf("group by 1M keys            %12.0f rows/s  ratio %.3f\n",
               (double)rows / (sl__now() - t0), (double)rows / (sl__now() - t0) / ceiling);
    else
        printf("group by 1M keys            not runnable: %s\n", e2.message);
    sl_error_reset(&e2);

    const char *window = "INSERT INTO bh3 SELECT window_start, COUNT(*), SUM(amount) FROM "
                         "TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts), INTERVAL '1' SECOND)) "
                         "GROUP BY window_start, window_end";
    t0 = sl__now();
    if (sl_session_exec(s, window, strlen(window), NULL, &e2) == 0)
        printf("tumbling window (1 s)       %12.0f rows/s  ratio %.3f\n",
               (double)rows / (sl__now() - t0), (double)rows / (sl__now() - t0) / ceiling);
    else
        printf("tumbling window             not runnable: %s\n", e2.message);
    sl_error_reset(&e2);

    sl_session_free(s);
    sl_engine_close(eng);
    sl_fs_remove_tree(tmpl, &err);
    sl_free(create);
    sl_free(dir);
    return 0;
}
