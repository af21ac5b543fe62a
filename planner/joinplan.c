/*
** joinplan.c — join planning on the logical plan, before changelog
** analysis (Flink's FlinkFilterJoinRule):
**
**   - a Filter over an inner or cross join moves into it: its AND-ed terms
**     that read one side only go below the join onto that side, the others
**     become the join's condition, so a comma join with its condition in
**     WHERE is an inner join on keys, never a cross product;
**   - over a LEFT (RIGHT) join, WHERE terms on the preserved side go below
**     onto it; the others stay above (they see the null-padded rows);
**   - a join's ON terms on one side go below onto that side: both sides of
**     an inner join, the null-supplying side of an outer one.
**
** Terms that read no column stay where they are. The result is the same
** rows by construction; EXPLAIN shows the moved conditions.
**
** It also recognizes interval joins (sl_lp_interval_join), as Flink's
** IntervalJoinUtil: time bounds between a time attribute of each side; and
** window joins (sl_lp_window_join), as Flink's WindowJoinUtil: both sides'
** window_start and window_end equated, windows of one definition.
**
** Main routines: sl_lp_plan_joins, sl_lp_interval_join, sl_lp_window_join; the condition
** helpers the physical planner shares (sl_join_side, sl_bexpr_conjuncts,
** sl_bexpr_shift, sl_bexpr_and_all).
*/
#include "planner_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* 0: b reads only columns < nl; 1: only columns >= nl; -1: both or none. */
static int sl__side(const sl_bexpr *b, int nl, int *seen)
{
    int s = -2;
    if (b->kind == SL_BX_COLUMN)
        s = b->col < nl ? 0 : 1;
    for (int i = 0; i < b->nargs; i++) {
        int a = sl__side(b->args[i], nl, seen);
        if (a == -1)
            return -1;
        if (a >= 0)
            s = s == -2 || s == a ? a : -1;
        if (s == -1)
            return -1;
    }
    if (s >= 0)
        *seen = 1;
    return s;
}

int sl_join_side(const sl_bexpr *b, int nl)
{
    int seen = 0;
    int s = sl__side(b, nl, &seen);
    return seen ? s : -1;
}

void sl_bexpr_shift(sl_bexpr *b, int delta)
{
    if (b->kind == SL_BX_COLUMN)
        b->col += delta;
    for (int i = 0; i < b->nargs; i++)
        sl_bexpr_shift(b->args[i], delta);
}

void sl_bexpr_conjuncts(const sl_bexpr *b, sl_list *terms)
{
    if (b->kind == SL_BX_CALL && b->fn->id == SL_FN_AND && b->nargs == 2) {
        sl_bexpr_conjuncts(b->args[0], terms);
        sl_bexpr_conjuncts(b->args[1], terms);
        return;
    }
    sl_list_push(terms, (void *)b);
}

/* Split b (taken) into its AND-ed terms. */
static void sl__split(sl_bexpr *b, sl_list *terms)
{
    if (b->kind == SL_BX_CALL && b->fn->id == SL_FN_AND && b->nargs == 2) {
        sl__split(b->args[0], terms);
        sl__split(b->args[1], terms);
        b->nargs = 0;
        sl_bexpr_free(b);
        return;
    }
    sl_list_push(terms, b);
}

sl_bexpr *sl_bexpr_and_all(sl_list *terms)
{
    sl_bexpr *cond = NULL;
    for (int i = 0; i < terms->n; i++) {
        sl_bexpr *t = terms->items[i];
        if (!cond) {
            cond = t;
            continue;
        }
        sl_type bt = sl_type_make(SL_TYPE_BOOLEAN);
        bt.not_null = cond->type.not_null && t->type.not_null;
        sl_bexpr *and = sl_bexpr_new(SL_BX_CALL, bt, cond->pos);
        and->fn = sl_func_get(SL_FN_AND);
        and->args = sl_calloc(2, sizeof(sl_bexpr *));
        and->args[0] = cond;
        and->args[1] = t;
        and->nargs = 2;
        cond = and;
    }
    terms->n = 0;
    return cond;
}

