/*
** op_join.c — the join operator over bounded inputs: INNER, LEFT, RIGHT,
** FULL and CROSS joins of two materialized sides, hash join on the equality
** keys the planner found in the condition, nested loop when there are none.
**
** State per side: the side's rows (a chunk), and for the build (right) side
** a hash table of its key values plus a matched flag per row (RIGHT / FULL
** joins emit the right rows nothing matched). Rows are emitted when both
** inputs have ended (sl_join_bounded). A streaming regular join (issue 13)
** keeps the same state per side and probes the other side's table as each
** row arrives, instead of at the end of input.
**
** For each left row the candidate right rows (its hash bucket, or all of
** them) are laid out as pairs in one chunk of left ++ right columns and the
** whole condition (keys included: they may differ in type) is evaluated over
** it with the one evaluator (eval.c), a vector at a time.
**
** Main routines: sl_join_bounded, sl_chunk_set_from.
*/
#include "sl_exec.h"
#include "value_int.h"

#include <string.h>

void sl_chunk_set_from(sl_chunk *dst, int dcol, int drow, const sl_chunk *src, int scol, int srow)
{
    const sl_vector *sv = &src->cols[scol];
    if (sv->nulls[srow]) {
        sl_chunk_set_null(dst, dcol, drow);
        return;
    }
    switch (sv->phys) {
    case SL_PHYS_BOOL: sl_chunk_set_bool(dst, dcol, drow, sv->v.b[srow]); break;
    case SL_PHYS_I64: sl_chunk_set_i64(dst, dcol, drow, sv->v.i64[srow]); break;
    case SL_PHYS_F64: sl_chunk_set_f64(dst, dcol, drow, sv->v.f64[srow]); break;
    case SL_PHYS_I128: sl_chunk_set_i128(dst, dcol, drow, sv->v.i128[srow]); break;
    case SL_PHYS_STR:
        sl_chunk_set_str(dst, dcol, drow, sv->v.str[srow].ptr, sv->v.str[srow].len);
        break;
    }
}

/* A chunk of the given columns able to hold cap rows (at least 1). */
static sl_chunk *sl__chunk_like(const sl_chunk *l, const sl_chunk *r, int cap)
{
    int n = l->ncols + r->ncols;
    sl_type *types = sl_calloc((size_t)n + 1, sizeof(sl_type));
    for (int i = 0; i < l->ncols; i++)
        types[i] = l->cols[i].type;
    for (int i = 0; i < r->ncols; i++) {
        types[l->ncols + i] = r->cols[i].type;
    }
    sl_chunk *c = sl_chunk_new(n, types, cap > 0 ? cap : 1);
    sl_free(types);
    return c;
}

/* Append left row li (or NULLs when li < 0) ++ right row ri (or NULLs). */
static void sl__pair(sl_chunk *out, const sl_chunk *l, int li, const sl_chunk *r, int ri)
{
    int d = sl_chunk_append_row(out, SL_ROW_INSERT);
    for (int i = 0; i < l->ncols; i++) {
        if (li >= 0)
            sl_chunk_set_from(out, i, d, l, i, li);
    }
    for (int i = 0; i < r->ncols; i++) {
        if (ri >= 0)
            sl_chunk_set_from(out, l->ncols + i, d, r, i, ri);
    }
}

static uint64_t sl__key_hash(const sl_chunk *c, const int *cols, int n, int row, bool *null)
{
    uint64_t h = 0;
    *null = false;
    for (int k = 0; k < n; k++) {
        const sl_vector *v = &c->cols[cols[k]];
        if (v->nulls[row]) {
            *null = true; /* = never matches a NULL */
            return 0;
        }
        h = SL__HASH_COMBINE(h, sl__val_hash(v->phys, sl__load(v, row)));
    }
    return h;
}

/* Grow out to hold n more rows. */
static void sl__reserve(sl_chunk **out, int n)
{
    if ((*out)->nrows + n <= (*out)->cap)
        return;
    int cap = (*out)->cap;
    while (cap < (*out)->nrows + n)
        cap *= 2;
    sl_type *types = sl_calloc((size_t)(*out)->ncols + 1, sizeof(sl_type));
    for (int i = 0; i < (*out)->ncols; i++)
        types[i] = (*out)->cols[i].type;
    sl_chunk *c = sl_chunk_new((*out)->ncols, types, cap);
    sl_free(types);
    int *all = sl_calloc((size_t)(*out)->nrows + 1, sizeof(int));
    for (int i = 0; i < (*out)->nrows; i++)
        all[i] = i;
    sl_chunk_append_rows(c, *out, all, (*out)->nrows);
    sl_free(all);
    sl_chunk_free(*out);
    *out = c;
}

