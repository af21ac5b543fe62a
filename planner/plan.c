/*
** plan.c — the logical plan: construction, destruction and EXPLAIN text.
**
** A plan is a tree of sl_lp operators, each with its output schema. It is
** immutable once the binder returns it; the runtime builds its own state
** from it. EXPLAIN prints one operator per line, children indented under
** "+- " as Flink does, with expressions in readable infix form.
*/
#include "planner_int.h"

#include <string.h>

sl_lp *sl_lp_new(sl_lp_kind kind, sl_lp *input)
{
    sl_lp *lp = sl_calloc(1, sizeof *lp);
    lp->kind = kind;
    lp->input = input;
    lp->limit = -1;
    lp->wm_col = -1;
    lp->time_col = -1;
    lp->pos = -1;
    return lp;
}

void sl_lp_add_col(sl_lp *lp, const char *name, sl_type type, int rowtime)
{
    lp->cols = sl_realloc(lp->cols, (size_t)(lp->ncols + 1) * sizeof(sl_lp_col));
    lp->cols[lp->ncols].name = sl_strdup(name);
    lp->cols[lp->ncols].type = type;
    lp->cols[lp->ncols].rowtime = (uint8_t)rowtime;
    lp->ncols++;
}

void sl_lp_free(sl_lp *lp)
{
    if (!lp)
        return;
    sl_lp_free(lp->input);
    sl_lp_free(lp->right);
    for (int i = 0; i < lp->ncols; i++)
        sl_free(lp->cols[i].name);
    sl_free(lp->cols);
    for (int i = 0; i < lp->nexprs; i++)
        sl_bexpr_free(lp->exprs[i]);
    sl_free(lp->exprs);
    sl_free(lp->keys);
    for (int i = 0; i < lp->naggs; i++)
        sl_free(lp->aggs[i].sep);
    sl_free(lp->aggs);
    sl_free(lp->order);
    sl_free(lp->table);
    sl_bexpr_free(lp->watermark);
    sl_free(lp->wm_name);
    sl_free(lp->meta);
    sl_free(lp->lookup);
    for (int r = 0; r < lp->nrows; r++) {
        for (int c = 0; c < lp->ncols; c++)
            sl_bexpr_free(lp->rows[r][c]);
        sl_free(lp->rows[r]);
    }
    sl_free(lp->rows);
    sl_free(lp->sink_map);
    sl_query_free(lp->subquery);
    sl_free(lp);
}

/* ------------------------------------------------------------------------
** EXPLAIN
*/

/* Column names of a node's output, as an array for sl_bexpr_print. */
static const char **sl__names(const sl_lp *lp)
{
    const char **names = sl_calloc((size_t)(lp->ncols + 1), sizeof(char *));
    for (int i = 0; i < lp->ncols; i++)
        names[i] = lp->cols[i].name;
    return names;
}

/* Names of the columns an expression of lp sees. A JOIN's condition sees
** both inputs, which are exactly its own output columns (named uniquely). */
static const char **sl__input_names(const sl_lp *lp)
{
    if (lp->kind == SL_LP_JOIN)
        return sl__names(lp);
    if (!lp->input)
        return sl_calloc(1, sizeof(char *));
    return sl__names(lp->input);
}

static void sl__col_list(sl_strbuf *sb, const sl_lp *lp)
{
    for (int i = 0; i < lp->ncols; i++) {
        if (i)
            sl_strbuf_append(sb, ", ");
        sl_strbuf_append(sb, lp->cols[i].name);
    }
}

static void sl__order_list(sl_strbuf *sb, const sl_lp_order *order, int n, const char **names)
{
    for (int i = 0; i < n; i++) {
        if (i)
            sl_strbuf_append(sb, ", ");
        sl_strbuf_append(sb, names[order[i].col]);
        sl_strbuf_append(sb, order[i].desc ? " DESC" : " ASC");
        if (order[i].nulls)
            sl_strbuf_append(sb, order[i].nulls == 1 ? " NULLS FIRST" : " NULLS LAST");
    }
}

