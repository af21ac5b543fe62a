/*
** bounded.c — the bounded query path: a query over PostgreSQL's catalog
** relations (syscat.c) runs here, in the caller's thread, instead of as a
** job. Each node of the logical plan is materialized, bottom-up, into one
** chunk: scans (the relation's rows now), VALUES, filters and projections
** through the one evaluator (exec/eval.c), joins through exec/op_join.c
** (hash join on the equality keys found in the condition, the whole
** condition as the residual), sorts through exec/op_sort.c (PostgreSQL's
** NULL order), LIMIT / OFFSET, UNION ALL (both inputs' rows) and DISTINCT /
** UNION (an aggregation without calls: the rows sorted, each distinct one
** once), aggregations with calls (GROUP BY, HAVING above as a filter)
** through exec/op_agg.c's group aggregation, set-returning functions of a select list (srf.c), generate_series
** / unnest in FROM, and APPLY (ARRAY(subquery): the subquery bound and run
** per input row, its outer references made that row's values). Rows go to
** the session's sl_result_sink like any query's. Other operators (windows)
** are 0A000 here for now. The catalog functions that read
** the session's objects (pg_get_indexdef...) reach it through the
** evaluation's sl_eval_env.catalog_def (syscat.c's sl_sysrel_def).
**
** Main routines: sl_lp_reads_sysrel, sl_bounded_run.
*/
#include "planner_int.h"
#include "session_int.h"

#include <string.h>

static bool sl__scans(const sl_lp *lp, bool sysrel)
{
    if (!lp)
        return false;
    if (lp->kind == SL_LP_SCAN && (lp->sysrel != NULL) == sysrel)
        return true;
    if (sysrel && lp->kind == SL_LP_EXPAND) /* set-returning functions run only here too */
        return true;
    if ((lp->kind == SL_LP_FUNCTION || lp->kind == SL_LP_APPLY) && sysrel)
        return true; /* generate_series, unnest, ARRAY(subquery): bounded too */
    if (lp->kind == SL_LP_UNNEST && lp->input->kind == SL_LP_VALUES && sysrel)
        return true; /* Flink's UNNEST(ARRAY[...]) on its own */
    return sl__scans(lp->input, sysrel) || sl__scans(lp->right, sysrel);
}

/* Whether b calls a catalog function that reads the session's objects. */
static bool sl__calls_catalog(const sl_bexpr *b)
{
    if (!b)
        return false;
    if (b->kind == SL_BX_CALL && b->fn->id >= SL_FN_PG_GET_INDEXDEF &&
        b->fn->id <= SL_FN_PG_RELATION_IS_PUBLISHABLE)
        return true;
    for (int i = 0; i < b->nargs; i++)
        if (sl__calls_catalog(b->args[i]))
            return true;
    return false;
}

static bool sl__lp_calls_catalog(const sl_lp *lp)
{
    if (!lp)
        return false;
    for (int i = 0; i < lp->nexprs; i++)
        if (sl__calls_catalog(lp->exprs[i]))
            return true;
    for (int r = 0; lp->kind == SL_LP_VALUES && r < lp->nrows; r++)
        for (int c = 0; c < lp->ncols; c++)
            if (sl__calls_catalog(lp->rows[r][c]))
                return true;
    return sl__lp_calls_catalog(lp->input) || sl__lp_calls_catalog(lp->right);
}

/* A query over catalog relations or with a set-returning function, or one
** that calls the catalog functions (SELECT pg_get_viewdef(16385)) and reads
** no table. */
bool sl_lp_reads_sysrel(const sl_lp *lp)
{
    return sl__scans(lp, true) || (sl__lp_calls_catalog(lp) && !sl__scans(lp, false));
}

typedef struct sl__bq {
    sl_session *s;       /* the session (catalog) */
    sl_eval_env env;     /* clock and time zone */
    sl_error *err;       /* the first error */
} sl__bq;

static sl_type *sl__lp_types(const sl_lp *lp)
{
    sl_type *t = sl_calloc((size_t)lp->ncols + 1, sizeof(sl_type));
    for (int i = 0; i < lp->ncols; i++)
        t[i] = lp->cols[i].type;
    return t;
}

static sl_chunk *sl__new_for(const sl_lp *lp, int cap)
{
    sl_type *t = sl__lp_types(lp);
    sl_chunk *c = sl_chunk_new(lp->ncols, t, cap > 0 ? cap : 1);
    sl_free(t);
    return c;
}

