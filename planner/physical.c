/*
** physical.c — from a logical plan to a job the runtime runs (sl_job_spec).
**
** The graph (see the job section of exec/sl_exec.h) is built bottom-up
** from the plan (sl__frag_build): every node's output is produced by a set
** of layers (inputs or one stage), and
**
**   inputs   every table scan under the query (several under UNION ALL and
**            joins), with the stateless nodes above it chained into the
**            reading task: Filter and Project (calc steps: a Filter and the
**            Project above it share one, so a projection never sees a row
**            the filter removed), WindowTableFunction, the UNION's CAST to
**            its column types;
**   stages   each stateful node starts one, after a hash exchange by its
**            keys (all rows to one task when it has none): Aggregate (group
**            or window aggregation), Deduplicate, Rank (Top-N, window
**            Top-N); a join starts one that both its sides feed: each
**            side's rows are projected onto one tagged row (side, keys, left
**            columns, right columns — see sl_join_spec) and hashed by the
**            keys (the AND-ed equalities of its condition between the
**            sides; without any, one task); the stateless nodes above join
**            the stage;
**   sink     chained to the last tasks. An INSERT's last step maps the
**            query's columns onto the table's (by its column list, NULL for
**            columns left out, CAST where assignable but not equal — under
**            'table.exec.sink.type-length-enforcer' = 'ERROR' not for a
**            string or binary value, which the sink's length enforcer
**            checks uncut); the enforcer (sl_length_spec, exec/enforce.c)
**            runs in the sink's task before each write; a query's result
**            (and its LIMIT) is collected by one task; 'sink.parallelism'
**            adds an exchange when it differs.
**
**   VALUES   an input whose source hands out the rows (exec/values.c);
**   ORDER BY / LIMIT / OFFSET   one stage of one task (exec/op_order.c):
**            batch mode sorts at the end of the input, streaming mode
**            sorts by an ascending event time as the watermark passes it
**            (other orders: Flink's 0A000) or passes LIMIT's first rows.
**
** Every input runs at 'parallelism.default'. The scan's WATERMARK
** expression becomes its input's watermark. Any other operator is refused
** with 0A000 until the runtime runs it.
**
** Main routines: sl_physical_build, sl_physical_spec, sl_physical_free,
** sl_lp_agg_spec (an aggregation's exec spec, also for bounded.c).
*/
#include "planner_int.h"

#include <stdlib.h>
#include <string.h>

struct sl_physical {
    sl_job_spec spec;        /* the job */
    sl_list *joins;          /* sl_join_spec* made here (their tz follows spec.tz) */
    sl_list *lookups;        /* sl_lookup_join_spec* made here (the same) */
    sl_list *unnests;        /* sl_unnest_spec* made here (the same) */
    sl_list *values;         /* sl_values_spec* made here (the same) */
    sl_list *owned_exprs;    /* sl_bexpr* built here (casts, the final mapping) */
    sl_list *owned_arrays;   /* arrays owned here */
    sl_tz *tz;               /* the job's time zone (spec.tz), owned */
    const sl_catalog *cat;   /* while building: the catalog */
    const sl_physical_opts *o; /* ... and the options */
    sl_state_backend backend; /* o->backend, for EXPLAIN */
    sl_list *sides;          /* sl_side_spec* resolved for the job (sl__side_plan), owned */
    sl_list *side_twins;     /* char*: the operators writing side tables, by kind and plan
                                (sl__side_plan), owned */
    const sl_side_kind *side_kinds[SL_SIDE_MAX]; /* the kind of each */
    const sl_lp *late_time;  /* while its step is made: a window aggregation whose input
                                calc also carries the window's time column, last (its
                                late rows' event_time) */
};

/* Steps being collected for one input or stage. */
typedef struct sl__chain {
    sl_step_spec *steps; /* room for cap */
    int n;               /* used */
    int cap;             /* allocated */
} sl__chain;

static void *sl__own(sl_physical *p, void *array)
{
    sl_list_push(p->owned_arrays, array);
    return array;
}

static void sl__bexpr_free_v(void *b)
{
    sl_bexpr_free(b);
}

void sl_physical_free(sl_physical *p)
{
    if (!p)
        return;
    sl_list_free(p->owned_exprs, sl__bexpr_free_v);
    sl_list_free(p->owned_arrays, sl_free);
    sl_list_free(p->joins, NULL);
    sl_list_free(p->lookups, NULL);
    sl_list_free(p->unnests, NULL);
    sl_list_free(p->values, NULL);
    for (int i = 0; p->sides && i < p->sides->n; i++)
        sl_side_spec_free(p->sides->items[i]);
    sl_list_free(p->sides, NULL);
    sl_list_free(p->side_twins, sl_free);
    sl_tz_free(p->tz);
    sl_free(p);
}

void sl_physical_set_tz(sl_physical *p, sl_tz *tz)
{
    sl_tz_free(p->tz);
    p->tz = tz;
    p->spec.tz = tz;
    for (int i = 0; i < p->joins->n; i++)
        ((sl_join_spec *)p->joins->items[i])->tz = tz;
    for (int i = 0; i < p->lookups->n; i++)
        ((sl_lookup_join_spec *)p->lookups->items[i])->tz = tz;
    for (int i = 0; i < p->unnests->n; i++)
        ((sl_unnest_spec *)p->unnests->items[i])->tz = tz;
    for (int i = 0; i < p->values->n; i++)
        ((sl_values_spec *)p->values->items[i])->tz = tz;
}

sl_job_spec *sl_physical_spec(sl_physical *p)
{
    return &p->spec;
}

static int sl__not_yet(const sl_lp *lp, sl_error *err)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_lp_describe(&sb, lp);
    sl_error_set(err, SL_ERR_NOT_SUPPORTED, lp->pos, "the runtime cannot run this query yet");
    sl_error_detail(err,
                    "It needs %s; the runtime runs scans, filters, projections, window "
                    "functions, aggregations, joins and deduplication so far.",
                    sl_strbuf_cstr(&sb));
    sl_error_hint(err, "Use EXPLAIN to see the plan.");
    sl_strbuf_free(&sb);
    return -1;
}

static int sl__mk_window_tvf(const void *a, sl_operator **o, sl_error *e)
{
    return sl_window_tvf_new(a, o, e);
}

static int sl__mk_window_agg(const void *a, sl_operator **o, sl_error *e)
{
    return sl_window_agg_new(a, o, e);
}

static int sl__mk_session_agg(const void *a, sl_operator **o, sl_error *e)
{
    return sl_session_agg_new(a, o, e);
}

static int sl__mk_session_tvf(const void *a, sl_operator **o, sl_error *e)
{
    return sl_session_tvf_new(a, o, e);
}

static int sl__mk_group_agg(const void *a, sl_operator **o, sl_error *e)
{
    return sl_group_agg_new(a, o, e);
}

static int sl__mk_dedup(const void *a, sl_operator **o, sl_error *e)
{
    return sl_dedup_new(a, o, e);
}

static int sl__mk_topn(const void *a, sl_operator **o, sl_error *e)
{
    return sl_topn_new(a, o, e);
}

static int sl__mk_over(const void *a, sl_operator **o, sl_error *e)
{
    return sl_over_new(a, o, e);
}

/* Types of a node's output, owned by p. */
static sl_type *sl__types(sl_physical *p, const sl_lp *lp)
{
    sl_type *t = sl__own(p, sl_calloc((size_t)lp->ncols + 1, sizeof(sl_type)));
    for (int c = 0; c < lp->ncols; c++)
        t[c] = lp->cols[c].type;
    return t;
}

void sl_lp_agg_spec(const sl_lp *agg, int64_t ttl_ms, sl_group_agg_spec *g)
{
    memset(g, 0, sizeof *g);
    sl_type *in = sl_calloc((size_t)agg->input->ncols + 1, sizeof(sl_type));
    for (int c = 0; c < agg->input->ncols; c++)
        in[c] = agg->input->cols[c].type;
    g->in_ncols = agg->input->ncols;
    g->in_types = in;
    g->nkeys = agg->nkeys;
    g->keys = agg->keys;
    g->naggs = agg->naggs;
    sl_agg_call *calls = sl_calloc((size_t)agg->naggs + 1, sizeof(sl_agg_call));
    for (int i = 0; i < agg->naggs; i++) {
        calls[i].fn = agg->aggs[i].fn->id;
        calls[i].distinct = agg->aggs[i].distinct;
        calls[i].arg = agg->aggs[i].arg;
        calls[i].type = agg->aggs[i].type;
        calls[i].pos = agg->aggs[i].pos;
        calls[i].sep = agg->aggs[i].sep;
        calls[i].filtered = agg->aggs[i].filter >= 0;
        calls[i].filter = agg->aggs[i].filter;
    }
    g->aggs = calls;
    g->ttl_ms = ttl_ms;
    g->append_only = agg->input->changelog == SL_CL_INSERT; /* MIN/MAX keep one value */
    g->no_before = agg->no_before;
}

void sl_lp_agg_spec_free(sl_group_agg_spec *g)
{
    sl_free((void *)g->in_types);
    sl_free((void *)g->aggs);
    g->in_types = NULL;
    g->aggs = NULL;
}

/* An aggregation's spec (group and window aggregations), its arrays owned by p. */
static void sl__agg_spec(sl_physical *p, const sl_lp *agg, int64_t ttl_ms, sl_group_agg_spec *g)
{
    sl_lp_agg_spec(agg, ttl_ms, g);
    sl__own(p, (void *)g->in_types);
    sl__own(p, (void *)g->aggs);
}

/* Whether window Top-N node n is Flink's WindowDeduplicate keeping the last
** row (rn = 1, ORDER BY the event time DESC): a tie then replaces the row
** kept (the later row wins). */
static bool sl__window_keep_last(const sl_lp *n)
{
    if (n->rank_limit != 1 || n->rank_start > 1 || n->norder != 1 || !n->order[0].desc)
        return false;
    const sl_lp *node;
    int ncol;
    sl_lp_origin(n->input, n->order[0].col, &node, &ncol);
    return node->cols[ncol].rowtime;
}

/* Column col of lp followed down through bare column references and
** operators passing columns on to node target: its column there, or -1. */
static int sl__column_of(const sl_lp *lp, int col, const sl_lp *target)
{
    while (lp && lp != target) {
        if (lp->kind == SL_LP_PROJECT) {
            if (col >= lp->nexprs || lp->exprs[col]->kind != SL_BX_COLUMN)
                return -1;
            col = lp->exprs[col]->col;
        } else if (lp->kind != SL_LP_FILTER) {
            return -1;
        }
        lp = lp->input;
    }
    return lp ? col : -1;
}

/* The column names of n's output (owned by the plan): a column passed on
** unchanged (an aggregate's argument, "$f3") by the name of its origin. */
static const char *const *sl__col_names(sl_physical *p, const sl_lp *n)
{
    const char **names = sl__own(p, sl_calloc((size_t)n->ncols + 1, sizeof(char *)));
    for (int c = 0; c < n->ncols; c++) {
        const sl_lp *node;
        int ncol;
        sl_lp_origin(n, c, &node, &ncol);
        names[c] = node && ncol >= 0 && ncol < node->ncols ? node->cols[ncol].name
                                                           : n->cols[c].name;
    }
    return names;
}

