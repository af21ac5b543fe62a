/*
** test_exec_stream_join.c — the streaming join operator
** (exec/op_stream_join.c): the exact changelogs of INNER / LEFT / RIGHT /
** FULL regular joins over interleaved, updating sides (derived from Flink
** 2.2's StreamingJoinOperator: kinds forwarded by INNER, null-padded rows
** retracted at the first association and re-emitted at the last one; two
** changelogs checked against Flink 2.2 run side by side),
** duplicates (multiset counts), NULL keys, a residual condition (over more
** candidates than one batch), TTL with a fake clock; random updating inputs
** whose materialized output equals a brute-force join of the final sides;
** interval joins (both bounds inclusive, cleanup by watermark shrinking the
** state, outer rows emitted null-padded at cleanup, late rows); window
** joins (rows joined when the watermark reaches their window_end, outer
** rows padded once, NULL keys, late rows dropped and counted, the state
** empty after the windows fired); snapshot ->
** restore -> the same further output, deterministic snapshot bytes, and
** corrupt snapshots rejected with XX001, never a crash.
*/
#include "sl_exec.h"
#include "sl_test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NUL INT64_MIN /* a NULL integer */
#define MS 1000000LL  /* ns per ms */

/* Input: side, key, then left (lk, lt, lv), then right (rk, rt, rv). */
enum { NCOLS = 8, NOUT = 6 };
static sl_type types[NCOLS];
static bool long_keys; /* keys are VARCHARs longer than the operator keeps inline */

static void init_types(void)
{
    sl_type kt = long_keys ? sl_type_make_p(SL_TYPE_VARCHAR, 40, 0) : sl_type_make(SL_TYPE_BIGINT);
    types[0] = sl_type_make(SL_TYPE_INT);
    types[1] = kt;
    for (int s = 0; s < 2; s++) {
        types[2 + 3 * s] = kt;
        types[3 + 3 * s] = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
        types[4 + 3 * s] = sl_type_make_p(SL_TYPE_VARCHAR, 10, 0);
    }
}

static int64_t fake_now;
static int64_t fake_clock(void *ctx)
{
    (void)ctx;
    return fake_now;
}

static sl_bexpr *col(int i)
{
    sl_bexpr *b = sl_bexpr_new(SL_BX_COLUMN, types[2 + i], 0);
    b->col = i;
    return b;
}

/* lv <> rv over the output row. */
static sl_bexpr *cond_ne(void)
{
    sl_bexpr *x = sl_bexpr_new(SL_BX_CALL, sl_type_make(SL_TYPE_BOOLEAN), 0);
    x->fn = sl_func_get(SL_FN_NE);
    x->nargs = 2;
    x->args = sl_calloc(2, sizeof(sl_bexpr *));
    x->args[0] = col(2);
    x->args[1] = col(5);
    return x;
}

typedef struct opt {
    const sl_bexpr *cond; /* residual condition */
    int64_t ttl_ms;       /* TTL */
    bool interval;        /* interval join */
    int64_t lower_ms, upper_ms;
    bool window;          /* window join (the time columns: window_end) */
} opt;
static bool nulls_equal; /* make(): the key's NULLs match (IS NOT DISTINCT FROM) */
static bool append_only; /* make(): both inputs insert-only (sl_join_spec.append_only) */

static sl_operator *make(int type, const opt *o)
{
    init_types();
    sl_join_spec spec = {0};
    spec.in_ncols = NCOLS;
    spec.in_types = types;
    spec.nkeys = 1;
    spec.nl = spec.nr = 3;
    spec.type = type;
    spec.now = fake_clock;
    if (o) {
        spec.cond = o->cond;
        spec.ttl_ms = o->ttl_ms;
        spec.interval = o->interval;
        spec.window = o->window;
        spec.ltime = spec.rtime = 1;
        spec.lower_ns = o->lower_ms * MS;
        spec.upper_ns = o->upper_ms * MS;
    }
    spec.nulls_equal = nulls_equal ? 1 : 0;
    spec.append_only[0] = spec.append_only[1] = append_only;
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    if (sl_join_new(&spec, &op, &err) != 0)
        fprintf(stderr, "%s\n", err.message);
    sl_error_reset(&err);
    return op;
}

static bool show_time; /* print the time columns (interval tests) */

/* "+I(lk, lv, rk, rv)" per row (with show_time: "+I(lk, lt, lv, rk, rt, rv)",
** times in ms). */
static int collect(void *ctx, sl_chunk *c, sl_error *err)
{
    (void)err;
    sl_strbuf *sb = ctx;
    REQUIRE(c->ncols == NOUT && c->nrows > 0 && c->nrows <= SL_CHUNK_ROWS);
    for (int r = 0; r < c->nrows; r++) {
        sl_strbuf_append(sb, sl_row_kind_name((sl_row_kind)c->kinds[r]));
        sl_strbuf_append_char(sb, '(');
        for (int i = 0; i < NOUT; i++) {
            if (i % 3 == 1 && !show_time)
                continue;
            if (i)
                sl_strbuf_append(sb, ", ");
            if (c->cols[i].nulls[r])
                sl_strbuf_append(sb, "N");
            else if (i % 3 == 1)
                sl_strbuf_append_i64(sb, c->cols[i].v.i64[r] / MS);
            else
                sl_value_format(sb, &c->cols[i], r);
        }
        sl_strbuf_append(sb, ")\n");
    }
    return 0;
}

/* The text of key k (long_keys: a string of over 16 bytes). */
static const char *kstr(int64_t k)
{
    static char buf[4][48];
    static int at;
    char *b = buf[at++ % 4];
    snprintf(b, 48, long_keys ? "key-%lld-long-enough-to-spill" : "%lld", (long long)k);
    return b;
}

/* Append a row of side s (0 left, 1 right): key k (NUL: NULL), time t_ms
** (NUL: NULL), value v. */
static void row(sl_chunk *c, int s, sl_row_kind kind, int64_t k, int64_t t_ms, const char *v)
{
    int r = sl_chunk_append_row(c, kind);
    sl_chunk_set_i64(c, 0, r, s);
    int b = 2 + 3 * s;
    if (k != NUL && long_keys) {
        const char *ks = kstr(k);
        sl_chunk_set_str(c, 1, r, ks, strlen(ks));
        sl_chunk_set_str(c, b, r, ks, strlen(ks));
    } else if (k != NUL) {
        sl_chunk_set_i64(c, 1, r, k);
        sl_chunk_set_i64(c, b, r, k);
    }
    if (t_ms != NUL)
        sl_chunk_set_i64(c, b + 1, r, t_ms * MS);
    sl_chunk_set_str(c, b + 2, r, v, strlen(v));
}

static sl_chunk *chunk(void)
{
    init_types();
    return sl_chunk_new(NCOLS, types, SL_CHUNK_ROWS);
}

static sl_strbuf outbuf = SL_STRBUF_INIT;

/* Process c (then empty it) and return the output text. */
static const char *run(sl_operator *op, sl_chunk *c)
{
    sl_strbuf_reset(&outbuf);
    sl_emit em = {collect, &outbuf};
    sl_error err = SL_ERROR_INIT;
    int rc = op->ops->process(op, c, &em, &err);
    if (rc != 0)
        fprintf(stderr, "process: %s %s\n", err.sqlstate, err.message);
    CHECK(rc == 0);
    sl_error_reset(&err);
    sl_chunk_reset(c);
    return sl_strbuf_cstr(&outbuf);
}

/* One row through op; its output text. */
static const char *one(sl_operator *op, int s, sl_row_kind kind, int64_t k, const char *v)
{
    sl_chunk *c = chunk();
    row(c, s, kind, k, NUL, v);
    const char *o = run(op, c);
    sl_chunk_free(c);
    return o;
}

/* One interval row; its output text. */
static const char *ione(sl_operator *op, int s, int64_t k, int64_t t_ms, const char *v)
{
    sl_chunk *c = chunk();
    row(c, s, SL_ROW_INSERT, k, t_ms, v);
    const char *o = run(op, c);
    sl_chunk_free(c);
    return o;
}

static const char *adv(sl_operator *op, int64_t wm_ms)
{
    sl_strbuf_reset(&outbuf);
    sl_emit em = {collect, &outbuf};
    sl_error err = SL_ERROR_INIT;
    int rc = op->ops->watermark(op, wm_ms == INT64_MAX ? INT64_MAX : wm_ms * MS, &em, &err);
    CHECK(rc == 0);
    sl_error_reset(&err);
    return sl_strbuf_cstr(&outbuf);
}

