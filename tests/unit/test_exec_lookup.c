/*
** test_exec_lookup.c — the lookup join (exec/op_lookup_join.c) and its
** partial cache (exec/lookup_cache.c): the cache's LRU eviction beyond
** max-rows, expire-after-write and expire-after-access with a fake clock,
** replacement; the operator over an in-memory provider: INNER and LEFT
** rows in input order, several rows per key, NULL keys, the condition, row
** kinds passed through, one provider call per chunk with distinct keys
** only, the cache in front of it (hits, expiry, missing keys cached or
** not), an empty snapshot and a restored operator giving the same further
** output.
*/
#include "sl_exec.h"
#include "sl_test.h"

#include <stdint.h>
#include <stdio.h>

#define MS 1000000LL

static int64_t fake_now; /* ns */
static int64_t fake_clock(void *ctx)
{
    (void)ctx;
    return fake_now;
}

/* ---- the cache ---------------------------------------------------------- */

static bool get(sl_lookup_cache *c, const char *k, int64_t now, const char **v)
{
    size_t n;
    return sl_lookup_cache_get(c, (uint64_t)k[0], k, strlen(k), now, v, &n);
}

static void put(sl_lookup_cache *c, const char *k, const char *v, int64_t now)
{
    sl_lookup_cache_put(c, (uint64_t)k[0], k, strlen(k), v, strlen(v) + 1, now);
}

static void t_cache_lru(void)
{
    sl_lookup_cache_opts o = {.enabled = true, .max_rows = 2};
    sl_lookup_cache *c = sl_lookup_cache_new(&o);
    const char *v;
    put(c, "a", "1", 0);
    put(c, "b", "2", 0);
    CHECK(get(c, "a", 1, &v) && strcmp(v, "1") == 0); /* a is now the most recent */
    put(c, "c", "3", 2);                               /* evicts b */
    CHECK_INT(sl_lookup_cache_size(c), 2);
    CHECK(!get(c, "b", 3, &v));
    CHECK(get(c, "a", 3, &v));
    CHECK(get(c, "c", 3, &v) && strcmp(v, "3") == 0);
    put(c, "a", "9", 4); /* replaced, not added */
    CHECK_INT(sl_lookup_cache_size(c), 2);
    CHECK(get(c, "a", 5, &v) && strcmp(v, "9") == 0);
    /* many keys through a small cache: never more than max_rows */
    char k[16];
    for (int i = 0; i < 1000; i++) {
        snprintf(k, sizeof k, "k%d", i);
        put(c, k, "x", 10 + i);
    }
    CHECK_INT(sl_lookup_cache_size(c), 2);
    CHECK(get(c, "k999", 2000, &v) && get(c, "k998", 2000, &v) && !get(c, "k997", 2000, &v));
    sl_lookup_cache_free(c);
}

static void t_cache_expiry(void)
{
    sl_lookup_cache_opts o = {.enabled = true, .expire_write_ms = 100};
    sl_lookup_cache *c = sl_lookup_cache_new(&o);
    const char *v;
    put(c, "a", "1", 1000);
    CHECK(get(c, "a", 1050, &v));
    CHECK(get(c, "a", 1099, &v)); /* reads do not extend a write expiry */
    CHECK(!get(c, "a", 1100, &v));
    CHECK_INT(sl_lookup_cache_size(c), 0);
    sl_lookup_cache_free(c);

    sl_lookup_cache_opts a = {.enabled = true, .expire_access_ms = 100};
    c = sl_lookup_cache_new(&a);
    put(c, "a", "1", 1000);
    CHECK(get(c, "a", 1090, &v));
    CHECK(get(c, "a", 1180, &v)); /* each read extends it */
    CHECK(!get(c, "a", 1280, &v));
    put(c, "b", "2", 2000);
    CHECK(!get(c, "b", 2100, &v));
    sl_lookup_cache_free(c);
}

/* ---- the operator over an in-memory table -------------------------------- */

/* The table: (k BIGINT, name STRING); rows of several keys. */
static sl_type r_types[2], l_types[2];
static sl_chunk *table;
static int calls;       /* provider calls */
static int keys_asked;  /* keys asked for in all calls */
static int max_batch;