/* Evaluate exprs over in into a new chunk of lp's columns. */
static sl_chunk *sl__project(sl__bq *q, const sl_lp *lp, sl_bexpr *const *exprs, int n,
                             const sl_chunk *in, const sl_lp *inlp)
{
    sl_chunk *out = sl__new_for(lp, in->nrows);
    sl_type *it = inlp ? sl__lp_types(inlp) : NULL;
    for (int i = 0; i < n; i++) {
        sl_eval_prog *p = sl_eval_compile(exprs[i], inlp ? inlp->ncols : 0, it, q->err);
        int rc = p && in->nrows > 0 ? sl_eval_into(p, in, &q->env, out, i, q->err) : (p ? 0 : -1);
        sl_eval_free(p);
        if (rc != 0) {
            sl_free(it);
            sl_chunk_free(out);
            return NULL;
        }
    }
    sl_free(it);
    for (int r = 0; r < in->nrows; r++)
        out->kinds[r] = SL_ROW_INSERT;
    out->nrows = in->nrows;
    return out;
}

/* Pick the rows sel[i] != 0 (or the rows perm[0..n)) of in. */
static sl_chunk *sl__take(const sl_lp *lp, const sl_chunk *in, const int *rows, int n)
{
    sl_chunk *out = sl__new_for(lp, n);
    sl_chunk_append_rows(out, in, rows, n);
    return out;
}

/* Equality keys col_l = col_r among the AND-ed terms of a join condition. */
static void sl__join_keys(const sl_bexpr *b, int nl, const sl_lp *l, const sl_lp *r, int *lk,
                          int *rk, int *n)
{
    if (!b || b->kind != SL_BX_CALL)
        return;
    if (b->fn->id == SL_FN_AND) {
        sl__join_keys(b->args[0], nl, l, r, lk, rk, n);
        sl__join_keys(b->args[1], nl, l, r, lk, rk, n);
        return;
    }
    if (b->fn->id != SL_FN_EQ || b->args[0]->kind != SL_BX_COLUMN ||
        b->args[1]->kind != SL_BX_COLUMN || *n >= 16)
        return;
    int a = b->args[0]->col, c = b->args[1]->col;
    if (a >= nl && c < nl) {
        int t = a;
        a = c;
        c = t;
    }
    if (a >= nl || c < nl)
        return;
    if (sl_phys_of(l->cols[a].type) != sl_phys_of(r->cols[c - nl].type))
        return;
    /* integers of every width share the representation; strings too */
    lk[*n] = a;
    rk[*n] = c - nl;
    (*n)++;
}

static sl_chunk *sl__run(sl__bq *q, const sl_lp *lp);
static sl_chunk *sl__aggregate(sl__bq *q, const sl_lp *lp);

/* Set-returning functions (srf.c) in lockstep: for each input row, as many
** rows as the longest set, the input's columns repeated, each function's
** columns NULL past the end of its set. */
static sl_chunk *sl__expand(sl__bq *q, const sl_lp *lp)
{
    sl_chunk *in = sl__run(q, lp->input);
    if (!in)
        return NULL;
    sl_lp args = *lp; /* the arguments' columns: one per function */
    args.ncols = lp->nexprs;
    args.cols = sl_calloc((size_t)lp->nexprs + 1, sizeof(sl_lp_col));
    for (int i = 0; i < lp->nexprs; i++)
        args.cols[i].type = lp->exprs[i]->type;
    sl_chunk *a = sl__project(q, &args, lp->exprs, lp->nexprs, in, lp->input);
    sl_free(args.cols);
    if (!a) {
        sl_chunk_free(in);
        return NULL;
    }
    int nf = lp->nexprs, nin = lp->input->ncols;
    sl_chunk **sets = sl_calloc((size_t)nf + 1, sizeof(sl_chunk *));
    sl_chunk *out = sl__new_for(lp, SL_CHUNK_ROWS);
    for (int r = 0; out && r < in->nrows; r++) {
        int most = 0;
        for (int f = 0; f < nf; f++) {
            sets[f] = sl_srf_rows(lp->keys[f], a, f, r, lp->exprs[f]->pos, q->err);
            if (!sets[f]) {
                sl_chunk_free(out);
                out = NULL;
                break;
            }
            most = sets[f]->nrows > most ? sets[f]->nrows : most;
        }
        for (int k = 0; out && k < most; k++) {
            if (out->nrows == out->cap) {
                sl_chunk *bigger = sl__new_for(lp, out->cap * 2);
                int *all = sl_calloc((size_t)out->nrows, sizeof(int));
                for (int i = 0; i < out->nrows; i++)
                    all[i] = i;
                sl_chunk_append_rows(bigger, out, all, out->nrows);
                sl_free(all);
                sl_chunk_free(out);
                out = bigger;
            }
            int d = sl_chunk_append_row(out, SL_ROW_INSERT);
            for (int c = 0; c < nin; c++)
                sl_chunk_set_from(out, c, d, in, c, r);
            for (int f = 0, c = nin; f < nf; c += sets[f]->ncols, f++)
                for (int j = 0; j < sets[f]->ncols && k < sets[f]->nrows; j++)
                    sl_chunk_set_from(out, c + j, d, sets[f], j, k);
        }
        for (int f = 0; f < nf; f++) {
            sl_chunk_free(sets[f]);
            sets[f] = NULL;
        }
    }
    sl_free(sets);
    sl_chunk_free(a);
    sl_chunk_free(in);
    return out;
}