static void snap(sl_operator *op, sl_strbuf *sb)
{
    sl_strbuf_reset(sb);
    sl_error err = SL_ERROR_INIT;
    CHECK(op->ops->snapshot(op, sb, &err) == 0);
    sl_error_reset(&err);
}

enum { L = 0, R = 1 };
#define I SL_ROW_INSERT
#define UB SL_ROW_UPDATE_BEFORE
#define UA SL_ROW_UPDATE_AFTER
#define D SL_ROW_DELETE

/* INNER: +I per match, retractions per match, +U/-U forwarded. */
static void t_inner(void)
{
    show_time = false;
    sl_operator *op = make(SL_JOIN_INNER, NULL);
    REQUIRE(op);
    CHECK_STR(one(op, L, I, 1, "a"), "");
    CHECK_STR(one(op, R, I, 1, "x"), "+I(1, a, 1, x)\n");
    CHECK_STR(one(op, L, I, 1, "b"), "+I(1, b, 1, x)\n");
    CHECK_STR(one(op, R, I, 2, "y"), "");
    CHECK_STR(one(op, R, I, 1, "z"), "+I(1, a, 1, z)\n+I(1, b, 1, z)\n");
    CHECK_STR(one(op, R, D, 1, "x"), "-D(1, a, 1, x)\n-D(1, b, 1, x)\n");
    CHECK_STR(one(op, L, UB, 1, "a"), "-U(1, a, 1, z)\n");
    CHECK_STR(one(op, L, UA, 1, "c"), "+U(1, c, 1, z)\n");
    CHECK_STR(one(op, L, I, 2, "d"), "+I(2, d, 2, y)\n");
    /* retracting a row that is not there still retracts its matches (Flink) */
    CHECK_STR(one(op, L, D, 2, "q"), "-D(2, q, 2, y)\n");
    CHECK_STR(one(op, R, D, 1, "z"), "-D(1, b, 1, z)\n-D(1, c, 1, z)\n");
    CHECK_INT(op->ops->late_rows(op), 0);
    op->ops->free(op);
}

/* LEFT: the padded row is retracted at the first match and comes back
** after the last; an updating inner side forwards -U, then +I padded. */
static void t_left(void)
{
    show_time = false;
    sl_operator *op = make(SL_JOIN_LEFT, NULL);
    REQUIRE(op);
    CHECK_STR(one(op, L, I, 1, "a"), "+I(1, a, N, N)\n");
    CHECK_STR(one(op, R, I, 1, "x"), "-D(1, a, N, N)\n+I(1, a, 1, x)\n");
    CHECK_STR(one(op, R, I, 1, "y"), "+I(1, a, 1, y)\n");
    CHECK_STR(one(op, R, D, 1, "x"), "-D(1, a, 1, x)\n");
    CHECK_STR(one(op, R, D, 1, "y"), "-D(1, a, 1, y)\n+I(1, a, N, N)\n");
    CHECK_STR(one(op, L, D, 1, "a"), "-D(1, a, N, N)\n");
    CHECK_STR(one(op, R, I, 2, "q"), "");
    CHECK_STR(one(op, L, I, 2, "b"), "+I(2, b, 2, q)\n");
    CHECK_STR(one(op, R, UB, 2, "q"), "-U(2, b, 2, q)\n+I(2, b, N, N)\n");
    CHECK_STR(one(op, R, UA, 2, "r"), "-D(2, b, N, N)\n+I(2, b, 2, r)\n");
    /* an outer-side update: -D joined, then +I joined (kinds not forwarded) */
    CHECK_STR(one(op, L, UB, 2, "b"), "-D(2, b, 2, r)\n");
    CHECK_STR(one(op, L, UA, 2, "c"), "+I(2, c, 2, r)\n");
    op->ops->free(op);
}

static void t_right(void)
{
    show_time = false;
    sl_operator *op = make(SL_JOIN_RIGHT, NULL);
    REQUIRE(op);
    CHECK_STR(one(op, R, I, 1, "x"), "+I(N, N, 1, x)\n");
    CHECK_STR(one(op, L, I, 1, "a"), "-D(N, N, 1, x)\n+I(1, a, 1, x)\n");
    CHECK_STR(one(op, L, I, 1, "b"), "+I(1, b, 1, x)\n");
    CHECK_STR(one(op, L, D, 1, "a"), "-D(1, a, 1, x)\n");
    CHECK_STR(one(op, L, UB, 1, "b"), "-U(1, b, 1, x)\n+I(N, N, 1, x)\n");
    CHECK_STR(one(op, L, I, 3, "c"), "");
    CHECK_STR(one(op, R, D, 1, "x"), "-D(N, N, 1, x)\n");
    op->ops->free(op);
}

static void t_full(void)
{
    show_time = false;
    sl_operator *op = make(SL_JOIN_FULL, NULL);
    REQUIRE(op);
    CHECK_STR(one(op, L, I, 1, "a"), "+I(1, a, N, N)\n");
    CHECK_STR(one(op, R, I, 1, "x"), "-D(1, a, N, N)\n+I(1, a, 1, x)\n");
    CHECK_STR(one(op, L, I, 1, "b"), "+I(1, b, 1, x)\n");
    CHECK_STR(one(op, R, I, 1, "y"), "+I(1, a, 1, y)\n+I(1, b, 1, y)\n");
    CHECK_STR(one(op, L, D, 1, "a"), "-D(1, a, 1, x)\n-D(1, a, 1, y)\n");
    CHECK_STR(one(op, L, UB, 1, "b"), "-D(1, b, 1, x)\n+I(N, N, 1, x)\n-D(1, b, 1, y)\n"
                                      "+I(N, N, 1, y)\n");
    CHECK_STR(one(op, L, UA, 1, "c"), "-D(N, N, 1, x)\n+I(1, c, 1, x)\n-D(N, N, 1, y)\n"
                                      "+I(1, c, 1, y)\n");
    CHECK_STR(one(op, R, D, 1, "x"), "-D(1, c, 1, x)\n");
    CHECK_STR(one(op, R, D, 1, "y"), "-D(1, c, 1, y)\n+I(1, c, N, N)\n");
    CHECK_STR(one(op, R, D, 2, "z"), "-D(N, N, 2, z)\n");
    op->ops->free(op);
}

/* Flink 2.2 side by side (its peer, parallelism 1): l = SELECT id % 2 AS k,
** COUNT(*) AS c FROM datagen ids 1..4 GROUP BY id % 2 (+I(1,1) +I(0,1)
** -U(1,1) +U(1,2) -U(0,1) +U(0,2)), r = rows (1,x) (1,y), in the order
** Flink's join received them. Flink printed the same changelogs, but for
** the order of several matches of one input row (it iterates its state's
** hash map; here the arrival order): LEFT JOIN
**   +I(1,1,N) +I(0,1,N) -D(1,1,N) +I(1,1,x) +I(1,1,y) -D(1,1,y) -D(1,1,x)
**   +I(1,2,y) +I(1,2,x) -D(0,1,N) +I(0,2,N)
** and JOIN (r first) +I(1,1,y) +I(1,1,x) -U(1,1,y) -U(1,1,x) +U(1,2,y)
** +U(1,2,x). Here lv holds c as text. */
static void t_flink_peer(void)
{
    show_time = false;
    sl_operator *op = make(SL_JOIN_LEFT, NULL);
    REQUIRE(op);
    CHECK_STR(one(op, L, I, 1, "1"), "+I(1, 1, N, N)\n");
    CHECK_STR(one(op, L, I, 0, "1"), "+I(0, 1, N, N)\n");
    CHECK_STR(one(op, R, I, 1, "x"), "-D(1, 1, N, N)\n+I(1, 1, 1, x)\n");
    CHECK_STR(one(op, R, I, 1, "y"), "+I(1, 1, 1, y)\n");
    CHECK_STR(one(op, L, UB, 1, "1"), "-D(1, 1, 1, x)\n-D(1, 1, 1, y)\n");
    CHECK_STR(one(op, L, UA, 1, "2"), "+I(1, 2, 1, x)\n+I(1, 2, 1, y)\n");
    CHECK_STR(one(op, L, UB, 0, "1"), "-D(0, 1, N, N)\n");
    CHECK_STR(one(op, L, UA, 0, "2"), "+I(0, 2, N, N)\n");
    op->ops->free(op);
    op = make(SL_JOIN_INNER, NULL);
    REQUIRE(op);
    CHECK_STR(one(op, R, I, 1, "x"), "");
    CHECK_STR(one(op, R, I, 1, "y"), "");
    CHECK_STR(one(op, L, I, 1, "1"), "+I(1, 1, 1, x)\n+I(1, 1, 1, y)\n");
    CHECK_STR(one(op, L, I, 0, "1"), "");
    CHECK_STR(one(op, L, UB, 1, "1"), "-U(1, 1, 1, x)\n-U(1, 1, 1, y)\n");
    CHECK_STR(one(op, L, UA, 1, "2"), "+U(1, 2, 1, x)\n+U(1, 2, 1, y)\n");
    CHECK_STR(one(op, L, UB, 0, "1"), "");
    CHECK_STR(one(op, L, UA, 0, "2"), "");
    op->ops->free(op);
}

