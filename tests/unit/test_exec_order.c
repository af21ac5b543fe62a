/*
** test_exec_order.c — the ORDER BY / LIMIT operator (exec/op_order.c): a
** batch sort of many random rows (NULLs, ties, several keys) against a
** reference computed here by an insertion sort, with OFFSET / LIMIT; an
** updating input applied before the sort; the temporal sort releasing rows
** as the watermark passes them and dropping late ones; LIMIT alone;
** snapshot -> restore mid-stream -> the same further output as a run
** without a restart, in every mode; corrupt and truncated snapshots
** rejected (XX001, never a crash).
*/
#include "sl_exec.h"
#include "sl_test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NUL INT64_MIN /* a NULL integer in row() */
#define MS 1000000LL  /* ns per ms */

/* Columns: k INT, s VARCHAR, t TIMESTAMP(3), id BIGINT. */
static sl_type types[4];

static void init_types(void)
{
    types[0] = sl_type_make(SL_TYPE_INT);
    types[1] = sl_type_make_p(SL_TYPE_VARCHAR, 10, 0);
    types[2] = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    types[3] = sl_type_make(SL_TYPE_BIGINT);
}

static sl_operator *make_op(sl_order_mode mode, const sl_sort_key *keys, int nkeys, int64_t offset,
                            int64_t limit)
{
    init_types();
    sl_order_spec spec = {mode, 4, types, nkeys, keys, offset, limit};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    int rc = sl_order_new(&spec, &op, &err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err.message);
    sl_error_reset(&err);
    return rc == 0 ? op : NULL;
}

