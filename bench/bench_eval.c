/*
** bench_eval.c — expression evaluator throughput, as a ratio to a ceiling.
**
** For each expression: the SQL is parsed and bound by the planner, compiled
** once (sl_eval_compile), and evaluated over the same 1024-row chunk again
** and again (sl_eval_filter for conditions, sl_eval_into for projections).
** Ceiling: a hand-written C loop computing the same result over the same
** arrays (NULL handling included, no overflow checks, no generality). Reports
** rows/s of both and the ratio evaluator/ceiling.
**
**   build/release/bench/bench_eval [seconds-per-measure]
*/
#include "sl_bind.h"
#include "sl_exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROWS SL_CHUNK_ROWS

static double sl__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The table: id BIGINT, amount DOUBLE, campaign STRING, price DECIMAL(10, 2). */
static sl_scope_col sl__cols[] = {
    {"t", "id", {SL_TYPE_BIGINT, 0, 0, false}, false},
    {"t", "amount", {SL_TYPE_DOUBLE, 0, 0, false}, false},
    {"t", "campaign", {SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0, false}, false},
    {"t", "price", {SL_TYPE_DECIMAL, 10, 2, false}, false},
};
#define NCOLS 4

static sl_chunk *sl__make_input(void)
{
    static const char *const names[] = {"alpha", "beta", "apple", "gamma", "avocado", "delta"};
    sl_type types[NCOLS];
    for (int i = 0; i < NCOLS; i++)
        types[i] = sl__cols[i].type;
    sl_chunk *c = sl_chunk_new(NCOLS, types, ROWS);
    unsigned seed = 42;
    for (int r = 0; r < ROWS; r++) {
        sl_chunk_append_row(c, SL_ROW_INSERT);
        seed = seed * 1103515245u + 12345u;
        unsigned x = seed >> 8;
        if (x % 20 != 0)
            sl_chunk_set_i64(c, 0, r, (int64_t)(x % 1000000));
        if (x % 17 != 0)
            sl_chunk_set_f64(c, 1, r, (double)(x % 30000) / 100.0);
        if (x % 13 != 0) {
            const char *n = names[x % 6];
            sl_chunk_set_str(c, 2, r, n, strlen(n));
        }
        if (x % 11 != 0)
            sl_chunk_set_i128(c, 3, r, (sl_i128)(x % 100000));
    }
    return c;
}

static sl_bexpr *sl__bind(const char *expr)
{
    char sql[8192];
    snprintf(sql, sizeof sql, "SELECT %s FROM t", expr);
    sl_error err = SL_ERROR_INIT;
    sl_stmt *s = sl_parse_one(sql, strlen(sql), &err);
    if (!s) {
        fprintf(stderr, "parse: %s\n", err.message);
        exit(1);
    }
    sl_select_item *it = sl_list_get(s->query->items, 0);
    sl_scope scope = {NCOLS, sl__cols};
    sl_bind_ctx ctx = {&scope, &err, NULL, NULL, NULL, NULL};
    sl_bexpr *b = sl_bind_expr(&ctx, it->expr);
    sl_stmt_free(s);
    if (!b) {
        fprintf(stderr, "bind: %s\n", err.message);
        exit(1);
    }
    return b;
}

/* ---- ceilings: the same results by hand ---- */

static volatile long sl__sink; /* keeps results alive */

/* amount > 10 AND campaign LIKE 'a%' */
static void sl__ceil_filter1(const sl_chunk *c, uint8_t *sel, sl_chunk *out)
{
    const uint8_t *an = c->cols[1].nulls, *cn = c->cols[2].nulls;
    const double *a = c->cols[1].v.f64;
    const sl_str *s = c->cols[2].v.str;
    long n = 0;
    for (int i = 0; i < c->nrows; i++) {
        sel[i] = !an[i] && a[i] > 10 && !cn[i] && s[i].len >= 1 && s[i].ptr[0] == 'a';
        n += sel[i];
    }
    sl__sink = n;
}

