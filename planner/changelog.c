/*
** changelog.c — changelog analysis of a logical plan: which kinds of rows
** (+I, -U, +U, -D) every operator emits, as Flink's changelog modes.
**
**   Scan, Values, Window TVF, window aggregation,
**   window Top-N / deduplication (ROW_NUMBER partitioned by
**   window_start, window_end)                          [I]  (final results)
**   Join of append-only inputs: inner, or an interval or window join
**   (outer too)                                        [I]
**   Scan of an upsert source (upsert-kafka)            [UA,D], then
**   ChangelogNormalize by its PRIMARY KEY              [I,UB,UA,D]
**   GROUP BY without a window                          [I,UB,UA] (or all on an updating input)
**   Deduplicate keep first row (rn = 1, ORDER BY rowtime ASC)   [I]
**     (each key's earliest row goes out once, when the watermark reaches
**     it, as Flink 2.1+ without mini-batch: exec/op_dedup.c)
**   Deduplicate keep last row (rn = 1, ORDER BY rowtime DESC)   [I,UB,UA]
**     (Flink 2.2's EXPLAIN says [I,UA,D] for a SELECT: it leaves -U out
**     when no consumer needs it, and declares deletes its operator never
**     emits; the rows are the same)
**   Top-N (rn <= N, rn BETWEEN M AND N, or rn = 1 on another order),
**   outer joins, ORDER BY not on event time             [I,UB,UA,D]
**     (a Top-N whose rank is not used above emits only +I/-D, as Flink's
**     AppendOnlyTopNFunction without the rank number; Flink's EXPLAIN says
**     [I,UA,D] for all of them)
**   Filter, Project, Limit on an append-only input, Union, Sink  as their inputs
**
** It also recognizes the patterns the runtime implements specially: an
** Aggregate grouping by window_start and window_end of one window TVF is a
** window aggregation; an OverAggregate (ROW_NUMBER) filtered above by
** rn = 1 / rn <= N / rn BETWEEN M AND N is a deduplication or Top-N (its
** rank range), whose rank number is output only when something above reads
** it besides that filter (Flink's outputRankNumber). Errors: a ROW_NUMBER with
** no such filter; a window TVF over an updating input; an updating stream
** into a sink that only appends (naming the operator that made it updating).
**
** Main routines: sl_lp_analyze, sl_changelog_name.
*/
#include "planner_int.h"

#include <stdlib.h>
#include <string.h>

const char *sl_changelog_name(int cl)
{
    switch (cl) {
    case SL_CL_INSERT: return "[I]";
    case SL_CL_INSERT | SL_CL_UPDATE_BEFORE | SL_CL_UPDATE_AFTER: return "[I,UB,UA]";
    case SL_CL_INSERT | SL_CL_UPDATE_AFTER: return "[I,UA]";
    case SL_CL_INSERT | SL_CL_UPDATE_AFTER | SL_CL_DELETE: return "[I,UA,D]";
    case SL_CL_ALL: return "[I,UB,UA,D]";
    case SL_CL_INSERT | SL_CL_DELETE: return "[I,D]";
    case SL_CL_UPDATE_AFTER | SL_CL_DELETE: return "[UA,D]";
    default: return "[?]";
    }
}

void sl_lp_origin(const sl_lp *lp, int col, const sl_lp **node, int *ncol)
{
    for (;;) {
        *node = lp;
        *ncol = col;
        switch (lp->kind) {
        case SL_LP_PROJECT:
            if (col >= lp->nexprs || lp->exprs[col]->kind != SL_BX_COLUMN)
                return;
            col = lp->exprs[col]->col;
            lp = lp->input;
            break;
        case SL_LP_FILTER:
        case SL_LP_SORT:
        case SL_LP_LIMIT:
        case SL_LP_NORMALIZE:
            lp = lp->input;
            break;
        case SL_LP_WINDOW:
        case SL_LP_OVER:
        case SL_LP_OVER_AGG:
        case SL_LP_UNNEST:
            if (col >= lp->input->ncols)
                return; /* a column the operator adds */
            lp = lp->input;
            break;
        case SL_LP_AGGREGATE:
            if (col >= lp->nkeys)
                return;
            col = lp->keys[col];
            lp = lp->input;
            break;
        case SL_LP_JOIN:
            if (col < lp->input->ncols) {
                lp = lp->input;
            } else {
                col -= lp->input->ncols;
                lp = lp->right;
            }
            break;
        default:
            return;
        }
    }
}