/* The operator step for node n, or -1 (not runnable yet). */
static int sl__operator_step(sl_physical *p, const sl_lp *n, int64_t ttl_ms, sl_step_spec *st,
                             sl_error *err)
{
    st->out_ncols = n->ncols;
    st->out_types = sl__types(p, n);
    switch (n->kind) {
    case SL_LP_WINDOW: {
        st->name = "WindowTableFunction";
        sl_window_tvf_spec *w = sl__own(p, sl_calloc(1, sizeof *w));
        w->in_ncols = n->input->ncols;
        w->in_types = sl__types(p, n->input);
        w->time_col = n->time_col;
        w->window_fn = n->window_fn;
        w->size_ms = n->size_ms;
        w->slide_ms = n->slide_ms;
        w->offset_ms = n->offset_ms;
        if (n->sliced) { /* each row into its slice: a TUMBLE of the slide */
            w->window_fn = SL_WIN_TUMBLE;
            w->size_ms = n->slide_ms;
        }
        st->create = sl__mk_window_tvf;
        st->arg = w;
        if (n->window_fn == SL_WIN_SESSION && !n->merged) { /* the TVF on its own */
            sl_session_tvf_spec *s = sl__own(p, sl_calloc(1, sizeof *s));
            s->tvf = *w;
            s->nkeys = n->nkeys;
            s->keys = n->keys;
            st->create = sl__mk_session_tvf;
            st->arg = s;
        }
        return 0;
    }
    case SL_LP_AGGREGATE: {
        int wk[3];
        const sl_lp *win = n->window_agg ? sl_lp_agg_window(n, wk) : NULL;
        if (win && win->window_fn == SL_WIN_SESSION) {
            sl_session_agg_spec *s = sl__own(p, sl_calloc(1, sizeof *s));
            sl__agg_spec(p, n, ttl_ms, &s->window.group);
            s->window.window_start_key = wk[0];
            s->window.window_end_key = wk[1];
            s->window_time_key = wk[2];
            st->create = sl__mk_session_agg;
            st->arg = s;
            st->name = "SessionWindowAggregate";
            s->window.time_col = -1;
            s->window.in_names = sl__col_names(p, n->input);
            if (sl__side_plan(p, &sl_side_late, n, &st->side[SL_SIDE_LATE], err) < 0)
                return -1;
        } else if (n->window_agg) {
            sl_window_agg_spec *w = sl__own(p, sl_calloc(1, sizeof *w));
            sl__agg_spec(p, n, ttl_ms, &w->group);
            w->window_start_key = w->window_end_key = -1;
            for (int k = 0; k < n->nkeys; k++) {
                const sl_lp *node;
                int ncol;
                sl_lp_origin(n->input, n->keys[k], &node, &ncol);
                if (node->kind == SL_LP_WINDOW && ncol == node->input->ncols)
                    w->window_start_key = k;
                else if (node->kind == SL_LP_WINDOW && ncol == node->input->ncols + 1)
                    w->window_end_key = k;
            }
            st->create = sl__mk_window_agg;
            st->arg = w;
            st->name = "WindowAggregate";
            /* Late rows: its input's event-time column (the window's, passed
            ** through) and names; HOP's slide. */
            w->time_col = -1;
            w->slide_ns = win && win->window_fn == SL_WIN_HOP ? win->slide_ms * SL_NANOS_PER_MILLI
                                                                : 0;
            w->slice_size_ns = n->sliced ? win->size_ms * SL_NANOS_PER_MILLI : 0;
            for (int c = 0; win && c < n->input->ncols && w->time_col < 0; c++)
                if (sl__column_of(n->input, c, win) == win->time_col)
                    w->time_col = c;
            w->in_names = sl__col_names(p, n->input);
            if (p->late_time == n && win) { /* the time column the calc added, last */
                int nc = w->group.in_ncols;
                sl_type *types = sl__own(p, sl_calloc((size_t)nc + 2, sizeof(sl_type)));
                const char **names = sl__own(p, sl_calloc((size_t)nc + 2, sizeof(char *)));
                memcpy(types, w->group.in_types, (size_t)nc * sizeof(sl_type));
                memcpy(names, w->in_names, (size_t)nc * sizeof(char *));
                types[nc] = win->cols[win->time_col].type;
                names[nc] = win->cols[win->time_col].name;
                w->group.in_ncols = nc + 1;
                w->group.in_types = types;
                w->in_names = names;
                w->time_col = nc;
            }
            if (sl__side_plan(p, &sl_side_late, n, &st->side[SL_SIDE_LATE], err) < 0)
                return -1;
        } else {
            sl_group_agg_spec *g = sl__own(p, sl_calloc(1, sizeof *g));
            sl__agg_spec(p, n, ttl_ms, g);
            if (p->o)
                g->backend = p->o->backend;
            st->create = sl__mk_group_agg;
            st->arg = g;
            st->name = "GroupAggregate";
        }
        return 0;
    }
    case SL_LP_OVER: {
        int kind = sl_lp_dedup_kind(n);
        if (!kind || n->window_agg) {
            sl_topn_spec *t = sl__own(p, sl_calloc(1, sizeof *t));
            sl_topn_order *o = sl__own(p, sl_calloc((size_t)n->norder + 1, sizeof *o));
            for (int k = 0; k < n->norder; k++) {
                o[k].col = n->order[k].col;
                o[k].desc = n->order[k].desc;
                /* Flink: NULLs are the smallest values unless told otherwise */
                o[k].nulls_first = n->order[k].nulls ? n->order[k].nulls == 1 : !n->order[k].desc;
            }
            t->in_ncols = n->input->ncols;
            t->in_types = sl__types(p, n->input);
            t->nkeys = n->nkeys;
            t->keys = n->keys;
            t->norder = n->norder;
            t->order = o;
            t->rank_start = n->rank_start > 1 ? n->rank_start : 1;
            t->rank_end = n->rank_limit;
            t->output_rank = n->rank_number;
            t->ttl_ms = ttl_ms;
            t->window_end_col = -1;
            t->updating_input = n->input->changelog != SL_CL_INSERT;
            t->no_before = n->no_before;
            st->name = "Rank";
            for (int k = 0; n->window_agg && k < n->nkeys; k++) {
                const sl_lp *node;
                int ncol;
                sl_lp_origin(n->input, n->keys[k], &node, &ncol);
                if (node->kind == SL_LP_WINDOW && ncol == node->input->ncols + 1) {
                    t->window_end_col = n->keys[k];
                    t->ties_replace = sl__window_keep_last(n);
                    t->ttl_ms = 0;
                    st->name = "WindowRank";
                    t->in_names = sl__col_names(p, n->input);
                    if (sl__side_plan(p, &sl_side_late, n, &st->side[SL_SIDE_LATE], err) < 0)
                        return -1;
                }
            }
            st->create = sl__mk_topn;
            st->arg = t;
            return 0;
        }
        sl_dedup_spec *d = sl__own(p, sl_calloc(1, sizeof *d));
        d->in_ncols = n->input->ncols;
        d->in_types = sl__types(p, n->input);
        d->nkeys = n->nkeys;
        d->keys = n->keys;
        /* ORDER BY a PROCTIME() column is arrival order (Flink's proctime
        ** deduplication): its values are not event time to wait for. */
        d->order_col = n->input->cols[n->order[0].col].rowtime == SL_PROCTIME ? -1
                                                                           : n->order[0].col;
        d->keep_first = kind == 1;
        d->no_before = n->no_before;
        d->ttl_ms = ttl_ms;
        /* Conflicts name the job, the operator and the columns; a keep-first
        ** writes them to the conflict table (keeping its emitted rows whole
        ** for their stored_row). */
        d->in_names = sl__col_names(p, n->input);
        bool *ignore = sl__own(p, sl_calloc((size_t)n->input->ncols + 1, sizeof(bool)));
        for (int i = 0; i < n->input->ncols; i++)
            ignore[i] = n->input->cols[i].rowtime == SL_PROCTIME;
        d->ignore = ignore;
        d->job = p->o->job_name;
        sl_strbuf on = SL_STRBUF_INIT;
        sl_strbuf_append(&on, "Deduplicate(");
        for (int k = 0; k < n->nkeys; k++)
            sl_strbuf_appendf(&on, "%s%s", k ? ", " : "", d->in_names[n->keys[k]]);
        sl_strbuf_append_char(&on, ')');
        d->op_name = sl__own(p, sl_strdup(sl_strbuf_cstr(&on)));
        sl_strbuf_free(&on);
        int twin = d->keep_first ? sl__side_plan(p, &sl_side_conflicts, n,
                                                 &st->side[SL_SIDE_CONFLICTS], err)
                                 : 0;
        if (twin < 0)
            return -1;
        d->quiet = twin == 1; /* its twin in another INSERT reports the conflicts */
        d->keep_rows = st->side[SL_SIDE_CONFLICTS] != NULL;
        /* Late rows: only a keep-first by event time drops rows as late. */
        if (d->keep_first && d->order_col >= 0 &&
            sl__side_plan(p, &sl_side_late, n, &st->side[SL_SIDE_LATE], err) < 0)
            return -1;
        st->create = sl__mk_dedup;
        st->arg = d;
        st->name = "Deduplicate";
        return 0;
    }
    case SL_LP_OVER_AGG: {
        sl_group_agg_spec g;
        sl__agg_spec(p, n, ttl_ms, &g);
        sl_over_spec *o = sl__own(p, sl_calloc(1, sizeof *o));
        o->in_ncols = g.in_ncols;
        o->in_types = g.in_types;
        o->nkeys = n->nkeys;
        o->keys = n->keys;
        o->time_col = n->order[0].col;
        o->range = n->over_range;
        o->preceding = n->over_preceding < 0   ? -1
                       : n->over_range ? n->over_preceding * SL_NANOS_PER_MILLI
                                       : n->over_preceding;
        o->naggs = g.naggs;
        o->aggs = g.aggs;
        o->ttl_ms = ttl_ms;
        o->in_names = sl__col_names(p, n->input);
        st->create = sl__mk_over;
        st->arg = o;
        st->name = "OverAggregate";
        if (sl__side_plan(p, &sl_side_late, n, &st->side[SL_SIDE_LATE], err) < 0)
            return -1;
        return 0;
    }
    case SL_LP_NORMALIZE: {
        sl_dedup_spec *d = sl__own(p, sl_calloc(1, sizeof *d));
        d->in_ncols = n->input->ncols;
        d->in_types = sl__types(p, n->input);
        d->nkeys = n->nkeys;
        d->keys = n->keys;
        d->order_col = -1;
        d->normalize = true;
        d->ttl_ms = ttl_ms;
        st->create = sl__mk_dedup;
        st->arg = d;
        st->name = "ChangelogNormalize";
        return 0;
    }
    default:
        return sl__not_yet(n, err);
    }
}

/* Columns of a table as arrays for source / sink arguments: a metadata
** column in its key's type, its key in *meta (a sink's VIRTUAL one: "");
** *meta NULL when the table has none. */
static void sl__table_cols(sl_physical *p, const sl_table *t, bool sink, const char ***names,
                           sl_type **types, const char *const **meta)
{
    *names = sl__own(p, sl_calloc((size_t)(t->ncols ? t->ncols : 1), sizeof(char *)));
    *types = sl__own(p, sl_calloc((size_t)(t->ncols ? t->ncols : 1), sizeof(sl_type)));
    const char **keys = NULL;
    for (int i = 0; i < t->ncols; i++) {
        (*names)[i] = t->cols[i].name;
        (*types)[i] = t->cols[i].meta ? t->cols[i].mtype : t->cols[i].type;
        if (t->cols[i].meta && !keys)
            keys = sl__own(p, sl_calloc((size_t)t->ncols, sizeof(char *)));
        if (t->cols[i].meta)
            keys[i] = sink && t->cols[i].virt ? "" : t->cols[i].meta;
        if (t->cols[i].meta && sink) /* NULL writes no timestamp, as in Flink */
            (*types)[i].not_null = false;
    }
    *meta = keys;
}

static sl_step_spec *sl__chain_add(sl_physical *p, sl__chain *c)
{
    if (c->n == c->cap) {
        int cap = c->cap ? c->cap * 2 : 8;
        sl_step_spec *steps = sl__own(p, sl_calloc((size_t)cap, sizeof(sl_step_spec)));
        if (c->n)
            memcpy(steps, c->steps, (size_t)c->n * sizeof(sl_step_spec));
        c->steps = steps; /* the old array stays owned by p until the end */
        c->cap = cap;
    }
    return &c->steps[c->n++];
}

/* Whether a value of type from is stored as it is in a column of type to
** whose length the sink's enforcer checks (a string into CHAR/VARCHAR, bytes
** into BINARY/VARBINARY): under 'ERROR' no CAST cuts it first. */
static bool sl__unconverted(sl_type from, sl_type to)
{
    return (sl_type_is_string(from.id) && sl_type_is_string(to.id)) ||
           (sl_type_is_binary(from.id) && sl_type_is_binary(to.id));
}

/* The calc that ends chain, when a cast step after it can be its
** projection instead (fuse: the sink's mapping, which no operator follows,
** so no operator's step index moves): its projection reads each column at
** most once, or the calc only filters. Flink merges such Calcs too. */
static sl_calc_spec *sl__fusable_calc(sl__chain *chain, int in_ncols, int out_ncols, const int *map)
{
    if (chain->n == 0 || !chain->steps[chain->n - 1].calc)
        return NULL;
    sl_calc_spec *cs = (sl_calc_spec *)chain->steps[chain->n - 1].calc;
    if (cs->project && cs->nexprs != in_ncols)
        return NULL;
    for (int c = 0; c < out_ncols; c++)
        for (int d = 0; d < c; d++)
            if (map[c] >= 0 && map[c] == map[d])
                return NULL;
    return cs;
}

