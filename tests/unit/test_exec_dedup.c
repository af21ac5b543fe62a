/*
** test_exec_dedup.c — the deduplication operator (exec/op_dedup.c): exact
** keep-first / keep-last changelogs with NULL and string keys; keep-first by
** event time over out-of-order input (the earliest row among those not
** late, emitted when the watermark reaches it; ties; late rows dropped and
** counted), against Flink 2.2's output for the same input and against a
** reference simulation; many keys against a reference, snapshot -> restore
** -> identical further output (candidates waiting for the watermark
** included), version 1 snapshots still restored, corrupt and truncated
** snapshots rejected (XX001, never a crash), TTL with a fake clock, and
** updating input rejected; the normalize mode (ChangelogNormalize of an
** upsert changelog).
*/
#include "sl_exec.h"
#include "sl_test.h"

#include <stdint.h>
#include <stdio.h>
#include <xxhash.h>

#define NUL INT64_MIN /* a NULL integer in row() */
#define MS 1000000LL  /* ns per ms */

static sl_type types[4];
static const int key_k[] = {0};
static const int key_kn[] = {0, 1};

static void init_types(void)
{
    types[0] = sl_type_make_p(SL_TYPE_VARCHAR, 10, 0); /* k */
    types[1] = sl_type_make(SL_TYPE_INT);              /* n */
    types[2] = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);/* ts */
    types[3] = sl_type_make(SL_TYPE_BIGINT);           /* v */
}

static uint64_t rnd(void);

/* Fake processing-time clock (ns). */
static int64_t fake_now;
static int64_t fake_clock(void *ctx)
{
    (void)ctx;
    return fake_now;
}

static sl_operator *make_op(bool keep_first, const int *keys, int nkeys, int order_col,
                            int64_t ttl_ms)
{
    init_types();
    sl_dedup_spec spec = {4, types, nkeys, keys, order_col, keep_first, ttl_ms, fake_clock, NULL,
                          false, NULL, NULL, NULL, false, NULL, false, false};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    int rc = sl_dedup_new(&spec, &op, &err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err.message);
    sl_error_reset(&err);
    return rc == 0 ? op : NULL;
}

/* Appends each emitted row as "+I(k, n, ts, v, rn)" and a newline. */
static int collect(void *ctx, sl_chunk *c, sl_error *err)
{
    (void)err;
    sl_strbuf *sb = ctx;
    REQUIRE((c->ncols == 5 || c->ncols == 4) && c->nrows > 0 && c->nrows <= SL_CHUNK_ROWS);
    for (int r = 0; r < c->nrows; r++) {
        sl_strbuf_append(sb, sl_row_kind_name((sl_row_kind)c->kinds[r]));
        sl_strbuf_append_char(sb, '(');
        for (int i = 0; i < c->ncols; i++) {
            if (i)
                sl_strbuf_append(sb, ", ");
            if (!sl_value_format(sb, &c->cols[i], r))
                sl_strbuf_append(sb, "NULL");
        }
        sl_strbuf_append(sb, ")\n");
    }
    return 0;
}

/* Append a row (k NULL / n == NUL / ts == NUL for NULLs). */
static void row(sl_chunk *c, sl_row_kind kind, const char *k, int64_t n, int64_t ts_ms, int64_t v)
{
    int r = sl_chunk_append_row(c, kind);
    if (k)
        sl_chunk_set_str(c, 0, r, k, strlen(k));
    if (n != NUL)
        sl_chunk_set_i64(c, 1, r, n);
    if (ts_ms != NUL)
        sl_chunk_set_i64(c, 2, r, ts_ms * MS);
    sl_chunk_set_i64(c, 3, r, v);
}

static sl_chunk *new_chunk(void)
{
    init_types();
    return sl_chunk_new(4, types, SL_CHUNK_ROWS);
}

/* Process c and return the output text (static buffer reused). */
static const char *run(sl_operator *op, sl_chunk *c, sl_strbuf *out)
{
    sl_strbuf_reset(out);
    sl_emit em = {collect, out};
    sl_error err = SL_ERROR_INIT;
    int rc = op->ops->process(op, c, &em, &err);
    if (rc != 0)
        fprintf(stderr, "process: %s %s\n", err.sqlstate, err.message);
    CHECK(rc == 0);
    sl_error_reset(&err);
    sl_chunk_reset(c);
    return sl_strbuf_cstr(out);
}

/* Advance the watermark to wm_ms (INT64_MAX: the end of the input); return
** the output text. */
static const char *adv(sl_operator *op, int64_t wm_ms, sl_strbuf *out)
{
    sl_strbuf_reset(out);
    sl_emit em = {collect, out};
    sl_error err = SL_ERROR_INIT;
    int rc = op->ops->watermark(op, wm_ms == INT64_MAX ? INT64_MAX : wm_ms * MS, &em, &err);
    if (rc != 0)
        fprintf(stderr, "watermark: %s %s\n", err.sqlstate, err.message);
    CHECK(rc == 0);
    sl_error_reset(&err);
    return sl_strbuf_cstr(out);
}

/* Keep first by event time (Flink 2.2's rowtime keep-first): the earliest
** row per key among those not late, emitted once, when the watermark
** reaches it. */
static void t_keep_first(void)
{
    sl_operator *op = make_op(true, key_kn, 2, 2, 0);
    REQUIRE(op);
    CHECK_INT(op->out_ncols, 5);
    CHECK(op->out_types[4].id == SL_TYPE_BIGINT && op->out_types[4].not_null);
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT;
    row(c, SL_ROW_INSERT, "a", 1, 1000, 10);
    row(c, SL_ROW_INSERT, "a", 1, 500, 11);   /* earlier: the candidate now */
    row(c, SL_ROW_INSERT, "a", 2, 1000, 12);  /* other key */
    row(c, SL_ROW_INSERT, NULL, 1, 1000, 13); /* NULL k */
    row(c, SL_ROW_INSERT, NULL, 1, 1000, 14); /* NULL equals NULL; a tie keeps the first */
    row(c, SL_ROW_INSERT, NULL, NUL, 2000, 15);
    row(c, SL_ROW_INSERT, "", NUL, 2000, 16); /* '' is not NULL */
    row(c, SL_ROW_INSERT, "a", NUL, NUL, 17); /* NULL time: cannot be ordered, skipped */
    row(c, SL_ROW_INSERT, "a", 2, 700, 18);   /* earlier than 12 */
    CHECK_STR(run(op, c, &out), "");          /* nothing before the watermark */
    CHECK_STR(adv(op, 600, &out), "+I(a, 1, 1970-01-01 00:00:00.500, 11, 1)\n");
    row(c, SL_ROW_INSERT, "a", 1, 100, 20);   /* behind the watermark: late */
    row(c, SL_ROW_INSERT, "a", 2, 650, 21);   /* earlier than 18, not late */
    row(c, SL_ROW_INSERT, "a", 1, 600, 22);   /* not late, but a/1 is done */
    row(c, SL_ROW_INSERT, "b", 1, 600, 23);   /* at the watermark: not late */
    CHECK_STR(run(op, c, &out), "");
    CHECK_INT(op->ops->late_rows(op), 1);
    /* In order of time, then arrival. */
    CHECK_STR(adv(op, 2000, &out),
              "+I(b, 1, 1970-01-01 00:00:00.600, 23, 1)\n"
              "+I(a, 2, 1970-01-01 00:00:00.650, 21, 1)\n"
              "+I(NULL, 1, 1970-01-01 00:00:01.000, 13, 1)\n"
              "+I(NULL, NULL, 1970-01-01 00:00:02.000, 15, 1)\n"
              "+I(, NULL, 1970-01-01 00:00:02.000, 16, 1)\n");
    row(c, SL_ROW_INSERT, "a", 1, 9000, 30);  /* done */
    row(c, SL_ROW_INSERT, "c", 1, 9000, 31);
    row(c, SL_ROW_INSERT, "c", 1, 1500, 32);  /* late */
    CHECK_STR(run(op, c, &out), "");
    CHECK_STR(adv(op, 8999, &out), "");
    CHECK_STR(adv(op, INT64_MAX, &out), "+I(c, 1, 1970-01-01 00:00:09.000, 31, 1)\n");
    CHECK_STR(adv(op, INT64_MAX, &out), "");
    CHECK_INT(op->ops->late_rows(op), 2);
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    op->ops->free(op);
}

