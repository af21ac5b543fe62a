/*
** test_exec_over.c — the OVER aggregation operator (exec/op_over.c): exact
** output of ROWS and RANGE frames, bounded and unbounded, over out-of-order
** input (rows emitted when the watermark passes them, in time order; equal
** times share RANGE results; late rows dropped and counted); snapshot ->
** restore mid-stream -> the same further output as an uninterrupted run (many
** keys, every frame kind, rows waiting for the watermark included); damaged
** snapshots rejected (XX001, never a crash); updating input rejected; TTL
** with a fake clock.
*/
#include "sl_exec.h"
#include "sl_test.h"

#include <stdint.h>
#include <stdio.h>

#define MS 1000000LL /* ns per ms */

static sl_type types[3];
static const int key_k[] = {0};
static sl_agg_call calls[3];

static void init(void)
{
    types[0] = sl_type_make_p(SL_TYPE_VARCHAR, 10, 0);  /* k */
    types[1] = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0); /* ts */
    types[2] = sl_type_make(SL_TYPE_BIGINT);            /* v */
    sl_type big = sl_type_make(SL_TYPE_BIGINT);
    calls[0] = (sl_agg_call){SL_FN_COUNT, false, -1, big, -1, NULL, false, -1};
    calls[1] = (sl_agg_call){SL_FN_SUM, false, 2, big, -1, NULL, false, -1};
    calls[2] = (sl_agg_call){SL_FN_MAX, false, 2, big, -1, NULL, false, -1};
}

/* Fake processing-time clock (ns). */
static int64_t fake_now;
static int64_t fake_clock(void *ctx)
{
    (void)ctx;
    return fake_now;
}

static sl_operator *make_op_ttl(bool range, int64_t preceding, int64_t ttl_ms)
{
    init();
    sl_over_spec spec = {3, types, 1, key_k, 1, range, preceding, 3, calls, ttl_ms, fake_clock, NULL, NULL};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    int rc = sl_over_new(&spec, &op, &err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err.message);
    sl_error_reset(&err);
    return rc == 0 ? op : NULL;
}

static sl_operator *make_op(bool range, int64_t preceding)
{
    return make_op_ttl(range, preceding, 0);
}

static int collect(void *ctx, sl_chunk *c, sl_error *err)
{
    (void)err;
    sl_strbuf *sb = ctx;
    REQUIRE(c->ncols == 6 && c->nrows > 0);
    for (int r = 0; r < c->nrows; r++) {
        sl_strbuf_append(sb, sl_row_kind_name((sl_row_kind)c->kinds[r]));
        sl_strbuf_append_char(sb, '(');
        for (int i = 0; i < c->ncols; i++) {
            if (i == 1) { /* the time as ms */
                sl_strbuf_appendf(sb, ", %lld", (long long)(c->cols[1].v.i64[r] / MS));
                continue;
            }
            if (i)
                sl_strbuf_append(sb, ", ");
            if (!sl_value_format(sb, &c->cols[i], r))
                sl_strbuf_append(sb, "NULL");
        }
        sl_strbuf_append(sb, ")\n");
    }
    return 0;
}

static void row(sl_chunk *c, const char *k, int64_t ts_ms, int64_t v)
{
    int r = sl_chunk_append_row(c, SL_ROW_INSERT);
    sl_chunk_set_str(c, 0, r, k, strlen(k));
    sl_chunk_set_i64(c, 1, r, ts_ms * MS);
    sl_chunk_set_i64(c, 2, r, v);
}

static void run(sl_operator *op, sl_chunk *c, sl_strbuf *out)
{
    sl_emit em = {collect, out};
    sl_error err = SL_ERROR_INIT;
    int rc = op->ops->process(op, c, &em, &err);
    if (rc != 0)
        fprintf(stderr, "process: %s %s\n", err.sqlstate, err.message);
    CHECK(rc == 0);
    sl_error_reset(&err);
    sl_chunk_reset(c);
}

static void adv(sl_operator *op, int64_t wm_ms, sl_strbuf *out)
{
    sl_emit em = {collect, out};
    sl_error err = SL_ERROR_INIT;
    int rc = op->ops->watermark(op, wm_ms == INT64_MAX ? INT64_MAX : wm_ms * MS, &em, &err);
    if (rc != 0)
        fprintf(stderr, "watermark: %s %s\n", err.sqlstate, err.message);
    CHECK(rc == 0);
    sl_error_reset(&err);
}