/* Equal rows are a multiset: each copy joins, each retraction removes one. */
static void t_duplicates(void)
{
    show_time = false;
    sl_operator *op = make(SL_JOIN_LEFT, NULL);
    REQUIRE(op);
    CHECK_STR(one(op, L, I, 1, "a"), "+I(1, a, N, N)\n");
    CHECK_STR(one(op, L, I, 1, "a"), "+I(1, a, N, N)\n");
    CHECK_STR(one(op, R, I, 1, "x"), "-D(1, a, N, N)\n+I(1, a, 1, x)\n-D(1, a, N, N)\n"
                                     "+I(1, a, 1, x)\n");
    CHECK_STR(one(op, R, I, 1, "x"), "+I(1, a, 1, x)\n+I(1, a, 1, x)\n");
    CHECK_STR(one(op, L, D, 1, "a"), "-D(1, a, 1, x)\n-D(1, a, 1, x)\n");
    CHECK_STR(one(op, R, D, 1, "x"), "-D(1, a, 1, x)\n");
    CHECK_STR(one(op, R, D, 1, "x"), "-D(1, a, 1, x)\n+I(1, a, N, N)\n");
    op->ops->free(op);
    op = make(SL_JOIN_INNER, NULL);
    REQUIRE(op);
    CHECK_STR(one(op, R, I, 1, "x"), "");
    CHECK_STR(one(op, R, I, 1, "x"), "");
    CHECK_STR(one(op, L, I, 1, "a"), "+I(1, a, 1, x)\n+I(1, a, 1, x)\n");
    CHECK_STR(one(op, R, D, 1, "x"), "-D(1, a, 1, x)\n");
    CHECK_STR(one(op, L, I, 1, "a"), "+I(1, a, 1, x)\n");
    op->ops->free(op);
}

/* NULL keys never match: padded on an outer side, nothing on an inner
** one, and nothing kept. */
static void t_null_keys(void)
{
    show_time = false;
    sl_strbuf empty = SL_STRBUF_INIT, s = SL_STRBUF_INIT;
    sl_operator *op = make(SL_JOIN_LEFT, NULL);
    REQUIRE(op);
    snap(op, &empty);
    CHECK_STR(one(op, L, I, NUL, "a"), "+I(N, a, N, N)\n");
    CHECK_STR(one(op, R, I, NUL, "x"), "");
    CHECK_STR(one(op, L, I, NUL, "b"), "+I(N, b, N, N)\n");
    CHECK_STR(one(op, L, D, NUL, "a"), "-D(N, a, N, N)\n");
    snap(op, &s);
    CHECK(s.len == empty.len && memcmp(s.buf, empty.buf, s.len) == 0);
    op->ops->free(op);
    op = make(SL_JOIN_FULL, NULL);
    REQUIRE(op);
    CHECK_STR(one(op, L, I, NUL, "a"), "+I(N, a, N, N)\n");
    CHECK_STR(one(op, R, I, NUL, "x"), "+I(N, N, N, x)\n");
    CHECK_STR(one(op, R, UB, NUL, "x"), "-D(N, N, N, x)\n");
    op->ops->free(op);
    sl_strbuf_free(&empty);
    sl_strbuf_free(&s);
}

/* A key of IS NOT DISTINCT FROM (nulls_equal): a NULL key is a key like
** any other, kept and matched, also after snapshot -> restore; the spec is
** refused for an interval or window join. */
static void t_null_safe_keys(void)
{
    show_time = false;
    nulls_equal = true;
    sl_operator *op = make(SL_JOIN_LEFT, NULL);
    REQUIRE(op);
    CHECK_STR(one(op, L, I, NUL, "a"), "+I(N, a, N, N)\n");
    CHECK_STR(one(op, R, I, NUL, "x"), "-D(N, a, N, N)\n+I(N, a, N, x)\n");
    CHECK_STR(one(op, R, I, 1, "y"), "");
    CHECK_STR(one(op, L, I, 1, "b"), "+I(1, b, 1, y)\n");
    sl_strbuf s = SL_STRBUF_INIT;
    snap(op, &s);
    op->ops->free(op);
    op = make(SL_JOIN_LEFT, NULL);
    REQUIRE(op);
    sl_error err = SL_ERROR_INIT;
    CHECK(op->ops->restore(op, s.buf, s.len, &err) == 0);
    sl_error_reset(&err);
    CHECK_STR(one(op, R, I, NUL, "z"), "+I(N, a, N, z)\n");
    CHECK_STR(one(op, L, I, NUL, "c"), "+I(N, c, N, x)\n+I(N, c, N, z)\n");
    CHECK_STR(one(op, R, D, NUL, "x"), "-D(N, a, N, x)\n-D(N, c, N, x)\n");
    CHECK_STR(one(op, L, D, NUL, "a"), "-D(N, a, N, z)\n");
    op->ops->free(op);
    opt io = {NULL, 0, true, -1, 1, false};
    CHECK(make(SL_JOIN_INNER, &io) == NULL);
    /* without nulls_equal the restored NULL key is refused */
    nulls_equal = false;
    op = make(SL_JOIN_LEFT, NULL);
    REQUIRE(op);
    CHECK(op->ops->restore(op, s.buf, s.len, &err) != 0);
    CHECK_STR(err.sqlstate, "XX001");
    sl_error_reset(&err);
    op->ops->free(op);
    sl_strbuf_free(&s);
}

/* A residual condition decides matches (and so the padded rows); more
** candidates than one evaluation batch. */
static void t_cond(void)
{
    show_time = false;
    init_types();
    sl_bexpr *cond = cond_ne();
    opt o = {cond, 0, false, 0, 0, false};
    sl_operator *op = make(SL_JOIN_LEFT, &o);
    REQUIRE(op);
    CHECK_STR(one(op, L, I, 1, "a"), "+I(1, a, N, N)\n");
    CHECK_STR(one(op, R, I, 1, "a"), "");
    CHECK_STR(one(op, R, I, 1, "b"), "-D(1, a, N, N)\n+I(1, a, 1, b)\n");
    CHECK_STR(one(op, L, I, 1, "b"), "+I(1, b, 1, a)\n");
    CHECK_STR(one(op, R, D, 1, "b"), "-D(1, a, 1, b)\n+I(1, a, N, N)\n");
    op->ops->free(op);
    /* 2500 right rows under one key, every third equal to the left value */
    op = make(SL_JOIN_INNER, &o);
    REQUIRE(op);
    sl_chunk *c = chunk();
    for (int i = 0; i < 2500; i++) {
        if (sl_chunk_full(c))
            run(op, c);
        char v[8];
        snprintf(v, sizeof v, "%s%d", i % 3 ? "v" : "", i % 3 ? i : 0);
        row(c, R, I, 7, NUL, i % 3 ? v : "m");
    }
    run(op, c);
    const char *text = one(op, L, I, 7, "m");
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    CHECK_INT(lines, 2500 - 834); /* 834 multiples of 3 below 2500 */
    CHECK(strstr(text, "+I(7, m, 7, v1)\n+I(7, m, 7, v2)\n+I(7, m, 7, v4)\n") == text);
    /* one input row with 2500 matches: output chunks of at most 1024 rows */
    text = one(op, L, I, 7, "z");
    lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    CHECK_INT(lines, 2500);
    op->ops->free(op);
    sl_chunk_free(c);
    sl_bexpr_free(cond);
}