/* Flink 2.2 (peer run: /work/shared/peers/flink, filesystem CSV source,
** parallelism 1, WATERMARK ts - 5 s; its watermark assigner emits a
** watermark after each row here, as its event times jump by more than the
** 200 ms auto-watermark interval) printed, for these ten rows in this
** order, ORDER BY ts ASC: +I 1/a, +I 2/b, +I 3/g, +I 5/h (1/d, 4/e, 2/f and
** 3/i were late and dropped); ORDER BY ts DESC (RowTimeDeduplicateFunction, which
** does not look at the watermark): the changelog below. */
static void t_flink_late(void)
{
    static const struct {
        const char *auction;
        int price;
        int ts_s;
    } in[] = {{"1", 10, 10}, {"2", 20, 11}, {"3", 30, 30}, {"1", 11, 5},  {"4", 40, 20},
              {"2", 21, 24}, {"3", 31, 26}, {"5", 50, 40}, {"3", 32, 29}, {"3", 33, 35}};
    for (int kf = 1; kf >= 0; kf--) {
        sl_operator *op = make_op(kf, key_k, 1, 2, 0);
        REQUIRE(op);
        sl_chunk *c = new_chunk();
        sl_strbuf out = SL_STRBUF_INIT, all = SL_STRBUF_INIT;
        int64_t maxts = INT64_MIN, wm = INT64_MIN;
        for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
            row(c, SL_ROW_INSERT, in[i].auction, in[i].price, in[i].ts_s * 1000LL, (int64_t)i);
            sl_strbuf_append(&all, run(op, c, &out));
            if (in[i].ts_s * 1000LL > maxts)
                maxts = in[i].ts_s * 1000LL;
            if (maxts - 5000 > wm) {
                wm = maxts - 5000;
                sl_strbuf_append(&all, adv(op, wm, &out));
            }
        }
        sl_strbuf_append(&all, adv(op, INT64_MAX, &out));
        if (kf) {
            CHECK_STR(sl_strbuf_cstr(&all),
                      "+I(1, 10, 1970-01-01 00:00:10.000, 0, 1)\n"
                      "+I(2, 20, 1970-01-01 00:00:11.000, 1, 1)\n"
                      "+I(3, 31, 1970-01-01 00:00:26.000, 6, 1)\n"
                      "+I(5, 50, 1970-01-01 00:00:40.000, 7, 1)\n");
            CHECK_INT(op->ops->late_rows(op), 4); /* 1/d, 4/e, 2/f, 3/i */
        } else {
            CHECK_STR(sl_strbuf_cstr(&all),
                      "+I(1, 10, 1970-01-01 00:00:10.000, 0, 1)\n"
                      "+I(2, 20, 1970-01-01 00:00:11.000, 1, 1)\n"
                      "+I(3, 30, 1970-01-01 00:00:30.000, 2, 1)\n"
                      "+I(4, 40, 1970-01-01 00:00:20.000, 4, 1)\n"
                      "-U(2, 20, 1970-01-01 00:00:11.000, 1, 1)\n"
                      "+U(2, 21, 1970-01-01 00:00:24.000, 5, 1)\n"
                      "+I(5, 50, 1970-01-01 00:00:40.000, 7, 1)\n"
                      "-U(3, 30, 1970-01-01 00:00:30.000, 2, 1)\n"
                      "+U(3, 33, 1970-01-01 00:00:35.000, 9, 1)\n");
            CHECK_INT(op->ops->late_rows(op), 0);
        }
        sl_strbuf_free(&out);
        sl_strbuf_free(&all);
        sl_chunk_free(c);
        op->ops->free(op);
    }
}

/* Format ms since the epoch (0 <= ms < 1 day) as the collector does. */
static void fmt_ts(sl_strbuf *sb, int64_t ms)
{
    sl_strbuf_appendf(sb, "1970-01-01 %02d:%02d:%02d.%03d", (int)(ms / 3600000),
                      (int)(ms / 60000 % 60), (int)(ms / 1000 % 60), (int)(ms % 1000));
}

/* Keep first by event time over many keys and chunks, against two
** references: with the disorder within the watermark's delay (nothing
** late), each key's row with the smallest time (the first of equal ones);
** with late rows, a plain simulation (no heap: every key looked at on every
** watermark). */
static void t_first_by_time_reference(void)
{
    enum { NKEYS = 400, NROWS = 60000, DELAY = 2000 };
    for (int variant = 0; variant < 2; variant++) {
        sl_operator *op = make_op(true, key_k, 1, 2, 0);
        REQUIRE(op);
        int *state = calloc(NKEYS, sizeof *state); /* 0 none, 1 candidate, 2 emitted */
        int64_t *ct = calloc(NKEYS, sizeof *ct);   /* candidate's time */
        int *cv = calloc(NKEYS, sizeof *cv);       /* its row index */
        int *order = calloc(NKEYS, sizeof *order);
        int64_t *best_t = calloc(NKEYS, sizeof *best_t); /* variant 0: min time per key */
        int *best_v = calloc(NKEYS, sizeof *best_v);
        int64_t late = 0, maxts = INT64_MIN, wm = INT64_MIN;
        sl_chunk *c = new_chunk();
        sl_strbuf out = SL_STRBUF_INIT, got = SL_STRBUF_INIT, want = SL_STRBUF_INIT;
        for (int k = 0; k < NKEYS; k++)
            best_v[k] = -1;
        for (int i = 0; i < NROWS; i++) {
            int k = (int)(rnd() % NKEYS);
            int64_t t = 100000 + (int64_t)i * 5 + (int64_t)(rnd() % (DELAY - 1));
            if (variant == 1 && rnd() % 40 == 0)
                t -= (int64_t)(rnd() % 20000); /* often late */
            char ks[16];
            snprintf(ks, sizeof ks, "k%d", k);
            row(c, SL_ROW_INSERT, ks, k, t, i);
            if (t < wm) {
                late++;
            } else if (state[k] == 0 || (state[k] == 1 && t < ct[k])) {
                state[k] = 1;
                ct[k] = t;
                cv[k] = i;
            }
            if (best_v[k] < 0 || t < best_t[k]) {
                best_t[k] = t;
                best_v[k] = i;
            }
            if (t > maxts)
                maxts = t;
            if (sl_chunk_full(c) || i == NROWS - 1) {
                sl_strbuf_append(&got, run(op, c, &out));
                int64_t w = i == NROWS - 1 ? INT64_MAX : maxts - DELAY;
                if (w > wm) {
                    wm = w;
                    sl_strbuf_append(&got, adv(op, w == INT64_MAX ? INT64_MAX : w, &out));
                    /* The simulation: due candidates by time, then arrival (= row index). */
                    int n = 0;
                    for (int x = 0; x < NKEYS; x++)
                        if (state[x] == 1 && ct[x] <= wm)
                            order[n++] = x;
                    for (int a = 1; a < n; a++) /* insertion sort by (time, row) */
                        for (int b = a; b > 0 && (ct[order[b]] < ct[order[b - 1]] ||
                                                  (ct[order[b]] == ct[order[b - 1]] &&
                                                   cv[order[b]] < cv[order[b - 1]]));
                             b--) {
                            int tmp = order[b];
                            order[b] = order[b - 1];
                            order[b - 1] = tmp;
                        }
                    for (int a = 0; a < n; a++) {
                        int x = order[a];
                        sl_strbuf_appendf(&want, "+I(k%d, %d, ", x, x);
                        fmt_ts(&want, ct[x]);
                        sl_strbuf_appendf(&want, ", %d, 1)\n", cv[x]);
                        state[x] = 2;
                    }
                }
            }
        }
        CHECK(got.len > 0);
        CHECK(got.len == want.len && memcmp(sl_strbuf_cstr(&got), sl_strbuf_cstr(&want), got.len) == 0);
        CHECK_INT(op->ops->late_rows(op), late);
        if (variant == 0) {
            CHECK_INT(late, 0);
            for (int k = 0; k < NKEYS; k++) { /* each key's earliest row is in the output */
                sl_strbuf line = SL_STRBUF_INIT;
                sl_strbuf_appendf(&line, "+I(k%d, %d, ", k, k);
                fmt_ts(&line, best_t[k]);
                sl_strbuf_appendf(&line, ", %d, 1)\n", best_v[k]);
                CHECK(best_v[k] >= 0 && strstr(sl_strbuf_cstr(&got), sl_strbuf_cstr(&line)));
                sl_strbuf_free(&line);
            }
        } else {
            CHECK(late > 100);
        }
        if (sl_t_cur_failed)
            fprintf(stderr, "  variant %d\n", variant);
        sl_strbuf_free(&out);
        sl_strbuf_free(&got);
        sl_strbuf_free(&want);
        sl_chunk_free(c);
        free(state);
        free(ct);
        free(cv);
        free(order);
        free(best_t);
        free(best_v);
        op->ops->free(op);
    }
}

