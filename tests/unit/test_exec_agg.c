/*
** test_exec_agg.c — group and window aggregation operators (exec/op_agg.c):
** every aggregate and type with NULLs and DISTINCT, exact DECIMAL sums and
** overflow, retraction sequences and the exact changelog, window firing
** order and late rows, snapshot/restore equivalence and corrupt blobs, TTL
** with an injected clock, a randomized run checked against a naive
** recomputation from the full input, and LISTAGG (arrival order, separators,
** DISTINCT, retraction of one equal value, snapshots incl. version 1 blobs),
** and FILTER columns (TRUE / FALSE / NULL rows, retractions, a restore).
*/
#include "sl_exec.h"
#include "sl_test.h"
#include "value_int.h" /* sl__hash_bytes: a version 1 blob's checksum */

/* ---- helpers ---------------------------------------------------------- */

typedef struct rows_t {
    char **v;  /* "+I[a, 1, 2.50]" per emitted row */
    int n;     /* rows */
    int cap;   /* allocated */
    int fail;  /* make the next emit fail */
} rows_t;

static char *row_text(const sl_chunk *c, int r)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_strbuf_append(&sb, sl_row_kind_name((sl_row_kind)c->kinds[r]));
    sl_strbuf_append_char(&sb, '[');
    for (int i = 0; i < c->ncols; i++) {
        if (i)
            sl_strbuf_append(&sb, ", ");
        if (!sl_value_format(&sb, &c->cols[i], r))
            sl_strbuf_append(&sb, "NULL");
    }
    sl_strbuf_append_char(&sb, ']');
    return sl_strbuf_detach(&sb);
}

static int collect(void *ctx, sl_chunk *rows, sl_error *err)
{
    rows_t *o = ctx;
    if (o->fail)
        return sl_error_set(err, SL_ERR_IO, -1, "sink failed");
    CHECK(rows->nrows > 0 && rows->nrows <= SL_CHUNK_ROWS);
    for (int r = 0; r < rows->nrows; r++) {
        if (o->n == o->cap) {
            o->cap = o->cap ? o->cap * 2 : 64;
            o->v = sl_realloc(o->v, (size_t)o->cap * sizeof(char *));
        }
        o->v[o->n++] = row_text(rows, r);
    }
    return 0;
}

static void rows_clear(rows_t *o)
{
    for (int i = 0; i < o->n; i++)
        sl_free(o->v[i]);
    o->n = 0;
}

static void rows_free(rows_t *o)
{
    rows_clear(o);
    sl_free(o->v);
    o->v = NULL;
    o->cap = 0;
}

/* Compare collected rows with a NULL-terminated list; clears o. */
static void expect_rows(rows_t *o, const char *const *want, int line)
{
    int n = 0;
    while (want[n])
        n++;
    int bad = o->n != n;
    for (int i = 0; !bad && i < n; i++)
        bad = strcmp(o->v[i], want[i]) != 0;
    if (bad) {
        fprintf(stderr, "line %d: rows differ\n  got:\n", line);
        for (int i = 0; i < o->n; i++)
            fprintf(stderr, "    %s\n", o->v[i]);
        fprintf(stderr, "  expected:\n");
        for (int i = 0; i < n; i++)
            fprintf(stderr, "    %s\n", want[i]);
    }
    CHECK(!bad);
    rows_clear(o);
}
#define EXPECT(o, ...)                                                                   \
    do {                                                                                 \
        const char *const want_[] = {__VA_ARGS__, NULL};                                 \
        expect_rows((o), want_, __LINE__);                                               \
    } while (0)
#define EXPECT_NONE(o) CHECK_INT((o)->n, 0)

static sl_type agg_type(sl_func_id fn, const sl_type *arg)
{
    sl_type t;
    sl_error err = SL_ERROR_INIT;
    int rc = sl_func_agg_type(sl_func_get(fn), arg, -1, &t, &err);
    if (rc)
        fprintf(stderr, "agg type: %s\n", err.message);
    sl_error_reset(&err);
    return t;
}

static sl_agg_call call(sl_func_id fn, bool distinct, int arg, const sl_type *types)
{
    sl_agg_call c = {fn, distinct, arg, agg_type(fn, arg >= 0 ? &types[arg] : NULL),
                     -1, NULL, false, -1};
    return c;
}

static sl_i128 dec(const char *s, int p, int sc)
{
    sl_i128 v = 0;
    bool ovf;
    if (sl_dec_parse(s, strlen(s), p, sc, &v, &ovf))
        fprintf(stderr, "bad decimal %s\n", s);
    return v;
}

static int run(sl_operator *op, sl_chunk *c, rows_t *o, sl_error *err)
{
    sl_emit e = {collect, o};
    return op->ops->process(op, c, &e, err);
}

static int fire(sl_operator *op, int64_t wm, rows_t *o, sl_error *err)
{
    sl_emit e = {collect, o};
    return op->ops->watermark(op, wm, &e, err);
}

#define MS 1000000LL

/* ---- key + INT value: the changelog ----------------------------------- */

static const sl_type kv_types[2] = {{SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0, false}, {SL_TYPE_INT, 0, 0, false}};

static sl_chunk *kv_row(sl_row_kind k, const char *key, int64_t v)
{
    sl_chunk *c = sl_chunk_new(2, kv_types, 4);
    int r = sl_chunk_append_row(c, k);
    if (key)
        sl_chunk_set_str(c, 0, r, key, strlen(key));
    sl_chunk_set_i64(c, 1, r, v);
    return c;
}

static void feed1(sl_operator *op, sl_row_kind k, const char *key, int64_t v, rows_t *o)
{
    sl_error err = SL_ERROR_INIT;
    sl_chunk *c = kv_row(k, key, v);
    CHECK(run(op, c, o, &err) == 0);
    if (sl_error_isset(&err))
        fprintf(stderr, "error: %s\n", err.message);
    sl_error_reset(&err);
    sl_chunk_free(c);
}

/* A group aggregation of spec s, or NULL (the error printed). */
static sl_operator *new_agg(const sl_group_agg_spec *s)
{
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    if (sl_group_agg_new(s, &op, &err) != 0)
        fprintf(stderr, "new: %s\n", err.message);
    sl_error_reset(&err);
    return op;
}

static sl_operator *kv_op(int64_t ttl_ms, int64_t (*now)(void *), void *now_ctx)
{
    int keys[1] = {0};
    sl_agg_call calls[4] = {call(SL_FN_COUNT, false, -1, kv_types), call(SL_FN_SUM, false, 1, kv_types),
                            call(SL_FN_MIN, false, 1, kv_types), call(SL_FN_MAX, false, 1, kv_types)};
    sl_group_agg_spec s = {2, kv_types, 1, keys, 4, calls, ttl_ms, now, now_ctx, {0}, false, false};
    return new_agg(&s);
}

static void t_changelog_sequence(void)
{
    sl_operator *op = kv_op(0, NULL, NULL);
    REQUIRE(op);
    CHECK_INT(op->out_ncols, 5);
    CHECK(op->out_types[1].id == SL_TYPE_BIGINT && op->out_types[2].id == SL_TYPE_BIGINT);
    rows_t o = {0};
    feed1(op, SL_ROW_INSERT, "a", 5, &o);
    EXPECT(&o, "+I[a, 1, 5, 5, 5]");
    feed1(op, SL_ROW_INSERT, "a", 3, &o);
    EXPECT(&o, "-U[a, 1, 5, 5, 5]", "+U[a, 2, 8, 3, 5]");
    feed1(op, SL_ROW_INSERT, NULL, 7, &o); /* NULL is a key of its own */
    EXPECT(&o, "+I[NULL, 1, 7, 7, 7]");
    feed1(op, SL_ROW_UPDATE_BEFORE, "a", 3, &o); /* retract the minimum */
    EXPECT(&o, "-U[a, 2, 8, 3, 5]", "+U[a, 1, 5, 5, 5]");
    feed1(op, SL_ROW_UPDATE_AFTER, "a", 9, &o);
    EXPECT(&o, "-U[a, 1, 5, 5, 5]", "+U[a, 2, 14, 5, 9]");
    feed1(op, SL_ROW_DELETE, "a", 5, &o);
    EXPECT(&o, "-U[a, 2, 14, 5, 9]", "+U[a, 1, 9, 9, 9]");
    feed1(op, SL_ROW_DELETE, "a", 9, &o);
    EXPECT(&o, "-D[a, 1, 9, 9, 9]");
    feed1(op, SL_ROW_DELETE, "zz", 1, &o); /* retracting from no group: ignored */
    EXPECT_NONE(&o);
    feed1(op, SL_ROW_INSERT, "a", 1, &o); /* the group starts over */
    EXPECT(&o, "+I[a, 1, 1, 1, 1]");

    /* Several rows of one chunk: one change per group, groups in first-touch order. */
    sl_chunk *c = sl_chunk_new(2, kv_types, 8);
    const char *ks[] = {"b", "a", "b", "c", "c"};
    const int kinds[] = {SL_ROW_INSERT, SL_ROW_INSERT, SL_ROW_INSERT, SL_ROW_INSERT, SL_ROW_DELETE};
    const int vals[] = {2, 1, 4, 6, 6};
    for (int i = 0; i < 5; i++) {
        int r = sl_chunk_append_row(c, (sl_row_kind)kinds[i]);
        sl_chunk_set_str(c, 0, r, ks[i], 1);
        sl_chunk_set_i64(c, 1, r, vals[i]);
    }
    sl_error err = SL_ERROR_INIT;
    CHECK(run(op, c, &o, &err) == 0);
    /* a: +1 then unchanged MIN/MAX but count and sum change; c: born and gone. */
    EXPECT(&o, "+I[b, 2, 6, 2, 4]", "-U[a, 1, 1, 1, 1]", "+U[a, 2, 2, 1, 1]");
    /* A row that changes nothing visible emits nothing: +I then -D of the same value. */
    sl_chunk_reset(c);
    int r = sl_chunk_append_row(c, SL_ROW_INSERT);
    sl_chunk_set_str(c, 0, r, "b", 1);
    sl_chunk_set_i64(c, 1, r, 3);
    r = sl_chunk_append_row(c, SL_ROW_DELETE);
    sl_chunk_set_str(c, 0, r, "b", 1);
    sl_chunk_set_i64(c, 1, r, 3);
    CHECK(run(op, c, &o, &err) == 0);
    EXPECT_NONE(&o);
    /* A failing sink is reported. */
    o.fail = 1;
    CHECK(run(op, c, &o, &err) == 0); /* no change: nothing emitted */
    sl_chunk *q = kv_row(SL_ROW_INSERT, "q", 1);
    CHECK(run(op, q, &o, &err) == -1);
    CHECK_STR(err.sqlstate, SL_ERR_IO);
    sl_error_reset(&err);
    sl_chunk_free(q);
    sl_chunk_free(c);
    rows_free(&o);
    op->ops->free(op);
}

/* No -U wanted (an upsert sink keyed by the group key): updates are +U
** alone. With COUNT(*) over an insert-only input every update changes the
** results (no old results kept); without it, an update that changes
** nothing emits nothing; retractions still delete an emptied group. */
static void t_no_update_before(void)
{
    int keys[1] = {0};
    sl_agg_call calls[2] = {call(SL_FN_COUNT, false, -1, kv_types), call(SL_FN_SUM, false, 1, kv_types)};
    sl_group_agg_spec s = {2, kv_types, 1, keys, 2, calls, 0, NULL, NULL, {0}, true, true};
    sl_operator *op = new_agg(&s);
    REQUIRE(op);
    rows_t o = {0};
    feed1(op, SL_ROW_INSERT, "a", 5, &o);
    EXPECT(&o, "+I[a, 1, 5]");
    feed1(op, SL_ROW_INSERT, "a", 0, &o);
    EXPECT(&o, "+U[a, 2, 5]");
    feed1(op, SL_ROW_INSERT, "b", 1, &o);
    EXPECT(&o, "+I[b, 1, 1]");
    op->ops->free(op);

    /* MAX alone, over a changelog: equal results emit nothing. */
    sl_agg_call mx[1] = {call(SL_FN_MAX, false, 1, kv_types)};
    sl_group_agg_spec m = {2, kv_types, 1, keys, 1, mx, 0, NULL, NULL, {0}, false, true};
    op = new_agg(&m);
    REQUIRE(op);
    feed1(op, SL_ROW_INSERT, "a", 5, &o);
    EXPECT(&o, "+I[a, 5]");
    feed1(op, SL_ROW_INSERT, "a", 3, &o); /* MAX stays 5 */
    EXPECT_NONE(&o);
    feed1(op, SL_ROW_INSERT, "a", 9, &o);
    EXPECT(&o, "+U[a, 9]");
    feed1(op, SL_ROW_DELETE, "a", 9, &o);
    EXPECT(&o, "+U[a, 5]");
    feed1(op, SL_ROW_DELETE, "a", 5, &o);
    feed1(op, SL_ROW_DELETE, "a", 3, &o);
    EXPECT(&o, "+U[a, 3]", "-D[a, 3]");
    rows_free(&o);
    op->ops->free(op);
}