/* Element text v of PostgreSQL's array output: quoted when empty, NULL, or
** holding braces, commas, quotes, backslashes or white space. */
static void sl__array_elem(sl_strbuf *sb, const char *v, size_t n)
{
    bool quote = n == 0 || (n == 4 && sl_strncasecmp(v, "null", 4) == 0);
    for (size_t i = 0; !quote && i < n; i++)
        quote = strchr("{},\"\\ \t\n\r\v\f", v[i]) != NULL;
    if (!quote) {
        sl_strbuf_append_n(sb, v, n);
        return;
    }
    sl_strbuf_append_char(sb, '"');
    for (size_t i = 0; i < n; i++) {
        if (v[i] == '"' || v[i] == '\\')
            sl_strbuf_append_char(sb, '\\');
        sl_strbuf_append_char(sb, v[i]);
    }
    sl_strbuf_append_char(sb, '"');
}

/* APPLY: for each input row, its subquery with the outer references made the
** row's values, bound and run here; its rows become the array text, or for a
** scalar subquery (SL_JOIN_SINGLE) its one value (NULL for none, 21000 for
** several, as PostgreSQL). */
static sl_chunk *sl__apply(sl__bq *q, const sl_lp *lp)
{
    sl_chunk *in = sl__run(q, lp->input);
    if (!in)
        return NULL;
    int nin = lp->input->ncols;
    sl_type *types = sl__lp_types(lp->input);
    sl_strbuf *vb = sl_calloc((size_t)nin + 1, sizeof(sl_strbuf));
    const char **vals = sl_calloc((size_t)nin + 1, sizeof(char *));
    sl_strbuf arr = SL_STRBUF_INIT, el = SL_STRBUF_INIT;
    sl_chunk *out = sl__new_for(lp, in->nrows);
    for (int r = 0; r < in->nrows; r++) {
        for (int c = 0; c < nin; c++) {
            sl_strbuf_reset(&vb[c]);
            vals[c] = sl_value_format_tz(&vb[c], &in->cols[c], r, q->env.tz)
                          ? sl_strbuf_cstr(&vb[c])
                          : NULL;
        }
        sl_query *sub = sl_bind_apply_query(lp->subquery, types, vals);
        sl_binder b = sl__binder(q->s, q->err);
        sl_lp *slp = sl_bind_query(&b, sub);
        sl_query_free(sub);
        sl_chunk *rows = slp ? sl__run(q, slp) : NULL;
        if (rows && lp->join_type == SL_JOIN_SINGLE && rows->nrows > 1) {
            sl_error_set(q->err, SL_ERR_CARDINALITY, lp->pos,
                         "more than one row returned by a subquery used as an expression");
            sl_chunk_free(rows);
            rows = NULL;
        }
        if (!rows) {
            sl_lp_free(slp);
            sl_chunk_free(out);
            out = NULL;
            break;
        }
        int d = sl_chunk_append_row(out, SL_ROW_INSERT);
        for (int c = 0; c < nin; c++)
            sl_chunk_set_from(out, c, d, in, c, r);
        if (lp->join_type == SL_JOIN_SINGLE) { /* its one value, or NULL */
            if (rows->nrows == 1)
                sl_chunk_set_from(out, nin, d, rows, 0, 0);
            else
                sl_chunk_set_null(out, nin, d);
        } else { /* ARRAY(subquery): the array text of its rows */
            sl_strbuf_reset(&arr);
            sl_strbuf_append_char(&arr, '{');
            for (int k = 0; k < rows->nrows; k++) {
                if (k > 0)
                    sl_strbuf_append_char(&arr, ',');
                sl_strbuf_reset(&el);
                if (sl_value_format_tz(&el, &rows->cols[0], k, q->env.tz))
                    sl__array_elem(&arr, el.buf ? el.buf : "", el.len);
                else
                    sl_strbuf_append(&arr, "NULL");
            }
            sl_strbuf_append_char(&arr, '}');
            sl_chunk_set_str(out, nin, d, arr.buf, arr.len);
        }
        sl_chunk_free(rows);
        sl_lp_free(slp);
    }
    for (int c = 0; c < nin; c++)
        sl_strbuf_free(&vb[c]);
    sl_free(vb);
    sl_free(vals);
    sl_free(types);
    sl_strbuf_free(&arr);
    sl_strbuf_free(&el);
    sl_chunk_free(in);
    return out;
}