/* The integer value of a literal, if b is one. */
static bool sl__int_literal(const sl_bexpr *b, int64_t *v)
{
    if (b->kind != SL_BX_LITERAL || !b->text || !sl_type_is_integer(b->type.id))
        return false;
    char *end = NULL;
    long long x = strtoll(b->text, &end, 10);
    if (*end)
        return false;
    *v = x;
    return true;
}

/* If cond bounds the row number of an OverAggregate below filter f (rn = 3,
** rn <= N, rn < N, rn >= M, rn > M, N >= rn, rn BETWEEN M AND N; integer
** literals), that node and the bounds (*lo = 0 / *hi = 0: none). */
static const sl_lp *sl__rank_cond(const sl_lp *f, const sl_bexpr *cond, int64_t *lo, int64_t *hi)
{
    *lo = *hi = 0;
    if (cond->kind != SL_BX_CALL)
        return NULL;
    sl_func_id id = cond->fn->id;
    const sl_bexpr *col = cond->args[0];
    int64_t n, m;
    if (id == SL_FN_BETWEEN && cond->nargs == 3) {
        if (col->kind != SL_BX_COLUMN || !sl__int_literal(cond->args[1], &n) ||
            !sl__int_literal(cond->args[2], &m))
            return NULL;
        *lo = n;
        *hi = m;
    } else {
        if (cond->nargs != 2)
            return NULL;
        const sl_bexpr *lit = cond->args[1];
        bool flipped = false;
        if (col->kind != SL_BX_COLUMN) {
            col = cond->args[1];
            lit = cond->args[0];
            flipped = true;
        }
        if (col->kind != SL_BX_COLUMN || !sl__int_literal(lit, &n))
            return NULL;
        /* Normalize to "rn <op> n". */
        if (flipped)
            id = id == SL_FN_LE ? SL_FN_GE : id == SL_FN_LT ? SL_FN_GT : id == SL_FN_GE ? SL_FN_LE
               : id == SL_FN_GT ? SL_FN_LT : id;
        switch (id) {
        case SL_FN_EQ: *lo = *hi = n; break;
        case SL_FN_LE: *hi = n; break;
        case SL_FN_LT: *hi = n - 1; break;
        case SL_FN_GE: *lo = n; break;
        case SL_FN_GT: *lo = n + 1; break;
        default: return NULL;
        }
    }
    if (*lo < 0 || *hi < 0 || *lo >= INT32_MAX || *hi >= INT32_MAX || (*lo == 0 && *hi == 0))
        return NULL; /* rn <= 0 and the like: left to the filter */
    const sl_lp *node;
    int ncol;
    sl_lp_origin(f->input, col->col, &node, &ncol);
    if (node->kind != SL_LP_OVER || ncol != node->ncols - 1)
        return NULL;
    return node;
}

/* If cond (or one of its AND-ed terms) bounds the row number of an
** OverAggregate below filter f, narrow that node's rank range. */
static void sl__mark_rank(const sl_lp *f, const sl_bexpr *cond)
{
    if (cond->kind == SL_BX_CALL && cond->fn->id == SL_FN_AND) {
        for (int i = 0; i < cond->nargs; i++)
            sl__mark_rank(f, cond->args[i]);
        return;
    }
    int64_t lo, hi;
    sl_lp *node = (sl_lp *)sl__rank_cond(f, cond, &lo, &hi);
    if (!node)
        return;
    if (hi >= 1 && (node->rank_limit == 0 || hi < node->rank_limit))
        node->rank_limit = hi;
    if (lo > node->rank_start)
        node->rank_start = lo;
}

static void sl__mark_ranks(sl_lp *lp)
{
    if (!lp)
        return;
    if (lp->kind == SL_LP_FILTER)
        sl__mark_rank(lp, lp->exprs[0]);
    sl__mark_ranks(lp->input);
    sl__mark_ranks(lp->right);
}