/* ---- every aggregate over every type ---------------------------------- */

enum { C_I, C_BI, C_D, C_F, C_DEC, C_S, C_DATE, C_TS, C_B, NTY };

static sl_type *all_types(void)
{
    static sl_type t[NTY];
    t[C_I] = sl_type_make(SL_TYPE_INT);
    t[C_BI] = sl_type_make(SL_TYPE_BIGINT);
    t[C_D] = sl_type_make(SL_TYPE_DOUBLE);
    t[C_F] = sl_type_make(SL_TYPE_FLOAT);
    t[C_DEC] = sl_type_make_p(SL_TYPE_DECIMAL, 10, 2);
    t[C_S] = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    t[C_DATE] = sl_type_make(SL_TYPE_DATE);
    t[C_TS] = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    t[C_B] = sl_type_make(SL_TYPE_BOOLEAN);
    return t;
}

static void t_all_aggregates_and_types(void)
{
    sl_type *ty = all_types();
    sl_agg_call calls[] = {
        call(SL_FN_COUNT, false, -1, ty),     call(SL_FN_COUNT, false, C_I, ty),
        call(SL_FN_SUM, false, C_I, ty),      call(SL_FN_AVG, false, C_I, ty),
        call(SL_FN_MIN, false, C_I, ty),      call(SL_FN_MAX, false, C_BI, ty),
        call(SL_FN_SUM, false, C_D, ty),      call(SL_FN_AVG, false, C_D, ty),
        call(SL_FN_AVG, false, C_F, ty),      call(SL_FN_SUM, false, C_DEC, ty),
        call(SL_FN_AVG, false, C_DEC, ty),    call(SL_FN_MIN, false, C_DEC, ty),
        call(SL_FN_MIN, false, C_S, ty),      call(SL_FN_MAX, false, C_S, ty),
        call(SL_FN_COUNT, false, C_S, ty),    call(SL_FN_MIN, false, C_DATE, ty),
        call(SL_FN_MAX, false, C_TS, ty),     call(SL_FN_COUNT, true, C_I, ty),
        call(SL_FN_SUM, true, C_I, ty),       call(SL_FN_MAX, false, C_B, ty),
        call(SL_FN_MIN, false, C_D, ty),      call(SL_FN_SUM, false, C_F, ty),
    };
    int nc = (int)(sizeof calls / sizeof calls[0]);
    /* exact result types of the planner */
    CHECK(calls[2].type.id == SL_TYPE_BIGINT && calls[3].type.id == SL_TYPE_INT);
    CHECK(calls[9].type.precision == 38 && calls[9].type.scale == 2);
    CHECK(calls[10].type.scale == 6 && calls[8].type.id == SL_TYPE_FLOAT);
    int keys[1] = {C_B};
    sl_group_agg_spec s = {NTY, ty, 0, keys, nc, calls, 0, NULL, NULL, {0}, false, false}; /* global aggregate */
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_group_agg_new(&s, &op, &err) == 0);
    rows_t o = {0};
    sl_chunk *c = sl_chunk_new(NTY, ty, 8);
    /* row 0: all NULL */
    sl_chunk_append_row(c, SL_ROW_INSERT);
    CHECK(run(op, c, &o, &err) == 0);
    EXPECT(&o, "+I[1, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, "
               "NULL, NULL, 0, NULL, NULL, NULL, NULL]");
    sl_chunk_reset(c);
    struct {
        int i;
        int64_t bi;
        double d;
        double f;
        const char *dec;
        const char *s;
        int64_t date;
        int64_t ts;
        int b;
    } in[] = {
        {3, 10, 1.5, 0.5f, "1.25", "pear", 100, 5000 * MS, 0},
        {-7, -20, 2.25, 1.5f, "-3.10", "apple", 90, 7000 * MS, 1},
        {3, 30, -0.75, 2.0f, "0.01", "", 120, 6000 * MS, 0},
    };
    for (int k = 0; k < 3; k++) {
        int r = sl_chunk_append_row(c, SL_ROW_INSERT);
        sl_chunk_set_i64(c, C_I, r, in[k].i);
        sl_chunk_set_i64(c, C_BI, r, in[k].bi);
        sl_chunk_set_f64(c, C_D, r, in[k].d);
        sl_chunk_set_f64(c, C_F, r, in[k].f);
        sl_chunk_set_i128(c, C_DEC, r, dec(in[k].dec, 10, 2));
        sl_chunk_set_str(c, C_S, r, in[k].s, strlen(in[k].s));
        sl_chunk_set_i64(c, C_DATE, r, in[k].date);
        sl_chunk_set_i64(c, C_TS, r, in[k].ts);
        sl_chunk_set_bool(c, C_B, r, in[k].b);
    }
    CHECK(run(op, c, &o, &err) == 0);
    /* AVG(INT): (3 - 7 + 3) / 3 = -1/3 -> 0 (integer division toward zero);
    ** AVG(DEC): (1.25 - 3.10 + 0.01) / 3 = -0.613333..; AVG(FLOAT) 4/3 as float. */
    EXPECT(&o,
           "-U[1, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, "
           "NULL, 0, NULL, NULL, NULL, NULL]",
           "+U[4, 3, -1, 0, -7, 30, 3.0, 1.0, 1.3333334, -1.84, -0.613333, -3.10, , pear, 3, 1970-04-01, "
           "1970-01-01 00:00:07.000, 2, -4, TRUE, -0.75, 4.0]");
    /* Retract row -7 (+ its values): AVG(INT) = 3, MIN(INT) = 3, DISTINCT sum back to 3. */
    sl_chunk_reset(c);
    int r = sl_chunk_append_row(c, SL_ROW_DELETE);
    sl_chunk_set_i64(c, C_I, r, -7);
    sl_chunk_set_i64(c, C_BI, r, -20);
    sl_chunk_set_f64(c, C_D, r, 2.25);
    sl_chunk_set_f64(c, C_F, r, 1.5);
    sl_chunk_set_i128(c, C_DEC, r, dec("-3.10", 10, 2));
    sl_chunk_set_str(c, C_S, r, "apple", 5);
    sl_chunk_set_i64(c, C_DATE, r, 90);
    sl_chunk_set_i64(c, C_TS, r, 7000 * MS);
    sl_chunk_set_bool(c, C_B, r, 1);
    CHECK(run(op, c, &o, &err) == 0);
    CHECK_INT(o.n, 2);
    if (o.n == 2)
        CHECK_STR(o.v[1], "+U[3, 2, 6, 3, 3, 30, 0.75, 0.375, 1.25, 1.26, 0.630000, 0.01, , pear, 2, "
                          "1970-04-11, 1970-01-01 00:00:06.000, 1, 3, FALSE, -0.75, 2.5]");
    rows_clear(&o);
    sl_chunk_free(c);
    rows_free(&o);
    op->ops->free(op);
    sl_error_reset(&err);
}

static void t_avg_integer_division(void)
{
    sl_type ty[2] = {sl_type_make(SL_TYPE_INT), sl_type_make(SL_TYPE_TINYINT)};
    sl_agg_call calls[2] = {call(SL_FN_AVG, false, 0, ty), call(SL_FN_AVG, false, 1, ty)};
    CHECK(calls[1].type.id == SL_TYPE_TINYINT);
    sl_group_agg_spec s = {2, ty, 0, NULL, 2, calls, 0, NULL, NULL, {0}, false, false};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_group_agg_new(&s, &op, &err) == 0);
    sl_chunk *c = sl_chunk_new(2, ty, 4);
    int vals[] = {-1, -2, 2147483647, 2147483647};
    for (int i = 0; i < 2; i++) {
        int r = sl_chunk_append_row(c, SL_ROW_INSERT);
        sl_chunk_set_i64(c, 0, r, vals[2 + i]);
        sl_chunk_set_i64(c, 1, r, vals[i]);
    }
    rows_t o = {0};
    CHECK(run(op, c, &o, &err) == 0);
    EXPECT(&o, "+I[2147483647, -1]"); /* no overflow; -3/2 truncates to -1 */
    sl_chunk_free(c);
    rows_free(&o);
    op->ops->free(op);
}

/* ---- DECIMAL: exact sums near 38 digits, overflow ---------------------- */

static void t_decimal_exact_and_overflow(void)
{
    sl_type ty[2] = {sl_type_make(SL_TYPE_INT), sl_type_make_p(SL_TYPE_DECIMAL, 38, 4)};
    /* (AVG of such values would not fit its DECIMAL(38, 6) result: 22003.) */
    sl_agg_call calls[2] = {call(SL_FN_SUM, false, 1, ty), call(SL_FN_COUNT, false, -1, ty)};
    CHECK(calls[0].type.precision == 38 && calls[0].type.scale == 4);
    int keys[1] = {0};
    sl_group_agg_spec s = {2, ty, 1, keys, 2, calls, 0, NULL, NULL, {0}, false, false};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_group_agg_new(&s, &op, &err) == 0);
    rows_t o = {0};
    sl_chunk *c = sl_chunk_new(2, ty, 8);
    /* 4 * 2499999999999999999999999999999999.9999 + 0.0003 = 9999999999999999999999999999999999.9999 */
    for (int i = 0; i < 4; i++) {
        int r = sl_chunk_append_row(c, SL_ROW_INSERT);
        sl_chunk_set_i64(c, 0, r, 1);
        sl_chunk_set_i128(c, 1, r, dec("2499999999999999999999999999999999.9999", 38, 4));
    }
    int r = sl_chunk_append_row(c, SL_ROW_INSERT);
    sl_chunk_set_i64(c, 0, r, 1);
    sl_chunk_set_i128(c, 1, r, dec("0.0003", 38, 4));
    CHECK(run(op, c, &o, &err) == 0);
    EXPECT(&o, "+I[1, 9999999999999999999999999999999999.9999, 5]");
    /* Overflow: one more unit. */
    sl_chunk_reset(c);
    r = sl_chunk_append_row(c, SL_ROW_INSERT);
    sl_chunk_set_i64(c, 0, r, 1);
    sl_chunk_set_i128(c, 1, r, dec("0.0001", 38, 4));
    CHECK(run(op, c, &o, &err) == -1);
    CHECK_STR(err.sqlstate, SL_ERR_NUMERIC_RANGE);
    sl_error_reset(&err);
    /* Negative side on another key: -9999...9 fits, one more unit does not. */
    sl_chunk_reset(c);
    for (int i = 0; i < 2; i++) {
        r = sl_chunk_append_row(c, SL_ROW_INSERT);
        sl_chunk_set_i64(c, 0, r, 2);
        sl_chunk_set_i128(c, 1, r, dec(i ? "-4999999999999999999999999999999999.9999" : "-5000000000000000000000000000000000.0000", 38, 4));
    }
    CHECK(run(op, c, &o, &err) == 0);
    CHECK_INT(o.n, 1);
    if (o.n == 1)
        CHECK_STR(o.v[0], "+I[2, -9999999999999999999999999999999999.9999, 2]");
    rows_clear(&o);
    sl_chunk_reset(c);
    r = sl_chunk_append_row(c, SL_ROW_INSERT);
    sl_chunk_set_i64(c, 0, r, 2);
    sl_chunk_set_i128(c, 1, r, dec("-0.0001", 38, 4));
    CHECK(run(op, c, &o, &err) == -1);
    CHECK_STR(err.sqlstate, SL_ERR_NUMERIC_RANGE);
    sl_error_reset(&err);
    sl_chunk_free(c);
    rows_free(&o);
    op->ops->free(op);

    /* BIGINT sums never wrap: the result outside BIGINT is 22003. */
    sl_type bt[1] = {sl_type_make(SL_TYPE_BIGINT)};
    sl_agg_call bc[1] = {call(SL_FN_SUM, false, 0, bt)};
    sl_group_agg_spec bs = {1, bt, 0, NULL, 1, bc, 0, NULL, NULL, {0}, false, false};
    REQUIRE(sl_group_agg_new(&bs, &op, &err) == 0);
    c = sl_chunk_new(1, bt, 4);
    for (int i = 0; i < 2; i++) {
        r = sl_chunk_append_row(c, SL_ROW_INSERT);
        sl_chunk_set_i64(c, 0, r, INT64_MAX);
    }
    CHECK(run(op, c, &o, &err) == -1);
    CHECK_STR(err.sqlstate, SL_ERR_NUMERIC_RANGE);
    sl_error_reset(&err);
    sl_chunk_free(c);
    rows_free(&o);
    op->ops->free(op);
}