/* A window TVF's definition after its time column, as EXPLAIN prints it:
** "size=[5 min]", "slide=[..], size=[..]", ... */
static void sl__window_def(sl_strbuf *sb, const sl_lp *lp, const char **in)
{
    if (lp->window_fn == SL_WIN_HOP) {
        sl_strbuf_append(sb, "slide=[");
        sl_interval_print(sb, SL_TYPE_INTERVAL_DT, lp->slide_ms);
        sl_strbuf_append(sb, "], ");
    } else if (lp->window_fn == SL_WIN_CUMULATE) {
        sl_strbuf_append(sb, "step=[");
        sl_interval_print(sb, SL_TYPE_INTERVAL_DT, lp->slide_ms);
        sl_strbuf_append(sb, "], ");
    }
    if (lp->window_fn == SL_WIN_SESSION && lp->nkeys) {
        sl_strbuf_append(sb, "partition_keys=[");
        for (int i = 0; i < lp->nkeys; i++)
            sl_strbuf_appendf(sb, "%s%s", i ? ", " : "", in[lp->keys[i]]);
        sl_strbuf_append(sb, "], ");
    }
    sl_strbuf_append(sb, lp->window_fn == SL_WIN_CUMULATE ? "max_size=["
                         : lp->window_fn == SL_WIN_SESSION ? "gap=["
                                                           : "size=[");
    sl_interval_print(sb, SL_TYPE_INTERVAL_DT, lp->size_ms);
    sl_strbuf_append(sb, "]");
    if (lp->offset_ms) {
        sl_strbuf_append(sb, ", offset=[");
        sl_interval_print(sb, SL_TYPE_INTERVAL_DT, lp->offset_ms);
        sl_strbuf_append(sb, "]");
    }
}

/* "WindowJoin(joinType=[..], leftWindow=[TUMBLE(win_start=[..], win_end=[..],
** size=[..])], rightWindow=[..]" (Flink names both sides' windows). */
static void sl__window_join_def(sl_strbuf *sb, const sl_lp *j, const char *type)
{
    static const char *const wins[] = {"TUMBLE", "HOP", "CUMULATE", "SESSION"};
    sl_strbuf_appendf(sb, "WindowJoin(joinType=[%s]", type);
    for (int s = 0; s < 2; s++) {
        const sl_lp *side = s ? j->right : j->input;
        int col = s ? j->rtime : j->ltime, which;
        const sl_lp *win = sl_lp_window_col(side, col, &which);
        if (!win)
            continue;
        int start = -1, w;
        for (int c = 0; c < side->ncols && start < 0; c++)
            if (sl_lp_window_col(side, c, &w) == win && w == 0)
                start = c;
        const char **in = sl__input_names(win);
        sl_strbuf_appendf(sb, ", %s=[%s(", s ? "rightWindow" : "leftWindow", wins[win->window_fn]);
        if (start >= 0)
            sl_strbuf_appendf(sb, "win_start=[%s], ", side->cols[start].name);
        sl_strbuf_appendf(sb, "win_end=[%s], ", side->cols[col].name);
        sl__window_def(sb, win, in);
        sl_strbuf_append(sb, ")]");
        sl_free(in);
    }
}

