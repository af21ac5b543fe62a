/*
** bench_join.c — the streaming join operator's throughput, as a ratio to a
** ceiling.
**
** Two generated append-only streams of `rows` rows each (BIGINT key random
** in 1..rows, BIGINT value, VARCHAR(16) payload), interleaved in 1024-row
** chunks of the tagged union the operator reads (sl_join_spec), through an
** INNER regular join on the key (sl_join_new, no condition, no TTL). The
** output rows are counted and a value column summed by the emit callback.
**
** Ceiling: a plain C symmetric hash join over the same rows — an
** open-addressing table of keys, each with a list of row indexes per side;
** a row is appended to its side's list and every row of the other side's
** list is written out (the four values into a 1024-row output buffer). It
** keeps no encoded rows, no strings and no snapshot-able state, so it is
** an upper bound, not a rival.
**
** Printed: input rows per CPU second of each (median of `runs`; CPU time,
** as the machine may be shared), output rows, and the
** ratio operator / ceiling.
**
**   build/release/bench/bench_join [rows] [runs]
*/
#include "sl_exec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SL__MAX_RUNS 15

static double sl__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
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

static uint64_t sl__rs = 88172645463325252ULL;
static uint64_t sl__rnd(void)
{
    sl__rs ^= sl__rs << 13;
    sl__rs ^= sl__rs >> 7;
    sl__rs ^= sl__rs << 17;
    return sl__rs;
}

typedef struct sl__counter {
    int64_t rows; /* output rows */
    int64_t sum;  /* sum of the left value column */
} sl__counter;

static int sl__count(void *ctx, sl_chunk *c, sl_error *err)
{
    (void)err;
    sl__counter *k = ctx;
    k->rows += c->nrows;
    for (int r = 0; r < c->nrows; r++)
        k->sum += c->cols[1].v.i64[r];
    return 0;
}

/* The generated input: side, key, value per row (payload derived). */
typedef struct sl__in {
    int64_t n;      /* rows (both sides) */
    uint8_t *side;  /* 0 / 1 */
    int64_t *key;   /* key */
    int64_t *val;   /* value */
} sl__in;

/* ---- the ceiling ------------------------------------------------------- */

typedef struct sl__ck {
    int64_t key;     /* the key (0: empty slot) */
    int32_t head[2]; /* last row of each side (-1: none) */
} sl__ck;

static int64_t sl__ceiling(const sl__in *in, int64_t *sum)
{
    size_t nslots = 16;
    while (nslots < (size_t)in->n * 2)
        nslots *= 2;
    sl__ck *t = calloc(nslots, sizeof *t);
    int32_t *prev = malloc((size_t)in->n * sizeof *prev);
    int64_t out[4][1024];
    int nout = 0;
    int64_t rows = 0;
    *sum = 0;
    for (int64_t i = 0; i < in->n; i++) {
        int64_t k = in->key[i];
        size_t h = (size_t)((uint64_t)k * 0x9E3779B97F4A7C15ULL) & (nslots - 1);
        while (t[h].key != 0 && t[h].key != k)
            h = (h + 1) & (nslots - 1);
        if (t[h].key == 0) {
            t[h].key = k;
            t[h].head[0] = t[h].head[1] = -1;
        }
        int s = in->side[i];
        prev[i] = t[h].head[s];
        t[h].head[s] = (int32_t)i;
        for (int32_t o = t[h].head[1 - s]; o >= 0; o = prev[o]) {
            int64_t l = s == 0 ? i : o, r = s == 0 ? o : i;
            out[0][nout] = k;
            out[1][nout] = in->val[l];
            out[2][nout] = k;
            out[3][nout] = in->val[r];
            if (++nout == 1024) {
                for (int j = 0; j < nout; j++)
                    *sum += out[1][j];
                rows += nout;
                nout = 0;
            }
        }
    }
    for (int j = 0; j < nout; j++)
        *sum += out[1][j];
    rows += nout;
    free(t);
    free(prev);
    return rows;
}

/* ---- the operator ------------------------------------------------------ */

