/*
** bench_nexmark.c — the nexmark generator's speed: the ceiling of every
** Nexmark query (no query reads its events faster than they are made).
**
** Timed (median of `runs`), one thread, default options (1/3/46, avg sizes
** 200/500/100 bytes):
**
**   generator   sl_nexmark_next for `events` events (ids, times, strings:
**               the event struct, no rows) — the ceiling;
**   generator, 4 leaves  the same drawing only what event_type,
**               bid.auction, bid.price, bid.dateTime need
**               (sl_nexmark_config.need, as the source sets it for a
**               query reading those) — the ceiling of such a query;
**   source, 26  the source's poll into 1024-row chunks of all 26 leaf
**               columns (the reference DDL flattened): generator + rows;
**   source, 4   the same with event_type, bid.auction, bid.price,
**               bid.dateTime (what q1/q2-style queries read).
**
** Printed: events/s, MB/s of the event bytes (strings + 8 bytes per number
** and time, of every leaf) and, for the source runs, the ratio generator
** time / source time (1 = filling rows costs nothing), against the
** generator of the same leaves.
**
**   build/release/bench/bench_nexmark [events] [runs]
*/
#include "nexmark/nexmark.h"
#include "sl_connector.h"
#include "sl_exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SL__MAX_RUNS 15

static double sl__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int sl__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double sl__median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, sl__cmp_double);
    return v[n / 2];
}

static double sl__run_generator(int64_t events, uint32_t need, size_t *bytes)
{
    sl_kvlist *o = sl_kvlist_new();
    sl_nexmark_config c;
    sl_error err = SL_ERROR_INIT;
    if (sl_nexmark_config_init(&c, o, 1, 0, &err) != 0) {
        fprintf(stderr, "config: %s\n", err.message);
        exit(1);
    }
    c.need = need;
    sl_nexmark_event e = {0};
    size_t b = 0;
    double t0 = sl__now();
    for (int64_t k = 0; k < events; k++) {
        sl_nexmark_next(&c, k, &e);
        b += sl_nexmark_event_bytes(&e);
    }
    double t = sl__now() - t0;
    *bytes = b;
    sl_nexmark_event_free(&e);
    sl_kvlist_free(o);
    return t;
}

/* The leaves a q1/q2-style query reads: the source's columns in its run
** with 4, and the generator's need mask (sl__few_need) in its own. */
static const char *const sl__few[] = {"event_type", "bid.auction", "bid.price", "bid.dateTime"};

static uint32_t sl__few_need(void)
{
    uint32_t need = 0;
    for (size_t k = 0; k < sizeof sl__few / sizeof sl__few[0]; k++)
        for (int f = 0; f < sl_nexmark_ncolumns; f++)
            if (strcmp(sl__few[k], sl_nexmark_columns[f]) == 0)
                need |= 1u << f;
    return need;
}

static double sl__run_source(int64_t events, int ncols)
{
    char num[32];
    snprintf(num, sizeof num, "%lld", (long long)events);
    sl_kvlist *o = sl_kvlist_new();
    sl_kvlist_add(o, "connector", "nexmark", 0, 0);
    sl_kvlist_add(o, "events.num", num, 0, 0);
    const char *names[32];
    sl_type types[32];
    int n = ncols < sl_nexmark_ncolumns ? ncols : sl_nexmark_ncolumns;
    for (int i = 0; i < n; i++) {
        const char *name = ncols == 4 ? sl__few[i] : sl_nexmark_columns[i];
        names[i] = name;
        types[i] = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
        if (strcmp(name, "event_type") == 0)
            types[i] = sl_type_make(SL_TYPE_INT);
        else if (strstr(name, "dateTime") || strstr(name, "expires"))
            types[i] = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
        else if (strstr(name, ".id") || strstr(name, "Bid") || strstr(name, "reserve") ||
                 strstr(name, "seller") || strstr(name, "category") ||
                 strcmp(name, "bid.auction") == 0 || strstr(name, "bidder") ||
                 strstr(name, "price"))
            types[i] = sl_type_make(SL_TYPE_BIGINT);
    }
    sl_source_args a = {.options = o, .ncols = n, .names = names, .types = types,
                        .subtask = 0, .parallelism = 1, .table = "nx"};
    sl_source *s = NULL;
    sl_error err = SL_ERROR_INIT;
    if (sl_connector_find("nexmark")->create_source(&a, &s, &err) != 0) {
        fprintf(stderr, "create: %s\n", err.message);
        exit(1);
    }
    sl_chunk *c = sl_chunk_new(n, types, SL_CHUNK_ROWS);
    int64_t got = 0;
    double t0 = sl__now();
    for (;;) {
        sl_chunk_reset(c);
        int rc = s->ops->poll(s, c, &err);
        got += c->nrows;
        if (rc != SL_SOURCE_MORE)
            break;
    }
    double t = sl__now() - t0;
    if (got != events) {
        fprintf(stderr, "source gave %lld events, not %lld\n", (long long)got, (long long)events);
        exit(1);
    }
    sl_chunk_free(c);
    s->ops->free(s);
    sl_kvlist_free(o);
    return t;
}

int main(int argc, char **argv)
{
    int64_t events = argc > 1 ? atoll(argv[1]) : 10000000;
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    if (events <= 0 || runs <= 0 || runs > SL__MAX_RUNS) {
        fprintf(stderr, "usage: bench_nexmark [events] [runs 1..%d]\n", SL__MAX_RUNS);
        return 2;
    }
    double g[SL__MAX_RUNS], g4[SL__MAX_RUNS], s26[SL__MAX_RUNS], s4[SL__MAX_RUNS];
    size_t bytes = 0, bytes4 = 0;
    const uint32_t four = sl__few_need();
    for (int r = 0; r < runs; r++) {
        g[r] = sl__run_generator(events, SL_NX_NEED_ALL, &bytes);
        g4[r] = sl__run_generator(events, four, &bytes4);
        s26[r] = sl__run_source(events, 26);
        s4[r] = sl__run_source(events, 4);
    }
    double tg = sl__median(g, runs), tg4 = sl__median(g4, runs);
    double t26 = sl__median(s26, runs), t4 = sl__median(s4, runs);
    double mb = (double)bytes / 1e6;
    printf("%lld events, %.1f MB of event bytes (%.0f bytes per event), median of %d\n",
           (long long)events, mb, (double)bytes / (double)events, runs);
    printf("| run | time | events/s | MB/s | ratio to generator |\n|---|---|---|---|---|\n");
    printf("| generator | %.0f ms | %.2fM | %.0f | 1 |\n", tg * 1e3, (double)events / tg / 1e6,
           mb / tg);
    printf("| generator, 4 leaves | %.0f ms | %.2fM | %.0f | 1 |\n", tg4 * 1e3,
           (double)events / tg4 / 1e6, mb / tg4);
    printf("| source, 26 columns | %.0f ms | %.2fM | %.0f | %.2f |\n", t26 * 1e3,
           (double)events / t26 / 1e6, mb / t26, tg / t26);
    printf("| source, 4 columns | %.0f ms | %.2fM | %.0f | %.2f (of generator, 4 leaves) |\n",
           t4 * 1e3, (double)events / t4 / 1e6, mb / t4, tg4 / t4);
    return 0;
}