/* Appends each emitted row as "+I(k, s, t, id)" and a newline. */
static int collect(void *ctx, sl_chunk *c, sl_error *err)
{
    (void)err;
    sl_strbuf *sb = ctx;
    REQUIRE(c->ncols == 4 && c->nrows > 0 && c->nrows <= SL_CHUNK_ROWS);
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

static sl_chunk *new_chunk(void)
{
    init_types();
    return sl_chunk_new(4, types, SL_CHUNK_ROWS);
}

static void row(sl_chunk *c, sl_row_kind kind, int64_t k, const char *s, int64_t t_ms, int64_t id)
{
    int r = sl_chunk_append_row(c, kind);
    if (k != NUL)
        sl_chunk_set_i64(c, 0, r, k);
    if (s)
        sl_chunk_set_str(c, 1, r, s, strlen(s));
    sl_chunk_set_i64(c, 2, r, t_ms * MS);
    sl_chunk_set_i64(c, 3, r, id);
}

static int feed(sl_operator *op, sl_chunk *c, sl_strbuf *out)
{
    sl_emit em = {collect, out};
    sl_error err = SL_ERROR_INIT;
    int rc = op->ops->process(op, c, &em, &err);
    sl_error_reset(&err);
    sl_chunk_reset(c);
    return rc;
}

static int wm(sl_operator *op, int64_t w, sl_strbuf *out)
{
    sl_emit em = {collect, out};
    sl_error err = SL_ERROR_INIT;
    int rc = op->ops->watermark(op, w, &em, &err);
    sl_error_reset(&err);
    return rc;
}

/* ---- the reference: rows as plain structs, sorted by insertion ---------- */

typedef struct ref_row {
    int64_t k; /* NUL = NULL */
    char s[8]; /* "" with snull = NULL */
    bool snull;
    int64_t t, id;
} ref_row;

/* Flink's order: k ASC NULLS FIRST, then s DESC NULLS LAST, then arrival. */
static int ref_cmp(const ref_row *a, const ref_row *b)
{
    if (a->k != b->k) {
        if (a->k == NUL)
            return -1;
        if (b->k == NUL)
            return 1;
        return a->k < b->k ? -1 : 1;
    }
    if (a->snull != b->snull)
        return a->snull ? 1 : -1;
    if (!a->snull) {
        int c = strcmp(a->s, b->s);
        if (c)
            return -c;
    }
    return 0;
}

static void ref_format(sl_strbuf *sb, const ref_row *r)
{
    sl_strbuf_append(sb, "+I(");
    if (r->k == NUL)
        sl_strbuf_append(sb, "NULL");
    else
        sl_strbuf_appendf(sb, "%lld", (long long)r->k);
    sl_strbuf_appendf(sb, ", %s, ", r->snull ? "NULL" : r->s);
    sl_chunk *c = new_chunk();
    row(c, SL_ROW_INSERT, 0, "x", r->t, 0);
    sl_value_format(sb, &c->cols[2], 0);
    sl_chunk_free(c);
    sl_strbuf_appendf(sb, ", %lld)\n", (long long)r->id);
}

/* Many random rows in chunks of random sizes: the sorted output with
** OFFSET / LIMIT equals the reference. */
static void t_batch_reference(void)
{
    const sl_sort_key keys[] = {{0, false, 1}, {1, true, 2}};
    struct { int64_t offset, limit; } cases[] = {{0, -1}, {5, 20}, {0, 1}, {2990, 50}, {0, 0}};
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        srand(7 + (unsigned)ci);
        int n = 3000;
        ref_row *ref = calloc((size_t)n, sizeof *ref);
        sl_operator *op = make_op(SL_ORDER_END, keys, 2, cases[ci].offset, cases[ci].limit);
        REQUIRE(op);
        sl_chunk *c = new_chunk();
        sl_strbuf out = SL_STRBUF_INIT;
        for (int i = 0; i < n; i++) {
            ref_row *r = &ref[i];
            r->k = rand() % 10 == 0 ? NUL : rand() % 40;
            r->snull = rand() % 10 == 0;
            if (!r->snull)
                snprintf(r->s, sizeof r->s, "s%d", rand() % 30);
            r->t = rand() % 100000;
            r->id = i;
            row(c, SL_ROW_INSERT, r->k, r->snull ? NULL : r->s, r->t, r->id);
            if (sl_chunk_full(c) || rand() % 50 == 0)
                REQUIRE(feed(op, c, &out) == 0);
        }
        REQUIRE(feed(op, c, &out) == 0);
        CHECK(wm(op, 50000 * MS, &out) == 0);
        CHECK_STR(sl_strbuf_cstr(&out), ""); /* nothing before the end */
        CHECK(wm(op, INT64_MAX, &out) == 0);
        /* insertion sort: stable */
        for (int i = 1; i < n; i++) {
            ref_row x = ref[i];
            int j = i - 1;
            while (j >= 0 && ref_cmp(&ref[j], &x) > 0) {
                ref[j + 1] = ref[j];
                j--;
            }
            ref[j + 1] = x;
        }
        sl_strbuf want = SL_STRBUF_INIT;
        for (int64_t i = cases[ci].offset;
             i < n && (cases[ci].limit < 0 || i < cases[ci].offset + cases[ci].limit); i++)
            ref_format(&want, &ref[i]);
        CHECK_STR(sl_strbuf_cstr(&out), sl_strbuf_cstr(&want));
        sl_strbuf_free(&want);
        sl_strbuf_free(&out);
        sl_chunk_free(c);
        op->ops->free(op);
        free(ref);
    }
}

/* An updating input (a GROUP BY's changelog in batch mode) is applied:
** only the final rows are sorted and emitted. */
static void t_batch_updating(void)
{
    const sl_sort_key keys[] = {{3, true, 2}};
    sl_operator *op = make_op(SL_ORDER_END, keys, 1, 0, -1);
    REQUIRE(op);
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT;
    row(c, SL_ROW_INSERT, 1, "a", 0, 1);
    row(c, SL_ROW_INSERT, 2, "b", 0, 1);
    row(c, SL_ROW_UPDATE_BEFORE, 1, "a", 0, 1);
    row(c, SL_ROW_UPDATE_AFTER, 1, "a", 0, 2);
    row(c, SL_ROW_INSERT, 3, "c", 0, 5);
    row(c, SL_ROW_DELETE, 3, "c", 0, 5);
    row(c, SL_ROW_DELETE, 9, "z", 0, 9); /* nothing held matches: ignored */
    REQUIRE(feed(op, c, &out) == 0);
    CHECK(wm(op, INT64_MAX, &out) == 0);
    CHECK_STR(sl_strbuf_cstr(&out), "+I(1, a, 1970-01-01 00:00:00.000, 2)\n"
                                    "+I(2, b, 1970-01-01 00:00:00.000, 1)\n");
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    op->ops->free(op);
}