/* The small input of every exact test: out of order, a tie at 3 for "a". */
static const char *exact(bool range, int64_t preceding)
{
    static sl_strbuf out = SL_STRBUF_INIT;
    sl_strbuf_reset(&out);
    sl_operator *op = make_op(range, preceding);
    REQUIRE(op);
    sl_chunk *c = sl_chunk_new(3, types, SL_CHUNK_ROWS);
    row(c, "a", 3, 30);
    row(c, "a", 1, 10);
    row(c, "b", 2, 200);
    row(c, "a", 3, 31);
    run(op, c, &out);
    adv(op, 2, &out); /* emits a@1, b@2 */
    sl_strbuf_append(&out, "--\n");
    row(c, "a", 2, 99); /* late: time <= watermark */
    row(c, "a", 6, 60);
    row(c, "b", 5, 500);
    run(op, c, &out);
    adv(op, INT64_MAX, &out);
    CHECK_INT(op->ops->late_rows(op), 1);
    sl_chunk_free(c);
    op->ops->free(op);
    return sl_strbuf_cstr(&out);
}

static void t_frames(void)
{
    /* ROWS 1 PRECEDING: the tie in arrival order */
    CHECK_STR(exact(false, 1), "+I(a, 1, 10, 1, 10, 10)\n+I(b, 2, 200, 1, 200, 200)\n--\n"
                               "+I(a, 3, 30, 2, 40, 30)\n+I(a, 3, 31, 2, 61, 31)\n"
                               "+I(b, 5, 500, 2, 700, 500)\n+I(a, 6, 60, 2, 91, 60)\n");
    /* ROWS UNBOUNDED */
    CHECK_STR(exact(false, -1), "+I(a, 1, 10, 1, 10, 10)\n+I(b, 2, 200, 1, 200, 200)\n--\n"
                                "+I(a, 3, 30, 2, 40, 30)\n+I(a, 3, 31, 3, 71, 31)\n"
                                "+I(b, 5, 500, 2, 700, 500)\n+I(a, 6, 60, 4, 131, 60)\n");
    /* RANGE 2 ms: equal times share results; the row exactly 2 ms back is in */
    CHECK_STR(exact(true, 2 * MS), "+I(a, 1, 10, 1, 10, 10)\n+I(b, 2, 200, 1, 200, 200)\n--\n"
                                   "+I(a, 3, 30, 3, 71, 31)\n+I(a, 3, 31, 3, 71, 31)\n"
                                   "+I(b, 5, 500, 1, 500, 500)\n+I(a, 6, 60, 1, 60, 60)\n");
    /* RANGE UNBOUNDED */
    CHECK_STR(exact(true, -1), "+I(a, 1, 10, 1, 10, 10)\n+I(b, 2, 200, 1, 200, 200)\n--\n"
                               "+I(a, 3, 30, 3, 71, 31)\n+I(a, 3, 31, 3, 71, 31)\n"
                               "+I(b, 5, 500, 2, 700, 500)\n+I(a, 6, 60, 4, 131, 60)\n");
}

static uint64_t rs = 88172645463325252ULL;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

/* Feed chunk i (deterministic from i) and advance the watermark. */
static void feed(sl_operator *op, sl_chunk *c, int i, sl_strbuf *out)
{
    rs = 0x9E3779B97F4A7C15ULL * (uint64_t)(i + 1);
    char k[8];
    for (int r = 0; r < 200; r++) {
        snprintf(k, sizeof k, "k%d", (int)(rnd() % 37));
        row(c, k, i * 100 + (int64_t)(rnd() % 300), (int64_t)(rnd() % 1000));
    }
    run(op, c, out);
    adv(op, i * 100 + 50, out);
}