/* A Filter of cond (taken) over *slot. */
static void sl__filter_below(sl_lp **slot, sl_bexpr *cond)
{
    if (!cond)
        return;
    sl_lp *in = *slot;
    if (in->kind == SL_LP_FILTER) { /* one filter: AND the conditions */
        sl_list *t = sl_list_new();
        sl_list_push(t, in->exprs[0]);
        sl_list_push(t, cond);
        in->exprs[0] = sl_bexpr_and_all(t);
        sl_list_free(t, NULL);
        return;
    }
    sl_lp *f = sl_lp_new(SL_LP_FILTER, in);
    for (int c = 0; c < in->ncols; c++)
        sl_lp_add_col(f, in->cols[c].name, in->cols[c].type, in->cols[c].rowtime);
    f->exprs = sl_calloc(1, sizeof(sl_bexpr *));
    f->exprs[0] = cond;
    f->nexprs = 1;
    f->pos = cond->pos;
    *slot = f;
}

/* Move the terms of j's ON condition that read one side onto that side. */
static void sl__push_on(sl_lp *j)
{
    bool to_left = j->join_type == SL_JOIN_INNER || j->join_type == SL_JOIN_RIGHT;
    /* a lookup join's table is looked up by key, never filtered below it */
    bool to_right = (j->join_type == SL_JOIN_INNER || j->join_type == SL_JOIN_LEFT) &&
                    !j->lookup;
    if ((!to_left && !to_right) || j->nexprs < 1 || !j->exprs[0] || (j->temporal && !j->lookup))
        return;
    int nl = j->input->ncols;
    sl_list *terms = sl_list_new(), *l = sl_list_new(), *r = sl_list_new(), *keep = sl_list_new();
    sl__split(j->exprs[0], terms);
    for (int i = 0; i < terms->n; i++) {
        sl_bexpr *t = terms->items[i];
        int s = sl_join_side(t, nl);
        if (s == 0 && to_left)
            sl_list_push(l, t);
        else if (s == 1 && to_right) {
            sl_bexpr_shift(t, -nl);
            sl_list_push(r, t);
        } else
            sl_list_push(keep, t);
    }
    j->exprs[0] = sl_bexpr_and_all(keep);
    if (!j->exprs[0])
        j->nexprs = 0;
    sl__filter_below(&j->input, sl_bexpr_and_all(l));
    sl__filter_below(&j->right, sl_bexpr_and_all(r));
    sl_list_free(terms, NULL);
    sl_list_free(l, NULL);
    sl_list_free(r, NULL);
    sl_list_free(keep, NULL);
}

static void sl__plan(sl_lp **slot);

