/*
** physical.c — from a logical plan to a job the runtime runs (sl_job_spec).
**
** The graph (see the job section of exec/sl_exec.h):
**
**   inputs   every table scan under the query (several under UNION ALL),
**            with the stateless nodes above it chained into the reading
**            task: Filter and Project (calc steps: a Filter and the Project
**            above it share one, so a projection never sees a row the
**            filter removed), WindowTableFunction, the UNION's CAST to its
**            column types;
**   stages   each stateful node starts one, after a hash exchange by its
**            keys (all rows to one task when it has none): Aggregate (group
**            or window aggregation), Deduplicate; the stateless nodes above
**            it join its stage;
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
** Every input runs at 'parallelism.default'. The scan's WATERMARK
** expression becomes its input's watermark. Any other operator (joins,
** Top-N, ORDER BY) is refused with 0A000 until the runtime runs it.
**
** Main routines: sl_physical_build, sl_physical_spec, sl_physical_free,
** sl_lp_agg_spec (an aggregation's exec spec, also for bounded.c).
*/
#include "planner_int.h"

#include <stdlib.h>
#include <string.h>

struct sl_physical {
    sl_job_spec spec;        /* the job */
    sl_list *owned_exprs;    /* sl_bexpr* built here (casts, the final mapping) */
    sl_list *owned_arrays;   /* arrays owned here */
    sl_tz *tz;               /* the job's time zone (spec.tz), owned */
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
    sl_tz_free(p->tz);
    sl_free(p);
}

void sl_physical_set_tz(sl_physical *p, sl_tz *tz)
{
    sl_tz_free(p->tz);
    p->tz = tz;
    p->spec.tz = tz;
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
            st->name = "WindowAggregate";
        } else {
            sl_group_agg_spec *g = sl__own(p, sl_calloc(1, sizeof *g));
            sl__agg_spec(p, n, ttl_ms, g);
            st->create = sl__mk_group_agg;
            st->arg = g;
            st->name = "GroupAggregate";
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
        st->create = sl__mk_over;
        st->arg = o;
        st->name = "OverAggregate";
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

/* A projection step mapping columns (in_types) onto out_types: out column
** c is input column map[c] (-1: NULL), CAST where the type differs (INT
** into BIGINT, DECIMAL(5,2) into DECIMAL(12,2), STRING into VARCHAR(10):
** cut to 10 characters) — except, with keep_lengths, a string or binary
** value, which stays as it is for the length enforcer. Not added when it
** would be the identity. */
static void sl__cast_step(sl_physical *p, sl__chain *chain, int in_ncols, const sl_type *in_types,
                          int out_ncols, const sl_type *out_types, const int *map, int pos,
                          bool keep_lengths)
{
    bool identity = in_ncols == out_ncols;
    for (int c = 0; identity && c < out_ncols; c++)
        identity = map[c] == c && sl_type_equal_ignoring_null(in_types[c], out_types[c]);
    if (identity)
        return;
    const sl_bexpr **exprs = sl__own(p, sl_calloc((size_t)out_ncols + 1, sizeof(sl_bexpr *)));
    for (int c = 0; c < out_ncols; c++) {
        sl_type want = out_types[c];
        int from = map[c];
        sl_bexpr *b;
        if (from < 0) {
            want.not_null = false;
            b = sl_bexpr_new(SL_BX_LITERAL, want, pos); /* text NULL: SQL NULL */
        } else {
            sl_bexpr *col = sl_bexpr_new(SL_BX_COLUMN, in_types[from], pos);
            col->col = from;
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

static bool sl__stateful(const sl_lp *n)
{
    return n->kind == SL_LP_AGGREGATE || n->kind == SL_LP_OVER || n->kind == SL_LP_NORMALIZE ||
           n->kind == SL_LP_OVER_AGG;
}

/* Steps for nodes[0..n-1] (bottom-up, over the output of `below`)
** appended to chain: a Filter and the Project above it share one calc step
** (a projection never sees a row the filter removed); a UNION node casts
** the rows to the union's column types (INT into BIGINT, ...). */
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
                          sl__types(p, node), map, node->pos, false);
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
    }
    return 0;
}

/* One input being collected: its scan and the stateless nodes above it. */
typedef struct sl__branch {
    const sl_lp *scan;     /* the table scan */
    const sl_lp **nodes;   /* bottom-up */
    int n;                 /* nodes */
} sl__branch;

/* Collect the inputs under node n (a SCAN, or UNION ALL of inputs with
** stateless nodes between), each with the nodes `above` (bottom-up) added
** on top; a UNION crossed on the way stays in the list (its cast). */
static int sl__collect(sl_physical *p, const sl_lp *n, const sl_lp **above, int nabove,
                       sl_list *branches, sl_error *err)
{
    int depth = 0;
    for (const sl_lp *m = n; m->kind != SL_LP_SCAN && m->kind != SL_LP_UNION; m = m->input) {
        if (!m->input || m->kind == SL_LP_JOIN)
            return sl__not_yet(m, err);
        if (sl__stateful(m)) {
            sl_error_set(err, SL_ERR_NOT_SUPPORTED, m->pos,
                         "the runtime cannot run an aggregation or deduplication inside one "
                         "input of UNION ALL yet");
            sl_error_hint(err, "Aggregate after the UNION ALL, or write the inputs into one "
                               "table with separate INSERT jobs.");
            return -1;
        }
        depth++;
    }
    const sl_lp *m = n;
    for (int k = 0; k < depth; k++)
        m = m->input;
    int u = m->kind == SL_LP_UNION; /* the UNION's cast comes first */
    int total = u + depth + nabove;
    const sl_lp **nodes = sl__own(p, sl_calloc((size_t)total + 1, sizeof(sl_lp *)));
    if (u)
        nodes[0] = m;
    const sl_lp *x = n;
    for (int k = u + depth - 1; k >= u; k--, x = x->input)
        nodes[k] = x;
    for (int k = 0; k < nabove; k++)
        nodes[u + depth + k] = above[k];
    if (u)
        return sl__collect(p, m->input, nodes, total, branches, err) != 0 ||
                       sl__collect(p, m->right, nodes, total, branches, err) != 0
                   ? -1
                   : 0;
    sl__branch *b = sl__own(p, sl_calloc(1, sizeof *b));
    b->scan = m;
    b->nodes = nodes;
    b->n = total;
    sl_list_push(branches, b);
    return 0;
}

/* The graph of one plan root (an INSERT's SINK or a query) into spec: its
** inputs, stages, sink and limit. */
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
    sl_table_shape shape = {dst->ncols, names, types, dst->npk, dst->pk};
    int rc = check(dst->connector, dst->def->options, &shape, err);
    sl_free(names);
    sl_free(types);
    return rc;
}