/* TTL: a row not written for ttl is forgotten; changing its associations
** is a write. */
static void t_ttl(void)
{
    show_time = false;
    opt o = {NULL, 1000, false, 0, 0, false};
    fake_now = 0;
    sl_operator *op = make(SL_JOIN_INNER, &o);
    REQUIRE(op);
    CHECK_STR(one(op, L, I, 1, "a"), "");
    fake_now = 500 * MS;
    CHECK_STR(one(op, R, I, 1, "x"), "+I(1, a, 1, x)\n");
    fake_now = 1000 * MS; /* a expired (written at 0), x alive */
    CHECK_STR(one(op, R, I, 1, "y"), "");
    CHECK_STR(one(op, L, I, 1, "b"), "+I(1, b, 1, x)\n+I(1, b, 1, y)\n");
    fake_now = 1600 * MS; /* x expired, y and b alive */
    CHECK_STR(one(op, L, I, 1, "c"), "+I(1, c, 1, y)\n");
    fake_now = 10000 * MS; /* everything gone: the snapshot holds no key */
    sl_strbuf s = SL_STRBUF_INIT, e = SL_STRBUF_INIT;
    snap(op, &s);
    op->ops->free(op);
    op = make(SL_JOIN_INNER, &o);
    snap(op, &e);
    CHECK(s.len == e.len && memcmp(s.buf, e.buf, s.len) == 0);
    op->ops->free(op);
    /* LEFT: the right row's arrival rewrites a's associations at 900 */
    fake_now = 0;
    op = make(SL_JOIN_LEFT, &o);
    CHECK_STR(one(op, L, I, 1, "a"), "+I(1, a, N, N)\n");
    fake_now = 900 * MS;
    CHECK_STR(one(op, R, I, 1, "x"), "-D(1, a, N, N)\n+I(1, a, 1, x)\n");
    fake_now = 1500 * MS;
    CHECK_STR(one(op, R, I, 1, "y"), "+I(1, a, 1, y)\n");
    fake_now = 2400 * MS; /* a last written at 1500 (y's association): alive */
    CHECK_STR(one(op, R, I, 1, "z"), "+I(1, a, 1, z)\n");
    fake_now = 3400 * MS; /* a last written at 2400 (z's): gone */
    CHECK_STR(one(op, R, I, 1, "w"), "");
    op->ops->free(op);
    sl_strbuf_free(&s);
    sl_strbuf_free(&e);
}

/* ---- random inputs ----------------------------------------------------- */

static uint64_t rs = 88172645463325252ULL;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

/* A random valid updating changelog of both sides: n rows; each retraction
** removes a row added before. Rows go to c_parts[i] for i = row / per. */
typedef struct rrow {
    int side;
    int64_t k;
    char v[4];
    sl_row_kind kind;
} rrow;

static int gen(rrow *rows, int n, bool nulls)
{
    rrow live[2][64];
    int nlive[2] = {0, 0};
    for (int i = 0; i < n; i++) {
        int s = (int)(rnd() % 2);
        rrow *r = &rows[i];
        r->side = s;
        if (nlive[s] > 0 && (rnd() % 3 == 0 || nlive[s] == 64)) {
            int p = (int)(rnd() % (uint64_t)nlive[s]);
            *r = live[s][p];
            r->kind = rnd() % 2 ? SL_ROW_DELETE : SL_ROW_UPDATE_BEFORE;
            live[s][p] = live[s][--nlive[s]];
            continue;
        }
        r->k = nulls && rnd() % 9 == 0 ? NUL : (int64_t)(rnd() % 5);
        snprintf(r->v, sizeof r->v, "%c", (char)('a' + rnd() % 4));
        r->kind = rnd() % 2 ? SL_ROW_INSERT : SL_ROW_UPDATE_AFTER;
        live[s][nlive[s]++] = *r;
    }
    return n;
}

/* Feed rows[from..to) to op in chunks of up to 7 rows; output appended to sb. */
static void feed(sl_operator *op, const rrow *rows, int from, int to, sl_strbuf *sb)
{
    sl_chunk *c = chunk();
    for (int i = from; i < to; i++) {
        row(c, rows[i].side, rows[i].kind, rows[i].k, NUL, rows[i].v);
        if (c->nrows == 7 || i == to - 1) {
            sl_strbuf_append(sb, run(op, c));
        }
    }
    sl_chunk_free(c);
}

/* Materialize a changelog text into a sorted multiset of rows ("+I"/"+U"
** add, "-U"/"-D" remove one): false when a removal finds nothing. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool materialize(const char *text, sl_strbuf *res)
{
    char *rowsv[8192];
    int n = 0;
    bool ok = true;
    char *copy = sl_strdup(text), *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '+') {
            REQUIRE(n < 8192);
            rowsv[n++] = line + 2;
            continue;
        }
        int at = -1;
        for (int i = 0; i < n && at < 0; i++)
            if (strcmp(rowsv[i], line + 2) == 0)
                at = i;
        if (at < 0)
            ok = false;
        else
            rowsv[at] = rowsv[--n];
    }
    qsort(rowsv, (size_t)n, sizeof *rowsv, cmp_str);
    sl_strbuf_reset(res);
    for (int i = 0; i < n; i++) {
        sl_strbuf_append(res, rowsv[i]);
        sl_strbuf_append_char(res, '\n');
    }
    sl_free(copy);
    return ok;
}

/* The join of the final sides, brute force, sorted like materialize(). */
static void reference(const rrow *rows, int n, int type, bool cond, sl_strbuf *res)
{
    rrow side[2][512];
    int ns[2] = {0, 0};
    for (int i = 0; i < n; i++) {
        const rrow *r = &rows[i];
        if (r->kind == SL_ROW_INSERT || r->kind == SL_ROW_UPDATE_AFTER) {
            side[r->side][ns[r->side]++] = *r;
            continue;
        }
        for (int j = 0; j < ns[r->side]; j++)
            if (side[r->side][j].k == r->k && strcmp(side[r->side][j].v, r->v) == 0) {
                side[r->side][j] = side[r->side][--ns[r->side]];
                break;
            }
    }
    static char *lines[8192];
    int nl = 0;
    char buf[128];
    bool rmatched[512] = {0};
    for (int a = 0; a < ns[0]; a++) {
        const rrow *l = &side[0][a];
        bool hit = false;
        for (int b = 0; b < ns[1]; b++) {
            const rrow *r = &side[1][b];
            if (l->k == NUL || r->k != l->k || (cond && strcmp(l->v, r->v) == 0))
                continue;
            hit = rmatched[b] = true;
            snprintf(buf, sizeof buf, "(%s, %s, %s, %s)", kstr(l->k), l->v, kstr(r->k), r->v);
            lines[nl++] = sl_strdup(buf);
        }
        if (!hit && (type == SL_JOIN_LEFT || type == SL_JOIN_FULL)) {
            if (l->k == NUL)
                snprintf(buf, sizeof buf, "(N, %s, N, N)", l->v);
            else
                snprintf(buf, sizeof buf, "(%s, %s, N, N)", kstr(l->k), l->v);
            lines[nl++] = sl_strdup(buf);
        }
    }
    for (int b = 0; b < ns[1] && (type == SL_JOIN_RIGHT || type == SL_JOIN_FULL); b++) {
        if (rmatched[b])
            continue;
        const rrow *r = &side[1][b];
        if (r->k == NUL)
            snprintf(buf, sizeof buf, "(N, N, N, %s)", r->v);
        else
            snprintf(buf, sizeof buf, "(N, N, %s, %s)", kstr(r->k), r->v);
        lines[nl++] = sl_strdup(buf);
    }
    qsort(lines, (size_t)nl, sizeof *lines, cmp_str);
    sl_strbuf_reset(res);
    for (int i = 0; i < nl; i++) {
        sl_strbuf_append(res, lines[i]);
        sl_strbuf_append_char(res, '\n');
        sl_free(lines[i]);
    }
}

