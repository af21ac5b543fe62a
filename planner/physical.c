/*
** physical.c — from a logical plan to a job the runtime runs (sl_job_spec).
**
** The chain below the root must be Filter / Project operators over one
** table scan; consecutive Filter + Project become one calc step (filter
** first, so a projection never sees a row the filter removed). For an
** INSERT a last step maps the query's columns onto the table's: by the
** INSERT's column list, NULL for columns left out, and a CAST where the
** value's type is assignable but not the column's own (INT into BIGINT).
** Any other operator is refused with 0A000 until the runtime runs it.
**
** Main routines: sl_physical_build, sl_physical_spec, sl_physical_free.
*/
#include "planner_int.h"

#include <string.h>

struct sl_physical {
    sl_job_spec spec;        /* the job */
    sl_calc_spec *calc;      /* its steps */
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
    sl_error_detail(err, "It needs %s; the runtime runs scans, filters and projections so far.",
                    sl_strbuf_cstr(&sb));
    sl_error_hint(err, "Use EXPLAIN to see the plan.");
    sl_strbuf_free(&sb);
    return -1;
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
    /* Collect the Filter / Project chain down to the scan. */
    int depth = 0;
    const sl_lp *scan = top;
    while (scan->kind == SL_LP_FILTER || scan->kind == SL_LP_PROJECT) {
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
    sl__table_cols(p, src, &p->src_names, &p->src_types);

    /* Steps bottom-up: the chain's nodes from the scan upwards. */
    const sl_lp **chain = sl__own(p, sl_calloc((size_t)depth + 1, sizeof(sl_lp *)));
    int k = depth;
    for (const sl_lp *n = top; n != scan; n = n->input)
        chain[--k] = n;
    int nsteps = 0;
    for (int i = 0; i < depth; i++) {
        sl_calc_spec *st = &p->calc[nsteps++];
        if (chain[i]->kind == SL_LP_FILTER) {
            st->filter = chain[i]->exprs[0];
            if (i + 1 < depth && chain[i + 1]->kind == SL_LP_PROJECT)
                i++; /* the projection joins the filter's step */
            else
                continue;
        }
        const sl_lp *proj = chain[i];
        sl_type *types = sl__own(p, sl_calloc((size_t)proj->ncols + 1, sizeof(sl_type)));
        for (int c = 0; c < proj->ncols; c++)
            types[c] = proj->cols[c].type;
        st->nexprs = proj->nexprs;
        st->exprs = (const sl_bexpr *const *)proj->exprs;
        st->out_types = types;
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
        if (sl__sink_mapping(p, root, &p->calc[nsteps]))
            nsteps++;
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
    spec->ncalc = nsteps;
    spec->calc = p->calc;
    spec->limit = limit;
    *out = p;
    return 0;
}
