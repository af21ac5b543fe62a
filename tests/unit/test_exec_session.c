/*
** test_exec_session.c — the session window aggregation (exec/op_session.c):
** merging (a row a gap after the last extends a session, a row between two
** sessions bridges them), firing order (by session end), late rows, and
** snapshot -> restore mid-stream giving the same further output as an
** uninterrupted run, against a reference of the sessions computed here.
** The same for the SESSION TVF on its own (sl_session_tvf_new): each row
** emitted once with its session's bounds, and snapshot -> restore.
*/
#include "sl_exec.h"
#include "sl_bind.h"
#include "sl_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEC 1000000000LL

/* input: k STRING, v BIGINT, ts TIMESTAMP(3), window_start, window_end */
static sl_type in_types[5];
static int64_t gap_ms = 3000; /* the TVF's gap (tvf_mode) */
static sl_agg_call calls[2];
static const int keys[3] = {0, 3, 4};

static bool tvf_mode; /* sl_session_tvf_new over (k, v, ts) instead */

static sl_operator *make_tvf(void)
{
    in_types[0] = sl_type_make_p(SL_TYPE_VARCHAR, 20, 0);
    in_types[1] = sl_type_make(SL_TYPE_BIGINT);
    in_types[2] = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    static const int pk[1] = {0};
    sl_session_tvf_spec s;
    memset(&s, 0, sizeof s);
    s.tvf.in_ncols = 3;
    s.tvf.in_types = in_types;
    s.tvf.time_col = 2;
    s.tvf.window_fn = SL_WIN_SESSION;
    s.tvf.size_ms = gap_ms;
    s.nkeys = 1;
    s.keys = pk;
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_session_tvf_new(&s, &op, &err) == 0);
    REQUIRE(op->out_ncols == 6);
    return op;
}

static sl_operator *make_op(void)
{
    if (tvf_mode)
        return make_tvf();
    in_types[0] = sl_type_make_p(SL_TYPE_VARCHAR, 20, 0);
    in_types[1] = sl_type_make(SL_TYPE_BIGINT);
    for (int i = 2; i < 5; i++)
        in_types[i] = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    memset(calls, 0, sizeof calls);
    calls[0].fn = SL_FN_COUNT;
    calls[0].arg = -1;
    calls[0].type = sl_type_make(SL_TYPE_BIGINT);
    calls[0].pos = -1;
    calls[1].fn = SL_FN_SUM;
    calls[1].arg = 1;
    calls[1].type = sl_type_make(SL_TYPE_BIGINT);
    calls[1].pos = -1;
    sl_session_agg_spec s;
    memset(&s, 0, sizeof s);
    s.window.group.in_ncols = 5;
    s.window.group.in_types = in_types;
    s.window.group.nkeys = 3;
    s.window.group.keys = keys;
    s.window.group.naggs = 2;
    s.window.group.aggs = calls;
    s.window.window_start_key = 1;
    s.window.window_end_key = 2;
    s.window_time_key = -1;
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_session_agg_new(&s, &op, &err) == 0);
    return op;
}

/* Every emitted row as "k start end count sum\n". */
static int collect(void *ctx, sl_chunk *c, sl_error *err)
{
    (void)err;
    sl_strbuf *sb = ctx;
    if (tvf_mode) { /* "k v start end" per row; window_time = end - 1 ms */
        REQUIRE(c->ncols == 6);
        for (int r = 0; r < c->nrows; r++) {
            CHECK(c->kinds[r] == SL_ROW_INSERT);
            CHECK(c->cols[5].v.i64[r] == c->cols[4].v.i64[r] - 1000000);
            sl_strbuf_appendf(sb, "%.*s %lld %lld %lld\n", (int)c->cols[0].v.str[r].len,
                              c->cols[0].v.str[r].ptr, (long long)c->cols[1].v.i64[r],
                              (long long)(c->cols[3].v.i64[r] / 1000000),
                              (long long)(c->cols[4].v.i64[r] / 1000000));
        }
        return 0;
    }
    REQUIRE(c->ncols == 5);
    for (int r = 0; r < c->nrows; r++) {
        CHECK(c->kinds[r] == SL_ROW_INSERT);
        sl_strbuf_appendf(sb, "%.*s %lld %lld %lld %lld\n", (int)c->cols[0].v.str[r].len,
                          c->cols[0].v.str[r].ptr, (long long)(c->cols[1].v.i64[r] / 1000000),
                          (long long)(c->cols[2].v.i64[r] / 1000000), (long long)c->cols[3].v.i64[r],
                          (long long)c->cols[4].v.i64[r]);
    }
    return 0;
}