/* generate_series(a, b [, step]) / unnest(array): its arguments evaluated
** once, its rows (none when an argument is NULL). */
static sl_chunk *sl__function(sl__bq *q, const sl_lp *lp)
{
    sl_chunk *one = sl_chunk_new(0, NULL, 1);
    sl_chunk_append_row(one, SL_ROW_INSERT);
    sl_type at[3];
    for (int i = 0; i < lp->nexprs && i < 3; i++)
        at[i] = lp->exprs[i]->type;
    sl_chunk *args = sl_chunk_new(lp->nexprs, at, 1);
    int rc = 0;
    for (int i = 0; rc == 0 && i < lp->nexprs; i++) {
        sl_eval_prog *p = sl_eval_compile(lp->exprs[i], 0, NULL, q->err);
        rc = p ? sl_eval_into(p, one, &q->env, args, i, q->err) : -1;
        sl_eval_free(p);
    }
    args->nrows = 1;
    sl_chunk_free(one);
    bool null = false;
    for (int i = 0; rc == 0 && i < lp->nexprs; i++)
        null |= lp->exprs[i]->type.id == SL_TYPE_NULL || args->cols[i].nulls[0];
    sl_chunk *out = rc == 0 ? sl__new_for(lp, 16) : NULL;
    if (out && !null && strcmp(lp->table, "generate_series") == 0) {
        int64_t a = args->cols[0].v.i64[0], b = args->cols[1].v.i64[0];
        int64_t step = lp->nexprs > 2 ? args->cols[2].v.i64[0] : 1;
        if (step == 0) {
            sl_error_set(q->err, SL_ERR_INVALID_PARAMETER, lp->pos, "step size cannot equal zero");
            sl_chunk_free(out);
            out = NULL;
        } else if (((double)b - (double)a) / (double)step > 1e7) {
            sl_error_set(q->err, SL_ERR_PROGRAM_LIMIT, lp->pos,
                         "generate_series gives at most 10000000 rows here");
            sl_chunk_free(out);
            out = NULL;
        }
        for (int64_t v = a; out && (step > 0 ? v <= b : v >= b); v += step) {
            sl_chunk_set_i64(out, 0, sl_chunk_append_row(out, SL_ROW_INSERT), v);
            if ((step > 0 && v > INT64_MAX - step) || (step < 0 && v < INT64_MIN - step))
                break;
        }
    } else if (out && !null) {
        const sl_str *a = &args->cols[0].v.str[0];
        sl_strbuf el = SL_STRBUF_INIT;
        size_t pos = 0;
        bool enull;
        while (sl_array_text_next(a->ptr, a->len, &pos, &el, &enull)) {
            int d = sl_chunk_append_row(out, SL_ROW_INSERT);
            if (enull)
                sl_chunk_set_null(out, 0, d);
            else
                sl_chunk_set_str(out, 0, d, el.buf ? el.buf : "", el.len);
        }
        sl_strbuf_free(&el);
    }
    sl_chunk_free(args);
    return out;
}

/* Rows an operator emits, gathered into one growing chunk. */
typedef struct sl__gather {
    const sl_lp *lp; /* the node whose rows they are */
    sl_chunk *out;   /* the rows so far */
} sl__gather;

