/*
** test_exec_join.c — the bounded operators (exec/op_join.c, op_sort.c):
** INNER / LEFT / RIGHT / FULL / CROSS joins of random sides with NULL and
** duplicate keys, by hash (equality keys) and by nested loop (none), each
** against a brute-force reference computed here; a residual condition; the
** sort's order, stability and PostgreSQL's NULL placement.
*/
#include "sl_exec.h"
#include "sl_test.h"

#include <stdlib.h>
#include <string.h>

enum { NL = 37, NR = 29 };

static sl_chunk *side(unsigned *seed, int n, int nulls)
{
    sl_type t[2] = {sl_type_make(SL_TYPE_BIGINT), sl_type_make_p(SL_TYPE_VARCHAR, 10, 0)};
    sl_chunk *c = sl_chunk_new(2, t, n);
    for (int i = 0; i < n; i++) {
        int r = sl_chunk_append_row(c, SL_ROW_INSERT);
        if (nulls && rand_r(seed) % 7 == 0)
            sl_chunk_set_null(c, 0, r);
        else
            sl_chunk_set_i64(c, 0, r, rand_r(seed) % 9);
        char s[8];
        snprintf(s, sizeof s, "v%d", rand_r(seed) % 3);
        sl_chunk_set_str(c, 1, r, s, strlen(s));
    }
    return c;
}

static sl_bexpr *col(int i, sl_type t)
{
    sl_bexpr *b = sl_bexpr_new(SL_BX_COLUMN, t, 0);
    b->col = i;
    return b;
}

static sl_bexpr *call(sl_func_id id, sl_bexpr *a, sl_bexpr *b)
{
    sl_bexpr *x = sl_bexpr_new(SL_BX_CALL, sl_type_make(SL_TYPE_BOOLEAN), 0);
    x->fn = sl_func_get(id);
    x->nargs = 2;
    x->args = sl_calloc(2, sizeof(sl_bexpr *));
    x->args[0] = a;
    x->args[1] = b;
    return x;
}

/* The reference: how many output rows, and a checksum over them. */
static void reference(const sl_chunk *l, const sl_chunk *r, int type, bool residual, int *n,
                      int64_t *sum)
{
    *n = 0;
    *sum = 0;
    int rmatched[NR] = {0};
    for (int i = 0; i < l->nrows; i++) {
        int hits = 0;
        for (int j = 0; j < r->nrows; j++) {
            bool eq = type == 4 || (!l->cols[0].nulls[i] && !r->cols[0].nulls[j] &&
                                    l->cols[0].v.i64[i] == r->cols[0].v.i64[j]);
            if (eq && residual)
                eq = l->cols[1].v.str[i].len == r->cols[1].v.str[j].len &&
                     memcmp(l->cols[1].v.str[i].ptr, r->cols[1].v.str[j].ptr,
                            r->cols[1].v.str[j].len) != 0;
            if (eq) {
                hits++;
                rmatched[j] = 1;
                (*n)++;
                *sum += (i + 1) * 1000 + (j + 1);
            }
        }
        if (hits == 0 && (type == 1 || type == 3)) {
            (*n)++;
            *sum += (i + 1) * 1000;
        }
    }
    for (int j = 0; (type == 2 || type == 3) && j < r->nrows; j++)
        if (!rmatched[j]) {
            (*n)++;
            *sum += j + 1;
        }
}

/* Identify each output row by the sides' row numbers (id columns added). */
static sl_chunk *with_ids(const sl_chunk *c)
{
    sl_type t[3] = {c->cols[0].type, c->cols[1].type, sl_type_make(SL_TYPE_BIGINT)};
    sl_chunk *o = sl_chunk_new(3, t, c->nrows);
    for (int i = 0; i < c->nrows; i++) {
        int r = sl_chunk_append_row(o, SL_ROW_INSERT);
        sl_chunk_set_from(o, 0, r, c, 0, i);
        sl_chunk_set_from(o, 1, r, c, 1, i);
        sl_chunk_set_i64(o, 2, r, i + 1);
    }
    return o;
}