/* Random updating inputs, each join type, with and without a condition:
** the materialized changelog equals the join of the final sides, after
** every prefix of 50 rows; snapshot -> restore in the middle gives the same
** further output as the uninterrupted operator. */
static void t_random(void)
{
    show_time = false;
    init_types();
    sl_bexpr *cond = cond_ne();
    enum { N = 400 };
    static rrow rows[N];
    sl_strbuf got = SL_STRBUF_INIT, want = SL_STRBUF_INIT, text = SL_STRBUF_INIT,
              text2 = SL_STRBUF_INIT, s = SL_STRBUF_INIT, s2 = SL_STRBUF_INIT,
              mat = SL_STRBUF_INIT;
    for (int round = 0; round < 20; round++) {
        int type = round % 4;
        bool withcond = round / 4 % 2 == 1;
        long_keys = round >= 16; /* keys kept in the byte store, not inline */
        opt o = {withcond ? cond : NULL, 0, false, 0, 0, false};
        gen(rows, N, round >= 8);
        sl_operator *a = make(type, &o), *b = make(type, &o);
        REQUIRE(a && b);
        sl_strbuf_reset(&text);
        for (int at = 0; at < N; at += 50) {
            feed(a, rows, at, at + 50, &text);
            CHECK(materialize(sl_strbuf_cstr(&text), &got));
            reference(rows, at + 50, type, withcond, &want);
            CHECK_STR(sl_strbuf_cstr(&got), sl_strbuf_cstr(&want));
        }
        /* b: the first half, a snapshot, a restore into c, the second half */
        sl_strbuf_reset(&text2);
        feed(b, rows, 0, N / 2, &text2);
        snap(b, &s);
        sl_operator *c = make(type, &o);
        sl_error err = SL_ERROR_INIT;
        CHECK(c->ops->restore(c, s.buf, s.len, &err) == 0);
        sl_error_reset(&err);
        snap(c, &s2);
        CHECK(s.len == s2.len && memcmp(s.buf, s2.buf, s.len) == 0);
        size_t half = text2.len;
        feed(c, rows, N / 2, N, &text2);
        CHECK(text2.len == text.len && memcmp(text.buf, text2.buf, text.len) == 0);
        (void)half;
        /* and the uninterrupted b gives the same bytes as a */
        feed(b, rows, N / 2, N, &mat);
        snap(a, &s);
        snap(b, &s2);
        CHECK(s.len == s2.len && memcmp(s.buf, s2.buf, s.len) == 0);
        sl_strbuf_reset(&mat);
        a->ops->free(a);
        b->ops->free(b);
        c->ops->free(c);
    }
    long_keys = false;
    sl_bexpr_free(cond);
    sl_strbuf_free(&got);
    sl_strbuf_free(&want);
    sl_strbuf_free(&text);
    sl_strbuf_free(&text2);
    sl_strbuf_free(&s);
    sl_strbuf_free(&s2);
    sl_strbuf_free(&mat);
}

/* Insert-only inputs (no record table: equal rows are records of their
** own): every join type against the reference, duplicates included, and
** through a snapshot and restore; a retraction there is XX000. */
static void t_append_only(void)
{
    show_time = false;
    init_types();
    enum { N = 400 };
    static rrow rows[N];
    sl_strbuf got = SL_STRBUF_INIT, want = SL_STRBUF_INIT, text = SL_STRBUF_INIT,
              text2 = SL_STRBUF_INIT, s = SL_STRBUF_INIT;
    append_only = true;
    for (int round = 0; round < 8; round++) {
        int type = round % 4;
        gen(rows, N, round >= 4);
        for (int i = 0; i < N; i++) /* a retraction's row again: a duplicate */
            rows[i].kind = SL_ROW_INSERT;
        sl_operator *a = make(type, NULL), *b = make(type, NULL);
        REQUIRE(a && b);
        sl_strbuf_reset(&text);
        for (int at = 0; at < N; at += 50) {
            feed(a, rows, at, at + 50, &text);
            CHECK(materialize(sl_strbuf_cstr(&text), &got));
            reference(rows, at + 50, type, false, &want);
            CHECK_STR(sl_strbuf_cstr(&got), sl_strbuf_cstr(&want));
        }
        sl_strbuf_reset(&text2);
        feed(b, rows, 0, N / 2, &text2);
        snap(b, &s);
        sl_operator *c = make(type, NULL);
        sl_error err = SL_ERROR_INIT;
        CHECK(c->ops->restore(c, s.buf, s.len, &err) == 0);
        sl_error_reset(&err);
        feed(c, rows, N / 2, N, &text2);
        CHECK(materialize(sl_strbuf_cstr(&text2), &got));
        CHECK_STR(sl_strbuf_cstr(&got), sl_strbuf_cstr(&want));
        a->ops->free(a);
        b->ops->free(b);
        c->ops->free(c);
    }
    sl_operator *op = make(SL_JOIN_INNER, NULL);
    REQUIRE(op);
    one(op, L, I, 1, "a");
    sl_chunk *ch = chunk();
    row(ch, L, D, 1, NUL, "a");
    sl_emit out = {collect, &text};
    sl_error err = SL_ERROR_INIT;
    CHECK(op->ops->process(op, ch, &out, &err) == -1);
    CHECK_STR(err.sqlstate, SL_ERR_INTERNAL);
    sl_error_reset(&err);
    sl_chunk_free(ch);
    op->ops->free(op);
    append_only = false;
    sl_strbuf_free(&got);
    sl_strbuf_free(&want);
    sl_strbuf_free(&text);
    sl_strbuf_free(&text2);
    sl_strbuf_free(&s);
}

/* The same state reached through different histories gives the same
** snapshot bytes (keys in byte order, dead records and empty keys left
** out). */
static void snapshot_deterministic(void)
{
    show_time = false;
    sl_strbuf s1 = SL_STRBUF_INIT, s2 = SL_STRBUF_INIT;
    sl_operator *a = make(SL_JOIN_FULL, NULL), *b = make(SL_JOIN_FULL, NULL);
    REQUIRE(a && b);
    one(a, L, I, 1, "a");
    one(a, L, I, 2, "b");
    one(a, R, I, 9, "q");
    one(b, R, I, 5, "z");
    one(b, L, I, 2, "b");
    one(b, L, I, 1, "a");
    one(b, R, I, 9, "q");
    one(b, R, D, 5, "z");
    snap(a, &s1);
    snap(b, &s2);
    CHECK(s1.len == s2.len && memcmp(s1.buf, s2.buf, s1.len) == 0);
    /* many keys, compaction on the way */
    sl_operator *c = make(SL_JOIN_INNER, NULL), *d = make(SL_JOIN_INNER, NULL);
    sl_chunk *ch = chunk();
    for (int i = 0; i < 5000; i++) {
        row(ch, L, I, i, NUL, "v");
        if (sl_chunk_full(ch))
            run(c, ch);
    }
    run(c, ch);
    for (int i = 0; i < 4990; i++) {
        row(ch, L, D, i, NUL, "v");
        if (sl_chunk_full(ch))
            run(c, ch);
    }
    run(c, ch);
    for (int i = 4999; i >= 4990; i--)
        row(ch, L, I, i, NUL, "v");
    run(d, ch);
    snap(c, &s1);
    snap(d, &s2);
    CHECK(s1.len == s2.len && memcmp(s1.buf, s2.buf, s1.len) == 0);
    char want[160];
    snprintf(want, sizeof want, "+I(%s, v, %s, r)\n", kstr(4995), kstr(4995));
    CHECK_STR(one(c, R, I, 4995, "r"), want);
    CHECK_STR(one(c, R, I, 17, "r"), "");
    sl_chunk_free(ch);
    a->ops->free(a);
    b->ops->free(b);
    c->ops->free(c);
    d->ops->free(d);
    sl_strbuf_free(&s1);
    sl_strbuf_free(&s2);
}

static void t_snapshot_deterministic(void)
{
    snapshot_deterministic();
    long_keys = true;
    snapshot_deterministic();
    long_keys = false;
}

/* No equality keys (a join on a condition alone): every row is under the
** one empty key; the condition decides. */
static void t_no_keys(void)
{
    init_types();
    sl_type t[7] = {types[0], types[2], types[3], types[4], types[5], types[6], types[7]};
    sl_bexpr *cond = cond_ne();
    sl_join_spec spec = {0};
    spec.in_ncols = 7;
    spec.in_types = t;
    spec.nkeys = 0;
    spec.nl = spec.nr = 3;
    spec.type = SL_JOIN_LEFT;
    spec.cond = cond;
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_join_new(&spec, &op, &err) == 0);
    sl_chunk *c = sl_chunk_new(7, t, SL_CHUNK_ROWS);
    const char *in[][3] = {{"0", "1", "a"}, {"1", "2", "a"}, {"1", "3", "b"}, {"0", "4", "b"}};
    for (int i = 0; i < 4; i++) {
        int r = sl_chunk_append_row(c, SL_ROW_INSERT);
        int s = in[i][0][0] - '0';
        sl_chunk_set_i64(c, 0, r, s);
        sl_chunk_set_i64(c, 1 + 3 * s, r, atoi(in[i][1]));
        sl_chunk_set_str(c, 3 + 3 * s, r, in[i][2], 1);
    }
    show_time = false;
    CHECK_STR(run(op, c), "+I(1, a, N, N)\n-D(1, a, N, N)\n+I(1, a, 3, b)\n+I(4, b, 2, a)\n");
    sl_strbuf sb = SL_STRBUF_INIT;
    snap(op, &sb);
    sl_operator *b = NULL;
    REQUIRE(sl_join_new(&spec, &b, &err) == 0);
    CHECK(b->ops->restore(b, sb.buf, sb.len, &err) == 0);
    int r = sl_chunk_append_row(c, SL_ROW_DELETE);
    sl_chunk_set_i64(c, 0, r, 1);
    sl_chunk_set_i64(c, 4, r, 3);
    sl_chunk_set_str(c, 6, r, "b", 1);
    CHECK_STR(run(b, c), "-D(1, a, 3, b)\n+I(1, a, N, N)\n");
    sl_error_reset(&err);
    sl_strbuf_free(&sb);
    sl_chunk_free(c);
    op->ops->free(op);
    b->ops->free(b);
    sl_bexpr_free(cond);
}