static int sl__gather_fn(void *ctx, sl_chunk *rows, sl_error *err)
{
    (void)err;
    sl__gather *g = ctx;
    if (g->out->nrows + rows->nrows > g->out->cap) {
        sl_chunk *big = sl__new_for(g->lp, 2 * (g->out->nrows + rows->nrows));
        for (int r = 0; r < g->out->nrows; r++)
            sl_chunk_copy_row(big, g->out, r);
        sl_chunk_free(g->out);
        g->out = big;
    }
    for (int r = 0; r < rows->nrows; r++)
        sl_chunk_copy_row(g->out, rows, r);
    return 0;
}

/* UNNEST: the input's rows with the argument as an extra column, through
** the job's own Unnest operator (exec/op_unnest.c). */
static sl_chunk *sl__unnest(sl__bq *q, const sl_lp *lp, sl_chunk *in)
{
    int nl = lp->input->ncols;
    sl_type *t = sl_calloc((size_t)nl + 2, sizeof(sl_type));
    for (int i = 0; i < nl; i++)
        t[i] = lp->input->cols[i].type;
    t[nl] = lp->exprs[0]->type;
    sl_chunk *ext = sl_chunk_new(nl + 1, t, in->nrows > 0 ? in->nrows : 1);
    for (int r = 0; r < in->nrows; r++) {
        int d = sl_chunk_append_row(ext, (sl_row_kind)in->kinds[r]);
        for (int c = 0; c < nl; c++)
            sl_chunk_set_from(ext, c, d, in, c, r);
    }
    sl_eval_prog *p = sl_eval_compile(lp->exprs[0], nl, t, q->err);
    int rc = p && in->nrows > 0 ? sl_eval_into(p, in, &q->env, ext, nl, q->err) : (p ? 0 : -1);
    sl_eval_free(p);
    sl_unnest_spec spec = {nl + 1, t, nl, nl, lp->join_type == SL_JOIN_LEFT,
                           lp->ncols - nl > (t[nl].id == SL_TYPE_MAP ? 2 : 1),
                           lp->nexprs > 1 ? lp->exprs[1] : NULL, q->env.tz};
    sl_operator *op = NULL;
    sl__gather g = {lp, sl__new_for(lp, 16)};
    sl_emit emit = {sl__gather_fn, &g};
    if (rc == 0 && sl_unnest_new(&spec, &op, q->err) == 0)
        rc = op->ops->process(op, ext, &emit, q->err);
    else
        rc = -1;
    if (op)
        op->ops->free(op);
    sl_chunk_free(ext);
    sl_free(t);
    if (rc != 0) {
        sl_chunk_free(g.out);
        return NULL;
    }
    return g.out;
}

