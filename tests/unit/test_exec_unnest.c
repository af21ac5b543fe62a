/*
** test_exec_unnest.c — the UNNEST operator (exec/op_unnest.c): arrays and
** maps expanded row by row against expectations written here, NULL and
** empty arrays with and without outer (LEFT JOIN ... ON TRUE), NULL
** elements, ordinality, row kinds kept (-U / +U each expand), a computed
** array column dropped (keep), expansion beyond SL_CHUNK_ROWS,
** cancellation, snapshot -> restore -> the same further output, and
** malformed values.
*/
#include "sl_exec.h"
#include "sl_parser.h"
#include "sl_test.h"

#include <stdint.h>

typedef struct orow {
    int kind;       /* row kind */
    int64_t id;     /* the kept id column */
    char a[16];     /* first new column as text ("NULL" for NULL) */
    char b[16];     /* second new column (MAP value or ordinality), "" when none */
    int ncols;      /* columns of the chunk */
} orow;

typedef struct sink {
    orow *rows;     /* everything emitted */
    int n, cap;     /* count, allocated */
    int chunks;     /* emitted chunks */
} sink;

static void text_of(const sl_chunk *c, int col, int r, char *buf, size_t n)
{
    const sl_vector *v = &c->cols[col];
    if (v->nulls[r])
        snprintf(buf, n, "NULL");
    else if (v->phys == SL_PHYS_STR)
        snprintf(buf, n, "%.*s", (int)v->v.str[r].len, v->v.str[r].ptr);
    else if (v->phys == SL_PHYS_BOOL)
        snprintf(buf, n, "%d", v->v.b[r]);
    else
        snprintf(buf, n, "%lld", (long long)v->v.i64[r]);
}

static int collect(void *ctx, sl_chunk *c, sl_error *err)
{
    (void)err;
    sink *s = ctx;
    REQUIRE(c->nrows > 0 && c->nrows <= SL_CHUNK_ROWS);
    s->chunks++;
    for (int r = 0; r < c->nrows; r++) {
        if (s->n == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 64;
            s->rows = realloc(s->rows, (size_t)s->cap * sizeof *s->rows);
        }
        orow *o = &s->rows[s->n++];
        memset(o, 0, sizeof *o);
        o->kind = c->kinds[r];
        o->id = c->cols[0].v.i64[r];
        o->ncols = c->ncols;
        text_of(c, 1, r, o->a, sizeof o->a);
        if (c->ncols > 2)
            text_of(c, 2, r, o->b, sizeof o->b);
    }
    return 0;
}

static sl_type t_big(void)
{
    return sl_type_make(SL_TYPE_BIGINT);
}

static sl_type t_str(void)
{
    return sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
}

/* ARRAY<STRING> of n strings (NULL pointers are NULL elements) into sb. */
static void str_array(sl_strbuf *sb, const char *const *vals, int n)
{
    sl_type e = t_str();
    sl_chunk *c = sl_chunk_new(1, &e, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) {
        int r = sl_chunk_append_row(c, SL_ROW_INSERT);
        if (vals[i])
            sl_chunk_set_str(c, 0, r, vals[i], strlen(vals[i]));
    }
    sl_strbuf_reset(sb);
    sl_put_u32(sb, (uint32_t)n);
    for (int i = 0; i < n; i++)
        sl_value_put(sb, c, 0, i);
    sl_chunk_free(c);
}

/* Append a row (kind, id, array bytes or NULL) to chunk c of (BIGINT, ARRAY). */
static void add_row(sl_chunk *c, sl_row_kind k, int64_t id, const sl_strbuf *arr)
{
    int r = sl_chunk_append_row(c, k);
    sl_chunk_set_i64(c, 0, r, id);
    if (arr)
        sl_chunk_set_str(c, 1, r, arr->buf ? arr->buf : "", arr->len);
}

