/*
** test_exec_array.c — ARRAY and MAP values (base/sl_type.c's interned
** composite types, exec/array.c's encoding): types are values that compare
** and print as Flink's; a value built element by element splits back into
** the same elements, prints as Flink's text, survives the row codec (state,
** snapshots, channels) unchanged, and equal values are equal and hash
** equally while different ones do not; malformed bytes are refused.
** ARRAY_AGG in the group aggregation: arrival order, NULLs kept, a
** retraction removes the first equal element, and a snapshot restored
** into a fresh operator answers further input as the original does.
*/
#include "sl_test.h"

#include "../../exec/sl_exec.h"

#include <string.h>

static sl_type t_int(void) { return sl_type_make(SL_TYPE_INT); }
static sl_type t_str(void) { return sl_type_make(SL_TYPE_VARCHAR); }

static char *fmt_type(sl_type t)
{
    return sl_type_to_string(t);
}

static void t_types(void)
{
    sl_type a = sl_type_array_of(t_int()), b = sl_type_array_of(t_int());
    CHECK(sl_type_equal(a, b));
    CHECK(!sl_type_equal(a, sl_type_array_of(sl_type_make(SL_TYPE_BIGINT))));
    sl_type nn = t_int();
    nn.not_null = true;
    CHECK(!sl_type_equal(a, sl_type_array_of(nn)));
    sl_type m = sl_type_map_of(t_str(), sl_type_array_of(a));
    CHECK(sl_type_equal(sl_type_value(m), sl_type_array_of(a)));
    CHECK(sl_type_equal(sl_type_elem(sl_type_elem(sl_type_value(m))), t_int()));
    CHECK(sl_type_elem(t_int()).id == SL_TYPE_NULL);
    char *s = fmt_type(m);
    CHECK_STR(s, "MAP<STRING, ARRAY<ARRAY<INT>>>");
    sl_free(s);
    s = fmt_type(sl_type_array_of(nn));
    CHECK_STR(s, "ARRAY<INT NOT NULL>");
    sl_free(s);
    CHECK(sl_phys_of(m) == SL_PHYS_STR);
}

/* The ARRAY<elem> of values vals (NULL where nulls[i]) into sb. */
static void build_int_array(sl_strbuf *sb, const int64_t *vals, const bool *nulls, int n)
{
    sl_type e = t_int();
    sl_chunk *c = sl_chunk_new(1, &e, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) {
        int r = sl_chunk_append_row(c, SL_ROW_INSERT);
        if (!nulls || !nulls[i])
            sl_chunk_set_i64(c, 0, r, vals[i]);
    }
    sl_strbuf_reset(sb);
    sl_put_u32(sb, (uint32_t)n);
    for (int i = 0; i < n; i++)
        sl_value_put(sb, c, 0, i);
    sl_chunk_free(c);
}

static void t_round_trip(void)
{
    sl_type at = sl_type_array_of(t_int());
    sl_strbuf sb = SL_STRBUF_INIT;
    int64_t v[] = {1, 0, -3};
    bool nl[] = {false, true, false};
    build_int_array(&sb, v, nl, 3);
    uint32_t c;
    size_t *o;
    REQUIRE(sl_array_split((const uint8_t *)sb.buf, sb.len, at, &c, &o));
    CHECK_INT(c, 3);
    int64_t got[3];
    uint8_t gn[3];
    sl_vector vec = {t_int(), SL_PHYS_I64, gn, {.i64 = got}};
    for (uint32_t i = 0; i < c; i++)
        CHECK(sl_vector_value_get((const uint8_t *)sb.buf + o[i], o[i + 1] - o[i], &vec, (int)i));
    CHECK(!gn[0] && got[0] == 1);
    CHECK(gn[1]);
    CHECK(!gn[2] && got[2] == -3);
    sl_free(o);
    sl_strbuf text = SL_STRBUF_INIT;
    sl_array_format(&text, at, (const uint8_t *)sb.buf, sb.len);
    CHECK_STR(sl_strbuf_cstr(&text), "[1, NULL, -3]");
    /* an empty array */
    build_int_array(&sb, NULL, NULL, 0);
    sl_strbuf_reset(&text);
    sl_array_format(&text, at, (const uint8_t *)sb.buf, sb.len);
    CHECK_STR(sl_strbuf_cstr(&text), "[]");
    sl_strbuf_free(&text);
    sl_strbuf_free(&sb);
}