static sl_chunk *sl__run(sl__bq *q, const sl_lp *lp)
{
    switch (lp->kind) {
    case SL_LP_SCAN:
        if (!lp->sysrel)
            break;
        return sl_sysrel_rows(lp->sysrel, q->s);
    case SL_LP_VALUES: {
        sl_chunk *one = sl_chunk_new(0, NULL, 1);
        sl_chunk_append_row(one, SL_ROW_INSERT);
        sl_chunk *out = sl__new_for(lp, lp->nrows);
        for (int r = 0; r < lp->nrows; r++) {
            sl_chunk *row = sl__project(q, lp, lp->rows[r], lp->ncols, one, NULL);
            if (!row) {
                sl_chunk_free(one);
                sl_chunk_free(out);
                return NULL;
            }
            sl_chunk_copy_row(out, row, 0);
            sl_chunk_free(row);
        }
        sl_chunk_free(one);
        return out;
    }
    case SL_LP_FILTER: {
        sl_chunk *in = sl__run(q, lp->input);
        if (!in)
            return NULL;
        sl_type *it = sl__lp_types(lp->input);
        sl_eval_prog *p = sl_eval_compile(lp->exprs[0], lp->input->ncols, it, q->err);
        sl_free(it);
        uint8_t *sel = sl_calloc((size_t)in->nrows + 1, 1);
        int n = p && in->nrows > 0 ? sl_eval_filter(p, in, &q->env, sel, q->err) : (p ? 0 : -1);
        sl_eval_free(p);
        sl_chunk *out = NULL;
        if (n >= 0) {
            int *rows = sl_calloc((size_t)n + 1, sizeof(int));
            for (int i = 0, k = 0; i < in->nrows; i++)
                if (sel[i])
                    rows[k++] = i;
            out = sl__take(lp, in, rows, n);
            sl_free(rows);
        }
        sl_free(sel);
        sl_chunk_free(in);
        return out;
    }
    case SL_LP_PROJECT: {
        sl_chunk *in = sl__run(q, lp->input);
        if (!in)
            return NULL;
        sl_chunk *out = sl__project(q, lp, lp->exprs, lp->nexprs, in, lp->input);
        sl_chunk_free(in);
        return out;
    }
    case SL_LP_JOIN: {
        sl_chunk *l = sl__run(q, lp->input);
        sl_chunk *r = l ? sl__run(q, lp->right) : NULL;
        if (!r) {
            sl_chunk_free(l);
            return NULL;
        }
        const sl_bexpr *cond = lp->nexprs > 0 ? lp->exprs[0] : NULL;
        int lk[16], rk[16], nk = 0;
        sl__join_keys(cond, lp->input->ncols, lp->input, lp->right, lk, rk, &nk);
        sl_join_keys keys = {nk, lk, rk};
        sl_eval_prog *p = NULL;
        if (cond) {
            sl_type *t = sl__lp_types(lp);
            /* the join's own output types may be nullable where the side's are not */
            for (int i = 0; i < lp->input->ncols; i++)
                t[i] = lp->input->cols[i].type;
            for (int i = 0; i < lp->right->ncols; i++)
                t[lp->input->ncols + i] = lp->right->cols[i].type;
            p = sl_eval_compile(cond, lp->ncols, t, q->err);
            sl_free(t);
        }
        sl_chunk *out = NULL;
        if ((!cond || p) &&
            sl_join_bounded(l, r, &keys, p, lp->join_type, &q->env, &out, q->err) != 0 &&
            q->err->position < 0)
            q->err->position = lp->pos; /* 21000: the subquery */
        sl_eval_free(p);
        sl_chunk_free(l);
        sl_chunk_free(r);
        return out;
    }
    case SL_LP_SORT: {
        sl_chunk *in = sl__run(q, lp->input);
        if (!in)
            return NULL;
        sl_sort_key *keys = sl_calloc((size_t)lp->norder + 1, sizeof(sl_sort_key));
        for (int i = 0; i < lp->norder; i++)
            keys[i] = (sl_sort_key){lp->order[i].col, lp->order[i].desc, lp->order[i].nulls};
        int *perm = sl_calloc((size_t)in->nrows + 1, sizeof(int));
        sl_sort_bounded(in, keys, lp->norder, perm);
        sl_chunk *out = sl__take(lp, in, perm, in->nrows);
        sl_free(perm);
        sl_free(keys);
        sl_chunk_free(in);
        return out;
    }
    case SL_LP_OVER: {
        /* ROW_NUMBER() OVER (PARTITION BY keys ORDER BY order): sort by both,
        ** number the rows of each partition from 1 */
        sl_chunk *in = sl__run(q, lp->input);
        if (!in)
            return NULL;
        int nk = lp->nkeys + lp->norder;
        sl_sort_key *keys = sl_calloc((size_t)nk + 1, sizeof(sl_sort_key));
        for (int i = 0; i < lp->nkeys; i++)
            keys[i] = (sl_sort_key){lp->keys[i], false, 0};
        for (int i = 0; i < lp->norder; i++)
            keys[lp->nkeys + i] = (sl_sort_key){lp->order[i].col, lp->order[i].desc, lp->order[i].nulls};
        int *perm = sl_calloc((size_t)in->nrows + 1, sizeof(int));
        sl_sort_bounded(in, keys, nk, perm);
        sl_chunk *out = sl__new_for(lp, in->nrows);
        int64_t rn = 0;
        for (int k = 0; k < in->nrows; k++) {
            bool same = k > 0;
            for (int i = 0; same && i < lp->nkeys; i++)
                same = sl_chunk_values_equal(in, lp->keys[i], perm[k - 1], perm[k]);
            rn = same ? rn + 1 : 1;
            int d = sl_chunk_append_row(out, SL_ROW_INSERT);
            for (int c = 0; c < in->ncols; c++)
                sl_chunk_set_from(out, c, d, in, c, perm[k]);
            sl_chunk_set_i64(out, in->ncols, d, rn);
        }
        sl_free(perm);
        sl_free(keys);
        sl_chunk_free(in);
        return out;
    }
    case SL_LP_UNION: {
        /* UNION ALL: the left rows, then the right ones, in the output's types */
        sl_chunk *l = sl__run(q, lp->input);
        sl_chunk *r = l ? sl__run(q, lp->right) : NULL;
        if (!r) {
            sl_chunk_free(l);
            return NULL;
        }
        sl_chunk *out = sl__new_for(lp, l->nrows + r->nrows);
        const sl_chunk *side[2] = {l, r};
        for (int s = 0; s < 2; s++) {
            for (int k = 0; k < side[s]->nrows; k++) {
                int d = sl_chunk_append_row(out, SL_ROW_INSERT);
                for (int c = 0; c < lp->ncols; c++) {
                    const sl_vector *v = &side[s]->cols[c];
                    if (v->nulls[k] || v->phys == out->cols[c].phys)
                        sl_chunk_set_from(out, c, d, side[s], c, k);
                    else if (v->phys == SL_PHYS_I64 && out->cols[c].phys == SL_PHYS_F64)
                        sl_chunk_set_f64(out, c, d, (double)v->v.i64[k]);
                    else
                        sl_chunk_set_null(out, c, d); /* not reached: the binder's common type */
                }
            }
        }
        sl_chunk_free(l);
        sl_chunk_free(r);
        return out;
    }
    case SL_LP_AGGREGATE: {
        /* DISTINCT (and UNION): group by every column, no calls */
        if (lp->naggs > 0 || lp->nkeys != lp->input->ncols)
            return sl__aggregate(q, lp);
        sl_chunk *in = sl__run(q, lp->input);
        if (!in)
            return NULL;
        sl_sort_key *keys = sl_calloc((size_t)lp->nkeys + 1, sizeof(sl_sort_key));
        for (int i = 0; i < lp->nkeys; i++)
            keys[i] = (sl_sort_key){lp->keys[i], false, 0};
        int *perm = sl_calloc((size_t)in->nrows + 1, sizeof(int));
        sl_sort_bounded(in, keys, lp->nkeys, perm);
        int n = 0;
        for (int k = 0; k < in->nrows; k++) {
            bool same = k > 0;
            for (int i = 0; same && i < lp->nkeys; i++)
                same = sl_chunk_values_equal(in, lp->keys[i], perm[k - 1], perm[k]);
            if (!same)
                perm[n++] = perm[k];
        }
        sl_chunk *out = sl__new_for(lp, n);
        for (int k = 0; k < n; k++) {
            int d = sl_chunk_append_row(out, SL_ROW_INSERT);
            for (int i = 0; i < lp->nkeys; i++)
                sl_chunk_set_from(out, i, d, in, lp->keys[i], perm[k]);
        }
        sl_free(perm);
        sl_free(keys);
        sl_chunk_free(in);
        return out;
    }
    case SL_LP_EXPAND:
        return sl__expand(q, lp);
    case SL_LP_APPLY:
        return sl__apply(q, lp);
    case SL_LP_FUNCTION:
        return sl__function(q, lp);
    case SL_LP_UNNEST: {
        sl_chunk *in = sl__run(q, lp->input);
        sl_chunk *out = in ? sl__unnest(q, lp, in) : NULL;
        sl_chunk_free(in);
        return out;
    }
    case SL_LP_LIMIT: {
        sl_chunk *in = sl__run(q, lp->input);
        if (!in)
            return NULL;
        int64_t from = lp->offset < in->nrows ? lp->offset : in->nrows;
        int64_t to = lp->limit < 0 || from + lp->limit > in->nrows ? in->nrows : from + lp->limit;
        int *rows = sl_calloc((size_t)(to - from) + 1, sizeof(int));
        for (int64_t i = from; i < to; i++)
            rows[i - from] = (int)i;
        sl_chunk *out = sl__take(lp, in, rows, (int)(to - from));
        sl_free(rows);
        sl_chunk_free(in);
        return out;
    }
    default:
        break;
    }
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_lp_describe(&sb, lp);
    sl_error_set(q->err, SL_ERR_NOT_SUPPORTED, lp->pos,
                 "a query over the catalog relations cannot run this operator yet");
    sl_error_detail(q->err, "It needs %s; the bounded path runs scans, filters, projections, "
                            "joins, sorts, limits, UNION, DISTINCT and aggregations so far.", sl_strbuf_cstr(&sb));
    sl_strbuf_free(&sb);
    return NULL;
}