/* A Filter over a join: *slot is the filter. */
static void sl__filter_join(sl_lp **slot)
{
    sl_lp *f = *slot, *j = f->input;
    int type = j->join_type;
    bool inner = type == SL_JOIN_INNER || type == SL_JOIN_CROSS;
    if (j->temporal && !j->lookup) /* a filter below the versioned table would change its
                                      versions */
        return;
    if (!inner && type != SL_JOIN_LEFT && type != SL_JOIN_RIGHT)
        return;
    int nl = j->input->ncols;
    sl_list *terms = sl_list_new(), *l = sl_list_new(), *r = sl_list_new(),
            *on = sl_list_new(), *keep = sl_list_new();
    sl__split(f->exprs[0], terms);
    f->exprs[0] = NULL;
    for (int i = 0; i < terms->n; i++) {
        sl_bexpr *t = terms->items[i];
        int s = sl_join_side(t, nl);
        if (s == 0 && type != SL_JOIN_RIGHT)
            sl_list_push(l, t);
        else if (s == 1 && type != SL_JOIN_LEFT && !j->lookup) {
            sl_bexpr_shift(t, -nl);
            sl_list_push(r, t);
        } else if (inner && !sl_bexpr_is_constant(t))
            sl_list_push(on, t);
        else
            sl_list_push(keep, t);
    }
    if (on->n) { /* into the join's condition, after its own */
        sl_list *all = sl_list_new();
        if (j->nexprs > 0 && j->exprs[0])
            sl_list_push(all, j->exprs[0]);
        for (int i = 0; i < on->n; i++)
            sl_list_push(all, on->items[i]);
        on->n = 0;
        if (!j->exprs)
            j->exprs = sl_calloc(1, sizeof(sl_bexpr *));
        j->exprs[0] = sl_bexpr_and_all(all);
        sl_list_free(all, NULL);
        j->nexprs = 1;
        j->join_type = SL_JOIN_INNER;
    }
    sl__filter_below(&j->input, sl_bexpr_and_all(l));
    sl__filter_below(&j->right, sl_bexpr_and_all(r));
    sl_bexpr *rest = sl_bexpr_and_all(keep);
    if (rest) {
        f->exprs[0] = rest;
    } else { /* the filter is gone: the join takes its place (in f's memory,
                which its parent points to) */
        sl_lp *shell = sl_lp_new(SL_LP_FILTER, NULL);
        *shell = *f;
        shell->input = NULL;
        shell->nexprs = 0;
        sl_lp_free(shell); /* f's columns and expressions */
        *f = *j;
        sl_free(j);
        j = f;
    }
    sl_list_free(terms, NULL);
    sl_list_free(l, NULL);
    sl_list_free(r, NULL);
    sl_list_free(on, NULL);
    sl_list_free(keep, NULL);
    sl__plan(&j->input);
    sl__plan(&j->right);
}

/* A Filter over an UNNEST: *slot is the filter. Its terms over the
** UNNEST's input columns only move below it (they hold for every row of an
** input row's expansion, or for none; under a LEFT UNNEST too), where they
** may reach a join (FROM a, b, UNNEST(a.arr) WHERE a.k = b.k). */
static void sl__filter_unnest(sl_lp **slot)
{
    sl_lp *f = *slot, *u = f->input;
    int nl = u->input->ncols;
    sl_list *terms = sl_list_new(), *down = sl_list_new(), *keep = sl_list_new();
    sl__split(f->exprs[0], terms);
    f->exprs[0] = NULL;
    for (int i = 0; i < terms->n; i++)
        sl_list_push(sl_join_side(terms->items[i], nl) == 0 ? down : keep, terms->items[i]);
    sl__filter_below(&u->input, sl_bexpr_and_all(down));
    sl_bexpr *rest = sl_bexpr_and_all(keep);
    if (rest) {
        f->exprs[0] = rest;
    } else { /* the filter is gone: the UNNEST takes its place (as in sl__filter_join) */
        sl_lp *shell = sl_lp_new(SL_LP_FILTER, NULL);
        *shell = *f;
        shell->input = NULL;
        shell->nexprs = 0;
        sl_lp_free(shell);
        *f = *u;
        sl_free(u);
        u = f;
    }
    sl_list_free(terms, NULL);
    sl_list_free(down, NULL);
    sl_list_free(keep, NULL);
    sl__plan(&u->input);
}

static void sl__plan(sl_lp **slot)
{
    sl_lp *n = *slot;
    if (!n)
        return;
    sl__plan(&n->input);
    sl__plan(&n->right);
    if (n->kind == SL_LP_JOIN && n->join_type <= SL_JOIN_CROSS) {
        sl__push_on(n);
        sl__plan(&n->input);
        sl__plan(&n->right);
    } else if (n->kind == SL_LP_FILTER && n->input && n->input->kind == SL_LP_JOIN &&
               n->input->join_type <= SL_JOIN_CROSS) {
        sl__filter_join(slot);
    } else if (n->kind == SL_LP_FILTER && n->input && n->input->kind == SL_LP_UNNEST) {
        sl__filter_unnest(slot);
    }
}

void sl_lp_plan_joins(sl_lp *root)
{
    sl__plan(&root);
}