/* Set need[c] for every column b reads. */
/* The columns of a filter's condition other than its rank bounds. */
static void sl__filter_cols(const sl_lp *f, const sl_bexpr *cond, bool *need, int n)
{
    int64_t lo, hi;
    if (cond->kind == SL_BX_CALL && cond->fn->id == SL_FN_AND) {
        for (int i = 0; i < cond->nargs; i++)
            sl__filter_cols(f, cond->args[i], need, n);
    } else if (!sl__rank_cond(f, cond, &lo, &hi)) {
        sl_bexpr_mark_cols(cond, need, n);
    }
}

/* Which OverAggregates' row numbers are used above them (Flink's
** outputRankNumber): need[c] says whether lp's column c is read above
** (NULL: all are). Projections and filters pass on what they read (a
** filter not its rank bounds); any other operator reads all its input. */
static void sl__mark_rank_use(sl_lp *lp, const bool *need)
{
    if (!lp)
        return;
    if (lp->kind == SL_LP_OVER)
        lp->rank_number = !need || need[lp->ncols - 1];
    bool *in = NULL;
    if ((lp->kind == SL_LP_PROJECT || lp->kind == SL_LP_FILTER) && lp->input) {
        int n = lp->input->ncols;
        in = sl_calloc((size_t)n + 1, sizeof(bool));
        if (lp->kind == SL_LP_PROJECT) {
            for (int c = 0; c < lp->nexprs; c++)
                if (!need || need[c])
                    sl_bexpr_mark_cols(lp->exprs[c], in, n);
        } else {
            for (int c = 0; c < n; c++)
                in[c] = !need || need[c];
            sl__filter_cols(lp, lp->exprs[0], in, n);
        }
    }
    sl__mark_rank_use(lp->input, in);
    sl__mark_rank_use(lp->right, NULL);
    sl_free(in);
}

int sl_lp_dedup_kind(const sl_lp *over)
{
    if (over->rank_limit != 1 || over->rank_start > 1 || over->norder != 1)
        return 0;
    if (!over->input->cols[over->order[0].col].rowtime)
        return 0;
    return over->order[0].desc ? 2 : 1;
}

/* Whether Flink ranks Top-N node over (over an updating input) with its
** UpdateFastStrategy: every ORDER BY column is an aggregate of a GROUP BY
** over an append-only input that only grows (COUNT, MAX) ordered DESC, or
** only shrinks (MIN) ordered ASC. */
static bool sl__update_fast(const sl_lp *over)
{
    for (int k = 0; k < over->norder; k++) {
        const sl_lp *node;
        int ncol;
        sl_lp_origin(over->input, over->order[k].col, &node, &ncol);
        if (node->kind != SL_LP_AGGREGATE || ncol < node->nkeys ||
            node->input->changelog != SL_CL_INSERT)
            return false;
        sl_func_id fn = node->aggs[ncol - node->nkeys].fn->id;
        bool grows = fn == SL_FN_COUNT || fn == SL_FN_MAX, shrinks = fn == SL_FN_MIN;
        if (over->order[k].desc ? !grows : !shrinks)
            return false;
    }
    return true;
}