static void t_snapshot_restore(void)
{
    const struct {
        bool range;
        int64_t preceding;
    } modes[] = {{false, 3}, {false, -1}, {true, 120 * MS}, {true, -1}, {false, 0}};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        sl_operator *a = make_op(modes[m].range, modes[m].preceding);
        sl_operator *b = make_op(modes[m].range, modes[m].preceding);
        sl_operator *c2 = make_op(modes[m].range, modes[m].preceding);
        REQUIRE(a && b && c2);
        sl_chunk *c = sl_chunk_new(3, types, SL_CHUNK_ROWS);
        sl_strbuf oa = SL_STRBUF_INIT, ob = SL_STRBUF_INIT, st = SL_STRBUF_INIT, st2 = SL_STRBUF_INIT;
        for (int i = 0; i < 10; i++)
            feed(a, c, i, &oa);
        for (int i = 0; i < 10; i++)
            feed(b, c, i, &ob);
        sl_error err = SL_ERROR_INIT;
        CHECK(b->ops->snapshot(b, &st, &err) == 0);
        CHECK(c2->ops->restore(c2, st.buf, st.len, &err) == 0);
        CHECK(c2->ops->snapshot(c2, &st2, &err) == 0);
        CHECK(st.len == st2.len && memcmp(st.buf, st2.buf, st.len) == 0); /* deterministic */
        sl_error_reset(&err);
        sl_strbuf_reset(&oa);
        sl_strbuf_reset(&ob);
        sl_strbuf oc = SL_STRBUF_INIT;
        for (int i = 10; i < 20; i++) {
            feed(a, c, i, &oa);
            feed(c2, c, i, &oc);
        }
        adv(a, INT64_MAX, &oa);
        adv(c2, INT64_MAX, &oc);
        CHECK(oa.len > 1000);
        CHECK_STR(sl_strbuf_cstr(&oc), sl_strbuf_cstr(&oa));
        CHECK_INT(c2->ops->late_rows(c2), a->ops->late_rows(a));
        /* damaged snapshots: refused, never a crash */
        for (size_t off = 0; off < st.len; off += st.len / 97 + 1) {
            sl_operator *d = make_op(modes[m].range, modes[m].preceding);
            char *copy = sl_malloc(st.len);
            memcpy(copy, st.buf, st.len);
            copy[off] ^= 0x5a;
            CHECK(d->ops->restore(d, copy, st.len, &err) != 0);
            CHECK_STR(err.sqlstate, "XX001");
            sl_error_reset(&err);
            CHECK(d->ops->restore(d, st.buf, off, &err) != 0); /* truncated */
            sl_error_reset(&err);
            sl_free(copy);
            d->ops->free(d);
        }
        sl_strbuf_free(&oa);
        sl_strbuf_free(&ob);
        sl_strbuf_free(&oc);
        sl_strbuf_free(&st);
        sl_strbuf_free(&st2);
        sl_chunk_free(c);
        a->ops->free(a);
        b->ops->free(b);
        c2->ops->free(c2);
    }
}

static void t_updates_rejected(void)
{
    sl_operator *op = make_op(false, 1);
    REQUIRE(op);
    sl_chunk *c = sl_chunk_new(3, types, SL_CHUNK_ROWS);
    int r = sl_chunk_append_row(c, SL_ROW_DELETE);
    sl_chunk_set_str(c, 0, r, "a", 1);
    sl_chunk_set_i64(c, 1, r, 5 * MS);
    sl_chunk_set_i64(c, 2, r, 1);
    sl_strbuf out = SL_STRBUF_INIT;
    sl_emit em = {collect, &out};
    sl_error err = SL_ERROR_INIT;
    CHECK(op->ops->process(op, c, &em, &err) != 0);
    CHECK_STR(err.sqlstate, "XX000");
    sl_error_reset(&err);
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    op->ops->free(op);
}

/* TTL: a key idle (no row waiting, none written) for ttl is forgotten — its
** running COUNT starts again — while a key written meanwhile is kept. */
static void t_ttl(void)
{
    fake_now = 0;
    sl_operator *op = make_op_ttl(false, -1, 1000);
    REQUIRE(op);
    sl_chunk *c = sl_chunk_new(3, types, SL_CHUNK_ROWS);
    sl_strbuf out = SL_STRBUF_INIT;
    row(c, "a", 1, 1);
    row(c, "b", 1, 1);
    run(op, c, &out);
    adv(op, 1, &out);
    fake_now = 600 * MS;
    row(c, "b", 2, 1);
    run(op, c, &out);
    adv(op, 2, &out);
    fake_now = 1500 * MS; /* a: idle 1.5 s, forgotten; b: written 0.9 s ago */
    row(c, "a", 3, 1);
    row(c, "b", 3, 1);
    run(op, c, &out);
    adv(op, 3, &out);
    CHECK_STR(sl_strbuf_cstr(&out), "+I(a, 1, 1, 1, 1, 1)\n+I(b, 1, 1, 1, 1, 1)\n"
                                    "+I(b, 2, 1, 2, 2, 1)\n"
                                    "+I(a, 3, 1, 1, 1, 1)\n+I(b, 3, 1, 3, 3, 1)\n");
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    op->ops->free(op);
}

SL_TESTS(t_frames, t_snapshot_restore, t_updates_rejected, t_ttl)