/* Keep first without an order column: arrival order, emitted at once. */
static void t_keep_first_arrival(void)
{
    sl_operator *op = make_op(true, key_kn, 2, -1, 0);
    REQUIRE(op);
    CHECK_INT(op->out_ncols, 5);
    CHECK(op->out_types[4].id == SL_TYPE_BIGINT && op->out_types[4].not_null);
    CHECK(sl_type_equal(op->out_types[0], types[0]));
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT;
    row(c, SL_ROW_INSERT, "a", 1, 1000, 10);
    row(c, SL_ROW_INSERT, "a", 1, 500, 11);   /* same key: dropped (arrival order) */
    row(c, SL_ROW_INSERT, "a", 2, 1000, 12);  /* other key */
    row(c, SL_ROW_INSERT, NULL, 1, 1000, 13); /* NULL k */
    row(c, SL_ROW_INSERT, NULL, 1, 2000, 14); /* NULL equals NULL: dropped */
    row(c, SL_ROW_INSERT, NULL, NUL, 2000, 15);
    row(c, SL_ROW_INSERT, "", NUL, 2000, 16); /* '' is not NULL */
    row(c, SL_ROW_INSERT, "a", NUL, NUL, 17);
    CHECK_STR(run(op, c, &out),
              "+I(a, 1, 1970-01-01 00:00:01.000, 10, 1)\n"
              "+I(a, 2, 1970-01-01 00:00:01.000, 12, 1)\n"
              "+I(NULL, 1, 1970-01-01 00:00:01.000, 13, 1)\n"
              "+I(NULL, NULL, 1970-01-01 00:00:02.000, 15, 1)\n"
              "+I(, NULL, 1970-01-01 00:00:02.000, 16, 1)\n"
              "+I(a, NULL, NULL, 17, 1)\n");
    row(c, SL_ROW_INSERT, "a", 1, 9000, 20);
    row(c, SL_ROW_INSERT, "", NUL, 9000, 21);
    row(c, SL_ROW_INSERT, "b", 1, 9000, 22);
    CHECK_STR(run(op, c, &out), "+I(b, 1, 1970-01-01 00:00:09.000, 22, 1)\n");
    CHECK_INT(op->ops->late_rows(op), 0);
    sl_emit em = {collect, &out};
    sl_error err = SL_ERROR_INIT;
    sl_strbuf_reset(&out);
    CHECK(op->ops->watermark(op, INT64_MAX, &em, &err) == 0);
    CHECK_INT(out.len, 0);
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    op->ops->free(op);
}

static void t_keep_last(void)
{
    sl_operator *op = make_op(false, key_k, 1, 2, 0);
    REQUIRE(op);
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT;
    row(c, SL_ROW_INSERT, "a", 1, 1000, 10);
    row(c, SL_ROW_INSERT, "b", 1, 1000, 11);
    row(c, SL_ROW_INSERT, "a", 2, 2000, 12);
    row(c, SL_ROW_INSERT, NULL, 3, 2000, 13);
    row(c, SL_ROW_INSERT, NULL, 4, 2000, 14);  /* tie on time: replaces */
    row(c, SL_ROW_INSERT, "a", 5, 1500, 15);   /* older than kept (2000): dropped */
    row(c, SL_ROW_INSERT, "a", 6, NUL, 16);    /* NULL time: arrival order */
    CHECK_STR(run(op, c, &out),
              "+I(a, 1, 1970-01-01 00:00:01.000, 10, 1)\n"
              "+I(b, 1, 1970-01-01 00:00:01.000, 11, 1)\n"
              "-U(a, 1, 1970-01-01 00:00:01.000, 10, 1)\n"
              "+U(a, 2, 1970-01-01 00:00:02.000, 12, 1)\n"
              "+I(NULL, 3, 1970-01-01 00:00:02.000, 13, 1)\n"
              "-U(NULL, 3, 1970-01-01 00:00:02.000, 13, 1)\n"
              "+U(NULL, 4, 1970-01-01 00:00:02.000, 14, 1)\n"
              "-U(a, 2, 1970-01-01 00:00:02.000, 12, 1)\n"
              "+U(a, 6, NULL, 16, 1)\n");
    row(c, SL_ROW_INSERT, "a", 7, 100, 17);    /* kept has NULL time: replaces */
    row(c, SL_ROW_INSERT, "b", NUL, 1000, 18);
    CHECK_STR(run(op, c, &out),
              "-U(a, 6, NULL, 16, 1)\n"
              "+U(a, 7, 1970-01-01 00:00:00.100, 17, 1)\n"
              "-U(b, 1, 1970-01-01 00:00:01.000, 11, 1)\n"
              "+U(b, NULL, 1970-01-01 00:00:01.000, 18, 1)\n");
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    op->ops->free(op);

    /* Without an order column: pure arrival order. */
    op = make_op(false, key_k, 1, -1, 0);
    REQUIRE(op);
    c = new_chunk();
    row(c, SL_ROW_INSERT, "x", 1, 5000, 1);
    row(c, SL_ROW_INSERT, "x", 2, 1000, 2);
    CHECK_STR(run(op, c, &out),
              "+I(x, 1, 1970-01-01 00:00:05.000, 1, 1)\n"
              "-U(x, 1, 1970-01-01 00:00:05.000, 1, 1)\n"
              "+U(x, 2, 1970-01-01 00:00:01.000, 2, 1)\n");
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    op->ops->free(op);
}