static void t_nested_and_map(void)
{
    /* MAP<STRING, ARRAY<INT>>: {a=[1, 2], b=NULL} */
    sl_type inner = sl_type_array_of(t_int());
    sl_type mt = sl_type_map_of(t_str(), inner);
    sl_strbuf arr = SL_STRBUF_INIT, sb = SL_STRBUF_INIT;
    int64_t v[] = {1, 2};
    build_int_array(&arr, v, NULL, 2);
    sl_type kv[2] = {t_str(), inner};
    sl_chunk *c = sl_chunk_new(2, kv, 2);
    int r = sl_chunk_append_row(c, SL_ROW_INSERT);
    sl_chunk_set_str(c, 0, r, "a", 1);
    sl_chunk_set_str(c, 1, r, arr.buf, arr.len);
    r = sl_chunk_append_row(c, SL_ROW_INSERT);
    sl_chunk_set_str(c, 0, r, "b", 1);
    sl_put_u32(&sb, 2);
    for (int i = 0; i < 2; i++)
        sl_row_put(&sb, c, i);
    sl_strbuf text = SL_STRBUF_INIT;
    sl_array_format(&text, mt, (const uint8_t *)sb.buf, sb.len);
    CHECK_STR(sl_strbuf_cstr(&text), "{a=[1, 2], b=NULL}");
    uint32_t n;
    size_t *o;
    REQUIRE(sl_array_split((const uint8_t *)sb.buf, sb.len, mt, &n, &o));
    CHECK_INT(n, 4); /* key, value, key, value */
    sl_free(o);
    sl_chunk_free(c);
    sl_strbuf_free(&text);
    sl_strbuf_free(&arr);
    sl_strbuf_free(&sb);
}

static void t_equality_hash_codec(void)
{
    sl_type at = sl_type_array_of(t_int());
    sl_type cols[2] = {at, t_int()};
    sl_chunk *c = sl_chunk_new(2, cols, 4);
    sl_strbuf sb = SL_STRBUF_INIT;
    int64_t a[] = {1, 2}, b[] = {2, 1};
    for (int i = 0; i < 3; i++) {
        build_int_array(&sb, i == 1 ? b : a, NULL, 2);
        int r = sl_chunk_append_row(c, SL_ROW_INSERT);
        sl_chunk_set_str(c, 0, r, sb.buf, sb.len);
        sl_chunk_set_i64(c, 1, r, i);
    }
    CHECK(sl_chunk_values_equal(c, 0, 0, 2));
    CHECK(!sl_chunk_values_equal(c, 0, 0, 1));
    uint64_t h[4];
    int key = 0;
    sl_chunk_hash_keys(c, 1, &key, h);
    CHECK(h[0] == h[2]);
    CHECK(h[0] != h[1]);
    /* the row codec (snapshots, state) carries the value unchanged */
    sl_strbuf row = SL_STRBUF_INIT;
    sl_row_put(&row, c, 1);
    sl_chunk *d = sl_chunk_new(2, cols, 1);
    int r = sl_chunk_append_row(d, SL_ROW_INSERT);
    sl_bytes_reader rd = {(const uint8_t *)row.buf, row.len, 0};
    REQUIRE(sl_row_get(&rd, d, r));
    CHECK(rd.off == row.len);
    CHECK(d->cols[0].v.str[0].len == c->cols[0].v.str[1].len &&
          memcmp(d->cols[0].v.str[0].ptr, c->cols[0].v.str[1].ptr, d->cols[0].v.str[0].len) == 0);
    sl_strbuf text = SL_STRBUF_INIT;
    CHECK(sl_value_format(&text, &d->cols[0], 0));
    CHECK_STR(sl_strbuf_cstr(&text), "[2, 1]");
    sl_strbuf_free(&text);
    sl_strbuf_free(&row);
    sl_chunk_free(d);
    sl_chunk_free(c);
    sl_strbuf_free(&sb);
}

