/*
** physical.c — from a logical plan to a job the runtime runs (sl_job_spec).
**
** The chain below the root must start at one table scan; above it:
**   Filter, Project        -> calc steps (a Filter and the Project above it
**                             share one step: a projection never sees a row
**                             the filter removed)
**   WindowTableFunction    -> the window TVF operator
**   window aggregation     -> the window aggregation operator (fires at the watermark)
**   Aggregate              -> the group aggregation operator (updating)
**   Deduplicate            -> the deduplication operator
** The scan's WATERMARK expression becomes the job's watermark. For an INSERT
** a last step maps the query's columns onto the table's: by the INSERT's
** column list, NULL for columns left out, and a CAST where the value's type
** is assignable but not the column's own (INT into BIGINT). Any other
** operator is refused with 0A000 until the runtime runs it.
**
** Main routines: sl_physical_build, sl_physical_spec, sl_physical_free.
*/
#include "planner_int.h"

#include <string.h>

struct sl_physical {
    sl_job_spec spec;        /* the job */
    sl_step_spec *steps;     /* its steps */
    sl_calc_spec *calc;      /* the calc steps' specs */
    sl_list *owned_exprs;    /* sl_bexpr* built here (the final mapping) */
    sl_list *owned_arrays;   /* arrays owned here */
    const char **src_names;  /* source column names */
    sl_type *src_types;      /* source column types */
    const char **sink_names; /* sink column names */
    sl_type *sink_types;     /* sink column types */
};

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
    sl_free(p->calc);
    sl_free(p->steps);
    sl_free(p);
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
                    "functions, aggregations and deduplication so far.",
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

static int sl__mk_group_agg(const void *a, sl_operator **o, sl_error *e)
{
    return sl_group_agg_new(a, o, e);
}

static int sl__mk_dedup(const void *a, sl_operator **o, sl_error *e)
{
    return sl_dedup_new(a, o, e);
}

/* Types of a node's output, owned by p. */
static sl_type *sl__types(sl_physical *p, const sl_lp *lp)
{
    sl_type *t = sl__own(p, sl_calloc((size_t)lp->ncols + 1, sizeof(sl_type)));
    for (int c = 0; c < lp->ncols; c++)
        t[c] = lp->cols[c].type;
    return t;
}

/* An aggregation's spec (shared by group and window aggregations). */
static void sl__agg_spec(sl_physical *p, const sl_lp *agg, int64_t ttl_ms, sl_group_agg_spec *g)
{
    g->in_ncols = agg->input->ncols;
    g->in_types = sl__types(p, agg->input);
    g->nkeys = agg->nkeys;
    g->keys = agg->keys;
    g->naggs = agg->naggs;
    sl_agg_call *calls = sl__own(p, sl_calloc((size_t)agg->naggs + 1, sizeof(sl_agg_call)));
    for (int i = 0; i < agg->naggs; i++) {
        calls[i].fn = agg->aggs[i].fn->id;
        calls[i].distinct = agg->aggs[i].distinct;
        calls[i].arg = agg->aggs[i].arg;
        calls[i].type = agg->aggs[i].type;
    }
    g->aggs = calls;
    g->ttl_ms = ttl_ms;
}

/* The operator step for node n, or -1 (not runnable yet). */
static int sl__operator_step(sl_physical *p, const sl_lp *n, int64_t ttl_ms, sl_step_spec *st,
                             sl_error *err)
{
    st->out_ncols = n->ncols;
    st->out_types = sl__types(p, n);
    switch (n->kind) {
    case SL_LP_WINDOW: {
        sl_window_tvf_spec *w = sl__own(p, sl_calloc(1, sizeof *w));
        w->in_ncols = n->input->ncols;
        w->in_types = sl__types(p, n->input);
        w->time_col = n->time_col;
        w->window_fn = n->window_fn;
        w->size_ms = n->size_ms;
        w->slide_ms = n->slide_ms;
        w->offset_ms = n->offset_ms;
        st->create = sl__mk_window_tvf;
        st->arg = w;
        return 0;
    }
    case SL_LP_AGGREGATE:
        if (n->window_agg) {
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
        } else {
            sl_group_agg_spec *g = sl__own(p, sl_calloc(1, sizeof *g));
            sl__agg_spec(p, n, ttl_ms, g);
            st->create = sl__mk_group_agg;
            st->arg = g;
        }
        return 0;
    case SL_LP_OVER: {
        int kind = sl_lp_dedup_kind(n);
        if (!kind)
            return sl__not_yet(n, err);
        sl_dedup_spec *d = sl__own(p, sl_calloc(1, sizeof *d));
        d->in_ncols = n->input->ncols;
        d->in_types = sl__types(p, n->input);
        d->nkeys = n->nkeys;
        d->keys = n->keys;
        d->order_col = n->order[0].col;
        d->keep_first = kind == 1;
        d->ttl_ms = ttl_ms;
        st->create = sl__mk_dedup;
        st->arg = d;
        return 0;
    }
    default:
        return sl__not_yet(n, err);
    }
}