static void init(void)
{
    r_types[0] = sl_type_make(SL_TYPE_BIGINT);
    r_types[1] = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    l_types[0] = sl_type_make(SL_TYPE_BIGINT); /* id */
    l_types[1] = sl_type_make(SL_TYPE_BIGINT); /* k */
    sl_chunk_free(table);
    table = sl_chunk_new(2, r_types, 16);
    static const struct { int64_t k; const char *n; } rows[] = {
        {1, "one"}, {2, "two"}, {2, "deux"}, {3, "three"}, {5, "five"}};
    for (size_t i = 0; i < SL_ARRAY_LEN(rows); i++) {
        int r = sl_chunk_append_row(table, SL_ROW_INSERT);
        sl_chunk_set_i64(table, 0, r, rows[i].k);
        sl_chunk_set_str(table, 1, r, rows[i].n, strlen(rows[i].n));
    }
    calls = keys_asked = max_batch = 0;
}

static int mem_lookup(sl_lookup *l, const sl_chunk *keys, sl_lookup_row_fn fn, void *ctx,
                      sl_error *err)
{
    (void)l;
    calls++;
    keys_asked += keys->nrows;
    if (keys->nrows > max_batch)
        max_batch = keys->nrows;
    for (int k = 0; k < keys->nrows; k++) {
        if (keys->cols[0].nulls[k])
            return sl_error_set(err, SL_ERR_INTERNAL, -1, "a NULL key was asked for");
        for (int r = 0; r < table->nrows; r++)
            if (table->cols[0].v.i64[r] == keys->cols[0].v.i64[k] && fn(ctx, table, r, err) != 0)
                return -1;
    }
    return 0;
}

static void mem_free(sl_lookup *l)
{
    sl_free(l);
}

static const sl_lookup_ops mem_ops = {mem_lookup, mem_free};
static sl_lookup_cache_opts cache_opts;

static int mem_create(const sl_lookup_args *args, sl_lookup **out, sl_error *err)
{
    (void)args, (void)err;
    sl_lookup *l = sl_calloc(1, sizeof *l);
    l->ops = &mem_ops;
    l->cache = cache_opts;
    *out = l;
    return 0;
}

static const int key_cols[] = {0};
static sl_bexpr *key_expr;

static sl_operator *make(int type, const sl_bexpr *cond)
{
    sl_bexpr_free(key_expr);
    key_expr = sl_bexpr_new(SL_BX_COLUMN, l_types[1], 0);
    key_expr->col = 1;
    const sl_bexpr *ke[] = {key_expr};
    sl_lookup_join_spec spec = {
        .nl = 2, .l_types = l_types, .nkeys = 1, .key_exprs = ke, .type = type, .cond = cond,
        .create = mem_create,
        .args = {.ncols = 2, .types = r_types, .table = "t", .nkeys = 1, .keys = key_cols,
                 .now = fake_clock},
    };
    sl_operator *op = NULL;
    sl_error err = SL_ERROR_INIT;
    if (sl_lookup_join_new(&spec, &op, &err) != 0)
        fprintf(stderr, "%s\n", err.message);
    sl_error_reset(&err);
    return op;
}

static int collect(void *ctx, sl_chunk *c, sl_error *err)
{
    (void)err;
    sl_strbuf *sb = ctx;
    for (int r = 0; r < c->nrows; r++) {
        sl_strbuf_appendf(sb, "%s(", sl_row_kind_name((sl_row_kind)c->kinds[r]));
        for (int col = 0; col < c->ncols; col++) {
            if (col)
                sl_strbuf_append(sb, ",");
            if (!sl_value_format(sb, &c->cols[col], r))
                sl_strbuf_append(sb, "N");
        }
        sl_strbuf_append(sb, ") ");
    }
    return 0;
}

#define NUL INT64_MIN

/* A chunk of (id, k) rows; k NUL = NULL; kind per row. */
static sl_chunk *left(int n, const int64_t *ks, sl_row_kind kind)
{
    sl_chunk *c = sl_chunk_new(2, l_types, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) {
        int r = sl_chunk_append_row(c, kind);
        sl_chunk_set_i64(c, 0, r, i + 1);
        if (ks[i] == NUL)
            sl_chunk_set_null(c, 1, r);
        else
            sl_chunk_set_i64(c, 1, r, ks[i]);
    }
    return c;
}