/* Keep last without -U (no consumer needs them): the rows of a keep-last
** deduplication that keeps whole rows, but for its -U, over random keys,
** times (some out of order, some NULL) and a restore midway; each mode's
** snapshot is refused by the other. */
static void t_keep_last_no_before(void)
{
    init_types();
    sl_dedup_spec spec = {4, types, 1, key_k, 2, false, 0, fake_clock, NULL,
                          false, NULL, NULL, NULL, false, NULL, false, true};
    sl_operator *nb = NULL, *full = make_op(false, key_k, 1, 2, 0);
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_dedup_new(&spec, &nb, &err) == 0 && full);
    sl_chunk *c = new_chunk(), *c2 = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT, want = SL_STRBUF_INIT, got = SL_STRBUF_INIT, snap = SL_STRBUF_INIT;
    uint64_t x = 12345;
    char key[8];
    for (int round = 0; round < 40; round++) {
        for (int i = 0; i < 50; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            snprintf(key, sizeof key, "k%d", (int)((x >> 33) % 17));
            int64_t ts = (x >> 20) % 13 == 0 ? NUL : round * 100 + (int64_t)((x >> 40) % 150);
            row(c, SL_ROW_INSERT, key, (int64_t)i, ts, round);
            row(c2, SL_ROW_INSERT, key, (int64_t)i, ts, round);
        }
        sl_t_lines_without(&want, run(full, c, &out), "-U"); /* the full rows but -U */
        sl_strbuf_append(&got, run(nb, c2, &out));
        if (round == 20) { /* on in a restored operator */
            sl_strbuf_reset(&snap);
            CHECK(nb->ops->snapshot(nb, &snap, &err) == 0);
            sl_operator *nb2 = NULL;
            REQUIRE(sl_dedup_new(&spec, &nb2, &err) == 0);
            CHECK(nb2->ops->restore(nb2, snap.buf, snap.len, &err) == 0);
            nb->ops->free(nb);
            nb = nb2;
            /* the other mode refuses it, and the reverse */
            sl_operator *f2 = make_op(false, key_k, 1, 2, 0);
            CHECK(f2->ops->restore(f2, snap.buf, snap.len, &err) == -1);
            CHECK_STR(err.sqlstate, SL_ERR_DATA_CORRUPTED);
            sl_error_reset(&err);
            sl_strbuf_reset(&snap);
            CHECK(full->ops->snapshot(full, &snap, &err) == 0);
            CHECK(f2->ops->restore(f2, snap.buf, snap.len, &err) == 0);
            sl_operator *nb3 = NULL;
            REQUIRE(sl_dedup_new(&spec, &nb3, &err) == 0);
            CHECK(nb3->ops->restore(nb3, snap.buf, snap.len, &err) == -1);
            sl_error_reset(&err);
            nb3->ops->free(nb3);
            f2->ops->free(f2);
        }
    }
    CHECK(got.len > 1000 && strstr(sl_strbuf_cstr(&got), "+U(") != NULL);
    CHECK_STR(sl_strbuf_cstr(&got), sl_strbuf_cstr(&want));
    sl_strbuf_free(&out);
    sl_strbuf_free(&want);
    sl_strbuf_free(&got);
    sl_strbuf_free(&snap);
    sl_chunk_free(c);
    sl_chunk_free(c2);
    nb->ops->free(nb);
    full->ops->free(full);
}

/* Many string keys over many chunks, against a reference per key. */
static void t_many_keys(void)
{
    enum { NKEYS = 20000, NROWS = 100000 };
    for (int kf = 0; kf < 2; kf++) {
        sl_operator *op = make_op(kf, key_k, 1, -1, 0);
        REQUIRE(op);
        int64_t *kept = calloc(NKEYS, sizeof *kept); /* reference: kept v + 1, 0 = none */
        sl_chunk *c = new_chunk();
        sl_strbuf out = SL_STRBUF_INIT, want = SL_STRBUF_INIT;
        uint64_t x = 12345;
        for (int i = 0; i < NROWS; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            int k = (int)((x >> 33) % NKEYS);
            char ks[16];
            snprintf(ks, sizeof ks, "key%d", k);
            row(c, SL_ROW_INSERT, ks, k, NUL, i);
            if (kf && !kept[k]) {
                sl_strbuf_appendf(&want, "+I(%s, %d, NULL, %d, 1)\n", ks, k, i);
            } else if (!kf) {
                if (kept[k])
                    sl_strbuf_appendf(&want, "-U(%s, %d, NULL, %lld, 1)\n+U(", ks, k,
                                      (long long)kept[k] - 1);
                else
                    sl_strbuf_append(&want, "+I(");
                sl_strbuf_appendf(&want, "%s, %d, NULL, %d, 1)\n", ks, k, i);
            }
            if (!kf || !kept[k])
                kept[k] = i + 1;
            if (sl_chunk_full(c) || i == NROWS - 1) {
                sl_strbuf tmp = SL_STRBUF_INIT;
                run(op, c, &tmp);
                sl_strbuf_append_n(&out, tmp.buf ? tmp.buf : "", tmp.len);
                sl_strbuf_free(&tmp);
            }
        }
        CHECK(out.len == want.len && memcmp(sl_strbuf_cstr(&out), sl_strbuf_cstr(&want), out.len) == 0);
        sl_strbuf_free(&out);
        sl_strbuf_free(&want);
        sl_chunk_free(c);
        free(kept);
        op->ops->free(op);
    }
}

/* Deterministic pseudo-random input rows. */
static uint64_t rs = 88172645463325252ULL;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

static void random_rows(sl_chunk *c, int n)
{
    for (int i = 0; i < n; i++) {
        char ks[16];
        int k = (int)(rnd() % 300);
        snprintf(ks, sizeof ks, "k%d", k);
        row(c, SL_ROW_INSERT, k == 7 ? NULL : ks, rnd() % 5 ? (int64_t)(rnd() % 4) : NUL,
            rnd() % 10 ? (int64_t)(rnd() % 100000) - 50000 : NUL, (int64_t)rnd() % 1000);
    }
}

static void snapshot(sl_operator *op, sl_strbuf *sb)
{
    sl_error err = SL_ERROR_INIT;
    sl_strbuf_reset(sb);
    CHECK(op->ops->snapshot(op, sb, &err) == 0);
    sl_error_reset(&err);
}

/* Process c, then advance the watermark to wm_ms: the output of both. */
static const char *step(sl_operator *op, sl_chunk *c, int64_t wm_ms, sl_strbuf *out)
{
    sl_strbuf w = SL_STRBUF_INIT;
    run(op, c, out);
    adv(op, wm_ms, &w);
    sl_strbuf_append_n(out, w.buf ? w.buf : "", w.len);
    sl_strbuf_free(&w);
    return sl_strbuf_cstr(out);
}

/* Snapshot an operator, restore a fresh one from it, feed both the same
** further input and watermarks: identical output and identical later
** snapshots (keep first by time: with candidates waiting, late rows). */
static void reseal(char *p, size_t n);
static int try_restore(sl_operator *op, const char *p, size_t n);