/* b as a time attribute of one of j's inputs plus a constant interval:
** *col (j's numbering) and *off (ns). */
static bool sl__time_term(const sl_lp *j, const sl_bexpr *b, int *col, int64_t *off)
{
    int k;
    int64_t o;
    if (!sl_bexpr_col_offset(b, &k, &o))
        return false;
    int nl = j->input->ncols;
    const sl_lp_col *c = k < nl ? &j->input->cols[k] : &j->right->cols[k - nl];
    if (c->rowtime != SL_ROWTIME)
        return false;
    *col = k;
    *off = o;
    return true;
}

/* One bound x op y of the condition: into the left-minus-right bounds of
** the pair (*lt, *rt) (-1: not chosen yet). false: not a time bound. */
static bool sl__bound(const sl_lp *j, const sl_bexpr *x, sl_func_id op, const sl_bexpr *y,
                      int *lt, int *rt, int64_t *lo, bool *has_lo, int64_t *hi, bool *has_hi)
{
    int cx, cy;
    int64_t ox, oy;
    int nl = j->input->ncols;
    if (!sl__time_term(j, x, &cx, &ox) || !sl__time_term(j, y, &cy, &oy))
        return false;
    if ((cx < nl) == (cy < nl))
        return false;
    if (cx >= nl) { /* r op l: l flip(op) r */
        int t = cx;
        cx = cy;
        cy = t;
        int64_t u = ox;
        ox = oy;
        oy = u;
        op = op == SL_FN_GE ? SL_FN_LE : op == SL_FN_GT ? SL_FN_LT
             : op == SL_FN_LE ? SL_FN_GE : op == SL_FN_LT ? SL_FN_GT : op;
    }
    cy -= nl;
    if ((*lt >= 0 && (*lt != cx || *rt != cy)))
        return false;
    *lt = cx;
    *rt = cy;
    int64_t d = oy - ox; /* l + ox op r + oy  <=>  l - r op d */
    if (op == SL_FN_GE || op == SL_FN_GT || op == SL_FN_EQ) {
        int64_t v = op == SL_FN_GT ? d + 1 : d;
        if (!*has_lo || v > *lo)
            *lo = v;
        *has_lo = true;
    }
    if (op == SL_FN_LE || op == SL_FN_LT || op == SL_FN_EQ) {
        int64_t v = op == SL_FN_LT ? d - 1 : d;
        if (!*has_hi || v < *hi)
            *hi = v;
        *has_hi = true;
    }
    return true;
}

static void sl__bounds(const sl_lp *j, const sl_bexpr *b, int *lt, int *rt, int64_t *lo,
                       bool *has_lo, int64_t *hi, bool *has_hi)
{
    if (b->kind != SL_BX_CALL)
        return;
    sl_func_id id = b->fn->id;
    if (id == SL_FN_AND && b->nargs == 2) {
        sl__bounds(j, b->args[0], lt, rt, lo, has_lo, hi, has_hi);
        sl__bounds(j, b->args[1], lt, rt, lo, has_lo, hi, has_hi);
    } else if (id == SL_FN_BETWEEN && b->nargs == 3) {
        sl__bound(j, b->args[0], SL_FN_GE, b->args[1], lt, rt, lo, has_lo, hi, has_hi);
        sl__bound(j, b->args[0], SL_FN_LE, b->args[2], lt, rt, lo, has_lo, hi, has_hi);
    } else if ((id == SL_FN_GE || id == SL_FN_GT || id == SL_FN_LE || id == SL_FN_LT ||
                id == SL_FN_EQ) &&
               b->nargs == 2) {
        sl__bound(j, b->args[0], id, b->args[1], lt, rt, lo, has_lo, hi, has_hi);
    }
}