static const char *run(sl_operator *op, int n, const int64_t *ks, sl_row_kind kind,
                       sl_strbuf *out)
{
    sl_strbuf_reset(out);
    sl_chunk *c = left(n, ks, kind);
    sl_emit e = {collect, out};
    sl_error err = SL_ERROR_INIT;
    if (op->ops->process(op, c, &e, &err) != 0) {
        sl_strbuf_appendf(out, "ERROR %s", err.message);
        sl_error_reset(&err);
    }
    sl_chunk_free(c);
    return sl_strbuf_cstr(out);
}

static void t_inner_left(void)
{
    init();
    memset(&cache_opts, 0, sizeof cache_opts);
    sl_strbuf out = SL_STRBUF_INIT;
    const int64_t ks[] = {2, 4, NUL, 1, 2, 3};
    sl_operator *op = make(SL_JOIN_INNER, NULL);
    REQUIRE(op);
    CHECK_STR(run(op, 6, ks, SL_ROW_INSERT, &out),
              "+I(1,2,2,two) +I(1,2,2,deux) +I(4,1,1,one) +I(5,2,2,two) +I(5,2,2,deux) "
              "+I(6,3,3,three) ");
    CHECK_INT(calls, 1);      /* one call per chunk */
    CHECK_INT(keys_asked, 4); /* the distinct non-NULL keys 2, 4, 1, 3 */
    op->ops->free(op);
    op = make(SL_JOIN_LEFT, NULL);
    CHECK_STR(run(op, 6, ks, SL_ROW_INSERT, &out),
              "+I(1,2,2,two) +I(1,2,2,deux) +I(2,4,N,N) +I(3,N,N,N) +I(4,1,1,one) "
              "+I(5,2,2,two) +I(5,2,2,deux) +I(6,3,3,three) ");
    /* row kinds pass through (an updating left input) */
    const int64_t k1[] = {1, 9};
    CHECK_STR(run(op, 2, k1, SL_ROW_UPDATE_BEFORE, &out), "-U(1,1,1,one) -U(2,9,N,N) ");
    op->ops->free(op);
    sl_strbuf_free(&out);
}

static void t_cond(void)
{
    init();
    memset(&cache_opts, 0, sizeof cache_opts);
    /* name <> 'two' over the output row (id, k, k, name) */
    sl_bexpr *cond = sl_bexpr_new(SL_BX_CALL, sl_type_make(SL_TYPE_BOOLEAN), 0);
    cond->fn = sl_func_get(SL_FN_NE);
    cond->nargs = 2;
    cond->args = sl_calloc(2, sizeof(sl_bexpr *));
    cond->args[0] = sl_bexpr_new(SL_BX_COLUMN, r_types[1], 0);
    cond->args[0]->col = 3;
    cond->args[1] = sl_bexpr_new(SL_BX_LITERAL, r_types[1], 0);
    cond->args[1]->text = sl_strdup("two");
    sl_strbuf out = SL_STRBUF_INIT;
    const int64_t ks[] = {2, 1, 7};
    sl_operator *op = make(SL_JOIN_LEFT, cond);
    REQUIRE(op);
    CHECK_STR(run(op, 3, ks, SL_ROW_INSERT, &out), "+I(1,2,2,deux) +I(2,1,1,one) +I(3,7,N,N) ");
    op->ops->free(op);
    /* a key whose only row fails the condition: INNER drops it, LEFT pads it */
    const int64_t k3[] = {3};
    sl_bexpr_free(cond->args[1]);
    cond->args[1] = sl_bexpr_new(SL_BX_LITERAL, r_types[1], 0);
    cond->args[1]->text = sl_strdup("three");
    op = make(SL_JOIN_INNER, cond);
    CHECK_STR(run(op, 1, k3, SL_ROW_INSERT, &out), "");
    op->ops->free(op);
    op = make(SL_JOIN_LEFT, cond);
    CHECK_STR(run(op, 1, k3, SL_ROW_INSERT, &out), "+I(1,3,N,N) ");
    op->ops->free(op);
    sl_bexpr_free(cond);
    sl_strbuf_free(&out);
}