/* Many groups updated many times (a GROUP BY's changelog), some deleted:
** the sorted output is each live group's last row (the reference: an
** array of counts kept here). */
static void t_batch_updating_many(void)
{
    const sl_sort_key keys[] = {{0, true, 2}};
    sl_operator *op = make_op(SL_ORDER_END, keys, 1, 0, -1);
    REQUIRE(op);
    enum { NK = 3000 };
    static int64_t cnt[NK];
    memset(cnt, 0, sizeof cnt);
    srand(11);
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT;
    for (int step = 0; step < 40000; step++) {
        if (c->nrows + 2 > c->cap)
            REQUIRE(feed(op, c, &out) == 0);
        int k = rand() % NK;
        if (cnt[k] > 0 && rand() % 10 == 0) {
            row(c, SL_ROW_DELETE, k, "g", 0, cnt[k]);
            cnt[k] = 0;
        } else if (cnt[k] > 0) {
            row(c, SL_ROW_UPDATE_BEFORE, k, "g", 0, cnt[k]);
            row(c, SL_ROW_UPDATE_AFTER, k, "g", 0, ++cnt[k]);
        } else {
            row(c, SL_ROW_INSERT, k, "g", 0, ++cnt[k]);
        }
    }
    REQUIRE(feed(op, c, &out) == 0);
    CHECK(wm(op, INT64_MAX, &out) == 0);
    sl_strbuf want = SL_STRBUF_INIT;
    for (int k = NK - 1; k >= 0; k--)
        if (cnt[k] > 0)
            sl_strbuf_appendf(&want, "+I(%d, g, 1970-01-01 00:00:00.000, %lld)\n", k,
                              (long long)cnt[k]);
    CHECK(want.len > 0);
    CHECK_STR(sl_strbuf_cstr(&out), sl_strbuf_cstr(&want));
    sl_strbuf_free(&want);
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    op->ops->free(op);
}

/* The temporal sort: rows released in time order (ties by the next key) as
** the watermark passes them; a row at or behind the watermark is late. */
static void t_temporal(void)
{
    const sl_sort_key keys[] = {{2, false, 1}, {0, false, 1}};
    sl_operator *op = make_op(SL_ORDER_TIME, keys, 2, 0, -1);
    REQUIRE(op);
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT;
    row(c, SL_ROW_INSERT, 2, "b", 2000, 1);
    row(c, SL_ROW_INSERT, 1, "a", 1000, 2);
    row(c, SL_ROW_INSERT, 5, "e", 2000, 3);
    row(c, SL_ROW_INSERT, 3, "c", 3000, 4);
    row(c, SL_ROW_INSERT, 4, "d", 2000, 5);
    REQUIRE(feed(op, c, &out) == 0);
    CHECK(wm(op, 2000 * MS, &out) == 0);
    CHECK_STR(sl_strbuf_cstr(&out), "+I(1, a, 1970-01-01 00:00:01.000, 2)\n"
                                    "+I(2, b, 1970-01-01 00:00:02.000, 1)\n"
                                    "+I(4, d, 1970-01-01 00:00:02.000, 5)\n"
                                    "+I(5, e, 1970-01-01 00:00:02.000, 3)\n");
    sl_strbuf_reset(&out);
    row(c, SL_ROW_INSERT, 9, "late", 2000, 6); /* at the watermark: late */
    row(c, SL_ROW_INSERT, 0, "z", 2500, 7);
    REQUIRE(feed(op, c, &out) == 0);
    CHECK(op->ops->late_rows(op) == 1);
    CHECK(wm(op, INT64_MAX, &out) == 0);
    CHECK_STR(sl_strbuf_cstr(&out), "+I(0, z, 1970-01-01 00:00:02.500, 7)\n"
                                    "+I(3, c, 1970-01-01 00:00:03.000, 4)\n");
    /* an update is refused */
    row(c, SL_ROW_DELETE, 0, "z", 9000, 7);
    CHECK(feed(op, c, &out) == -1);
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    op->ops->free(op);
}