bool sl_lookup_key(const sl_bexpr *t, int nl, int *rcol, const sl_bexpr **lexpr)
{
    if (!t || t->kind != SL_BX_CALL || t->fn->id != SL_FN_EQ || t->nargs != 2)
        return false;
    for (int s = 0; s < 2; s++) {
        const sl_bexpr *r = t->args[s], *l = t->args[1 - s];
        if (r->kind == SL_BX_COLUMN && r->col >= nl && sl_join_side(l, nl) == 0) {
            *rcol = r->col - nl;
            *lexpr = l;
            return true;
        }
    }
    return false;
}

/* Whether the AND of terms (j's numbering) bounds an interval join of j's
** inputs: the pair of time columns and the left-minus-right bounds. */
static bool sl__interval_terms(const sl_lp *j, const sl_list *terms, int *lt, int *rt,
                               int64_t *lo, int64_t *hi)
{
    bool has_lo = false, has_hi = false;
    *lt = *rt = -1;
    *lo = *hi = 0;
    for (int i = 0; i < terms->n; i++)
        sl__bounds(j, terms->items[i], lt, rt, lo, &has_lo, hi, &has_hi);
    return has_lo && has_hi;
}

bool sl_lp_interval_join(sl_lp *j)
{
    j->interval = false;
    if (j->kind != SL_LP_JOIN || j->join_type > SL_JOIN_FULL || j->nexprs < 1 || !j->exprs[0] ||
        j->temporal)
        return false;
    int lt, rt;
    int64_t lo, hi;
    sl_list *terms = sl_list_new();
    sl_bexpr_conjuncts(j->exprs[0], terms);
    bool ok = sl__interval_terms(j, terms, &lt, &rt, &lo, &hi);
    sl_list_free(terms, NULL);
    if (!ok)
        return false;
    j->interval = true;
    j->ltime = lt;
    j->rtime = rt;
    j->lower_ns = lo;
    j->upper_ns = hi;
    return true;
}

/* Whether two window TVFs define the same windows over event time. */
static bool sl__same_windows(const sl_lp *a, const sl_lp *b)
{
    return a->window_fn == b->window_fn && a->window_fn != SL_WIN_SESSION &&
           a->size_ms == b->size_ms && a->slide_ms == b->slide_ms &&
           a->offset_ms == b->offset_ms &&
           a->input->cols[a->time_col].rowtime == SL_ROWTIME &&
           b->input->cols[b->time_col].rowtime == SL_ROWTIME;
}

/* Whether the AND of terms (j's numbering) makes j a window join: *lend,
** *rend its window_end columns. */
static bool sl__window_terms(const sl_lp *j, const sl_list *terms, int *lend, int *rend)
{
    int nl = j->input->ncols;
    const sl_lp *lwin = NULL, *rwin = NULL;
    bool start = false, ok = true;
    *lend = *rend = -1;
    for (int i = 0; i < terms->n && ok; i++) {
        const sl_bexpr *t = terms->items[i];
        if (t->kind != SL_BX_CALL || t->fn->id != SL_FN_EQ || t->nargs != 2 ||
            t->args[0]->kind != SL_BX_COLUMN || t->args[1]->kind != SL_BX_COLUMN)
            continue;
        int a = t->args[0]->col, b = t->args[1]->col;
        if ((a < nl) == (b < nl))
            continue;
        if (a >= nl) {
            int x = a;
            a = b;
            b = x;
        }
        int wa, wb;
        const sl_lp *la = sl_lp_window_col(j->input, a, &wa);
        const sl_lp *rb = sl_lp_window_col(j->right, b - nl, &wb);
        if (!la || !rb || wa != wb || wa == 2)
            continue;
        /* every window column equated must be of one window definition */
        ok = (!lwin || sl__same_windows(lwin, la)) && (!rwin || sl__same_windows(rwin, rb));
        lwin = la;
        rwin = rb;
        if (wa == 0) {
            start = true;
        } else if (*lend < 0) {
            *lend = a;
            *rend = b - nl;
        }
    }
    return ok && start && *lend >= 0 && sl__same_windows(lwin, rwin);
}