/* id * 2 + 1 */
static void sl__ceil_proj1(const sl_chunk *c, uint8_t *sel, sl_chunk *out)
{
    const int64_t *id = c->cols[0].v.i64;
    int64_t *r = out->cols[0].v.i64;
    memcpy(out->cols[0].nulls, c->cols[0].nulls, (size_t)c->nrows);
    for (int i = 0; i < c->nrows; i++)
        r[i] = id[i] * 2 + 1;
}

/* price * 2 + 1 (DECIMAL(10, 2): scaled integers, constants 200 and 100) */
static void sl__ceil_proj2(const sl_chunk *c, uint8_t *sel, sl_chunk *out)
{
    const sl_i128 *p = c->cols[3].v.i128;
    sl_i128 *r = out->cols[0].v.i128;
    memcpy(out->cols[0].nulls, c->cols[3].nulls, (size_t)c->nrows);
    for (int i = 0; i < c->nrows; i++)
        r[i] = p[i] * 2 + 100;
}

/* id % 7 = 3 OR amount BETWEEN 100 AND 200 */
static void sl__ceil_filter2(const sl_chunk *c, uint8_t *sel, sl_chunk *out)
{
    const uint8_t *in = c->cols[0].nulls, *an = c->cols[1].nulls;
    const int64_t *id = c->cols[0].v.i64;
    const double *a = c->cols[1].v.f64;
    long n = 0;
    for (int i = 0; i < c->nrows; i++) {
        sel[i] = (!in[i] && id[i] % 7 == 3) || (!an[i] && a[i] >= 100 && a[i] <= 200);
        n += sel[i];
    }
    sl__sink = n;
}

/* CASE WHEN amount > 50 THEN 'high' ELSE 'low' END */
static void sl__ceil_proj3(const sl_chunk *c, uint8_t *sel, sl_chunk *out)
{
    const uint8_t *an = c->cols[1].nulls;
    const double *a = c->cols[1].v.f64;
    sl_arena_reset(&out->arena);
    for (int i = 0; i < c->nrows; i++) {
        bool high = !an[i] && a[i] > 50;
        sl_chunk_set_str(out, 0, i, high ? "high" : "low", high ? 4 : 3);
    }
}

/* UPPER(campaign) */
static void sl__ceil_proj4(const sl_chunk *c, uint8_t *sel, sl_chunk *out)
{
    const uint8_t *cn = c->cols[2].nulls;
    const sl_str *s = c->cols[2].v.str;
    sl_arena_reset(&out->arena);
    for (int i = 0; i < c->nrows; i++) {
        out->cols[0].nulls[i] = cn[i];
        if (cn[i])
            continue;
        char *d = sl_arena_alloc(&out->arena, s[i].len ? s[i].len : 1);
        for (uint32_t j = 0; j < s[i].len; j++) {
            char ch = s[i].ptr[j];
            d[j] = ch >= 'a' && ch <= 'z' ? (char)(ch - 32) : ch;
        }
        out->cols[0].v.str[i].ptr = d;
        out->cols[0].v.str[i].len = s[i].len;
    }
}

/* id IN (200 constants): the constants k * 4999 (k < 200), ids below 1M.
** The ceiling probes an open-addressing table of 512 slots (multiplicative
** hash, linear probing), the hash-set lookup a hand-written loop would do. */
#define SL__IN_N 200
#define SL__IN_SLOTS 512
static char sl__in_expr[4096];
static int64_t sl__in_slots[SL__IN_SLOTS];
static uint8_t sl__in_used[SL__IN_SLOTS];

static unsigned sl__in_hash(int64_t x)
{
    return (unsigned)(((uint64_t)x * 0x9E3779B97F4A7C15ull) >> 55); /* 9 bits */
}

static void sl__in_setup(void)
{
    size_t n = (size_t)snprintf(sl__in_expr, sizeof sl__in_expr, "id IN (");
    for (int k = 0; k < SL__IN_N; k++) {
        int64_t v = (int64_t)k * 4999;
        n += (size_t)snprintf(sl__in_expr + n, sizeof sl__in_expr - n, "%s%lld", k ? ", " : "",
                              (long long)v);
        unsigned h = sl__in_hash(v);
        while (sl__in_used[h])
            h = (h + 1) & (SL__IN_SLOTS - 1);
        sl__in_used[h] = 1;
        sl__in_slots[h] = v;
    }
    snprintf(sl__in_expr + n, sizeof sl__in_expr - n, ")");
}