/* One row: key k, value v, time t_ms, gap gap_ms (the TVF's own window). */
static void add_row(sl_chunk *c, const char *k, int64_t v, int64_t t_ms, int64_t gap)
{
    int r = sl_chunk_append_row(c, SL_ROW_INSERT);
    sl_chunk_set_str(c, 0, r, k, strlen(k));
    sl_chunk_set_i64(c, 1, r, v);
    sl_chunk_set_i64(c, 2, r, t_ms * 1000000);
    if (tvf_mode) /* the operator computes the window */
        return;
    sl_chunk_set_i64(c, 3, r, t_ms * 1000000);
    sl_chunk_set_i64(c, 4, r, (t_ms + gap) * 1000000);
}

static void t_merge(void)
{
    sl_operator *op = make_op();
    sl_strbuf out = SL_STRBUF_INIT;
    sl_emit em = {collect, &out};
    sl_error err = SL_ERROR_INIT;
    sl_chunk *c = sl_chunk_new(5, in_types, SL_CHUNK_ROWS);
    add_row(c, "a", 1, 0, 3000);
    add_row(c, "a", 3, 2000, 3000);
    add_row(c, "a", 5, 5000, 3000); /* exactly gap after 2 s: extends */
    add_row(c, "b", 2, 1000, 3000);
    add_row(c, "b", 4, 7000, 3000);
    add_row(c, "b", 6, 4000, 3000); /* bridges [1, 4) and [7, 10) */
    add_row(c, "a", 8, 9000, 3000); /* 9 > 8: a new session */
    REQUIRE(op->ops->process(op, c, &em, &err) == 0);
    REQUIRE(op->ops->watermark(op, 8 * SEC, &em, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&out), "a 0 8000 3 9\n");
    sl_chunk_reset(c);
    add_row(c, "c", 9, 1000, 3000);  /* ends 4 s <= watermark 8 s: late */
    add_row(c, "a", 10, 4000, 3000); /* would merge only with the fired session: late */
    add_row(c, "a", 11, 6000, 3000); /* reaches a's open [9, 12): merges, not late */
    REQUIRE(op->ops->process(op, c, &em, &err) == 0);
    CHECK_INT(op->ops->late_rows(op), 2);
    REQUIRE(op->ops->watermark(op, INT64_MAX, &em, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&out), "a 0 8000 3 9\nb 1000 10000 3 12\na 6000 12000 2 19\n");
    sl_chunk_free(c);
    sl_strbuf_free(&out);
    op->ops->free(op);
}

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A stream of chunks: keys k0..k7, times drifting forward with disorder,
** a watermark (max time - 2 s) after each chunk. Snapshot after chunk
** `cut` (-1: never), restore into a new operator, continue. */
static void run_stream(int cut, sl_strbuf *out, int64_t *late)
{
    sl_operator *op = make_op();
    sl_emit em = {collect, out};
    sl_error err = SL_ERROR_INIT;
    sl_chunk *c = sl_chunk_new(tvf_mode ? 3 : 5, in_types, SL_CHUNK_ROWS);
    rng = 0x2545F4914F6CDD1DULL;
    int64_t now = 0, maxt = 0;
    for (int ch = 0; ch < 40; ch++) {
        sl_chunk_reset(c);
        int n = 1 + (int)(rnd() % 60);
        for (int i = 0; i < n; i++) {
            now += (int64_t)(rnd() % 400);
            int64_t t = now - (int64_t)(rnd() % 5000);
            char k[4];
            snprintf(k, sizeof k, "k%d", (int)(rnd() % 8));
            add_row(c, k, (int64_t)(rnd() % 100), t, 1500);
            if (t > maxt)
                maxt = t;
        }
        REQUIRE(op->ops->process(op, c, &em, &err) == 0);
        REQUIRE(op->ops->watermark(op, (maxt - 2000) * 1000000, &em, &err) == 0);
        if (ch == cut) {
            sl_strbuf snap = SL_STRBUF_INIT;
            REQUIRE(op->ops->snapshot(op, &snap, &err) == 0);
            op->ops->free(op);
            op = make_op();
            REQUIRE(op->ops->restore(op, snap.buf, snap.len, &err) == 0);
            /* a corrupted blob is refused */
            sl_operator *bad = make_op();
            snap.buf[snap.len / 2] ^= 1;
            CHECK(bad->ops->restore(bad, snap.buf, snap.len, &err) == -1);
            CHECK_STR(err.sqlstate, "XX001");
            sl_error_reset(&err);
            bad->ops->free(bad);
            sl_strbuf_free(&snap);
        }
    }
    REQUIRE(op->ops->watermark(op, INT64_MAX, &em, &err) == 0);
    *late = op->ops->late_rows(op);
    sl_chunk_free(c);
    op->ops->free(op);
}