static void t_joins(void)
{
    unsigned seed = 7;
    sl_eval_env env = {0, NULL, NULL, NULL};
    for (int round = 0; round < 20; round++) {
        sl_chunk *l0 = side(&seed, NL, round % 2), *r0 = side(&seed, NR, round % 3 == 0);
        sl_chunk *l = with_ids(l0), *r = with_ids(r0);
        sl_type in[6];
        for (int i = 0; i < 3; i++) {
            in[i] = l->cols[i].type;
            in[3 + i] = r->cols[i].type;
        }
        for (int type = 0; type <= 4; type++) {
            for (int residual = 0; residual < 2; residual++) {
                for (int hashed = 0; hashed < 2; hashed++) {
                    if (type == 4 && (residual || hashed))
                        continue;
                    sl_bexpr *cond = NULL;
                    if (type != 4) {
                        cond = call(SL_FN_EQ, col(0, in[0]), col(3, in[3]));
                        if (residual)
                            cond = call(SL_FN_AND, cond,
                                        call(SL_FN_NE, col(1, in[1]), col(4, in[4])));
                    }
                    sl_error err = SL_ERROR_INIT;
                    sl_eval_prog *p = cond ? sl_eval_compile(cond, 6, in, &err) : NULL;
                    CHECK(!cond || p);
                    int lk = 0, rk = 0;
                    sl_join_keys keys = {hashed, &lk, &rk};
                    sl_chunk *out = NULL;
                    CHECK_INT(sl_join_bounded(l, r, &keys, p, type, &env, &out, &err), 0);
                    REQUIRE(out);
                    int n;
                    int64_t sum, got = 0;
                    reference(l0, r0, type, residual, &n, &sum);
                    for (int i = 0; i < out->nrows; i++)
                        got += (out->cols[2].nulls[i] ? 0 : out->cols[2].v.i64[i] * 1000) +
                               (out->cols[5].nulls[i] ? 0 : out->cols[5].v.i64[i]);
                    CHECK_INT(out->nrows, n);
                    CHECK_INT(got, sum);
                    sl_chunk_free(out);
                    sl_eval_free(p);
                    sl_bexpr_free(cond);
                }
            }
        }
        sl_chunk_free(l0);
        sl_chunk_free(r0);
        sl_chunk_free(l);
        sl_chunk_free(r);
    }
}

static void t_sort(void)
{
    unsigned seed = 11;
    sl_chunk *c0 = side(&seed, 200, 1), *c = with_ids(c0);
    for (int desc = 0; desc < 2; desc++) {
        for (int nulls = 0; nulls <= 2; nulls++) {
            sl_sort_key k[2] = {{0, desc, nulls}, {1, false, 0}};
            int perm[200];
            sl_sort_bounded(c, k, 2, perm);
            bool nulls_first = nulls ? nulls == 1 : desc;
            for (int i = 1; i < c->nrows; i++) {
                int a = perm[i - 1], b = perm[i];
                bool na = c->cols[0].nulls[a], nb = c->cols[0].nulls[b];
                if (na != nb) {
                    CHECK(na == nulls_first);
                    continue;
                }
                if (na)
                    continue;
                int64_t x = c->cols[0].v.i64[a], y = c->cols[0].v.i64[b];
                CHECK(desc ? x >= y : x <= y);
                if (x == y) { /* then by the string, then stable */
                    int s = memcmp(c->cols[1].v.str[a].ptr, c->cols[1].v.str[b].ptr, 2);
                    CHECK(s <= 0);
                    if (s == 0)
                        CHECK(a < b);
                }
            }
        }
    }
    CHECK(sl_chunk_values_equal(c, 1, 0, 0));
    sl_chunk_free(c0);
    sl_chunk_free(c);
}

SL_TESTS(t_joins, t_sort)