static void t_snapshot_restore(void)
{
    for (int variant = 0; variant < 4; variant++) {
        bool kf = variant & 1;
        int64_t ttl = variant & 2 ? 3000 : 0;
        fake_now = 1000 * MS;
        sl_operator *a = make_op(kf, key_kn, 2, 2, ttl);
        sl_operator *never = make_op(kf, key_kn, 2, 2, ttl); /* never snapshotted */
        REQUIRE(a && never);
        sl_chunk *c = new_chunk(), *c2 = new_chunk();
        sl_strbuf oa = SL_STRBUF_INIT, ob = SL_STRBUF_INIT, s1 = SL_STRBUF_INIT,
                  s2 = SL_STRBUF_INIT;
        int64_t wm = -60000; /* ms; the rows' times are -50000..50000 */
        size_t emitted = 0;
        for (int i = 0; i < 5; i++) {
            uint64_t save = rs;
            random_rows(c, 700);
            rs = save;
            random_rows(c2, 700);
            step(a, c, wm, &oa);
            step(never, c2, wm, &ob);
            CHECK_STR(sl_strbuf_cstr(&oa), sl_strbuf_cstr(&ob));
            emitted += oa.len;
            fake_now += 1000 * MS;
            wm += 7000;
        }
        CHECK(emitted > 0);
        snapshot(a, &s1);
        sl_operator *b = make_op(kf, key_kn, 2, 2, ttl);
        REQUIRE(b);
        sl_error err = SL_ERROR_INIT;
        CHECK(b->ops->restore(b, s1.buf, s1.len, &err) == 0);
        sl_error_reset(&err);
        snapshot(b, &s2);
        CHECK(s1.len == s2.len && memcmp(s1.buf, s2.buf, s1.len) == 0);
        { /* its version 3 form (FNV-1a trailer) restores to the same state */
            sl_operator *b3 = make_op(kf, key_kn, 2, 2, ttl);
            REQUIRE(b3);
            char *v3 = malloc(s1.len);
            memcpy(v3, s1.buf, s1.len);
            v3[7] = '3';
            reseal(v3, s1.len);
            CHECK(try_restore(b3, v3, s1.len) == 0);
            sl_strbuf_reset(&s2);
            snapshot(b3, &s2);
            CHECK(s1.len == s2.len && memcmp(s1.buf, s2.buf, s1.len) == 0);
            v3[s1.len - 1] ^= 1; /* and its checksum is checked */
            CHECK(try_restore(b3, v3, s1.len) == -1);
            free(v3);
            b3->ops->free(b3);
        }
        a->ops->free(a); /* the original is gone, as after a crash */
        emitted = 0;
        for (int i = 0; i < 8; i++) {
            uint64_t save = rs;
            random_rows(c, 900);
            rs = save;
            random_rows(c2, 900);
            step(b, c, i == 7 ? INT64_MAX : wm, &oa);
            step(never, c2, i == 7 ? INT64_MAX : wm, &ob);
            CHECK_STR(sl_strbuf_cstr(&oa), sl_strbuf_cstr(&ob));
            emitted += oa.len;
            fake_now += 1700 * MS;
            wm += 7000;
        }
        CHECK(emitted > 0);
        CHECK_INT(b->ops->late_rows(b), never->ops->late_rows(never));
        CHECK(!kf || b->ops->late_rows(b) > 0);
        snapshot(b, &s1);
        snapshot(never, &s2);
        CHECK(s1.len == s2.len && memcmp(s1.buf, s2.buf, s1.len) == 0);
        if (sl_t_cur_failed)
            fprintf(stderr, "  variant %d\n", variant);
        sl_strbuf_free(&oa);
        sl_strbuf_free(&ob);
        sl_strbuf_free(&s1);
        sl_strbuf_free(&s2);
        sl_chunk_free(c);
        sl_chunk_free(c2);
        b->ops->free(b);
        never->ops->free(never);
    }
}