/* ---- MIN/MAX and DISTINCT under retraction ---------------------------- */

static void t_minmax_distinct_retraction(void)
{
    sl_type ty[2] = {sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0), sl_type_make(SL_TYPE_INT)};
    sl_agg_call calls[5] = {call(SL_FN_MIN, false, 0, ty), call(SL_FN_MAX, false, 0, ty),
                            call(SL_FN_COUNT, true, 1, ty), call(SL_FN_SUM, true, 1, ty),
                            call(SL_FN_AVG, true, 1, ty)};
    sl_group_agg_spec s = {2, ty, 0, NULL, 5, calls, 0, NULL, NULL, {0}, false, false};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_group_agg_new(&s, &op, &err) == 0);
    rows_t o = {0};
    sl_chunk *c = sl_chunk_new(2, ty, 4);
    struct {
        int kind;
        const char *s;
        int v;
        const char *want;
    } steps[] = {
        {SL_ROW_INSERT, "m", 4, "[m, m, 1, 4, 4]"},
        {SL_ROW_INSERT, "b", 4, "[b, m, 1, 4, 4]"},
        {SL_ROW_INSERT, "b", 2, "[b, m, 2, 6, 3]"},
        {SL_ROW_INSERT, "x", 2, "[b, x, 2, 6, 3]"},
        {SL_ROW_DELETE, "b", 4, "[b, x, 2, 6, 3]"},  /* one "b" and one 4 remain */
        {SL_ROW_DELETE, "b", 2, "[m, x, 2, 6, 3]"},  /* minimum retracted: next is m */
        {SL_ROW_DELETE, "x", 2, "[m, m, 1, 4, 4]"},  /* maximum retracted */
    };
    const char *prev = NULL;
    for (size_t i = 0; i < SL_ARRAY_LEN(steps); i++) {
        sl_chunk_reset(c);
        int r = sl_chunk_append_row(c, (sl_row_kind)steps[i].kind);
        sl_chunk_set_str(c, 0, r, steps[i].s, strlen(steps[i].s));
        sl_chunk_set_i64(c, 1, r, steps[i].v);
        CHECK(run(op, c, &o, &err) == 0);
        char want[128];
        snprintf(want, sizeof want, "%s%s", i == 0 ? "+I" : "+U", steps[i].want);
        if (prev && strcmp(prev, steps[i].want) == 0) {
            EXPECT_NONE(&o);
        } else {
            CHECK(o.n >= 1);
            if (o.n >= 1)
                CHECK_STR(o.v[o.n - 1], want);
        }
        rows_clear(&o);
        prev = steps[i].want;
    }
    sl_chunk_free(c);
    rows_free(&o);
    op->ops->free(op);
}

/* ---- window aggregation ------------------------------------------------ */

static const sl_type win_types[4] = {{SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0, false},
                                     {SL_TYPE_INT, 0, 0, false},
                                     {SL_TYPE_TIMESTAMP, 3, 0, false},
                                     {SL_TYPE_TIMESTAMP, 3, 0, false}};

/* A window aggregation by (k, window_start, window_end) of win_types
** rows: calls[0..n); HOP's slide (0: none) and, sliced, its size. */
static sl_operator *win_op_of(const sl_agg_call *calls, int n, int64_t slide_ns,
                              int64_t slice_size_ns)
{
    int keys[3] = {0, 2, 3};
    sl_window_agg_spec s = {{4, win_types, 3, keys, n, calls, 0, NULL, NULL, {0}, false, false},
                            1, 2, -1, slide_ns, NULL, slice_size_ns};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    if (sl_window_agg_new(&s, &op, &err))
        fprintf(stderr, "new: %s\n", err.message);
    sl_error_reset(&err);
    return op;
}

static sl_operator *win_op(void)
{
    sl_agg_call calls[4] = {call(SL_FN_COUNT, false, -1, win_types), call(SL_FN_SUM, false, 1, win_types),
                            call(SL_FN_MIN, false, 0, win_types), call(SL_FN_COUNT, true, 1, win_types)};
    return win_op_of(calls, 4, 0, 0);
}

static void win_add(sl_chunk *c, sl_row_kind k, const char *key, int v, int64_t start_s, int64_t end_s)
{
    int r = sl_chunk_append_row(c, k);
    sl_chunk_set_str(c, 0, r, key, strlen(key));
    sl_chunk_set_i64(c, 1, r, v);
    sl_chunk_set_i64(c, 2, r, start_s * 1000 * MS);
    sl_chunk_set_i64(c, 3, r, end_s * 1000 * MS);
}

static void t_window_firing_and_late(void)
{
    sl_operator *op = win_op();
    REQUIRE(op);
    rows_t o = {0};
    sl_error err = SL_ERROR_INIT;
    sl_chunk *c = sl_chunk_new(4, win_types, 16);
    win_add(c, SL_ROW_INSERT, "b", 1, 10, 20);
    win_add(c, SL_ROW_INSERT, "a", 2, 0, 10);
    win_add(c, SL_ROW_INSERT, "b", 3, 0, 10);
    win_add(c, SL_ROW_INSERT, "a", 2, 0, 10);
    win_add(c, SL_ROW_INSERT, "c", 5, 10, 20);
    CHECK(run(op, c, &o, &err) == 0);
    EXPECT_NONE(&o);
    CHECK(fire(op, 9999 * MS, &o, &err) == 0); /* before the first end */
    EXPECT_NONE(&o);
    CHECK(fire(op, 10000 * MS, &o, &err) == 0); /* end <= watermark fires */
    EXPECT(&o, "+I[a, 1970-01-01 00:00:00.000, 1970-01-01 00:00:10.000, 2, 4, a, 1]",
           "+I[b, 1970-01-01 00:00:00.000, 1970-01-01 00:00:10.000, 1, 3, b, 1]");
    /* late rows: window [0,10) ended; counted and dropped */
    sl_chunk_reset(c);
    win_add(c, SL_ROW_INSERT, "a", 100, 0, 10);
    win_add(c, SL_ROW_INSERT, "z", 7, 20, 30);
    win_add(c, SL_ROW_INSERT, "b", 4, 10, 20);
    CHECK(run(op, c, &o, &err) == 0);
    CHECK_INT(op->ops->late_rows(op), 1);
    CHECK(fire(op, INT64_MAX, &o, &err) == 0);
    EXPECT(&o, "+I[b, 1970-01-01 00:00:10.000, 1970-01-01 00:00:20.000, 2, 5, b, 2]",
           "+I[c, 1970-01-01 00:00:10.000, 1970-01-01 00:00:20.000, 1, 5, c, 1]",
           "+I[z, 1970-01-01 00:00:20.000, 1970-01-01 00:00:30.000, 1, 7, z, 1]");
    CHECK(fire(op, INT64_MAX, &o, &err) == 0);
    EXPECT_NONE(&o);
    /* updating input is rejected */
    sl_chunk_reset(c);
    win_add(c, SL_ROW_UPDATE_BEFORE, "a", 1, 100, 110);
    CHECK(run(op, c, &o, &err) == -1);
    CHECK_STR(err.sqlstate, SL_ERR_INTERNAL);
    sl_error_reset(&err);
    sl_chunk_free(c);
    rows_free(&o);
    op->ops->free(op);
}

/* Many groups in one window: output spans several chunks, first-seen order. */
static void t_window_many_groups(void)
{
    sl_operator *op = win_op();
    REQUIRE(op);
    rows_t o = {0};
    sl_error err = SL_ERROR_INIT;
    sl_chunk *c = sl_chunk_new(4, win_types, 1000);
    char key[16];
    for (int i = 0; i < 3000; i++) {
        if (sl_chunk_full(c)) {
            CHECK(run(op, c, &o, &err) == 0);
            sl_chunk_reset(c);
        }
        snprintf(key, sizeof key, "k%05d", (i * 7919) % 2500);
        win_add(c, SL_ROW_INSERT, key, i, 0, 60);
    }
    CHECK(run(op, c, &o, &err) == 0);
    CHECK(fire(op, 60000 * MS, &o, &err) == 0);
    CHECK_INT(o.n, 2500);
    int ok = 1;
    for (int i = 0; i < o.n && i < 2500; i++) {
        snprintf(key, sizeof key, "+I[k%05d,", (i * 7919) % 2500);
        ok &= strncmp(o.v[i], key, strlen(key)) == 0;
    }
    CHECK(ok);
    sl_chunk_free(c);
    rows_free(&o);
    op->ops->free(op);
}

/* ---- snapshot / restore ------------------------------------------------ */

static int snap(sl_operator *op, sl_strbuf *sb)
{
    sl_error err = SL_ERROR_INIT;
    sl_strbuf_reset(sb);
    int rc = op->ops->snapshot(op, sb, &err);
    sl_error_reset(&err);
    return rc;
}

/* Random chunk of kv rows (retractions only of rows still live). */
typedef struct live_t {
    int key[4096];  /* key id (-1 = NULL key) */
    int val[4096];  /* value */
    int n;          /* live rows */
} live_t;

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static sl_chunk *random_chunk(live_t *lv, int nrows, int nkeys)
{
    sl_chunk *c = sl_chunk_new(2, kv_types, nrows);
    char key[16];
    for (int i = 0; i < nrows; i++) {
        int k, v;
        sl_row_kind kind;
        if (lv->n > 0 && (rnd() % 3 == 0 || lv->n >= 4096)) {
            int j = (int)(rnd() % (uint64_t)lv->n);
            k = lv->key[j];
            v = lv->val[j];
            lv->key[j] = lv->key[lv->n - 1];
            lv->val[j] = lv->val[lv->n - 1];
            lv->n--;
            kind = rnd() % 2 ? SL_ROW_DELETE : SL_ROW_UPDATE_BEFORE;
        } else {
            k = (int)(rnd() % (uint64_t)(nkeys + 1)) - 1;
            v = (int)(rnd() % 200) - 100;
            lv->key[lv->n] = k;
            lv->val[lv->n] = v;
            lv->n++;
            kind = rnd() % 4 ? SL_ROW_INSERT : SL_ROW_UPDATE_AFTER;
        }
        int r = sl_chunk_append_row(c, kind);
        if (k >= 0) {
            int len = snprintf(key, sizeof key, "key%d", k);
            sl_chunk_set_str(c, 0, r, key, (size_t)len);
        }
        sl_chunk_set_i64(c, 1, r, v);
    }
    return c;
}

