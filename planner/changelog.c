/*
** changelog.c — changelog analysis of a logical plan: which kinds of rows
** (+I, -U, +U, -D) every operator emits, as Flink's changelog modes.
**
**   Scan, Values, Window TVF, window aggregation      [I]  (final results)
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
**   Top-N (rn <= N, or rn = 1 on another order), outer joins,
**   ORDER BY not on event time                         [I,UB,UA,D]
**   Filter, Project, Limit on an append-only input, Union, Sink  as their inputs
**
** It also recognizes the patterns the runtime implements specially: an
** Aggregate grouping by window_start and window_end of one window TVF is a
** window aggregation; an OverAggregate (ROW_NUMBER) filtered above by
** rn = 1 / rn <= N is a deduplication or Top-N. Errors: a ROW_NUMBER with
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

/* If cond (or one of its AND-ed terms) bounds the row number of an
** OverAggregate below filter f (rn = 1, rn <= N, rn < N, N >= rn ...), set
** that node's rank_limit. */
static void sl__mark_rank(const sl_lp *f, const sl_bexpr *cond)
{
    if (cond->kind != SL_BX_CALL)
        return;
    sl_func_id id = cond->fn->id;
    if (id == SL_FN_AND) {
        for (int i = 0; i < cond->nargs; i++)
            sl__mark_rank(f, cond->args[i]);
        return;
    }
    if (cond->nargs != 2)
        return;
    const sl_bexpr *col = cond->args[0], *lit = cond->args[1];
    bool flipped = false;
    if (col->kind != SL_BX_COLUMN) {
        col = cond->args[1];
        lit = cond->args[0];
        flipped = true;
    }
    int64_t n;
    if (col->kind != SL_BX_COLUMN || !sl__int_literal(lit, &n))
        return;
    /* Normalize to "rn <op> n". */
    if (flipped)
        id = id == SL_FN_LE ? SL_FN_GE : id == SL_FN_LT ? SL_FN_GT : id == SL_FN_GE ? SL_FN_LE
           : id == SL_FN_GT ? SL_FN_LT : id;
    int64_t limit = id == SL_FN_EQ && n == 1 ? 1 : id == SL_FN_LE ? n : id == SL_FN_LT ? n - 1 : 0;
    if (limit < 1)
        return;
    const sl_lp *node;
    int ncol;
    sl_lp_origin(f->input, col->col, &node, &ncol);
    if (node->kind == SL_LP_OVER && ncol == node->ncols - 1 &&
        (node->rank_limit == 0 || limit < node->rank_limit))
        ((sl_lp *)node)->rank_limit = limit;
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

int sl_lp_dedup_kind(const sl_lp *over)
{
    if (over->rank_limit != 1 || over->norder != 1)
        return 0;
    if (!over->input->cols[over->order[0].col].rowtime)
        return 0;
    return over->order[0].desc ? 2 : 1;
}

/* Does this Aggregate group by window_start and window_end of one window TVF? */
static bool sl__is_window_agg(const sl_lp *agg)
{
    const sl_lp *start_of = NULL, *end_of = NULL;
    for (int k = 0; k < agg->nkeys; k++) {
        const sl_lp *node;
        int ncol;
        sl_lp_origin(agg->input, agg->keys[k], &node, &ncol);
        if (node->kind != SL_LP_WINDOW)
            continue;
        if (ncol == node->input->ncols)
            start_of = node;
        else if (ncol == node->input->ncols + 1)
            end_of = node;
    }
    return start_of && start_of == end_of;
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
    case SL_LP_SORT: return "Order by the event-time column ascending, without LIMIT";
    case SL_LP_NORMALIZE: return "Read an append-only table (an upsert source's rows change)";
    default: return "Make the query append-only";
    }
}

static int sl__analyze(sl_lp *lp, sl_error *err)
{
    if (lp->input && sl__analyze(lp->input, err) != 0)
        return -1;
    if (lp->right && sl__analyze(lp->right, err) != 0)
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
        if (in == SL_CL_INSERT && r == SL_CL_INSERT && !outer) {
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
        if (lp->rank_limit == 0) {
            sl_error_set(err, SL_ERR_NOT_SUPPORTED, lp->pos,
                         "ROW_NUMBER() must be filtered by its value in the enclosing query");
            sl_error_hint(err, "Use WHERE rn = 1 to deduplicate, or WHERE rn <= N for the "
                               "top N rows per partition.");
            return -1;
        }
        if (in != SL_CL_INSERT)
            return sl__needs_append_only(lp, "ROW_NUMBER()", in_cause, err);
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
        ** order can only be kept by updating rows already emitted. */
        if (in == SL_CL_INSERT && lp->norder > 0 && !lp->order[0].desc &&
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
    default: /* FILTER, PROJECT, LIMIT pass their input's kinds on */
        lp->changelog = in;
        lp->cause = in_cause;
        break;
    }
    return 0;
}

int sl_lp_analyze(sl_lp *lp, sl_error *err)
{
    sl__mark_ranks(lp);
    return sl__analyze(lp, err);
}
