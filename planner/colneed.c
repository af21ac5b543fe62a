/*
** colneed.c — which columns of each table scan a job's plan reads.
**
** A view such as Nexmark's `bid` (every leaf of the event's `bid` ROW)
** hands its consumers columns most queries never look at: long strings
** that the source would build, the exchange copy, a join keep in its state
** and a checkpoint write, only for a projection far above to drop them.
** The plan keeps its shape (EXPLAIN, state layouts and column numbers do
** not change); instead the source is told which of its columns the plan
** reads (sl_source_args.used), and may leave the others NULL. That is the
** effect of Flink's projection push-down without rewriting the plan.
**
** The analysis walks the plan from its root with the set of the node's
** output columns read above it, and gives each input the columns that node
** reads: those its expressions, keys and time attributes name, and the
** ones it passes on that are read above. A node it does not know in detail
** reads every column of its inputs (so does ROW_NUMBER: a keep-first
** deduplication compares whole rows to report conflicts), so a column is left out only
** when no operator can see its value; a row that differs only there is
** then a row whose difference nobody sees (rows compared whole, as a
** retraction is matched, hold the same NULL on both sides).
**
** Main routine: sl_lp_scan_needs.
*/
#include "planner_int.h"

#include <string.h>

void sl_bexpr_mark_cols(const sl_bexpr *x, bool *need, int n)
{
    if (!x)
        return;
    if (x->kind == SL_BX_COLUMN && x->col >= 0 && x->col < n)
        need[x->col] = true;
    for (int i = 0; i < x->nargs; i++)
        sl_bexpr_mark_cols(x->args[i], need, n);
}

static void sl__need(const sl_lp *n, const bool *out, sl_list *scans);

/* Recurse into input in with need[] (owned here). */
static void sl__need_in(const sl_lp *in, bool *need, sl_list *scans)
{
    sl__need(in, need, scans);
    sl_free(need);
}

static bool *sl__all(const sl_lp *in)
{
    bool *b = sl_calloc((size_t)in->ncols + 1, sizeof(bool));
    memset(b, 1, (size_t)in->ncols * sizeof(bool));
    return b;
}

static void sl__need(const sl_lp *n, const bool *out, sl_list *scans)
{
    if (!n)
        return;
    const sl_lp *in = n->input;
    int nin = in ? in->ncols : 0;
    bool *need = in ? sl_calloc((size_t)nin + 1, sizeof(bool)) : NULL;
    switch (n->kind) {
    case SL_LP_SCAN: {
        sl_lp_scan_need *s = sl_calloc(1, sizeof *s);
        s->scan = n;
        s->used = sl_calloc((size_t)n->ncols + 1, sizeof(bool));
        memcpy(s->used, out, (size_t)n->ncols * sizeof(bool));
        sl_bexpr_mark_cols(n->watermark, s->used, n->ncols);
        if (n->wm_col >= 0 && n->wm_col < n->ncols)
            s->used[n->wm_col] = true;
        sl_list_push(scans, s);
        return;
    }
    case SL_LP_PROJECT:
        for (int i = 0; i < n->nexprs && i < n->ncols; i++)
            if (out[i])
                sl_bexpr_mark_cols(n->exprs[i], need, nin);
        break;
    case SL_LP_FILTER:
        memcpy(need, out, (size_t)nin * sizeof(bool));
        sl_bexpr_mark_cols(n->nexprs ? n->exprs[0] : NULL, need, nin);
        break;
    case SL_LP_SINK:
        for (int i = 0; n->sink_map && i < n->ncols; i++)
            if (n->sink_map[i] >= 0 && n->sink_map[i] < nin)
                need[n->sink_map[i]] = true;
        break;
    case SL_LP_WINDOW: /* input + window_start, window_end, window_time */
        memcpy(need, out, (size_t)nin * sizeof(bool));
        if (n->time_col >= 0 && n->time_col < nin)
            need[n->time_col] = true;
        for (int k = 0; k < n->nkeys; k++) /* SESSION's partition keys */
            if (n->keys[k] >= 0 && n->keys[k] < nin)
                need[n->keys[k]] = true;
        break;
    case SL_LP_AGGREGATE: /* every key and argument, read or not */
        for (int k = 0; k < n->nkeys; k++)
            if (n->keys[k] >= 0 && n->keys[k] < nin)
                need[n->keys[k]] = true;
        for (int a = 0; a < n->naggs; a++) {
            if (n->aggs[a].arg >= 0 && n->aggs[a].arg < nin)
                need[n->aggs[a].arg] = true;
            if (n->aggs[a].filter >= 0 && n->aggs[a].filter < nin)
                need[n->aggs[a].filter] = true;
        }
        break;
    case SL_LP_UNION:
        memcpy(need, out, (size_t)nin * sizeof(bool));
        sl__need(n->right, out, scans);
        break;
    case SL_LP_JOIN: {
        const sl_lp *r = n->right;
        int nr = r ? r->ncols : 0;
        bool *rneed = r ? sl_calloc((size_t)nr + 1, sizeof(bool)) : NULL;
        if (!r || n->temporal || n->lookup || n->ncols != nin + nr) {
            /* a lookup or temporal join, SEMI / ANTI: all of both */
            memset(need, 1, (size_t)nin * sizeof(bool));
            if (r)
                memset(rneed, 1, (size_t)nr * sizeof(bool));
        } else {
            bool *both = sl_calloc((size_t)(nin + nr) + 1, sizeof(bool));
            memcpy(both, out, (size_t)(nin + nr) * sizeof(bool));
            sl_bexpr_mark_cols(n->nexprs ? n->exprs[0] : NULL, both, nin + nr);
            memcpy(need, both, (size_t)nin * sizeof(bool));
            memcpy(rneed, both + nin, (size_t)nr * sizeof(bool));
            sl_free(both);
            if (n->interval || n->window_join) {
                if (n->ltime >= 0 && n->ltime < nin)
                    need[n->ltime] = true;
                if (n->rtime >= 0 && n->rtime < nr)
                    rneed[n->rtime] = true;
            }
        }
        if (r)
            sl__need_in(r, rneed, scans);
        break;
    }
    default: /* read every column of every input */
        if (in)
            memset(need, 1, (size_t)nin * sizeof(bool));
        if (n->right) {
            bool *all = sl__all(n->right);
            sl__need_in(n->right, all, scans);
        }
        break;
    }
    if (in)
        sl__need_in(in, need, scans);
}

void sl_lp_scan_needs(const sl_lp *root, sl_list *scans)
{
    bool *all = sl__all(root);
    sl__need(root, all, scans);
    sl_free(all);
}

const bool *sl_lp_scan_used(const sl_list *scans, const sl_lp *scan)
{
    for (int i = 0; scans && i < scans->n; i++) {
        const sl_lp_scan_need *s = scans->items[i];
        if (s->scan == scan)
            return s->used;
    }
    return NULL;
}

void sl_lp_scan_need_free(void *s)
{
    if (!s)
        return;
    sl_free(((sl_lp_scan_need *)s)->used);
    sl_free(s);
}