static void sl__ceil_filter3(const sl_chunk *c, uint8_t *sel, sl_chunk *out)
{
    const uint8_t *in = c->cols[0].nulls;
    const int64_t *id = c->cols[0].v.i64;
    long n = 0;
    for (int i = 0; i < c->nrows; i++) {
        uint8_t hit = 0;
        if (!in[i]) {
            for (unsigned h = sl__in_hash(id[i]); sl__in_used[h]; h = (h + 1) & (SL__IN_SLOTS - 1))
                if (sl__in_slots[h] == id[i]) {
                    hit = 1;
                    break;
                }
        }
        sel[i] = hit;
        n += hit;
    }
    sl__sink = n;
}

typedef struct sl__case {
    const char *expr;                                          /* SQL */
    bool filter;                                               /* sl_eval_filter vs sl_eval_into */
    void (*ceiling)(const sl_chunk *, uint8_t *, sl_chunk *); /* hand-written loop */
} sl__case;

static const sl__case sl__cases[] = {
    {"amount > 10 AND campaign LIKE 'a%'", true, sl__ceil_filter1},
    {"id % 7 = 3 OR amount BETWEEN 100 AND 200", true, sl__ceil_filter2},
    {"id * 2 + 1", false, sl__ceil_proj1},
    {"price * 2 + 1", false, sl__ceil_proj2},
    {"CASE WHEN amount > 50 THEN 'high' ELSE 'low' END", false, sl__ceil_proj3},
    {"UPPER(campaign)", false, sl__ceil_proj4},
    {sl__in_expr, true, sl__ceil_filter3}, /* shown as "id IN (200 constants)" */
};

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 0.5;
    sl_chunk *in = sl__make_input();
    sl_type types[NCOLS];
    for (int i = 0; i < NCOLS; i++)
        types[i] = sl__cols[i].type;
    uint8_t sel[ROWS];
    sl_eval_env env = {0};
    sl__in_setup();
    printf("%-52s %14s %14s %7s\n", "expression (1024-row chunks)", "eval rows/s", "ceiling rows/s",
           "ratio");
    for (size_t k = 0; k < SL_ARRAY_LEN(sl__cases); k++) {
        const sl__case *c = &sl__cases[k];
        sl_bexpr *b = sl__bind(c->expr);
        sl_error err = SL_ERROR_INIT;
        sl_eval_prog *p = sl_eval_compile(b, NCOLS, types, &err);
        if (!p) {
            fprintf(stderr, "compile %s: %s\n", c->expr, err.message);
            return 1;
        }
        sl_chunk *out = sl_chunk_new(1, &b->type, ROWS);
        for (int r = 0; r < ROWS; r++)
            sl_chunk_append_row(out, SL_ROW_INSERT);
        /* evaluator */
        long chunks = 0;
        double t0 = sl__now(), t1;
        do {
            for (int rep = 0; rep < 64; rep++) {
                if (!c->filter)
                    sl_arena_reset(&out->arena);
                int rc = c->filter ? sl_eval_filter(p, in, &env, sel, &err)
                                   : sl_eval_into(p, in, &env, out, 0, &err);
                if (rc < 0) {
                    fprintf(stderr, "eval %s: %s\n", c->expr, err.message);
                    return 1;
                }
            }
            chunks += 64;
            t1 = sl__now();
        } while (t1 - t0 < secs);
        double eval_rate = (double)chunks * ROWS / (t1 - t0);
        /* ceiling */
        chunks = 0;
        t0 = sl__now();
        do {
            for (int rep = 0; rep < 64; rep++)
                c->ceiling(in, sel, out);
            chunks += 64;
            t1 = sl__now();
        } while (t1 - t0 < secs);
        double ceil_rate = (double)chunks * ROWS / (t1 - t0);
        printf("%-52s %14.0f %14.0f %7.2f\n", c->expr == sl__in_expr ? "id IN (200 constants)" : c->expr,
               eval_rate, ceil_rate, eval_rate / ceil_rate);
        sl_chunk_free(out);
        sl_eval_free(p);
        sl_bexpr_free(b);
    }
    sl_chunk_free(in);
    return 0;
}