/* LIMIT alone: the first rows after OFFSET, as they come. */
static void t_pass(void)
{
    sl_operator *op = make_op(SL_ORDER_PASS, NULL, 0, 1, 2);
    REQUIRE(op);
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT;
    row(c, SL_ROW_INSERT, 1, "a", 0, 1);
    row(c, SL_ROW_INSERT, 2, "b", 0, 2);
    REQUIRE(feed(op, c, &out) == 0);
    CHECK_STR(sl_strbuf_cstr(&out), "+I(2, b, 1970-01-01 00:00:00.000, 2)\n");
    row(c, SL_ROW_INSERT, 3, "c", 0, 3);
    row(c, SL_ROW_INSERT, 4, "d", 0, 4);
    REQUIRE(feed(op, c, &out) == 0);
    CHECK_STR(sl_strbuf_cstr(&out), "+I(2, b, 1970-01-01 00:00:00.000, 2)\n"
                                    "+I(3, c, 1970-01-01 00:00:00.000, 3)\n");
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    op->ops->free(op);
}

/* The input of the restart test: rows with times, some late for TIME. */
static void restart_input(sl_chunk *c, int part)
{
    for (int i = 0; i < 300; i++) {
        int id = part * 300 + i;
        int64_t t = (int64_t)(id * 7 % 1000) + part * 500;
        row(c, SL_ROW_INSERT, id % 13 == 0 ? NUL : id % 17,
            id % 11 == 0 ? NULL : (id % 2 ? "odd" : "even"), t, id);
    }
}

/* snapshot -> restore (into a new operator) mid-stream -> the same output
** as the operator that never stopped, in every mode. */
static void t_snapshot_restore(void)
{
    const sl_sort_key keys[] = {{2, false, 1}, {0, true, 2}, {3, false, 1}};
    sl_order_mode modes[] = {SL_ORDER_END, SL_ORDER_TIME, SL_ORDER_PASS};
    for (int m = 0; m < 3; m++) {
        int nk = modes[m] == SL_ORDER_PASS ? 0 : 3;
        sl_operator *a = make_op(modes[m], keys, nk, 10, 400);
        sl_operator *b = make_op(modes[m], keys, nk, 10, 400);
        REQUIRE(a && b);
        sl_chunk *c = new_chunk();
        sl_strbuf out_a = SL_STRBUF_INIT, out_b = SL_STRBUF_INIT;
        restart_input(c, 0);
        REQUIRE(feed(a, c, &out_a) == 0);
        CHECK(wm(a, 400 * MS, &out_a) == 0);
        sl_strbuf state = SL_STRBUF_INIT;
        sl_error err = SL_ERROR_INIT;
        REQUIRE(a->ops->snapshot(a, &state, &err) == 0);
        REQUIRE(b->ops->restore(b, state.buf, state.len, &err) == 0);
        CHECK(b->ops->late_rows(b) == a->ops->late_rows(a));
        sl_strbuf_free(&state);
        sl_strbuf_reset(&out_a);
        for (int part = 1; part < 3; part++) {
            restart_input(c, part);
            REQUIRE(feed(a, c, &out_a) == 0);
            restart_input(c, part);
            REQUIRE(feed(b, c, &out_b) == 0);
            CHECK(wm(a, (part * 500 + 300) * MS, &out_a) == 0);
            CHECK(wm(b, (part * 500 + 300) * MS, &out_b) == 0);
        }
        CHECK(wm(a, INT64_MAX, &out_a) == 0);
        CHECK(wm(b, INT64_MAX, &out_b) == 0);
        CHECK(out_a.len > 0);
        CHECK_STR(sl_strbuf_cstr(&out_b), sl_strbuf_cstr(&out_a));
        CHECK(b->ops->late_rows(b) == a->ops->late_rows(a));
        sl_strbuf_free(&out_a);
        sl_strbuf_free(&out_b);
        sl_chunk_free(c);
        a->ops->free(a);
        b->ops->free(b);
    }
}