/* A projection step mapping columns (in_types) onto out_types: out column
** c is input column map[c] (-1: NULL), CAST where the type differs (INT
** into BIGINT, DECIMAL(5,2) into DECIMAL(12,2), STRING into VARCHAR(10):
** cut to 10 characters) — except, with keep_lengths, a string or binary
** value, which stays as it is for the length enforcer. Not added when it
** would be the identity. With fuse (the sink's mapping), it becomes the
** projection of the calc that ends chain when it can (sl__fusable_calc). */
static void sl__cast_step(sl_physical *p, sl__chain *chain, int in_ncols, const sl_type *in_types,
                          int out_ncols, const sl_type *out_types, const int *map, int pos,
                          bool keep_lengths, bool fuse)
{
    bool identity = in_ncols == out_ncols;
    for (int c = 0; identity && c < out_ncols; c++)
        identity = map[c] == c && sl_type_equal_ignoring_null(in_types[c], out_types[c]);
    if (identity)
        return;
    sl_calc_spec *below = fuse ? sl__fusable_calc(chain, in_ncols, out_ncols, map) : NULL;
    const sl_bexpr **exprs = sl__own(p, sl_calloc((size_t)out_ncols + 1, sizeof(sl_bexpr *)));
    for (int c = 0; c < out_ncols; c++) {
        sl_type want = out_types[c];
        int from = map[c];
        sl_bexpr *b;
        if (from < 0) {
            want.not_null = false;
            b = sl_bexpr_new(SL_BX_LITERAL, want, pos); /* text NULL: SQL NULL */
        } else {
            sl_bexpr *col;
            if (below && below->project) {
                col = sl_bexpr_dup(below->exprs[from]); /* what the column would hold */
            } else {
                col = sl_bexpr_new(SL_BX_COLUMN, in_types[from], pos);
                col->col = from;
            }
            if (sl_type_equal_ignoring_null(in_types[from], want) ||
                (keep_lengths && sl__unconverted(in_types[from], want))) {
                b = col;
            } else {
                want.not_null = in_types[from].not_null;
                b = sl_bexpr_new(SL_BX_CAST, want, pos);
                b->args = sl_calloc(1, sizeof(sl_bexpr *));
                b->args[0] = col;
                b->nargs = 1;
            }
        }
        sl_list_push(p->owned_exprs, b);
        exprs[c] = b;
    }
    if (below) {
        below->project = true;
        below->nexprs = out_ncols;
        below->exprs = exprs;
        below->out_types = out_types;
        return;
    }
    sl_calc_spec *cs = sl__own(p, sl_calloc(1, sizeof *cs));
    cs->project = true;
    cs->nexprs = out_ncols;
    cs->exprs = exprs;
    cs->out_types = out_types;
    sl__chain_add(p, chain)->calc = cs;
}

/* The sink's length enforcer: every CHAR(n) / VARCHAR(n) / BINARY(n) /
** VARBINARY(n) column the query gives a value (not STRING / BYTES). Under
** 'ERROR' a shorter value converted from another type is padded, as the
** CAST that 'ERROR' leaves out would have. */
static void sl__length_spec(sl_physical *p, sl_length_enforcer mode, const sl_type *top_types,
                            const sl_table *dst, const sl_lp *root, sl_length_spec *out)
{
    memset(out, 0, sizeof *out);
    if (mode == SL_LENGTH_IGNORE)
        return;
    sl_length_col *cols = sl__own(p, sl_calloc((size_t)dst->ncols + 1, sizeof *cols));
    int n = 0;
    for (int c = 0; c < dst->ncols; c++) {
        sl_type t = dst->cols[c].type;
        bool bounded = (sl_type_is_string(t.id) || sl_type_is_binary(t.id)) &&
                       t.precision < SL_MAX_LENGTH;
        int from = root->sink_map[c];
        if (!bounded || from < 0)
            continue;
        cols[n].col = c;
        cols[n].pad_shorter = !sl_type_equal_ignoring_null(top_types[from], t);
        n++;
    }
    out->mode = mode;
    out->ncols = n;
    out->cols = cols;
    out->pos = root->pos;
}

static int sl__mk_unnest(const void *a, sl_operator **o, sl_error *e)
{
    return sl_unnest_new(a, o, e);
}

/* UNNEST node n's steps: its argument evaluated as an extra last column
** by a calc step unless it is a column already, then the Unnest operator
** (which drops that extra column). */
static void sl__unnest_steps(sl_physical *p, sl__chain *chain, const sl_lp *n)
{
    const sl_lp *in = n->input;
    int nl = in->ncols;
    const sl_bexpr *arg = n->exprs[0];
    sl_unnest_spec *u = sl__own(p, sl_calloc(1, sizeof *u));
    u->keep = nl;
    u->outer = n->join_type == SL_JOIN_LEFT;
    u->ordinality = n->ncols - nl > (arg->type.id == SL_TYPE_MAP ? 2 : 1);
    u->cond = n->nexprs > 1 ? n->exprs[1] : NULL;
    u->tz = p->tz;
    sl_list_push(p->unnests, u);
    if (arg->kind == SL_BX_COLUMN) {
        u->in_ncols = nl;
        u->in_types = sl__types(p, in);
        u->arr_col = arg->col;
    } else {
        sl_type *types = sl__own(p, sl_calloc((size_t)nl + 1, sizeof(sl_type)));
        const sl_bexpr **exprs = sl__own(p, sl_calloc((size_t)nl + 1, sizeof(sl_bexpr *)));
        for (int c = 0; c < nl; c++) {
            sl_bexpr *col = sl_bexpr_new(SL_BX_COLUMN, in->cols[c].type, n->pos);
            col->col = c;
            sl_list_push(p->owned_exprs, col);
            exprs[c] = col;
            types[c] = in->cols[c].type;
        }
        exprs[nl] = arg;
        types[nl] = arg->type;
        sl_calc_spec *cs = sl__own(p, sl_calloc(1, sizeof *cs));
        cs->project = true;
        cs->nexprs = nl + 1;
        cs->exprs = exprs;
        cs->out_types = types;
        sl__chain_add(p, chain)->calc = cs;
        u->in_ncols = nl + 1;
        u->in_types = types;
        u->arr_col = nl;
    }
    sl_step_spec *st = sl__chain_add(p, chain);
    st->name = "Unnest";
    st->create = sl__mk_unnest;
    st->arg = u;
    st->out_ncols = n->ncols;
    st->out_types = sl__types(p, n);
}

static bool sl__stateful(const sl_lp *n)
{
    return n->kind == SL_LP_AGGREGATE || n->kind == SL_LP_OVER || n->kind == SL_LP_NORMALIZE ||
           (n->kind == SL_LP_WINDOW && n->window_fn == SL_WIN_SESSION && !n->merged) ||
           n->kind == SL_LP_OVER_AGG;
}

/* Count in uses[c] the reads of each column of e. */
static void sl__count_reads(const sl_bexpr *e, int *uses, int ncols)
{
    if (!e)
        return;
    if (e->kind == SL_BX_COLUMN && e->col >= 0 && e->col < ncols)
        uses[e->col]++;
    for (int i = 0; i < e->nargs; i++)
        sl__count_reads(e->args[i], uses, ncols);
}

/* Whether e calls nothing non-deterministic. */
static bool sl__deterministic(const sl_bexpr *e)
{
    if (e->kind == SL_BX_CALL && e->fn && !sl_func_is_deterministic(e->fn, e->nargs))
        return false;
    for (int i = 0; i < e->nargs; i++)
        if (!sl__deterministic(e->args[i]))
            return false;
    return true;
}

/* A copy of e reading defs[c] where it read column c (a new tree). */
static sl_bexpr *sl__subst(const sl_bexpr *e, const sl_bexpr *const *defs)
{
    if (e->kind == SL_BX_COLUMN)
        return sl_bexpr_dup(defs[e->col]);
    sl_bexpr *x = sl_bexpr_dup(e); /* its own arguments, replaced below */
    for (int i = 0; i < x->nargs; i++) {
        sl_bexpr *a = sl__subst(e->args[i], defs);
        sl_bexpr_free(x->args[i]);
        x->args[i] = a;
    }
    return x;
}

/* The calc st, just added after chain's first step, a projection over the
** source's columns (the view a table's computed columns and a view's
** columns make, Nexmark's `datagen` under `bid`), becomes one calc with it,
** as Flink merges Calcs: the first projection copied every column of every
** row before the filter above dropped most. Only when the projection calls
** nothing non-deterministic and st reads each column it computes at most
** once (nothing is computed twice); the merged calc computes what it reads
** for the rows its filter keeps. */
static void sl__merge_first_calc(sl_physical *p, sl__chain *chain, sl_calc_spec *st)
{
    if (chain->n != 2 || !chain->steps[0].calc)
        return;
    sl_calc_spec *pr = (sl_calc_spec *)chain->steps[0].calc;
    if (!pr->project || pr->filter || pr->nexprs <= 0)
        return;
    int nc = pr->nexprs;
    int *uses = sl_calloc((size_t)nc, sizeof(int));
    sl__count_reads(st->filter, uses, nc);
    for (int e = 0; st->project && e < st->nexprs; e++)
        sl__count_reads(st->exprs[e], uses, nc);
    bool ok = true;
    for (int c = 0; c < nc && ok; c++) {
        const sl_bexpr *d = pr->exprs[c];
        bool plain = d->kind == SL_BX_COLUMN || d->kind == SL_BX_LITERAL;
        ok = sl__deterministic(d) && (plain || uses[c] + (st->project ? 0 : 1) <= 1);
    }
    sl_free(uses);
    if (!ok)
        return;
    if (st->filter) {
        sl_bexpr *f = sl__subst(st->filter, pr->exprs);
        sl_list_push(p->owned_exprs, f);
        pr->filter = f;
    }
    if (st->project) {
        const sl_bexpr **exprs = sl__own(p, sl_calloc((size_t)st->nexprs + 1, sizeof(sl_bexpr *)));
        for (int e = 0; e < st->nexprs; e++) {
            sl_bexpr *x = sl__subst(st->exprs[e], pr->exprs);
            sl_list_push(p->owned_exprs, x);
            exprs[e] = x;
        }
        pr->nexprs = st->nexprs;
        pr->exprs = exprs;
        pr->out_types = st->out_types;
    }
    chain->n--; /* st is merged: its step is free again */
    memset(&chain->steps[chain->n], 0, sizeof chain->steps[chain->n]);
}

/* Steps for nodes[0..n-1] (bottom-up, over the output of `below`)
** appended to chain: a Filter and the Project above it share one calc step
** (a projection never sees a row the filter removed), and a projection
** right after the source merges with the calc above it (sl__merge_first_calc);
** a UNION node casts the rows to the union's column types (INT into BIGINT,
** ...). */
static int sl__add_steps(sl_physical *p, sl__chain *chain, const sl_lp *below,
                         const sl_lp *const *nodes, int n, int64_t ttl_ms, sl_error *err)
{
    for (int i = 0; i < n; i++) {
        const sl_lp *node = nodes[i];
        if (node->kind == SL_LP_UNION) {
            const sl_lp *prev = i ? nodes[i - 1] : below;
            int *map = sl__own(p, sl_calloc((size_t)node->ncols + 1, sizeof(int)));
            for (int c = 0; c < node->ncols; c++)
                map[c] = c;
            sl__cast_step(p, chain, prev->ncols, sl__types(p, prev), node->ncols,
                          sl__types(p, node), map, node->pos, false, false);
            continue;
        }
        if (node->kind == SL_LP_UNNEST) {
            sl__unnest_steps(p, chain, node);
            continue;
        }
        if (node->kind != SL_LP_FILTER && node->kind != SL_LP_PROJECT) {
            if (sl__operator_step(p, node, ttl_ms, sl__chain_add(p, chain), err) != 0)
                return -1;
            continue;
        }
        sl_calc_spec *st = sl__own(p, sl_calloc(1, sizeof *st));
        sl__chain_add(p, chain)->calc = st;
        if (node->kind == SL_LP_FILTER) {
            st->filter = node->exprs[0];
            if (i + 1 < n && nodes[i + 1]->kind == SL_LP_PROJECT)
                node = nodes[++i]; /* the projection joins the filter's step */
            else
                continue;
        }
        st->project = true;
        st->nexprs = node->nexprs;
        st->exprs = (const sl_bexpr *const *)node->exprs;
        st->out_types = sl__types(p, node);
        if (below && below->kind == SL_LP_SCAN)
            sl__merge_first_calc(p, chain, st);
    }
    return 0;
}

/* The connector's checks of a table an INSERT writes or a query reads (its
** live system): check is its check_sink or check_source. */
static int sl__check_table(const sl_table *dst,
                           int (*check)(const sl_connector *, const sl_kvlist *,
                                        const sl_table_shape *, sl_error *),
                           sl_error *err)
{
    const char **names = sl_calloc((size_t)dst->ncols + 1, sizeof(char *));
    sl_type *types = sl_calloc((size_t)dst->ncols + 1, sizeof(sl_type));
    for (int i = 0; i < dst->ncols; i++) {
        names[i] = dst->cols[i].name;
        types[i] = dst->cols[i].type;
    }
    sl_table_shape shape = {dst->ncols, names, types, dst->npk, dst->pk, dst->npart, dst->part, -1};
    int rc = check(dst->connector, dst->def->options, &shape, err);
    sl_free(names);
    sl_free(types);
    return rc;
}

/* The graph of one plan root being built: its inputs and stages as they
** are made, each with its chain (a stage's upstream stages are made first,
** as the runtime requires). A layer is input i (>= 0) or stage g (-1 - g). */
typedef struct sl__graph {
    sl_physical *p;
    const sl_catalog *cat;
    const sl_physical_opts *o;
    int par;                  /* 'parallelism.default' */
    sl_input_spec *inputs;    /* ninputs, room for cap_in */
    sl__chain *in_chains;     /* their chains */
    int ninputs, cap_in;
    sl_stage_spec *stages;    /* nstages, room for cap_st */
    sl__chain *st_chains;     /* their chains */
    int nstages, cap_st;
    sl_list *scan_needs;      /* sl_lp_scan_need*: the columns each scan's source fills */
    struct sl__part *st_part; /* per stage (room for cap_st): how its rows are partitioned */
    const sl_lp **in_scan;    /* per input (room for cap_in): the SCAN it reads, or NULL */
    bool reuse;               /* sub-plan reuse is on for this graph */
    sl_list *built;           /* sl__built*: nodes whose output ends a stage's chain */
} sl__graph;