const sl_lp *sl_lp_window_col(const sl_lp *lp, int col, int *which)
{
    for (;;) {
        switch (lp->kind) {
        case SL_LP_WINDOW:
            if (col < lp->input->ncols)
                return NULL; /* the input's columns are no window columns of this TVF */
            *which = col - lp->input->ncols;
            return lp;
        case SL_LP_PROJECT:
            if (col >= lp->nexprs || lp->exprs[col]->kind != SL_BX_COLUMN)
                return NULL; /* any operation on a window column loses it (Flink) */
            col = lp->exprs[col]->col;
            lp = lp->input;
            break;
        case SL_LP_FILTER:
        case SL_LP_SORT:
        case SL_LP_LIMIT:
            lp = lp->input;
            break;
        case SL_LP_UNNEST: /* the input row's columns, copied */
            if (col >= lp->input->ncols)
                return NULL;
            lp = lp->input;
            break;
        case SL_LP_OVER: /* window Top-N / deduplication */
            if (!lp->window_agg || col >= lp->input->ncols)
                return NULL;
            lp = lp->input;
            break;
        case SL_LP_AGGREGATE: /* window aggregation: its window keys */
            if (!lp->window_agg || col >= lp->nkeys)
                return NULL;
            col = lp->keys[col];
            lp = lp->input;
            break;
        case SL_LP_JOIN: /* a window join's preserved sides (an outer join's
                            null-padded side's are no window columns) */
            if (!lp->window_join)
                return NULL;
            if (col < lp->input->ncols) {
                if (lp->join_type == SL_JOIN_RIGHT || lp->join_type == SL_JOIN_FULL)
                    return NULL;
                lp = lp->input;
            } else {
                if (lp->join_type == SL_JOIN_LEFT || lp->join_type == SL_JOIN_FULL)
                    return NULL;
                col -= lp->input->ncols;
                lp = lp->right;
            }
            break;
        default:
            return NULL;
        }
    }
}

const sl_lp *sl_lp_agg_window(const sl_lp *agg, int keys[3])
{
    const sl_lp *start_of = NULL, *end_of = NULL;
    keys[0] = keys[1] = keys[2] = -1;
    for (int k = 0; k < agg->nkeys; k++) {
        int which;
        const sl_lp *node = sl_lp_window_col(agg->input, agg->keys[k], &which);
        if (!node)
            continue;
        if (which == 0) {
            start_of = node;
            keys[0] = k;
        } else if (which == 1) {
            end_of = node;
            keys[1] = k;
        } else {
            keys[2] = k;
        }
    }
    return start_of && start_of == end_of ? start_of : NULL;
}

/* Does this Aggregate group (this OverAggregate partition) by window_start
** and window_end of one window TVF? */
static bool sl__is_window_agg(const sl_lp *agg)
{
    int keys[3];
    return sl_lp_agg_window(agg, keys) != NULL;
}

/* A window aggregation over SESSION whose other keys are the SESSION's
** partition columns merges the sessions itself (the operator keeps them
** per those keys); with other keys it is, as in Flink, a group aggregation
** (updating) over the SESSION TVF's rows. */
static void sl__check_session_agg(sl_lp *agg)
{
    int wk[3];
    sl_lp *win = (sl_lp *)sl_lp_agg_window(agg, wk);
    if (!win || win->window_fn != SL_WIN_SESSION)
        return;
    int matched = 0;
    bool ok = true;
    for (int k = 0; k < agg->nkeys && ok; k++) {
        if (k == wk[0] || k == wk[1] || k == wk[2])
            continue;
        const sl_lp *node;
        int ncol;
        sl_lp_origin(agg->input, agg->keys[k], &node, &ncol);
        ok = false;
        if (node == win->input || (node == win && ncol < win->input->ncols)) {
            for (int i = 0; i < win->nkeys && !ok; i++)
                ok = win->keys[i] == ncol;
        } else {
            /* a plain column of the window's input seen through its input */
            const sl_lp *n2;
            int c2;
            for (int i = 0; i < win->nkeys && !ok; i++) {
                sl_lp_origin(win->input, win->keys[i], &n2, &c2);
                ok = n2 == node && c2 == ncol;
            }
        }
        matched += ok;
    }
    if (ok && matched == win->nkeys)
        win->merged = true;
    else
        agg->window_agg = false;
}