int sl_join_bounded(const sl_chunk *l, const sl_chunk *r, const sl_join_keys *keys,
                    sl_eval_prog *cond, int type, const sl_eval_env *env, sl_chunk **out,
                    sl_error *err)
{
    bool keep_left = type == 1 || type == 3 || type == 7; /* LEFT, FULL, SINGLE */
    bool semi = type == 5, anti = type == 6, single = type == 7;
    bool keep_right = type == 2 || type == 3; /* RIGHT, FULL */
    int nk = keys ? keys->n : 0;
    /* The build side's table: bucket heads and a chain per row. */
    int nb = 1;
    while (nb < 2 * r->nrows)
        nb *= 2;
    int *head = sl_malloc(sizeof(int) * (size_t)nb), *next = sl_malloc(sizeof(int) * ((size_t)r->nrows + 1));
    uint64_t *hash = sl_malloc(sizeof(uint64_t) * ((size_t)r->nrows + 1));
    for (int b = 0; b < nb; b++)
        head[b] = -1;
    for (int i = r->nrows - 1; i >= 0; i--) {
        bool null = false;
        hash[i] = nk ? sl__key_hash(r, keys->right, nk, i, &null) : 0;
        next[i] = -1;
        if (null)
            continue;
        int b = (int)(hash[i] & (uint64_t)(nb - 1));
        next[i] = head[b];
        head[b] = i;
    }
    uint8_t *matched = sl_calloc((size_t)r->nrows + 1, 1);
    int *cand = sl_malloc(sizeof(int) * ((size_t)r->nrows + 1));
    uint8_t *sel = sl_malloc((size_t)r->nrows + 1);
    *out = sl__chunk_like(l, r, 16);
    sl_chunk *pairs = sl__chunk_like(l, r, r->nrows);
    int rc = 0;
    for (int li = 0; li < l->nrows && rc == 0; li++) {
        int nc = 0;
        if (nk) {
            bool null = false;
            uint64_t h = sl__key_hash(l, keys->left, nk, li, &null);
            for (int ri = null ? -1 : head[h & (uint64_t)(nb - 1)]; ri >= 0; ri = next[ri])
                if (hash[ri] == h)
                    cand[nc++] = ri;
        } else {
            for (int ri = 0; ri < r->nrows; ri++)
                cand[nc++] = ri;
        }
        int hits = 0;
        if (nc > 0) {
            sl_chunk_reset(pairs);
            for (int k = 0; k < nc; k++)
                sl__pair(pairs, l, li, r, cand[k]);
            if (cond) {
                if (sl_eval_filter(cond, pairs, env, sel, err) < 0) {
                    rc = -1;
                    break;
                }
            } else {
                memset(sel, 1, (size_t)nc);
            }
            for (int k = 0; k < nc; k++) {
                if (!sel[k])
                    continue;
                hits++;
                if (semi || anti)
                    break;
                if (single && hits > 1) {
                    rc = sl_error_set(err, SL_ERR_CARDINALITY, -1,
                                      "more than one row returned by a subquery used as an "
                                      "expression");
                    break;
                }
                sl__reserve(out, 1);
                sl__pair(*out, l, li, r, cand[k]);
                matched[cand[k]] = 1;
            }
        }
        if (rc != 0)
            break;
        if ((hits == 0 && (keep_left || anti)) || (hits > 0 && semi)) {
            sl__reserve(out, 1);
            sl__pair(*out, l, li, r, -1);
        }
    }
    for (int ri = 0; rc == 0 && keep_right && ri < r->nrows; ri++) {
        if (matched[ri])
            continue;
        sl__reserve(out, 1);
        sl__pair(*out, l, -1, r, ri);
    }
    sl_chunk_free(pairs);
    sl_free(head);
    sl_free(next);
    sl_free(hash);
    sl_free(matched);
    sl_free(cand);
    sl_free(sel);
    if (rc != 0) {
        sl_chunk_free(*out);
        *out = NULL;
    }
    return rc;
}