/* sl_row_put_cols (one reservation per row) writes exactly the bytes of
** sl_value_put column by column, for every physical type, NULLs and empty
** strings included, after what the buffer held; sl_row_get reads them back. */
static void t_row_codec(void)
{
    sl_type ts[5] = {sl_type_make(SL_TYPE_BOOLEAN), sl_type_make(SL_TYPE_BIGINT),
                     sl_type_make(SL_TYPE_DOUBLE), sl_type_make_p(SL_TYPE_DECIMAL, 38, 2),
                     sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0)};
    sl_chunk *c = sl_chunk_new(5, ts, 8), *d = sl_chunk_new(5, ts, 8);
    const char *strs[] = {"", "x", "a longer string value", NULL};
    for (int i = 0; i < 8; i++) {
        int r = sl_chunk_append_row(c, SL_ROW_INSERT);
        if (i % 4 != 1)
            sl_chunk_set_bool(c, 0, r, i & 1);
        if (i % 4 != 2)
            sl_chunk_set_i64(c, 1, r, (int64_t)i * -1234567890123LL);
        if (i % 4 != 3)
            sl_chunk_set_f64(c, 2, r, i * 0.5 - 1);
        if (i % 4 != 0)
            sl_chunk_set_i128(c, 3, r, (sl_i128)i << 70 | 5);
        if (strs[i % 4])
            sl_chunk_set_str(c, 4, r, strs[i % 4], strlen(strs[i % 4]));
    }
    sl_strbuf a = SL_STRBUF_INIT, b = SL_STRBUF_INIT;
    sl_strbuf_append(&a, "head");
    sl_strbuf_append(&b, "head");
    for (int r = 0; r < 8; r++) {
        sl_row_put_cols(&a, c, 0, 5, r);
        for (int col = 0; col < 5; col++)
            sl_value_put(&b, c, col, r);
    }
    CHECK(a.len == b.len && memcmp(a.buf, b.buf, a.len) == 0 && a.buf[a.len] == 0);
    /* The layout itself (join and Top-N state is kept in checkpoints in it):
    ** row 1's bytes written out by hand: a NULL BOOLEAN, -1234567890123,
    ** -0.5, 2^70 + 5, 'x'. */
    static const uint8_t row1[] = {
        0x01,                                                 /* NULL */
        0x00, 0x35, 0xfb, 0x04, 0x8e, 0xe0, 0xfe, 0xff, 0xff, /* BIGINT */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe0, 0xbf, /* DOUBLE */
        0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* DECIMAL: low 64 bits, */
        0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,       /* high 64 bits */
        0x00, 0x01, 0x00, 0x00, 0x00, 0x78};                  /* STRING */
    sl_strbuf one = SL_STRBUF_INIT;
    sl_row_put_cols(&one, c, 0, 5, 1);
    CHECK(one.len == sizeof row1 && memcmp(one.buf, row1, sizeof row1) == 0);
    sl_strbuf_free(&one);
    sl_bytes_reader rd = {(const uint8_t *)a.buf + 4, a.len - 4, 0};
    for (int r = 0; r < 8; r++) {
        int o = sl_chunk_append_row(d, SL_ROW_INSERT);
        REQUIRE(sl_row_get(&rd, d, o));
        for (int col = 0; col < 5; col++) {
            sl_strbuf x = SL_STRBUF_INIT, y = SL_STRBUF_INIT;
            bool nx = !sl_value_format(&x, &c->cols[col], r);
            bool ny = !sl_value_format(&y, &d->cols[col], o);
            CHECK(nx == ny && strcmp(sl_strbuf_cstr(&x), sl_strbuf_cstr(&y)) == 0);
            sl_strbuf_free(&x);
            sl_strbuf_free(&y);
        }
    }
    CHECK(rd.off == rd.n);
    sl_strbuf_free(&a);
    sl_strbuf_free(&b);
    sl_chunk_free(c);
    sl_chunk_free(d);
}

static void t_malformed(void)
{
    sl_type at = sl_type_array_of(t_int());
    sl_strbuf sb = SL_STRBUF_INIT;
    int64_t v[] = {7, 8};
    build_int_array(&sb, v, NULL, 2);
    uint32_t c;
    size_t *o;
    /* every truncation, a trailing byte, a bad null flag, a huge count */
    for (size_t n = 0; n < sb.len; n++)
        CHECK(!sl_array_split((const uint8_t *)sb.buf, n, at, &c, &o) && !o);
    sl_strbuf_append_char(&sb, 0);
    CHECK(!sl_array_split((const uint8_t *)sb.buf, sb.len, at, &c, &o));
    sb.len--;
    sb.buf[4] = 2;
    CHECK(!sl_array_split((const uint8_t *)sb.buf, sb.len, at, &c, &o));
    sb.buf[4] = 0;
    sb.buf[3] = (char)0x7f;
    CHECK(!sl_array_split((const uint8_t *)sb.buf, sb.len, at, &c, &o));
    sl_strbuf_free(&sb);
}

/* ---- ARRAY_AGG ---------------------------------------------------------- */

static const sl_type aa_types[2] = {{SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0, false},
                                    {SL_TYPE_INT, 0, 0, false}};

static sl_operator *aa_op(void)
{
    static sl_agg_call calls[2];
    sl_error err = SL_ERROR_INIT;
    sl_type t;
    CHECK(sl_func_agg_type(sl_func_get(SL_FN_ARRAY_AGG), &aa_types[1], -1, &t, &err) == 0);
    calls[0] = (sl_agg_call){SL_FN_ARRAY_AGG, false, 1, t, -1, NULL, false, -1};
    CHECK(sl_func_agg_type(sl_func_get(SL_FN_COUNT), NULL, -1, &t, &err) == 0);
    calls[1] = (sl_agg_call){SL_FN_COUNT, false, -1, t, -1, NULL, false, -1};
    static const int key = 0;
    sl_group_agg_spec s = {2, aa_types, 1, &key, 2, calls, 0, NULL, NULL, {0}, false, false};
    sl_operator *op = NULL;
    if (sl_group_agg_new(&s, &op, &err) != 0)
        fprintf(stderr, "array_agg op: %s\n", err.message);
    sl_error_reset(&err);
    return op;
}