/* A node built into a stage (sub-plan reuse): the chain of stage `stage`
** holds its steps up to step `at`, and digest says what it computes. */
typedef struct sl__built {
    char *digest;
    int stage;
    int at;
    const sl_lp *node;
} sl__built;

static void sl__built_free(void *x)
{
    sl__built *b = x;
    sl_free(b->digest);
    sl_free(b);
}

/* How a join's stage partitions its rows: by the join's keys, key k a
** column of each side (lcol[k] of the left input, rcol[k] of the right;
** -1 when that side's key is an expression). A keyed operator above the
** join in its stage whose keys include the keys of a side that is never
** padded with NULLs finds its rows in their task already (Flink's forward
** exchange when the hash distribution is satisfied). */
typedef struct sl__part {
    const sl_lp *join; /* the join, or NULL (nothing known) */
    int nk;            /* its keys */
    int *lcol, *rcol;  /* their columns (owned by p) */
} sl__part;

/* The layers whose chains end with one node's output. */
typedef struct sl__frag {
    int n;       /* layers */
    int *layers; /* them (owned by p) */
} sl__frag;

static sl__chain *sl__layer_chain(sl__graph *g, int layer)
{
    return layer >= 0 ? &g->in_chains[layer] : &g->st_chains[-1 - layer];
}

static void sl__frag_one(sl__graph *g, sl__frag *f, int layer)
{
    f->n = 1;
    f->layers = sl__own(g->p, sl_calloc(2, sizeof(int)));
    f->layers[0] = layer;
}

/* A new stage, zeroed: its index. */
static int sl__stage_slot(sl__graph *g)
{
    if (g->nstages == g->cap_st) {
        int cap = g->cap_st ? g->cap_st * 2 : 4;
        g->stages = sl_realloc(g->stages, (size_t)cap * sizeof *g->stages);
        g->st_chains = sl_realloc(g->st_chains, (size_t)cap * sizeof *g->st_chains);
        g->st_part = sl_realloc(g->st_part, (size_t)cap * sizeof *g->st_part);
        g->cap_st = cap;
    }
    int s = g->nstages++;
    memset(&g->stages[s], 0, sizeof g->stages[s]);
    memset(&g->st_chains[s], 0, sizeof g->st_chains[s]);
    memset(&g->st_part[s], 0, sizeof g->st_part[s]);
    return s;
}

/* A new stage fed by every layer of f (which becomes that stage alone). */
static sl_stage_spec *sl__new_stage(sl__graph *g, sl__frag *f)
{
    int s = sl__stage_slot(g);
    for (int i = 0; i < f->n; i++) {
        int l = f->layers[i];
        if (l >= 0)
            g->inputs[l].to = s + 1;
        else
            g->stages[-1 - l].to = s + 1;
    }
    sl__frag_one(g, f, -1 - s);
    return &g->stages[s];
}

/* Steps for nodes[0..n-1] (bottom-up, over `below`'s output) on every
** layer of f. */
static int sl__frag_steps(sl__graph *g, const sl__frag *f, const sl_lp *below,
                          const sl_lp *const *nodes, int n, sl_error *err)
{
    for (int i = 0; i < f->n; i++)
        if (sl__add_steps(g->p, sl__layer_chain(g, f->layers[i]), below, nodes, n,
                          g->o->state_ttl_ms, err) != 0)
            return -1;
    return 0;
}

/* A projection step onto exprs (owned by p) on every layer of f. */
static void sl__frag_project(sl__graph *g, const sl__frag *f, const sl_bexpr **exprs, int n,
                             const sl_type *types)
{
    sl_calc_spec *cs = sl__own(g->p, sl_calloc(1, sizeof *cs));
    cs->project = true;
    cs->nexprs = n;
    cs->exprs = exprs;
    cs->out_types = types;
    for (int i = 0; i < f->n; i++)
        sl__chain_add(g->p, sl__layer_chain(g, f->layers[i]))->calc = cs;
}

/* A new input, zeroed (its layer in *f). */
static sl_input_spec *sl__new_input(sl__graph *g, sl__frag *f)
{
    if (g->ninputs == g->cap_in) {
        int cap = g->cap_in ? g->cap_in * 2 : 4;
        g->inputs = sl_realloc(g->inputs, (size_t)cap * sizeof *g->inputs);
        g->in_chains = sl_realloc(g->in_chains, (size_t)cap * sizeof *g->in_chains);
        g->in_scan = sl_realloc(g->in_scan, (size_t)cap * sizeof *g->in_scan);
        g->cap_in = cap;
    }
    int i = g->ninputs++;
    sl_input_spec *in = &g->inputs[i];
    memset(in, 0, sizeof *in);
    memset(&g->in_chains[i], 0, sizeof g->in_chains[i]);
    g->in_scan[i] = NULL;
    sl__frag_one(g, f, i);
    return in;
}

/* Whether watermark expressions a and b (either NULL) are the same. */
static bool sl__same_wm(const sl_bexpr *a, const sl_bexpr *b)
{
    if (!a || !b)
        return a == b;
    sl_strbuf x = SL_STRBUF_INIT, y = SL_STRBUF_INIT;
    sl_bexpr_print(&x, a, NULL);
    sl_bexpr_print(&y, b, NULL);
    bool same = strcmp(sl_strbuf_cstr(&x), sl_strbuf_cstr(&y)) == 0 && sl_type_equal(a->type, b->type);
    sl_strbuf_free(&x);
    sl_strbuf_free(&y);
    return same;
}

/* The columns the source of input i fills: also those used[] marks (NULL:
** every one). */
static void sl__need_more(sl__graph *g, int i, const bool *used)
{
    sl_input_spec *in = &g->inputs[i];
    if (!in->source_args.used)
        return;
    if (!used) {
        in->source_args.used = NULL;
        return;
    }
    bool *u = (bool *)in->source_args.used;
    for (int c = 0; c < in->source_args.ncols; c++)
        u[c] = u[c] || used[c];
}

/* Scan reuse (Flink's table.optimizer.reuse-source-enabled): input i reads
** the source of an earlier input of the same table, options and watermark
** (which then fills the columns either needs), rather than one of its own.
** Undone by sl__build_graph for a job whose inputs feed its sink directly
** or which has a LIMIT (sl_input_spec.shares). */
static void sl__share_scan(sl__graph *g, int i)
{
    sl_input_spec *in = &g->inputs[i];
    if (!g->o->reuse_source)
        return;
    for (int k = 0; k < i; k++) {
        sl_input_spec *o = &g->inputs[k];
        if (o->shares || o->create_source != in->create_source ||
            o->source_args.options != in->source_args.options || !o->source_args.table ||
            !in->source_args.table || strcmp(o->source_args.table, in->source_args.table) != 0 ||
            o->source_args.ncols != in->source_args.ncols || !sl__same_wm(o->wm_expr, in->wm_expr))
            continue;
        in->shares = k + 1;
        sl__need_more(g, k, in->source_args.used);
        return;
    }
}

/* A table scan: a new input. */
static int sl__scan_input(sl__graph *g, const sl_lp *scan, sl__frag *f, sl_error *err)
{
    const sl_table *src = sl_catalog_table(g->cat, scan->table);
    if (!src || !src->connector || !src->connector->create_source)
        return sl_error_set(err, SL_ERR_NOT_SUPPORTED, scan->pos,
                            "connector '%s' cannot be read yet",
                            scan->connector ? scan->connector->name : "?");
    if (src->connector->check_source &&
        sl__check_table(src, src->connector->check_source, err) != 0) {
        if (err->position < 0)
            err->position = scan->pos;
        return -1;
    }
    sl_input_spec *in = sl__new_input(g, f);
    const char **names;
    sl_type *types;
    const char *const *meta;
    sl__table_cols(g->p, src, false, &names, &types, &meta);
    in->create_source = src->connector->create_source;
    in->source_args.options = src->def->options;
    in->source_args.ncols = src->ncols;
    in->source_args.names = names;
    in->source_args.types = types;
    in->source_args.parallelism = g->par;
    in->source_args.table = src->name;
    in->source_args.npk = src->npk;
    in->source_args.pk = src->pk;
    in->source_args.npart = src->npart;
    in->source_args.part = src->part;
    in->source_args.meta = meta;
    const bool *used = sl_lp_scan_used(g->scan_needs, scan);
    if (used && scan->ncols == src->ncols) {
        bool *u = sl__own(g->p, sl_malloc((size_t)src->ncols * sizeof(bool)));
        memcpy(u, used, (size_t)src->ncols * sizeof(bool));
        in->source_args.used = u;
    }
    in->wm_expr = scan->watermark;
    g->in_scan[g->ninputs - 1] = scan;
    sl__share_scan(g, g->ninputs - 1);
    return 0;
}

static int sl__frag_build(sl__graph *g, const sl_lp *n, sl__frag *f, sl_error *err);
static int sl__frag_node(sl__graph *g, const sl_lp *n, sl__frag *f, sl_error *err);
static const sl_bexpr *sl__as_type(sl_physical *p, const sl_bexpr *e, sl_type t, int shift);

static int sl__mk_order(const void *a, sl_operator **o, sl_error *e)
{
    return sl_order_new(a, o, e);
}

/* VALUES: an input whose source hands out its rows, each value cast to its
** column's type. */
static int sl__values_input(sl__graph *g, const sl_lp *n, sl__frag *f)
{
    sl_physical *p = g->p;
    const sl_type *types = sl__types(p, n);
    const char **names = sl__own(p, sl_calloc((size_t)n->ncols + 1, sizeof(char *)));
    for (int c = 0; c < n->ncols; c++)
        names[c] = n->cols[c].name;
    const sl_bexpr ***rows = sl__own(p, sl_calloc((size_t)n->nrows + 1, sizeof(sl_bexpr **)));
    for (int r = 0; r < n->nrows; r++) {
        rows[r] = sl__own(p, sl_calloc((size_t)n->ncols + 1, sizeof(sl_bexpr *)));
        for (int c = 0; c < n->ncols; c++)
            rows[r][c] = sl__as_type(p, n->rows[r][c], types[c], 0);
    }
    sl_values_spec *vs = sl__own(p, sl_calloc(1, sizeof *vs));
    vs->nrows = n->nrows;
    vs->rows = (const sl_bexpr *const *const *)rows;
    vs->tz = p->tz;
    sl_list_push(p->values, vs);
    sl_input_spec *in = sl__new_input(g, f);
    in->create_source = sl_values_source_new;
    in->source_args.ncols = n->ncols;
    in->source_args.names = names;
    in->source_args.types = types;
    in->source_args.parallelism = g->par;
    in->source_args.table = "VALUES";
    in->source_args.values = vs;
    return 0;
}

/* ORDER BY / LIMIT / OFFSET (a Limit over a Sort is one operator): one task
** after every row. Batch mode sorts at the end of the input; streaming
** mode sorts by an ascending time attribute as the watermark passes it
** (Flink's temporal sort), or passes a LIMIT's first rows on. */
static int sl__order_stage(sl__graph *g, const sl_lp *n, sl__frag *f, sl_error *err)
{
    sl_physical *p = g->p;
    const sl_lp *lim = n->kind == SL_LP_LIMIT ? n : NULL;
    const sl_lp *sort = lim ? (n->input->kind == SL_LP_SORT ? n->input : NULL) : n;
    const sl_lp *below = sort ? sort->input : lim->input;
    sl_order_spec *o = sl__own(p, sl_calloc(1, sizeof *o));
    o->in_ncols = below->ncols;
    o->in_types = sl__types(p, below);
    o->offset = lim ? lim->offset : 0;
    o->limit = lim ? lim->limit : -1;
    bool updating = below->changelog != SL_CL_INSERT;
    if (sort) {
        sl_sort_key *k = sl__own(p, sl_calloc((size_t)sort->norder + 1, sizeof *k));
        for (int i = 0; i < sort->norder; i++) {
            k[i].col = sort->order[i].col;
            k[i].desc = sort->order[i].desc;
            /* Flink: NULLs are the smallest values unless told otherwise */
            bool first = sort->order[i].nulls ? sort->order[i].nulls == 1 : !sort->order[i].desc;
            k[i].nulls = first ? 1 : 2;
        }
        o->nkeys = sort->norder;
        o->keys = k;
    }
    if (g->o->batch) {
        o->mode = sort || updating ? SL_ORDER_END : SL_ORDER_PASS;
    } else if (sort) {
        const sl_lp_order *k0 = &sort->order[0];
        if (sort->norder < 1 || k0->desc || updating ||
            below->cols[k0->col].rowtime != SL_ROWTIME) {
            sl_error_set(err, SL_ERR_NOT_SUPPORTED, sort->pos,
                         "Sort on a non-time-attribute field is not supported.");
            sl_error_detail(err, "In streaming mode, ORDER BY must start with an event-time "
                                 "attribute in ascending order, over an append-only input.");
            sl_error_hint(err, "SET 'execution.runtime-mode' = 'batch' to sort a bounded "
                               "input by any column.");
            return -1;
        }
        o->mode = SL_ORDER_TIME;
    } else if (updating) {
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, lim->pos,
                     "LIMIT over an updating result is not supported in streaming mode");
        sl_error_hint(err, "SET 'execution.runtime-mode' = 'batch' for the final rows.");
        return -1;
    } else {
        o->mode = SL_ORDER_PASS;
    }
    if (sl__frag_build(g, below, f, err) != 0)
        return -1;
    sl_stage_spec *st = sl__new_stage(g, f);
    st->exchange = SL_EXCHANGE_SINGLE;
    st->parallelism = 1;
    sl_step_spec *step = sl__chain_add(p, sl__layer_chain(g, f->layers[0]));
    step->create = sl__mk_order;
    step->arg = o;
    step->name = o->mode == SL_ORDER_TIME ? "TemporalSort"
                 : o->mode == SL_ORDER_PASS ? "Limit" : sort ? "Sort" : "Limit";
    step->out_ncols = below->ncols;
    step->out_types = o->in_types;
    return 0;
}