static void t_snapshot_restore_equivalence(void)
{
    sl_operator *a = kv_op(0, NULL, NULL), *b = kv_op(0, NULL, NULL), *fresh = kv_op(0, NULL, NULL);
    REQUIRE(a && b && fresh);
    rows_t oa = {0}, ob = {0};
    live_t lv = {{0}, {0}, 0};
    sl_error err = SL_ERROR_INIT;
    rng_state = 12345;
    for (int i = 0; i < 20; i++) {
        sl_chunk *c = random_chunk(&lv, 50, 30);
        CHECK(run(a, c, &oa, &err) == 0);
        sl_chunk_free(c);
    }
    rows_clear(&oa);
    sl_strbuf s1 = SL_STRBUF_INIT, s2 = SL_STRBUF_INIT;
    CHECK(snap(a, &s1) == 0);
    CHECK(b->ops->restore(b, s1.buf, s1.len, &err) == 0);
    CHECK(snap(b, &s2) == 0);
    CHECK(s1.len == s2.len && memcmp(s1.buf, s2.buf, s1.len) == 0); /* deterministic */
    /* An operator that never snapshotted, fed the same prefix. */
    rng_state = 12345;
    live_t lv2 = {{0}, {0}, 0};
    for (int i = 0; i < 20; i++) {
        sl_chunk *c = random_chunk(&lv2, 50, 30);
        CHECK(run(fresh, c, &ob, &err) == 0);
        sl_chunk_free(c);
    }
    rows_clear(&ob);
    CHECK(snap(fresh, &s2) == 0);
    CHECK(s1.len == s2.len && memcmp(s1.buf, s2.buf, s1.len) == 0);
    /* Same further input: identical output. */
    rows_t of = {0};
    for (int i = 0; i < 20; i++) {
        sl_chunk *c = random_chunk(&lv, 50, 30);
        CHECK(run(b, c, &ob, &err) == 0);
        CHECK(run(fresh, c, &of, &err) == 0);
        sl_chunk_free(c);
    }
    CHECK(ob.n > 0 && ob.n == of.n);
    int same = 1;
    for (int i = 0; i < ob.n && i < of.n; i++)
        same &= strcmp(ob.v[i], of.v[i]) == 0;
    CHECK(same);

    /* Window operator: watermark and late counter survive. */
    sl_operator *w1 = win_op(), *w2 = win_op();
    REQUIRE(w1 && w2);
    sl_chunk *c = sl_chunk_new(4, win_types, 16);
    win_add(c, SL_ROW_INSERT, "a", 1, 0, 10);
    win_add(c, SL_ROW_INSERT, "b", 2, 10, 20);
    win_add(c, SL_ROW_INSERT, "a", 3, 10, 20);
    CHECK(run(w1, c, &oa, &err) == 0);
    CHECK(fire(w1, 10000 * MS, &oa, &err) == 0);
    sl_chunk_reset(c);
    win_add(c, SL_ROW_INSERT, "a", 1, 0, 10); /* late */
    CHECK(run(w1, c, &oa, &err) == 0);
    rows_clear(&oa);
    CHECK(snap(w1, &s1) == 0);
    CHECK(w2->ops->restore(w2, s1.buf, s1.len, &err) == 0);
    CHECK_INT(w2->ops->late_rows(w2), 1);
    sl_chunk_reset(c);
    win_add(c, SL_ROW_INSERT, "a", 9, 0, 10); /* still late after restore */
    win_add(c, SL_ROW_INSERT, "b", 5, 10, 20);
    CHECK(run(w1, c, &oa, &err) == 0);
    CHECK(run(w2, c, &ob, &err) == 0);
    rows_clear(&ob);
    CHECK(fire(w1, INT64_MAX, &oa, &err) == 0);
    CHECK(fire(w2, INT64_MAX, &ob, &err) == 0);
    CHECK_INT(w2->ops->late_rows(w2), 2);
    EXPECT(&ob, "+I[b, 1970-01-01 00:00:10.000, 1970-01-01 00:00:20.000, 2, 7, b, 2]",
           "+I[a, 1970-01-01 00:00:10.000, 1970-01-01 00:00:20.000, 1, 3, a, 1]");
    EXPECT(&oa, "+I[b, 1970-01-01 00:00:10.000, 1970-01-01 00:00:20.000, 2, 7, b, 2]",
           "+I[a, 1970-01-01 00:00:10.000, 1970-01-01 00:00:20.000, 1, 3, a, 1]");
    sl_chunk_free(c);
    w1->ops->free(w1);
    w2->ops->free(w2);

    sl_strbuf_free(&s1);
    sl_strbuf_free(&s2);
    rows_free(&oa);
    rows_free(&ob);
    rows_free(&of);
    a->ops->free(a);
    b->ops->free(b);
    fresh->ops->free(fresh);
}

static void t_snapshot_corrupt(void)
{
    sl_operator *a = kv_op(0, NULL, NULL), *b = kv_op(0, NULL, NULL);
    REQUIRE(a && b);
    rows_t o = {0};
    live_t lv = {{0}, {0}, 0};
    sl_error err = SL_ERROR_INIT;
    rng_state = 777;
    sl_chunk *c = random_chunk(&lv, 40, 5);
    CHECK(run(a, c, &o, &err) == 0);
    sl_chunk_free(c);
    sl_strbuf s = SL_STRBUF_INIT;
    CHECK(snap(a, &s) == 0);
    char *buf = sl_malloc(s.len);
    int bad = 0;
    for (size_t n = 0; n < s.len; n++) { /* every truncation */
        memcpy(buf, s.buf, n);
        if (b->ops->restore(b, buf, n, &err) != -1 || strcmp(err.sqlstate, SL_ERR_DATA_CORRUPTED) != 0)
            bad++;
        sl_error_reset(&err);
    }
    for (size_t i = 0; i < s.len; i++) { /* every flipped byte */
        memcpy(buf, s.buf, s.len);
        buf[i] ^= 0x41;
        if (b->ops->restore(b, buf, s.len, &err) != -1 || strcmp(err.sqlstate, SL_ERR_DATA_CORRUPTED) != 0)
            bad++;
        sl_error_reset(&err);
    }
    CHECK_INT(bad, 0);
    /* A blob of another operator's shape is rejected too. */
    sl_operator *w = win_op();
    CHECK(w->ops->restore(w, s.buf, s.len, &err) == -1);
    sl_error_reset(&err);
    w->ops->free(w);
    /* After a failed restore the operator is empty and usable; a good blob works. */
    CHECK(b->ops->restore(b, s.buf, s.len, &err) == 0);
    sl_strbuf s2 = SL_STRBUF_INIT;
    CHECK(snap(b, &s2) == 0);
    CHECK(s2.len == s.len && memcmp(s.buf, s2.buf, s.len) == 0);
    sl_free(buf);
    sl_strbuf_free(&s);
    sl_strbuf_free(&s2);
    rows_free(&o);
    a->ops->free(a);
    b->ops->free(b);
}

/* ---- TTL with an injected clock ---------------------------------------- */

static int64_t fake_now(void *ctx)
{
    return *(int64_t *)ctx;
}

static void t_ttl(void)
{
    int64_t now = 1000 * MS;
    sl_operator *op = kv_op(1000, fake_now, &now);
    REQUIRE(op);
    rows_t o = {0};
    feed1(op, SL_ROW_INSERT, "a", 1, &o);
    feed1(op, SL_ROW_INSERT, "b", 1, &o);
    EXPECT(&o, "+I[a, 1, 1, 1, 1]", "+I[b, 1, 1, 1, 1]");
    now += 600 * MS;
    feed1(op, SL_ROW_INSERT, "a", 2, &o); /* refreshes a */
    EXPECT(&o, "-U[a, 1, 1, 1, 1]", "+U[a, 2, 3, 1, 2]");
    now += 500 * MS; /* b: 1100 ms idle -> gone; a: 500 ms */
    feed1(op, SL_ROW_DELETE, "b", 1, &o); /* retracting an expired group: nothing */
    EXPECT_NONE(&o);
    feed1(op, SL_ROW_INSERT, "b", 5, &o); /* starts over silently */
    EXPECT(&o, "+I[b, 1, 5, 5, 5]");
    feed1(op, SL_ROW_INSERT, "a", 3, &o);
    EXPECT(&o, "-U[a, 2, 3, 1, 2]", "+U[a, 3, 6, 1, 3]");
    /* The expiry state survives a snapshot. */
    sl_strbuf s = SL_STRBUF_INIT;
    CHECK(snap(op, &s) == 0);
    sl_operator *r = kv_op(1000, fake_now, &now);
    sl_error err = SL_ERROR_INIT;
    CHECK(r->ops->restore(r, s.buf, s.len, &err) == 0);
    now += 1000 * MS;
    feed1(r, SL_ROW_INSERT, "a", 4, &o);
    EXPECT(&o, "+I[a, 1, 4, 4, 4]");
    sl_strbuf_free(&s);
    rows_free(&o);
    op->ops->free(op);
    r->ops->free(r);
}

/* ---- randomized: changelog applied == naive recomputation --------------- */

#define RK 40 /* key ids 0..RK-1, plus the NULL key */

static void t_randomized_reference(void)
{
    /* in: key (VARCHAR, NULL sometimes), v (INT, NULL sometimes), d DECIMAL(12,3), s VARCHAR */
    sl_type ty[4] = {sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0), sl_type_make(SL_TYPE_INT),
                     sl_type_make_p(SL_TYPE_DECIMAL, 12, 3), sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0)};
    sl_agg_call calls[] = {call(SL_FN_COUNT, false, -1, ty), call(SL_FN_COUNT, false, 1, ty),
                           call(SL_FN_SUM, false, 1, ty),    call(SL_FN_MIN, false, 1, ty),
                           call(SL_FN_MAX, false, 1, ty),    call(SL_FN_AVG, false, 1, ty),
                           call(SL_FN_COUNT, true, 1, ty),   call(SL_FN_SUM, false, 2, ty),
                           call(SL_FN_AVG, false, 2, ty),    call(SL_FN_MIN, false, 3, ty),
                           call(SL_FN_MAX, false, 3, ty),    call(SL_FN_SUM, true, 1, ty)};
    enum { NC = 12 };
    int keys[1] = {0};
    sl_group_agg_spec s = {4, ty, 1, keys, NC, calls, 0, NULL, NULL, {0}, false, false};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_group_agg_new(&s, &op, &err) == 0);

    enum { N = 10000 };
    static int rk[N], rv[N], rvn[N], rs[N];
    static int64_t rd[N];
    static bool live[N];
    int nin = 0;
    /* materialized result per key id (+1 for NULL key at index RK) */
    char *view[RK + 1] = {0};
    rows_t o = {0};
    rng_state = 4242;
    int mismatched_retract = 0;
    while (nin < N) {
        int want = 1 + (int)(rnd() % 200);
        sl_chunk *c = sl_chunk_new(4, ty, want);
        for (int i = 0; i < want && nin < N; i++) {
            int j = -1;
            if (rnd() % 3 == 0) { /* retract a random live row, if any */
                for (int t = 0; t < 8 && j < 0; t++) {
                    int cand = nin ? (int)(rnd() % (uint64_t)nin) : 0;
                    if (nin && live[cand])
                        j = cand;
                }
            }
            sl_row_kind kind;
            int id;
            if (j >= 0) {
                live[j] = false;
                kind = rnd() % 2 ? SL_ROW_DELETE : SL_ROW_UPDATE_BEFORE;
                id = j;
            } else {
                id = nin;
                rk[id] = (int)(rnd() % (RK + 1));
                rvn[id] = rnd() % 5 == 0;
                rv[id] = (int)(rnd() % 1000) - 500;
                rd[id] = (int64_t)(rnd() % 2000001) - 1000000;
                rs[id] = (int)(rnd() % 50);
                live[id] = true;
                kind = rnd() % 3 ? SL_ROW_INSERT : SL_ROW_UPDATE_AFTER;
            }
            int r = sl_chunk_append_row(c, kind);
            char buf[16];
            if (rk[id] < RK) {
                int len = snprintf(buf, sizeof buf, "k%d", rk[id]);
                sl_chunk_set_str(c, 0, r, buf, (size_t)len);
            }
            if (!rvn[id])
                sl_chunk_set_i64(c, 1, r, rv[id]);
            sl_chunk_set_i128(c, 2, r, (sl_i128)rd[id]);
            int len = snprintf(buf, sizeof buf, "s%02d", rs[id]);
            sl_chunk_set_str(c, 3, r, buf, (size_t)len);
            if (j < 0)
                nin++;
        }
        CHECK(run(op, c, &o, &err) == 0);
        sl_chunk_free(c);
        /* apply the changelog to the view */
        for (int i = 0; i < o.n; i++) {
            const char *row = o.v[i];
            const char *body = row + 3; /* after "+I[" */
            const char *comma = strchr(body, ',');
            int kid = RK;
            if (strncmp(body, "NULL,", 5) != 0)
                kid = atoi(body + 1);
            (void)comma;
            bool add = row[0] == '+';
            if (add) {
                CHECK(view[kid] == NULL);
                sl_free(view[kid]);
                view[kid] = sl_strdup(row + 2);
            } else {
                if (!view[kid] || strcmp(view[kid], row + 2) != 0)
                    mismatched_retract++;
                sl_free(view[kid]);
                view[kid] = NULL;
            }
        }
        rows_clear(&o);
    }
    CHECK_INT(mismatched_retract, 0);
    /* naive reference */
    int bad = 0;
    for (int k = 0; k <= RK; k++) {
        int64_t cnt = 0, cntv = 0, sum = 0, dsum = 0;
        int mn = 0, mx = 0;
        sl_i128 sumd = 0;
        int smin = 99, smax = -1;
        bool seen[1000] = {false};
        int64_t distinct = 0;
        for (int i = 0; i < nin; i++) {
            if (!live[i] || rk[i] != k)
                continue;
            cnt++;
            sumd += rd[i];
            if (rs[i] < smin)
                smin = rs[i];
            if (rs[i] > smax)
                smax = rs[i];
            if (rvn[i])
                continue;
            if (!cntv || rv[i] < mn)
                mn = rv[i];
            if (!cntv || rv[i] > mx)
                mx = rv[i];
            cntv++;
            sum += rv[i];
            if (!seen[rv[i] + 500]) {
                seen[rv[i] + 500] = true;
                distinct++;
                dsum += rv[i];
            }
        }
        char want[512];
        if (!cnt) {
            if (view[k]) {
                fprintf(stderr, "key %d: expected no row, have %s\n", k, view[k]);
                bad++;
            }
            continue;
        }
        char ks[16], agg[256], dsumt[64], davg[64];
        if (k < RK)
            snprintf(ks, sizeof ks, "k%d", k);
        else
            snprintf(ks, sizeof ks, "NULL");
        sl_dec_format(sumd, 3, dsumt);
        sl_i128 q;
        CHECK(sl_dec_div(sumd, 3, (sl_i128)cnt, 0, 38, 6, &q) == 0);
        sl_dec_format(q, 6, davg);
        if (cntv)
            snprintf(agg, sizeof agg, "%lld, %lld, %d, %d, %lld, %lld", (long long)cntv, (long long)sum, mn,
                     mx, (long long)(sum / cntv), (long long)distinct);
        else
            snprintf(agg, sizeof agg, "0, NULL, NULL, NULL, NULL, 0");
        snprintf(want, sizeof want, "[%s, %lld, %s, %s, %s, s%02d, s%02d, %s]", ks, (long long)cnt, agg,
                 dsumt, davg, smin, smax, cntv ? "" : "NULL");
        if (cntv) {
            size_t l = strlen(want);
            snprintf(want + l - 1, sizeof want - l + 1, "%lld]", (long long)dsum);
        }
        if (!view[k] || strcmp(view[k], want) != 0) {
            fprintf(stderr, "key %d:\n  got      %s\n  expected %s\n", k, view[k] ? view[k] : "(none)", want);
            bad++;
        }
    }
    CHECK_INT(bad, 0);
    for (int k = 0; k <= RK; k++)
        sl_free(view[k]);
    rows_free(&o);
    op->ops->free(op);
}