/* ---- interval joins ---------------------------------------------------- */

/* l.t - r.t in [-1000, 2000] ms, both ends inclusive; rows dropped once
** the watermark passes their bound, and the state shrinks. */
static void t_interval_bounds(void)
{
    show_time = true;
    opt o = {NULL, 0, true, -1000, 2000, false};
    sl_operator *op = make(SL_JOIN_INNER, &o);
    REQUIRE(op);
    sl_strbuf s0 = SL_STRBUF_INIT, s = SL_STRBUF_INIT;
    snap(op, &s0);
    CHECK_STR(ione(op, L, 1, 5000, "a"), "");
    CHECK_STR(ione(op, R, 1, 3000, "x"), "+I(1, 5000, a, 1, 3000, x)\n");
    CHECK_STR(ione(op, R, 1, 6000, "y"), "+I(1, 5000, a, 1, 6000, y)\n");
    CHECK_STR(ione(op, R, 1, 2999, "n1"), "");
    CHECK_STR(ione(op, R, 1, 6001, "n2"), "");
    CHECK_STR(ione(op, R, 2, 5000, "n3"), "");
    CHECK_STR(ione(op, L, 1, 4000, "b"), "+I(1, 4000, b, 1, 3000, x)\n"
                                         "+I(1, 4000, b, 1, 2999, n1)\n");
    CHECK_STR(adv(op, 5000), "");
    snap(op, &s);
    size_t before = s.len;
    /* bounds: left t+1000 (a 6000, b 5000), right s+2000 (x 5000, n1 4999,
    ** y 8000, n2 8001, n3 7000); T = 6001 drops a, b, x, n1 */
    CHECK_STR(adv(op, 6001), "");
    snap(op, &s);
    CHECK(s.len < before);
    CHECK_STR(ione(op, L, 1, 7000, "c"), "+I(1, 7000, c, 1, 6000, y)\n"
                                         "+I(1, 7000, c, 1, 6001, n2)\n");
    /* a right row behind the watermark still joins the rows kept (c) */
    CHECK_STR(ione(op, R, 1, 5500, "late"), "+I(1, 7000, c, 1, 5500, late)\n");
    CHECK_STR(adv(op, INT64_MAX), "");
    snap(op, &s);
    /* everything dropped: the state is empty again but for the watermark */
    CHECK(s.len == s0.len);
    CHECK_INT(op->ops->late_rows(op), 0);
    op->ops->free(op);
    sl_strbuf_free(&s0);
    sl_strbuf_free(&s);
}

/* LEFT / RIGHT / FULL interval joins: a row that never joined is emitted
** null-padded when the watermark drops it; a late row that cannot be kept
** is padded at once. */
static void t_interval_outer(void)
{
    show_time = true;
    opt o = {NULL, 0, true, -1000, 2000, false};
    sl_operator *op = make(SL_JOIN_FULL, &o);
    REQUIRE(op);
    CHECK_STR(ione(op, L, 1, 1000, "a"), "");
    CHECK_STR(ione(op, R, 2, 1000, "x"), "");
    CHECK_STR(ione(op, L, 3, 1000, "b"), "");
    CHECK_STR(ione(op, R, 3, 500, "y"), "+I(3, 1000, b, 3, 500, y)\n");
    CHECK_STR(adv(op, 2000), "");
    CHECK_STR(adv(op, 2001), "+I(1, 1000, a, N, N, N)\n");
    CHECK_STR(adv(op, 3000), "");
    CHECK_STR(adv(op, 3001), "+I(N, N, N, 2, 1000, x)\n");
    /* late rows: not kept; padded at once when nothing joined */
    CHECK_STR(ione(op, L, 4, 100, "c"), "+I(4, 100, c, N, N, N)\n");
    CHECK_STR(ione(op, R, 5, 6000, "z"), "");
    CHECK_STR(adv(op, 7000), "");
    CHECK_STR(ione(op, L, 5, 5500, "d"), "+I(5, 5500, d, 5, 6000, z)\n");
    /* kept only while the operator time is below the bound (t + 1000 for a
    ** left row, s + 2000 for a right one): at T = 7000 exactly, not kept */
    CHECK_STR(ione(op, L, 8, 6000, "g"), "+I(8, 6000, g, N, N, N)\n");
    CHECK_STR(ione(op, R, 9, 5000, "h"), "+I(N, N, N, 9, 5000, h)\n");
    CHECK_STR(ione(op, L, 8, 6001, "i"), "");
    CHECK_STR(ione(op, L, NUL, 9000, "e"), "+I(N, 9000, e, N, N, N)\n");
    CHECK_STR(ione(op, R, 6, NUL, "w"), "+I(N, N, N, 6, N, w)\n");
    CHECK_STR(ione(op, L, 7, 9000, "f"), "");
    CHECK_STR(adv(op, INT64_MAX), "+I(8, 6001, i, N, N, N)\n+I(7, 9000, f, N, N, N)\n");
    op->ops->free(op);
    op = make(SL_JOIN_LEFT, &o);
    CHECK_STR(ione(op, R, 2, 1000, "x"), "");
    CHECK_STR(ione(op, L, 1, 1000, "a"), "");
    CHECK_STR(adv(op, INT64_MAX), "+I(1, 1000, a, N, N, N)\n");
    op->ops->free(op);
    op = make(SL_JOIN_RIGHT, &o);
    CHECK_STR(ione(op, R, 2, 1000, "x"), "");
    CHECK_STR(ione(op, L, 1, 1000, "a"), "");
    CHECK_STR(ione(op, R, NUL, 1000, "n"), "+I(N, N, N, N, 1000, n)\n");
    CHECK_STR(adv(op, INT64_MAX), "+I(N, N, N, 2, 1000, x)\n");
    op->ops->free(op);
}

/* The kept rows' timers come out in order of bound, then arrival, whether
** they were pushed in order (the queue) or not (the heap), and through a
** compaction and a restore: a LEFT interval join pads its rows that never
** joined when the watermark passes them, in that order. */
static void t_interval_timer_order(void)
{
    show_time = true;
    opt o = {NULL, 0, true, -1000, 2000, false};
    sl_operator *op = make(SL_JOIN_LEFT, &o);
    REQUIRE(op);
    enum { N = 3000 };
    static int64_t tm[N];
    uint64_t x = 88172645463325252ull;
    char tag[16];
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        /* mostly ascending, every fifth one back in time */
        tm[i] = 10000 + i * 3 - (i % 5 == 0 ? (int64_t)(x % 4000) : 0);
        snprintf(tag, sizeof tag, "r%d", i);
        CHECK_STR(ione(op, L, i % 7, tm[i], tag), "");
        if (i == N / 2) { /* restore mid-way: the timers are rebuilt */
            sl_strbuf sn = SL_STRBUF_INIT;
            snap(op, &sn);
            op->ops->free(op);
            op = make(SL_JOIN_LEFT, &o);
            sl_error err = SL_ERROR_INIT;
            CHECK(op->ops->restore(op, sn.buf, sn.len, &err) == 0);
            sl_error_reset(&err);
            sl_strbuf_free(&sn);
        }
    }
    sl_strbuf all = SL_STRBUF_INIT;
    for (int64_t wm = 9000; wm < 20000; wm += 997) /* pads rows whose t + 1000 < wm */
        sl_strbuf_append(&all, adv(op, wm));
    sl_strbuf_append(&all, adv(op, INT64_MAX));
    /* the reference: indexes sorted by (time, arrival) */
    static int want[N];
    for (int i = 0; i < N; i++)
        want[i] = i;
    for (int i = 1; i < N; i++) /* insertion sort: stable */
        for (int k = i; k > 0 && tm[want[k - 1]] > tm[want[k]]; k--) {
            int t = want[k];
            want[k] = want[k - 1];
            want[k - 1] = t;
        }
    const char *p = all.buf ? all.buf : "";
    int n = 0, bad = 0;
    for (; *p && n < N; n++) {
        long long k, t;
        int idx;
        if (sscanf(p, "+I(%lld, %lld, r%d,", &k, &t, &idx) != 3 || idx != want[n])
            bad++;
        p = strchr(p, '\n');
        if (!p)
            break;
        p++;
    }
    CHECK_INT(n, N);
    CHECK_INT(bad, 0);
    sl_strbuf_free(&all);
    op->ops->free(op);
}