/* expr as type t (a CAST where the types differ), a new tree owned by p. */
static const sl_bexpr *sl__as_type(sl_physical *p, const sl_bexpr *e, sl_type t, int shift)
{
    sl_bexpr *b = sl_bexpr_dup(e);
    sl_bexpr_shift(b, shift);
    if (!sl_type_equal_ignoring_null(b->type, t)) {
        sl_bexpr *c = sl_bexpr_new(SL_BX_CAST, t, b->pos);
        c->args = sl_calloc(1, sizeof(sl_bexpr *));
        c->args[0] = b;
        c->nargs = 1;
        b = c;
    }
    sl_list_push(p->owned_exprs, b);
    return b;
}

static const sl_bexpr *sl__null_of(sl_physical *p, sl_type t, int pos)
{
    t.not_null = false;
    sl_bexpr *b = sl_bexpr_new(SL_BX_LITERAL, t, pos); /* text NULL: SQL NULL */
    sl_list_push(p->owned_exprs, b);
    return b;
}

static int sl__mk_join(const void *a, sl_operator **o, sl_error *e)
{
    return sl_join_new(a, o, e);
}

static int sl__mk_temporal_join(const void *a, sl_operator **o, sl_error *e)
{
    return sl_temporal_join_new(a, o, e);
}

static int sl__mk_lookup_join(const void *a, sl_operator **o, sl_error *e)
{
    return sl_lookup_join_new(a, o, e);
}

/* A lookup join: a step on the left side's layers (no exchange, no state)
** looking each row's keys up in the right table through its connector. */
static int sl__lookup_step(sl__graph *g, const sl_lp *n, sl__frag *f, sl_error *err)
{
    sl_physical *p = g->p;
    const sl_lp *l = n->input, *r = n->right;
    const sl_table *t = r->kind == SL_LP_SCAN ? sl_catalog_table(g->cat, r->table) : NULL;
    if (!t || !t->connector || !t->connector->create_lookup)
        return sl__not_yet(n, err);
    if (t->connector->check_source &&
        sl__check_table(t, t->connector->check_source, err) != 0) {
        if (err->position < 0)
            err->position = r->pos;
        return -1;
    }
    if (sl__frag_build(g, l, f, err) != 0)
        return -1;
    int nl = l->ncols;
    sl_list *terms = sl_list_new(), *rest = sl_list_new();
    if (n->nexprs > 0 && n->exprs[0])
        sl_bexpr_conjuncts(n->exprs[0], terms);
    int *rk = sl__own(p, sl_calloc((size_t)terms->n + 1, sizeof(int)));
    const sl_bexpr **ke = sl__own(p, sl_calloc((size_t)terms->n + 1, sizeof(sl_bexpr *)));
    int nk = 0;
    for (int i = 0; i < terms->n; i++) {
        int rc;
        const sl_bexpr *le;
        bool key = sl_lookup_key(terms->items[i], nl, &rc, &le);
        for (int k = 0; key && k < nk; k++)
            key = rk[k] != rc; /* a column equated twice: the second is a condition */
        if (!key) {
            sl_list_push(rest, sl_bexpr_dup(terms->items[i]));
            continue;
        }
        sl_type kt = t->cols[rc].type;
        kt.not_null = false;
        rk[nk] = rc;
        ke[nk++] = sl__as_type(p, le, kt, 0);
    }
    sl_bexpr *cond = sl_bexpr_and_all(rest);
    if (cond)
        sl_list_push(p->owned_exprs, cond);
    sl_list_free(terms, NULL);
    sl_list_free(rest, NULL);
    if (nk == 0)
        return sl__not_yet(n, err);
    sl_lookup_join_spec *js = sl__own(p, sl_calloc(1, sizeof *js));
    js->nl = nl;
    js->l_types = sl__types(p, l);
    js->nkeys = nk;
    js->key_exprs = ke;
    js->type = n->join_type;
    js->cond = cond;
    js->tz = p->tz;
    js->create = t->connector->create_lookup;
    const char **names;
    sl_type *types;
    const char *const *meta;
    sl__table_cols(p, t, false, &names, &types, &meta);
    if (meta) {
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, n->pos,
                     "a lookup join against table \"%s\", which has METADATA columns, is not "
                     "supported",
                     t->name);
        sl_error_hint(err, "Declare the table without its METADATA columns for the lookup.");
        return -1;
    }
    js->args.options = t->def->options;
    js->args.ncols = t->ncols;
    js->args.names = names;
    js->args.types = types;
    js->args.table = t->name;
    js->args.nkeys = nk;
    js->args.keys = rk;
    sl_list_push(p->lookups, js);
    for (int i = 0; i < f->n; i++) {
        sl_step_spec *step = sl__chain_add(p, sl__layer_chain(g, f->layers[i]));
        step->create = sl__mk_lookup_join;
        step->arg = js;
        step->name = "LookupJoin";
        step->out_ncols = n->ncols;
        step->out_types = sl__types(p, n);
    }
    return 0;
}

/* A regular join: both sides' rows, tagged with their side and keys, into
** one stage hashed by the keys (all to one task without keys). */
static int sl__join_stage(sl__graph *g, const sl_lp *n, sl__frag *f, sl_error *err)
{
    sl_physical *p = g->p;
    const sl_lp *l = n->input, *r = n->right;
    int nl = l->ncols, nr = r->ncols;
    if (n->lookup)
        return sl__lookup_step(g, n, f, err);
    if (n->join_type != SL_JOIN_INNER && n->join_type != SL_JOIN_LEFT &&
        n->join_type != SL_JOIN_RIGHT && n->join_type != SL_JOIN_FULL &&
        n->join_type != SL_JOIN_CROSS)
        return sl__not_yet(n, err);
    sl__frag lf, rf;
    if (sl__frag_build(g, l, &lf, err) != 0 || sl__frag_build(g, r, &rf, err) != 0)
        return -1;
    /* Keys and the residual condition. */
    sl_list *terms = sl_list_new(), *keys = sl_list_new(), *rest = sl_list_new();
    if (n->nexprs > 0 && n->exprs[0])
        sl_bexpr_conjuncts(n->exprs[0], terms);
    /* l.k IS NOT DISTINCT FROM r.k: a key whose NULLs match (regular joins) */
    bool regular = !n->interval && !n->window_join && !n->temporal;
    uint64_t nulls_equal = 0;
    for (int i = 0; i < terms->n; i++) {
        const sl_bexpr *t = terms->items[i];
        sl_type common;
        bool nullsafe = t->kind == SL_BX_CALL && t->fn->id == SL_FN_IS_NOT_DISTINCT && regular &&
                        keys->n < 64;
        if (t->kind == SL_BX_CALL && (t->fn->id == SL_FN_EQ || nullsafe) && t->nargs == 2) {
            int a = sl_join_side(t->args[0], nl), b = sl_join_side(t->args[1], nl);
            if (a >= 0 && b >= 0 && a != b &&
                sl_type_common(t->args[0]->type, t->args[1]->type, &common)) {
                if (nullsafe)
                    nulls_equal |= (uint64_t)1 << keys->n;
                sl_list_push(keys, (void *)t);
                continue;
            }
        }
        sl_list_push(rest, (void *)t);
    }
    int nk = keys->n ? keys->n : 1; /* no keys: one constant key, one task */
    int width = 1 + nk + nl + nr;
    sl_type *types = sl__own(p, sl_calloc((size_t)width + 1, sizeof(sl_type)));
    const sl_bexpr **le = sl__own(p, sl_calloc((size_t)width + 1, sizeof(sl_bexpr *)));
    const sl_bexpr **re = sl__own(p, sl_calloc((size_t)width + 1, sizeof(sl_bexpr *)));
    types[0] = sl_type_make(SL_TYPE_INT);
    types[0].not_null = true;
    sl_bexpr *side0 = sl_bexpr_new(SL_BX_LITERAL, types[0], n->pos);
    sl_bexpr *side1 = sl_bexpr_new(SL_BX_LITERAL, types[0], n->pos);
    side0->text = sl_strdup("0");
    side1->text = sl_strdup("1");
    sl_list_push(p->owned_exprs, side0);
    sl_list_push(p->owned_exprs, side1);
    le[0] = side0;
    re[0] = side1;
    for (int k = 0; k < nk; k++) {
        if (!keys->n) {
            types[1] = types[0];
            le[1] = side0; /* the same constant on both sides */
            re[1] = side0;
            break;
        }
        const sl_bexpr *t = keys->items[k];
        const sl_bexpr *a = t->args[0], *b = t->args[1];
        if (sl_join_side(a, nl) == 1) {
            const sl_bexpr *x = a;
            a = b;
            b = x;
        }
        sl_type common;
        sl_type_common(a->type, b->type, &common);
        common.not_null = false;
        types[1 + k] = common;
        le[1 + k] = sl__as_type(p, a, common, 0);
        re[1 + k] = sl__as_type(p, b, common, -nl);
    }
    for (int c = 0; c < nl + nr; c++) {
        const sl_lp_col *col = c < nl ? &l->cols[c] : &r->cols[c - nl];
        sl_type t = col->type;
        t.not_null = false;
        types[1 + nk + c] = t;
        sl_bexpr *ref = sl_bexpr_new(SL_BX_COLUMN, col->type, n->pos);
        ref->col = c < nl ? c : c - nl;
        sl_list_push(p->owned_exprs, ref);
        le[1 + nk + c] = c < nl ? ref : sl__null_of(p, t, n->pos);
        re[1 + nk + c] = c < nl ? sl__null_of(p, t, n->pos) : ref;
    }
    sl__frag_project(g, &lf, le, width, types);
    sl__frag_project(g, &rf, re, width, types);
    /* Both sides feed one stage. */
    sl__frag both = {lf.n + rf.n, sl__own(p, sl_calloc((size_t)(lf.n + rf.n) + 1, sizeof(int)))};
    memcpy(both.layers, lf.layers, (size_t)lf.n * sizeof(int));
    memcpy(both.layers + lf.n, rf.layers, (size_t)rf.n * sizeof(int));
    sl_stage_spec *st = sl__new_stage(g, &both);
    *f = both;
    if (keys->n) {
        int *kc = sl__own(p, sl_calloc((size_t)nk + 1, sizeof(int)));
        for (int k = 0; k < nk; k++)
            kc[k] = 1 + k;
        st->exchange = SL_EXCHANGE_HASH;
        st->nkeys = nk;
        st->keys = kc;
        st->parallelism = g->par;
        sl__part *pt = &g->st_part[g->nstages - 1];
        pt->join = n;
        pt->nk = nk;
        pt->lcol = sl__own(p, sl_calloc((size_t)nk + 1, sizeof(int)));
        pt->rcol = sl__own(p, sl_calloc((size_t)nk + 1, sizeof(int)));
        for (int k = 0; k < nk; k++) {
            const sl_bexpr *t = keys->items[k], *a = t->args[0], *b = t->args[1];
            if (sl_join_side(a, nl) == 1) {
                const sl_bexpr *x = a;
                a = b;
                b = x;
            }
            pt->lcol[k] = a->kind == SL_BX_COLUMN ? a->col : -1;
            pt->rcol[k] = b->kind == SL_BX_COLUMN ? b->col - nl : -1;
        }
    } else {
        st->exchange = SL_EXCHANGE_SINGLE;
        st->parallelism = 1;
    }
    /* The residual condition: the terms that are not keys, over l ++ r. */
    for (int i = 0; i < rest->n; i++)
        rest->items[i] = sl_bexpr_dup(rest->items[i]);
    sl_bexpr *cond = sl_bexpr_and_all(rest);
    if (cond)
        sl_list_push(p->owned_exprs, cond);
    sl_join_spec *js = sl__own(p, sl_calloc(1, sizeof *js));
    js->in_ncols = width;
    js->in_types = types;
    js->nkeys = nk;
    js->nulls_equal = nulls_equal;
    js->nl = nl;
    js->nr = nr;
    js->type = n->join_type == SL_JOIN_CROSS ? SL_JOIN_INNER : n->join_type;
    js->cond = cond;
    js->ttl_ms = g->o->state_ttl_ms;
    js->tz = p->tz;
    js->interval = n->interval;
    js->window = n->window_join;
    js->temporal = n->temporal;
    js->ltime = n->ltime;
    js->rtime = n->rtime;
    js->lower_ns = n->lower_ns;
    js->upper_ns = n->upper_ns;
    js->append_only[0] = n->input->changelog == SL_CL_INSERT;
    js->append_only[1] = n->right->changelog == SL_CL_INSERT;
    if (n->window_join) { /* late rows: each side's columns by name */
        const char **names = sl__own(p, sl_calloc((size_t)width + 1, sizeof(char *)));
        for (int c = 0; c < nl && c < n->input->ncols; c++)
            names[1 + nk + c] = n->input->cols[c].name;
        for (int c = 0; c < nr && c < n->right->ncols; c++)
            names[1 + nk + nl + c] = n->right->cols[c].name;
        js->in_names = names;
    }
    sl_list_push(p->joins, js);
    sl_list_free(terms, NULL);
    sl_list_free(keys, NULL);
    sl_list_free(rest, NULL);
    sl__chain *chain = sl__layer_chain(g, f->layers[0]);
    sl_step_spec *step = sl__chain_add(p, chain);
    step->create = n->temporal ? sl__mk_temporal_join : sl__mk_join;
    step->arg = js;
    step->name = n->temporal ? "TemporalJoin" : n->interval ? "IntervalJoin"
                 : n->window_join ? "WindowJoin" : "Join";
    step->out_ncols = n->ncols;
    step->out_types = sl__types(p, n);
    if (n->window_join)
        return sl__side_plan(p, &sl_side_late, n, &step->side[SL_SIDE_LATE], err) < 0 ? -1 : 0;
    return 0;
}