/* The input of the array tests: five rows, every kind, empty and NULL arrays. */
static sl_chunk *array_input(sl_type *types)
{
    types[0] = t_big();
    types[1] = sl_type_array_of(t_str());
    sl_chunk *c = sl_chunk_new(2, types, 8);
    sl_strbuf sb = SL_STRBUF_INIT;
    const char *ab[] = {"a", "bb"};
    const char *nc[] = {NULL, "c"};
    str_array(&sb, ab, 2);
    add_row(c, SL_ROW_INSERT, 1, &sb);
    str_array(&sb, NULL, 0);
    add_row(c, SL_ROW_UPDATE_BEFORE, 2, &sb);
    add_row(c, SL_ROW_UPDATE_AFTER, 3, NULL);
    str_array(&sb, nc, 2);
    add_row(c, SL_ROW_DELETE, 4, &sb);
    sl_strbuf_free(&sb);
    return c;
}

static void check_row(const orow *o, int kind, int64_t id, const char *a, const char *b)
{
    CHECK_INT(o->kind, kind);
    CHECK_INT(o->id, id);
    CHECK_STR(o->a, a);
    CHECK_STR(o->b, b);
}

static void t_array_kinds(void)
{
    sl_type types[2];
    sl_chunk *in = array_input(types);
    for (int outer = 0; outer < 2; outer++) {
        for (int ord = 0; ord < 2; ord++) {
            sl_unnest_spec spec = {2, types, 1, 1, outer, ord, NULL, NULL};
            sl_operator *op = NULL;
            sl_error err = SL_ERROR_INIT;
            REQUIRE(sl_unnest_new(&spec, &op, &err) == 0);
            CHECK_INT(op->out_ncols, 2 + ord);
            CHECK(op->out_types[0].id == SL_TYPE_BIGINT);
            CHECK(op->out_types[1].id == SL_TYPE_VARCHAR && !op->out_types[1].not_null);
            if (ord)
                CHECK(op->out_types[2].id == SL_TYPE_INT && op->out_types[2].not_null == !outer);
            sink s = {0};
            sl_emit em = {collect, &s};
            REQUIRE(op->ops->process(op, in, &em, &err) == 0);
            CHECK_INT(s.chunks, 1);
            int i = 0;
            REQUIRE(s.n == 4 + 2 * outer);
            check_row(&s.rows[i++], SL_ROW_INSERT, 1, "a", ord ? "1" : "");
            check_row(&s.rows[i++], SL_ROW_INSERT, 1, "bb", ord ? "2" : "");
            if (outer) { /* the empty and the NULL array: one NULL row each, kinds kept */
                check_row(&s.rows[i++], SL_ROW_UPDATE_BEFORE, 2, "NULL", ord ? "NULL" : "");
                check_row(&s.rows[i++], SL_ROW_UPDATE_AFTER, 3, "NULL", ord ? "NULL" : "");
            }
            check_row(&s.rows[i++], SL_ROW_DELETE, 4, "NULL", ord ? "1" : "");
            check_row(&s.rows[i++], SL_ROW_DELETE, 4, "c", ord ? "2" : "");
            CHECK(op->ops->watermark(op, INT64_MAX, &em, &err) == 0);
            CHECK_INT(s.n, 4 + 2 * outer); /* stateless: nothing at the watermark */
            CHECK_INT(op->ops->late_rows(op), 0);
            free(s.rows);
            op->ops->free(op);
        }
    }
    sl_chunk_free(in);
}

static void t_map_and_keep(void)
{
    /* (id, MAP<STRING, BIGINT>) with the map a computed last column that keep = 1 drops */
    sl_type kv[2] = {t_str(), t_big()};
    sl_type types[2] = {t_big(), sl_type_map_of(kv[0], kv[1])};
    sl_chunk *e = sl_chunk_new(2, kv, 4);
    int r = sl_chunk_append_row(e, SL_ROW_INSERT);
    sl_chunk_set_str(e, 0, r, "k1", 2);
    sl_chunk_set_i64(e, 1, r, 10);
    r = sl_chunk_append_row(e, SL_ROW_INSERT);
    sl_chunk_set_str(e, 0, r, "k2", 2); /* its value NULL */
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_put_u32(&sb, 2);
    for (int i = 0; i < 2; i++)
        sl_row_put(&sb, e, i);
    sl_chunk_free(e);
    sl_chunk *in = sl_chunk_new(2, types, 4);
    add_row(in, SL_ROW_UPDATE_AFTER, 7, &sb);
    sl_unnest_spec spec = {2, types, 1, 1, false, false, NULL, NULL};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_unnest_new(&spec, &op, &err) == 0);
    CHECK_INT(op->out_ncols, 3);
    sink s = {0};
    sl_emit em = {collect, &s};
    REQUIRE(op->ops->process(op, in, &em, &err) == 0);
    REQUIRE(s.n == 2);
    CHECK_INT(s.rows[0].ncols, 3);
    check_row(&s.rows[0], SL_ROW_UPDATE_AFTER, 7, "k1", "10");
    check_row(&s.rows[1], SL_ROW_UPDATE_AFTER, 7, "k2", "NULL");
    free(s.rows);
    op->ops->free(op);
    sl_chunk_free(in);
    sl_strbuf_free(&sb);
}