static int64_t sl__operator(const sl__in *in, int64_t *sum)
{
    sl_type types[8];
    types[0] = sl_type_make(SL_TYPE_INT);
    types[1] = sl_type_make(SL_TYPE_BIGINT);
    for (int s = 0; s < 2; s++) {
        types[2 + 3 * s] = sl_type_make(SL_TYPE_BIGINT);
        types[3 + 3 * s] = sl_type_make(SL_TYPE_BIGINT);
        types[4 + 3 * s] = sl_type_make_p(SL_TYPE_VARCHAR, 16, 0);
    }
    sl_join_spec spec = {0};
    spec.in_ncols = 8;
    spec.in_types = types;
    spec.nkeys = 1;
    spec.nl = spec.nr = 3;
    spec.type = SL_JOIN_INNER;
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    if (sl_join_new(&spec, &op, &err) != 0) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    sl_chunk *c = sl_chunk_new(8, types, SL_CHUNK_ROWS);
    sl__counter k = {0, 0};
    sl_emit em = {sl__count, &k};
    for (int64_t i = 0; i < in->n; i++) {
        int r = sl_chunk_append_row(c, SL_ROW_INSERT);
        int b = 2 + 3 * in->side[i];
        sl_chunk_set_i64(c, 0, r, in->side[i]);
        sl_chunk_set_i64(c, 1, r, in->key[i]);
        sl_chunk_set_i64(c, b, r, in->key[i]);
        sl_chunk_set_i64(c, b + 1, r, in->val[i]);
        char p[16];
        int n = snprintf(p, sizeof p, "payload-%lld", (long long)(in->val[i] % 100000));
        sl_chunk_set_str(c, b + 2, r, p, (size_t)n);
        if (sl_chunk_full(c) || i == in->n - 1) {
            if (op->ops->process(op, c, &em, &err) != 0) {
                fprintf(stderr, "%s\n", err.message);
                exit(1);
            }
            sl_chunk_reset(c);
        }
    }
    sl_chunk_free(c);
    op->ops->free(op);
    *sum = k.sum;
    return k.rows;
}

int main(int argc, char **argv)
{
    int64_t rows = argc > 1 ? atoll(argv[1]) : 1000000;
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    if (rows < 1 || rows > INT32_MAX / 2 || runs < 1 || runs > SL__MAX_RUNS) {
        fprintf(stderr, "usage: bench_join [rows (per side)] [runs <= %d]\n", SL__MAX_RUNS);
        return 2;
    }
    sl__in in = {2 * rows, malloc((size_t)(2 * rows)), malloc((size_t)(2 * rows) * 8),
                 malloc((size_t)(2 * rows) * 8)};
    for (int64_t i = 0; i < in.n; i++) {
        in.side[i] = (uint8_t)(sl__rnd() & 1);
        in.key[i] = 1 + (int64_t)(sl__rnd() % (uint64_t)rows);
        in.val[i] = (int64_t)(sl__rnd() % 1000000);
    }
    double top[SL__MAX_RUNS], tce[SL__MAX_RUNS];
    int64_t out_op = 0, out_ce = 0, sum_op = 0, sum_ce = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = sl__now();
        out_op = sl__operator(&in, &sum_op);
        double t1 = sl__now();
        out_ce = sl__ceiling(&in, &sum_ce);
        double t2 = sl__now();
        top[r] = t1 - t0;
        tce[r] = t2 - t1;
    }
    if (out_op != out_ce || sum_op != sum_ce) {
        fprintf(stderr, "mismatch: operator %lld rows (sum %lld), ceiling %lld rows (sum %lld)\n",
                (long long)out_op, (long long)sum_op, (long long)out_ce, (long long)sum_ce);
        return 1;
    }
    double mo = sl__median(top, runs), mc = sl__median(tce, runs);
    printf("input rows %lld, output rows %lld\n", (long long)in.n, (long long)out_op);
    printf("operator: %.2f M rows/s   ceiling: %.2f M rows/s   ratio %.3f\n", in.n / mo / 1e6,
           in.n / mc / 1e6, mc / mo);
    free(in.side);
    free(in.key);
    free(in.val);
    return 0;
}