/* A window aggregation over HOP slices it, as Flink does: each row goes
** into its slice of the slide once, and a window merges its slices when it
** fires, instead of size / slide copies of the row, one per window. For
** calls whose accumulators merge (COUNT, SUM, AVG, MIN, MAX without
** DISTINCT), without window_time among the keys, and when between the TVF
** and the aggregation the window columns are only passed on (projected as
** they are, read by no filter or expression) into window_start and
** window_end of its keys, since there they would hold the slice's bounds. */
static void sl__check_hop_slices(sl_lp *agg)
{
    int wk[3];
    sl_lp *win = (sl_lp *)sl_lp_agg_window(agg, wk);
    if (!win || win->window_fn != SL_WIN_HOP || wk[2] >= 0 || win->slide_ms <= 0 ||
        win->size_ms <= win->slide_ms)
        return;
    for (int c = 0; c < agg->naggs; c++) {
        int id = agg->aggs[c].fn->id;
        if (agg->aggs[c].distinct || (id != SL_FN_COUNT && id != SL_FN_SUM && id != SL_FN_AVG &&
                                      id != SL_FN_MIN && id != SL_FN_MAX))
            return;
    }
    /* the nodes between, bottom up: which of their columns hold window columns */
    const sl_lp *path[64];
    int depth = 0;
    for (const sl_lp *n = agg->input; n != win; n = n->input) {
        if (depth == 64 || (n->kind != SL_LP_PROJECT && n->kind != SL_LP_FILTER))
            return;
        path[depth++] = n;
    }
    bool *wcol = sl_calloc((size_t)win->ncols + 1, sizeof(bool));
    for (int c = win->input->ncols; c < win->ncols; c++)
        wcol[c] = true;
    int ncols = win->ncols;
    bool ok = true;
    for (int d = depth - 1; d >= 0 && ok; d--) {
        const sl_lp *n = path[d];
        bool *used = sl_calloc((size_t)ncols + 1, sizeof(bool));
        if (n->kind == SL_LP_FILTER) {
            sl_bexpr_mark_cols(n->exprs[0], used, ncols);
            for (int c = 0; c < ncols; c++)
                ok = ok && !(used[c] && wcol[c]);
            sl_free(used);
            continue;
        }
        bool *next = sl_calloc((size_t)n->nexprs + 1, sizeof(bool));
        for (int e = 0; e < n->nexprs && ok; e++) {
            const sl_bexpr *x = n->exprs[e];
            if (x->kind == SL_BX_COLUMN && x->col >= 0 && x->col < ncols) {
                next[e] = wcol[x->col];
                continue;
            }
            sl_bexpr_mark_cols(x, used, ncols);
            for (int c = 0; c < ncols; c++)
                ok = ok && !(used[c] && wcol[c]);
        }
        sl_free(used);
        sl_free(wcol);
        wcol = next;
        ncols = n->nexprs;
    }
    for (int k = 0; k < agg->nkeys && ok; k++)
        ok = !wcol[agg->keys[k]] || k == wk[0] || k == wk[1];
    for (int c = 0; c < agg->naggs && ok; c++)
        ok = (agg->aggs[c].arg < 0 || !wcol[agg->aggs[c].arg]) &&
             (agg->aggs[c].filter < 0 || !wcol[agg->aggs[c].filter]);
    sl_free(wcol);
    if (ok)
        win->sliced = agg->sliced = true;
}

/* Error: what (an operator of lp) cannot consume the updates in_cause makes. */
static int sl__needs_append_only(const sl_lp *lp, const char *what, const sl_lp *in_cause,
                                 sl_error *err)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_lp_describe(&sb, in_cause);
    sl_error_set(err, SL_ERR_NOT_SUPPORTED, lp->pos, "%s needs an append-only input", what);
    sl_error_detail(err, "Its input is updated by %s.", sl_strbuf_cstr(&sb));
    sl_strbuf_free(&sb);
    return -1;
}

/* What would make the operator that causes updates append-only. */
static const char *sl__append_only_advice(const sl_lp *cause)
{
    switch (cause ? cause->kind : SL_LP_SCAN) {
    case SL_LP_AGGREGATE:
        return "Aggregate per window (GROUP BY window_start, window_end of TUMBLE, HOP or "
               "CUMULATE) to get final, append-only results";
    case SL_LP_JOIN: return "Use an inner join of append-only inputs";
    case SL_LP_OVER:
        return "Deduplicate keeping the first row (ROW_NUMBER() OVER (... ORDER BY the event "
               "time ASC) = 1)";
    case SL_LP_SORT: return "Order by the event-time column ascending, or run in batch mode";
    case SL_LP_NORMALIZE: return "Read an append-only table (an upsert source's rows change)";
    default: return "Make the query append-only";
    }
}