/* ---- LISTAGG ------------------------------------------------------------ */

static const sl_type la_types[2] = {{SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0, false},
                                    {SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0, false}};

/* key, LISTAGG(v) (','), LISTAGG(v, ' | '), LISTAGG(DISTINCT v, ''), COUNT(*). */
static sl_operator *la_op(void)
{
    static sl_agg_call calls[4];
    calls[0] = call(SL_FN_LISTAGG, false, 1, la_types);
    calls[1] = call(SL_FN_LISTAGG, false, 1, la_types);
    calls[1].sep = " | ";
    calls[2] = call(SL_FN_LISTAGG, true, 1, la_types);
    calls[2].sep = "";
    calls[3] = call(SL_FN_COUNT, false, -1, la_types);
    static const int key = 0;
    sl_group_agg_spec s = {2, la_types, 1, &key, 4, calls, 0, NULL, NULL, {0}, false, false};
    return new_agg(&s);
}

static void la_feed(sl_operator *op, sl_row_kind k, const char *key, const char *v, rows_t *o)
{
    sl_chunk *c = sl_chunk_new(2, la_types, 2);
    int r = sl_chunk_append_row(c, k);
    sl_chunk_set_str(c, 0, r, key, strlen(key));
    if (v)
        sl_chunk_set_str(c, 1, r, v, strlen(v));
    sl_error err = SL_ERROR_INIT;
    CHECK(run(op, c, o, &err) == 0);
    sl_error_reset(&err);
    sl_chunk_free(c);
}

/* MIN and MAX of a STRING value and COUNT(*) by a STRING key, over an
** insert-only input (append_only) or one with retractions. */
static sl_operator *mm_op(bool append_only)
{
    static sl_agg_call calls[3];
    calls[0] = call(SL_FN_MIN, false, 1, la_types);
    calls[1] = call(SL_FN_MAX, false, 1, la_types);
    calls[2] = call(SL_FN_COUNT, false, -1, la_types);
    static const int key = 0;
    sl_group_agg_spec s = {2, la_types, 1, &key, 3, calls, 0, NULL, NULL, {0}, append_only, false};
    return new_agg(&s);
}

/* An insert-only input: MIN/MAX keep one value (no multiset). Its results
** equal the retracting operator's; its snapshot restores; a retracting
** operator's snapshot (multisets) restores into it and continues the same,
** snapshotting as if it had run append-only all along; the reverse is
** refused (XX001); a retraction that still arrives fails (XX000). */
static void t_append_only_min_max(void)
{
    sl_operator *ao = mm_op(true), *rt = mm_op(false);
    REQUIRE(ao && rt);
    rows_t o = {0}, p = {0};
    const char *vals[] = {"m", "c", "x", "c", "a", "zz", "b"};
    for (size_t i = 0; i < SL_ARRAY_LEN(vals); i++) {
        rows_clear(&o);
        rows_clear(&p);
        la_feed(ao, SL_ROW_INSERT, i % 3 ? "k1" : "k2", vals[i], &o);
        la_feed(rt, SL_ROW_INSERT, i % 3 ? "k1" : "k2", vals[i], &p);
        CHECK_INT(o.n, p.n);
        for (int r = 0; r < o.n && r < p.n; r++)
            CHECK_STR(o.v[r], p.v[r]);
    }
    EXPECT(&o, "-U[k2, c, m, 2]", "+U[k2, b, m, 3]");
    sl_strbuf sa = SL_STRBUF_INIT, sr = SL_STRBUF_INIT, s2 = SL_STRBUF_INIT;
    CHECK(snap(ao, &sa) == 0 && snap(rt, &sr) == 0);
    CHECK(sa.len < sr.len); /* no multisets */
    sl_error err = SL_ERROR_INIT;
    /* the retracting operator's state into an append-only one */
    sl_operator *conv = mm_op(true), *copy = mm_op(true), *back = mm_op(false);
    REQUIRE(conv && copy && back);
    CHECK(conv->ops->restore(conv, sr.buf, sr.len, &err) == 0);
    sl_error_reset(&err);
    CHECK(snap(conv, &s2) == 0);
    CHECK(s2.len == sa.len && memcmp(s2.buf, sa.buf, sa.len) == 0);
    CHECK(copy->ops->restore(copy, sa.buf, sa.len, &err) == 0);
    sl_error_reset(&err);
    rows_t q = {0};
    rows_clear(&o);
    rows_clear(&p);
    la_feed(ao, SL_ROW_INSERT, "k1", "0", &o);
    la_feed(conv, SL_ROW_INSERT, "k1", "0", &p);
    la_feed(copy, SL_ROW_INSERT, "k1", "0", &q);
    CHECK_INT(p.n, o.n);
    CHECK_INT(q.n, o.n);
    for (int r = 0; r < o.n && r < p.n && r < q.n; r++) {
        CHECK_STR(p.v[r], o.v[r]);
        CHECK_STR(q.v[r], o.v[r]);
    }
    EXPECT(&o, "-U[k1, a, zz, 4]", "+U[k1, 0, zz, 5]");
    /* one value kept cannot become a multiset */
    CHECK(back->ops->restore(back, sa.buf, sa.len, &err) == -1);
    CHECK_STR(err.sqlstate, SL_ERR_DATA_CORRUPTED);
    sl_error_reset(&err);
    /* a retraction into the append-only operator */
    sl_chunk *c = sl_chunk_new(2, la_types, 2);
    int r = sl_chunk_append_row(c, SL_ROW_DELETE);
    sl_chunk_set_str(c, 0, r, "k1", 2);
    sl_chunk_set_str(c, 1, r, "0", 1);
    CHECK(run(ao, c, &o, &err) == -1);
    CHECK_STR(err.sqlstate, SL_ERR_INTERNAL);
    CHECK(strstr(err.message, "insert-only") != NULL);
    sl_error_reset(&err);
    sl_chunk_free(c);
    sl_strbuf_free(&sa);
    sl_strbuf_free(&sr);
    sl_strbuf_free(&s2);
    rows_free(&o);
    rows_free(&p);
    rows_free(&q);
    ao->ops->free(ao);
    rt->ops->free(rt);
    conv->ops->free(conv);
    copy->ops->free(copy);
    back->ops->free(back);
}

/* Values joined in arrival order; NULLs skipped (NULL result while no value);
** a retraction removes the first equal value, one occurrence only; DISTINCT
** keeps first appearances. */
static void t_listagg_accumulate_retract(void)
{
    sl_operator *op = la_op();
    REQUIRE(op);
    rows_t o = {0};
    la_feed(op, SL_ROW_INSERT, "k", NULL, &o);
    EXPECT(&o, "+I[k, NULL, NULL, NULL, 1]");
    la_feed(op, SL_ROW_INSERT, "k", "b", &o);
    EXPECT(&o, "-U[k, NULL, NULL, NULL, 1]", "+U[k, b, b, b, 2]");
    la_feed(op, SL_ROW_INSERT, "k", "a", &o);
    la_feed(op, SL_ROW_INSERT, "k", "b", &o);
    la_feed(op, SL_ROW_INSERT, "k", "", &o);
    rows_clear(&o);
    la_feed(op, SL_ROW_INSERT, "k", "c", &o);
    EXPECT(&o, "-U[k, b,a,b,, b | a | b | , ba, 5]", "+U[k, b,a,b,,c, b | a | b |  | c, bac, 6]");
    la_feed(op, SL_ROW_UPDATE_BEFORE, "k", "b", &o); /* the first b goes */
    EXPECT(&o, "-U[k, b,a,b,,c, b | a | b |  | c, bac, 6]", "+U[k, a,b,,c, a | b |  | c, bac, 5]");
    la_feed(op, SL_ROW_DELETE, "k", "b", &o); /* the last b: DISTINCT drops it too */
    EXPECT(&o, "-U[k, a,b,,c, a | b |  | c, bac, 5]", "+U[k, a,,c, a |  | c, ac, 4]");
    la_feed(op, SL_ROW_DELETE, "k", "zz", &o); /* never seen: nothing removed */
    EXPECT(&o, "-U[k, a,,c, a |  | c, ac, 4]", "+U[k, a,,c, a |  | c, ac, 3]");
    la_feed(op, SL_ROW_INSERT, "k", "a", &o); /* appended at the end again */
    EXPECT(&o, "-U[k, a,,c, a |  | c, ac, 3]", "+U[k, a,,c,a, a |  | c | a, ac, 4]");
    la_feed(op, SL_ROW_DELETE, "k", "a", &o); /* the first a; DISTINCT still has one */
    EXPECT(&o, "-U[k, a,,c,a, a |  | c | a, ac, 4]", "+U[k, ,c,a,  | c | a, ac, 3]");
    la_feed(op, SL_ROW_DELETE, "k", "", &o);
    la_feed(op, SL_ROW_DELETE, "k", "c", &o);
    rows_clear(&o);
    la_feed(op, SL_ROW_DELETE, "k", "a", &o); /* the group's last row ("zz" counted as one) */
    EXPECT(&o, "-D[k, a, a, a, 1]");
    rows_free(&o);
    op->ops->free(op);
}