typedef struct out_t {
    sl_strbuf text; /* "+I[k, [1, NULL], 2]\n" per row */
} out_t;

static int aa_collect(void *ctx, sl_chunk *rows, sl_error *err)
{
    out_t *o = ctx;
    (void)err;
    for (int r = 0; r < rows->nrows; r++) {
        sl_strbuf_append(&o->text, sl_row_kind_name((sl_row_kind)rows->kinds[r]));
        sl_strbuf_append_char(&o->text, '[');
        for (int i = 0; i < rows->ncols; i++) {
            if (i)
                sl_strbuf_append(&o->text, ", ");
            if (!sl_value_format(&o->text, &rows->cols[i], r))
                sl_strbuf_append(&o->text, "NULL");
        }
        sl_strbuf_append(&o->text, "]\n");
    }
    return 0;
}

static void aa_feed(sl_operator *op, sl_row_kind k, const char *key, const int64_t *v, out_t *o)
{
    sl_chunk *c = sl_chunk_new(2, aa_types, 2);
    int r = sl_chunk_append_row(c, k);
    sl_chunk_set_str(c, 0, r, key, strlen(key));
    if (v)
        sl_chunk_set_i64(c, 1, r, *v);
    sl_error err = SL_ERROR_INIT;
    sl_emit e = {aa_collect, o};
    CHECK(op->ops->process(op, c, &e, &err) == 0);
    sl_error_reset(&err);
    sl_chunk_free(c);
}

static void t_array_agg(void)
{
    sl_operator *a = aa_op(), *b = aa_op();
    REQUIRE(a && b);
    out_t o = {SL_STRBUF_INIT}, p = {SL_STRBUF_INIT};
    int64_t one = 1, two = 2, three = 3;
    aa_feed(a, SL_ROW_INSERT, "k", &one, &o);
    aa_feed(a, SL_ROW_INSERT, "k", NULL, &o);
    aa_feed(a, SL_ROW_INSERT, "k", &two, &o);
    aa_feed(a, SL_ROW_INSERT, "k", &one, &o);
    aa_feed(a, SL_ROW_DELETE, "k", &one, &o); /* the first 1 goes */
    CHECK_STR(sl_strbuf_cstr(&o.text),
              "+I[k, [1], 1]\n-U[k, [1], 1]\n+U[k, [1, NULL], 2]\n-U[k, [1, NULL], 2]\n"
              "+U[k, [1, NULL, 2], 3]\n-U[k, [1, NULL, 2], 3]\n+U[k, [1, NULL, 2, 1], 4]\n"
              "-U[k, [1, NULL, 2, 1], 4]\n+U[k, [NULL, 2, 1], 3]\n");
    /* snapshot -> restore -> the same state, the same further output */
    sl_strbuf s1 = SL_STRBUF_INIT, s2 = SL_STRBUF_INIT;
    sl_error err = SL_ERROR_INIT;
    CHECK(a->ops->snapshot(a, &s1, &err) == 0);
    CHECK(b->ops->restore(b, s1.buf, s1.len, &err) == 0);
    CHECK(b->ops->snapshot(b, &s2, &err) == 0);
    CHECK(s1.len == s2.len && memcmp(s1.buf, s2.buf, s1.len) == 0);
    sl_strbuf_reset(&o.text);
    aa_feed(a, SL_ROW_INSERT, "k", &three, &o);
    aa_feed(a, SL_ROW_DELETE, "k", NULL, &o);
    aa_feed(b, SL_ROW_INSERT, "k", &three, &p);
    aa_feed(b, SL_ROW_DELETE, "k", NULL, &p);
    CHECK_STR(sl_strbuf_cstr(&p.text), sl_strbuf_cstr(&o.text));
    CHECK_STR(sl_strbuf_cstr(&p.text), "-U[k, [NULL, 2, 1], 3]\n+U[k, [NULL, 2, 1, 3], 4]\n"
                                       "-U[k, [NULL, 2, 1, 3], 4]\n+U[k, [2, 1, 3], 3]\n");
    /* a truncated snapshot is refused */
    CHECK(b->ops->restore(b, s1.buf, s1.len - 9, &err) == -1);
    CHECK_STR(err.sqlstate, SL_ERR_DATA_CORRUPTED);
    sl_error_reset(&err);
    sl_strbuf_free(&s1);
    sl_strbuf_free(&s2);
    sl_strbuf_free(&o.text);
    sl_strbuf_free(&p.text);
    a->ops->free(a);
    b->ops->free(b);
}

SL_TESTS(t_types, t_round_trip, t_nested_and_map, t_equality_hash_codec, t_row_codec, t_malformed,
         t_array_agg)