static const atomic_bool cancel_true = true;

static void t_expansion_snapshot_cancel(void)
{
    /* one row of 3000 elements: 3 chunks of at most SL_CHUNK_ROWS, positions 1..3000 */
    enum { N = 3000 };
    static char bufs[N][8];
    const char *vals[N];
    for (int i = 0; i < N; i++) {
        snprintf(bufs[i], sizeof bufs[i], "e%d", i);
        vals[i] = bufs[i];
    }
    sl_type types[2] = {t_big(), sl_type_array_of(t_str())};
    sl_strbuf sb = SL_STRBUF_INIT;
    str_array(&sb, vals, N);
    sl_chunk *in = sl_chunk_new(2, types, 2);
    add_row(in, SL_ROW_INSERT, 1, &sb);
    sl_unnest_spec spec = {2, types, 1, 1, false, true, NULL, NULL};
    sl_operator *op = NULL, *op2 = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_unnest_new(&spec, &op, &err) == 0);
    sink s = {0};
    sl_emit em = {collect, &s};
    REQUIRE(op->ops->process(op, in, &em, &err) == 0);
    CHECK_INT(s.n, N);
    CHECK_INT(s.chunks, (N + SL_CHUNK_ROWS - 1) / SL_CHUNK_ROWS);
    CHECK_STR(s.rows[N - 1].a, "e2999");
    CHECK_STR(s.rows[N - 1].b, "3000");
    /* snapshot -> restore: no state, the same output for the same input */
    sl_strbuf st = SL_STRBUF_INIT;
    REQUIRE(op->ops->snapshot(op, &st, &err) == 0);
    CHECK_INT(st.len, 0);
    REQUIRE(sl_unnest_new(&spec, &op2, &err) == 0);
    REQUIRE(op2->ops->restore(op2, st.buf, st.len, &err) == 0);
    sink s2 = {0};
    sl_emit em2 = {collect, &s2};
    REQUIRE(op2->ops->process(op2, in, &em2, &err) == 0);
    REQUIRE(s2.n == s.n);
    for (int i = 0; i < s.n; i++)
        CHECK(memcmp(&s.rows[i], &s2.rows[i], sizeof s.rows[i]) == 0);
    CHECK(op2->ops->restore(op2, "x", 1, &err) == -1);
    CHECK_STR(err.sqlstate, "XX001");
    sl_error_reset(&err);
    /* cancelled: fails before emitting a full chunk */
    op2->cancel = &cancel_true;
    CHECK(op2->ops->process(op2, in, &em2, &err) == -1);
    CHECK_STR(err.sqlstate, "57014");
    sl_error_reset(&err);
    free(s.rows);
    free(s2.rows);
    sl_strbuf_free(&st);
    op->ops->free(op);
    op2->ops->free(op2);
    sl_chunk_free(in);
    sl_strbuf_free(&sb);
}