/* A window aggregation fires LISTAGG once per window, values in arrival order. */
static void t_listagg_window(void)
{
    sl_agg_call calls[1] = {call(SL_FN_LISTAGG, false, 0, win_types)};
    calls[0].sep = ";";
    int keys[2] = {2, 3};
    sl_window_agg_spec s = {{4, win_types, 2, keys, 1, calls, 0, NULL, NULL, {0}, false, false}, 0, 1, -1, 0, NULL, 0};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_window_agg_new(&s, &op, &err) == 0);
    rows_t o = {0};
    sl_chunk *c = sl_chunk_new(4, win_types, 8);
    const char *vals[] = {"x", "y", NULL, "x", "z"};
    for (int i = 0; i < 5; i++) {
        int r = sl_chunk_append_row(c, SL_ROW_INSERT);
        if (vals[i])
            sl_chunk_set_str(c, 0, r, vals[i], strlen(vals[i]));
        sl_chunk_set_i64(c, 2, r, (i < 4 ? 0 : 10) * MS);
        sl_chunk_set_i64(c, 3, r, (i < 4 ? 10 : 20) * MS);
    }
    CHECK(run(op, c, &o, &err) == 0);
    EXPECT_NONE(&o);
    CHECK(fire(op, 20 * MS, &o, &err) == 0);
    EXPECT(&o, "+I[1970-01-01 00:00:00.000, 1970-01-01 00:00:00.010, x;y;x]",
           "+I[1970-01-01 00:00:00.010, 1970-01-01 00:00:00.020, z]");
    sl_chunk_free(c);
    rows_free(&o);
    op->ops->free(op);
}

/* Snapshot/restore keeps the lists (order, duplicates, DISTINCT counts):
** the restored operator answers further input as the original does; every
** truncation and flipped byte of the blob is XX001; version 2 and 1
** blobs (fixed-width integers; no LISTAGG) still restore; an unknown
** version is refused by name. */
static void t_listagg_snapshot(void)
{
    sl_operator *a = la_op(), *b = la_op();
    REQUIRE(a && b);
    rows_t o = {0}, p = {0};
    const char *seq[] = {"b", "a", "b", "", "c", "a"};
    for (size_t i = 0; i < SL_ARRAY_LEN(seq); i++)
        la_feed(a, SL_ROW_INSERT, i % 2 ? "k1" : "k2", seq[i], &o);
    la_feed(a, SL_ROW_INSERT, "k1", NULL, &o);
    sl_strbuf s = SL_STRBUF_INIT, s2 = SL_STRBUF_INIT;
    CHECK(snap(a, &s) == 0);
    sl_error err = SL_ERROR_INIT;
    CHECK(b->ops->restore(b, s.buf, s.len, &err) == 0);
    CHECK(snap(b, &s2) == 0);
    CHECK(s2.len == s.len && memcmp(s.buf, s2.buf, s.len) == 0);
    rows_clear(&o);
    la_feed(a, SL_ROW_DELETE, "k2", "b", &o);
    la_feed(b, SL_ROW_DELETE, "k2", "b", &p);
    la_feed(a, SL_ROW_INSERT, "k1", "d", &o);
    la_feed(b, SL_ROW_INSERT, "k1", "d", &p);
    CHECK_INT(o.n, 4);
    CHECK_INT(p.n, o.n);
    for (int i = 0; i < o.n && i < p.n; i++)
        CHECK_STR(p.v[i], o.v[i]);
    EXPECT(&p, "-U[k2, b,b,c, b | b | c, bc, 3]", "+U[k2, b,c, b | c, bc, 2]",
           "-U[k1, a,,a, a |  | a, a, 4]", "+U[k1, a,,a,d, a |  | a | d, ad, 5]");
    char *buf = sl_malloc(s.len);
    int bad = 0;
    for (size_t n = 0; n < s.len; n++) {
        memcpy(buf, s.buf, n);
        if (b->ops->restore(b, buf, n, &err) != -1 || strcmp(err.sqlstate, SL_ERR_DATA_CORRUPTED) != 0)
            bad++;
        sl_error_reset(&err);
    }
    for (size_t i = 0; i < s.len; i++) {
        memcpy(buf, s.buf, s.len);
        buf[i] ^= 0x41;
        if (b->ops->restore(b, buf, s.len, &err) != -1 || strcmp(err.sqlstate, SL_ERR_DATA_CORRUPTED) != 0)
            bad++;
        sl_error_reset(&err);
    }
    CHECK_INT(bad, 0);
    /* version 4: refused with a message naming the version */
    memcpy(buf, s.buf, s.len);
    buf[4] = 4;
    CHECK(b->ops->restore(b, buf, s.len, &err) == -1);
    CHECK_STR(err.sqlstate, SL_ERR_DATA_CORRUPTED);
    CHECK(strstr(err.message, "format version 4") != NULL);
    sl_error_reset(&err);
    sl_free(buf);

    /* Versions 2 (fixed-width integers) and 1 (before LISTAGG): a version 2
    ** blob a build of 2026-12-03 wrote of kv_op after x 5 and y 7 restores,
    ** as itself and as version 1; the operator continues as the original
    ** does and its snapshot (version 3) is the original's, byte for byte. */
    static const char v2[] =
        "\x53\x4c\x41\x47\x02\x00\x00\x00\x00\x01\x00\x00\x00\x04\x04\x00\x00\x00\x00\x00"
        "\x00\x01\x00\x02\x00\x00\x01\x00\x08\x00\x01\x01\x00\x09\x00\x01\x01\x00\x00\x00"
        "\x00\x00\x00\x00\x00\x80\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00"
        "\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
        "\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x78\x01\x00\x00\x00"
        "\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
        "\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00"
        "\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00"
        "\x05\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00"
        "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00"
        "\x00\x01\x00\x00\x00\x79\x01\x00\x00\x00\x00\x00\x00\x00\x07\x00\x00\x00\x00\x00"
        "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00"
        "\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00"
        "\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00\x01\x00"
        "\x00\x00\x00\x00\x00\x00\x7e\xfc\x37\xf8\x24\x5f\x62\x84";
    CHECK_INT(sizeof v2 - 1, 294);
    for (int version = 2; version >= 1; version--) {
        sl_operator *k1 = kv_op(0, NULL, NULL), *k2 = kv_op(0, NULL, NULL);
        feed1(k1, SL_ROW_INSERT, "x", 5, &o);
        feed1(k1, SL_ROW_INSERT, "y", 7, &o);
        rows_clear(&o);
        rows_clear(&p);
        sl_strbuf_reset(&s);
        sl_strbuf_append_n(&s, v2, sizeof v2 - 1);
        if (version == 1) {
            s.buf[4] = 1;
            uint64_t h = sl__hash_bytes(s.buf, s.len - 8);
            for (int i = 0; i < 8; i++)
                s.buf[s.len - 8 + (size_t)i] = (char)(h >> (8 * i));
        }
        CHECK(k2->ops->restore(k2, s.buf, s.len, &err) == 0);
        sl_error_reset(&err);
        CHECK(snap(k1, &s) == 0 && snap(k2, &s2) == 0);
        CHECK(s.len > 16 && s.buf[4] == 3);
        CHECK(s2.len == s.len && memcmp(s.buf, s2.buf, s.len) == 0);
        feed1(k1, SL_ROW_INSERT, "x", 1, &o);
        feed1(k2, SL_ROW_INSERT, "x", 1, &p);
        CHECK_INT(p.n, 2);
        CHECK_INT(p.n, o.n);
        for (int i = 0; i < o.n && i < p.n; i++)
            CHECK_STR(p.v[i], o.v[i]);
        k1->ops->free(k1);
        k2->ops->free(k2);
    }
    sl_strbuf_free(&s);
    sl_strbuf_free(&s2);
    rows_free(&o);
    rows_free(&p);
    a->ops->free(a);
    b->ops->free(b);
}

/* ---- FILTER (WHERE ...): a BOOLEAN column per call ------------------------ */

static const sl_type kvf_types[3] = {{SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0, false},
                                     {SL_TYPE_INT, 0, 0, false},
                                     {SL_TYPE_BOOLEAN, 0, 0, false}};

/* COUNT(*) FILTER, SUM FILTER, COUNT(DISTINCT) FILTER, MAX FILTER, COUNT(*). */
static sl_operator *kvf_op(void)
{
    int keys[1] = {0};
    sl_agg_call calls[5] = {
        call(SL_FN_COUNT, false, -1, kvf_types), call(SL_FN_SUM, false, 1, kvf_types),
        call(SL_FN_COUNT, true, 1, kvf_types),   call(SL_FN_MAX, false, 1, kvf_types),
        call(SL_FN_COUNT, false, -1, kvf_types)};
    for (int i = 0; i < 4; i++) {
        calls[i].filtered = true;
        calls[i].filter = 2;
    }
    sl_group_agg_spec s = {3, kvf_types, 1, keys, 5, calls, 0, NULL, NULL, {0}, false, false};
    return new_agg(&s);
}

/* f: 1 TRUE, 0 FALSE, -1 NULL */
static void feedf(sl_operator *op, sl_row_kind k, const char *key, int64_t v, int f, rows_t *o)
{
    sl_error err = SL_ERROR_INIT;
    sl_chunk *c = sl_chunk_new(3, kvf_types, 4);
    int r = sl_chunk_append_row(c, k);
    sl_chunk_set_str(c, 0, r, key, strlen(key));
    sl_chunk_set_i64(c, 1, r, v);
    if (f < 0)
        sl_chunk_set_null(c, 2, r);
    else
        sl_chunk_set_bool(c, 2, r, f == 1);
    CHECK(run(op, c, o, &err) == 0);
    if (sl_error_isset(&err))
        fprintf(stderr, "error: %s\n", err.message);
    sl_error_reset(&err);
    sl_chunk_free(c);
}

static void t_filter(void)
{
    sl_operator *op = kvf_op();
    REQUIRE(op);
    rows_t o = {0};
    feedf(op, SL_ROW_INSERT, "a", 5, 1, &o);
    EXPECT(&o, "+I[a, 1, 5, 1, 5, 1]");
    feedf(op, SL_ROW_INSERT, "a", 7, 0, &o); /* FALSE: only COUNT(*) sees it */
    EXPECT(&o, "-U[a, 1, 5, 1, 5, 1]", "+U[a, 1, 5, 1, 5, 2]");
    feedf(op, SL_ROW_INSERT, "a", 9, -1, &o); /* NULL is not TRUE */
    EXPECT(&o, "-U[a, 1, 5, 1, 5, 2]", "+U[a, 1, 5, 1, 5, 3]");
    feedf(op, SL_ROW_INSERT, "a", 5, 1, &o);
    EXPECT(&o, "-U[a, 1, 5, 1, 5, 3]", "+U[a, 2, 10, 1, 5, 4]");
    feedf(op, SL_ROW_DELETE, "a", 5, 1, &o); /* retractions pass the filter too */
    EXPECT(&o, "-U[a, 2, 10, 1, 5, 4]", "+U[a, 1, 5, 1, 5, 3]");
    feedf(op, SL_ROW_DELETE, "a", 5, 1, &o);
    EXPECT(&o, "-U[a, 1, 5, 1, 5, 3]", "+U[a, 0, NULL, 0, NULL, 2]");
    feedf(op, SL_ROW_DELETE, "a", 7, 0, &o);
    EXPECT(&o, "-U[a, 0, NULL, 0, NULL, 2]", "+U[a, 0, NULL, 0, NULL, 1]");
    feedf(op, SL_ROW_DELETE, "a", 9, -1, &o); /* the group's last row */
    EXPECT(&o, "-D[a, 0, NULL, 0, NULL, 1]");
    feedf(op, SL_ROW_INSERT, "a", 4, 0, &o);
    feedf(op, SL_ROW_INSERT, "a", 6, 1, &o);
    rows_clear(&o);
    /* A restored operator continues as the original. */
    sl_strbuf s = {0};
    CHECK(snap(op, &s) == 0);
    sl_operator *b = kvf_op();
    REQUIRE(b);
    sl_error err = SL_ERROR_INIT;
    CHECK(b->ops->restore(b, s.buf, s.len, &err) == 0);
    sl_error_reset(&err);
    rows_t p = {0};
    feedf(op, SL_ROW_INSERT, "a", 8, 1, &o);
    feedf(b, SL_ROW_INSERT, "a", 8, 1, &p);
    EXPECT(&o, "-U[a, 1, 6, 1, 6, 2]", "+U[a, 2, 14, 2, 8, 3]");
    EXPECT(&p, "-U[a, 1, 6, 1, 6, 2]", "+U[a, 2, 14, 2, 8, 3]");
    sl_strbuf_free(&s);
    rows_free(&o);
    rows_free(&p);
    b->ops->free(b);
    op->ops->free(op);
    /* A filter column that is not a BOOLEAN input is the planner's bug. */
    int key = 0;
    sl_agg_call bad = call(SL_FN_COUNT, false, -1, kvf_types);
    bad.filtered = true;
    bad.filter = 1;
    sl_group_agg_spec bs = {3, kvf_types, 1, &key, 1, &bad, 0, NULL, NULL, {0}, false, false};
    sl_operator *x = NULL;
    CHECK(sl_group_agg_new(&bs, &x, &err) == -1 && x == NULL);
    CHECK_STR(err.sqlstate, SL_ERR_INTERNAL);
    sl_error_reset(&err);
    bad.filter = 3;
    CHECK(sl_group_agg_new(&bs, &x, &err) == -1 && x == NULL);
    sl_error_reset(&err);
}