/* Snapshot -> restore of an interval join mid-stream (kept rows, joined
** flags, the watermark) gives the same further output. */
static void t_interval_restore(void)
{
    show_time = true;
    opt o = {NULL, 0, true, -300, 500, false};
    sl_strbuf s = SL_STRBUF_INIT, ta = SL_STRBUF_INIT, tb = SL_STRBUF_INIT;
    for (int round = 0; round < 4; round++) {
        int type = round;
        sl_operator *a = make(type, &o);
        REQUIRE(a);
        sl_operator *b = NULL;
        sl_strbuf_reset(&ta);
        sl_strbuf_reset(&tb);
        int64_t t = 0;
        sl_chunk *c = chunk();
        for (int step = 0; step < 600; step++) {
            if (step == 300) {
                snap(a, &s);
                b = make(type, &o);
                sl_error err = SL_ERROR_INIT;
                CHECK(b->ops->restore(b, s.buf, s.len, &err) == 0);
                sl_error_reset(&err);
            }
            t += (int64_t)(rnd() % 40);
            int n = 1 + (int)(rnd() % 4);
            for (int i = 0; i < n; i++) {
                char v[8];
                snprintf(v, sizeof v, "v%d", step);
                row(c, (int)(rnd() % 2), SL_ROW_INSERT, (int64_t)(rnd() % 3),
                    t - (int64_t)(rnd() % 200), v);
            }
            if (b) {
                sl_chunk *c2 = chunk();
                for (int r = 0; r < c->nrows; r++)
                    sl_chunk_copy_row(c2, c, r);
                sl_strbuf_append(&tb, run(b, c2));
                sl_chunk_free(c2);
            }
            const char *o1 = run(a, c);
            if (b)
                sl_strbuf_append(&ta, o1);
            if (step % 5 == 4) {
                int64_t wm = t - 150;
                if (b)
                    sl_strbuf_append(&tb, adv(b, wm));
                const char *o2 = adv(a, wm);
                if (b)
                    sl_strbuf_append(&ta, o2);
            }
        }
        if (b)
            sl_strbuf_append(&tb, adv(b, INT64_MAX));
        sl_strbuf_append(&ta, adv(a, INT64_MAX));
        CHECK(ta.len > 0);
        CHECK_STR(sl_strbuf_cstr(&ta), sl_strbuf_cstr(&tb));
        sl_chunk_free(c);
        a->ops->free(a);
        if (b)
            b->ops->free(b);
    }
    sl_strbuf_free(&s);
    sl_strbuf_free(&ta);
    sl_strbuf_free(&tb);
}

/* ---- window joins ------------------------------------------------------ */

/* Rows wait for their window's end (the time column here); then each left
** row joins the right rows of its key and window, an outer side's rows
** without a match go out padded, once; late rows are dropped and counted;
** the state is empty once every window fired. */
static void t_window(void)
{
    show_time = true;
    opt o = {0};
    o.window = true;
    sl_operator *op = make(SL_JOIN_FULL, &o);
    REQUIRE(op);
    sl_strbuf s0 = SL_STRBUF_INIT, s = SL_STRBUF_INIT;
    snap(op, &s0);
    CHECK_STR(ione(op, L, 1, 1000, "a"), "");
    CHECK_STR(ione(op, R, 1, 1000, "x"), "");
    CHECK_STR(ione(op, R, 1, 1000, "y"), "");
    CHECK_STR(ione(op, L, 2, 1000, "b"), "");
    CHECK_STR(ione(op, R, 3, 1000, "z"), "");
    CHECK_STR(ione(op, L, 1, 2000, "c"), ""); /* key 1, the next window */
    CHECK_STR(ione(op, R, NUL, 1000, "n"), ""); /* an outer side's NULL key waits */
    CHECK_STR(ione(op, L, NUL, 2000, "m"), "");
    CHECK_STR(adv(op, 999), "");
    CHECK_STR(adv(op, 1000), "+I(1, 1000, a, 1, 1000, x)\n"
                             "+I(1, 1000, a, 1, 1000, y)\n"
                             "+I(2, 1000, b, N, N, N)\n"
                             "+I(N, N, N, 3, 1000, z)\n"
                             "+I(N, N, N, N, 1000, n)\n");
    /* late: its window fired */
    CHECK_STR(ione(op, R, 1, 1000, "late"), "");
    CHECK_INT(op->ops->late_rows(op), 1);
    CHECK_STR(ione(op, R, 1, 2000, "w"), "");
    CHECK_STR(adv(op, INT64_MAX), "+I(1, 2000, c, 1, 2000, w)\n"
                                  "+I(N, 2000, m, N, N, N)\n");
    snap(op, &s);
    CHECK(s.len == s0.len); /* nothing kept but the watermark and the count */
    op->ops->free(op);
    /* INNER with a residual condition; LEFT; RIGHT */
    sl_bexpr *ne = cond_ne();
    o.cond = ne;
    op = make(SL_JOIN_INNER, &o);
    CHECK_STR(ione(op, L, 1, 1000, "a"), "");
    CHECK_STR(ione(op, R, 1, 1000, "a"), "");
    CHECK_STR(ione(op, R, 1, 1000, "b"), "");
    CHECK_STR(ione(op, R, NUL, 1000, "b"), "");
    CHECK_STR(adv(op, 5000), "+I(1, 1000, a, 1, 1000, b)\n");
    op->ops->free(op);
    o.cond = NULL;
    op = make(SL_JOIN_LEFT, &o);
    CHECK_STR(ione(op, L, 1, 1000, "a"), "");
    CHECK_STR(ione(op, R, 2, 1000, "x"), "");
    CHECK_STR(adv(op, 1000), "+I(1, 1000, a, N, N, N)\n");
    op->ops->free(op);
    op = make(SL_JOIN_RIGHT, &o);
    CHECK_STR(ione(op, L, 1, 1000, "a"), "");
    CHECK_STR(ione(op, R, 2, 1000, "x"), "");
    CHECK_STR(adv(op, 1000), "+I(N, N, N, 2, 1000, x)\n");
    op->ops->free(op);
    sl_bexpr_free(ne);
    sl_strbuf_free(&s0);
    sl_strbuf_free(&s);
}

/* Snapshot -> restore of a window join mid-stream (rows of open windows,
** the watermark, the late count) gives the same further output; the
** snapshot bytes are deterministic. */
static void t_window_restore(void)
{
    show_time = true;
    opt o = {0};
    o.window = true;
    sl_strbuf s = SL_STRBUF_INIT, s2 = SL_STRBUF_INIT, ta = SL_STRBUF_INIT,
              tb = SL_STRBUF_INIT;
    for (int type = 0; type < 4; type++) {
        sl_operator *a = make(type, &o);
        REQUIRE(a);
        sl_operator *b = NULL;
        sl_strbuf_reset(&ta);
        sl_strbuf_reset(&tb);
        int64_t t = 0;
        sl_chunk *c = chunk();
        for (int step = 0; step < 600; step++) {
            if (step == 300) {
                snap(a, &s);
                b = make(type, &o);
                sl_error err = SL_ERROR_INIT;
                CHECK(b->ops->restore(b, s.buf, s.len, &err) == 0);
                sl_error_reset(&err);
                snap(b, &s2);
                CHECK(s.len == s2.len && memcmp(s.buf, s2.buf, s.len) == 0);
            }
            t += (int64_t)(rnd() % 40);
            int n = 1 + (int)(rnd() % 4);
            for (int i = 0; i < n; i++) {
                char v[8];
                snprintf(v, sizeof v, "v%d", step);
                int64_t rt = t - (int64_t)(rnd() % 200);
                row(c, (int)(rnd() % 2), SL_ROW_INSERT, rnd() % 5 ? (int64_t)(rnd() % 3) : NUL,
                    (rt / 100 + 1) * 100, v); /* window_end of 100 ms windows */
            }
            if (b) {
                sl_chunk *c2 = chunk();
                for (int r = 0; r < c->nrows; r++)
                    sl_chunk_copy_row(c2, c, r);
                sl_strbuf_append(&tb, run(b, c2));
                sl_chunk_free(c2);
            }
            const char *o1 = run(a, c);
            if (b)
                sl_strbuf_append(&ta, o1);
            if (step % 5 == 4) {
                int64_t wm = t - 150;
                if (b)
                    sl_strbuf_append(&tb, adv(b, wm));
                const char *o2 = adv(a, wm);
                if (b)
                    sl_strbuf_append(&ta, o2);
            }
        }
        sl_strbuf_append(&tb, adv(b, INT64_MAX));
        sl_strbuf_append(&ta, adv(a, INT64_MAX));
        CHECK(ta.len > 0);
        CHECK(a->ops->late_rows(a) > 0);
        CHECK_INT(a->ops->late_rows(a), b->ops->late_rows(b));
        CHECK_STR(sl_strbuf_cstr(&ta), sl_strbuf_cstr(&tb));
        sl_chunk_free(c);
        a->ops->free(a);
        b->ops->free(b);
    }
    sl_strbuf_free(&s);
    sl_strbuf_free(&s2);
    sl_strbuf_free(&ta);
    sl_strbuf_free(&tb);
}