static void t_snapshot_restore(void)
{
    sl_strbuf whole = SL_STRBUF_INIT;
    int64_t late_whole = 0;
    run_stream(-1, &whole, &late_whole);
    CHECK(late_whole > 0);
    CHECK(whole.len > 100);
    for (int cut = 0; cut < 40; cut += 7) {
        sl_strbuf part = SL_STRBUF_INIT;
        int64_t late = 0;
        run_stream(cut, &part, &late);
        CHECK_STR(sl_strbuf_cstr(&part), sl_strbuf_cstr(&whole));
        CHECK_INT(late, late_whole);
        sl_strbuf_free(&part);
    }
    sl_strbuf_free(&whole);
}

/* The TVF on its own: the rows of t_merge, each with its session's bounds
** (rows in arrival order, sessions by end); late rows dropped. */
static void t_tvf(void)
{
    tvf_mode = true;
    gap_ms = 3000;
    sl_operator *op = make_op();
    sl_strbuf out = SL_STRBUF_INIT;
    sl_emit em = {collect, &out};
    sl_error err = SL_ERROR_INIT;
    sl_chunk *c = sl_chunk_new(3, in_types, SL_CHUNK_ROWS);
    add_row(c, "a", 1, 0, 0);
    add_row(c, "a", 3, 2000, 0);
    add_row(c, "a", 5, 5000, 0);
    add_row(c, "b", 2, 1000, 0);
    add_row(c, "b", 4, 7000, 0);
    add_row(c, "b", 6, 4000, 0);
    add_row(c, "a", 8, 9000, 0);
    REQUIRE(op->ops->process(op, c, &em, &err) == 0);
    REQUIRE(op->ops->watermark(op, 8 * SEC, &em, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&out), "a 1 0 8000\na 3 0 8000\na 5 0 8000\n");
    sl_chunk_reset(c);
    add_row(c, "c", 9, 1000, 0);
    add_row(c, "a", 10, 4000, 0);
    add_row(c, "a", 11, 6000, 0);
    REQUIRE(op->ops->process(op, c, &em, &err) == 0);
    CHECK_INT(op->ops->late_rows(op), 2);
    REQUIRE(op->ops->watermark(op, INT64_MAX, &em, &err) == 0);
    CHECK_STR(sl_strbuf_cstr(&out), "a 1 0 8000\na 3 0 8000\na 5 0 8000\n"
                                    "b 2 1000 10000\nb 4 1000 10000\nb 6 1000 10000\n"
                                    "a 8 6000 12000\na 11 6000 12000\n");
    sl_chunk_free(c);
    sl_strbuf_free(&out);
    op->ops->free(op);
    tvf_mode = false;
}

static void t_tvf_snapshot_restore(void)
{
    tvf_mode = true;
    gap_ms = 1500;
    t_snapshot_restore();
    tvf_mode = false;
}

SL_TESTS(t_merge, t_snapshot_restore, t_tvf, t_tvf_snapshot_restore)