static void t_cache(void)
{
    init();
    cache_opts = (sl_lookup_cache_opts){.enabled = true, .max_rows = 100,
                                        .expire_write_ms = 1000, .cache_missing = true};
    sl_strbuf out = SL_STRBUF_INIT, out2 = SL_STRBUF_INIT;
    fake_now = 10 * 1000 * MS;
    sl_operator *op = make(SL_JOIN_LEFT, NULL);
    REQUIRE(op);
    const int64_t ks[] = {2, 9};
    run(op, 2, ks, SL_ROW_INSERT, &out);
    CHECK_INT(keys_asked, 2);
    /* the table changes; the cache still answers until 1 s after the read */
    sl_chunk_set_str(table, 1, 1, "TWO", 3);
    fake_now += 999 * MS;
    CHECK_STR(run(op, 2, ks, SL_ROW_INSERT, &out), "+I(1,2,2,two) +I(1,2,2,deux) +I(2,9,N,N) ");
    CHECK_INT(keys_asked, 2); /* both from the cache, the missing key too */
    fake_now += 1 * MS;
    CHECK_STR(run(op, 2, ks, SL_ROW_INSERT, &out), "+I(1,2,2,TWO) +I(1,2,2,deux) +I(2,9,N,N) ");
    CHECK_INT(keys_asked, 4);
    /* the cache is not snapshotted: a restored operator asks again and
    ** gives the same further output */
    sl_strbuf snap = SL_STRBUF_INIT;
    sl_error err = SL_ERROR_INIT;
    CHECK(op->ops->snapshot(op, &snap, &err) == 0);
    CHECK_INT(snap.len, 0);
    sl_operator *op2 = make(SL_JOIN_LEFT, NULL);
    CHECK(op2->ops->restore(op2, sl_strbuf_cstr(&snap), snap.len, &err) == 0);
    const int64_t more[] = {1, 2, 3, 9, 5};
    run(op, 5, more, SL_ROW_INSERT, &out);
    run(op2, 5, more, SL_ROW_INSERT, &out2);
    CHECK_STR(sl_strbuf_cstr(&out2), sl_strbuf_cstr(&out));
    CHECK(op2->ops->restore(op2, "x", 1, &err) != 0); /* a state it never wrote */
    sl_error_reset(&err);
    op->ops->free(op);
    op2->ops->free(op2);
    /* cache-missing-key false: a key without rows is asked every time */
    init();
    cache_opts.cache_missing = false;
    op = make(SL_JOIN_INNER, NULL);
    const int64_t k9[] = {9, 9, 1};
    run(op, 3, k9, SL_ROW_INSERT, &out);
    run(op, 3, k9, SL_ROW_INSERT, &out);
    CHECK_INT(keys_asked, 3); /* 9 and 1, then 9 again */
    op->ops->free(op);
    sl_strbuf_free(&snap);
    sl_strbuf_free(&out);
    sl_strbuf_free(&out2);
}

/* Many rows: more output rows than a chunk holds, keys batched per chunk. */
static void t_many(void)
{
    init();
    memset(&cache_opts, 0, sizeof cache_opts);
    sl_operator *op = make(SL_JOIN_INNER, NULL);
    REQUIRE(op);
    int n = 3000;
    int64_t *ks = sl_calloc((size_t)n, sizeof(int64_t));
    int want = 0;
    for (int i = 0; i < n; i++) {
        ks[i] = i % 6;
        want += ks[i] == 2 ? 2 : (ks[i] == 1 || ks[i] == 3 || ks[i] == 5);
    }
    sl_strbuf out = SL_STRBUF_INIT;
    run(op, n, ks, SL_ROW_INSERT, &out);
    int got = 0;
    for (const char *p = sl_strbuf_cstr(&out); (p = strstr(p, "+I(")) != NULL; p++)
        got++;
    CHECK_INT(got, want);
    CHECK_INT(calls, 1);
    CHECK_INT(max_batch, 6);
    op->ops->free(op);
    sl_free(ks);
    sl_strbuf_free(&out);
    sl_bexpr_free(key_expr);
    key_expr = NULL;
    sl_chunk_free(table);
    table = NULL;
}

SL_TESTS(t_cache_lru, t_cache_expiry, t_inner_left, t_cond, t_cache, t_many)