void sl_lp_describe(sl_strbuf *sb, const sl_lp *lp)
{
    static const char *const joins[] = {"INNER", "LEFT", "RIGHT", "FULL", "CROSS",
                                        "SEMI",  "ANTI", "LEFT_SINGLE"};
    static const char *const wins[] = {"TUMBLE", "HOP", "CUMULATE", "SESSION"};
    const char **in = sl__input_names(lp);
    switch (lp->kind) {
    case SL_LP_SCAN:
        sl_strbuf_appendf(sb, "TableSourceScan(table=[%s], connector=[%s], ", lp->table,
                          lp->connector ? lp->connector->name : lp->sysrel ? "catalog" : "?");
        if (lp->meta)
            sl_strbuf_appendf(sb, "metadata=[%s], ", lp->meta);
        sl_strbuf_append(sb, "fields=[");
        sl__col_list(sb, lp);
        sl_strbuf_append(sb, "]");
        if (lp->watermark) {
            const char **own = sl__names(lp);
            sl_strbuf_appendf(sb, ", watermark=[%s, ", lp->wm_name);
            sl_bexpr_print(sb, lp->watermark, own);
            sl_strbuf_append(sb, "]");
            sl_free(own);
        }
        sl_strbuf_append(sb, ")");
        break;
    case SL_LP_NORMALIZE:
        sl_strbuf_append(sb, "ChangelogNormalize(key=[");
        for (int i = 0; i < lp->nkeys; i++)
            sl_strbuf_appendf(sb, "%s%s", i ? ", " : "", in[lp->keys[i]]);
        sl_strbuf_append(sb, "])");
        break;
    case SL_LP_EXPAND:
        sl_strbuf_append(sb, "ProjectSet(functions=[");
        for (int i = 0; i < lp->nexprs; i++) {
            sl_strbuf_appendf(sb, "%s%s(", i ? ", " : "", sl_srf_name(lp->keys[i]));
            sl_bexpr_print(sb, lp->exprs[i], in);
            sl_strbuf_append(sb, ")");
        }
        sl_strbuf_append(sb, "])");
        break;
    case SL_LP_VALUES:
        sl_strbuf_appendf(sb, "Values(rows=[%d], fields=[", lp->nrows);
        sl__col_list(sb, lp);
        sl_strbuf_append(sb, "])");
        break;
    case SL_LP_WINDOW:
        sl_strbuf_appendf(sb, "WindowTableFunction(window=[%s(time_col=[%s], ",
                          wins[lp->window_fn], in[lp->time_col]);
        sl__window_def(sb, lp, in);
        sl_strbuf_append(sb, ")])");
        break;
    case SL_LP_FILTER:
        sl_strbuf_append(sb, "Filter(condition=[");
        sl_bexpr_print(sb, lp->exprs[0], in);
        sl_strbuf_append(sb, "])");
        break;
    case SL_LP_PROJECT:
        sl_strbuf_append(sb, "Project(");
        for (int i = 0; i < lp->nexprs; i++) {
            if (i)
                sl_strbuf_append(sb, ", ");
            sl_strbuf_appendf(sb, "%s=[", lp->cols[i].name);
            sl_bexpr_print(sb, lp->exprs[i], in);
            sl_strbuf_append(sb, "]");
        }
        sl_strbuf_append(sb, ")");
        break;
    case SL_LP_AGGREGATE:
        sl_strbuf_append(sb, lp->window_agg ? "WindowAggregate(group=[" : "Aggregate(group=[");
        for (int i = 0; i < lp->nkeys; i++)
            sl_strbuf_appendf(sb, "%s%s", i ? ", " : "", in[lp->keys[i]]);
        sl_strbuf_append(sb, "]");
        if (lp->naggs)
            sl_strbuf_append(sb, ", aggs=[");
        for (int i = 0; i < lp->naggs; i++) {
            const sl_lp_agg *a = &lp->aggs[i];
            sl_strbuf_appendf(sb, "%s%s(%s%s", i ? ", " : "", a->fn->name,
                              a->distinct ? "DISTINCT " : "", a->arg < 0 ? "*" : in[a->arg]);
            if (a->sep) {
                sl_strbuf_append(sb, ", '");
                for (const char *c = a->sep; *c; c++)
                    sl_strbuf_append(sb, *c == '\'' ? "''" : (char[2]){*c, 0});
                sl_strbuf_append_char(sb, '\'');
            }
            sl_strbuf_append(sb, ")");
            if (a->filter >= 0)
                sl_strbuf_appendf(sb, " FILTER %s", in[a->filter]);
            sl_strbuf_appendf(sb, " AS %s", lp->cols[lp->nkeys + i].name);
        }
        if (lp->naggs)
            sl_strbuf_append(sb, "]");
        sl_strbuf_append(sb, ")");
        break;
    case SL_LP_JOIN:
        if (lp->lookup) {
            sl_strbuf_appendf(sb, "LookupJoin(table=[%s], joinType=[%s], lookup=[",
                              lp->right->table ? lp->right->table : "?", joins[lp->join_type]);
            sl_list *terms = sl_list_new();
            if (lp->nexprs && lp->exprs[0])
                sl_bexpr_conjuncts(lp->exprs[0], terms);
            int nk = 0, nw = 0;
            uint64_t keyset = 0; /* columns taken as keys (the first 64) */
            for (int pass = 0; pass < 2; pass++) {
                for (int i = 0; i < terms->n; i++) {
                    int rc;
                    const sl_bexpr *le;
                    bool key = sl_lookup_key(terms->items[i], lp->input->ncols, &rc, &le) &&
                               (rc >= 64 || !(keyset >> rc & 1));
                    if (pass == 0 && key) {
                        if (rc < 64)
                            keyset |= (uint64_t)1 << rc;
                        sl_strbuf_appendf(sb, "%s%s=", nk++ ? ", " : "",
                                          lp->right->cols[rc].name); /* the table's name */
                        sl_bexpr_print(sb, le, in);
                        terms->items[i] = NULL;
                    } else if (pass == 1 && terms->items[i]) {
                        sl_strbuf_append(sb, nw++ ? " AND " : ", where=[");
                        sl_bexpr_print(sb, terms->items[i], in);
                    }
                }
                if (pass == 0)
                    sl_strbuf_appendf(sb, "], %s", lp->lookup);
            }
            if (nw)
                sl_strbuf_append(sb, "]");
            sl_list_free(terms, NULL);
        } else if (lp->temporal)
            sl_strbuf_appendf(sb, "TemporalJoin(joinType=[%s], leftTimeIndex=[%d], "
                                  "rightTimeIndex=[%d]",
                              joins[lp->join_type], lp->ltime, lp->rtime);
        else if (lp->interval)
            sl_strbuf_appendf(sb,
                              "IntervalJoin(joinType=[%s], windowBounds=[leftLowerBound=%lld, "
                              "leftUpperBound=%lld, leftTimeIndex=%d, rightTimeIndex=%d]",
                              joins[lp->join_type], (long long)(lp->lower_ns / 1000000),
                              (long long)(lp->upper_ns / 1000000), lp->ltime, lp->rtime);
        else if (lp->window_join)
            sl__window_join_def(sb, lp, joins[lp->join_type]);
        else
            sl_strbuf_appendf(sb, "Join(joinType=[%s]", joins[lp->join_type]);
        if (lp->nexprs && !lp->lookup) {
            sl_strbuf_append(sb, ", where=[");
            sl_bexpr_print(sb, lp->exprs[0], in);
            sl_strbuf_append(sb, "]");
        }
        sl_strbuf_append(sb, ")");
        break;
    case SL_LP_UNION:
        sl_strbuf_append(sb, "Union(all=[true], fields=[");
        sl__col_list(sb, lp);
        sl_strbuf_append(sb, "])");
        break;
    case SL_LP_OVER:
        if (lp->window_agg)
            sl_strbuf_appendf(sb, "WindowRank(rankRange=[rankStart=%lld, rankEnd=%lld], partitionBy=[",
                              (long long)(lp->rank_start > 1 ? lp->rank_start : 1),
                              (long long)lp->rank_limit);
        else if (lp->rank_limit == 1 && sl_lp_dedup_kind(lp))
            sl_strbuf_appendf(sb, "Deduplicate(keep=[%s], partitionBy=[",
                              sl_lp_dedup_kind(lp) == 1 ? "FirstRow" : "LastRow");
        else if (lp->rank_limit > 0)
            sl_strbuf_appendf(sb, "Rank(rankRange=[rankStart=%lld, rankEnd=%lld], partitionBy=[",
                              (long long)(lp->rank_start > 1 ? lp->rank_start : 1),
                              (long long)lp->rank_limit);
        else
            sl_strbuf_append(sb, "OverAggregate(partitionBy=[");
        for (int i = 0; i < lp->nkeys; i++)
            sl_strbuf_appendf(sb, "%s%s", i ? ", " : "", in[lp->keys[i]]);
        sl_strbuf_append(sb, "], orderBy=[");
        sl__order_list(sb, lp->order, lp->norder, in);
        sl_strbuf_appendf(sb, "], select=[ROW_NUMBER() AS %s])", lp->cols[lp->ncols - 1].name);
        break;
    case SL_LP_OVER_AGG:
        /* Flink: OverAggregate(partitionBy=[k], orderBy=[ts ASC], window=[ ROWS BETWEEN 2
        ** PRECEDING AND CURRENT ROW], select=[..., SUM(v) AS w0$o0]) */
        sl_strbuf_append(sb, "OverAggregate(partitionBy=[");
        for (int i = 0; i < lp->nkeys; i++)
            sl_strbuf_appendf(sb, "%s%s", i ? ", " : "", in[lp->keys[i]]);
        sl_strbuf_appendf(sb, "], orderBy=[%s ASC], window=[ %s BETWEEN ", in[lp->order[0].col],
                          lp->over_range ? "RANGE" : "ROWS");
        if (lp->over_preceding < 0)
            sl_strbuf_append(sb, "UNBOUNDED PRECEDING");
        else /* RANGE: ms, as Flink prints it */
            sl_strbuf_appendf(sb, "%lld PRECEDING", (long long)lp->over_preceding);
        sl_strbuf_append(sb, " AND CURRENT ROW], select=[");
        for (int i = 0; i < lp->input->ncols; i++)
            sl_strbuf_appendf(sb, "%s, ", in[i]);
        for (int i = 0; i < lp->naggs; i++) {
            const sl_lp_agg *a = &lp->aggs[i];
            sl_strbuf_appendf(sb, "%s%s(%s%s) AS %s", i ? ", " : "", a->fn->name,
                              a->distinct ? "DISTINCT " : "", a->arg < 0 ? "*" : in[a->arg],
                              lp->cols[lp->input->ncols + i].name);
        }
        sl_strbuf_append(sb, "])");
        break;
    case SL_LP_SORT:
        sl_strbuf_append(sb, "Sort(orderBy=[");
        sl__order_list(sb, lp->order, lp->norder, in);
        sl_strbuf_append(sb, "])");
        break;
    case SL_LP_LIMIT:
        sl_strbuf_appendf(sb, "Limit(offset=[%lld], fetch=[", (long long)lp->offset);
        if (lp->limit >= 0)
            sl_strbuf_appendf(sb, "%lld])", (long long)lp->limit);
        else
            sl_strbuf_append(sb, "unlimited])");
        break;
    case SL_LP_UNNEST:
        sl_strbuf_append(sb, "Unnest(invocation=[UNNEST(");
        sl_bexpr_print(sb, lp->exprs[0], in);
        sl_strbuf_appendf(sb, ")], joinType=[%s], fields=[", joins[lp->join_type]);
        for (int i = lp->input->ncols; i < lp->ncols; i++)
            sl_strbuf_appendf(sb, "%s%s", i > lp->input->ncols ? ", " : "", lp->cols[i].name);
        sl_strbuf_append(sb, "]");
        if (lp->nexprs > 1) { /* over its own output columns */
            const char **own = sl__names(lp);
            sl_strbuf_append(sb, ", where=[");
            sl_bexpr_print(sb, lp->exprs[1], own);
            sl_strbuf_append(sb, "]");
            sl_free(own);
        }
        sl_strbuf_append(sb, ")");
        break;
    case SL_LP_FUNCTION:
        sl_strbuf_appendf(sb, "Function(%s, fields=[%s])", lp->table, lp->cols[0].name);
        break;
    case SL_LP_APPLY:
        sl_strbuf_appendf(sb, "Apply(%s=[ARRAY(subquery)])", lp->cols[lp->ncols - 1].name);
        break;
    case SL_LP_SINK:
        sl_strbuf_appendf(sb, "Sink(table=[%s], connector=[%s], fields=[", lp->table,
                          lp->connector ? lp->connector->name : "?");
        /* each column's value: the query's column, CAST to the column's
        ** type where it differs (a CAST cuts and pads to a length) */
        for (int i = 0; i < lp->ncols; i++) {
            int from = lp->sink_map[i];
            sl_strbuf_appendf(sb, "%s%s", i ? ", " : "", lp->cols[i].name);
            if (from < 0) {
                sl_strbuf_append(sb, "=NULL");
            } else if (!sl_type_equal_ignoring_null(lp->input->cols[from].type, lp->cols[i].type)) {
                sl_type t = lp->cols[i].type;
                t.not_null = false;
                sl_strbuf_appendf(sb, "=CAST(%s AS ", in[from]);
                sl_type_format(sb, t);
                sl_strbuf_append_char(sb, ')');
            } else if (strcmp(in[from], lp->cols[i].name) != 0) {
                sl_strbuf_appendf(sb, "=%s", in[from]);
            }
        }
        sl_strbuf_append(sb, "])");
        break;
    }
    sl_free(in);
}