/* ---- bad input --------------------------------------------------------- */

static uint64_t fnv(const char *p, size_t n)
{
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (uint8_t)p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* The checksum a blob's version field names: version 1 FNV-1a, else XXH3. */
static void reseal(char *p, size_t n)
{
    uint32_t v = (uint8_t)p[7] | (uint32_t)(uint8_t)p[8] << 8 | (uint32_t)(uint8_t)p[9] << 16 |
                 (uint32_t)(uint8_t)p[10] << 24;
    uint64_t h = v == 1 ? fnv(p, n - 8) : sl_checksum(p, n - 8);
    for (int i = 0; i < 8; i++)
        p[n - 8 + i] = (char)(h >> (8 * i));
}

static int try_restore(sl_operator *op, const char *p, size_t n)
{
    sl_error err = SL_ERROR_INIT;
    int rc = op->ops->restore(op, p, n, &err);
    if (rc != 0)
        CHECK_STR(err.sqlstate, "XX001");
    sl_error_reset(&err);
    return rc;
}

/* Every truncation and byte change fails (XX001); forged bodies with a
** valid checksum restore or fail, never crash (ASan). */
static void corrupt_all(sl_operator *b, const sl_strbuf *s)
{
    char *p = malloc(s->len);
    for (size_t n = 0; n < s->len; n++) {
        memcpy(p, s->buf, n);
        CHECK(try_restore(b, p, n) == -1);
    }
    for (size_t i = 0; i < s->len; i++) {
        memcpy(p, s->buf, s->len);
        p[i] ^= 0x41;
        CHECK(try_restore(b, p, s->len) == -1);
    }
    int failed = 0;
    for (int i = 0; i < 5000; i++) {
        memcpy(p, s->buf, s->len);
        int flips = 1 + (int)(rnd() % 3);
        for (int f = 0; f < flips; f++)
            p[rnd() % (s->len - 8)] = (char)rnd();
        reseal(p, s->len);
        if (try_restore(b, p, s->len) != 0)
            failed++;
    }
    CHECK(failed > 500);
    free(p);
}

static void t_corrupt(void)
{
    show_time = false;
    sl_strbuf s = SL_STRBUF_INIT;
    sl_operator *a = make(SL_JOIN_FULL, NULL), *b = make(SL_JOIN_FULL, NULL);
    REQUIRE(a && b);
    one(a, L, I, 1, "a");
    one(a, L, I, 1, "a");
    one(a, R, I, 1, "x");
    one(a, R, I, 2, "y");
    snap(a, &s);
    corrupt_all(b, &s);
    CHECK(try_restore(b, "garbage", 7) == -1);
    /* a failed restore leaves an empty, working operator */
    CHECK_STR(one(b, L, I, 2, "q"), "+I(2, q, N, N)\n");
    /* another join's state */
    sl_operator *c = make(SL_JOIN_LEFT, NULL);
    CHECK(try_restore(c, s.buf, s.len) == -1);
    c->ops->free(c);
    /* interval state */
    opt o = {NULL, 0, true, -10, 10, false};
    sl_operator *ia = make(SL_JOIN_LEFT, &o), *ib = make(SL_JOIN_LEFT, &o);
    ione(ia, L, 1, 100, "a");
    ione(ia, R, 1, 105, "x");
    ione(ia, R, 2, 100, "y");
    snap(ia, &s);
    corrupt_all(ib, &s);
    CHECK(try_restore(b, s.buf, s.len) == -1);
    ia->ops->free(ia);
    ib->ops->free(ib);
    /* window state (a NULL key kept on the outer side) */
    opt w = {0};
    w.window = true;
    sl_operator *wa = make(SL_JOIN_LEFT, &w), *wb = make(SL_JOIN_LEFT, &w);
    ione(wa, L, 1, 100, "a");
    ione(wa, R, 1, 100, "x");
    ione(wa, L, NUL, 200, "n");
    snap(wa, &s);
    corrupt_all(wb, &s);
    CHECK(try_restore(b, s.buf, s.len) == -1);
    /* an interval join's state is not a window join's */
    CHECK(try_restore(ib = make(SL_JOIN_LEFT, &o), s.buf, s.len) == -1);
    ib->ops->free(ib);
    wa->ops->free(wa);
    wb->ops->free(wb);
    a->ops->free(a);
    b->ops->free(b);
    sl_strbuf_free(&s);
}

/* A version 1 blob (FNV-1a checksum, otherwise the same layout) restores
** to the same state; version 2 is XXH3's. */
static void t_version1(void)
{
    show_time = false;
    sl_strbuf s = SL_STRBUF_INIT, t = SL_STRBUF_INIT;
    sl_operator *a = make(SL_JOIN_LEFT, NULL), *b = make(SL_JOIN_LEFT, NULL);
    REQUIRE(a && b);
    one(a, L, I, 1, "a");
    one(a, R, I, 1, "x");
    one(a, L, I, 2, "b");
    snap(a, &s);
    REQUIRE(s.len > 16);
    CHECK_INT((uint8_t)s.buf[7], 2);
    char *p = malloc(s.len);
    memcpy(p, s.buf, s.len);
    p[7] = 1;
    CHECK(try_restore(b, p, s.len) == -1); /* XXH3 under version 1: refused */
    reseal(p, s.len);
    CHECK(try_restore(b, p, s.len) == 0);
    snap(b, &t); /* written back as version 2, the same otherwise */
    CHECK(t.len == s.len && memcmp(t.buf, s.buf, s.len) == 0);
    char *got = sl_strdup(one(b, R, I, 2, "y")); /* one's text is overwritten by the next */
    CHECK_STR(got, one(a, R, I, 2, "y"));
    CHECK_STR(got, "-D(2, b, N, N)\n+I(2, b, 2, y)\n");
    sl_free(got);
    free(p);
    a->ops->free(a);
    b->ops->free(b);
    sl_strbuf_free(&s);
    sl_strbuf_free(&t);
}

static void t_bad_input(void)
{
    init_types();
    sl_join_spec spec = {0};
    spec.in_ncols = NCOLS;
    spec.in_types = types;
    spec.nkeys = 1;
    spec.nl = 3;
    spec.nr = 2; /* columns do not add up */
    spec.type = SL_JOIN_INNER;
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    CHECK(sl_join_new(&spec, &op, &err) == -1 && op == NULL);
    CHECK_STR(err.sqlstate, "XX000");
    sl_error_reset(&err);
    spec.nr = 3;
    spec.interval = true;
    spec.ltime = 2; /* VARCHAR */
    spec.rtime = 1;
    CHECK(sl_join_new(&spec, &op, &err) == -1);
    sl_error_reset(&err);
    /* an interval join refuses updates; a bad side tag is refused */
    opt o = {NULL, 0, true, 0, 0, false};
    op = make(SL_JOIN_INNER, &o);
    sl_chunk *c = chunk();
    row(c, L, SL_ROW_DELETE, 1, 5, "a");
    sl_emit em = {collect, &outbuf};
    CHECK(op->ops->process(op, c, &em, &err) == -1);
    CHECK_STR(err.sqlstate, "XX000");
    sl_error_reset(&err);
    sl_chunk_reset(c);
    row(c, L, SL_ROW_INSERT, 1, 5, "a");
    sl_chunk_set_i64(c, 0, 0, 2);
    CHECK(op->ops->process(op, c, &em, &err) == -1);
    sl_error_reset(&err);
    sl_chunk_free(c);
    op->ops->free(op);
}

SL_TESTS(t_inner, t_left, t_right, t_full, t_flink_peer, t_duplicates, t_append_only, t_null_keys, t_null_safe_keys, t_cond,
         t_ttl, t_random, t_snapshot_deterministic, t_no_keys, t_interval_bounds,
         t_interval_outer, t_interval_timer_order, t_interval_restore, t_window, t_window_restore, t_corrupt,
         t_version1, t_bad_input)