/* Late rows of a window aggregation n kept ('table.exec.late-rows.table')
** whose input projection dropped the window's time column (the query does
** not use it): the projection's calc, the last step of the one layer below,
** carries it on as one more column, so that each late row has its event
** time. Returns that calc, or NULL (nothing to do). */
static const sl_calc_spec *sl__late_time_calc(sl__graph *g, const sl_lp *n, const sl__frag *f)
{
    sl_physical *p = g->p;
    bool late = false;
    for (int i = 0; i < g->o->nsides; i++)
        late = late || g->o->sides[i].kind == &sl_side_late;
    int wk[3];
    const sl_lp *win = late && n->kind == SL_LP_AGGREGATE && n->window_agg
                           ? sl_lp_agg_window(n, wk)
                           : NULL;
    if (!win || win->window_fn == SL_WIN_SESSION || f->n != 1 || !n->input ||
        n->input->kind != SL_LP_PROJECT)
        return NULL;
    for (int c = 0; c < n->input->ncols; c++)
        if (sl__column_of(n->input, c, win) == win->time_col)
            return NULL; /* the query keeps it */
    const sl_lp *below = n->input->input; /* the projection reads the TVF's columns */
    if (below && below->kind == SL_LP_FILTER)
        below = below->input;
    sl__chain *chain = sl__layer_chain(g, f->layers[0]);
    if (below != win || chain->n == 0 || !chain->steps[chain->n - 1].calc)
        return NULL;
    sl_calc_spec *cs = (sl_calc_spec *)chain->steps[chain->n - 1].calc;
    if (!cs->project || cs->nexprs != n->input->nexprs ||
        cs->exprs != (const sl_bexpr *const *)n->input->exprs)
        return NULL;
    int ne = cs->nexprs;
    const sl_bexpr **exprs = sl__own(p, sl_calloc((size_t)ne + 2, sizeof(sl_bexpr *)));
    sl_type *types = sl__own(p, sl_calloc((size_t)ne + 2, sizeof(sl_type)));
    memcpy(exprs, cs->exprs, (size_t)ne * sizeof(sl_bexpr *));
    memcpy(types, cs->out_types, (size_t)ne * sizeof(sl_type));
    sl_bexpr *col = sl_bexpr_new(SL_BX_COLUMN, win->cols[win->time_col].type, n->pos);
    col->col = win->time_col;
    sl_list_push(p->owned_exprs, col);
    exprs[ne] = col;
    types[ne] = col->type;
    cs->nexprs = ne + 1;
    cs->exprs = exprs;
    cs->out_types = types;
    return cs;
}

/* Whether stateful node n (a GROUP BY or a Top-N / deduplication, not per
** window) can run in the stage f of the join below it (sl__part): its
** keys, seen through the projections and filters between them, include
** every key column of one side of the join that is never NULL-padded. */
static bool sl__forward(sl__graph *g, const sl_lp *n, const sl__frag *f)
{
    if (f->n != 1 || f->layers[0] >= 0 || n->nkeys <= 0 || n->window_agg ||
        (n->kind != SL_LP_AGGREGATE && n->kind != SL_LP_OVER))
        return false;
    const sl__part *pt = &g->st_part[-1 - f->layers[0]];
    if (!pt->join || g->stages[-1 - f->layers[0]].parallelism != g->par)
        return false;
    const sl_lp *j = pt->join;
    int nl = j->input->ncols;
    bool side_ok[2] = {j->join_type == SL_JOIN_INNER || j->join_type == SL_JOIN_LEFT,
                       j->join_type == SL_JOIN_INNER || j->join_type == SL_JOIN_RIGHT};
    int *at = sl_calloc((size_t)n->nkeys + 1, sizeof(int)); /* each key as a join column */
    for (int k = 0; k < n->nkeys; k++) {
        int col = n->keys[k];
        const sl_lp *x = n->input;
        while (x != j && col >= 0) {
            if (x->kind == SL_LP_PROJECT) {
                const sl_bexpr *e = col < x->nexprs ? x->exprs[col] : NULL;
                col = e && e->kind == SL_BX_COLUMN ? e->col : -1;
            } else if (x->kind != SL_LP_FILTER) {
                col = -1;
            }
            x = x->input;
        }
        at[k] = col;
    }
    bool ok = false;
    for (int s = 0; s < 2 && !ok; s++) {
        ok = side_ok[s];
        for (int kk = 0; kk < pt->nk && ok; kk++) {
            int want = s == 0 ? pt->lcol[kk] : pt->rcol[kk] < 0 ? -1 : nl + pt->rcol[kk];
            bool found = false;
            for (int k = 0; k < n->nkeys && !found; k++)
                found = want >= 0 && at[k] == want;
            ok = found;
        }
    }
    sl_free(at);
    return ok;
}

/* ------------------------------------------------------------------------
** Sub-plan reuse (Flink's table.optimizer.reuse-sub-plan-enabled): a node
** computing what one built before computes (the same plan below it, as
** EXPLAIN prints it, the same types, nothing non-deterministic), whose
** output ended a stage's chain, is not built again: a new stage forks
** from that stage's chain where the node's steps ended (sl_stage_spec.fork).
** Nexmark q5 aggregates its bids by auction and window once, not twice.
*/

/* Whether every expression of the plan under n is deterministic. */
static bool sl__lp_deterministic(const sl_lp *n)
{
    if (!n)
        return true;
    for (int i = 0; i < n->nexprs; i++)
        if (n->exprs[i] && !sl__deterministic(n->exprs[i]))
            return false;
    for (int r = 0; r < n->nrows; r++)
        for (int c = 0; c < n->ncols; c++)
            if (n->rows[r][c] && !sl__deterministic(n->rows[r][c]))
                return false;
    if (n->kind == SL_LP_APPLY || n->kind == SL_LP_SINK)
        return false;
    return sl__lp_deterministic(n->input) && sl__lp_deterministic(n->right);
}

/* What EXPLAIN does not print of the plan under n: each node's column
** types, and what the analysis set on it from its consumers (whether
** an aggregation emits -U rows, a Top-N its rank, a HOP window its slices,
** a SESSION window is merged), which twins read by different consumers may
** not share. */
static void sl__lp_facts(sl_strbuf *sb, const sl_lp *n)
{
    if (!n)
        return;
    sl_strbuf_appendf(sb, "(%d%d%d%d%d%d%d%d %lld %lld %d %d:", n->no_before, n->rank_number,
                      n->sliced, n->merged, n->window_agg, n->interval, n->window_join,
                      n->temporal, (long long)n->rank_limit, (long long)n->rank_start, n->ltime,
                      n->rtime);
    for (int c = 0; c < n->ncols; c++) {
        sl_type_format(sb, n->cols[c].type);
        sl_strbuf_appendf(sb, "%s %d,", n->cols[c].type.not_null ? " NOT NULL" : "",
                          n->cols[c].rowtime);
    }
    sl__lp_facts(sb, n->input);
    sl__lp_facts(sb, n->right);
    sl_strbuf_append_char(sb, ')');
}

/* What node n computes, for comparing with the nodes built before (NULL:
** never reused). Caller frees. */
static char *sl__digest(const sl__graph *g, const sl_lp *n)
{
    if (!g->reuse || n->kind == SL_LP_SCAN || n->kind == SL_LP_VALUES ||
        !sl__lp_deterministic(n))
        return NULL;
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_lp_explain(&sb, n);
    sl__lp_facts(&sb, n);
    return sl_strbuf_detach(&sb);
}

/* Plans a (built) and b (its twin, not built) are the same shape: the
** sources of a's scans fill the columns b's scans would have read too (a
** column the plan above b reads may be one nothing above a reads). */
static void sl__merge_needs(sl__graph *g, const sl_lp *a, const sl_lp *b)
{
    if (!a || !b)
        return;
    if (a->kind == SL_LP_SCAN) {
        const bool *used = sl_lp_scan_used(g->scan_needs, b);
        for (int i = 0; i < g->ninputs; i++)
            if (g->in_scan[i] == a) {
                sl__need_more(g, i, used);
                if (g->inputs[i].shares) /* the input reading for it */
                    sl__need_more(g, g->inputs[i].shares - 1, used);
            }
        return;
    }
    sl__merge_needs(g, a->input, b->input);
    sl__merge_needs(g, a->right, b->right);
}

/* The layers producing node n's output (sl__frag_node), or a fork of the
** stage that produces a twin's (sub-plan reuse). */
static int sl__frag_build(sl__graph *g, const sl_lp *n, sl__frag *f, sl_error *err)
{
    char *digest = sl__digest(g, n);
    for (int i = 0; digest && i < g->built->n; i++) {
        const sl__built *b = g->built->items[i];
        if (strcmp(b->digest, digest) != 0)
            continue;
        sl_free(digest);
        sl__merge_needs(g, b->node, n);
        int s = sl__stage_slot(g);
        sl_stage_spec *st = &g->stages[s];
        st->fork = b->stage + 1;
        st->fork_at = b->at;
        st->exchange = SL_EXCHANGE_SINGLE;
        st->parallelism = g->stages[b->stage].parallelism;
        sl__frag_one(g, f, -1 - s);
        return 0;
    }
    if (sl__frag_node(g, n, f, err) != 0) {
        sl_free(digest);
        return -1;
    }
    int stage = f->n == 1 && f->layers[0] < 0 ? -1 - f->layers[0] : -1;
    if (!digest || stage < 0 || g->stages[stage].fork) {
        sl_free(digest);
        return 0;
    }
    sl__built *b = sl_calloc(1, sizeof *b);
    b->digest = digest;
    b->stage = stage;
    b->at = g->st_chains[stage].n;
    b->node = n;
    sl_list_push(g->built, b);
    return 0;
}