/* ---- DISTINCT calls sharing one value set ------------------------------ */

static const sl_type sd_types[4] = {{SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0, false},
                                    {SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0, false},
                                    {SL_TYPE_BOOLEAN, 0, 0, false},
                                    {SL_TYPE_BOOLEAN, 0, 0, false}};

/* COUNT(*), COUNT(DISTINCT v), COUNT(DISTINCT v) FILTER f1, COUNT(DISTINCT v)
** FILTER f2, COUNT(v) FILTER f1, grouped by k. Insert-only (append_only):
** the three DISTINCT calls share one set; else each has its own. */
static sl_operator *sd_op(bool append_only)
{
    int keys[1] = {0};
    sl_agg_call calls[5] = {call(SL_FN_COUNT, false, -1, sd_types), call(SL_FN_COUNT, true, 1, sd_types),
                            call(SL_FN_COUNT, true, 1, sd_types), call(SL_FN_COUNT, true, 1, sd_types),
                            call(SL_FN_COUNT, false, 1, sd_types)};
    calls[2].filtered = calls[4].filtered = true;
    calls[2].filter = calls[4].filter = 2;
    calls[3].filtered = true;
    calls[3].filter = 3;
    sl_group_agg_spec s = {4, sd_types, 1, keys, 5, calls, 0, NULL, NULL, {0}, append_only, false};
    return new_agg(&s);
}

static sl_chunk *sd_chunk(int nrows)
{
    sl_chunk *c = sl_chunk_new(4, sd_types, nrows);
    char buf[16];
    for (int i = 0; i < nrows; i++) {
        int r = sl_chunk_append_row(c, SL_ROW_INSERT);
        snprintf(buf, sizeof buf, "k%d", (int)(rnd() % 5));
        sl_chunk_set_str(c, 0, r, buf, strlen(buf));
        if (rnd() % 10 == 0) {
            sl_chunk_set_null(c, 1, r);
        } else {
            snprintf(buf, sizeof buf, "v%d", (int)(rnd() % 40));
            sl_chunk_set_str(c, 1, r, buf, strlen(buf));
        }
        for (int f = 2; f < 4; f++) {
            if (rnd() % 7 == 0)
                sl_chunk_set_null(c, f, r);
            else
                sl_chunk_set_bool(c, f, r, rnd() % 2);
        }
    }
    return c;
}

/* The shared sets give every result the separate sets give, and a
** snapshot of either restores into the other and continues alike. */
static void t_shared_distinct(void)
{
    sl_operator *sh = sd_op(true), *own = sd_op(false);
    REQUIRE(sh && own);
    rows_t a = {0}, b = {0};
    sl_error err = SL_ERROR_INIT;
    for (int round = 0; round < 40; round++) {
        /* some chunks span several of the lookup's blocks of hashes (256) */
        sl_chunk *c = sd_chunk(1 + (int)(rnd() % (round % 5 == 4 ? 900 : 50)));
        CHECK(run(sh, c, &a, &err) == 0);
        CHECK(run(own, c, &b, &err) == 0);
        sl_chunk_free(c);
        if (round == 19) { /* each restored from the other's snapshot */
            sl_strbuf s1 = {0}, s2 = {0};
            CHECK(snap(sh, &s1) == 0);
            CHECK(snap(own, &s2) == 0);
            sl_operator *sh2 = sd_op(true), *own2 = sd_op(false);
            CHECK(sh2->ops->restore(sh2, s2.buf, s2.len, &err) == 0);
            CHECK(own2->ops->restore(own2, s1.buf, s1.len, &err) == 0);
            sl_strbuf_free(&s1);
            sl_strbuf_free(&s2);
            sh->ops->free(sh);
            own->ops->free(own);
            sh = sh2;
            own = own2;
        }
    }
    CHECK(!sl_error_isset(&err));
    CHECK(a.n > 40 && a.n == b.n);
    for (int i = 0; i < a.n && i < b.n; i++)
        if (strcmp(a.v[i], b.v[i]) != 0) {
            fprintf(stderr, "row %d: shared %s, own %s\n", i, a.v[i], b.v[i]);
            CHECK(false);
            break;
        }
    /* The shared snapshot, restored into a shared operator, snapshots the same. */
    sl_strbuf s1 = {0}, s2 = {0};
    CHECK(snap(sh, &s1) == 0);
    sl_operator *sh3 = sd_op(true);
    CHECK(sh3->ops->restore(sh3, s1.buf, s1.len, &err) == 0);
    CHECK(snap(sh3, &s2) == 0);
    CHECK(s1.len == s2.len && memcmp(s1.buf, s2.buf, s1.len) == 0);
    sl_strbuf_free(&s1);
    sl_strbuf_free(&s2);
    sh3->ops->free(sh3);
    rows_free(&a);
    rows_free(&b);
    sh->ops->free(sh);
    own->ops->free(own);
}

/* ---- sliced HOP windows ------------------------------------------------- */

/* A HOP window aggregation by (k, window) of COUNT(*), SUM(v), MIN(v),
** MAX(k), AVG(v), COUNT(v): sliced (its rows carry their slice) or not
** (a row per window). */
static sl_operator *hop_op(bool sliced, int64_t slide_ns, int64_t size_ns)
{
    sl_agg_call calls[6] = {call(SL_FN_COUNT, false, -1, win_types), call(SL_FN_SUM, false, 1, win_types),
                            call(SL_FN_MIN, false, 1, win_types), call(SL_FN_MAX, false, 0, win_types),
                            call(SL_FN_AVG, false, 1, win_types), call(SL_FN_COUNT, false, 1, win_types)};
    return win_op_of(calls, 6, slide_ns, sliced ? size_ns : 0);
}