/* Columns of a table as arrays for source / sink arguments. */
static void sl__table_cols(sl_physical *p, const sl_table *t, const char ***names, sl_type **types)
{
    *names = sl__own(p, sl_calloc((size_t)(t->ncols ? t->ncols : 1), sizeof(char *)));
    *types = sl__own(p, sl_calloc((size_t)(t->ncols ? t->ncols : 1), sizeof(sl_type)));
    for (int i = 0; i < t->ncols; i++) {
        (*names)[i] = t->cols[i].name;
        (*types)[i] = t->cols[i].type;
    }
}

/* The INSERT's last step: query columns -> table columns (NULL, CAST). NULL
** when the query's columns already are the table's. */
static const sl_calc_spec *sl__sink_mapping(sl_physical *p, const sl_lp *sink, sl_calc_spec *step)
{
    const sl_lp *in = sink->input;
    bool identity = in->ncols == sink->ncols;
    for (int c = 0; identity && c < sink->ncols; c++)
        identity = sink->sink_map[c] == c &&
                   sl_type_equal_ignoring_null(in->cols[c].type, sink->cols[c].type);
    if (identity)
        return NULL;
    const sl_bexpr **exprs = sl__own(p, sl_calloc((size_t)sink->ncols, sizeof(sl_bexpr *)));
    for (int c = 0; c < sink->ncols; c++) {
        sl_type want = sink->cols[c].type;
        int from = sink->sink_map[c];
        sl_bexpr *b;
        if (from < 0) {
            want.not_null = false;
            b = sl_bexpr_new(SL_BX_LITERAL, want, sink->pos); /* text NULL: SQL NULL */
        } else {
            sl_bexpr *col = sl_bexpr_new(SL_BX_COLUMN, in->cols[from].type, sink->pos);
            col->col = from;
            if (sl_type_equal_ignoring_null(in->cols[from].type, want)) {
                b = col;
            } else {
                want.not_null = in->cols[from].type.not_null;
                b = sl_bexpr_new(SL_BX_CAST, want, sink->pos);
                b->args = sl_calloc(1, sizeof(sl_bexpr *));
                b->args[0] = col;
                b->nargs = 1;
            }
        }
        sl_list_push(p->owned_exprs, b);
        exprs[c] = b;
    }
    step->filter = NULL;
    step->project = true;
    step->nexprs = sink->ncols;
    step->exprs = exprs;
    step->out_types = p->sink_types;
    return step;
}