/* The layers producing node n's output, with n's steps on their chains:
** a scan is an input; stateless nodes are steps on the layers below them; a
** stateful node starts a stage after an exchange by its keys (all rows to
** one task without keys); UNION ALL is the layers of both sides (each
** casting its rows to the union's types); a join is a stage both sides feed. */
static int sl__frag_node(sl__graph *g, const sl_lp *n, sl__frag *f, sl_error *err)
{
    sl_physical *p = g->p;
    switch (n->kind) {
    case SL_LP_SCAN:
        return sl__scan_input(g, n, f, err);
    case SL_LP_UNION: {
        sl__frag lf, rf;
        if (sl__frag_build(g, n->input, &lf, err) != 0)
            return -1;
        const sl_lp *un = n;
        if (sl__frag_steps(g, &lf, n->input, &un, 1, err) != 0 ||
            sl__frag_build(g, n->right, &rf, err) != 0 ||
            sl__frag_steps(g, &rf, n->right, &un, 1, err) != 0)
            return -1;
        f->n = lf.n + rf.n;
        f->layers = sl__own(p, sl_calloc((size_t)f->n + 1, sizeof(int)));
        memcpy(f->layers, lf.layers, (size_t)lf.n * sizeof(int));
        memcpy(f->layers + lf.n, rf.layers, (size_t)rf.n * sizeof(int));
        return 0;
    }
    case SL_LP_JOIN:
        return sl__join_stage(g, n, f, err);
    case SL_LP_VALUES:
        return sl__values_input(g, n, f);
    case SL_LP_SORT:
    case SL_LP_LIMIT:
        return sl__order_stage(g, n, f, err);
    default:
        break;
    }
    if (!n->input)
        return sl__not_yet(n, err);
    if (sl__stateful(n)) {
        if (sl__frag_build(g, n->input, f, err) != 0)
            return -1;
        if (sl__forward(g, n, f)) /* its rows are in their task: on in the join's stage */
            return sl__add_steps(p, sl__layer_chain(g, f->layers[0]), NULL, &n, 1,
                                 g->o->state_ttl_ms, err);
        const sl_calc_spec *calc = sl__late_time_calc(g, n, f);
        sl_stage_spec *st = sl__new_stage(g, f);
        st->nkeys = n->nkeys;
        st->keys = n->keys;
        int wk[3];
        const sl_lp *win = n->window_agg ? sl_lp_agg_window(n, wk) : NULL;
        if (win && (win->window_fn == SL_WIN_SESSION || n->sliced)) {
            /* by the partition keys only (a key's slices merge in one task) */
            int *pk = sl__own(p, sl_calloc((size_t)n->nkeys + 1, sizeof(int)));
            st->nkeys = 0;
            for (int x = 0; x < n->nkeys; x++)
                if (x != wk[0] && x != wk[1] && x != wk[2])
                    pk[st->nkeys++] = n->keys[x];
            st->keys = pk;
        }
        st->exchange = st->nkeys > 0 ? SL_EXCHANGE_HASH : SL_EXCHANGE_SINGLE;
        st->parallelism = st->nkeys > 0 ? g->par : 1;
        p->late_time = calc ? n : NULL;
        int rc = sl__add_steps(p, sl__layer_chain(g, f->layers[0]), NULL, &n, 1,
                               g->o->state_ttl_ms, err);
        p->late_time = NULL;
        return rc;
    }
    /* A run of stateless nodes down to the next scan, union, join or
    ** stateful node: steps on the layers below (a Filter and the Project
    ** above it share one calc). */
    int depth = 0;
    const sl_lp *base = n;
    while (base->input && base->kind != SL_LP_JOIN && base->kind != SL_LP_UNION &&
           !sl__stateful(base) && base->kind != SL_LP_SCAN && base->kind != SL_LP_SORT &&
           base->kind != SL_LP_LIMIT) {
        base = base->input;
        depth++;
    }
    const sl_lp **run = sl__own(p, sl_calloc((size_t)depth + 1, sizeof(sl_lp *)));
    int k = depth;
    for (const sl_lp *m = n; m != base; m = m->input)
        run[--k] = m;
    if (sl__frag_build(g, base, f, err) != 0)
        return -1;
    return sl__frag_steps(g, f, base, run, depth, err);
}

/* Which kinds of time attribute the plan's windows are over: bit 1 event
** time, bit 2 processing time. */
static int sl__window_times(const sl_lp *n)
{
    if (!n)
        return 0;
    int m = sl__window_times(n->input) | sl__window_times(n->right);
    if (n->kind == SL_LP_WINDOW && n->time_col >= 0 && n->time_col < n->input->ncols)
        m |= n->input->cols[n->time_col].rowtime == SL_PROCTIME ? 2 : 1;
    return m;
}

/* The graph of one plan root (an INSERT's SINK or a query) into spec: its
** inputs, stages, sink and limit. */
static int sl__build_graph(sl_physical *p, const sl_lp *root, const sl_catalog *cat,
                           const sl_physical_opts *o, sl_job_spec *spec, sl_error *err)
{
    const sl_lp *top = root->kind == SL_LP_SINK ? root->input : root;
    int64_t limit = -1;
    if (root->kind != SL_LP_SINK && top->kind == SL_LP_LIMIT && top->limit >= 0) {
        limit = top->limit; /* a query's LIMIT: the job stops after that many rows */
        if (top->offset == 0 && top->input->changelog == SL_CL_INSERT)
            top = top->input; /* and needs no operator (an ORDER BY below has its own) */
    }
    const sl_table *dst = NULL;
    if (root->kind == SL_LP_SINK) {
        dst = sl_catalog_table(cat, root->table);
        if (dst && dst->connector && dst->connector->check_sink &&
            sl__check_table(dst, dst->connector->check_sink, err) != 0) {
            if (err->position < 0)
                err->position = root->pos;
            return -1;
        }
        if (!dst || !dst->connector || !dst->connector->create_sink)
            return sl_error_set(err, SL_ERR_NOT_SUPPORTED, root->pos,
                                "connector '%s' cannot be written yet",
                                root->connector ? root->connector->name : "?");
    }
    int par = o->parallelism > 0 ? o->parallelism : 1;
    sl__graph g = {.p = p, .cat = cat, .o = o, .par = par};
    /* Sub-plan reuse: not for a query with a LIMIT, whose sink cuts its rows. */
    g.reuse = o->reuse_subplan && limit < 0;
    g.built = sl_list_new();
    /* The columns each source must fill; with side outputs (late rows,
    ** conflicts: whole input rows written elsewhere) every column. */
    g.scan_needs = sl_list_new();
    if (o->nsides == 0)
        sl_lp_scan_needs(root, g.scan_needs);
    sl__frag top_f = {0, NULL};
    int times = sl__window_times(top);
    int rc = times == 3 ? sl_error_set(err, SL_ERR_NOT_SUPPORTED, root->pos,
                                       "a job cannot have windows over processing time and "
                                       "windows over event time")
                        : sl__frag_build(&g, top, &top_f, err);
    /* Windows over PROCTIME(): every input's watermark is the processing time. */
    for (int i = 0; rc == 0 && times == 2 && i < g.ninputs; i++) {
        g.inputs[i].proctime = true;
        g.inputs[i].wm_expr = NULL;
    }
    /* The sink is chained to the last stage, or to every input without one:
    ** layers of several stages (UNION ALL of aggregations) meet first. */
    if (rc == 0 && g.nstages && (top_f.n != 1 || top_f.layers[0] != -g.nstages)) {
        sl_stage_spec *st = sl__new_stage(&g, &top_f);
        st->exchange = SL_EXCHANGE_SINGLE;
        st->parallelism = 1;
    }
    /* The sink: the INSERT's mapping onto the table's columns ends the last
    ** chain. A query's result (and its LIMIT) is collected by one task;
    ** 'sink.parallelism' sets the sink's own. */
    int64_t ninput_tasks = (int64_t)par * g.ninputs; /* input tasks of a job without stages */
    if (rc == 0 && !g.nstages && ninput_tasks > SL_MAX_PARALLELISM)
        rc = sl_error_set(err, SL_ERR_PROGRAM_LIMIT, -1,
                          "the job would read with %lld tasks, more than %d", (long long)ninput_tasks,
                          SL_MAX_PARALLELISM);
    int last_par = g.nstages ? g.stages[g.nstages - 1].parallelism
                             : (int)(rc == 0 ? ninput_tasks : 1);
    int sink_par = last_par;
    const char *sp = dst ? sl_kvlist_get(dst->def->options, "sink.parallelism") : NULL;
    if (!dst || limit >= 0)
        sink_par = 1;
    else if (sp)
        sink_par = atoi(sp);
    if (rc == 0 && sink_par != last_par) {
        sl_stage_spec *st = sl__new_stage(&g, &top_f);
        st->parallelism = sink_par;
        st->exchange = sink_par == 1 ? SL_EXCHANGE_SINGLE : SL_EXCHANGE_HASH;
        if (st->exchange == SL_EXCHANGE_HASH) { /* spread rows by all their columns */
            int *keys = sl__own(p, sl_calloc((size_t)top->ncols + 1, sizeof(int)));
            for (int c = 0; c < top->ncols; c++)
                keys[c] = c;
            st->nkeys = top->ncols;
            st->keys = keys;
        }
    }
    const char **sink_names = NULL;
    sl_type *sink_types = NULL;
    if (rc == 0 && dst) {
        const char *const *sink_meta;
        sl__table_cols(p, dst, true, &sink_names, &sink_types, &sink_meta);
        const sl_type *top_types = sl__types(p, top);
        for (int i = 0; i < top_f.n; i++) /* the last stage, or every input */
            sl__cast_step(p, sl__layer_chain(&g, top_f.layers[i]), top->ncols, top_types,
                          dst->ncols, sink_types, root->sink_map, root->pos,
                          o->length_enforcer == SL_LENGTH_ERROR, true);
        sl__length_spec(p, o->length_enforcer, top_types, dst, root, &spec->sink_length);
        spec->create_sink = dst->connector->create_sink;
        spec->sink_args.options = dst->def->options;
        spec->sink_args.ncols = dst->ncols;
        spec->sink_args.names = sink_names;
        spec->sink_args.types = sink_types;
        spec->sink_args.table = dst->name;
        spec->sink_args.npk = dst->npk;
        spec->sink_args.pk = dst->pk;
        spec->sink_args.npart = dst->npart;
        spec->sink_args.part = dst->part;
        spec->sink_args.meta = sink_meta;
    } else if (rc == 0) {
        const char **names = sl__own(p, sl_calloc((size_t)top->ncols + 1, sizeof(char *)));
        sl_type *types = sl__own(p, sl_calloc((size_t)top->ncols + 1, sizeof(sl_type)));
        for (int c = 0; c < top->ncols; c++) {
            names[c] = top->cols[c].name;
            types[c] = top->cols[c].type;
        }
        spec->create_sink = o->result_sink;
        spec->sink_args.ncols = top->ncols;
        spec->sink_args.names = names;
        spec->sink_args.types = types;
        spec->sink_args.ctx = o->result_ctx;
    }
    /* Shared scans only where every chain ends in an exchange, which reads
    ** the polled rows and changes none (a sink may; a LIMIT cuts them). */
    for (int i = 0; i < g.ninputs && (!g.nstages || limit >= 0); i++)
        g.inputs[i].shares = 0;
    /* The chains into the specs; a layer feeding the next one in order says
    ** nothing (the layouts of jobs without joins stay what they were). */
    for (int i = 0; i < g.ninputs; i++) {
        g.inputs[i].steps = g.in_chains[i].steps;
        g.inputs[i].nsteps = g.in_chains[i].n;
        if (g.inputs[i].to == 1)
            g.inputs[i].to = 0;
    }
    for (int s = 0; s < g.nstages; s++) {
        g.stages[s].steps = g.st_chains[s].steps;
        g.stages[s].nsteps = g.st_chains[s].n;
        if (g.stages[s].to == s + 2)
            g.stages[s].to = 0;
    }
    sl_free(g.in_chains);
    sl_free(g.in_scan);
    sl_list_free(g.built, sl__built_free);
    sl_free(g.st_part);
    sl_free(g.st_chains);
    sl_list_free(g.scan_needs, sl_lp_scan_need_free);
    if (g.inputs)
        sl__own(p, g.inputs);
    if (g.stages)
        sl__own(p, g.stages);
    if (rc != 0)
        return -1;
    spec->parallelism = par;
    spec->ninputs = g.ninputs;
    spec->inputs = g.inputs;
    spec->nstages = g.nstages;
    spec->stages = g.stages;
    spec->sink_args.job = o->job_name;
    spec->limit = limit;
    return 0;
}

int sl__side_plan(sl_physical *p, const sl_side_kind *kind, const sl_lp *n,
                  const sl_side_spec **out, sl_error *err)
{
    *out = NULL;
    /* A statement set plans each INSERT on its own, so two INSERTs reading
    ** the same view run the same operator twice: only the first of such
    ** twins (the same kind, the same plan below) writes the side table, or
    ** every late row and conflict would be recorded once per INSERT. */
    sl_strbuf digest = SL_STRBUF_INIT;
    sl_strbuf_appendf(&digest, "%s\n", kind->option);
    sl_lp_explain(&digest, n);
    for (int i = 0; i < p->side_twins->n; i++)
        if (strcmp(p->side_twins->items[i], sl_strbuf_cstr(&digest)) == 0) {
            sl_strbuf_free(&digest);
            return 1;
        }
    sl_list_push(p->side_twins, sl_strbuf_detach(&digest));
    for (int i = 0; i < p->sides->n; i++)
        if (p->side_kinds[i] == kind) {
            *out = p->sides->items[i];
            return 0;
        }
    const sl_side_table *use = NULL;
    for (int i = 0; p->o && i < p->o->nsides && !use; i++)
        if (p->o->sides[i].kind == kind)
            use = &p->o->sides[i];
    if (!use || p->sides->n >= SL_SIDE_MAX)
        return 0;
    sl_side_spec *sp = NULL;
    if (sl_side_resolve(p->cat, kind, use->table, use->guarantee, &sp, err) != 0)
        return -1;
    sp->sink_args.job = p->o->job_name;
    p->side_kinds[p->sides->n] = kind;
    sl_list_push(p->sides, sp);
    *out = sp;
    return 0;
}