/* The test's own FNV-1a (the snapshot's trailer), to forge bodies. */
static uint64_t fnv(const char *p, size_t n)
{
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (uint8_t)p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* The trailer of a forged body: XXH3 for version 4, FNV-1a before. */
static void reseal(char *p, size_t n)
{
    uint64_t h = n >= 8 && memcmp(p, "SLDEDUP4", 8) == 0 ? XXH3_64bits(p, n - 8) : fnv(p, n - 8);
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

/* Every truncation and single-byte change of snapshot s fails to restore
** into b (XX001); forged bodies with a valid checksum restore or fail, never
** crash (ASan), and some must fail. */
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
    for (int i = 0; i < 20000; i++) {
        memcpy(p, s->buf, s->len);
        int flips = 1 + (int)(rnd() % 3);
        for (int f = 0; f < flips; f++)
            p[rnd() % (s->len - 8)] = (char)rnd();
        reseal(p, s->len);
        if (try_restore(b, p, s->len) != 0)
            failed++;
    }
    CHECK(failed > 1000);
    free(p);
}

/* Offset of the entry count in a snapshot of a 4-column operator. */
#define COUNT_AT (8 + 4 + 4 + 1 + 4 + 8 + 8 + 8)

static void t_corrupt(void)
{
    fake_now = 0;
    sl_operator *a = make_op(false, key_kn, 2, 2, 0);
    sl_operator *b = make_op(false, key_kn, 2, 2, 0);
    REQUIRE(a && b);
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT, s = SL_STRBUF_INIT;
    row(c, SL_ROW_INSERT, "a", 1, 1000, 1);
    row(c, SL_ROW_INSERT, "bb", 2, 1000, 2);
    row(c, SL_ROW_INSERT, NULL, NUL, NUL, 3);
    run(a, c, &out);
    snapshot(a, &s);
    REQUIRE(s.len > 40);
    corrupt_all(b, &s);
    /* Specific forgeries: count = huge; trailing byte; a different operator. */
    char *p = malloc(s.len);
    memcpy(p, s.buf, s.len);
    for (int i = 0; i < 8; i++)
        p[COUNT_AT + i] = (char)0xff;
    reseal(p, s.len);
    CHECK(try_restore(b, p, s.len) == -1);
    char *q = malloc(s.len + 1);
    memcpy(q, s.buf, s.len - 8);
    q[s.len - 8] = 0;
    reseal(q, s.len + 1);
    CHECK(try_restore(b, q, s.len + 1) == -1);
    free(q);
    sl_operator *first = make_op(true, key_kn, 2, 2, 0);
    sl_operator *onekey = make_op(false, key_k, 1, 2, 0);
    REQUIRE(first && onekey);
    CHECK(try_restore(first, s.buf, s.len) == -1);
    CHECK(try_restore(onekey, s.buf, s.len) == -1);
    {
        size_t body = s.len - 8, hdr = COUNT_AT + 8;
        sl_strbuf d = SL_STRBUF_INIT;
        /* first entry: kind u8 + written i64 + len u32 + row */
        uint32_t rl = (uint8_t)s.buf[hdr + 9] | (uint32_t)(uint8_t)s.buf[hdr + 10] << 8;
        /* Duplicate key: the same entry twice. */
        sl_strbuf_append_n(&d, s.buf, body);
        sl_strbuf_append_n(&d, s.buf + hdr, 13 + rl);
        sl_strbuf_append_n(&d, "01234567", 8);
        d.buf[COUNT_AT] = 4;
        reseal(d.buf, d.len);
        CHECK(try_restore(b, d.buf, d.len) == -1);
        /* A keep-last holds kept rows only: a candidate (kind 1) or an emitted key or
        ** row (2, 3, 4) is wrong. */
        for (int kind = 1; kind <= 5; kind++) {
            sl_strbuf_reset(&d);
            sl_strbuf_append_n(&d, s.buf, s.len);
            d.buf[hdr] = (char)kind;
            reseal(d.buf, d.len);
            CHECK(try_restore(b, d.buf, d.len) == -1);
        }
        /* The unmodified snapshot, resealed, still restores. */
        sl_strbuf_reset(&d);
        sl_strbuf_append_n(&d, s.buf, s.len);
        reseal(d.buf, d.len);
        CHECK(try_restore(b, d.buf, d.len) == 0);
        sl_strbuf_free(&d);
    }
    /* After a failed restore the operator is empty and works. */
    CHECK(try_restore(b, s.buf, 5) == -1);
    row(c, SL_ROW_INSERT, "a", 1, 2000, 9);
    CHECK_STR(run(b, c, &out), "+I(a, 1, 1970-01-01 00:00:02.000, 9, 1)\n");
    /* A good restore, then the same input as the original. */
    CHECK(try_restore(b, s.buf, s.len) == 0);
    row(c, SL_ROW_INSERT, "a", 1, 2000, 9);
    CHECK_STR(run(b, c, &out),
              "-U(a, 1, 1970-01-01 00:00:01.000, 1, 1)\n"
              "+U(a, 1, 1970-01-01 00:00:02.000, 9, 1)\n");

    /* Keep first by time: candidates (with arrival ranks) and emitted keys. */
    sl_operator *f2 = make_op(true, key_kn, 2, 2, 0);
    REQUIRE(f2);
    row(c, SL_ROW_INSERT, "a", 1, 1000, 1);
    row(c, SL_ROW_INSERT, "bb", 2, 3000, 2);
    row(c, SL_ROW_INSERT, NULL, NUL, 5000, 3);
    row(c, SL_ROW_INSERT, "cc", 4, 5000, 4);
    run(first, c, &out);
    CHECK_STR(adv(first, 2000, &out), "+I(a, 1, 1970-01-01 00:00:01.000, 1, 1)\n");
    row(c, SL_ROW_INSERT, "a", 1, 100, 5); /* late */
    run(first, c, &out);
    snapshot(first, &s);
    corrupt_all(f2, &s);
    {
        /* An arrival rank out of range; a kept row (kind 0) in a keep-first by time. */
        size_t hdr = COUNT_AT + 8; /* the first entry: a's emitted key and row hash */
        uint32_t kl = (uint8_t)s.buf[hdr + 17] | (uint32_t)(uint8_t)s.buf[hdr + 18] << 8;
        size_t second = hdr + 21 + kl; /* bb's candidate: kind, written, arrival */
        REQUIRE((uint8_t)s.buf[hdr] == 3 && (uint8_t)s.buf[second] == 1);
        sl_strbuf d = SL_STRBUF_INIT;
        sl_strbuf_append_n(&d, s.buf, s.len);
        d.buf[second + 9] = 9;
        reseal(d.buf, d.len);
        CHECK(try_restore(f2, d.buf, d.len) == -1);
        sl_strbuf_reset(&d);
        sl_strbuf_append_n(&d, s.buf, s.len);
        d.buf[hdr] = 0;
        reseal(d.buf, d.len);
        CHECK(try_restore(f2, d.buf, d.len) == -1);
        sl_strbuf_free(&d);
    }
    CHECK(try_restore(f2, s.buf, s.len) == 0);
    CHECK_INT(f2->ops->late_rows(f2), 1);
    CHECK_STR(adv(f2, INT64_MAX, &out),
              "+I(bb, 2, 1970-01-01 00:00:03.000, 2, 1)\n"
              "+I(NULL, NULL, 1970-01-01 00:00:05.000, 3, 1)\n"
              "+I(cc, 4, 1970-01-01 00:00:05.000, 4, 1)\n");
    free(p);
    sl_strbuf_free(&out);
    sl_strbuf_free(&s);
    sl_chunk_free(c);
    a->ops->free(a);
    b->ops->free(b);
    f2->ops->free(f2);
    first->ops->free(first);
    onekey->ops->free(onekey);
}

/* A crash while candidates wait for the watermark: the restored operator
** has them, the watermark (a row behind it is still late) and the late
** count, and goes on as the original would have. */
static void t_restore_pending(void)
{
    sl_operator *op = make_op(true, key_k, 1, 2, 0);
    REQUIRE(op);
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT, s = SL_STRBUF_INIT;
    row(c, SL_ROW_INSERT, "a", 1, 5000, 1);
    row(c, SL_ROW_INSERT, "b", 2, 3000, 2);
    row(c, SL_ROW_INSERT, "c", 3, 500, 3);
    CHECK_STR(run(op, c, &out), "");
    CHECK_STR(adv(op, 1000, &out), "+I(c, 3, 1970-01-01 00:00:00.500, 3, 1)\n");
    row(c, SL_ROW_INSERT, "d", 4, 999, 4); /* late */
    CHECK_STR(run(op, c, &out), "");
    snapshot(op, &s);
    op->ops->free(op); /* the crash */
    op = make_op(true, key_k, 1, 2, 0);
    REQUIRE(op);
    sl_error err = SL_ERROR_INIT;
    REQUIRE(op->ops->restore(op, s.buf, s.len, &err) == 0);
    CHECK_INT(op->ops->late_rows(op), 1);
    row(c, SL_ROW_INSERT, "a", 5, 4000, 5);  /* earlier than the waiting 5000 */
    row(c, SL_ROW_INSERT, "e", 6, 800, 6);   /* behind the restored watermark */
    row(c, SL_ROW_INSERT, "c", 7, 1200, 7);  /* c was emitted before the crash */
    CHECK_STR(run(op, c, &out), "");
    CHECK_INT(op->ops->late_rows(op), 2);
    CHECK_STR(adv(op, INT64_MAX, &out),
              "+I(b, 2, 1970-01-01 00:00:03.000, 2, 1)\n"
              "+I(a, 5, 1970-01-01 00:00:04.000, 5, 1)\n");
    sl_strbuf_free(&out);
    sl_strbuf_free(&s);
    sl_chunk_free(c);
    op->ops->free(op);
}

/* Append the encoding of a (k, n, ts, v) row as the snapshot has it. */
static void enc_row(sl_strbuf *sb, const char *k, int64_t n, int64_t ts_ms, int64_t v)
{
    int64_t vals[3] = {n, ts_ms * MS, v};
    sl_strbuf_append_char(sb, 0);
    uint32_t kl = (uint32_t)strlen(k);
    for (int i = 0; i < 4; i++)
        sl_strbuf_append_char(sb, (char)(kl >> (8 * i)));
    sl_strbuf_append(sb, k);
    for (int c = 0; c < 3; c++) {
        sl_strbuf_append_char(sb, 0);
        for (int i = 0; i < 8; i++)
            sl_strbuf_append_char(sb, (char)((uint64_t)vals[c] >> (8 * i)));
    }
}

/* A snapshot in the version 1 format (before keep-first by event time)
** still restores: a keep-first's rows were emitted, a keep-last's are kept. */
static void t_restore_v1(void)
{
    init_types();
    for (int kf = 0; kf < 2; kf++) {
        sl_strbuf s = SL_STRBUF_INIT, r = SL_STRBUF_INIT, out = SL_STRBUF_INIT;
        sl_strbuf_append(&s, "SLDEDUP1");
        const char hdr[] = {4, 0, 0, 0, 1, 0, 0, 0};
        sl_strbuf_append_n(&s, hdr, sizeof hdr);
        sl_strbuf_append_char(&s, (char)kf);
        for (int i = 0; i < 4; i++)
            sl_strbuf_append_char(&s, (char)sl_phys_of(types[i]));
        const char two[8] = {2};
        sl_strbuf_append_n(&s, two, 8);
        const char *keys[] = {"a", "b"};
        for (int e = 0; e < 2; e++) {
            sl_strbuf_append_n(&s, "\0\0\0\0\0\0\0\0", 8); /* written */
            sl_strbuf_reset(&r);
            enc_row(&r, keys[e], e, 1000, 10 + e);
            for (int i = 0; i < 4; i++)
                sl_strbuf_append_char(&s, (char)(r.len >> (8 * i)));
            sl_strbuf_append_n(&s, r.buf, r.len);
        }
        sl_strbuf_append_n(&s, "01234567", 8);
        reseal(s.buf, s.len);
        sl_operator *op = make_op(kf, key_k, 1, 2, 0);
        REQUIRE(op);
        sl_error err = SL_ERROR_INIT;
        CHECK(op->ops->restore(op, s.buf, s.len, &err) == 0);
        sl_error_reset(&err);
        sl_chunk *c = new_chunk();
        row(c, SL_ROW_INSERT, "a", 5, 500, 20); /* earlier, but a's first row went out */
        row(c, SL_ROW_INSERT, "b", 6, 2000, 21);
        row(c, SL_ROW_INSERT, "c", 7, 3000, 22);
        step(op, c, INT64_MAX, &out);
        if (kf)
            CHECK_STR(sl_strbuf_cstr(&out), "+I(c, 7, 1970-01-01 00:00:03.000, 22, 1)\n");
        else
            CHECK_STR(sl_strbuf_cstr(&out),
                      "-U(b, 1, 1970-01-01 00:00:01.000, 11, 1)\n"
                      "+U(b, 6, 1970-01-01 00:00:02.000, 21, 1)\n"
                      "+I(c, 7, 1970-01-01 00:00:03.000, 22, 1)\n");
        snapshot(op, &r);
        CHECK(r.len > 8 && memcmp(r.buf, "SLDEDUP4", 8) == 0); /* written as version 4 */
        /* A version 1 snapshot with a bad checksum is refused as any other. */
        s.buf[s.len - 1] ^= 1;
        CHECK(try_restore(op, s.buf, s.len) == -1);
        sl_strbuf_free(&s);
        sl_strbuf_free(&r);
        sl_strbuf_free(&out);
        sl_chunk_free(c);
        op->ops->free(op);
    }
}

static void t_ttl(void)
{
    sl_strbuf out = SL_STRBUF_INIT;
    sl_chunk *c = new_chunk();
    /* keep first by time: the entry expires ttl after its row was emitted;
    ** a candidate waiting for the watermark never expires. */
    fake_now = 0;
    sl_operator *op = make_op(true, key_k, 1, 2, 1000);
    REQUIRE(op);
    row(c, SL_ROW_INSERT, "a", 1, 1, 1);
    CHECK_STR(step(op, c, 1, &out), "+I(a, 1, 1970-01-01 00:00:00.001, 1, 1)\n");
    fake_now = 999 * MS;
    row(c, SL_ROW_INSERT, "a", 2, 2, 2);
    CHECK_STR(step(op, c, 2, &out), "");
    fake_now = 1000 * MS;
    row(c, SL_ROW_INSERT, "a", 3, 3, 3);
    row(c, SL_ROW_INSERT, "a", 4, 4, 4);
    row(c, SL_ROW_INSERT, "b", 5, 100, 5);
    CHECK_STR(step(op, c, 3, &out), "+I(a, 3, 1970-01-01 00:00:00.003, 3, 1)\n");
    fake_now = 60000 * MS; /* b has waited a minute: still there, a swept */
    row(c, SL_ROW_INSERT, "z", 6, 200, 6);
    CHECK_STR(step(op, c, 100, &out), "+I(b, 5, 1970-01-01 00:00:00.100, 5, 1)\n");
    row(c, SL_ROW_INSERT, "a", 7, 150, 7); /* a was forgotten: a new first row */
    CHECK_STR(step(op, c, INT64_MAX, &out),
              "+I(a, 7, 1970-01-01 00:00:00.150, 7, 1)\n"
              "+I(z, 6, 1970-01-01 00:00:00.200, 6, 1)\n");
    op->ops->free(op);

    /* keep last: every kept row refreshes the entry. */
    fake_now = 0;
    op = make_op(false, key_k, 1, 2, 1000);
    REQUIRE(op);
    row(c, SL_ROW_INSERT, "a", 1, 1, 1);
    row(c, SL_ROW_INSERT, "b", 1, 1, 1);
    CHECK_STR(run(op, c, &out),
              "+I(a, 1, 1970-01-01 00:00:00.001, 1, 1)\n"
              "+I(b, 1, 1970-01-01 00:00:00.001, 1, 1)\n");
    fake_now = 900 * MS;
    row(c, SL_ROW_INSERT, "a", 2, 2, 2);
    CHECK_STR(run(op, c, &out),
              "-U(a, 1, 1970-01-01 00:00:00.001, 1, 1)\n"
              "+U(a, 2, 1970-01-01 00:00:00.002, 2, 1)\n");
    fake_now = 1800 * MS;
    row(c, SL_ROW_INSERT, "a", 3, 3, 3);
    row(c, SL_ROW_INSERT, "b", 3, 3, 3); /* b expired at 1000 */
    CHECK_STR(run(op, c, &out),
              "-U(a, 2, 1970-01-01 00:00:00.002, 2, 1)\n"
              "+U(a, 3, 1970-01-01 00:00:00.003, 3, 1)\n"
              "+I(b, 3, 1970-01-01 00:00:00.003, 3, 1)\n");
    /* An expired entry is gone from the snapshot; a live one stays. */
    fake_now = 2800 * MS; /* a (written 1800) expires now; b (1800) too */
    sl_strbuf s = SL_STRBUF_INIT;
    snapshot(op, &s);
    sl_operator *fresh = make_op(false, key_k, 1, 2, 1000);
    sl_strbuf s0 = SL_STRBUF_INIT;
    snapshot(fresh, &s0);
    CHECK(s.len == s0.len && memcmp(s.buf, s0.buf, s.len) == 0);
    row(c, SL_ROW_INSERT, "a", 4, 0, 4); /* older time, but the kept row expired: +I */
    CHECK_STR(run(op, c, &out), "+I(a, 4, 1970-01-01 00:00:00.000, 4, 1)\n");
    /* Order of the snapshot is first-seen order, re-seen keys at the end. */
    fake_now = 2900 * MS;
    row(c, SL_ROW_INSERT, "b", 5, 0, 5);
    row(c, SL_ROW_INSERT, "c", 5, 0, 5);
    run(op, c, &out);
    snapshot(op, &s);
    const char *pa = memmem(s.buf, s.len, "\x01\x00\x00\x00" "a", 5);
    const char *pb = memmem(s.buf, s.len, "\x01\x00\x00\x00" "b", 5);
    const char *pc = memmem(s.buf, s.len, "\x01\x00\x00\x00" "c", 5);
    CHECK(pa && pb && pc && pa < pb && pb < pc);
    /* A sweep (a later process call) frees expired state without changing behaviour. */
    fake_now = 10000 * MS;
    row(c, SL_ROW_INSERT, "z", 1, 0, 1);
    CHECK_STR(run(op, c, &out), "+I(z, 1, 1970-01-01 00:00:00.000, 1, 1)\n");
    snapshot(op, &s);
    sl_strbuf_free(&s);
    sl_strbuf_free(&s0);
    fresh->ops->free(fresh);
    op->ops->free(op);
    sl_strbuf_free(&out);
    sl_chunk_free(c);
}

static void t_updates_rejected(void)
{
    const sl_row_kind bad[] = {SL_ROW_UPDATE_BEFORE, SL_ROW_UPDATE_AFTER, SL_ROW_DELETE};
    for (int i = 0; i < 3; i++) {
        sl_operator *op = make_op(i % 2, key_k, 1, 2, 0);
        REQUIRE(op);
        sl_chunk *c = new_chunk();
        sl_strbuf out = SL_STRBUF_INIT;
        row(c, SL_ROW_INSERT, "a", 1, 1, 1);
        row(c, bad[i], "a", 1, 1, 1);
        sl_emit em = {collect, &out};
        sl_error err = SL_ERROR_INIT;
        CHECK(op->ops->process(op, c, &em, &err) == -1);
        CHECK_STR(err.sqlstate, "XX000");
        CHECK(err.message && strstr(err.message, "append-only"));
        CHECK_INT(out.len, 0);
        sl_error_reset(&err);
        sl_chunk_reset(c);
        /* Nothing of the rejected chunk was kept. */
        row(c, SL_ROW_INSERT, "a", 1, 1, 1);
        CHECK_STR(step(op, c, INT64_MAX, &out), "+I(a, 1, 1970-01-01 00:00:00.001, 1, 1)\n");
        sl_strbuf_free(&out);
        sl_chunk_free(c);
        op->ops->free(op);
    }
}

/* keep last with every row updating: output is twice the input, emitted in
** chunks of at most SL_CHUNK_ROWS. */
static void t_output_chunking(void)
{
    sl_operator *op = make_op(false, key_k, 1, -1, 0);
    REQUIRE(op);
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT;
    for (int i = 0; i < SL_CHUNK_ROWS; i++)
        row(c, SL_ROW_INSERT, "same", i, NUL, i);
    run(op, c, &out);
    int lines = 0;
    for (size_t i = 0; i < out.len; i++)
        lines += out.buf[i] == '\n';
    CHECK_INT(lines, 1 + 2 * (SL_CHUNK_ROWS - 1));
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    op->ops->free(op);
}

static void t_bad_spec(void)
{
    init_types();
    int bad_key[] = {4};
    sl_dedup_spec specs[] = {
        {4, types, 1, bad_key, 2, true, 0, NULL, NULL, false, NULL, NULL, NULL, false, NULL, false, false},
        {4, types, 1, key_k, 0, true, 0, NULL, NULL, false, NULL, NULL, NULL, false, NULL, false, false}, /* order column is a string */
        {4, types, 1, key_k, 2, true, -1, NULL, NULL, false, NULL, NULL, NULL, false, NULL, false, false},
    };
    for (int i = 0; i < 3; i++) {
        sl_operator *op = NULL;
        sl_error err = SL_ERROR_INIT;
        CHECK(sl_dedup_new(&specs[i], &op, &err) == -1);
        CHECK(op == NULL && sl_error_isset(&err));
        sl_error_reset(&err);
    }
}

/* normalize: Flink's ChangelogNormalize of an upsert changelog. */
static void t_normalize(void)
{
    init_types();
    sl_dedup_spec spec = {4, types, 1, key_k, 2, false, 0, fake_clock, NULL, true, NULL, NULL, NULL, false, NULL, false, false};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_dedup_new(&spec, &op, &err) == 0);
    CHECK_INT(op->out_ncols, 4); /* no row number */
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT;
    row(c, SL_ROW_UPDATE_AFTER, "a", 1, 1000, 10);  /* a new key */
    row(c, SL_ROW_UPDATE_AFTER, "a", 1, 1000, 10);  /* the same row again: nothing */
    row(c, SL_ROW_UPDATE_AFTER, "a", 2, 500, 11);   /* changed (time is no order here) */
    row(c, SL_ROW_UPDATE_BEFORE, "a", 2, 500, 11);  /* an upsert changelog's -U: ignored */
    row(c, SL_ROW_DELETE, "b", NUL, NUL, 0);        /* an unknown key's delete: nothing */
    row(c, SL_ROW_INSERT, "b", 5, 1000, 12);
    row(c, SL_ROW_DELETE, "a", NUL, NUL, 0);        /* only the key is read */
    row(c, SL_ROW_DELETE, "a", NUL, NUL, 0);        /* already gone */
    CHECK_STR(run(op, c, &out),
              "+I(a, 1, 1970-01-01 00:00:01.000, 10)\n"
              "-U(a, 1, 1970-01-01 00:00:01.000, 10)\n"
              "+U(a, 2, 1970-01-01 00:00:00.500, 11)\n"
              "+I(b, 5, 1970-01-01 00:00:01.000, 12)\n"
              "-D(a, 2, 1970-01-01 00:00:00.500, 11)\n");
    /* A snapshot holds the kept rows only (not a's gone entry); a restored
    ** operator goes on the same way. */
    sl_strbuf st = SL_STRBUF_INIT;
    CHECK_INT(op->ops->snapshot(op, &st, &err), 0);
    sl_operator *again = NULL;
    REQUIRE(sl_dedup_new(&spec, &again, &err) == 0);
    CHECK_INT(again->ops->restore(again, st.buf, st.len, &err), 0);
    for (int k = 0; k < 2; k++) {
        sl_operator *o = k ? again : op;
        row(c, SL_ROW_UPDATE_AFTER, "a", 3, 1000, 13); /* a is back: new */
        row(c, SL_ROW_UPDATE_AFTER, "b", 6, 1000, 14);
        CHECK_STR(run(o, c, &out),
                  "+I(a, 3, 1970-01-01 00:00:01.000, 13)\n"
                  "-U(b, 5, 1970-01-01 00:00:01.000, 12)\n"
                  "+U(b, 6, 1970-01-01 00:00:01.000, 14)\n");
    }
    /* The state of a deduplication is not a normalization's. */
    sl_operator *dd = make_op(false, key_k, 1, 2, 0);
    REQUIRE(dd);
    CHECK_INT(dd->ops->restore(dd, st.buf, st.len, &err), -1);
    CHECK_STR(err.sqlstate, "XX001");
    sl_error_reset(&err);
    dd->ops->free(dd);
    /* Many keys deleted: their entries are compacted away, the rest kept. */
    for (int i = 0; i < 3000; i++) {
        char k[16];
        snprintf(k, sizeof k, "k%d", i);
        row(c, SL_ROW_UPDATE_AFTER, k, i, 0, i);
        if (c->nrows == c->cap)
            run(op, c, &out);
    }
    run(op, c, &out);
    for (int i = 0; i < 3000; i++) {
        char k[16];
        snprintf(k, sizeof k, "k%d", i);
        row(c, SL_ROW_DELETE, k, NUL, NUL, 0);
        if (c->nrows == c->cap)
            run(op, c, &out);
    }
    run(op, c, &out);
    row(c, SL_ROW_UPDATE_AFTER, "b", 7, 1000, 15);
    CHECK_STR(run(op, c, &out),
              "-U(b, 6, 1970-01-01 00:00:01.000, 14)\n"
              "+U(b, 7, 1970-01-01 00:00:01.000, 15)\n");
    sl_strbuf_reset(&st);
    CHECK_INT(op->ops->snapshot(op, &st, &err), 0);
    CHECK(st.len < 200); /* a and b only */
    sl_strbuf_free(&st);
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    op->ops->free(op);
    again->ops->free(again);
}

SL_TESTS(t_keep_first, t_flink_late, t_first_by_time_reference, t_keep_first_arrival,
         t_restore_pending, t_restore_v1, t_keep_last, t_keep_last_no_before, t_many_keys, t_snapshot_restore, t_corrupt, t_ttl,
         t_updates_rejected, t_output_chunking, t_bad_spec, t_normalize)