/* A damaged or truncated state, or another sort's, is refused (XX001). */
static void t_corrupt(void)
{
    const sl_sort_key keys[] = {{0, false, 1}};
    sl_operator *a = make_op(SL_ORDER_END, keys, 1, 0, -1);
    sl_operator *b = make_op(SL_ORDER_END, keys, 1, 0, -1);
    sl_operator *t = make_op(SL_ORDER_PASS, NULL, 0, 0, 5);
    REQUIRE(a && b && t);
    sl_chunk *c = new_chunk();
    sl_strbuf out = SL_STRBUF_INIT;
    row(c, SL_ROW_INSERT, 1, "a", 0, 1);
    row(c, SL_ROW_INSERT, 2, "b", 0, 2);
    REQUIRE(feed(a, c, &out) == 0);
    sl_strbuf state = SL_STRBUF_INIT;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(a->ops->snapshot(a, &state, &err) == 0);
    for (size_t cut = 0; cut < state.len; cut += 3) {
        CHECK(b->ops->restore(b, state.buf, cut, &err) == -1);
        CHECK_STR(err.sqlstate, "XX001");
        sl_error_reset(&err);
    }
    for (size_t i = 0; i < state.len; i++) {
        state.buf[i] ^= 0x20;
        CHECK(b->ops->restore(b, state.buf, state.len, &err) == -1);
        CHECK_STR(err.sqlstate, "XX001");
        sl_error_reset(&err);
        state.buf[i] ^= 0x20;
    }
    CHECK(t->ops->restore(t, state.buf, state.len, &err) == -1);
    CHECK_STR(err.sqlstate, "XX001");
    sl_error_reset(&err);
    CHECK(b->ops->restore(b, state.buf, state.len, &err) == 0);
    row(c, SL_ROW_DELETE, 1, "a", 0, 1); /* the restored rows are found again */
    row(c, SL_ROW_INSERT, 0, "c", 0, 3);
    REQUIRE(feed(b, c, &out) == 0);
    CHECK(wm(b, INT64_MAX, &out) == 0);
    CHECK_STR(sl_strbuf_cstr(&out), "+I(0, c, 1970-01-01 00:00:00.000, 3)\n"
                                    "+I(2, b, 1970-01-01 00:00:00.000, 2)\n");
    sl_strbuf_free(&state);
    sl_strbuf_free(&out);
    sl_chunk_free(c);
    a->ops->free(a);
    b->ops->free(b);
    t->ops->free(t);
}

/* Invalid specs are refused. */
static void t_bad_spec(void)
{
    const sl_sort_key bad[] = {{7, false, 1}};
    CHECK(make_op(SL_ORDER_END, bad, 1, 0, -1) == NULL);
    const sl_sort_key desc[] = {{2, true, 1}};
    CHECK(make_op(SL_ORDER_TIME, desc, 1, 0, -1) == NULL);
    const sl_sort_key str[] = {{1, false, 1}};
    CHECK(make_op(SL_ORDER_TIME, str, 1, 0, -1) == NULL);
    CHECK(make_op(SL_ORDER_TIME, NULL, 0, 0, -1) == NULL);
    CHECK(make_op(SL_ORDER_PASS, NULL, 0, -1, 3) == NULL);
}

SL_TESTS(t_batch_reference, t_batch_updating, t_batch_updating_many, t_temporal, t_pass, t_snapshot_restore, t_corrupt,
         t_bad_spec)