static int sl__analyze(sl_lp *lp, bool batch, sl_error *err)
{
    if (lp->input && sl__analyze(lp->input, batch, err) != 0)
        return -1;
    if (lp->right && sl__analyze(lp->right, batch, err) != 0)
        return -1;
    int in = lp->input ? lp->input->changelog : SL_CL_INSERT;
    const sl_lp *in_cause = lp->input ? lp->input->cause : NULL;
    switch (lp->kind) {
    case SL_LP_SCAN: /* an upsert source (upsert-kafka) says each key's row now, or its deletion */
        lp->changelog = lp->connector && lp->connector->caps.source_upserts
                            ? SL_CL_UPDATE_AFTER | SL_CL_DELETE
                            : SL_CL_INSERT;
        break;
    case SL_LP_VALUES:
        lp->changelog = SL_CL_INSERT;
        break;
    case SL_LP_NORMALIZE:
        lp->changelog = SL_CL_ALL;
        lp->cause = lp;
        break;
    case SL_LP_WINDOW:
        if (in != SL_CL_INSERT)
            return sl__needs_append_only(lp, "a window table function", in_cause, err);
        lp->changelog = SL_CL_INSERT;
        break;
    case SL_LP_AGGREGATE:
        lp->window_agg = in == SL_CL_INSERT && sl__is_window_agg(lp);
        if (lp->window_agg)
            sl__check_session_agg(lp);
        if (lp->window_agg)
            sl__check_hop_slices(lp);
        if (lp->window_agg) {
            lp->changelog = SL_CL_INSERT;
        } else {
            lp->changelog = in == SL_CL_INSERT ? SL_CL_INSERT | SL_CL_UPDATE_BEFORE | SL_CL_UPDATE_AFTER
                                               : SL_CL_ALL;
            lp->cause = in_cause ? in_cause : lp;
        }
        break;
    case SL_LP_JOIN: {
        int r = lp->right->changelog;
        bool outer = lp->join_type != SL_JOIN_INNER && lp->join_type != SL_JOIN_CROSS;
        /* an interval join of append-only inputs appends, outer or not */
        if (lp->lookup) { /* each row looks its keys up: its kind passes through */
            lp->changelog = in;
            lp->cause = in_cause;
            break;
        }
        if (lp->temporal) { /* the versioned side may be updating */
            if (in != SL_CL_INSERT)
                return sl__needs_append_only(lp, "a temporal join", in_cause, err);
            lp->changelog = SL_CL_INSERT;
            break;
        }
        /* a window join (Flink's WindowJoin) appends at each window's end, outer or not */
        lp->window_join = lp->interval = false;
        bool window = in == SL_CL_INSERT && r == SL_CL_INSERT && sl_lp_window_join(lp);
        bool interval = !window && in == SL_CL_INSERT && r == SL_CL_INSERT &&
                        sl_lp_interval_join(lp);
        /* the binder kept time attributes for an interval join
        ** (sl_lp_join_times): it must be one here, unless an input
        ** updates (then every event-time operator above refuses it) */
        for (int c = 0; !interval && in == SL_CL_INSERT && r == SL_CL_INSERT && c < lp->ncols;
             c++)
            if (lp->cols[c].rowtime)
                return sl_error_set(err, SL_ERR_INTERNAL, lp->pos,
                                    "join keeps the time attribute \"%s\" but is not an "
                                    "interval join", lp->cols[c].name);
        if (in == SL_CL_INSERT && r == SL_CL_INSERT && (!outer || interval || window)) {
            lp->changelog = SL_CL_INSERT;
        } else {
            lp->changelog = SL_CL_ALL;
            lp->cause = in_cause ? in_cause : lp->right->cause ? lp->right->cause : lp;
        }
        break;
    }
    case SL_LP_UNION:
        lp->changelog = in | lp->right->changelog;
        lp->cause = in_cause ? in_cause : lp->right->cause;
        break;
    case SL_LP_OVER:
        if (lp->rank_limit == 0 && lp->rank_start > 0) {
            sl_error_set(err, SL_ERR_NOT_SUPPORTED, lp->pos,
                         "a Top-N needs an upper bound on the row number");
            sl_error_hint(err, "Add rn <= N (Flink: the rank end must be specified).");
            return -1;
        }
        if (lp->rank_limit == 0) {
            sl_error_set(err, SL_ERR_NOT_SUPPORTED, lp->pos,
                         "ROW_NUMBER() must be filtered by its value in the enclosing query");
            sl_error_hint(err, "Use WHERE rn = 1 to deduplicate, or WHERE rn <= N for the "
                               "top N rows per partition.");
            return -1;
        }
        /* Partitioned by a window's start and end: window Top-N (final rows) */
        lp->window_agg = in == SL_CL_INSERT && sl__is_window_agg(lp);
        if (in != SL_CL_INSERT && sl_lp_dedup_kind(lp))
            return sl__needs_append_only(lp, "ROW_NUMBER()", in_cause, err);
        if (in != SL_CL_INSERT && sl__update_fast(lp)) {
            sl_strbuf sb = SL_STRBUF_INIT;
            sl_lp_describe(&sb, in_cause);
            sl_error_set(err, SL_ERR_NOT_SUPPORTED, lp->pos,
                         "Top-N ordered by an aggregate that only grows or only shrinks is not "
                         "supported yet");
            sl_error_detail(err, "Its input is updated by %s; Flink ranks it with its "
                                 "UpdateFastStrategy.", sl_strbuf_cstr(&sb));
            sl_strbuf_free(&sb);
            return -1;
        }
        if (lp->window_agg) {
            lp->changelog = SL_CL_INSERT;
            break;
        }
        if (in != SL_CL_INSERT) { /* Flink's RetractStrategy */
            lp->changelog = SL_CL_ALL;
            lp->cause = in_cause;
            break;
        }
        switch (sl_lp_dedup_kind(lp)) {
        case 1: lp->changelog = SL_CL_INSERT; break;
        case 2:
            lp->changelog = SL_CL_INSERT | SL_CL_UPDATE_BEFORE | SL_CL_UPDATE_AFTER;
            lp->cause = lp;
            break;
        default:
            lp->changelog = SL_CL_ALL;
            lp->cause = lp;
            break;
        }
        break;
    case SL_LP_OVER_AGG: /* Flink's OverAggregate: append-only in and out */
        if (in != SL_CL_INSERT)
            return sl__needs_append_only(lp, "an OVER aggregation", in_cause, err);
        lp->changelog = SL_CL_INSERT;
        break;
    case SL_LP_SORT:
        /* Ordering a stream by event time needs no retraction; any other
        ** order can only be kept by updating rows already emitted. In batch
        ** mode the sort emits the final rows at the end (op_order.c). */
        if (batch) {
            lp->changelog = SL_CL_INSERT;
        } else if (in == SL_CL_INSERT && lp->norder > 0 && !lp->order[0].desc &&
            lp->input->cols[lp->order[0].col].rowtime) {
            lp->changelog = SL_CL_INSERT;
        } else {
            lp->changelog = SL_CL_ALL;
            lp->cause = in_cause ? in_cause : lp;
        }
        break;
    case SL_LP_APPLY:
        return sl_error_set(err, SL_ERR_NOT_SUPPORTED, lp->pos,
                            "ARRAY(subquery) is supported only in queries over the catalog "
                            "relations");
    case SL_LP_FUNCTION:
        return sl_error_set(err, SL_ERR_NOT_SUPPORTED, lp->pos,
                            "function %s in FROM is supported only in queries over the catalog "
                            "relations", lp->table);
    case SL_LP_SINK:
        lp->changelog = in;
        lp->cause = in_cause;
        if (in != SL_CL_INSERT && !(lp->connector && lp->connector->caps.sink_updates)) {
            sl_strbuf sb = SL_STRBUF_INIT;
            sl_lp_describe(&sb, in_cause);
            sl_error_set(err, SL_ERR_NOT_SUPPORTED, lp->pos,
                         "table \"%s\" cannot take the updates this query produces", lp->table);
            sl_error_detail(err,
                            "%s makes the result an updating stream %s; connector '%s' only "
                            "appends rows.",
                            sl_strbuf_cstr(&sb), sl_changelog_name(in),
                            lp->connector ? lp->connector->name : "?");
            sl_error_hint(err,
                          "%s, or write to a table with a PRIMARY KEY whose connector can "
                          "upsert (SHOW CONNECTORS: updates = yes).",
                          sl__append_only_advice(in_cause));
            sl_strbuf_free(&sb);
            return -1;
        }
        break;
    case SL_LP_LIMIT: /* batch mode: the final rows, at the end (op_order.c) */
        lp->changelog = batch ? SL_CL_INSERT : in;
        lp->cause = batch ? NULL : in_cause;
        break;
    default: /* FILTER, PROJECT pass their input's kinds on */
        lp->changelog = in;
        lp->cause = in_cause;
        break;
    }
    return 0;
}