/* A row (k, v or NULL, [start, end)) of hop_op's input. */
static void hop_row(sl_chunk *c, const char *k, bool null_v, int v, int64_t start, int64_t end)
{
    int r = sl_chunk_append_row(c, SL_ROW_INSERT);
    sl_chunk_set_str(c, 0, r, k, strlen(k));
    if (null_v)
        sl_chunk_set_null(c, 1, r);
    else
        sl_chunk_set_i64(c, 1, r, v);
    sl_chunk_set_i64(c, 2, r, start);
    sl_chunk_set_i64(c, 3, r, end);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* A sliced HOP aggregation emits what the one of a row per window emits
** (as a multiset: within a window, the merged groups' order is their first
** slice's), over out-of-order rows with late ones, NULL values, watermarks
** that jump several windows, windows with empty slices, and a restore into
** a new operator midway; its late rows are those whose every window has
** fired. A snapshot of the other kind is refused. */
static void t_sliced_hop(void)
{
    const int64_t slide = 2000 * MS, size = 6000 * MS;
    sl_operator *sl = hop_op(true, slide, size), *ref = hop_op(false, slide, size);
    REQUIRE(sl && ref);
    rows_t a = {0}, b = {0};
    sl_error err = SL_ERROR_INIT;
    sl_chunk *cs = sl_chunk_new(4, win_types, 64), *cr = sl_chunk_new(4, win_types, 256);
    const char *keys[5] = {"a", "bb", "c", "dddd", "e"};
    int64_t maxt = 0, wm = INT64_MIN, late = 0;
    sl_strbuf snapbuf = SL_STRBUF_INIT;
    for (int round = 0; round < 300; round++) {
        sl_chunk_reset(cs);
        sl_chunk_reset(cr);
        int n = 1 + (int)(rnd() % 40);
        for (int i = 0; i < n; i++) {
            /* time moves on by 0-400 ms, a row lags by up to 3 s (one in
            ** ten by up to 12 s: late for some or all its windows); now and
            ** then a pause of 10-20 s leaves empty slices */
            maxt += (int64_t)(rnd() % 400) * MS + (rnd() % 97 == 0 ? (int64_t)(10 + rnd() % 10) * 1000 * MS : 0);
            int64_t t = maxt - (int64_t)(rnd() % (rnd() % 10 ? 3000 : 12000)) * MS;
            const char *k = keys[rnd() % 5];
            bool null_v = rnd() % 11 == 0;
            int v = (int)(rnd() % 1000) - 300;
            int64_t ss = t - ((t % slide) + slide) % slide;
            if (ss + size <= wm)
                late++; /* its last window has fired */
            hop_row(cs, k, null_v, v, ss, ss + slide);
            for (int64_t st = ss; st > t - size; st -= slide) /* HOP: newest first */
                hop_row(cr, k, null_v, v, st, st + size);
        }
        CHECK(run(sl, cs, &a, &err) == 0);
        CHECK(run(ref, cr, &b, &err) == 0);
        if (rnd() % 3 == 0) {
            int64_t w = maxt - 1500 * MS - (int64_t)(rnd() % 2) * 7000 * MS;
            CHECK(fire(sl, w, &a, &err) == 0);
            CHECK(fire(ref, w, &b, &err) == 0);
            if (w > wm)
                wm = w;
        }
        if (round == 150) { /* continue in a restored operator */
            CHECK(snap(sl, &snapbuf) == 0);
            sl_operator *sl2 = hop_op(true, slide, size);
            CHECK(sl2->ops->restore(sl2, snapbuf.buf, snapbuf.len, &err) == 0);
            sl->ops->free(sl);
            sl = sl2;
            CHECK_INT(sl->ops->late_rows(sl), late);
        }
    }
    CHECK(fire(sl, INT64_MAX, &a, &err) == 0);
    CHECK(fire(ref, INT64_MAX, &b, &err) == 0);
    CHECK(a.n > 500);
    CHECK(late > 0);
    CHECK_INT(sl->ops->late_rows(sl), late);
    qsort(a.v, (size_t)a.n, sizeof(char *), cmp_str);
    qsort(b.v, (size_t)b.n, sizeof(char *), cmp_str);
    CHECK_INT(a.n, b.n);
    int same = a.n == b.n;
    for (int i = 0; same && i < a.n; i++)
        if (strcmp(a.v[i], b.v[i]) != 0) {
            fprintf(stderr, "row %d: sliced %s, per window %s\n", i, a.v[i], b.v[i]);
            same = 0;
        }
    CHECK(same);
    /* a snapshot of the per-window operator does not restore into a sliced one */
    CHECK(snap(ref, &snapbuf) == 0);
    sl_operator *sl3 = hop_op(true, slide, size);
    CHECK(sl3->ops->restore(sl3, snapbuf.buf, snapbuf.len, &err) == -1);
    sl_error_reset(&err);
    sl3->ops->free(sl3);
    /* a call whose accumulators do not merge is refused */
    int gk[3] = {0, 2, 3};
    sl_agg_call dc = call(SL_FN_COUNT, true, 1, win_types);
    sl_window_agg_spec ds = {{4, win_types, 3, gk, 1, &dc, 0, NULL, NULL, {0}, false, false},
                             1, 2, -1, slide, NULL, size};
    sl_operator *bad = NULL;
    CHECK(sl_window_agg_new(&ds, &bad, &err) == -1 && bad == NULL);
    CHECK_STR(err.sqlstate, SL_ERR_INTERNAL);
    sl_error_reset(&err);
    sl_strbuf_free(&snapbuf);
    sl_chunk_free(cs);
    sl_chunk_free(cr);
    rows_free(&a);
    rows_free(&b);
    sl->ops->free(sl);
    ref->ops->free(ref);
}

/* ---- bad specs ---------------------------------------------------------- */

static void t_bad_spec(void)
{
    sl_type ty[1] = {sl_type_make_p(SL_TYPE_VARCHAR, 10, 0)};
    sl_agg_call bad_sum = {SL_FN_SUM, false, 0, sl_type_make(SL_TYPE_BIGINT), -1, NULL, false, -1};
    sl_group_agg_spec s = {1, ty, 0, NULL, 1, &bad_sum, 0, NULL, NULL, {0}, false, false};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    CHECK(sl_group_agg_new(&s, &op, &err) == -1 && op == NULL);
    CHECK_STR(err.sqlstate, SL_ERR_INTERNAL);
    sl_error_reset(&err);
    int key = 3;
    sl_group_agg_spec s2 = {1, ty, 1, &key, 0, NULL, 0, NULL, NULL, {0}, false, false};
    CHECK(sl_group_agg_new(&s2, &op, &err) == -1);
    sl_error_reset(&err);
}

/* ---- version 3's bytes ------------------------------------------------- */

/* The bytes of a version 3 snapshot are the encoding's, not the encoder's:
** snapshots of groups whose integers take every varint length (keys from
** INT64_MIN to INT64_MAX and NULL, sums that fit in 64 bits and sums that
** do not, of either sign, a DOUBLE sum; string keys, MIN/MAX multisets
** after a retraction) are what a build of 2026-12-04 wrote, byte for byte
** (printed with SL_PRINT_GOLDEN=1), and restore to the same snapshot. */
static const char v3_num[] =
    "\x53\x4c\x41\x47\x03\x00\x00\x00\x00\x01\x00\x00\x00\x01\x04\x00\x00\x00\x03\x00"
    "\x00\x03\x04\x00\x00\x00\x01\x00\x09\x00\x01\x03\x04\x04\x00\x00\x02\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x80\x00\x00\x00\x00\x00\x00\x00\x00\x09\x00\x00\x00\x00\x00"
    "\x00\x00\x09\x00\x00\x00\x00\x00\x02\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"
    "\x02\xfd\xff\xff\xff\xff\xa3\xc4\xe2\x84\xfa\x88\x9b\xd4\x85\x95\xd3\x9d\x4b\x02"
    "\x02\xfd\xff\xff\xff\xff\xa3\xc4\xe2\x84\xfa\x88\x9b\xd4\x85\x95\xd3\x9d\x4b\x02"
    "\x02\x00\x00\x00\x00\x00\x00\xf8\xbf\x02\x00\x02\x00\xfe\xff\xff\xff\xff\xff\xff"
    "\xff\xff\x01\x02\xfe\xff\xff\xff\xff\xa3\xc4\xe2\x84\xfa\x88\x9b\xd4\x85\x95\xd3"
    "\x9d\x4b\x02\x02\xfe\xff\xff\xff\xff\xa3\xc4\xe2\x84\xfa\x88\x9b\xd4\x85\x95\xd3"
    "\x9d\x4b\x02\x02\x00\x00\x00\x00\x00\x00\x02\x40\x02\x00\x02\x01\x02\x02\x02\x02"
    "\x02\x02\x02\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x02\x00\x00\x02\xff\xff\xff"
    "\xff\xff\xff\xff\xff\xff\x01\x02\x02\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x02"
    "\x02\x9c\x75\x00\x88\x3c\xe4\x37\x7e\x02\x00\x04\x00\x7e\x04\xfc\x80\x80\x80\x80"
    "\x80\x80\x80\x80\x02\x04\x04\x7e\x02\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01\x02"
    "\x04\x00\x00\x00\x00\x00\x00\x08\x40\x02\x00\x02\x00\x80\x01\x02\x01\x02\x02\x01"
    "\x02\x02\x00\x00\x00\x00\x00\x00\x1c\xc0\x02\x00\x02\x00\x81\x01\x02\x80\x80\x80"
    "\x80\x80\x80\x80\x80\x80\x04\x02\x02\x80\x80\x80\x80\x80\x80\x80\x80\x80\x04\x02"
    "\x02\x00\x00\x00\x00\x00\x00\xe0\x3f\x02\x00\x02\x00\x80\x89\x7a\x02\x81\x80\x80"
    "\x80\x80\x80\x80\x80\x80\x04\x02\x02\x81\x80\x80\x80\x80\x80\x80\x80\x80\x04\x02"
    "\x02\x59\xf3\xf8\xc2\x1f\x6e\xa5\x01\x02\x00\x02\x00\x7f\x02\x81\x80\x80\x80\x80"
    "\x80\x80\x80\x80\x02\x02\x02\x81\x80\x80\x80\x80\x80\x80\x80\x80\x02\x02\x02\x00"
    "\x00\x00\x00\x00\x00\x20\x40\x44\x64\x80\x9f\x7a\x6d\x94\x4f";
static const char v3_kv[] =
    "\x53\x4c\x41\x47\x03\x00\x00\x00\x00\x01\x00\x00\x00\x04\x04\x00\x00\x00\x00\x00"
    "\x00\x01\x00\x02\x00\x00\x01\x00\x08\x00\x01\x01\x00\x09\x00\x01\x01\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x80\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00"
    "\x00\x00\x03\x00\x00\x00\x00\x00\x04\x00\x02\x61\x04\x88\xc1\x08\x04\x04\xd7\x04"
    "\x02\xe0\xc5\x08\x02\x04\x04\xd7\x04\x02\xe0\xc5\x08\x02\x02\x00\x02\x01\x02\x0e"
    "\x02\x02\x0e\x02\x02\x02\x0e\x02\x02\x00\x02\x00\x8e\x02\x61\x20\x6c\x6f\x6e\x67"
    "\x65\x72\x20\x6b\x65\x79\x2c\x20\x70\x61\x73\x74\x20\x6f\x6e\x65\x20\x62\x79\x74"
    "\x65\x20\x6f\x66\x20\x6c\x65\x6e\x67\x74\x68\x3a\x20\x30\x31\x32\x33\x34\x35\x36"
    "\x37\x38\x39\x61\x62\x63\x64\x65\x66\x30\x31\x32\x33\x34\x35\x36\x37\x38\x39\x61"
    "\x62\x63\x64\x65\x66\x30\x31\x32\x33\x34\x35\x36\x37\x38\x39\x61\x62\x63\x64\x65"
    "\x66\x30\x31\x32\x33\x34\x35\x36\x37\x38\x39\x61\x62\x63\x64\x65\x66\x30\x31\x32"
    "\x33\x34\x35\x36\x37\x38\x39\x61\x62\x63\x64\x65\x66\x30\x31\x32\x33\x34\x35\x36"
    "\x37\x38\x39\x61\x62\x63\x64\x65\x66\x02\xfe\xff\xff\xff\x0f\x02\x02\xfe\xff\xff"
    "\xff\x0f\x02\x02\x02\xfe\xff\xff\xff\x0f\x02\x71\x35\x06\x2d\x99\x3b\x84\x14";

static void check_golden(const char *what, sl_operator *op, const char *want, size_t n,
                         sl_operator *fresh)
{
    sl_strbuf sb = SL_STRBUF_INIT, again = SL_STRBUF_INIT;
    CHECK(snap(op, &sb) == 0);
    if (getenv("SL_PRINT_GOLDEN")) {
        printf("%s (%zu bytes):\n\"", what, sb.len);
        for (size_t i = 0; i < sb.len; i++)
            printf("\\x%02x%s", (unsigned char)sb.buf[i], i % 20 == 19 ? "\"\n\"" : "");
        printf("\"\n");
    }
    CHECK_INT(sb.len, n);
    CHECK(sb.len == n && memcmp(sb.buf, want, n) == 0);
    sl_error err = SL_ERROR_INIT;
    CHECK(fresh->ops->restore(fresh, want, n, &err) == 0);
    sl_error_reset(&err);
    CHECK(snap(fresh, &again) == 0);
    CHECK(again.len == n && memcmp(again.buf, want, n) == 0);
    sl_strbuf_free(&sb);
    sl_strbuf_free(&again);
}

static const sl_type num_types[3] = {{SL_TYPE_BIGINT, 0, 0, false},
                                     {SL_TYPE_DECIMAL, 38, 4, false},
                                     {SL_TYPE_DOUBLE, 0, 0, false}};

static sl_operator *num_op(void)
{
    const sl_type *ty = num_types;
    sl_agg_call calls[4] = {call(SL_FN_SUM, false, 1, ty), call(SL_FN_COUNT, false, -1, ty),
                            call(SL_FN_MAX, false, 1, ty), call(SL_FN_SUM, false, 2, ty)};
    int keys[1] = {0};
    sl_group_agg_spec s = {3, ty, 1, keys, 4, calls, 0, NULL, NULL, {0}, false, false};
    return new_agg(&s);
}

static void t_snapshot_v3_bytes(void)
{
    static const struct {
        bool null_key;
        int64_t key;
        const char *amount;
        double x;
    } in[] = {
        {false, INT64_MIN, "-2499999999999999999999999999999999.9999", -1.5},
        {false, INT64_MAX, "2499999999999999999999999999999999.9999", 2.25},
        {true, 0, "0.0001", 0.0},
        {false, 0, "-922337203685477.5808", 1e300},
        {false, 63, "922337203685477.5807", -0.0},
        {false, 63, "0.0063", 3.0},
        {false, 64, "-0.0001", -7.0},
        {false, -65, "1844674407370955.1616", 0.5},
        {false, 1000000, "-1844674407370955.1617", 1e-300},
        {false, -64, "-922337203685477.5809", 8.0},
    };
    sl_operator *op = num_op(), *fresh = num_op();
    REQUIRE(op && fresh);
    rows_t o = {0};
    sl_error err = SL_ERROR_INIT;
    sl_chunk *c = sl_chunk_new(3, num_types, 16);
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        int r = sl_chunk_append_row(c, SL_ROW_INSERT);
        if (in[i].null_key)
            sl_chunk_set_null(c, 0, r);
        else
            sl_chunk_set_i64(c, 0, r, in[i].key);
        sl_chunk_set_i128(c, 1, r, dec(in[i].amount, 38, 4));
        sl_chunk_set_f64(c, 2, r, in[i].x);
    }
    CHECK(run(op, c, &o, &err) == 0);
    sl_error_reset(&err);
    CHECK_INT(o.n, 9);
    check_golden("numbers", op, v3_num, sizeof v3_num - 1, fresh);
    sl_chunk_free(c);
    op->ops->free(op);
    fresh->ops->free(fresh);

    op = kv_op(0, NULL, NULL);
    fresh = kv_op(0, NULL, NULL);
    feed1(op, SL_ROW_INSERT, "a", 5, &o);
    feed1(op, SL_ROW_INSERT, "a", -300, &o);
    feed1(op, SL_ROW_INSERT, NULL, 7, &o);
    feed1(op, SL_ROW_INSERT, "a longer key, past one byte of length: 0123456789abcdef0123456789abcdef"
                             "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
          INT32_MAX, &o);
    feed1(op, SL_ROW_INSERT, "a", 70000, &o);
    feed1(op, SL_ROW_UPDATE_BEFORE, "a", 5, &o);
    check_golden("strings and multisets", op, v3_kv, sizeof v3_kv - 1, fresh);
    rows_free(&o);
    op->ops->free(op);
    fresh->ops->free(fresh);
}

SL_TESTS(t_changelog_sequence, t_no_update_before, t_shared_distinct, t_all_aggregates_and_types, t_avg_integer_division,
         t_decimal_exact_and_overflow, t_minmax_distinct_retraction, t_window_firing_and_late,
         t_window_many_groups, t_snapshot_restore_equivalence, t_snapshot_corrupt, t_ttl,
         t_randomized_reference, t_listagg_accumulate_retract, t_listagg_window, t_listagg_snapshot, t_append_only_min_max,
         t_filter, t_sliced_hop, t_bad_spec, t_snapshot_v3_bytes)