/* Collects an aggregation's output rows (all +I: see sl__aggregate). */
static int sl__collect(void *ctx, sl_chunk *rows, sl_error *err)
{
    sl_chunk *out = ctx;
    for (int r = 0; r < rows->nrows; r++) {
        if (rows->kinds[r] != SL_ROW_INSERT || out->nrows == out->cap)
            return sl_error_set(err, SL_ERR_INTERNAL, -1, "the aggregation emitted an unexpected row");
        sl_chunk_copy_row(out, rows, r);
    }
    return 0;
}

/* An aggregation with calls, by the engine's one implementation (exec/
** op_agg.c's group aggregation, the job's spec from physical.c): the input
** is one chunk of +I rows, so each group comes out once, as +I, at most one
** per input row. A global aggregation (no GROUP BY) over no rows gives one
** row, as PostgreSQL and Flink's batch mode: COUNT 0, the other calls NULL. */
static sl_chunk *sl__aggregate(sl__bq *q, const sl_lp *lp)
{
    sl_chunk *in = sl__run(q, lp->input);
    if (!in)
        return NULL;
    sl_group_agg_spec spec;
    sl_lp_agg_spec(lp, 0, &spec);
    sl_operator *op = NULL;
    sl_chunk *out = sl__new_for(lp, in->nrows + 1);
    int rc = sl_group_agg_new(&spec, &op, q->err);
    if (rc == 0) {
        sl_emit emit = {sl__collect, out};
        rc = op->ops->process(op, in, &emit, q->err);
    }
    if (rc == 0 && lp->nkeys == 0 && out->nrows == 0) {
        int d = sl_chunk_append_row(out, SL_ROW_INSERT);
        for (int c = 0; c < lp->naggs; c++)
            if (lp->aggs[c].fn->id == SL_FN_COUNT)
                sl_chunk_set_i64(out, c, d, 0);
    }
    if (op)
        op->ops->free(op);
    sl_lp_agg_spec_free(&spec);
    sl_chunk_free(in);
    if (rc != 0) {
        sl_chunk_free(out);
        return NULL;
    }
    return out;
}