static void sl__explain(sl_strbuf *sb, const sl_lp *lp, sl_strbuf *prefix, bool last, bool root)
{
    sl_strbuf_append(sb, sl_strbuf_cstr(prefix));
    if (!root)
        sl_strbuf_append(sb, "+- ");
    sl_lp_describe(sb, lp);
    if (lp->changelog && sb->len > 0 && sb->buf[sb->len - 1] == ')') {
        sb->buf[--sb->len] = 0;
        sl_strbuf_appendf(sb, ", changelogMode=%s)", sl_changelog_name(lp->changelog));
    }
    sl_strbuf_append_char(sb, '\n');
    size_t keep = prefix->len;
    if (!root)
        sl_strbuf_append(prefix, last ? "   " : ":  ");
    const sl_lp *kids[2];
    int nkids = 0;
    if (lp->input)
        kids[nkids++] = lp->input;
    if (lp->right)
        kids[nkids++] = lp->right;
    for (int i = 0; i < nkids; i++)
        sl__explain(sb, kids[i], prefix, i == nkids - 1, false);
    prefix->len = keep;
    if (prefix->buf)
        prefix->buf[keep] = 0;
}

void sl_lp_explain(sl_strbuf *sb, const sl_lp *lp)
{
    sl_strbuf prefix = SL_STRBUF_INIT;
    sl__explain(sb, lp, &prefix, true, true);
    sl_strbuf_free(&prefix);
}