/* Join a sink running guarantee g by mechanism mech into the job's
** participants: the exactly-once sinks of a transactional connector write
** through one participant per system and cluster (the 'url' of a
** database, the brokers of Kafka), in the role the resolver chose. */
static int sl__join_participant(sl_physical *p, sl_participant_spec *parts, int *nparts,
                                int room, const sl_table *dst, sl_guarantee g,
                                sl_sink_mechanism mech, sl_sink_args *args, int pos,
                                sl_error *err)
{
    const sl_catalog *cat = p->cat;
    args->guarantee = g;
    const sl_connector *c = dst->connector;
    if (g != SL_GUARANTEE_EXACTLY_ONCE || !c->create_participant ||
        (mech != SL_MECH_LAST_RESOURCE && mech != SL_MECH_2PC_PREPARABLE))
        return 0;
    const char *cluster = c->caps.cluster_option
                              ? sl_kvlist_get(dst->def->options, c->caps.cluster_option)
                              : NULL;
    int slot = 0;
    for (; slot < *nparts; slot++) {
        const sl_participant_args *a = &parts[slot].args;
        const sl_table *first = sl_catalog_table(cat, a->tables[0]);
        const char *fc = c->caps.cluster_option
                             ? sl_kvlist_get(a->options[0], c->caps.cluster_option)
                             : NULL;
        if (parts[slot].create == c->create_participant && first &&
            first->connector->caps.txn_system && c->caps.txn_system &&
            strcmp(first->connector->caps.txn_system, c->caps.txn_system) == 0 &&
            (cluster && fc ? strcmp(cluster, fc) == 0 : cluster == fc))
            break;
    }
    if (slot == *nparts) {
        if (*nparts == SL_MAX_PARTICIPANTS)
            return sl_error_set(err, SL_ERR_PROGRAM_LIMIT, pos,
                                "a job writes exactly-once into at most %d transactional "
                                "systems",
                                SL_MAX_PARTICIPANTS);
        parts[slot].create = c->create_participant;
        parts[slot].args.options = sl__own(p, sl_calloc((size_t)room + 1, sizeof(sl_kvlist *)));
        parts[slot].args.tables = sl__own(p, sl_calloc((size_t)room + 1, sizeof(char *)));
        parts[slot].args.job = p->o->job_name;
        parts[slot].args.last_resource = mech == SL_MECH_LAST_RESOURCE;
        (*nparts)++;
    }
    sl_participant_args *a = &parts[slot].args;
    ((const sl_kvlist **)a->options)[a->nsinks] = dst->def->options;
    ((const char **)a->tables)[a->nsinks] = dst->name;
    a->nsinks++;
    args->participates = true;
    args->participant_slot = slot;
    return 0;
}

int sl_physical_build_set(const sl_lp *const *roots, int n, const sl_catalog *cat,
                          const sl_physical_opts *o, sl_physical **out, sl_error *err)
{
    *out = NULL;
    sl_physical *p = sl_calloc(1, sizeof *p);
    p->owned_exprs = sl_list_new();
    p->owned_arrays = sl_list_new();
    p->joins = sl_list_new();
    p->lookups = sl_list_new();
    p->unnests = sl_list_new();
    p->values = sl_list_new();
    p->sides = sl_list_new();
    p->side_twins = sl_list_new();
    p->cat = cat;
    p->o = o;
    p->backend = o->backend;
    sl_job_spec *extra = n > 1 ? sl__own(p, sl_calloc((size_t)n, sizeof(sl_job_spec))) : NULL;
    for (int i = 0; i < n; i++) {
        if (sl__build_graph(p, roots[i], cat, o, i == 0 ? &p->spec : &extra[i - 1], err) != 0) {
            sl_physical_free(p);
            return -1;
        }
    }
    sl_job_spec *spec = &p->spec;
    /* Each sink runs the guarantee decided for it; the exactly-once sinks
    ** of a transactional connector write through one participant per
    ** system and cluster (the 'url' of a database, the brokers of Kafka),
    ** in the role the resolver chose for it. */
    sl_participant_spec *parts =
        sl__own(p, sl_calloc(SL_MAX_PARTICIPANTS, sizeof(sl_participant_spec)));
    int nparts = 0, room = n + p->sides->n;
    for (int i = 0; o->guarantees && i < n; i++) {
        sl_job_spec *pipe = i == 0 ? spec : &extra[i - 1];
        const sl_table *dst = roots[i]->kind == SL_LP_SINK
                                  ? sl_catalog_table(cat, roots[i]->table)
                                  : NULL;
        if (!dst)
            continue;
        sl_sink_mechanism mech = o->mechs ? o->mechs[i] : dst->connector->caps.sink_mech;
        if (sl__join_participant(p, parts, &nparts, room, dst, o->guarantees[i], mech,
                                 &pipe->sink_args, roots[i]->pos, err) != 0) {
            sl_physical_free(p);
            return -1;
        }
    }
    /* The side tables (sl__side_plan) join the commit group the same way. */
    for (int i = 0; i < p->sides->n; i++) {
        sl_side_spec *sp = p->sides->items[i];
        const sl_side_table *use = NULL;
        for (int k = 0; k < o->nsides && !use; k++)
            if (o->sides[k].kind == p->side_kinds[i])
                use = &o->sides[k];
        const sl_table *dst = sl_catalog_table(cat, sp->sink_args.table);
        if (use && dst &&
            sl__join_participant(p, parts, &nparts, room, dst, use->guarantee, use->mech,
                                 &sp->sink_args, -1, err) != 0) {
            sl_physical_free(p);
            return -1;
        }
    }
    spec->nparticipants = nparts;
    spec->participants = parts;
    spec->name = o->job_name;
    spec->data_dir = o->data_dir;
    spec->checkpoint_dir = o->checkpoint_dir;
    spec->storage_opts = o->storage_opts;
    spec->checkpoint_interval_ms = o->interval_ms;
    spec->idle_timeout_ms = o->idle_timeout_ms;
    spec->retain = 3;
    spec->nextra = n - 1;
    spec->extra = extra;
    p->cat = NULL; /* (the caller's; the job reads the specs only) */
    p->o = NULL;
    *out = p;
    return 0;
}

int sl_physical_build(const sl_lp *root, const sl_catalog *cat, const sl_physical_opts *o,
                      sl_physical **out, sl_error *err)
{
    return sl_physical_build_set(&root, 1, cat, o, out, err);
}

/* One chain of steps: " -> Calc -> WindowAggregate"; an operator's side
** output as " -> WindowAggregate(late rows -> late_clicks)". */
static void sl__explain_steps(sl_strbuf *sb, const sl_step_spec *steps, int n)
{
    for (int i = 0; i < n; i++) {
        sl_strbuf_appendf(sb, " -> %s", sl_step_name(&steps[i]));
        for (int k = 0; k < SL_SIDE_KINDS; k++)
            if (steps[i].side[k])
                sl_strbuf_appendf(sb, "(side output -> %s)", steps[i].side[k]->sink_args.table);
    }
}

static void sl__explain_graph(sl_strbuf *sb, const sl_job_spec *spec)
{
    for (int i = 0; i < spec->ninputs; i++) {
        const sl_input_spec *in = &spec->inputs[i];
        sl_strbuf_appendf(sb, "Source: %s [parallelism %d]", in->source_args.table,
                          spec->parallelism);
        if (in->wm_expr)
            sl_strbuf_append(sb, " (watermarks)");
        if (in->shares) /* Flink: Reused(reference_id=[..]) */
            sl_strbuf_appendf(sb, " (reuses source %d)", in->shares);
        sl__explain_steps(sb, in->steps, in->nsteps);
        if (in->to)
            sl_strbuf_appendf(sb, " => [%d]", in->to);
        sl_strbuf_append_char(sb, '\n');
    }
    bool tree = false; /* a layer feeds a stage other than the next: number them */
    for (int i = 0; i < spec->ninputs; i++)
        tree = tree || spec->inputs[i].to;
    for (int g = 0; g < spec->nstages; g++)
        tree = tree || spec->stages[g].to || spec->stages[g].fork;
    for (int g = 0; g < spec->nstages; g++) {
        const sl_stage_spec *st = &spec->stages[g];
        if (tree)
            sl_strbuf_appendf(sb, "[%d] ", g + 1);
        if (st->fork) { /* Flink: Reused(reference_id=[..]) */
            const sl_stage_spec *o = &spec->stages[st->fork - 1];
            sl_strbuf_appendf(sb, "Reuse: [%d] after ", st->fork);
            if (st->fork_at > 0)
                sl_strbuf_appendf(sb, "its step %d (%s)", st->fork_at,
                                  sl_step_name(&o->steps[st->fork_at - 1]));
            else
                sl_strbuf_append(sb, "its exchange");
        } else if (st->exchange == SL_EXCHANGE_HASH) {
            sl_strbuf_append(sb, "Exchange: hash[");
            for (int k = 0; k < st->nkeys; k++)
                sl_strbuf_appendf(sb, "%s$%d", k ? ", " : "", st->keys[k]);
            sl_strbuf_append(sb, "]");
        } else {
            sl_strbuf_append(sb, "Exchange: single");
        }
        sl_strbuf_appendf(sb, " [parallelism %d]", st->parallelism);
        sl__explain_steps(sb, st->steps, st->nsteps);
        if (st->to)
            sl_strbuf_appendf(sb, " => [%d]", st->to);
        sl_strbuf_append_char(sb, '\n');
    }
    int last = spec->nstages ? spec->stages[spec->nstages - 1].parallelism
                             : spec->parallelism * spec->ninputs;
    if (spec->sink_args.table) {
        sl_strbuf_appendf(sb, "Sink: %s [parallelism %d]", spec->sink_args.table, last);
        const sl_length_spec *ls = &spec->sink_length;
        if (ls->mode != SL_LENGTH_IGNORE && ls->ncols > 0) {
            sl_strbuf_appendf(sb, ", LengthEnforcer(mode=[%s], fields=[",
                              ls->mode == SL_LENGTH_TRIM_PAD ? "TRIM_PAD" : "ERROR");
            for (int i = 0; i < ls->ncols; i++)
                sl_strbuf_appendf(sb, "%s%s", i ? ", " : "", spec->sink_args.names[ls->cols[i].col]);
            sl_strbuf_append(sb, "])");
        }
        sl_strbuf_append_char(sb, '\n');
    } else
        sl_strbuf_appendf(sb, "Sink: the query's result [parallelism %d]%s\n", last,
                          spec->limit >= 0 ? " (LIMIT)" : "");
}

/* Under 'rocksdb': the names of the operators of spec's steps (and its
** extra pipelines') other than GroupAggregate, whose state stays in memory,
** each once, into sb. */
static void sl__memory_ops(sl_strbuf *sb, const sl_job_spec *spec, int *n)
{
    for (int i = 0; i < spec->ninputs + spec->nstages; i++) {
        const sl_step_spec *steps = i < spec->ninputs ? spec->inputs[i].steps
                                                      : spec->stages[i - spec->ninputs].steps;
        int ns = i < spec->ninputs ? spec->inputs[i].nsteps : spec->stages[i - spec->ninputs].nsteps;
        for (int k = 0; k < ns; k++) {
            const char *name = steps[k].create ? steps[k].name : NULL;
            if (!name || strcmp(name, "GroupAggregate") == 0 || strstr(sl_strbuf_cstr(sb), name))
                continue;
            sl_strbuf_appendf(sb, "%s%s", (*n)++ ? ", " : "", name);
        }
    }
    for (int i = 0; i < spec->nextra; i++)
        sl__memory_ops(sb, &spec->extra[i], n);
}

void sl_physical_explain(sl_strbuf *sb, const sl_physical *p)
{
    sl__explain_graph(sb, &p->spec);
    for (int i = 0; i < p->spec.nextra; i++) {
        sl_strbuf_append_char(sb, '\n');
        sl__explain_graph(sb, &p->spec.extra[i]);
    }
    if (p->spec.nextra > 0)
        sl_strbuf_appendf(sb, "(%d pipelines in one job: one checkpoint commits every sink)\n",
                          p->spec.nextra + 1);
    if (p->backend.rocksdb) {
        /* Say where state lives: only GroupAggregate's groups go to RocksDB. */
        sl_strbuf mem = SL_STRBUF_INIT;
        int n = 0;
        sl__memory_ops(&mem, &p->spec, &n);
        sl_strbuf_appendf(sb, "State backend: rocksdb (GroupAggregate: groups in RocksDB, at "
                              "most %lld per task in memory; %s checkpoints)",
                          (long long)(p->backend.cache_groups > 0 ? p->backend.cache_groups
                                                                  : 1000000),
                          p->backend.incremental ? "incremental" : "full");
        if (n)
            sl_strbuf_appendf(sb, "; state kept in memory by: %s", sl_strbuf_cstr(&mem));
        sl_strbuf_append_char(sb, '\n');
        sl_strbuf_free(&mem);
    }
}