int sl_physical_build(const sl_lp *root, const sl_catalog *cat, const sl_physical_opts *o,
                      sl_physical **out, sl_error *err)
{
    *out = NULL;
    const sl_lp *top = root->kind == SL_LP_SINK ? root->input : root;
    int64_t limit = -1;
    if (root->kind != SL_LP_SINK && top->kind == SL_LP_LIMIT && top->offset == 0) {
        limit = top->limit; /* a query's LIMIT: the job stops after that many rows */
        top = top->input;
    }
    /* Collect the chain down to the scan. */
    int depth = 0;
    const sl_lp *scan = top;
    while (scan->input && scan->kind != SL_LP_JOIN && scan->kind != SL_LP_UNION) {
        scan = scan->input;
        depth++;
    }
    if (scan->kind != SL_LP_SCAN)
        return sl__not_yet(scan, err);
    const sl_table *src = sl_catalog_table(cat, scan->table);
    if (!src || !src->connector || !src->connector->create_source)
        return sl_error_set(err, SL_ERR_NOT_SUPPORTED, scan->pos,
                            "connector '%s' cannot be read yet",
                            scan->connector ? scan->connector->name : "?");
    const sl_table *dst = NULL;
    if (root->kind == SL_LP_SINK) {
        dst = sl_catalog_table(cat, root->table);
        if (!dst || !dst->connector || !dst->connector->create_sink)
            return sl_error_set(err, SL_ERR_NOT_SUPPORTED, root->pos,
                                "connector '%s' cannot be written yet",
                                root->connector ? root->connector->name : "?");
    }

    sl_physical *p = sl_calloc(1, sizeof *p);
    p->owned_exprs = sl_list_new();
    p->owned_arrays = sl_list_new();
    p->calc = sl_calloc((size_t)depth + 2, sizeof(sl_calc_spec));
    p->steps = sl_calloc((size_t)depth + 2, sizeof(sl_step_spec));
    sl__table_cols(p, src, &p->src_names, &p->src_types);

    /* Steps bottom-up: the chain's nodes from the scan upwards. */
    const sl_lp **chain = sl__own(p, sl_calloc((size_t)depth + 1, sizeof(sl_lp *)));
    int k = depth;
    for (const sl_lp *n = top; n != scan; n = n->input)
        chain[--k] = n;
    int nsteps = 0, ncalc = 0;
    for (int i = 0; i < depth; i++) {
        sl_step_spec *step = &p->steps[nsteps++];
        if (chain[i]->kind != SL_LP_FILTER && chain[i]->kind != SL_LP_PROJECT) {
            if (sl__operator_step(p, chain[i], o->state_ttl_ms, step, err) != 0) {
                sl_physical_free(p);
                return -1;
            }
            continue;
        }
        sl_calc_spec *st = &p->calc[ncalc++];
        step->calc = st;
        if (chain[i]->kind == SL_LP_FILTER) {
            st->filter = chain[i]->exprs[0];
            if (i + 1 < depth && chain[i + 1]->kind == SL_LP_PROJECT)
                i++; /* the projection joins the filter's step */
            else
                continue;
        }
        const sl_lp *proj = chain[i];
        st->project = true;
        st->nexprs = proj->nexprs;
        st->exprs = (const sl_bexpr *const *)proj->exprs;
        st->out_types = sl__types(p, proj);
    }

    sl_job_spec *spec = &p->spec;
    spec->limit = -1;
    spec->name = o->job_name;
    spec->data_dir = o->data_dir;
    spec->checkpoint_interval_ms = o->interval_ms;
    spec->retain = 3;
    spec->create_source = src->connector->create_source;
    spec->source_args.options = src->def->options;
    spec->source_args.ncols = src->ncols;
    spec->source_args.names = p->src_names;
    spec->source_args.types = p->src_types;
    spec->source_args.subtask = 0;
    spec->source_args.parallelism = 1;
    spec->source_args.table = src->name;
    if (dst) {
        sl__table_cols(p, dst, &p->sink_names, &p->sink_types);
        if (sl__sink_mapping(p, root, &p->calc[ncalc])) {
            p->steps[nsteps++].calc = &p->calc[ncalc];
            ncalc++;
        }
        spec->create_sink = dst->connector->create_sink;
        spec->sink_args.options = dst->def->options;
        spec->sink_args.ncols = dst->ncols;
        spec->sink_args.names = p->sink_names;
        spec->sink_args.types = p->sink_types;
        spec->sink_args.table = dst->name;
    } else {
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
    spec->sink_args.subtask = 0;
    spec->sink_args.parallelism = 1;
    spec->sink_args.job = o->job_name;
    spec->nsteps = nsteps;
    spec->steps = p->steps;
    spec->limit = limit;
    spec->wm_col = scan->wm_col;
    spec->wm_expr = scan->watermark;
    *out = p;
    return 0;
}