bool sl_lp_window_join(sl_lp *j)
{
    j->window_join = false;
    if (j->kind != SL_LP_JOIN || j->join_type > SL_JOIN_FULL || j->nexprs < 1 || !j->exprs[0] ||
        j->temporal)
        return false;
    int lend, rend;
    sl_list *terms = sl_list_new();
    sl_bexpr_conjuncts(j->exprs[0], terms);
    bool ok = sl__window_terms(j, terms, &lend, &rend);
    sl_list_free(terms, NULL);
    if (!ok)
        return false;
    j->window_join = true;
    j->ltime = lend;
    j->rtime = rend;
    return true;
}

/* Moves term t (j's numbering) below j onto side s: into *l, or a copy
** shifted onto the right side's numbering into *r (and *own). */
static void sl__below(sl_bexpr *t, int s, int nl, sl_list *l, sl_list *r, sl_list *own)
{
    if (s == 0) {
        sl_list_push(l, t);
        return;
    }
    sl_bexpr *c = sl_bexpr_dup(t);
    sl_bexpr_shift(c, -nl);
    sl_list_push(r, c);
    sl_list_push(own, c);
}

/* sl_lp_join_times for join j with the extra terms (j's numbering; the
** list taken) of a WHERE that join planning moves into j or below it, as
** sl__push_on and sl__filter_join do. */
static void sl__join_times(sl_lp *j, sl_list *extra)
{
    if (j->kind != SL_LP_JOIN || j->temporal || j->join_type > SL_JOIN_CROSS) {
        sl_list_free(extra, NULL);
        return;
    }
    int type = j->join_type, nl = j->input->ncols;
    bool inner = type == SL_JOIN_INNER || type == SL_JOIN_CROSS;
    sl_list *l = sl_list_new(), *r = sl_list_new(), *cond = sl_list_new(), *own = sl_list_new();
    sl_list *on = sl_list_new();
    if (j->nexprs > 0 && j->exprs[0])
        sl_bexpr_conjuncts(j->exprs[0], on);
    for (int i = 0; i < on->n; i++) { /* sl__push_on */
        sl_bexpr *t = on->items[i];
        int s = sl_join_side(t, nl);
        if ((s == 0 && (inner || type == SL_JOIN_RIGHT)) ||
            (s == 1 && (inner || type == SL_JOIN_LEFT)))
            sl__below(t, s, nl, l, r, own);
        else
            sl_list_push(cond, t);
    }
    for (int i = 0; i < extra->n && type != SL_JOIN_FULL; i++) { /* sl__filter_join */
        sl_bexpr *t = extra->items[i];
        int s = sl_join_side(t, nl);
        if ((s == 0 && type != SL_JOIN_RIGHT) || (s == 1 && type != SL_JOIN_LEFT))
            sl__below(t, s, nl, l, r, own);
        else if (s < 0 && inner && !sl_bexpr_is_constant(t))
            sl_list_push(cond, t);
    }
    if (l->n > 0)
        sl__join_times(j->input, l);
    else
        sl_list_free(l, NULL);
    if (r->n > 0)
        sl__join_times(j->right, r);
    else
        sl_list_free(r, NULL);
    int a, b;
    int64_t lo, hi;
    bool keep = cond->n > 0 && !sl__window_terms(j, cond, &a, &b) &&
                sl__interval_terms(j, cond, &a, &b, &lo, &hi);
    for (int c = 0; c < j->ncols; c++)
        j->cols[c].rowtime = !keep ? 0
                             : c < nl ? j->input->cols[c].rowtime
                                      : j->right->cols[c - nl].rowtime;
    sl_list_free(on, NULL);
    sl_list_free(cond, NULL);
    for (int i = 0; i < own->n; i++)
        sl_bexpr_free(own->items[i]);
    sl_list_free(own, NULL);
    sl_list_free(extra, NULL);
}

void sl_lp_join_times(sl_lp *j, const sl_bexpr *where)
{
    sl_list *extra = sl_list_new();
    if (where)
        sl_bexpr_conjuncts(where, extra);
    sl__join_times(j, extra);
}