/* Whether the PRIMARY KEY of sink is exactly the group key of agg, which
** lies below it through projections only: each key column of the table
** takes one of agg's key columns, and every one of them is taken. */
static bool sl__pk_is_group_key(const sl_lp *sink, const sl_lp *agg)
{
    if (sink->nkeys != agg->nkeys || agg->nkeys == 0 || agg->nkeys > 64)
        return false;
    uint64_t seen = 0;
    for (int k = 0; k < sink->nkeys; k++) {
        int col = sink->sink_map ? sink->sink_map[sink->keys[k]] : -1;
        const sl_lp *lp = sink->input;
        for (; col >= 0 && lp != agg; lp = lp->input)
            col = col < lp->nexprs && lp->exprs[col]->kind == SL_BX_COLUMN ? lp->exprs[col]->col
                                                                         : -1;
        if (col < 0 || col >= agg->nkeys || (seen >> col & 1))
            return false;
        seen |= UINT64_C(1) << col;
    }
    return true;
}

/* Flink leaves -U out where no consumer needs it (its changelog mode
** inference, ONLY_UPDATE_AFTER): a sink that discards its rows, or an
** upsert sink whose PRIMARY KEY is the group key of the aggregation whose
** rows it takes through projections (a filter between them could drop a
** +U whose -U would have deleted the row). Then an update is its +U alone,
** and the aggregation need not keep the old results for it. */
static void sl__drop_update_before(sl_lp *sink)
{
    if (sink->kind != SL_LP_SINK || !sink->connector)
        return;
    const sl_connector_caps *caps = &sink->connector->caps;
    sl_lp *agg = sink->input;
    /* a sink that discards its rows observes nothing a filter changes */
    while (agg->kind == SL_LP_PROJECT || (agg->kind == SL_LP_FILTER && caps->sink_discards))
        agg = agg->input;
    /* ... and the same of a keep-last deduplication (Flink's
    ** RowTimeDeduplicateFunction without generateUpdateBefore) or a Top-N */
    if (agg->kind == SL_LP_OVER && !agg->window_agg && caps->sink_discards &&
        ((sl_lp_dedup_kind(agg) == 2 && agg->input->changelog == SL_CL_INSERT) ||
         (!sl_lp_dedup_kind(agg) && agg->rank_limit > 0))) {
        agg->no_before = true;
        for (sl_lp *lp = sink; lp != agg->input; lp = lp->input)
            lp->changelog &= ~SL_CL_UPDATE_BEFORE;
        return;
    }
    if (agg->kind != SL_LP_AGGREGATE || agg->window_agg ||
        !(agg->changelog & SL_CL_UPDATE_BEFORE))
        return;
    if (!caps->sink_discards && !(caps->sink_upserts && sl__pk_is_group_key(sink, agg)))
        return;
    agg->no_before = true;
    for (sl_lp *lp = sink; lp != agg->input; lp = lp->input)
        lp->changelog &= ~SL_CL_UPDATE_BEFORE;
}

int sl_lp_analyze_mode(sl_lp *lp, bool batch, sl_error *err)
{
    sl_lp_plan_joins(lp);
    sl__mark_ranks(lp);
    sl__mark_rank_use(lp, NULL);
    if (sl__analyze(lp, batch, err) != 0)
        return -1;
    if (!batch)
        sl__drop_update_before(lp);
    return 0;
}

int sl_lp_analyze(sl_lp *lp, sl_error *err)
{
    return sl_lp_analyze_mode(lp, false, err);
}