int sl_bounded_run(sl_session *s, const sl_lp *lp, const sl_result_sink *out, sl_error *err)
{
    sl_tz *tz = NULL;
    if (sl__time_zone(s, &tz, err) != 0)
        return -1;
    sl__bq q = {s, {sl_now_nanos(), tz, sl_sysrel_def, s}, err};
    sl_chunk *c = sl__run(&q, lp);
    if (!c) {
        sl_tz_free(tz);
        if (!sl_error_isset(err))
            sl_error_set(err, SL_ERR_INTERNAL, lp->pos, "the query failed");
        return -1;
    }
    int rc = 0;
    if (out && out->begin) {
        const char **names = sl_calloc((size_t)lp->ncols + 1, sizeof(char *));
        sl_type *types = sl__lp_types(lp);
        for (int i = 0; i < lp->ncols; i++)
            names[i] = lp->cols[i].name;
        rc = out->begin(out->ctx, lp->ncols, names, types);
        sl_free(names);
        sl_free(types);
    }
    char **vals = sl_calloc((size_t)lp->ncols + 1, sizeof(char *));
    size_t *lens = sl_calloc((size_t)lp->ncols + 1, sizeof(size_t));
    sl_strbuf *sb = sl_calloc((size_t)lp->ncols + 1, sizeof(sl_strbuf));
    if (rc == 0 && out && out->chunk) { /* the rows as they are (sl_planner.h) */
        rc = out->chunk(out->ctx, c) != 0 || (s->interrupt && *s->interrupt) ? 1 : 0;
    }
    for (int r = 0; rc == 0 && !(out && out->chunk) && r < c->nrows; r++) {
        for (int i = 0; i < lp->ncols; i++) {
            sl_strbuf_reset(&sb[i]);
            bool set = sl_value_format_tz(&sb[i], &c->cols[i], r, tz);
            vals[i] = set ? (char *)sl_strbuf_cstr(&sb[i]) : NULL;
            lens[i] = set ? sb[i].len : 0;
        }
        if (out && out->row && out->row(out->ctx, (const char *const *)vals, lens) != 0)
            rc = 1;
        if (s->interrupt && *s->interrupt)
            rc = 1;
    }
    for (int i = 0; i < lp->ncols; i++)
        sl_strbuf_free(&sb[i]);
    sl_free(sb);
    sl_free(vals);
    sl_free(lens);
    char tag[64];
    snprintf(tag, sizeof tag, "SELECT %d", c->nrows);
    sl_chunk_free(c);
    sl_tz_free(tz);
    if (rc != 0)
        return sl_error_set(err, "57014", -1, "canceling statement due to user request");
    sl__result_complete(out, tag);
    return 0;
}