static int sl__build_graph(sl_physical *p, const sl_lp *root, const sl_catalog *cat,
                           const sl_physical_opts *o, sl_job_spec *spec, sl_error *err)
{
    const sl_lp *top = root->kind == SL_LP_SINK ? root->input : root;
    int64_t limit = -1;
    if (root->kind != SL_LP_SINK && top->kind == SL_LP_LIMIT && top->offset == 0) {
        limit = top->limit; /* a query's LIMIT: the job stops after that many rows */
        top = top->input;
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
    sl_list *branches = sl_list_new();

    /* The nodes above the inputs, bottom-up, down to the first stateful one
    ** or the UNION / SCAN: those are chained into the inputs' tasks. */
    int depth = 0;
    const sl_lp *base = top;
    while (base->kind != SL_LP_SCAN && base->kind != SL_LP_UNION && base->input &&
           base->kind != SL_LP_JOIN) {
        base = base->input;
        depth++;
    }
    const sl_lp **upper = sl__own(p, sl_calloc((size_t)depth + 1, sizeof(sl_lp *)));
    int k = depth;
    for (const sl_lp *n = top; n != base; n = n->input)
        upper[--k] = n;
    int nchained = 0; /* leading upper nodes chained to the inputs */
    while (nchained < depth && !sl__stateful(upper[nchained]))
        nchained++;
    int rc = base->kind == SL_LP_SCAN || base->kind == SL_LP_UNION
                 ? sl__collect(p, base, upper, nchained, branches, err)
                 : sl__not_yet(base, err);

    /* Inputs. */
    sl_input_spec *inputs = sl__own(p, sl_calloc((size_t)branches->n + 1, sizeof *inputs));
    for (int i = 0; rc == 0 && i < branches->n; i++) {
        const sl__branch *b = branches->items[i];
        const sl_table *src = sl_catalog_table(cat, b->scan->table);
        if (!src || !src->connector || !src->connector->create_source) {
            rc = sl_error_set(err, SL_ERR_NOT_SUPPORTED, b->scan->pos,
                              "connector '%s' cannot be read yet",
                              b->scan->connector ? b->scan->connector->name : "?");
            break;
        }
        if (src->connector->check_source &&
            sl__check_table(src, src->connector->check_source, err) != 0) {
            if (err->position < 0)
                err->position = b->scan->pos;
            rc = -1;
            break;
        }
        sl_input_spec *in = &inputs[i];
        const char **names;
        sl_type *types;
        sl__table_cols(p, src, &names, &types);
        in->create_source = src->connector->create_source;
        in->source_args.options = src->def->options;
        in->source_args.ncols = src->ncols;
        in->source_args.names = names;
        in->source_args.types = types;
        in->source_args.parallelism = par;
        in->source_args.table = src->name;
        in->source_args.npk = src->npk;
        in->source_args.pk = src->pk;
        in->wm_expr = b->scan->watermark;
        sl__chain chain = {0};
        rc = sl__add_steps(p, &chain, b->scan, b->nodes, b->n, o->state_ttl_ms, err);
        in->nsteps = chain.n;
        in->steps = chain.steps;
    }

    /* Stages: each stateful node above starts one, after an exchange by its
    ** keys (all to one task when it has none); stateless nodes join it. */
    sl_stage_spec *stages = sl__own(p, sl_calloc((size_t)depth + 2, sizeof *stages));
    int nstages = 0;
    for (int i = nchained; rc == 0 && i < depth;) {
        int j = i + 1;
        while (j < depth && !sl__stateful(upper[j]))
            j++;
        sl_stage_spec *st = &stages[nstages++];
        const sl_lp *op = upper[i];
        st->nkeys = op->nkeys;
        st->keys = op->keys;
        st->exchange = op->nkeys > 0 ? SL_EXCHANGE_HASH : SL_EXCHANGE_SINGLE;
        st->parallelism = op->nkeys > 0 ? par : 1;
        sl__chain chain = {0};
        rc = sl__add_steps(p, &chain, NULL, upper + i, j - i, o->state_ttl_ms, err);
        st->nsteps = chain.n;
        st->steps = chain.steps;
        i = j;
    }

    /* The sink: the INSERT's mapping onto the table's columns ends the last
    ** chain. A query's result (and its LIMIT) is collected by one task;
    ** 'sink.parallelism' sets the sink's own. */
    int64_t ninput_tasks = (int64_t)par * branches->n; /* input tasks of a job without stages */
    if (rc == 0 && !nstages && ninput_tasks > SL_MAX_PARALLELISM)
        rc = sl_error_set(err, SL_ERR_PROGRAM_LIMIT, -1,
                          "the job would read with %lld tasks, more than %d", (long long)ninput_tasks,
                          SL_MAX_PARALLELISM);
    int last_par = nstages ? stages[nstages - 1].parallelism : (int)(rc == 0 ? ninput_tasks : 1);
    int sink_par = last_par;
    const char *sp = dst ? sl_kvlist_get(dst->def->options, "sink.parallelism") : NULL;
    if (!dst || limit >= 0)
        sink_par = 1;
    else if (sp)
        sink_par = atoi(sp);
    if (rc == 0 && sink_par != last_par) {
        sl_stage_spec *st = &stages[nstages++];
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
        sl__table_cols(p, dst, &sink_names, &sink_types);
        sl__chain chain = {0};
        if (nstages) {
            chain.steps = (sl_step_spec *)stages[nstages - 1].steps;
            chain.n = chain.cap = stages[nstages - 1].nsteps;
        }
        int nbefore = chain.n;
        const sl_type *top_types = sl__types(p, top);
        sl__cast_step(p, &chain, top->ncols, top_types, dst->ncols, sink_types, root->sink_map,
                      root->pos, o->length_enforcer == SL_LENGTH_ERROR);
        sl__length_spec(p, o->length_enforcer, top_types, dst, root, &spec->sink_length);
        if (chain.n > nbefore && nstages) {
            stages[nstages - 1].steps = chain.steps;
            stages[nstages - 1].nsteps = chain.n;
        } else if (chain.n > nbefore) { /* chained into every input */
            const sl_step_spec *mapping = &chain.steps[chain.n - 1];
            for (int i = 0; i < branches->n; i++) {
                sl__chain ic = {(sl_step_spec *)inputs[i].steps, inputs[i].nsteps,
                                inputs[i].nsteps};
                *sl__chain_add(p, &ic) = *mapping;
                inputs[i].steps = ic.steps;
                inputs[i].nsteps = ic.n;
            }
        }
        spec->create_sink = dst->connector->create_sink;
        spec->sink_args.options = dst->def->options;
        spec->sink_args.ncols = dst->ncols;
        spec->sink_args.names = sink_names;
        spec->sink_args.types = sink_types;
        spec->sink_args.table = dst->name;
        spec->sink_args.npk = dst->npk;
        spec->sink_args.pk = dst->pk;
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
    int ninputs = branches->n;
    sl_list_free(branches, NULL);
    if (rc != 0)
        return -1;
    spec->parallelism = par;
    spec->ninputs = ninputs;
    spec->inputs = inputs;
    spec->nstages = nstages;
    spec->stages = stages;
    spec->sink_args.job = o->job_name;
    spec->limit = limit;
    return 0;
}

int sl_physical_build_set(const sl_lp *const *roots, int n, const sl_catalog *cat,
                          const sl_physical_opts *o, sl_physical **out, sl_error *err)
{
    *out = NULL;
    sl_physical *p = sl_calloc(1, sizeof *p);
    p->owned_exprs = sl_list_new();
    p->owned_arrays = sl_list_new();
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
    int nparts = 0;
    for (int i = 0; o->guarantees && i < n; i++) {
        sl_job_spec *pipe = i == 0 ? spec : &extra[i - 1];
        const sl_table *dst = roots[i]->kind == SL_LP_SINK
                                  ? sl_catalog_table(cat, roots[i]->table)
                                  : NULL;
        if (!dst)
            continue;
        pipe->sink_args.guarantee = o->guarantees[i];
        const sl_connector *c = dst->connector;
        sl_sink_mechanism mech = o->mechs ? o->mechs[i] : c->caps.sink_mech;
        if (o->guarantees[i] != SL_GUARANTEE_EXACTLY_ONCE || !c->create_participant ||
            (mech != SL_MECH_LAST_RESOURCE && mech != SL_MECH_2PC_PREPARABLE))
            continue;
        const char *cluster = c->caps.cluster_option
                                  ? sl_kvlist_get(dst->def->options, c->caps.cluster_option)
                                  : NULL;
        int slot = 0;
        for (; slot < nparts; slot++) {
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
        if (slot == nparts) {
            if (nparts == SL_MAX_PARTICIPANTS) {
                sl_physical_free(p);
                return sl_error_set(err, SL_ERR_PROGRAM_LIMIT, roots[i]->pos,
                                    "a job writes exactly-once into at most %d transactional "
                                    "systems",
                                    SL_MAX_PARTICIPANTS);
            }
            parts[slot].create = c->create_participant;
            parts[slot].args.options = sl__own(p, sl_calloc((size_t)n + 1, sizeof(sl_kvlist *)));
            parts[slot].args.tables = sl__own(p, sl_calloc((size_t)n + 1, sizeof(char *)));
            parts[slot].args.job = o->job_name;
            parts[slot].args.last_resource = mech == SL_MECH_LAST_RESOURCE;
            nparts++;
        }
        sl_participant_args *a = &parts[slot].args;
        ((const sl_kvlist **)a->options)[a->nsinks] = dst->def->options;
        ((const char **)a->tables)[a->nsinks] = dst->name;
        a->nsinks++;
        pipe->sink_args.participates = true;
        pipe->sink_args.participant_slot = slot;
    }
    spec->nparticipants = nparts;
    spec->participants = parts;
    spec->name = o->job_name;
    spec->data_dir = o->data_dir;
    spec->checkpoint_interval_ms = o->interval_ms;
    spec->idle_timeout_ms = o->idle_timeout_ms;
    spec->retain = 3;
    spec->nextra = n - 1;
    spec->extra = extra;
    *out = p;
    return 0;
}

int sl_physical_build(const sl_lp *root, const sl_catalog *cat, const sl_physical_opts *o,
                      sl_physical **out, sl_error *err)
{
    return sl_physical_build_set(&root, 1, cat, o, out, err);
}

/* One chain of steps: " -> Calc -> WindowAggregate". */
static void sl__explain_steps(sl_strbuf *sb, const sl_step_spec *steps, int n)
{
    for (int i = 0; i < n; i++)
        sl_strbuf_appendf(sb, " -> %s", sl_step_name(&steps[i]));
}

static void sl__explain_graph(sl_strbuf *sb, const sl_job_spec *spec)
{
    for (int i = 0; i < spec->ninputs; i++) {
        const sl_input_spec *in = &spec->inputs[i];
        sl_strbuf_appendf(sb, "Source: %s [parallelism %d]", in->source_args.table,
                          spec->parallelism);
        if (in->wm_expr)
            sl_strbuf_append(sb, " (watermarks)");
        sl__explain_steps(sb, in->steps, in->nsteps);
        sl_strbuf_append_char(sb, '\n');
    }
    for (int g = 0; g < spec->nstages; g++) {
        const sl_stage_spec *st = &spec->stages[g];
        if (st->exchange == SL_EXCHANGE_HASH) {
            sl_strbuf_append(sb, "Exchange: hash[");
            for (int k = 0; k < st->nkeys; k++)
                sl_strbuf_appendf(sb, "%s$%d", k ? ", " : "", st->keys[k]);
            sl_strbuf_append(sb, "]");
        } else {
            sl_strbuf_append(sb, "Exchange: single");
        }
        sl_strbuf_appendf(sb, " [parallelism %d]", st->parallelism);
        sl__explain_steps(sb, st->steps, st->nsteps);
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
}