static void t_errors(void)
{
    sl_type types[2] = {t_big(), sl_type_array_of(t_str())};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    sl_unnest_spec bad = {2, types, 0, 1, false, false, NULL, NULL}; /* a BIGINT column */
    CHECK(sl_unnest_new(&bad, &op, &err) == -1 && op == NULL);
    CHECK_STR(err.sqlstate, "XX000");
    sl_error_reset(&err);
    sl_unnest_spec range = {2, types, 2, 1, false, false, NULL, NULL};
    CHECK(sl_unnest_new(&range, &op, &err) == -1);
    sl_error_reset(&err);
    /* a malformed value: a count larger than its bytes, bytes after the last element */
    sl_unnest_spec spec = {2, types, 1, 1, true, false, NULL, NULL};
    REQUIRE(sl_unnest_new(&spec, &op, &err) == 0);
    sl_chunk *in = sl_chunk_new(2, types, 2);
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_put_u32(&sb, 9);
    add_row(in, SL_ROW_INSERT, 1, &sb);
    sink s = {0};
    sl_emit em = {collect, &s};
    CHECK(op->ops->process(op, in, &em, &err) == -1);
    CHECK_STR(err.sqlstate, "XX001");
    sl_error_reset(&err);
    sl_chunk_reset(in);
    const char *one[] = {"a"};
    str_array(&sb, one, 1);
    sl_strbuf_append(&sb, "junk");
    add_row(in, SL_ROW_INSERT, 1, &sb);
    CHECK(op->ops->process(op, in, &em, &err) == -1);
    CHECK_STR(err.sqlstate, "XX001");
    sl_error_reset(&err);
    CHECK_INT(s.n, 0);
    free(s.rows);
    op->ops->free(op);
    sl_chunk_free(in);
    sl_strbuf_free(&sb);
}

/* LEFT JOIN UNNEST(flags) AS u(f) ON f: only the TRUE elements, a NULL row
** for a row with none (all FALSE or NULL, empty, NULL), kinds kept. */
static void t_left_condition(void)
{
    sl_type b = sl_type_make(SL_TYPE_BOOLEAN);
    sl_type types[2] = {t_big(), sl_type_array_of(b)};
    const int flags[][4] = {{3, 1, 0, 1}, {2, 0, -1, 0}, {0, 0, 0, 0}}; /* n, then 1/0/-1=NULL */
    sl_chunk *in = sl_chunk_new(2, types, 8);
    sl_strbuf sb = SL_STRBUF_INIT;
    for (int i = 0; i < 3; i++) {
        sl_chunk *e = sl_chunk_new(1, &b, 4);
        for (int j = 0; j < flags[i][0]; j++) {
            int r = sl_chunk_append_row(e, SL_ROW_INSERT);
            if (flags[i][j + 1] >= 0)
                sl_chunk_set_bool(e, 0, r, flags[i][j + 1]);
        }
        sl_strbuf_reset(&sb);
        sl_put_u32(&sb, (uint32_t)flags[i][0]);
        for (int j = 0; j < flags[i][0]; j++)
            sl_value_put(&sb, e, 0, j);
        sl_chunk_free(e);
        add_row(in, i == 1 ? SL_ROW_UPDATE_BEFORE : SL_ROW_INSERT, i + 1, &sb);
    }
    add_row(in, SL_ROW_UPDATE_AFTER, 4, NULL);
    sl_bexpr *cond = sl_bexpr_new(SL_BX_COLUMN, b, -1);
    cond->col = 1; /* the element */
    sl_unnest_spec spec = {2, types, 1, 1, true, true, cond, NULL};
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    REQUIRE(sl_unnest_new(&spec, &op, &err) == 0);
    sink s = {0};
    sl_emit em = {collect, &s};
    REQUIRE(op->ops->process(op, in, &em, &err) == 0);
    REQUIRE(s.n == 5);
    check_row(&s.rows[0], SL_ROW_INSERT, 1, "1", "1");
    check_row(&s.rows[1], SL_ROW_INSERT, 1, "1", "3");
    check_row(&s.rows[2], SL_ROW_UPDATE_BEFORE, 2, "NULL", "NULL");
    check_row(&s.rows[3], SL_ROW_INSERT, 3, "NULL", "NULL");
    check_row(&s.rows[4], SL_ROW_UPDATE_AFTER, 4, "NULL", "NULL");
    free(s.rows);
    op->ops->free(op);
    sl_bexpr_free(cond);
    sl_chunk_free(in);
    sl_strbuf_free(&sb);
}

SL_TESTS(t_left_condition, t_array_kinds, t_map_and_keep, t_expansion_snapshot_cancel, t_errors)
