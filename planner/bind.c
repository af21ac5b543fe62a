/*
** bind.c — binds statements against the catalog and builds logical plans.
**
** CREATE TABLE is validated here (columns, key, watermark, WITH options via
** the connector registry). Queries become sl_lp trees:
**
**   FROM      -> Scan / Values / WindowTableFunction / Join / (sub-plan)
**   WHERE     -> Filter
**   GROUP BY  -> Project(keys ++ aggregate args) -> Aggregate -> [Filter HAVING]
**   OVER      -> OverAggregate (ROW_NUMBER, Flink's deduplication / top-N pattern)
**   SELECT    -> Project;  DISTINCT -> Aggregate over every output column
**   UNION ALL -> Union;    ORDER BY -> Sort;  LIMIT -> Limit
**   INSERT    -> Sink(table) over the query, columns mapped and type-checked
**
** Expressions are bound by sl_bind_expr (bind_expr.c); this file supplies the
** scopes and, through the hook, the GROUP BY / aggregate / OVER context.
**
** Main routines: sl_bind_create_table, sl_bind_query, sl_bind_insert.
*/
#include "planner_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define SL_MAX_VIEW_DEPTH 32

/* A relation being built: a plan and the names its columns answer to. */
typedef struct sl__rel {
    sl_lp *lp;            /* the plan (owned) */
    sl_scope_col *cols;   /* one per lp column; names point into lp->cols */
    char **quals;         /* owned qualifier strings (cols[i].qualifier) */
    int nquals;           /* number of quals */
    int nhidden;          /* last columns only ORDER BY needs (dropped after the sort) */
} sl__rel;

/* SL_PROCTIME when x is PROCTIME() (a processing-time attribute), else 0. */
static int sl__proctime_of(const sl_bexpr *x)
{
    return x->kind == SL_BX_CALL && x->fn->id == SL_FN_PROCTIME ? SL_PROCTIME : 0;
}

static void sl__rel_clear(sl__rel *r)
{
    for (int i = 0; i < r->nquals; i++)
        sl_free(r->quals[i]);
    sl_free(r->quals);
    r->nquals = 0;
    sl_free(r->cols);
    r->quals = NULL;
    r->cols = NULL;
}

static void sl__rel_free(sl__rel *r)
{
    sl__rel_clear(r);
    sl_lp_free(r->lp);
    r->lp = NULL;
}

/* (Re)build the scope of r with one qualifier for every column. */
static void sl__rel_scope(sl__rel *r, const char *qualifier)
{
    sl__rel_clear(r);
    int n = r->lp->ncols;
    r->cols = sl_calloc((size_t)(n ? n : 1), sizeof(sl_scope_col));
    r->quals = sl_calloc((size_t)(n ? n : 1), sizeof(char *));
    r->nquals = n;
    for (int i = 0; i < n; i++) {
        r->quals[i] = sl_strdup(qualifier);
        r->cols[i].qualifier = r->quals[i];
        r->cols[i].name = r->lp->cols[i].name;
        r->cols[i].type = r->lp->cols[i].type;
    }
}

static sl_scope sl__scope_of(const sl__rel *r)
{
    sl_scope s = {r->lp->ncols, r->cols};
    return s;
}

/* name, or Flink's (Calcite's) unique variant of it when one of the first n
** columns of lp has it: name0, name1, ... the first that none has. Owned. */
static char *sl__unique_name(const sl_lp *lp, const char *name, int n)
{
    char *u = sl_strdup(name);
    for (int k = 0;; k++) {
        int i = 0;
        while (i < n && strcmp(lp->cols[i].name, u) != 0)
            i++;
        if (i == n)
            return u;
        sl_free(u);
        u = sl_sprintf("%s%d", name, k);
    }
}

static sl_bexpr *sl__colref(int col, sl_type type, int pos)
{
    sl_bexpr *b = sl_bexpr_new(SL_BX_COLUMN, type, pos);
    b->col = col;
    return b;
}

static void sl__lp_push_expr(sl_lp *lp, sl_bexpr *e)
{
    lp->exprs = sl_realloc(lp->exprs, (size_t)(lp->nexprs + 1) * sizeof(sl_bexpr *));
    lp->exprs[lp->nexprs++] = e;
}

/* Output name of a select item: alias, column name, or Flink's EXPR$i. */
static char *sl__item_name(const sl_select_item *it, int i)
{
    if (it->alias)
        return sl_strdup(it->alias);
    if (it->expr->kind == SL_EXPR_COLUMN || it->expr->kind == SL_EXPR_FIELD)
        return sl_strdup(it->expr->text);
    return sl_sprintf("EXPR$%d", i);
}

static bool sl__is_agg_call(const sl_expr *e)
{
    if (e->kind != SL_EXPR_FUNC || e->over)
        return false;
    const sl_func *f = sl_func_find(e->text);
    return f && f->kind == SL_FUNC_AGGREGATE;
}

/* Does e contain an aggregate call (outside of OVER windows)? */
static bool sl__has_agg(const sl_expr *e)
{
    if (!e)
        return false;
    if (sl__is_agg_call(e))
        return true;
    if (sl__has_agg(e->left) || sl__has_agg(e->right))
        return true;
    for (int i = 0; i < sl_list_len(e->args); i++)
        if (sl__has_agg(sl_list_get(e->args, i)))
            return true;
    return false;
}

/* ------------------------------------------------------------------------
** CREATE TABLE
*/

/* A computed column's expression refers to physical columns only (Flink's
** rule; PostgreSQL's for generated columns), with no subquery. */
static int sl__computed_hook(sl_bind_ctx *ctx, const sl_expr *e, sl_bexpr **out)
{
    (void)out;
    const sl_stmt *def = ctx->hook_ctx;
    if (e->query) {
        sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                     "cannot use subquery in a computed column expression");
        return -1;
    }
    if (e->kind != SL_EXPR_COLUMN || e->qualifier)
        return 0;
    for (int i = 0; i < sl_list_len(def->columns); i++) {
        const sl_column_def *c = sl_list_get(def->columns, i);
        if (c->expr && strcmp(c->name, e->text) == 0) {
            sl_error_set(ctx->err, "42P17", e->pos,
                         "cannot use computed column \"%s\" in a computed column expression",
                         e->text);
            sl_error_detail(ctx->err, "A computed column can only use physical columns.");
            return -1;
        }
    }
    return 0;
}

sl_bexpr *sl_bind_computed(const sl_stmt *def, const sl_column_def *c, sl_error *err)
{
    int n = 0;
    sl_column *phys = sl_def_phys_cols(def, &n); /* a ROW column's leaves "r.f" */
    sl_scope_col *scols = sl_calloc((size_t)(n ? n : 1), sizeof(sl_scope_col));
    for (int i = 0; i < n; i++) {
        scols[i].name = phys[i].name;
        scols[i].qualifier = def->name;
        scols[i].type = phys[i].type;
    }
    sl_scope scope = {n, scols};
    sl_bind_ctx ctx = {&scope, err, "computed column expressions", sl__computed_hook,
                       (void *)def, NULL};
    sl_bexpr *x = sl_bind_expr(&ctx, c->expr);
    sl_free(scols);
    sl_columns_free(phys, n);
    return x;
}

/* A table with ROW columns: its formats must nest them (json does; csv and
** raw have flat records, as in Flink). */
static int sl__row_formats(sl_binder *b, const sl_stmt *s)
{
    static const char *const keys[] = {"format", "value.format", "key.format"};
    for (size_t i = 0; i < SL_ARRAY_LEN(keys) && s->options; i++) {
        const char *f = sl_kvlist_get(s->options, keys[i]);
        if (!f || strcmp(f, "json") == 0)
            continue;
        for (int k = 0; k < sl_list_len(s->columns); k++) {
            const sl_column_def *c = sl_list_get(s->columns, k);
            if (c->type.id != SL_TYPE_ROW)
                continue;
            sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, c->type_pos,
                         "format '%s' does not support ROW column \"%s\"", f, c->name);
            sl_error_hint(b->err, "Use 'format' = 'json', which reads and writes a ROW as a "
                                  "nested object.");
            return -1;
        }
    }
    return 0;
}

/* PARTITIONED BY: each a physical column of a scalar type, named once;
** part[i] = its index among the physical columns. */
static int sl__bind_partitions(sl_binder *b, const sl_stmt *s, const sl_column *phys, int nphys,
                               int *part)
{
    for (int k = 0; k < sl_list_len(s->partition_by); k++) {
        const sl_ident *id = sl_list_get(s->partition_by, k);
        part[k] = -1;
        for (int i = 0; i < nphys; i++)
            if (strcmp(phys[i].name, id->name) == 0 && !strchr(phys[i].name, '.') &&
                !phys[i].def->metadata)
                part[k] = i;
        for (int i = 0; part[k] < 0 && i < sl_list_len(s->columns); i++) {
            const sl_column_def *c = sl_list_get(s->columns, i);
            if (strcmp(c->name, id->name) == 0)
                return sl_error_set(b->err, SL_ERR_INVALID_TABLE_DEF, id->pos,
                                    "partition column \"%s\" must be a physical column of a "
                                    "scalar type",
                                    id->name);
        }
        if (part[k] < 0) {
            sl_error_set(b->err, SL_ERR_UNDEFINED_COLUMN, id->pos,
                         "partition column \"%s\" does not exist", id->name);
            sl_error_detail(b->err, "PARTITIONED BY names columns of the table.");
            return -1;
        }
        sl_type_id t = phys[part[k]].type.id; /* a value with a text form for the path */
        if (t == SL_TYPE_NULL || t > SL_TYPE_TIMESTAMP_LTZ || t == SL_TYPE_BINARY ||
            t == SL_TYPE_VARBINARY)
            return sl_error_set(b->err, SL_ERR_INVALID_TABLE_DEF, id->pos,
                                "partition column \"%s\" must be a physical column of a "
                                "scalar type",
                                id->name);
        for (int j = 0; j < k; j++)
            if (part[j] == part[k])
                return sl_error_set(b->err, SL_ERR_DUPLICATE_COLUMN, id->pos,
                                    "partition column \"%s\" is named more than once", id->name);
    }
    int ndata = 0; /* the columns the files can hold */
    for (int i = 0; i < nphys; i++)
        ndata += !phys[i].def->metadata;
    if (sl_list_len(s->partition_by) >= ndata && ndata > 0) {
        const sl_ident *id = sl_list_get(s->partition_by, 0);
        sl_error_set(b->err, SL_ERR_INVALID_TABLE_DEF, id->pos,
                     "a partitioned table needs a column that is not a partition column");
        sl_error_detail(b->err, "Partition columns are written as directory names, not into "
                                "the files.");
        return -1;
    }
    return 0;
}

int sl_bind_create_table(sl_binder *b, const sl_stmt *s)
{
    int n = sl_list_len(s->columns);
    if (n == 0)
        return sl_error_set(b->err, SL_ERR_INVALID_TABLE_DEF, s->name_pos,
                            "table \"%s\" must have at least one column", s->name);
    int nphys = 0;
    sl_column *phys = sl_def_phys_cols(s, &nphys); /* a ROW column's leaves */
    const char **names = sl_calloc((size_t)n + (size_t)nphys, sizeof(char *));
    sl_type *types = sl_calloc((size_t)n + (size_t)nphys, sizeof(sl_type));
    /* names resolve as in a query of the table: physical columns (a ROW's
    ** leaves "r.f"), then the computed ones */
    sl_scope_col *scols = sl_calloc((size_t)n + (size_t)nphys, sizeof(sl_scope_col));
    int rc = -1, nscope = 0, npart = 0, *part = NULL;
    for (int i = 0; i < n; i++) {
        const sl_column_def *c = sl_list_get(s->columns, i);
        for (int j = 0; j < i; j++) {
            if (strcmp(names[j], c->name) == 0) {
                sl_error_set(b->err, SL_ERR_DUPLICATE_COLUMN, c->pos,
                             "column \"%s\" specified more than once", c->name);
                goto done;
            }
        }
        names[i] = c->name;
        types[i] = c->type;
    }
    for (int i = 0; i < nphys; i++) {
        const sl_column_def *c = phys[i].def;
        if (sl_type_check(c->type, c->type_pos, b->err) != 0)
            goto done;
        for (int j = 0; j < nphys && strchr(phys[i].name, '.'); j++)
            if (j != i && strcmp(phys[j].name, phys[i].name) == 0) {
                sl_error_set(b->err, SL_ERR_DUPLICATE_COLUMN, c->pos,
                             "column \"%s\" specified more than once", phys[i].name);
                goto done;
            }
        scols[nscope].name = phys[i].name;
        scols[nscope].qualifier = s->name;
        scols[nscope++].type = phys[i].type;
    }
    if (sl_def_has_row(s) && sl__row_formats(b, s) != 0)
        goto done;
    if (sl_metadata_check_def(s, b->err) != 0)
        goto done;
    for (int i = 0; i < n; i++) { /* computed columns: their expressions' types */
        const sl_column_def *c = sl_list_get(s->columns, i);
        if (!c->expr)
            continue;
        sl_bexpr *x = sl_bind_computed(s, c, b->err);
        if (!x)
            goto done;
        types[i] = x->type;
        scols[nscope].name = c->name;
        scols[nscope].qualifier = s->name;
        scols[nscope++].type = x->type;
        sl_bexpr_free(x);
    }
    for (int k = 0; k < sl_list_len(s->primary_key); k++) {
        const sl_ident *id = sl_list_get(s->primary_key, k);
        int idx = -1;
        for (int i = 0; i < n; i++)
            if (strcmp(names[i], id->name) == 0)
                idx = i;
        if (idx < 0) {
            sl_error_set(b->err, SL_ERR_UNDEFINED_COLUMN, id->pos,
                         "column \"%s\" named in key does not exist", id->name);
            goto done;
        }
        const sl_column_def *kc = sl_list_get(s->columns, idx);
        if (kc->expr || kc->metadata) {
            sl_error_set(b->err, SL_ERR_INVALID_TABLE_DEF, id->pos,
                         "a PRIMARY KEY cannot include %s column \"%s\"",
                         kc->expr ? "computed" : "metadata", id->name);
            sl_error_detail(b->err, "A PRIMARY KEY must be declared on physical columns.");
            goto done;
        }
        for (int j = 0; j < k; j++) {
            const sl_ident *prev = sl_list_get(s->primary_key, j);
            if (strcmp(prev->name, id->name) == 0) {
                sl_error_set(b->err, SL_ERR_DUPLICATE_COLUMN, id->pos,
                             "column \"%s\" appears twice in primary key constraint", id->name);
                goto done;
            }
        }
    }
    if (s->wm_column) {
        int idx = -1;
        for (int i = 0; i < n; i++)
            if (strcmp(names[i], s->wm_column->name) == 0)
                idx = i;
        if (idx < 0) {
            sl_error_set(b->err, SL_ERR_UNDEFINED_COLUMN, s->wm_column->pos,
                         "column \"%s\" of the WATERMARK does not exist", s->wm_column->name);
            goto done;
        }
        const sl_column_def *wc = sl_list_get(s->columns, idx);
        if (wc->expr && wc->expr->kind == SL_EXPR_FUNC && wc->expr->text &&
            sl_strcasecmp(wc->expr->text, "PROCTIME") == 0) {
            sl_error_set(b->err, SL_ERR_INVALID_TABLE_DEF, s->wm_column->pos,
                         "a watermark cannot be defined for the processing-time attribute "
                         "\"%s\"",
                         s->wm_column->name);
            goto done;
        }
        if (!sl_type_is_timestamp(types[idx].id) || types[idx].precision > 3) {
            char *t = sl_type_to_string(types[idx]);
            sl_error_set(b->err, SL_ERR_DATATYPE_MISMATCH, s->wm_column->pos,
                         "watermark column \"%s\" must be of type TIMESTAMP(p) or "
                         "TIMESTAMP_LTZ(p) with p <= 3, not %s",
                         s->wm_column->name, t);
            sl_free(t);
            goto done;
        }
        sl_scope scope = {nscope, scols};
        sl_bind_ctx ctx = {&scope, b->err, "WATERMARK", NULL, NULL, b->params};
        sl_bexpr *wm = sl_bind_expr(&ctx, s->wm_expr);
        if (!wm)
            goto done;
        bool ok = sl_type_is_timestamp(wm->type.id);
        if (!ok) {
            char *t = sl_type_to_string(wm->type);
            sl_error_set(b->err, SL_ERR_DATATYPE_MISMATCH, s->wm_expr->pos,
                         "watermark expression must be of type TIMESTAMP or TIMESTAMP_LTZ, not %s",
                         t);
            sl_error_hint(b->err, "Write it as: WATERMARK FOR %s AS %s - INTERVAL '5' SECOND",
                          s->wm_column->name, s->wm_column->name);
            sl_free(t);
        }
        sl_bexpr_free(wm);
        if (!ok)
            goto done;
    }
    /* The connector's checks see the physical columns only (a ROW column's
    ** leaves; not the metadata columns, which it fills). */
    int nshape = 0;
    for (int i = 0; i < nphys; i++) {
        if (phys[i].def->metadata)
            continue;
        names[nshape] = phys[i].name;
        types[nshape++] = phys[i].type;
    }
    npart = sl_list_len(s->partition_by);
    part = sl_calloc((size_t)(npart ? npart : 1), sizeof(int));
    if (sl__bind_partitions(b, s, phys, nphys, part) != 0)
        goto done;
    for (int k = 0; k < npart; k++) { /* to the shape's column numbers */
        int at = 0;
        for (int i = 0; i < part[k]; i++)
            at += !phys[i].def->metadata;
        part[k] = at;
    }
    sl_table_shape shape = {nshape, names, types, sl_list_len(s->primary_key), NULL, npart, part,
                            npart ? ((const sl_ident *)sl_list_get(s->partition_by, 0))->pos : -1};
    static const sl_kvlist empty = {NULL, 0, 0};
    rc = sl_connector_validate(s->options ? s->options : &empty, &shape,
                               s->options_pos >= 0 && s->options ? s->options_pos : s->name_pos,
                               b->err);
done:
    sl_free(part);
    sl_free(names);
    sl_free(types);
    sl_free(scols);
    sl_columns_free(phys, nphys);
    return rc;
}

/* ------------------------------------------------------------------------
** FROM
*/

const sl_view *sl_binder_view(const sl_binder *b, const char *name)
{
    for (int i = 0; i < sl_list_len(b->tviews); i++) {
        const sl_view *v = sl_list_get(b->tviews, i);
        if (strcmp(v->name, name) == 0)
            return v;
    }
    return sl_catalog_view(b->cat, name);
}

static int sl__bind_query_rel(sl_binder *b, const sl_query *q, sl__rel *out);

/* Scan of a table, or the plan of a view, for a FROM name. */
/* A scan of a catalog relation (syscat.c). */
static int sl__bind_sysrel(const sl_sysrel *r, int pos, const char *alias, sl__rel *out)
{
    char names[32][64];
    sl_type types[32];
    int n = sl_sysrel_cols(r, names, types, 32);
    sl_lp *lp = sl_lp_new(SL_LP_SCAN, NULL);
    lp->pos = pos;
    lp->table = sl_sprintf("%s.%s", sl_sysrel_schema(r), sl_sysrel_name(r));
    lp->sysrel = r;
    lp->wm_col = -1;
    for (int i = 0; i < n; i++)
        sl_lp_add_col(lp, names[i], types[i], false);
    out->lp = lp;
    sl__rel_scope(out, alias ? alias : sl_sysrel_name(r));
    return 0;
}

static int sl__bind_named(sl_binder *b, const char *name, int pos, const char *alias, sl__rel *out);

/* A schema-qualified FROM name: pg_catalog and information_schema hold the
** catalog relations, public (Flink's default_database) the session's tables
** and views. */
static int sl__bind_qualified(sl_binder *b, const sl_from *f, sl__rel *out)
{
    if (strcmp(f->schema, "public") == 0 || strcmp(f->schema, SL_DATABASE_NAME) == 0)
        return sl__bind_named(b, f->name, f->pos, f->alias, out);
    const sl_sysrel *r = sl_sysrel_find(f->schema, f->name);
    if (r)
        return sl__bind_sysrel(r, f->pos, f->alias, out);
    if (strcmp(f->schema, "pg_catalog") == 0 || strcmp(f->schema, "information_schema") == 0)
        return sl_error_set(b->err, SL_ERR_UNDEFINED_TABLE, f->pos,
                            "relation \"%s.%s\" does not exist", f->schema, f->name);
    return sl_error_set(b->err, "3F000", f->pos, "schema \"%s\" does not exist",
                        f->schema);
}

/* x with each column reference k replaced by a copy of exprs[k]. */
static sl_bexpr *sl__subst_cols(sl_bexpr *x, sl_bexpr *const *exprs)
{
    if (x->kind == SL_BX_COLUMN) {
        sl_bexpr *r = sl_bexpr_dup(exprs[x->col]);
        sl_bexpr_free(x);
        return r;
    }
    for (int i = 0; i < x->nargs; i++)
        x->args[i] = sl__subst_cols(x->args[i], exprs);
    return x;
}

/* A metadata column read in its key's type, cast to its declared type (as
** Flink's scan does). */
static sl_bexpr *sl__meta_cast(sl_bexpr *x, sl_type to)
{
    sl_bexpr *c = sl_bexpr_new(SL_BX_CAST, to, x->pos);
    c->args = sl_malloc(sizeof(sl_bexpr *));
    c->args[0] = x;
    c->nargs = 1;
    return c;
}

static int sl__bind_named(sl_binder *b, const char *name, int pos, const char *alias, sl__rel *out)
{
    const sl_view *v = sl_binder_view(b, name);
    if (v) {
        if (b->depth >= SL_MAX_VIEW_DEPTH)
            return sl_error_set(b->err, SL_ERR_PROGRAM_LIMIT, pos,
                                "views nested too deeply (a view may refer to itself)");
        b->depth++;
        int rc = sl__bind_query_rel(b, v->def->query, out);
        b->depth--;
        if (rc != 0) {
            /* Point at the use of the view; the inner position is in its definition. */
            b->err->position = pos;
            if (!b->err->detail)
                sl_error_detail(b->err, "The error is in the definition of view \"%s\".", name);
            return -1;
        }
        for (int i = 0; i < sl_list_len(v->def->column_names) && i < out->lp->ncols; i++) {
            const sl_ident *id = sl_list_get(v->def->column_names, i);
            sl_free(out->lp->cols[i].name);
            out->lp->cols[i].name = sl_strdup(id->name);
        }
        sl__rel_scope(out, alias ? alias : name);
        return 0;
    }
    const sl_table *t = sl_catalog_table(b->cat, name);
    const sl_sysrel *sys = t ? NULL : sl_sysrel_find(NULL, name);
    if (sys)
        return sl__bind_sysrel(sys, pos, alias, out);
    if (!t) {
        sl_error_set(b->err, SL_ERR_UNDEFINED_TABLE, pos, "table \"%s\" does not exist", name);
        sl_list *names = sl_catalog_table_names(b->cat);
        const char *near = sl_did_you_mean(name, (const char *const *)names->items, names->n);
        if (near)
            sl_error_hint(b->err, "Did you mean \"%s\"?", near);
        sl_list_free(names, sl_free);
        return -1;
    }
    if (!t->connector || !t->connector->caps.source) {
        sl_error_set(b->err, SL_ERR_WRONG_OBJECT_TYPE, pos, "table \"%s\" cannot be read", name);
        sl_error_detail(b->err, "Connector '%s' can only be written to.",
                        t->connector ? t->connector->name : "?");
        return -1;
    }
    /* The scan reads the physical columns; a projection right above it
    ** computes the computed ones, in the declared order. */
    int wm_phys = t->wm_col >= 0 ? t->all[t->wm_col].phys : -1;
    sl_lp *lp = sl_lp_new(SL_LP_SCAN, NULL);
    lp->pos = pos;
    lp->table = sl_strdup(t->name);
    lp->connector = t->connector;
    lp->wm_col = wm_phys;
    if (t->wm_col >= 0)
        lp->wm_name = sl_strdup(t->all[t->wm_col].name);
    sl_strbuf meta = SL_STRBUF_INIT;
    for (int i = 0; i < t->ncols; i++) { /* a metadata column in its key's type */
        sl_lp_add_col(lp, t->cols[i].name, t->cols[i].meta ? t->cols[i].mtype : t->cols[i].type,
                      i == wm_phys);
        if (t->cols[i].meta)
            sl_strbuf_appendf(&meta, "%s%s", meta.len ? ", " : "", t->cols[i].meta);
    }
    lp->meta = meta.len ? sl_strbuf_detach(&meta) : NULL;
    sl_strbuf_free(&meta);
    out->lp = lp;
    sl__rel_scope(out, alias ? alias : name);
    if (t->connector->caps.source_upserts) {
        /* An upsert changelog (the key's row now, or its deletion): what the
        ** rest of the plan reads is its complete form, keyed by the PRIMARY
        ** KEY, as Flink's ChangelogNormalize makes it. */
        sl_lp *norm = sl_lp_new(SL_LP_NORMALIZE, lp);
        norm->pos = pos;
        for (int i = 0; i < t->ncols; i++)
            sl_lp_add_col(norm, t->cols[i].name, lp->cols[i].type, i == wm_phys);
        norm->keys = sl_calloc((size_t)(t->npk ? t->npk : 1), sizeof(int));
        for (int i = 0; i < t->npk; i++)
            norm->keys[norm->nkeys++] = t->pk[i];
        out->lp = norm;
    }
    sl_lp *proj = NULL;
    bool computed = false;
    for (int i = 0; i < t->nall; i++)
        computed = computed || t->all[i].phys < 0;
    for (int i = 0; i < t->ncols; i++) /* ... or casts a metadata column to its type */
        computed = computed || (t->cols[i].meta &&
                                !sl_type_equal_ignoring_null(t->cols[i].mtype, t->cols[i].type));
    if (computed) {
        proj = sl_lp_new(SL_LP_PROJECT, out->lp);
        proj->pos = pos;
        out->lp = proj;
        for (int i = 0; i < t->nall; i++) {
            const sl_column *c = &t->all[i];
            for (int k = c->phys + 1; c->phys >= 0 && k < c->phys + c->nleaves; k++) {
                /* a ROW column's leaves after its first */
                sl__lp_push_expr(proj, sl__colref(k - 1, t->cols[k - 1].type, pos));
                sl_lp_add_col(proj, t->cols[k - 1].name, t->cols[k - 1].type, false);
            }
            int last = c->phys >= 0 ? c->phys + c->nleaves - 1 : -1;
            sl_bexpr *x = c->phys >= 0 ? sl__colref(last, lp->cols[last].type, pos)
                                       : sl_bind_computed(t->def, sl_list_get(t->def->columns, i),
                                                          b->err);
            if (x && c->phys >= 0 && !sl_type_equal_ignoring_null(x->type, t->cols[last].type))
                x = sl__meta_cast(x, t->cols[last].type);
            if (!x) {
                sl__rel_free(out);
                return -1;
            }
            sl__lp_push_expr(proj, x);
            sl_lp_add_col(proj, c->phys >= 0 ? t->cols[last].name : c->name,
                          c->phys >= 0 ? t->cols[last].type : x->type,
                          i == t->wm_col ? SL_ROWTIME : sl__proctime_of(x));
        }
        sl__rel_scope(out, alias ? alias : name);
    }
    if (t->wm_col >= 0) {
        sl_scope scope = sl__scope_of(out);
        sl_bind_ctx ctx = {&scope, b->err, "WATERMARK", NULL, NULL, b->params};
        sl_bexpr *wm = sl_bind_expr(&ctx, t->def->wm_expr);
        if (!wm) {
            sl__rel_free(out);
            return -1;
        }
        /* evaluated on what the source reads: over the physical columns */
        lp->watermark = proj ? sl__subst_cols(wm, proj->exprs) : wm;
    }
    return 0;
}

/* A constant INTERVAL argument of a window function, in milliseconds. */
static int sl__interval_arg(sl_binder *b, const sl_expr *e, const char *what, int64_t *ms)
{
    sl_scope empty = {0, NULL};
    sl_bind_ctx ctx = {&empty, b->err, what, NULL, NULL, b->params};
    sl_bexpr *x = sl_bind_expr(&ctx, e);
    if (!x)
        return -1;
    int rc = 0;
    if (x->kind != SL_BX_LITERAL || x->type.id != SL_TYPE_INTERVAL_DT || !x->text) {
        rc = sl_error_set(b->err, SL_ERR_WINDOWING, e->pos,
                          "the %s of a window must be a constant interval such as "
                          "INTERVAL '1' MINUTE",
                          what);
    } else {
        /* every bound of every window must stay a representable timestamp */
        const int64_t max_ms = INT64_MAX / SL_NANOS_PER_MILLI;
        *ms = strtoll(x->text, NULL, 10);
        if (*ms <= 0 && strcmp(what, "offset") != 0) {
            rc = sl_error_set(b->err, SL_ERR_WINDOWING, e->pos,
                              "the %s of a window must be positive", what);
        } else if (*ms > max_ms || *ms < -max_ms) {
            rc = sl_error_set(b->err, SL_ERR_WINDOWING, e->pos, "the %s of a window is too large",
                              what);
            sl_error_detail(b->err,
                            "Window sizes, slides, steps and offsets are at most %" PRId64
                            " ms (about 292 years), the range of a TIMESTAMP.",
                            max_ms);
        }
    }
    sl_bexpr_free(x);
    return rc;
}

static int sl__bind_window(sl_binder *b, const sl_from *f, sl__rel *out)
{
    static const char *const fnames[] = {"TUMBLE", "HOP", "CUMULATE", "SESSION"};
    const char *fname = fnames[f->window_fn];
    if (!f->input || f->input->kind != SL_FROM_TABLE)
        return sl_error_set(b->err, SL_ERR_WINDOWING, f->pos,
                            "%s expects a table argument such as TABLE t", fname);
    sl__rel in = {0};
    if (sl__bind_named(b, f->input->name, f->input->pos, NULL, &in) != 0)
        return -1;
    sl_scope scope = sl__scope_of(&in);
    int tc = sl_scope_resolve(&scope, NULL, f->time_col, f->time_col_pos, b->err);
    if (tc < 0) {
        sl__rel_free(&in);
        return -1;
    }
    if (!in.lp->cols[tc].rowtime) {
        char *t = sl_type_to_string(in.lp->cols[tc].type);
        sl_error_set(b->err, SL_ERR_WINDOWING, f->time_col_pos,
                     "the time column of %s must be a time attribute, but \"%s\" is a plain %s",
                     fname, f->time_col, t);
        sl_error_hint(b->err, "Declare WATERMARK FOR %s AS ... in the CREATE TABLE of \"%s\".",
                      f->time_col, f->input->name);
        sl_free(t);
        sl__rel_free(&in);
        return -1;
    }
    int nargs = sl_list_len(f->args);
    int need = f->window_fn == SL_WIN_TUMBLE || f->window_fn == SL_WIN_SESSION ? 1 : 2;
    if (f->partition && f->window_fn != SL_WIN_SESSION) {
        const sl_ident *k = sl_list_get(f->partition, 0);
        sl__rel_free(&in);
        return sl_error_set(b->err, SL_ERR_WINDOWING, k->pos,
                            "PARTITION BY is supported only for SESSION windows");
    }
    if (f->window_fn == SL_WIN_SESSION && nargs != 1) {
        sl__rel_free(&in);
        return sl_error_set(b->err, SL_ERR_WINDOWING, f->pos,
                            "SESSION takes a table, a DESCRIPTOR and a gap");
    }
    if (nargs < need || nargs > need + 1) {
        sl__rel_free(&in);
        return sl_error_set(b->err, SL_ERR_WINDOWING, f->pos,
                            "%s takes a table, a DESCRIPTOR and %s", fname,
                            f->window_fn == SL_WIN_TUMBLE ? "a size [and an offset]"
                            : f->window_fn == SL_WIN_HOP ? "a slide and a size [and an offset]"
                                                         : "a step and a max size [and an offset]");
    }
    int64_t size = 0, slide = 0, offset = 0;
    int rc = 0;
    if (f->window_fn == SL_WIN_TUMBLE || f->window_fn == SL_WIN_SESSION) {
        rc = sl__interval_arg(b, sl_list_get(f->args, 0),
                              f->window_fn == SL_WIN_SESSION ? "gap" : "size", &size);
        slide = size;
    } else {
        rc = sl__interval_arg(b, sl_list_get(f->args, 0),
                              f->window_fn == SL_WIN_HOP ? "slide" : "step", &slide);
        if (rc == 0)
            rc = sl__interval_arg(b, sl_list_get(f->args, 1), "size", &size);
        const sl_expr *size_arg = sl_list_get(f->args, 1);
        const char *sname = f->window_fn == SL_WIN_HOP ? "slide" : "step";
        if (rc == 0 && (slide <= 0 || size % slide != 0))
            rc = sl_error_set(b->err, SL_ERR_WINDOWING, size_arg->pos,
                              "the size of a %s window must be a multiple of its %s", fname,
                              sname);
        if (rc == 0 && size / slide > SL_WINDOW_MAX_PER_ROW) {
            /* each row is copied into size / slide windows */
            rc = sl_error_set(b->err, SL_ERR_PROGRAM_LIMIT, size_arg->pos,
                              "a %s window of this size and %s puts each row into %" PRId64
                              " windows",
                              fname, sname, size / slide);
            sl_error_detail(b->err, "A row may fall into at most %d windows (size / %s).",
                            SL_WINDOW_MAX_PER_ROW, sname);
            sl_error_hint(b->err, "Use a larger %s or a smaller size.", sname);
        }
    }
    if (rc == 0 && nargs == need + 1)
        rc = sl__interval_arg(b, sl_list_get(f->args, need), "offset", &offset);
    int npart = sl_list_len(f->partition);
    int *part = sl_calloc((size_t)npart + 1, sizeof(int));
    for (int i = 0; rc == 0 && i < npart; i++) {
        const sl_ident *k = sl_list_get(f->partition, i);
        part[i] = sl_scope_resolve(&scope, NULL, k->name, k->pos, b->err);
        rc = part[i] < 0 ? -1 : 0;
    }
    if (rc != 0) {
        sl_free(part);
        sl__rel_free(&in);
        return -1;
    }
    sl_lp *lp = sl_lp_new(SL_LP_WINDOW, in.lp);
    lp->pos = f->pos;
    in.lp = NULL;
    sl__rel_clear(&in);
    lp->window_fn = f->window_fn;
    lp->time_col = tc;
    lp->size_ms = size;
    lp->slide_ms = slide;
    lp->offset_ms = offset;
    lp->keys = part; /* SESSION: PARTITION BY columns */
    lp->nkeys = npart;
    for (int i = 0; i < lp->input->ncols; i++)
        sl_lp_add_col(lp, lp->input->cols[i].name, lp->input->cols[i].type, false);
    sl_type ts = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    ts.not_null = true;
    sl_type wt = sl_type_make_p(lp->input->cols[tc].type.id, 3, 0);
    wt.not_null = true;
    sl_lp_add_col(lp, "window_start", ts, false);
    sl_lp_add_col(lp, "window_end", ts, false);
    sl_lp_add_col(lp, "window_time", wt, lp->input->cols[tc].rowtime);
    out->lp = lp;
    sl__rel_scope(out, f->alias ? f->alias : f->input->name);
    return 0;
}

/* AS t(a, b) after a subquery: its columns' new names, one per column. */
static int sl__derived_columns(sl_binder *b, const sl_from *f, sl__rel *out)
{
    int n = sl_list_len(f->columns), have = out->lp->ncols;
    if (n != have) {
        const sl_ident *first = sl_list_get(f->columns, 0);
        sl__rel_free(out);
        return sl_error_set(b->err, SL_ERR_INVALID_COLUMN_REF, first ? first->pos : f->pos,
                            "table \"%s\" has %d columns available but %d columns specified",
                            f->alias ? f->alias : "?", have, n);
    }
    for (int i = 0; i < n; i++) {
        const sl_ident *id = sl_list_get(f->columns, i);
        sl_free(out->lp->cols[i].name);
        out->lp->cols[i].name = sl_strdup(id->name);
    }
    return 0;
}

static int sl__bind_from(sl_binder *b, const sl_from *f, sl__rel *out);

/* ------------------------------------------------------------------------
** Joins of decorrelated subqueries (SEMI / ANTI / SINGLE, made by
** sl__lift_where and sl__lift_subqueries): the condition names the
** subquery's columns first, then the query around it's, as PostgreSQL
** resolves a subquery's names; for IN (args: the outer value and the
** subquery's item) the outer value is bound over the left side alone.
** SEMI / ANTI keep the left side's columns only (a projection over the
** join) and its scope.
*/
#define SL__OUTER_VALUE "\001outer" /* the qualifier that stands for IN's left value */

typedef struct sl__subq_names {
    sl_scope right;       /* the subquery's columns */
    int nl;               /* the left side's column count */
    const sl_bexpr *outer;/* IN's left value, bound */
} sl__subq_names;

static int sl__subq_hook(sl_bind_ctx *ctx, const sl_expr *e, sl_bexpr **out)
{
    sl__subq_names *h = ctx->hook_ctx;
    if (e->kind != SL_EXPR_COLUMN)
        return 0;
    if (e->qualifier && strcmp(e->qualifier, SL__OUTER_VALUE) == 0) {
        *out = sl_bexpr_dup(h->outer);
        return 1;
    }
    sl_error quiet = SL_ERROR_INIT;
    int i = sl_scope_resolve(&h->right, e->qualifier, e->text, e->pos, &quiet);
    bool ambiguous = i < 0 && strcmp(quiet.sqlstate, SL_ERR_AMBIGUOUS_COLUMN) == 0;
    if (ambiguous) {
        sl_error_copy(ctx->err, &quiet);
        sl_error_reset(&quiet);
        return -1;
    }
    sl_error_reset(&quiet);
    if (i < 0)
        return 0; /* the query around it's */
    *out = sl__colref(h->nl + i, h->right.cols[i].type, e->pos);
    return 1;
}

static int sl__bind_subquery_join(sl_binder *b, const sl_from *f, int nl, sl__rel *out)
{
    sl_lp *lp = out->lp;
    lp->pos = f->pos; /* the subquery's: 21000 points at it */
    sl_scope all = sl__scope_of(out), left = {nl, out->cols};
    sl__subq_names h = {{all.n - nl, out->cols + nl}, nl, NULL};
    sl_bexpr *outer = NULL;
    sl_expr *cond = f->on ? sl_expr_dup(f->on) : NULL;
    int rc = 0;
    if (sl_list_len(f->args) == 2) {
        sl_bind_ctx octx = {&left, b->err, "IN", NULL, NULL, b->params};
        outer = sl_bind_expr(&octx, sl_list_get(f->args, 0));
        rc = outer ? 0 : -1;
        h.outer = outer;
        const sl_expr *item = sl_list_get(f->args, 1);
        int pos = ((const sl_expr *)sl_list_get(f->args, 0))->pos;
        /* x = item; NOT IN: no row where x = item or either is NULL */
        sl_expr *eq = sl_expr_binary(SL_OP_EQ, sl_expr_column(sl_strdup(SL__OUTER_VALUE), sl_strdup("x"), pos),
                                     sl_expr_dup(item), pos);
        if (f->join_type == SL_JOIN_ANTI) {
            sl_expr *xn = sl_expr_new(SL_EXPR_IS, pos);
            xn->op = SL_IS_NULL;
            xn->left = sl_expr_column(sl_strdup(SL__OUTER_VALUE), sl_strdup("x"), pos);
            sl_expr *in = sl_expr_new(SL_EXPR_IS, pos);
            in->op = SL_IS_NULL;
            in->left = sl_expr_dup(item);
            eq = sl_expr_binary(SL_OP_OR, sl_expr_binary(SL_OP_OR, eq, xn, pos), in, pos);
        }
        cond = cond ? sl_expr_binary(SL_OP_AND, cond, eq, pos) : eq;
    }
    if (rc == 0 && cond) {
        sl_bind_ctx ctx = {&all, b->err, "WHERE", sl__subq_hook, &h, b->params};
        sl_bexpr *c = NULL;
        rc = sl_bind_condition(&ctx, cond, &c);
        if (rc == 0)
            sl__lp_push_expr(lp, c);
    }
    sl_expr_free(cond);
    sl_bexpr_free(outer);
    if (rc != 0) {
        sl__rel_free(out);
        return -1;
    }
    if (f->join_type == SL_JOIN_SINGLE)
        return 0;
    /* SEMI / ANTI: the left side's columns, its scope */
    sl_lp *proj = sl_lp_new(SL_LP_PROJECT, lp);
    for (int i = 0; i < nl; i++) {
        sl_lp_add_col(proj, lp->cols[i].name, lp->cols[i].type, false);
        sl__lp_push_expr(proj, sl__colref(i, lp->cols[i].type, f->pos));
    }
    for (int i = nl; i < out->nquals; i++)
        sl_free(out->quals[i]);
    out->nquals = nl;
    out->lp = proj;
    return 0;
}

/* A temporal join's FOR SYSTEM_TIME AS OF: an event-time attribute of the
** left side (*ltime: its column), or a processing-time one (*lookup: a
** lookup join). Only INNER and LEFT, as in Flink. */
static int sl__temporal_side(sl_binder *b, const sl_from *f, sl__rel *l, int *ltime,
                             bool *lookup)
{
    const sl_expr *t = f->right->as_of;
    if (f->join_type != SL_JOIN_INNER && f->join_type != SL_JOIN_LEFT)
        return sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, f->right->pos,
                            "a temporal join must be an INNER or LEFT join");
    sl_scope scope = sl__scope_of(l);
    sl_bind_ctx ctx = {&scope, b->err, "FOR SYSTEM_TIME AS OF", NULL, NULL, b->params};
    sl_bexpr *x = sl_bind_expr(&ctx, t);
    if (!x)
        return -1;
    int col = x->kind == SL_BX_COLUMN ? x->col : -1;
    sl_bexpr_free(x);
    int kind = col >= 0 ? l->lp->cols[col].rowtime : 0;
    if (kind == SL_PROCTIME) {
        *lookup = true;
        return 0;
    }
    if (kind != SL_ROWTIME) {
        sl_error_set(b->err, SL_ERR_WRONG_OBJECT_TYPE, t->pos,
                     "FOR SYSTEM_TIME AS OF must name a time attribute of the left side");
        sl_error_hint(b->err, "Use the left table's WATERMARK column (an event-time temporal "
                              "join) or a PROCTIME() column (a lookup join).");
        return -1;
    }
    *ltime = col;
    return 0;
}

/* The right side of a lookup join: a table of a connector that can look
** rows up, read as it is declared (no computed or metadata columns). What
** EXPLAIN shows of it goes to *desc (owned). */
static int sl__lookup_table(sl_binder *b, const sl_from *fr, const sl__rel *r, char **desc)
{
    const sl_table *t = sl_catalog_table(b->cat, fr->name);
    if (!t || !t->connector) {
        sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, fr->pos,
                     "a lookup join needs a table: \"%s\" is a view", fr->name);
        sl_error_hint(b->err, "Join a table of the jdbc or filesystem connector.");
        return -1;
    }
    if (!t->connector->create_lookup) {
        sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, fr->pos,
                     "connector '%s' cannot be the table of a lookup join", t->connector->name);
        sl_error_detail(b->err, "Table \"%s\" is read with connector '%s', which cannot look "
                                "rows up by key.",
                        fr->name, t->connector->name);
        sl_error_hint(b->err, "Lookup joins read tables of the jdbc and filesystem connectors; "
                              "join other tables with a regular or an event-time temporal "
                              "join.");
        return -1;
    }
    if (r->lp->kind != SL_LP_SCAN || r->lp->ncols != t->ncols) {
        sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, fr->pos,
                     "the table of a lookup join cannot have computed or metadata columns");
        return -1;
    }
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_strbuf_appendf(&sb, "connector=[%s]", t->connector->name);
    if (t->connector->lookup_describe) {
        sl_strbuf_append(&sb, ", ");
        t->connector->lookup_describe(t->def->options, &sb);
    }
    *desc = sl_strbuf_detach(&sb);
    return 0;
}

/* A lookup join's condition equates a column of the table with an
** expression of the left side (Flink: "Temporal table join requires an
** equality condition on fields of table"). */
static int sl__lookup_keys(sl_binder *b, const sl_from *f, const sl_lp *lp)
{
    sl_list *terms = sl_list_new();
    if (lp->nexprs > 0 && lp->exprs[0])
        sl_bexpr_conjuncts(lp->exprs[0], terms);
    bool found = false;
    for (int i = 0; i < terms->n && !found; i++) {
        int rc;
        const sl_bexpr *le;
        found = sl_lookup_key(terms->items[i], lp->input->ncols, &rc, &le);
    }
    sl_list_free(terms, NULL);
    if (found)
        return 0;
    sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, f->on ? f->on->pos : f->right->pos,
                 "a lookup join requires an equality condition on fields of table \"%s\"",
                 f->right->name);
    sl_error_hint(b->err, "Add ON <table>.<column> = <expression of the left side>: the "
                          "lookup key.");
    return -1;
}

/* The right side of a temporal join: a versioned table, with a PRIMARY KEY
** and an event-time attribute (*rtime: its column). */
static int sl__versioned(sl_binder *b, const sl_from *fr, sl__rel *r, int *rtime)
{
    const sl_table *t = sl_catalog_table(b->cat, fr->name);
    if (!t || t->npk == 0) {
        sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, fr->pos,
                     "a temporal join needs a versioned table: \"%s\" has no PRIMARY KEY",
                     fr->name);
        sl_error_hint(b->err, "Declare PRIMARY KEY (...) NOT ENFORCED and a WATERMARK on the "
                              "versioned table, as Flink requires.");
        return -1;
    }
    for (int i = 0; i < r->lp->ncols; i++)
        if (r->lp->cols[i].rowtime == SL_ROWTIME)
            *rtime = i;
    if (*rtime < 0) {
        sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, fr->pos,
                     "a temporal join needs a versioned table: \"%s\" has no event-time "
                     "attribute",
                     fr->name);
        sl_error_hint(b->err, "Declare a WATERMARK on the versioned table.");
        return -1;
    }
    return 0;
}

static bool sl__eq_on_col(const sl_bexpr *c, int col)
{
    if (!c || c->kind != SL_BX_CALL)
        return false;
    if (c->fn->id == SL_FN_AND)
        return sl__eq_on_col(c->args[0], col) || sl__eq_on_col(c->args[1], col);
    return c->fn->id == SL_FN_EQ &&
           ((c->args[0]->kind == SL_BX_COLUMN && c->args[0]->col == col) ||
            (c->args[1]->kind == SL_BX_COLUMN && c->args[1]->col == col));
}

/* A temporal join's condition equates every PRIMARY KEY column of the
** versioned table (Flink: "Temporal table's primary key must be included
** in the equivalence condition"). */
static int sl__temporal_keys(sl_binder *b, const sl_from *f, const sl_lp *lp)
{
    const sl_table *t = sl_catalog_table(b->cat, f->right->name);
    int nl = lp->input->ncols;
    const sl_bexpr *cond = lp->nexprs > 0 ? lp->exprs[0] : NULL;
    for (int k = 0; k < t->npk; k++) {
        const char *name = t->cols[t->pk[k]].name;
        int col = -1;
        for (int i = 0; i < lp->right->ncols; i++)
            if (strcmp(lp->right->cols[i].name, name) == 0)
                col = nl + i;
        if (col < 0 || !sl__eq_on_col(cond, col)) {
            sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, f->on ? f->on->pos : f->pos,
                         "a temporal join's condition must equate the versioned table's "
                         "PRIMARY KEY column \"%s\"",
                         name);
            return -1;
        }
    }
    return 0;
}

/* 42804: UNNEST of x, which is neither an ARRAY nor a MAP. */
static void sl__unnest_type_error(sl_binder *b, const sl_bexpr *x, int pos)
{
    sl_type xt = x->type;
    xt.not_null = false;
    char *ts = sl_type_to_string(xt);
    sl_error_set(b->err, SL_ERR_DATATYPE_MISMATCH, x->pos >= 0 ? x->pos : pos,
                 "argument of UNNEST must be an ARRAY or a MAP, not %s", ts);
    sl_free(ts);
}

/* Flink's UNNEST on the right of a join (CROSS JOIN / comma, INNER JOIN
** ... ON cond, LEFT JOIN ... ON TRUE): its argument is bound over the left
** side's columns (a correlated expansion, Flink's Correlate), the node is
** an SL_LP_UNNEST over the left plan. The new columns are named by the
** alias list, else as Flink names them: EXPR$0 for an array's elements
** (the alias itself when there is one), KEY and VALUE for a map's entries,
** ORDINALITY for WITH ORDINALITY. */
static int sl__unnest_over(sl_binder *b, const sl_from *fr, int join_type, const sl_expr *on,
                           sl__rel *lp_l, sl__rel *out);

/* A join whose right side is UNNEST(x): Flink's correlated expansion of an
** ARRAY or a MAP. 1 when x is a PostgreSQL array's text literal
** ('{a,b}'::text[]): l is then bound and the caller joins unnest as a
** set-returning function of the bounded path, as PostgreSQL does. */
static int sl__bind_unnest(sl_binder *b, const sl_from *f, sl__rel *lp_l, sl__rel *out)
{
    const sl_from *fr = f->right;
    if (f->join_type != SL_JOIN_CROSS && f->join_type != SL_JOIN_INNER &&
        f->join_type != SL_JOIN_LEFT) {
        sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, fr->pos,
                     "UNNEST is only supported on the right of a CROSS, INNER or LEFT join");
        return -1;
    }
    int nargs = sl_list_len(fr->args);
    if (nargs != 1) {
        const sl_expr *a = sl_list_get(fr->args, nargs > 1 ? 1 : 0);
        sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, nargs > 1 && a ? a->pos : fr->pos,
                     "UNNEST takes exactly one array or map");
        sl_error_hint(b->err, "Unnest each array in its own CROSS JOIN UNNEST.");
        return -1;
    }
    if (sl__bind_from(b, f->left, lp_l) != 0)
        return -1;
    sl_scope lscope = sl__scope_of(lp_l);
    sl_bind_ctx ctx = {&lscope, b->err, "UNNEST", NULL, NULL, b->params};
    sl_bexpr *x = sl_bind_expr(&ctx, sl_list_get(fr->args, 0));
    if (!x) {
        sl__rel_free(lp_l);
        return -1;
    }
    bool pg_text = sl_type_is_string(x->type.id) && sl_bexpr_is_constant(x);
    sl_bexpr_free(x);
    if (pg_text)
        return 1;
    sl__rel l = *lp_l;
    memset(lp_l, 0, sizeof *lp_l);
    return sl__unnest_over(b, fr, f->join_type, f->on, &l, out);
}

/* UNNEST fr over the bound left side l (taken), joined as join_type with
** condition on (INNER only). */
static int sl__unnest_over(sl_binder *b, const sl_from *fr, int join_type, const sl_expr *on,
                           sl__rel *lp_l, sl__rel *out)
{
    sl__rel l = *lp_l;
    sl_scope lscope = sl__scope_of(&l);
    sl_bind_ctx ctx = {&lscope, b->err, "UNNEST", NULL, NULL, b->params};
    sl_bexpr *x = sl_bind_expr(&ctx, sl_list_get(fr->args, 0));
    if (!x) {
        sl__rel_free(&l);
        return -1;
    }
    if (x->type.id != SL_TYPE_ARRAY && x->type.id != SL_TYPE_MAP) {
        sl__unnest_type_error(b, x, fr->pos);
        sl_bexpr_free(x);
        sl__rel_free(&l);
        return -1;
    }
    bool map = x->type.id == SL_TYPE_MAP;
    int nnew = (map ? 2 : 1) + (fr->ordinality ? 1 : 0);
    int ncolumns = sl_list_len(fr->columns);
    if (fr->columns && ncolumns != nnew) {
        const sl_ident *c0 = sl_list_get(fr->columns, 0);
        sl_error_set(b->err, SL_ERR_INVALID_COLUMN_REF, c0->pos >= 0 ? c0->pos : fr->pos,
                     "table \"%s\" has %d columns available but %d columns specified",
                     fr->alias, nnew, ncolumns);
        sl_bexpr_free(x);
        sl__rel_free(&l);
        return -1;
    }
    sl_type nt[3];
    const char *names[3];
    nt[0] = map ? sl_type_key(x->type) : sl_type_elem(x->type);
    names[0] = map ? "KEY" : fr->alias ? fr->alias : "EXPR$0";
    if (map) {
        nt[1] = sl_type_value(x->type);
        names[1] = "VALUE";
    }
    if (fr->ordinality) {
        nt[nnew - 1] = sl_type_make(SL_TYPE_INT);
        nt[nnew - 1].not_null = join_type != SL_JOIN_LEFT;
        names[nnew - 1] = "ORDINALITY";
    }
    for (int i = 0; i < nnew; i++) {
        if (i < (map ? 2 : 1))
            nt[i].not_null = false; /* elements may be NULL */
        if (fr->columns)
            names[i] = ((const sl_ident *)sl_list_get(fr->columns, i))->name;
    }
    sl_lp *lp = sl_lp_new(SL_LP_UNNEST, l.lp);
    lp->pos = fr->pos;
    lp->join_type = join_type == SL_JOIN_LEFT ? SL_JOIN_LEFT : SL_JOIN_INNER;
    sl__lp_push_expr(lp, x);
    int nl = l.lp->ncols;
    for (int i = 0; i < nl; i++)
        sl_lp_add_col(lp, l.lp->cols[i].name, l.lp->cols[i].type, l.lp->cols[i].rowtime);
    for (int i = 0; i < nnew; i++) {
        char *name = sl__unique_name(lp, names[i], lp->ncols);
        sl_lp_add_col(lp, name, nt[i], 0);
        sl_free(name);
    }
    out->lp = lp;
    sl__rel_scope(out, NULL);
    for (int i = 0; i < nl + nnew; i++) {
        sl_free(out->quals[i]);
        out->quals[i] = sl_strdup(i < nl ? l.cols[i].qualifier : fr->alias);
        out->cols[i].qualifier = out->quals[i];
        /* unqualified default names are the plan's unique ones (EXPR$0, EXPR$00
        ** for two UNNESTs in one FROM, as Flink's) */
        out->cols[i].name = i < nl                        ? l.cols[i].name
                            : fr->alias || fr->columns ? names[i - nl]
                                                          : lp->cols[i].name;
    }
    l.lp = NULL;
    sl__rel_clear(&l);
    bool on_true = on && on->kind == SL_EXPR_BOOL && on->ival == 1;
    if (!on || (join_type == SL_JOIN_LEFT && on_true) ||
        (join_type != SL_JOIN_LEFT && join_type != SL_JOIN_INNER))
        return 0;
    sl_scope scope = sl__scope_of(out); /* [LEFT | INNER] JOIN UNNEST(..) ON cond */
    sl_bind_ctx cctx = {&scope, b->err, "JOIN/ON", NULL, NULL, b->params};
    sl_bexpr *cond = NULL;
    if (sl_bind_condition(&cctx, on, &cond) != 0) {
        sl__rel_free(out);
        return -1;
    }
    if (join_type == SL_JOIN_LEFT) {
        sl__lp_push_expr(out->lp, cond); /* exprs[1]: the operator's own condition */
    } else { /* INNER: a filter above */
        sl_lp *flt = sl_lp_new(SL_LP_FILTER, out->lp);
        flt->pos = on->pos;
        sl__lp_push_expr(flt, cond);
        for (int i = 0; i < out->lp->ncols; i++)
            sl_lp_add_col(flt, out->lp->cols[i].name, out->lp->cols[i].type,
                          out->lp->cols[i].rowtime);
        out->lp = flt;
        for (int i = 0; i < flt->ncols; i++)
            out->cols[i].type = flt->cols[i].type;
    }
    return 0;
}

static int sl__bind_join(sl_binder *b, const sl_from *f, sl__rel *out)
{
    sl__rel l = {0}, r = {0};
    const sl_from *fr = f->right;
    bool temporal = fr->kind == SL_FROM_TABLE && fr->as_of;
    if (fr->kind == SL_FROM_FUNCTION && sl_strcasecmp(fr->name, "unnest") == 0 &&
        f->join_type < SL_JOIN_SEMI) {
        int rc = sl__bind_unnest(b, f, &l, out);
        if (rc != 1)
            return rc;
    } else if (sl__bind_from(b, f->left, &l) != 0) {
        return -1;
    }
    int ltime = -1, rtime = -1;
    bool lookup = false;
    char *lookup_desc = NULL;
    if (temporal && sl__temporal_side(b, f, &l, &ltime, &lookup) != 0) {
        sl__rel_free(&l);
        return -1;
    }
    if ((temporal ? sl__bind_named(b, fr->name, fr->pos, fr->alias, &r)
                  : sl__bind_from(b, f->right, &r)) != 0) {
        sl__rel_free(&l);
        return -1;
    }
    if (temporal && (lookup ? sl__lookup_table(b, fr, &r, &lookup_desc)
                            : sl__versioned(b, fr, &r, &rtime)) != 0) {
        sl__rel_free(&l);
        sl__rel_free(&r);
        return -1;
    }
    /* A name for two relations of one FROM (FROM t a, t a): PostgreSQL's
    ** 42712; Flink refuses it too. A subquery's relations may repeat the
    ** outer ones (semi/anti/single joins): its names hide theirs. */
    for (int i = 0; f->join_type < SL_JOIN_SEMI && i < r.lp->ncols; i++) {
        const char *q = r.cols[i].qualifier;
        for (int j = 0; q && j < l.lp->ncols; j++) {
            if (l.cols[j].qualifier && strcmp(l.cols[j].qualifier, q) == 0) {
                sl_error_set(b->err, SL_ERR_DUPLICATE_ALIAS, f->right->pos,
                             "table name \"%s\" specified more than once", q);
                sl__rel_free(&l);
                sl__rel_free(&r);
                sl_free(lookup_desc);
                return -1;
            }
        }
    }
    sl_lp *lp = sl_lp_new(SL_LP_JOIN, l.lp);
    lp->lookup = lookup_desc;
    lp->right = r.lp;
    lp->join_type = f->join_type;
    lp->temporal = temporal;
    lp->ltime = ltime;
    lp->rtime = rtime;
    int nl = l.lp->ncols, nr = r.lp->ncols;
    bool null_left = f->join_type == SL_JOIN_RIGHT || f->join_type == SL_JOIN_FULL;
    bool null_right = f->join_type == SL_JOIN_LEFT || f->join_type == SL_JOIN_FULL ||
                      f->join_type == SL_JOIN_SINGLE;
    for (int i = 0; i < nl + nr; i++) {
        const sl_lp_col *c = i < nl ? &l.lp->cols[i] : &r.lp->cols[i - nl];
        sl_type t = c->type;
        if ((i < nl && null_left) || (i >= nl && null_right))
            t.not_null = false;
        /* Output names are unique, as in Flink (id, id0): plans stay readable.
        ** A regular join does not keep event time: rows may be emitted late;
        ** an interval join keeps both sides' (sl_lp_join_times, once its
        ** condition is known).
        ** A lookup join keeps the left side's time attributes (as Flink): it
        ** emits each row as it arrives. */
        char *name = sl__unique_name(lp, c->name, lp->ncols);
        sl_lp_add_col(lp, name, t, lookup && i < nl ? c->rowtime : 0);
        sl_free(name);
    }
    out->lp = lp;
    sl__rel_scope(out, NULL);
    /* Names resolve as the inputs spell them, qualified by their own tables. */
    for (int i = 0; i < nl + nr; i++) {
        sl_free(out->quals[i]);
        out->quals[i] = sl_strdup(i < nl ? l.cols[i].qualifier : r.cols[i - nl].qualifier);
        out->cols[i].qualifier = out->quals[i];
        /* as the input's scope spells it (a nested join's input renamed its
        ** duplicates: id0 is still t.id); the names live in the plans below */
        out->cols[i].name = i < nl ? l.cols[i].name : r.cols[i - nl].name;
    }
    l.lp = r.lp = NULL;
    sl__rel_clear(&l);
    sl__rel_clear(&r);
    if (f->join_type >= SL_JOIN_SEMI)
        return sl__bind_subquery_join(b, f, nl, out);
    if (f->on) {
        sl_scope scope = sl__scope_of(out);
        sl_bind_ctx ctx = {&scope, b->err, "JOIN/ON", NULL, NULL, b->params};
        sl_bexpr *cond = NULL;
        if (sl_bind_condition(&ctx, f->on, &cond) != 0) {
            sl__rel_free(out);
            return -1;
        }
        sl__lp_push_expr(lp, cond);
        sl_lp_join_times(lp, NULL);
    }
    if (temporal && (lookup ? sl__lookup_keys(b, f, lp) : sl__temporal_keys(b, f, lp)) != 0) {
        sl__rel_free(out);
        return -1;
    }
    return 0;
}

/* generate_series(a, b [, step]) (BIGINT) or unnest(array) (STRING) in FROM:
** constant arguments; the column is named by the alias, else the function. */
static int sl__bind_function(sl_binder *b, const sl_from *f, sl__rel *out)
{
    bool series = sl_strcasecmp(f->name, "generate_series") == 0;
    bool unnest = sl_strcasecmp(f->name, "unnest") == 0;
    int n = sl_list_len(f->args);
    if ((!series && !unnest) || (series && (n < 2 || n > 3)) || (unnest && n != 1)) {
        sl_error_set(b->err, SL_ERR_UNDEFINED_FUNCTION, f->pos, "function %s does not exist",
                     f->name);
        sl_error_hint(b->err, "FROM takes the set-returning functions generate_series(start, "
                              "stop [, step]) and unnest(array).");
        return -1;
    }
    sl_lp *lp = sl_lp_new(SL_LP_FUNCTION, NULL);
    lp->pos = f->pos;
    lp->table = sl_strdup(series ? "generate_series" : "unnest");
    sl_scope empty = {0, NULL};
    sl_bind_ctx ctx = {&empty, b->err, "FROM", NULL, NULL, b->params};
    for (int i = 0; i < n; i++) {
        sl_bexpr *x = sl_bind_expr(&ctx, sl_list_get(f->args, i));
        if (x && unnest && sl_type_is_composite(x->type.id)) {
            /* Flink's UNNEST(ARRAY[...]) on its own: over one row of no columns */
            sl_bexpr_free(x);
            sl_lp_free(lp);
            sl__rel one = {0};
            one.lp = sl_lp_new(SL_LP_VALUES, NULL);
            one.lp->nrows = 1;
            one.lp->rows = sl_calloc(1, sizeof(sl_bexpr **));
            one.lp->rows[0] = sl_calloc(1, sizeof(sl_bexpr *));
            sl__rel_scope(&one, NULL);
            return sl__unnest_over(b, f, SL_JOIN_CROSS, NULL, &one, out);
        }
        if (!x) {
            sl_lp_free(lp);
            return -1;
        }
        bool ok = x->type.id == SL_TYPE_NULL ||
                  (series ? sl_type_is_integer(x->type.id) : sl_type_is_string(x->type.id));
        sl__lp_push_expr(lp, x);
        if (!ok && unnest) {
            sl__unnest_type_error(b, x, f->pos);
            sl_lp_free(lp);
            return -1;
        }
        if (!ok) {
            char *ts = sl_type_to_string(x->type);
            sl_error_set(b->err, SL_ERR_UNDEFINED_FUNCTION, f->pos,
                         "function %s(%s) does not exist", lp->table, ts);
            sl_error_hint(b->err, series ? "generate_series takes integers."
                                         : "unnest takes an array.");
            sl_free(ts);
            sl_lp_free(lp);
            return -1;
        }
    }
    sl_type t = series ? sl_type_make(SL_TYPE_BIGINT)
                       : sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    t.not_null = series;
    sl_lp_add_col(lp, f->alias ? f->alias : lp->table, t, false);
    out->lp = lp;
    sl__rel_scope(out, f->alias ? f->alias : lp->table);
    return 0;
}

static int sl__bind_from(sl_binder *b, const sl_from *f, sl__rel *out)
{
    switch (f->kind) {
    case SL_FROM_TABLE:
        if (f->as_of) /* the right side of a join handles it (sl__bind_join) */
            return sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, f->as_of->pos,
                                "FOR SYSTEM_TIME AS OF is only allowed on the right side of "
                                "a join");
        if (f->schema)
            return sl__bind_qualified(b, f, out);
        return sl__bind_named(b, f->name, f->pos, f->alias, out);
    case SL_FROM_SUBQUERY:
        if (sl__bind_query_rel(b, f->subquery, out) != 0)
            return -1;
        if (f->columns && sl__derived_columns(b, f, out) != 0)
            return -1;
        sl__rel_scope(out, f->alias);
        return 0;
    case SL_FROM_JOIN:
        return sl__bind_join(b, f, out);
    case SL_FROM_WINDOW:
        return sl__bind_window(b, f, out);
    case SL_FROM_FUNCTION:
        return sl__bind_function(b, f, out);
    }
    return sl_error_set(b->err, SL_ERR_INTERNAL, f->pos, "unknown FROM item");
}

/* ------------------------------------------------------------------------
** Aggregation context for the expression hook
*/

typedef struct sl__agg {
    sl_binder *b;           /* binder */
    const sl_scope *in;     /* the scope below the aggregation */
    const sl_list *groups;  /* GROUP BY expressions (sl_expr*) */
    int *group_cols;        /* per group: input column when it is a plain column, else -1 */
    sl_lp *pre;             /* Project below the Aggregate: keys then aggregate args */
    sl_lp_agg *aggs;        /* aggregate calls found so far */
    int naggs;              /* their number */
    sl_type *agg_types;     /* their result types */
    const sl_expr **fconds; /* per call: its FILTER condition (the query's), or NULL */
    const sl_expr **fargs;  /* per call: its argument (the query's), or NULL */
    const char *clause;     /* where we are, for messages */
    const sl_expr *gwin;    /* GROUP BY TUMBLE / HOP / SESSION(...) call, or NULL */
    int gwin_fn;            /* its sl_window_fn */
    int gwin_key;           /* group index of its window_start (then _end, _time) */
} sl__agg;

/* ------------------------------------------------------------------------
** Flink's group window functions: GROUP BY TUMBLE(ts, size) | HOP(ts,
** slide, size) | SESSION(ts, gap) is planned as the window TVF over the
** FROM (and WHERE) with a window aggregation: the call becomes the hidden
** keys $window_start, $window_end, $window_time of a WINDOW node, which
** TUMBLE_START / _END / _ROWTIME(same arguments) in the select list read
** (Flink's GroupWindowAggregate; *_ROWTIME stays a time attribute).
** SESSION's partition keys are the other GROUP BY columns.
*/
static const char *const sl__gwin_names[] = {"TUMBLE", "HOP", NULL, "SESSION"};

/* Which group window function name is (-1: none). */
static int sl__gwin_fn(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (sl__gwin_names[i] && sl_strcasecmp(name, sl__gwin_names[i]) == 0)
            return i;
    return -1;
}

/* An auxiliary function (TUMBLE_START, HOP_END, SESSION_ROWTIME, ...):
** 0 START, 1 END, 2 ROWTIME, 3 PROCTIME, and its family in *fn; -1 if not. */
static int sl__gwin_aux(const char *name, int *fn)
{
    static const char *const sfx[] = {"_START", "_END", "_ROWTIME", "_PROCTIME"};
    for (int f = 0; f < 4; f++) {
        if (!sl__gwin_names[f])
            continue;
        size_t n = strlen(sl__gwin_names[f]);
        if (sl_strncasecmp(name, sl__gwin_names[f], n) != 0)
            continue;
        for (int k = 0; k < 4; k++) {
            if (sl_strcasecmp(name + n, sfx[k]) == 0) {
                *fn = f;
                return k;
            }
        }
    }
    return -1;
}

/* The group-window reference e (TUMBLE_START(...) etc.): 1 with *out,
** 0 when e is none, -1 on error. */
static int sl__gwin_ref(sl_bind_ctx *ctx, const sl__agg *a, const sl_expr *e, sl_bexpr **out)
{
    int fn = -1;
    int aux = e->kind == SL_EXPR_FUNC && !e->over && e->text ? sl__gwin_aux(e->text, &fn) : -1;
    if (aux < 0)
        return 0;
    bool match = a->gwin && a->gwin_fn == fn &&
                 sl_list_len(a->gwin->args) == sl_list_len(e->args);
    for (int i = 0; match && i < sl_list_len(e->args); i++)
        match = sl_expr_equal(sl_list_get(e->args, i), sl_list_get(a->gwin->args, i));
    if (!match) {
        sl_error_set(ctx->err, SL_ERR_GROUPING, e->pos,
                     "%s must have a matching call to group function %s in GROUP BY", e->text,
                     sl__gwin_names[fn]);
        sl_error_hint(ctx->err, "Use the same arguments as GROUP BY %s(...).",
                      sl__gwin_names[fn]);
        return -1;
    }
    if (aux == 3)
        return sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                            "%s is not supported: there is no processing time yet", e->text);
    int g = a->gwin_key + aux;
    *out = sl__colref(g, a->pre->cols[g].type, e->pos);
    return 1;
}

static int sl__nested_agg_hook(sl_bind_ctx *ctx, const sl_expr *e, sl_bexpr **out)
{
    if (sl__is_agg_call(e))
        return sl_error_set(ctx->err, SL_ERR_GROUPING, e->pos,
                            "aggregate function calls cannot be nested");
    if (e->kind == SL_EXPR_FUNC && e->over)
        return sl_error_set(ctx->err, SL_ERR_GROUPING, e->pos,
                            "aggregate function calls cannot contain window function calls");
    return 0;
}

/* The separator of LISTAGG(x [, sep]) / string_agg(x, sep) (PostgreSQL
** requires it): a string literal, ',' when absent, '' for NULL (as
** PostgreSQL: no separator). *sep = an owned copy. */
static int sl__listagg_sep(sl_bind_ctx *ctx, const sl_expr *e, char **sep)
{
    int nargs = sl_list_len(e->args);
    bool pg = sl_strcasecmp(e->text, "STRING_AGG") == 0;
    if (e->ival == 1 || nargs < (pg ? 2 : 1) || nargs > 2)
        return sl_error_set(ctx->err, SL_ERR_UNDEFINED_FUNCTION, e->pos,
                            pg ? "string_agg takes two arguments: a value and a separator"
                               : "LISTAGG takes a value and an optional separator");
    if (nargs == 1) {
        *sep = sl_strdup(",");
        return 0;
    }
    const sl_expr *se = sl_list_get(e->args, 1);
    sl_bind_ctx inner = {ctx->scope, ctx->err, ctx->clause, sl__nested_agg_hook, NULL, ctx->params};
    sl_bexpr *x = sl_bind_expr(&inner, se);
    if (!x)
        return -1;
    bool ok = x->kind == SL_BX_LITERAL && (x->type.id == SL_TYPE_NULL || sl_type_is_string(x->type.id));
    if (ok)
        *sep = sl_strdup(x->text ? x->text : "");
    sl_bexpr_free(x);
    if (!ok)
        return sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, se->pos,
                            "the separator of %s must be a string literal", pg ? "string_agg" : "LISTAGG");
    return 0;
}

/* FILTER (WHERE cond) of an aggregate call: cond, over the rows below the
** aggregation, becomes a BOOLEAN column of the projection below it; *col = it. */
static int sl__agg_filter(sl__agg *a, sl_bind_ctx *ctx, const sl_expr *cond, int *col)
{
    for (int i = 0; i < a->naggs; i++) { /* one column per condition, as Flink */
        if (a->fconds[i] && sl_expr_equal(a->fconds[i], cond)) {
            *col = a->aggs[i].filter;
            return 0;
        }
    }
    sl_bind_ctx inner = {a->in, ctx->err, "FILTER", sl__nested_agg_hook, NULL, ctx->params};
    sl_bexpr *x = NULL;
    if (sl_bind_condition(&inner, cond, &x) != 0)
        return -1;
    *col = a->pre->nexprs;
    char *name = sl_sprintf("$f%d", *col);
    sl_lp_add_col(a->pre, name, x->type, false);
    sl_free(name);
    sl__lp_push_expr(a->pre, x);
    return 0;
}

static int sl__agg_hook(sl_bind_ctx *ctx, const sl_expr *e, sl_bexpr **out)
{
    sl__agg *a = ctx->hook_ctx;
    int nkeys = sl_list_len(a->groups);
    int wr = sl__gwin_ref(ctx, a, e, out);
    if (wr != 0)
        return wr;
    /* An expression equal to a GROUP BY expression is that key. */
    for (int g = 0; g < nkeys; g++) {
        if (sl_expr_equal(e, sl_list_get(a->groups, g))) {
            *out = sl__colref(g, a->pre->cols[g].type, e->pos);
            return 1;
        }
    }
    if (e->kind == SL_EXPR_COLUMN) {
        int idx = sl_scope_resolve(a->in, e->qualifier, e->text, e->pos, ctx->err);
        if (idx < 0)
            return -1;
        for (int g = 0; g < nkeys; g++) {
            if (a->group_cols[g] == idx) {
                *out = sl__colref(g, a->pre->cols[g].type, e->pos);
                return 1;
            }
        }
        sl_error_set(ctx->err, SL_ERR_GROUPING, e->pos,
                     "column \"%s\" must appear in the GROUP BY clause or be used in an "
                     "aggregate function",
                     e->text);
        return -1;
    }
    if (e->kind == SL_EXPR_FUNC && e->over)
        return sl_error_set(ctx->err, SL_ERR_WINDOWING, e->pos,
                            "window functions cannot be combined with GROUP BY or aggregates in "
                            "the same SELECT");
    if (!sl__is_agg_call(e))
        return 0;
    const sl_func *fn = sl_func_find(e->text);
    int nargs = sl_list_len(e->args);
    bool star = e->ival == 1;
    char *sep = NULL;
    if (fn->id == SL_FN_ARRAY_AGG && e->distinct)
        return sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                            "ARRAY_AGG(DISTINCT ...) is not supported");
    if (fn->id == SL_FN_LISTAGG) {
        if (sl__listagg_sep(ctx, e, &sep) != 0)
            return -1;
    } else if ((star && (fn->id != SL_FN_COUNT || nargs != 0)) || (!star && nargs != 1)) {
        return sl_error_set(ctx->err, SL_ERR_UNDEFINED_FUNCTION, e->pos,
                            "%s takes exactly one argument%s", fn->name,
                            fn->id == SL_FN_COUNT ? " or *" : "");
    }
    int arg = -1;
    sl_type argtype = sl_type_make(SL_TYPE_NULL);
    const sl_expr *argx = star ? NULL : sl_list_get(e->args, 0);
    /* One column per column argument (Flink's plans too): the DISTINCT calls
    ** of one argument then share their value sets (exec/op_agg.c). */
    for (int i = 0; argx && argx->kind == SL_EXPR_COLUMN && i < a->naggs && arg < 0; i++) {
        if (a->fargs[i] && sl_expr_equal(a->fargs[i], argx)) {
            arg = a->aggs[i].arg;
            argtype = a->pre->cols[arg].type;
        }
    }
    if (argx && arg < 0) {
        sl_bind_ctx inner = {a->in, ctx->err, ctx->clause, sl__nested_agg_hook, NULL, ctx->params};
        sl_bexpr *x = sl_bind_expr(&inner, argx);
        if (!x) {
            sl_free(sep);
            return -1;
        }
        argtype = x->type;
        arg = a->pre->nexprs;
        char *name = sl_sprintf("$f%d", arg);
        sl_lp_add_col(a->pre, name, x->type, false);
        sl_free(name);
        sl__lp_push_expr(a->pre, x);
    }
    sl_type rt;
    if (sl_func_agg_type(fn, star ? NULL : &argtype, e->pos, &rt, ctx->err) != 0) {
        sl_free(sep);
        return -1;
    }
    int filter = -1;
    if (e->filter && sl__agg_filter(a, ctx, e->filter, &filter) != 0) {
        sl_free(sep);
        return -1;
    }
    a->aggs = sl_realloc(a->aggs, (size_t)(a->naggs + 1) * sizeof(sl_lp_agg));
    a->aggs[a->naggs].fn = fn;
    a->aggs[a->naggs].distinct = e->distinct;
    a->aggs[a->naggs].arg = arg;
    a->aggs[a->naggs].type = rt;
    a->aggs[a->naggs].pos = e->pos;
    a->aggs[a->naggs].sep = sep;
    a->aggs[a->naggs].filter = filter;
    a->fconds = sl_realloc(a->fconds, (size_t)(a->naggs + 1) * sizeof(const sl_expr *));
    a->fconds[a->naggs] = e->filter;
    a->fargs = sl_realloc(a->fargs, (size_t)(a->naggs + 1) * sizeof(const sl_expr *));
    a->fargs[a->naggs] = argx;
    a->naggs++;
    *out = sl__colref(nkeys + a->naggs - 1, rt, e->pos);
    return 1;
}

/* ------------------------------------------------------------------------
** OVER (ROW_NUMBER) context for the expression hook
*/

typedef struct sl__over {
    sl_binder *b;       /* binder */
    const sl_scope *in; /* scope below */
    sl_lp *node;        /* the OverAggregate built (NULL until found) */
    sl_lp *input;       /* its input, handed over when the node is built */
    const sl_lp *in_lp; /* the plan below (its event-time attributes) */
    sl_lp *pre;         /* OVER aggregates: a Project computing their arguments that are
                           not columns (after the input's columns), or NULL */
} sl__over;

static int sl__over_col(sl_bind_ctx *ctx, const sl_scope *in, const sl_expr *e, const char *what)
{
    if (e->kind != SL_EXPR_COLUMN)
        return sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                            "%s of a window function must name a column", what);
    return sl_scope_resolve(in, e->qualifier, e->text, e->pos, ctx->err);
}

/* The frame's start of window w: *range, *preceding (rows or ms; -1 =
** UNBOUNDED). Without a frame clause: RANGE UNBOUNDED PRECEDING (Flink). */
static int sl__over_frame(sl_bind_ctx *ctx, const sl_window_spec *w, bool *range, int64_t *preceding)
{
    *range = w->frame != SL_FRAME_ROWS;
    *preceding = -1;
    if (w->current_row) /* Flink: "OVER RANGE FOLLOWING windows are not supported yet" */
        return sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, w->frame_pos,
                            "an OVER window frame cannot start at CURRENT ROW");
    if (!w->preceding)
        return 0;
    sl_scope empty = {0, NULL};
    sl_bind_ctx inner = {&empty, ctx->err, "OVER", NULL, NULL, ctx->params};
    sl_bexpr *x = sl_bind_expr(&inner, w->preceding);
    if (!x)
        return -1;
    int rc = 0;
    if (!*range) {
        char *end = NULL;
        long long v = x->kind == SL_BX_LITERAL && x->text && sl_type_is_integer(x->type.id)
                          ? strtoll(x->text, &end, 10)
                          : -1;
        if (v < 0 || !end || *end || v > INT32_MAX)
            rc = sl_error_set(ctx->err, SL_ERR_WINDOWING, w->preceding->pos,
                              "the start of a ROWS frame must be UNBOUNDED PRECEDING or a "
                              "non-negative integer literal PRECEDING");
        *preceding = v;
    } else if (x->kind == SL_BX_LITERAL && sl_type_is_numeric(x->type.id)) {
        rc = sl_error_set(ctx->err, SL_ERR_DATATYPE_MISMATCH, w->preceding->pos,
                          "data type mismatch between ORDER BY and RANGE clause");
        sl_error_hint(ctx->err, "The ORDER BY column is a timestamp: give the RANGE as an "
                                "INTERVAL, e.g. INTERVAL '1' HOUR PRECEDING.");
    } else if (x->kind != SL_BX_LITERAL || x->type.id != SL_TYPE_INTERVAL_DT || !x->text) {
        rc = sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, w->preceding->pos,
                          "the start of a RANGE frame over event time must be UNBOUNDED "
                          "PRECEDING or a constant day-time INTERVAL PRECEDING");
    } else {
        *preceding = strtoll(x->text, NULL, 10);
        if (*preceding < 0 || *preceding > INT64_MAX / SL_NANOS_PER_MILLI)
            rc = sl_error_set(ctx->err, SL_ERR_WINDOWING, w->preceding->pos,
                              "the INTERVAL of a RANGE frame must be non-negative and at most "
                              "about 292 years");
    }
    sl_bexpr_free(x);
    return rc;
}

/* An aggregate call with OVER: Flink's OverAggregate over event time. All
** of a SELECT's OVER aggregates share one window (one node, o->node); an
** argument that is not a column is computed by a Project below it (o->pre).
** The call's result is column in->n + k of the node (k = the call's index),
** shifted past pre's extra columns once the SELECT is bound. */
static int sl__over_agg(sl_bind_ctx *ctx, sl__over *o, const sl_expr *e, const sl_func *fn,
                        sl_bexpr **out)
{
    const sl_window_spec *w = e->over;
    if (o->node && o->node->kind != SL_LP_OVER_AGG)
        return sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                            "ROW_NUMBER() and OVER aggregates cannot be mixed in one SELECT");
    if (e->filter)
        return sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->filter->pos,
                            "FILTER is not supported in OVER aggregates");
    int nargs = sl_list_len(e->args);
    bool star = e->ival == 1;
    char *sep = NULL;
    if (fn->id == SL_FN_LISTAGG) {
        if (sl__listagg_sep(ctx, e, &sep) != 0)
            return -1;
    } else if ((star && (fn->id != SL_FN_COUNT || nargs != 0)) || (!star && nargs != 1)) {
        return sl_error_set(ctx->err, SL_ERR_UNDEFINED_FUNCTION, e->pos,
                            "%s takes exactly one argument%s", fn->name,
                            fn->id == SL_FN_COUNT ? " or *" : "");
    }
    sl_bexpr *x = NULL;
    if (!star) {
        sl_bind_ctx inner = {o->in, ctx->err, ctx->clause, sl__nested_agg_hook, NULL, ctx->params};
        x = sl_bind_expr(&inner, sl_list_get(e->args, 0));
        if (!x) {
            sl_free(sep);
            return -1;
        }
    }
    sl_type rt;
    int *keys = NULL;
    int rc = sl_func_agg_type(fn, x ? &x->type : NULL, e->pos, &rt, ctx->err);
    /* the window: PARTITION BY columns, ORDER BY one event-time column ASC */
    int np = sl_list_len(w->partition_by), no = sl_list_len(w->order_by);
    int tcol = -1;
    if (rc == 0)
        keys = sl_calloc((size_t)np + 1, sizeof(int));
    for (int i = 0; rc == 0 && i < np; i++)
        if ((keys[i] = sl__over_col(ctx, o->in, sl_list_get(w->partition_by, i), "PARTITION BY")) < 0)
            rc = -1;
    if (rc == 0 && no != 1) /* Flink's words, for none as for several */
        rc = sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                          "an OVER window can only be ordered by a single time column");
    if (rc == 0) {
        const sl_order_item *it = sl_list_get(w->order_by, 0);
        tcol = sl__over_col(ctx, o->in, it->expr, "ORDER BY");
        if (tcol < 0) {
            rc = -1;
        } else if (!o->in_lp->cols[tcol].rowtime) {
            rc = sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, it->expr->pos,
                              "OVER windows' ordering in stream mode must be defined on a time "
                              "attribute");
            sl_error_hint(ctx->err, "Order by an event-time column (one with a WATERMARK); "
                                    "processing-time OVER windows and OVER windows ordered by "
                                    "other columns are not supported.");
        } else if (it->desc) {
            rc = sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, it->expr->pos,
                              "an OVER window can only be ordered in ascending mode");
        }
    }
    bool range = false;
    int64_t preceding = -1;
    if (rc == 0)
        rc = sl__over_frame(ctx, w, &range, &preceding);
    if (rc == 0 && o->node) {
        sl_lp *n = o->node;
        bool same = n->nkeys == np && n->order[0].col == tcol && n->over_range == range &&
                    n->over_preceding == preceding;
        for (int i = 0; same && i < np; i++)
            same = n->keys[i] == keys[i];
        if (!same)
            rc = sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                              "unsupported use of OVER windows: all aggregates must be computed "
                              "on the same window");
    }
    if (rc != 0) {
        sl_free(keys);
        sl_free(sep);
        sl_bexpr_free(x);
        return -1;
    }
    sl_lp *node = o->node;
    if (!node) {
        node = sl_lp_new(SL_LP_OVER_AGG, NULL);
        node->pos = e->pos;
        node->keys = keys;
        node->nkeys = np;
        node->order = sl_calloc(1, sizeof(sl_lp_order));
        node->order[0].col = tcol;
        node->norder = 1;
        node->over_range = range;
        node->over_preceding = preceding;
        o->node = node;
    } else {
        sl_free(keys);
    }
    int arg = -1;
    if (x && x->kind == SL_BX_COLUMN) {
        arg = x->col;
        sl_bexpr_free(x);
    } else if (x) { /* computed below the OverAggregate, after the input's columns */
        if (!o->pre) {
            o->pre = sl_lp_new(SL_LP_PROJECT, NULL);
            for (int i = 0; i < o->in_lp->ncols; i++) {
                const sl_lp_col *c = &o->in_lp->cols[i];
                sl_lp_add_col(o->pre, c->name, c->type, c->rowtime);
                sl__lp_push_expr(o->pre, sl__colref(i, c->type, -1));
            }
        }
        arg = o->pre->nexprs;
        char *name = sl_sprintf("$f%d", arg);
        sl_lp_add_col(o->pre, name, x->type, false);
        sl_free(name);
        sl__lp_push_expr(o->pre, x);
    }
    node->aggs = sl_realloc(node->aggs, (size_t)(node->naggs + 1) * sizeof(sl_lp_agg));
    node->aggs[node->naggs] = (sl_lp_agg){fn, e->distinct, arg, rt, e->pos, sep, -1};
    node->naggs++;
    *out = sl__colref(o->in->n + node->naggs - 1, rt, e->pos);
    return 1;
}

/* Add delta to every column reference of b at or past col. */
static void sl__shift_cols(sl_bexpr *b, int col, int delta)
{
    if (!b)
        return;
    if (b->kind == SL_BX_COLUMN && b->col >= col)
        b->col += delta;
    for (int i = 0; i < b->nargs; i++)
        sl__shift_cols(b->args[i], col, delta);
}

static int sl__over_hook(sl_bind_ctx *ctx, const sl_expr *e, sl_bexpr **out)
{
    sl__over *o = ctx->hook_ctx;
    if (e->kind != SL_EXPR_FUNC || !e->over)
        return 0;
    if (e->over->name) /* not defined by the SELECT's WINDOW clause (parser) */
        return sl_error_set(ctx->err, SL_ERR_UNDEFINED_OBJECT, e->over->name_pos,
                            "window \"%s\" does not exist", e->over->name);
    const sl_func *afn = sl_func_find(e->text);
    if (afn && afn->kind == SL_FUNC_AGGREGATE)
        return sl__over_agg(ctx, o, e, afn, out);
    if (o->node && o->node->kind == SL_LP_OVER_AGG)
        return sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                            "ROW_NUMBER() and OVER aggregates cannot be mixed in one SELECT");
    if (e->filter)
        return sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->filter->pos,
                            "FILTER is not implemented for non-aggregate window functions");
    const sl_func *fn = sl_func_find(e->text);
    if (!fn || fn->kind != SL_FUNC_WINDOW || fn->id != SL_FN_ROW_NUMBER)
        return sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                            "window function %s is not supported", e->text);
    if (sl_list_len(e->args) != 0)
        return sl_error_set(ctx->err, SL_ERR_UNDEFINED_FUNCTION, e->pos,
                            "ROW_NUMBER takes no arguments");
    if (o->node)
        return sl_error_set(ctx->err, SL_ERR_NOT_SUPPORTED, e->pos,
                            "only one ROW_NUMBER() per SELECT is supported");
    if (sl_list_len(e->over->order_by) == 0)
        return sl_error_set(ctx->err, SL_ERR_WINDOWING, e->pos,
                            "ROW_NUMBER() requires ORDER BY in its OVER clause");
    sl_lp *node = sl_lp_new(SL_LP_OVER, NULL);
    node->pos = e->pos;
    int np = sl_list_len(e->over->partition_by), no = sl_list_len(e->over->order_by);
    node->keys = sl_calloc((size_t)(np ? np : 1), sizeof(int));
    node->order = sl_calloc((size_t)no, sizeof(sl_lp_order));
    for (int i = 0; i < np; i++) {
        int c = sl__over_col(ctx, o->in, sl_list_get(e->over->partition_by, i), "PARTITION BY");
        if (c < 0) {
            sl_lp_free(node);
            return -1;
        }
        node->keys[node->nkeys++] = c;
    }
    for (int i = 0; i < no; i++) {
        const sl_order_item *it = sl_list_get(e->over->order_by, i);
        int c = sl__over_col(ctx, o->in, it->expr, "ORDER BY");
        if (c < 0) {
            sl_lp_free(node);
            return -1;
        }
        node->order[node->norder].col = c;
        node->order[node->norder].desc = it->desc;
        node->order[node->norder].nulls = it->nulls;
        node->norder++;
    }
    o->node = node;
    sl_type t = sl_type_make(SL_TYPE_BIGINT);
    t.not_null = true;
    *out = sl__colref(o->in->n, t, e->pos);
    return 1;
}

/* ------------------------------------------------------------------------
** SELECT
*/

/* Does scope column sc lie under the ROW prefix "pre." reached by qual? */
static bool sl__under(const sl_scope_col *sc, const char *qual, const char *pre)
{
    size_t n = strlen(pre);
    if (sc->hidden || (qual && (!sc->qualifier || strcmp(sc->qualifier, qual) != 0)))
        return false;
    return strncmp(sc->name, pre, n) == 0 && sc->name[n] == '.';
}

/* Is e the ROW constructor ROW(a, b, ...)? */
static bool sl__is_row_ctor(const sl_expr *e)
{
    return e->kind == SL_EXPR_FUNC && e->text && sl_strcasecmp(e->text, "ROW") == 0 && !e->over &&
           !e->ival && sl_list_len(e->args) > 0;
}

/* Append to proj the leaves of e named under base ("base.f"), when e is a
** whole ROW column ([t.]r, [t.]r.f for a nested ROW) or a ROW constructor
** (its fields EXPR$0, EXPR$1, ... as in Flink; nested ones flattened too):
** the number appended, 0 when e is neither, -1 on error. A ROW is carried
** as its leaves (tables store it so). */
static int sl__bind_row_leaves(sl_bind_ctx *ctx, const sl_expr *e, const char *base,
                               const sl_scope *scope, sl_lp *proj)
{
    if (sl__is_row_ctor(e)) {
        int total = 0;
        for (int k = 0; k < sl_list_len(e->args); k++) {
            const sl_expr *a = sl_list_get(e->args, k);
            char *sub = sl_sprintf("%s.EXPR$%d", base, k);
            int n = sl__bind_row_leaves(ctx, a, sub, scope, proj);
            if (n == 0) {
                sl_bexpr *x = sl_bind_expr(ctx, a);
                if (x) {
                    char *name = sl__unique_name(proj, sub, proj->ncols);
                    sl_lp_add_col(proj, name, x->type, false);
                    sl_free(name);
                    sl__lp_push_expr(proj, x);
                    n = 1;
                } else {
                    n = -1;
                }
            }
            sl_free(sub);
            if (n < 0)
                return -1;
            total += n;
        }
        return total;
    }
    const char *qual = NULL;
    char *path = sl_expr_field_path(e, &qual);
    if (!path)
        return 0;
    sl_error local = SL_ERROR_INIT;
    int direct = e->kind == SL_EXPR_COLUMN ? sl_scope_resolve(scope, qual, path, e->pos, &local)
                                           : -1;
    sl_error_reset(&local);
    char *full = qual ? sl_sprintf("%s.%s", qual, path) : NULL;
    const char *rq = qual, *pre = path;
    int n = 0;
    for (int c = 0; direct < 0 && c < scope->n; c++)
        n += sl__under(&scope->cols[c], rq, pre);
    if (direct < 0 && n == 0 && qual) {
        rq = NULL;
        pre = full;
        for (int c = 0; c < scope->n; c++)
            n += sl__under(&scope->cols[c], rq, pre);
    }
    int rc = 0;
    for (int c = 0; direct < 0 && n > 0 && c < scope->n; c++) {
        const sl_scope_col *sc = &scope->cols[c];
        if (!sl__under(sc, rq, pre))
            continue;
        sl_expr col = {0};
        col.kind = SL_EXPR_COLUMN;
        col.pos = e->pos;
        col.op_pos = -1;
        col.text = (char *)sc->name;
        col.qualifier = (char *)sc->qualifier;
        sl_bexpr *x = ctx->hook ? sl_bind_expr(ctx, &col) : sl__colref(c, sc->type, e->pos);
        if (!x) {
            rc = -1;
            break;
        }
        /* the leaf's path below the ROW, under base */
        char *want = sl_sprintf("%s%s", base, sc->name + strlen(pre));
        char *name = sl__unique_name(proj, want, proj->ncols);
        sl_lp_add_col(proj, name, x->type, false);
        sl_free(name);
        sl_free(want);
        sl__lp_push_expr(proj, x);
        rc++;
    }
    sl_free(full);
    sl_free(path);
    return rc;
}

/* A select item that is a whole ROW (sl__bind_row_leaves), named by its
** alias, else by the ROW column's name or EXPR$i. */
static int sl__bind_row_item(sl_bind_ctx *ctx, const sl_select_item *it, int out_i,
                             const sl_scope *scope, sl_lp *proj)
{
    const char *qual = NULL;
    char *path = sl_expr_field_path(it->expr, &qual);
    char *base;
    if (it->alias) {
        base = sl_strdup(it->alias);
    } else if (path) {
        const char *last = strrchr(path, '.');
        base = sl_strdup(last ? last + 1 : path);
    } else {
        base = sl_sprintf("EXPR$%d", out_i);
    }
    int rc = sl__bind_row_leaves(ctx, it->expr, base, scope, proj);
    sl_free(base);
    sl_free(path);
    return rc;
}

/* Append the select list's items to proj, binding in ctx. Stars expand to
** the visible columns of scope (through ctx so aggregation rules apply),
** each named uniquely against the columns before it (Flink: SELECT * over a
** join of two tables with x gives x, x0); the items keep their names. */
static int sl__bind_items(sl_bind_ctx *ctx, const sl_list *items, const sl_scope *scope,
                          sl_lp *proj)
{
    int out_i = 0;
    for (int i = 0; i < sl_list_len(items); i++) {
        const sl_select_item *it = sl_list_get(items, i);
        if (it->expr->kind == SL_EXPR_STAR) {
            int matched = 0;
            for (int c = 0; c < scope->n; c++) {
                const sl_scope_col *sc = &scope->cols[c];
                if (sc->hidden)
                    continue;
                if (it->expr->qualifier &&
                    (!sc->qualifier || strcmp(sc->qualifier, it->expr->qualifier) != 0))
                    continue;
                matched++;
                sl_expr col = {0};
                col.kind = SL_EXPR_COLUMN;
                col.pos = it->expr->pos;
                col.op_pos = -1;
                col.text = (char *)sc->name;
                col.qualifier = (char *)sc->qualifier;
                sl_bexpr *x;
                if (ctx->hook) {
                    x = sl_bind_expr(ctx, &col);
                } else {
                    x = sl__colref(c, sc->type, it->expr->pos);
                }
                if (!x)
                    return -1;
                char *name = sl__unique_name(proj, sc->name, proj->ncols);
                sl_lp_add_col(proj, name, x->type, false);
                sl_free(name);
                sl__lp_push_expr(proj, x);
                out_i++;
            }
            if (it->expr->qualifier && matched == 0)
                return sl_error_set(ctx->err, SL_ERR_UNDEFINED_TABLE, it->expr->pos,
                                    "missing FROM-clause entry for table \"%s\"",
                                    it->expr->qualifier);
            continue;
        }
        int leaves = sl__bind_row_item(ctx, it, out_i, scope, proj);
        if (leaves < 0)
            return -1;
        if (leaves > 0) {
            out_i += leaves;
            continue;
        }
        sl_bexpr *x = sl_bind_expr(ctx, it->expr);
        if (!x)
            return -1;
        char *name = sl__item_name(it, out_i);
        sl_lp_add_col(proj, name, x->type, false);
        sl_free(name);
        sl__lp_push_expr(proj, x);
        out_i++;
    }
    return 0;
}

/* Time attributes propagate through a projection of the bare column;
** PROCTIME() makes one. */
static void sl__project_rowtime(sl_lp *proj)
{
    for (int i = 0; i < proj->nexprs; i++) {
        const sl_bexpr *x = proj->exprs[i];
        if (x->kind == SL_BX_COLUMN && x->col < proj->input->ncols)
            proj->cols[i].rowtime = proj->input->cols[x->col].rowtime;
        else if (sl__proctime_of(x))
            proj->cols[i].rowtime = SL_PROCTIME;
    }
}

static sl_lp *sl__distinct(sl_lp *in)
{
    sl_lp *agg = sl_lp_new(SL_LP_AGGREGATE, in);
    agg->keys = sl_calloc((size_t)(in->ncols ? in->ncols : 1), sizeof(int));
    for (int i = 0; i < in->ncols; i++) {
        agg->keys[agg->nkeys++] = i;
        sl_lp_add_col(agg, in->cols[i].name, in->cols[i].type, false);
    }
    return agg;
}

/* ------------------------------------------------------------------------
** Set-returning functions in a select list (srf.c): the distinct calls
** become the functions of an SL_LP_EXPAND node under the projection, whose
** columns are hidden columns qualified "$srfK" (K: the call). (f(a)).col
** reads one; f(a) alone as a select item stands for all of them, named
** "item.col" (the item's alias, else the function's name), which a query
** around it reads as (item).col (bind_expr.c).
*/
static void sl__select_item_free_v(void *it) { sl_select_item_free(it); }

static bool sl__is_srf_call(const sl_expr *e)
{
    return e && e->kind == SL_EXPR_FUNC && !e->over && sl_srf_find(e->text) >= 0;
}

static bool sl__has_srf(const sl_expr *e)
{
    if (!e)
        return false;
    if (sl__is_srf_call(e) || sl__has_srf(e->left) || sl__has_srf(e->right))
        return true;
    for (int i = 0; i < sl_list_len(e->args); i++)
        if (sl__has_srf(sl_list_get(e->args, i)))
            return true;
    return false;
}

static int sl__srf_index(const sl_list *calls, const sl_expr *e)
{
    for (int i = 0; i < sl_list_len(calls); i++)
        if (sl_expr_equal(sl_list_get(calls, i), e))
            return i;
    return -1;
}

/* The distinct calls under e (copies), outermost first. */
static void sl__srf_collect(sl_expr *e, sl_list *calls)
{
    if (!e)
        return;
    if (sl__is_srf_call(e)) {
        if (sl__srf_index(calls, e) < 0)
            sl_list_push(calls, sl_expr_dup(e));
        return;
    }
    sl__srf_collect(e->left, calls);
    sl__srf_collect(e->right, calls);
    for (int i = 0; i < sl_list_len(e->args); i++)
        sl__srf_collect(sl_list_get(e->args, i), calls);
}

/* (call).col -> the column $srfK.col, in place; a call anywhere else is
** 0A000. */
static int sl__srf_rewrite(sl_binder *b, const sl_list *calls, sl_expr *e)
{
    if (!e)
        return 0;
    if (e->kind == SL_EXPR_FIELD && sl__is_srf_call(e->left)) {
        int k = sl__srf_index(calls, e->left);
        sl_expr_free(e->left);
        e->left = NULL;
        e->kind = SL_EXPR_COLUMN;
        e->qualifier = sl_sprintf("$srf%d", k);
        return 0;
    }
    if (sl__is_srf_call(e))
        return sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, e->pos,
                            "the result of %s() is supported only as a select item or as "
                            "(%s(...)).column", e->text, e->text);
    if (sl__srf_rewrite(b, calls, e->left) != 0 || sl__srf_rewrite(b, calls, e->right) != 0)
        return -1;
    for (int i = 0; i < sl_list_len(e->args); i++)
        if (sl__srf_rewrite(b, calls, sl_list_get(e->args, i)) != 0)
            return -1;
    return 0;
}

/* Put the SL_LP_EXPAND node of items' calls on in (its scope grows by the
** functions' hidden columns) and return the items rewritten to read them
** (caller frees), or NULL with the error set. */
static sl_list *sl__bind_srfs(sl_binder *b, const sl_list *items, sl__rel *in)
{
    sl_list *calls = sl_list_new();
    sl_list *src = sl_list_new(); /* copies of the items */
    for (int i = 0; i < sl_list_len(items); i++) {
        const sl_select_item *it = sl_list_get(items, i);
        sl_select_item *c = sl_calloc(1, sizeof *c);
        c->expr = sl_expr_dup(it->expr);
        c->alias = sl_strdup(it->alias);
        c->alias_pos = it->alias_pos;
        sl_list_push(src, c);
        sl__srf_collect(c->expr, calls);
    }
    sl_scope scope = sl__scope_of(in);
    sl_lp *x = sl_lp_new(SL_LP_EXPAND, NULL);
    int nin = in->lp->ncols, nf = sl_list_len(calls), rc = 0;
    for (int i = 0; i < nin; i++)
        sl_lp_add_col(x, in->lp->cols[i].name, in->lp->cols[i].type, false);
    x->keys = sl_calloc((size_t)nf + 1, sizeof(int));
    for (int k = 0; rc == 0 && k < nf; k++) {
        const sl_expr *call = sl_list_get(calls, k);
        int id = sl_srf_find(call->text);
        sl_bind_ctx ctx = {&scope, b->err, "the argument of a set-returning function", NULL, NULL,
                           b->params};
        sl_bexpr *arg = sl_list_len(call->args) == 1 ? sl_bind_expr(&ctx, sl_list_get(call->args, 0))
                                                     : NULL;
        if (!arg || !sl_type_is_string(arg->type.id)) {
            if (!sl_error_isset(b->err))
                sl_error_set(b->err, SL_ERR_UNDEFINED_FUNCTION, call->pos,
                             "function %s() needs one array argument", call->text);
            sl_bexpr_free(arg);
            rc = -1;
            break;
        }
        sl__lp_push_expr(x, arg);
        x->keys[x->nkeys++] = id;
        const char *names[4];
        sl_type types[4];
        int n = sl_srf_cols(id, names, types);
        for (int j = 0; j < n; j++)
            sl_lp_add_col(x, names[j], types[j], false);
    }
    sl_list *out = sl_list_new();
    for (int i = 0; i < sl_list_len(src); i++) {
        sl_select_item *it = sl_list_get(src, i);
        if (rc != 0 || !sl__is_srf_call(it->expr)) {
            if (rc == 0)
                rc = sl__srf_rewrite(b, calls, it->expr);
            sl_list_push(out, it);
            continue;
        }
        /* f(a) alone: its columns, named item.col */
        int k = sl__srf_index(calls, it->expr);
        const char *names[4];
        sl_type types[4];
        int n = sl_srf_cols(x->keys[k], names, types);
        for (int j = 0; j < n; j++) {
            sl_select_item *c = sl_calloc(1, sizeof *c);
            c->expr = sl_expr_column(sl_sprintf("$srf%d", k), sl_strdup(names[j]), it->expr->pos);
            c->alias = sl_sprintf("%s.%s", it->alias ? it->alias : it->expr->text, names[j]);
            c->alias_pos = it->alias_pos;
            sl_list_push(out, c);
        }
        sl_select_item_free(it);
    }
    sl_list_free(src, NULL);
    sl_list_free(calls, sl_expr_free_v);
    if (rc != 0) {
        sl_lp_free(x);
        sl_list_free(out, sl__select_item_free_v);
        return NULL;
    }
    /* the new scope: in's columns as they were, then the functions' */
    x->input = in->lp;
    in->lp = x;
    int n = x->ncols;
    sl_scope_col *cols = sl_calloc((size_t)n + 1, sizeof(sl_scope_col));
    char **quals = sl_calloc((size_t)n + 1, sizeof(char *));
    for (int i = 0; i < nin; i++) {
        cols[i] = in->cols[i]; /* its name points into x's input, which x keeps */
        quals[i] = in->quals[i];
        in->quals[i] = NULL;
        cols[i].qualifier = quals[i];
    }
    for (int k = 0, c = nin; k < x->nkeys; k++) {
        const char *names[4];
        sl_type types[4];
        int m = sl_srf_cols(x->keys[k], names, types);
        for (int j = 0; j < m; j++, c++) {
            quals[c] = sl_sprintf("$srf%d", k);
            cols[c].qualifier = quals[c];
            cols[c].name = x->cols[c].name;
            cols[c].type = x->cols[c].type;
            cols[c].hidden = true;
        }
    }
    sl__rel_clear(in);
    in->cols = cols;
    in->quals = quals;
    in->nquals = n;
    return out;
}

/* ------------------------------------------------------------------------
** ARRAY(subquery) in a select list: the SELECT's FROM gets an APPLY node per
** subquery (bounded.c runs the subquery for each of its rows, the outer
** columns it names as values) and the item names the APPLY's column. A
** column the subquery's own FROM does not have but the outer query's does is
** an outer reference: its node keeps ival = outer column + 1.
*/
typedef struct sl__outer {
    const sl_scope *inner; /* the subquery's FROM */
    const sl_scope *outer; /* the query around it */
} sl__outer;

static void sl__mark_outer_expr(sl_expr *e, const sl__outer *o)
{
    if (!e)
        return;
    if (e->kind == SL_EXPR_COLUMN) {
        sl_error local = SL_ERROR_INIT;
        const char *name = e->text ? e->text : "";
        int in = o->inner ? sl_scope_resolve(o->inner, e->qualifier, name, e->pos, &local) : -1;
        sl_error_reset(&local);
        int out = in < 0 ? sl_scope_resolve(o->outer, e->qualifier, name, e->pos, &local) : -1;
        sl_error_reset(&local);
        e->ival = out >= 0 ? out + 1 : 0;
        return;
    }
    sl__mark_outer_expr(e->left, o);
    sl__mark_outer_expr(e->right, o);
    for (int i = 0; i < sl_list_len(e->args); i++)
        sl__mark_outer_expr(sl_list_get(e->args, i), o);
    sl__mark_outer_expr(e->filter, o);
}

static void sl__mark_outer_from(sl_from *f, const sl__outer *o)
{
    if (!f)
        return;
    sl__mark_outer_from(f->left, o);
    sl__mark_outer_from(f->right, o);
    sl__mark_outer_expr(f->on, o);
    for (int i = 0; f->kind == SL_FROM_FUNCTION && i < sl_list_len(f->args); i++)
        sl__mark_outer_expr(sl_list_get(f->args, i), o);
}

static void sl__mark_outer(sl_query *q, const sl__outer *o)
{
    for (int i = 0; i < sl_list_len(q->items); i++)
        sl__mark_outer_expr(((sl_select_item *)sl_list_get(q->items, i))->expr, o);
    sl__mark_outer_from(q->from, o);
    sl__mark_outer_expr(q->where, o);
    for (int i = 0; i < sl_list_len(q->group_by); i++)
        sl__mark_outer_expr(sl_list_get(q->group_by, i), o);
    sl__mark_outer_expr(q->having, o);
    for (int i = 0; i < sl_list_len(q->order_by); i++)
        sl__mark_outer_expr(((sl_order_item *)sl_list_get(q->order_by, i))->expr, o);
}

typedef struct sl__outer_vals {
    const sl_type *types;      /* the outer columns' types */
    const char *const *vals;   /* their values as text (NULL = NULL), or NULL: all NULL */
} sl__outer_vals;

static void sl__subst_outer_expr(sl_expr *e, const sl__outer_vals *v)
{
    if (!e)
        return;
    if (e->kind == SL_EXPR_COLUMN && e->ival > 0) {
        int c = (int)e->ival - 1;
        const char *val = v->vals ? v->vals[c] : NULL;
        sl_expr *lit = val ? sl_expr_literal(SL_EXPR_STRING, val, strlen(val), e->pos)
                           : sl_expr_new(SL_EXPR_NULL, e->pos);
        sl_free(e->text);
        sl_free(e->qualifier);
        e->text = e->qualifier = NULL;
        e->kind = SL_EXPR_CAST;
        e->ival = 0;
        e->type = v->types[c];
        e->type.not_null = false;
        e->left = lit;
        return;
    }
    sl__subst_outer_expr(e->left, v);
    sl__subst_outer_expr(e->right, v);
    for (int i = 0; i < sl_list_len(e->args); i++)
        sl__subst_outer_expr(sl_list_get(e->args, i), v);
    sl__subst_outer_expr(e->filter, v);
}

static void sl__subst_outer_from(sl_from *f, const sl__outer_vals *v)
{
    if (!f)
        return;
    sl__subst_outer_from(f->left, v);
    sl__subst_outer_from(f->right, v);
    sl__subst_outer_expr(f->on, v);
    for (int i = 0; f->kind == SL_FROM_FUNCTION && i < sl_list_len(f->args); i++)
        sl__subst_outer_expr(sl_list_get(f->args, i), v);
}

sl_query *sl_bind_apply_query(const sl_query *sub, const sl_type *types, const char *const *vals)
{
    sl_query *q = sl_query_dup(sub);
    sl__outer_vals v = {types, vals};
    for (int i = 0; i < sl_list_len(q->items); i++)
        sl__subst_outer_expr(((sl_select_item *)sl_list_get(q->items, i))->expr, &v);
    sl__subst_outer_from(q->from, &v);
    sl__subst_outer_expr(q->where, &v);
    for (int i = 0; i < sl_list_len(q->group_by); i++)
        sl__subst_outer_expr(sl_list_get(q->group_by, i), &v);
    sl__subst_outer_expr(q->having, &v);
    for (int i = 0; i < sl_list_len(q->order_by); i++)
        sl__subst_outer_expr(((sl_order_item *)sl_list_get(q->order_by, i))->expr, &v);
    return q;
}

/* An APPLY of ARRAY(e->query) over in, named name: in gets its column. */
static int sl__bind_apply(sl_binder *b, sl__rel *in, const sl_expr *e, const char *name)
{
    const sl_query *s = e->query;
    bool scalar = e->ival == 2;
    if (s->kind != SL_QUERY_SELECT)
        return sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, e->pos,
                            scalar ? "a subquery in a select list must be a SELECT here"
                                   : "ARRAY(subquery) takes a SELECT");
    sl_query *sub = sl_query_dup(s);
    sl_type *types = sl_calloc((size_t)in->lp->ncols + 1, sizeof(sl_type));
    for (int i = 0; i < in->lp->ncols; i++)
        types[i] = in->lp->cols[i].type;
    /* the arguments of functions in its FROM name the outer query's columns
    ** (as PostgreSQL's implicit LATERAL); the rest may name its FROM's */
    sl_scope is = {0, NULL}, os = sl__scope_of(in);
    sl__outer o = {NULL, &os};
    sl__mark_outer_from(sub->from, &o);
    sl_query *probe = sl_bind_apply_query(sub, types, NULL);
    sl__rel inner = {0};
    if (probe->from && sl__bind_from(b, probe->from, &inner) != 0) {
        sl_query_free(probe);
        sl_query_free(sub);
        sl_free(types);
        return -1;
    }
    sl_query_free(probe);
    if (inner.lp)
        is = sl__scope_of(&inner);
    o.inner = inner.lp ? &is : NULL;
    sl__mark_outer(sub, &o);
    sl__rel_free(&inner);
    /* bind it once with NULL outer values: its errors now, one column */
    probe = sl_bind_apply_query(sub, types, NULL);
    sl_free(types);
    sl_list *pending = b->applies;
    b->applies = NULL;
    sl_lp *plp = sl_bind_query(b, probe);
    b->applies = pending;
    sl_query_free(probe);
    if (!plp) {
        sl_query_free(sub);
        return -1;
    }
    int ncols = plp->ncols;
    sl_type t = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    t.not_null = true;
    if (scalar && ncols == 1) {
        t = plp->cols[0].type; /* NULL when it finds no row */
        t.not_null = false;
    }
    sl_lp_free(plp);
    if (ncols != 1) {
        sl_query_free(sub);
        return sl_error_set(b->err, SL_ERR_SYNTAX, e->pos, "subquery must return only one column");
    }
    sl_lp *a = sl_lp_new(SL_LP_APPLY, in->lp);
    a->pos = e->pos;
    a->subquery = sub;
    a->join_type = scalar ? SL_JOIN_SINGLE : SL_JOIN_INNER;
    for (int i = 0; i < in->lp->ncols; i++)
        sl_lp_add_col(a, in->lp->cols[i].name, in->lp->cols[i].type, in->lp->cols[i].rowtime);
    sl_lp_add_col(a, name, t, false);
    /* the same names as before, and the new column unqualified */
    int n = a->ncols;
    sl_scope_col *cols = sl_calloc((size_t)n, sizeof(sl_scope_col));
    char **quals = sl_calloc((size_t)n, sizeof(char *));
    for (int i = 0; i < n - 1; i++) {
        quals[i] = sl_strdup(in->cols[i].qualifier);
        cols[i] = in->cols[i];
        cols[i].qualifier = quals[i];
    }
    cols[n - 1].name = a->cols[n - 1].name;
    cols[n - 1].type = t;
    cols[n - 1].hidden = true;
    in->lp = a;
    sl__rel_clear(in);
    in->cols = cols;
    in->quals = quals;
    in->nquals = n;
    return 0;
}

/* A scalar subquery that can become a LEFT JOIN (SINGLE) of the query around
** it: one item without aggregates, a FROM and a WHERE, nothing else. The
** others run per row of that query, as an APPLY. */
static bool sl__single_join_ok(const sl_query *s)
{
    const sl_select_item *it = s->kind == SL_QUERY_SELECT && sl_list_len(s->items) == 1
                                   ? sl_list_get(s->items, 0)
                                   : NULL;
    return it && it->expr->kind != SL_EXPR_STAR && s->from && !s->group_by && !s->having &&
           !sl__has_agg(it->expr) && !s->order_by && !s->limit && !s->offset && !s->distinct;
}

/* An ARRAY(subquery) (ival 1) or a scalar subquery that cannot be a join:
** an APPLY. */
static bool sl__is_apply(const sl_expr *e)
{
    return e->kind == SL_EXPR_SUBQUERY && e->query &&
           (e->ival == 1 || (e->ival == 0 && !sl__single_join_ok(e->query)));
}

static bool sl__has_array(const sl_expr *e)
{
    if (!e)
        return false;
    if (sl__is_apply(e))
        return true;
    if (sl__has_array(e->left) || sl__has_array(e->right))
        return true;
    for (int i = 0; i < sl_list_len(e->args); i++)
        if (sl__has_array(sl_list_get(e->args, i)))
            return true;
    return false;
}

/* Replace each APPLY subquery of e (sl__is_apply) by a column "?arrayN", the
** subquery expression kept in *list (a scalar one with ival 2). */
static void sl__lift_arrays(sl_expr *e, sl_list **list)
{
    if (!e)
        return;
    if (sl__is_apply(e)) {
        sl_expr *sub = sl_malloc(sizeof *sub);
        *sub = *e;
        if (sub->ival == 0)
            sub->ival = 2;
        if (!*list)
            *list = sl_list_new();
        sl_list_push(*list, sub);
        memset(e, 0, sizeof *e);
        e->kind = SL_EXPR_COLUMN;
        e->pos = sub->pos;
        e->op_pos = -1;
        char name[32];
        snprintf(name, sizeof name, "?array%d", sl_list_len(*list));
        e->text = sl_strdup(name);
        return;
    }
    sl__lift_arrays(e->left, list);
    sl__lift_arrays(e->right, list);
    for (int i = 0; i < sl_list_len(e->args); i++)
        sl__lift_arrays(sl_list_get(e->args, i), list);
}

static void sl__expr_free_v(void *e)
{
    sl_expr_free(e);
}

static int sl__bind_query_rel(sl_binder *b, const sl_query *q, sl__rel *out);

/* A SELECT with ARRAY(subquery) items: the items name APPLY columns. */
static int sl__bind_select_arrays(sl_binder *b, const sl_query *q, sl__rel *out)
{
    sl_query *d = sl_query_dup(q);
    sl_list *list = NULL;
    for (int i = 0; i < sl_list_len(d->items); i++) {
        sl_select_item *it = sl_list_get(d->items, i);
        bool whole = sl__is_apply(it->expr);
        if (whole && !it->alias && it->expr->ival == 1) {
            it->alias = sl_strdup("array"); /* PostgreSQL's name of the column */
        } else if (whole && !it->alias) { /* the subquery's item's name, as PostgreSQL */
            const sl_select_item *in = sl_list_get(it->expr->query->items, 0);
            const sl_expr *x = in ? in->expr : NULL;
            if (in && in->alias)
                it->alias = sl_strdup(in->alias);
            else if (x && x->kind == SL_EXPR_COLUMN && x->text)
                it->alias = sl_strdup(x->text);
            else if (x && x->kind == SL_EXPR_FUNC && x->text)
                it->alias = sl_strdup(x->text);
        }
        sl__lift_arrays(it->expr, &list);
    }
    /* ORDER BY / LIMIT / OFFSET are the caller's (sl__bind_query_rel), once */
    sl_list *order = d->order_by;
    sl_expr *limit = d->limit, *offset = d->offset;
    d->order_by = NULL;
    d->limit = d->offset = NULL;
    sl_list *pending = b->applies;
    b->applies = list;
    int rc = sl__bind_query_rel(b, d, out);
    b->applies = pending;
    d->order_by = order;
    d->limit = limit;
    d->offset = offset;
    sl_list_free(list, sl__expr_free_v);
    sl_query_free(d);
    return rc;
}

/* GROUP BY with a group window function: put the WINDOW node over in (its
** three columns hidden at the end of in's scope) and make *groups the GROUP
** BY list with the call replaced by those columns (borrowed items, three
** own column expressions in wcols). 0 also when there is none. */
static int sl__group_window(sl_binder *b, const sl_query *q, sl__rel *in, sl_list **groups,
                            sl_expr *wcols[3], sl__agg *a)
{
    const sl_expr *call = NULL;
    int fn = -1;
    for (int g = 0; g < sl_list_len(q->group_by); g++) {
        const sl_expr *ge = sl_list_get(q->group_by, g);
        int f = ge->kind == SL_EXPR_FUNC && !ge->over && ge->text ? sl__gwin_fn(ge->text) : -1;
        if (f < 0)
            continue;
        if (call)
            return sl_error_set(b->err, SL_ERR_WINDOWING, ge->pos,
                                "GROUP BY may contain only one group window function");
        call = ge;
        fn = f;
    }
    if (!call)
        return 0;
    const char *fname = sl__gwin_names[fn];
    int nargs = sl_list_len(call->args);
    if (nargs != (fn == SL_WIN_HOP ? 3 : 2))
        return sl_error_set(b->err, SL_ERR_WINDOWING, call->pos, "%s takes %s", fname,
                            fn == SL_WIN_TUMBLE ? "a time attribute and a size"
                            : fn == SL_WIN_HOP  ? "a time attribute, a slide and a size"
                                                : "a time attribute and a gap");
    sl_scope scope = sl__scope_of(in);
    const sl_expr *te = sl_list_get(call->args, 0);
    int tc = te->kind == SL_EXPR_COLUMN
                 ? sl_scope_resolve(&scope, te->qualifier, te->text, te->pos, b->err)
                 : -1;
    if (te->kind == SL_EXPR_COLUMN && tc < 0)
        return -1;
    if (tc < 0 || !in->lp->cols[tc].rowtime)
        return sl_error_set(b->err, SL_ERR_WINDOWING, te->pos,
                            "the first argument of %s must be a time attribute column", fname);
    int64_t size = 0, slide = 0;
    if (fn == SL_WIN_HOP) {
        if (sl__interval_arg(b, sl_list_get(call->args, 1), "slide", &slide) != 0 ||
            sl__interval_arg(b, sl_list_get(call->args, 2), "size", &size) != 0)
            return -1;
        const sl_expr *se = sl_list_get(call->args, 2);
        if (size % slide != 0)
            return sl_error_set(b->err, SL_ERR_WINDOWING, se->pos,
                                "the size of a HOP window must be a multiple of its slide");
        if (size / slide > SL_WINDOW_MAX_PER_ROW)
            return sl_error_set(b->err, SL_ERR_PROGRAM_LIMIT, se->pos,
                                "a HOP window of this size and slide puts each row into %" PRId64
                                " windows",
                                size / slide);
    } else {
        if (sl__interval_arg(b, sl_list_get(call->args, 1), fn == SL_WIN_SESSION ? "gap" : "size",
                             &size) != 0)
            return -1;
        slide = size;
    }
    /* SESSION: the other keys (plain columns) partition the sessions */
    int nk = sl_list_len(q->group_by);
    int *part = sl_calloc((size_t)nk + 1, sizeof(int));
    int npart = 0;
    for (int g = 0; fn == SL_WIN_SESSION && g < nk; g++) {
        const sl_expr *ge = sl_list_get(q->group_by, g);
        if (ge == call)
            continue;
        int c = ge->kind == SL_EXPR_COLUMN
                    ? sl_scope_resolve(&scope, ge->qualifier, ge->text, ge->pos, b->err)
                    : -1;
        if (c < 0) {
            sl_free(part);
            if (ge->kind == SL_EXPR_COLUMN)
                return -1;
            return sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, ge->pos,
                                "GROUP BY SESSION(...) supports only plain columns as the other "
                                "keys");
        }
        part[npart++] = c;
    }
    sl_lp *lp = sl_lp_new(SL_LP_WINDOW, in->lp);
    lp->pos = call->pos;
    lp->window_fn = fn;
    lp->time_col = tc;
    lp->size_ms = size;
    lp->slide_ms = slide;
    lp->keys = part;
    lp->nkeys = npart;
    int n = in->lp->ncols;
    for (int i = 0; i < n; i++)
        sl_lp_add_col(lp, in->lp->cols[i].name, in->lp->cols[i].type, false);
    sl_type ts = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    ts.not_null = true;
    sl_type wt = sl_type_make_p(in->lp->cols[tc].type.id, 3, 0);
    wt.not_null = true;
    static const char *const wnames[] = {"$window_start", "$window_end", "$window_time"};
    sl_lp_add_col(lp, wnames[0], ts, false);
    sl_lp_add_col(lp, wnames[1], ts, false);
    sl_lp_add_col(lp, wnames[2], wt, in->lp->cols[tc].rowtime);
    in->lp = lp;
    in->cols = sl_realloc(in->cols, (size_t)(n + 3) * sizeof(sl_scope_col));
    in->quals = sl_realloc(in->quals, (size_t)(n + 3) * sizeof(char *));
    for (int i = 0; i < 3; i++) {
        in->quals[n + i] = NULL;
        in->cols[n + i] = (sl_scope_col){NULL, lp->cols[n + i].name, lp->cols[n + i].type, true};
    }
    in->nquals = n + 3;
    *groups = sl_list_new();
    for (int g = 0; g < nk; g++)
        if (sl_list_get(q->group_by, g) != call)
            sl_list_push(*groups, sl_list_get(q->group_by, g));
    a->gwin = call;
    a->gwin_fn = fn;
    a->gwin_key = sl_list_len(*groups);
    for (int i = 0; i < 3; i++) {
        wcols[i] = sl_expr_new(SL_EXPR_COLUMN, call->pos);
        wcols[i]->op_pos = -1;
        wcols[i]->text = sl_strdup(wnames[i]);
        sl_list_push(*groups, wcols[i]);
    }
    return 0;
}

static int sl__bind_select(sl_binder *b, const sl_query *q, sl__rel *out)
{
    sl__rel in = {0};
    sl_list *applies = b->applies;
    b->applies = NULL; /* this SELECT's, not its FROM's subqueries' */
    if (q->from) {
        if (sl__bind_from(b, q->from, &in) != 0)
            return -1;
    } else {
        in.lp = sl_lp_new(SL_LP_VALUES, NULL);
        in.lp->nrows = 1;
        in.lp->rows = sl_calloc(1, sizeof(sl_bexpr **));
        in.lp->rows[0] = sl_calloc(1, sizeof(sl_bexpr *));
        sl__rel_scope(&in, NULL);
    }
    sl_scope scope = sl__scope_of(&in);
    if (q->where) {
        sl_bind_ctx ctx = {&scope, b->err, "WHERE", NULL, NULL, b->params};
        sl_bexpr *cond = NULL;
        if (sl_bind_condition(&ctx, q->where, &cond) != 0)
            goto fail;
        if (in.lp->kind == SL_LP_JOIN) /* a comma join's bounds are in WHERE */
            sl_lp_join_times(in.lp, cond);
        sl_lp *f = sl_lp_new(SL_LP_FILTER, in.lp);
        for (int i = 0; i < in.lp->ncols; i++)
            sl_lp_add_col(f, in.lp->cols[i].name, in.lp->cols[i].type, in.lp->cols[i].rowtime);
        sl__lp_push_expr(f, cond);
        in.lp = f; /* same columns, same names: they point into the plans below f */
        char **quals = in.quals;
        int n = f->ncols;
        const char **names = sl_calloc((size_t)(n ? n : 1), sizeof(char *));
        for (int i = 0; i < n; i++)
            names[i] = in.cols[i].name;
        in.quals = NULL;
        in.nquals = 0;
        sl__rel_clear(&in);
        in.cols = sl_calloc((size_t)(n ? n : 1), sizeof(sl_scope_col));
        in.quals = quals;
        in.nquals = n;
        for (int i = 0; i < n; i++) {
            in.cols[i].qualifier = quals[i];
            in.cols[i].name = names[i];
            in.cols[i].type = f->cols[i].type;
        }
        sl_free(names);
        scope = sl__scope_of(&in);
    }
    /* the select list's subqueries run per row that WHERE keeps */
    for (int i = 0; i < sl_list_len(applies); i++) {
        const sl_expr *e = sl_list_get(applies, i);
        char name[32];
        snprintf(name, sizeof name, "?array%d", i + 1);
        if (sl__bind_apply(b, &in, e, name) != 0)
            goto fail;
        scope = sl__scope_of(&in);
    }

    bool aggregating = q->group_by != NULL || sl__has_agg(q->having);
    for (int i = 0; !aggregating && i < sl_list_len(q->items); i++)
        aggregating = sl__has_agg(((sl_select_item *)sl_list_get(q->items, i))->expr);
    if (q->having && !aggregating)
        aggregating = true;

    sl_lp *proj = NULL;
    if (aggregating) {
        sl__agg a = {0};
        a.b = b;
        sl_list *wgroups = NULL;
        sl_expr *wcols[3] = {NULL, NULL, NULL};
        if (sl__group_window(b, q, &in, &wgroups, wcols, &a) != 0)
            goto fail;
        scope = sl__scope_of(&in);
        a.in = &scope;
        a.groups = wgroups ? wgroups : q->group_by;
        int nkeys = sl_list_len(a.groups);
        a.group_cols = sl_calloc((size_t)(nkeys ? nkeys : 1), sizeof(int));
        a.pre = sl_lp_new(SL_LP_PROJECT, in.lp);
        in.lp = NULL;
        int rc = 0;
        for (int g = 0; g < nkeys && rc == 0; g++) {
            const sl_expr *ge = sl_list_get(a.groups, g);
            sl_bind_ctx ctx = {&scope, b->err, "GROUP BY", NULL, NULL, b->params};
            sl_bexpr *x = sl_bind_expr(&ctx, ge);
            if (!x) {
                rc = -1;
                break;
            }
            a.group_cols[g] = x->kind == SL_BX_COLUMN ? x->col : -1;
            char *name = ge->kind == SL_EXPR_COLUMN ? sl_strdup(ge->text) : sl_sprintf("$f%d", g);
            sl_lp_add_col(a.pre, name, x->type, false);
            sl_free(name);
            sl__lp_push_expr(a.pre, x);
        }
        if (rc != 0) { /* a.pre holds the keys bound so far and owns the input */
            sl_free(a.group_cols);
            sl_lp_free(a.pre);
            sl_list_free(wgroups, NULL);
            for (int i = 0; i < 3; i++)
                sl_expr_free(wcols[i]);
            goto fail;
        }
        /* The SELECT list and HAVING see the aggregate's output through the hook. */
        sl_lp *having = NULL;
        sl_bexpr *hcond = NULL;
        proj = sl_lp_new(SL_LP_PROJECT, NULL);
        if (rc == 0) {
            sl_bind_ctx ctx = {&scope, b->err, "SELECT", sl__agg_hook, &a, b->params};
            rc = sl__bind_items(&ctx, q->items, &scope, proj);
        }
        if (rc == 0 && q->having) {
            sl_bind_ctx ctx = {&scope, b->err, "HAVING", sl__agg_hook, &a, b->params};
            rc = sl_bind_condition(&ctx, q->having, &hcond);
        }
        sl_lp *agg = sl_lp_new(SL_LP_AGGREGATE, a.pre);
        agg->keys = sl_calloc((size_t)(nkeys ? nkeys : 1), sizeof(int));
        for (int g = 0; g < nkeys; g++) {
            agg->keys[agg->nkeys++] = g;
            sl_lp_add_col(agg, a.pre->cols[g].name, a.pre->cols[g].type, false);
        }
        agg->aggs = a.aggs;
        agg->naggs = a.naggs;
        for (int i = 0; i < a.naggs; i++) {
            char *name = sl_sprintf("agg$%d", i);
            sl_type t = a.aggs[i].type;
            sl_lp_add_col(agg, name, t, false);
            sl_free(name);
        }
        sl_free(a.group_cols);
        sl_free(a.fconds);
        sl_free(a.fargs);
        sl_list_free(wgroups, NULL);
        for (int i = 0; i < 3; i++)
            sl_expr_free(wcols[i]);
        if (a.gwin) /* *_ROWTIME stays a time attribute */
            agg->cols[a.gwin_key + 2].rowtime = true;
        sl_lp *top = agg;
        if (hcond) {
            having = sl_lp_new(SL_LP_FILTER, agg);
            for (int i = 0; i < agg->ncols; i++)
                sl_lp_add_col(having, agg->cols[i].name, agg->cols[i].type, false);
            sl__lp_push_expr(having, hcond);
            top = having;
        }
        proj->input = top;
        if (rc != 0)
            goto fail_proj;
        if (a.gwin && top == agg)
            sl__project_rowtime(proj);
    } else {
        const sl_list *items = q->items;
        sl_list *srf_items = NULL; /* items rewritten around set-returning functions */
        for (int i = 0; !srf_items && i < sl_list_len(q->items); i++) {
            if (!sl__has_srf(((const sl_select_item *)sl_list_get(q->items, i))->expr))
                continue;
            srf_items = sl__bind_srfs(b, q->items, &in);
            if (!srf_items)
                goto fail;
            items = srf_items;
            scope = sl__scope_of(&in);
        }
        sl__over o = {b, &scope, NULL, NULL, in.lp, NULL};
        proj = sl_lp_new(SL_LP_PROJECT, NULL);
        sl_bind_ctx ctx = {&scope, b->err, "SELECT", sl__over_hook, &o, b->params};
        int rc = sl__bind_items(&ctx, items, &scope, proj);
        sl_list_free(srf_items, sl__select_item_free_v);
        if (o.node && o.node->kind == SL_LP_OVER_AGG) {
            if (o.pre) { /* the calls' results move past the computed arguments */
                for (int i = 0; i < proj->nexprs; i++)
                    sl__shift_cols(proj->exprs[i], in.lp->ncols, o.pre->ncols - in.lp->ncols);
                o.pre->input = in.lp;
                in.lp = o.pre;
            }
            o.node->input = in.lp;
            for (int i = 0; i < in.lp->ncols; i++)
                sl_lp_add_col(o.node, in.lp->cols[i].name, in.lp->cols[i].type,
                              in.lp->cols[i].rowtime);
            for (int i = 0; i < o.node->naggs; i++) {
                char *name = sl_sprintf("w0$o%d", i);
                sl_lp_add_col(o.node, name, o.node->aggs[i].type, false);
                sl_free(name);
            }
            in.lp = o.node;
        } else if (o.node) {
            o.node->input = in.lp;
            for (int i = 0; i < in.lp->ncols; i++)
                sl_lp_add_col(o.node, in.lp->cols[i].name, in.lp->cols[i].type,
                              in.lp->cols[i].rowtime);
            sl_type t = sl_type_make(SL_TYPE_BIGINT);
            t.not_null = true;
            sl_lp_add_col(o.node, "$row_number", t, false);
            in.lp = o.node;
        }
        proj->input = in.lp;
        in.lp = NULL;
        if (rc != 0)
            goto fail_proj;
        sl__project_rowtime(proj);
    }
    /* ORDER BY a column of the FROM that is not selected (PostgreSQL): a
    ** hidden column of the projection, dropped after the sort */
    int hidden = 0;
    for (int k = 0; !q->distinct && proj->kind == SL_LP_PROJECT && k < sl_list_len(q->order_by); k++) {
        const sl_order_item *it = sl_list_get(q->order_by, k);
        const sl_expr *e = it->expr;
        if (!proj->input || proj->input->kind == SL_LP_AGGREGATE)
            continue;
        if (e->kind != SL_EXPR_COLUMN && e->kind != SL_EXPR_NUMBER) {
            /* ORDER BY an expression over the FROM's columns: hidden column
            ** $order<k>, which sl__bind_order sorts by */
            sl_scope ins = {in.nquals, in.cols};
            sl_bind_ctx ctx = {&ins, b->err, "ORDER BY", NULL, NULL, b->params};
            sl_bexpr *x = sl_bind_expr(&ctx, e);
            if (!x)
                goto fail_proj;
            char name[32];
            snprintf(name, sizeof name, "$order%d", k);
            sl_lp_add_col(proj, name, x->type, false);
            sl__lp_push_expr(proj, x);
            hidden++;
            continue;
        }
        if (e->kind != SL_EXPR_COLUMN)
            continue;
        bool selected = false;
        for (int i = 0; i < proj->nexprs && !selected; i++) {
            const sl_bexpr *x = proj->exprs[i];
            if (strcmp(proj->cols[i].name, e->text) != 0)
                continue;
            selected = !e->qualifier ||
                       (x->kind == SL_BX_COLUMN && x->col < in.nquals && in.cols[x->col].qualifier &&
                        strcmp(in.cols[x->col].qualifier, e->qualifier) == 0);
        }
        if (selected)
            continue;
        sl_error quiet = SL_ERROR_INIT;
        sl_scope ins = {in.nquals, in.cols}; /* the FROM's columns (in.lp moved to proj) */
        int col = sl_scope_resolve(&ins, e->qualifier, e->text, e->pos, &quiet);
        sl_error_reset(&quiet);
        if (col < 0)
            continue; /* sl__bind_order reports it */
        sl__lp_push_expr(proj, sl__colref(col, in.cols[col].type, e->pos));
        /* an event-time column stays one (a temporal sort orders by it) */
        bool rt = proj->input && col < proj->input->ncols && proj->input->cols[col].rowtime;
        sl_lp_add_col(proj, e->text, in.cols[col].type, rt ? proj->input->cols[col].rowtime : 0);
        hidden++;
    }
    out->lp = q->distinct ? sl__distinct(proj) : proj;
    sl__rel_scope(out, NULL);
    out->nhidden = hidden;
    for (int i = out->lp->ncols - hidden; i < out->lp->ncols; i++)
        out->cols[i].hidden = true;
    /* A column passed on as it is keeps its table's qualifier for ORDER BY
    ** (SELECT * FROM (...) c ORDER BY c.relname), as in PostgreSQL. */
    const sl_lp *under = proj->input;
    while (under && under->kind == SL_LP_FILTER)
        under = under->input;
    bool agg = under && under->kind == SL_LP_AGGREGATE; /* its columns are not in's */
    for (int i = 0; !agg && i < proj->nexprs && i < out->lp->ncols; i++) {
        if (i >= out->lp->ncols - hidden && proj->exprs[i]->kind != SL_BX_COLUMN)
            continue;
        if (i >= out->lp->ncols - hidden && in.cols[proj->exprs[i]->col].qualifier) {
            sl_free(out->quals[i]);
            out->quals[i] = sl_strdup(in.cols[proj->exprs[i]->col].qualifier);
            out->cols[i].qualifier = out->quals[i];
            continue;
        }
        const sl_bexpr *e = proj->exprs[i];
        if (e->kind == SL_BX_COLUMN && e->col < in.nquals && in.cols[e->col].qualifier &&
            strcmp(in.cols[e->col].name, out->lp->cols[i].name) == 0) {
            sl_free(out->quals[i]);
            out->quals[i] = sl_strdup(in.cols[e->col].qualifier);
            out->cols[i].qualifier = out->quals[i];
        }
    }
    sl__rel_clear(&in);
    return 0;

fail_proj:
    sl_lp_free(proj);
fail:
    sl__rel_free(&in);
    return -1;
}

/* ------------------------------------------------------------------------
** VALUES, UNION, ORDER BY, LIMIT
*/

static int sl__bind_values(sl_binder *b, const sl_query *q, sl__rel *out)
{
    int nrows = sl_list_len(q->rows);
    int ncols = nrows ? sl_list_len((sl_list *)sl_list_get(q->rows, 0)) : 0;
    sl_lp *lp = sl_lp_new(SL_LP_VALUES, NULL);
    lp->rows = sl_calloc((size_t)(nrows ? nrows : 1), sizeof(sl_bexpr **));
    sl_type *types = sl_calloc((size_t)(ncols ? ncols : 1), sizeof(sl_type));
    sl_scope empty = {0, NULL};
    sl_bind_ctx ctx = {&empty, b->err, "VALUES", NULL, NULL, b->params};
    int rc = 0;
    for (int r = 0; r < nrows && rc == 0; r++) {
        const sl_list *row = sl_list_get(q->rows, r);
        if (sl_list_len(row) != ncols) {
            const sl_expr *first = sl_list_len(row) ? sl_list_get(row, 0) : NULL;
            rc = sl_error_set(b->err, SL_ERR_SYNTAX, first ? first->pos : q->pos,
                              "VALUES lists must all be the same length");
            break;
        }
        lp->rows[r] = sl_calloc((size_t)(ncols ? ncols : 1), sizeof(sl_bexpr *));
        lp->nrows++;
        for (int c = 0; c < ncols; c++) {
            const sl_expr *e = sl_list_get(row, c);
            sl_bexpr *x = sl_bind_expr(&ctx, e);
            if (!x) {
                rc = -1;
                break;
            }
            lp->rows[r][c] = x;
            if (r == 0) {
                types[c] = x->type;
            } else if (!sl_type_common(types[c], x->type, &types[c])) {
                char *t1 = sl_type_to_string(types[c]), *t2 = sl_type_to_string(x->type);
                rc = sl_error_set(b->err, SL_ERR_DATATYPE_MISMATCH, e->pos,
                                  "VALUES types %s and %s cannot be matched", t1, t2);
                sl_free(t1);
                sl_free(t2);
                break;
            }
        }
    }
    for (int c = 0; c < ncols; c++) {
        char *name = sl_sprintf("EXPR$%d", c);
        sl_lp_add_col(lp, name, types[c], false);
        sl_free(name);
    }
    sl_free(types);
    if (rc != 0) {
        /* rows[r] may be partially filled: free what exists. */
        for (int r = 0; r < lp->nrows; r++) {
            for (int c = 0; c < ncols; c++)
                sl_bexpr_free(lp->rows[r][c]);
            sl_free(lp->rows[r]);
        }
        lp->nrows = 0;
        sl_lp_free(lp);
        return -1;
    }
    out->lp = lp;
    sl__rel_scope(out, NULL);
    return 0;
}

static int sl__bind_union(sl_binder *b, const sl_query *q, sl__rel *out)
{
    sl__rel l = {0}, r = {0};
    if (sl__bind_query_rel(b, q->left, &l) != 0)
        return -1;
    if (sl__bind_query_rel(b, q->right, &r) != 0) {
        sl__rel_free(&l);
        return -1;
    }
    int rc = 0;
    if (l.lp->ncols != r.lp->ncols) {
        rc = sl_error_set(b->err, SL_ERR_SYNTAX, q->right->pos,
                          "each UNION query must have the same number of columns");
        sl_error_detail(b->err, "The left side has %d column%s, the right side %d.", l.lp->ncols,
                        l.lp->ncols == 1 ? "" : "s", r.lp->ncols);
    }
    sl_lp *lp = sl_lp_new(SL_LP_UNION, l.lp);
    lp->right = r.lp;
    for (int i = 0; rc == 0 && i < l.lp->ncols; i++) {
        sl_type t;
        if (!sl_type_common(l.lp->cols[i].type, r.lp->cols[i].type, &t)) {
            char *t1 = sl_type_to_string(l.lp->cols[i].type);
            char *t2 = sl_type_to_string(r.lp->cols[i].type);
            rc = sl_error_set(b->err, SL_ERR_DATATYPE_MISMATCH, q->right->pos,
                              "UNION types %s and %s cannot be matched (column %d, \"%s\")", t1,
                              t2, i + 1, l.lp->cols[i].name);
            sl_free(t1);
            sl_free(t2);
            break;
        }
        sl_lp_add_col(lp, l.lp->cols[i].name, t,
                      l.lp->cols[i].rowtime == r.lp->cols[i].rowtime ? l.lp->cols[i].rowtime : 0);
    }
    l.lp = r.lp = NULL;
    sl__rel_clear(&l);
    sl__rel_clear(&r);
    if (rc != 0) {
        sl_lp_free(lp);
        return -1;
    }
    out->lp = q->all ? lp : sl__distinct(lp);
    sl__rel_scope(out, NULL);
    return 0;
}

/* ORDER BY keys resolve against the query's output columns (by name or by
** 1-based position). */
static int sl__bind_order(sl_binder *b, const sl_query *q, sl__rel *r)
{
    int n = sl_list_len(q->order_by);
    sl_lp *sort = sl_lp_new(SL_LP_SORT, r->lp);
    sort->pos = ((const sl_order_item *)sl_list_get(q->order_by, 0))->expr->pos;
    sort->order = sl_calloc((size_t)n, sizeof(sl_lp_order));
    for (int i = 0; i < r->lp->ncols; i++)
        sl_lp_add_col(sort, r->lp->cols[i].name, r->lp->cols[i].type, r->lp->cols[i].rowtime);
    sl_scope scope = sl__scope_of(r);
    for (int i = 0; i < n; i++) {
        const sl_order_item *it = sl_list_get(q->order_by, i);
        int col = -1;
        if (it->expr->kind == SL_EXPR_NUMBER) {
            long v = strtol(it->expr->text, NULL, 10);
            if (v < 1 || v > r->lp->ncols) {
                sl_error_set(b->err, SL_ERR_INVALID_COLUMN_REF, it->expr->pos,
                             "ORDER BY position %s is not in select list", it->expr->text);
                goto fail;
            }
            col = (int)v - 1;
        } else if (it->expr->kind == SL_EXPR_COLUMN) {
            col = sl_scope_resolve(&scope, it->expr->qualifier, it->expr->text, it->expr->pos,
                                   b->err);
            if (col < 0) {
                sl_error_hint(b->err, "ORDER BY refers to the columns of the select list.");
                goto fail;
            }
        } else {
            char name[32];
            snprintf(name, sizeof name, "$order%d", i);
            for (int k = 0; k < r->lp->ncols && col < 0; k++)
                if (r->cols[k].hidden && strcmp(r->lp->cols[k].name, name) == 0)
                    col = k;
        }
        if (col < 0) {
            sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, it->expr->pos,
                         "ORDER BY supports column names and positions of the select list");
            sl_error_hint(b->err, "Add the expression to the select list with an alias and "
                                  "order by the alias.");
            goto fail;
        }
        sort->order[sort->norder].col = col;
        sort->order[sort->norder].desc = it->desc;
        sort->order[sort->norder].nulls = it->nulls;
        sort->norder++;
    }
    r->lp = sort;
    if (r->nhidden > 0) {
        sl_lp *keep = sl_lp_new(SL_LP_PROJECT, sort);
        keep->pos = sort->pos;
        for (int i = 0; i < sort->ncols - r->nhidden; i++) {
            sl__lp_push_expr(keep, sl__colref(i, sort->cols[i].type, sort->pos));
            sl_lp_add_col(keep, sort->cols[i].name, sort->cols[i].type, sort->cols[i].rowtime);
        }
        r->lp = keep;
        r->nhidden = 0;
    }
    sl__rel_scope(r, NULL);
    return 0;
fail:
    sort->input = NULL;
    sl_lp_free(sort);
    return -1;
}

static int sl__count_arg(sl_binder *b, const sl_expr *e, const char *what, int64_t *out)
{
    if (e->kind == SL_EXPR_PARAM && b->params && e->ival >= 1 && e->ival <= b->params->n) {
        /* describing: the value comes later (exec_params makes it a number) */
        sl_bind_param_infer(b->params, e->ival, sl_type_make(SL_TYPE_BIGINT));
        *out = strcmp(what, "LIMIT") == 0 ? -1 : 0;
        return 0;
    }
    if (e->kind == SL_EXPR_PARAM)
        return sl_error_set(b->err, SL_ERR_UNDEFINED_PARAM, e->pos, "there is no parameter $%lld",
                            (long long)e->ival);
    if (e->kind != SL_EXPR_NUMBER || strchr(e->text, '.') || strchr(e->text, 'e') ||
        strchr(e->text, 'E'))
        return sl_error_set(b->err, SL_ERR_SYNTAX, e->pos,
                            "argument of %s must be a non-negative integer constant", what);
    char *end = NULL;
    long long v = strtoll(e->text, &end, 10);
    if (*end || v < 0)
        return sl_error_set(b->err, SL_ERR_NUMERIC_RANGE, e->pos, "%s value %s is out of range",
                            what, e->text);
    *out = v;
    return 0;
}

/* ------------------------------------------------------------------------
** Scalar subqueries in a select list or WHERE: (SELECT x FROM r WHERE cond)
** becomes a LEFT JOIN (SINGLE) of the query's FROM with r ON cond, and the
** item x over the joined columns (decorrelation; cond may name the outer
** query's columns). As PostgreSQL, NULL when nothing matches, 21000 when
** several rows do. A condition of WHERE (AND-ed with the others) EXISTS /
** NOT EXISTS (SELECT ... FROM r WHERE cond) becomes a SEMI / ANTI join ON
** cond, x [NOT] IN (SELECT y FROM r WHERE cond) one ON cond AND x = y (NOT
** IN: no row where x = y or either is NULL, as its NULL semantics).
*/
static bool sl__has_subquery(const sl_expr *e)
{
    if (!e)
        return false;
    if (e->kind == SL_EXPR_SUBQUERY || e->kind == SL_EXPR_EXISTS || (e->kind == SL_EXPR_IN && e->query))
        return true;
    if (sl__has_subquery(e->left) || sl__has_subquery(e->right))
        return true;
    for (int i = 0; i < sl_list_len(e->args); i++)
        if (sl__has_subquery(sl_list_get(e->args, i)))
            return true;
    return false;
}

static int sl__lift_subqueries(sl_binder *b, sl_query *d, sl_expr *e)
{
    if (!e)
        return 0;
    if (e->kind == SL_EXPR_SUBQUERY) {
        sl_query *s = e->query;
        if (!sl__single_join_ok(s)) {
            sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, e->pos, "this subquery is not supported");
            sl_error_detail(b->err, "A subquery in WHERE has one item, a FROM and a WHERE (it "
                                    "becomes a LEFT JOIN); in a select list it may be any "
                                    "SELECT of one column.");
            return -1;
        }
        sl_from *j = sl_calloc(1, sizeof *j);
        j->kind = SL_FROM_JOIN;
        j->pos = e->pos;
        j->alias_pos = -1;
        j->time_col_pos = -1;
        j->join_type = SL_JOIN_SINGLE;
        j->left = d->from;
        j->right = s->from;
        j->on = s->where;
        d->from = j;
        s->from = NULL;
        s->where = NULL;
        sl_select_item *item = sl_list_get(s->items, 0);
        sl_expr *inner = item->expr;
        item->expr = NULL;
        sl_query_free(s);
        e->query = NULL;
        sl_expr lifted = *inner;
        sl_free(inner);
        sl_free(e->text);
        sl_free(e->qualifier);
        *e = lifted;
        return sl__lift_subqueries(b, d, e);
    }
    if (sl__lift_subqueries(b, d, e->left) != 0 || sl__lift_subqueries(b, d, e->right) != 0)
        return -1;
    for (int i = 0; i < sl_list_len(e->args); i++)
        if (sl__lift_subqueries(b, d, sl_list_get(e->args, i)) != 0)
            return -1;
    return 0;
}


/* The query of a subquery that can become a join: a SELECT with a FROM,
** without grouping, DISTINCT, LIMIT; items: the items it must have (-1: any). */
static int sl__subquery_check(sl_binder *b, const sl_expr *e, int items)
{
    const sl_query *s = e->query;
    bool ok = s->kind == SL_QUERY_SELECT && s->from && !s->group_by && !s->having &&
              !s->limit && !s->offset && !s->distinct;
    for (int i = 0; ok && i < sl_list_len(s->items); i++) {
        const sl_select_item *it = sl_list_get(s->items, i);
        ok = items < 0 || (it->expr->kind != SL_EXPR_STAR && !sl__has_agg(it->expr));
    }
    if (ok && (items < 0 || sl_list_len(s->items) == items))
        return 0;
    sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, e->pos, "this subquery is not supported");
    sl_error_detail(b->err, "A subquery here is a SELECT with a FROM and a WHERE%s, without "
                            "GROUP BY, aggregates, DISTINCT or LIMIT (it becomes a join).",
                    items == 1 ? " and one item" : "");
    return -1;
}

/* The conditions of d's WHERE AND-ed at its top: EXISTS / IN (subquery)
** become SEMI / ANTI joins around d's FROM (the condition becomes TRUE);
** scalar subqueries elsewhere in it SINGLE joins. */
static int sl__lift_where(sl_binder *b, sl_query *d, sl_expr **slot)
{
    sl_expr *e = *slot;
    if (!e)
        return 0;
    if (e->kind == SL_EXPR_BINARY && e->op == SL_OP_AND)
        return sl__lift_where(b, d, &e->left) != 0 ? -1 : sl__lift_where(b, d, &e->right);
    bool neg = false;
    sl_expr *x = e;
    while (x->kind == SL_EXPR_UNARY && x->op == SL_OP_NOT && x->left) {
        neg = !neg;
        x = x->left;
    }
    bool in = x->kind == SL_EXPR_IN && x->query;
    if (x->kind == SL_EXPR_EXISTS || in) {
        if (in && x->negated)
            neg = !neg;
        if (sl__subquery_check(b, x, in ? 1 : -1) != 0)
            return -1;
        sl_query *s = x->query;
        sl_from *j = sl_calloc(1, sizeof *j);
        j->kind = SL_FROM_JOIN;
        j->pos = x->pos;
        j->alias_pos = -1;
        j->time_col_pos = -1;
        j->join_type = neg ? SL_JOIN_ANTI : SL_JOIN_SEMI;
        j->left = d->from;
        j->right = s->from;
        j->on = s->where;
        s->from = NULL;
        s->where = NULL;
        if (in) {
            sl_select_item *it = sl_list_get(s->items, 0);
            j->args = sl_list_new();
            sl_list_push(j->args, x->left);
            sl_list_push(j->args, it->expr);
            x->left = NULL;
            it->expr = sl_expr_new(SL_EXPR_NULL, x->pos);
        }
        d->from = j;
        sl_expr *t = sl_expr_new(SL_EXPR_BOOL, e->pos);
        t->ival = 1;
        sl_expr_free(e);
        *slot = t;
        return 0;
    }
    return sl__lift_subqueries(b, d, e);
}

/* SELECT with subqueries in its select list: bind its decorrelated copy. */
static int sl__bind_select_subqueries(sl_binder *b, const sl_query *q, sl__rel *out)
{
    if (!q->from) {
        const sl_select_item *it = sl_list_get(q->items, 0);
        return sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, it ? it->expr->pos : q->pos,
                            "a subquery needs a FROM in the query around it");
    }
    sl_query *d = sl_query_dup(q);
    int rc = 0;
    for (int i = 0; rc == 0 && i < sl_list_len(d->items); i++) {
        sl_select_item *it = sl_list_get(d->items, i);
        if (it->expr->kind == SL_EXPR_STAR)
            rc = sl_error_set(b->err, SL_ERR_NOT_SUPPORTED, it->expr->pos,
                              "* with a subquery in the select list is not supported");
        else
            rc = sl__lift_subqueries(b, d, it->expr);
    }
    if (rc == 0)
        rc = sl__bind_select(b, d, out);
    sl_query_free(d);
    return rc;
}

static int sl__bind_query_rel(sl_binder *b, const sl_query *q, sl__rel *out)
{
    int rc;
    bool subq = false, arrays = false;
    for (int i = 0; q->kind == SL_QUERY_SELECT && i < sl_list_len(q->items); i++) {
        const sl_expr *e = ((const sl_select_item *)sl_list_get(q->items, i))->expr;
        arrays |= sl__has_array(e);
        subq |= sl__has_subquery(e);
    }
    switch (q->kind) {
    case SL_QUERY_SELECT:
        if (q->from && sl__has_subquery(q->where)) { /* decorrelated: joins */
            sl_query *d = sl_query_dup(q);
            rc = sl__lift_where(b, d, &d->where);
            if (rc == 0)
                rc = arrays ? sl__bind_select_arrays(b, d, out)
                     : subq ? sl__bind_select_subqueries(b, d, out)
                            : sl__bind_select(b, d, out);
            sl_query_free(d);
        } else {
            rc = arrays ? sl__bind_select_arrays(b, q, out)
                 : subq ? sl__bind_select_subqueries(b, q, out)
                        : sl__bind_select(b, q, out);
        }
        break;
    case SL_QUERY_UNION: rc = sl__bind_union(b, q, out); break;
    case SL_QUERY_VALUES: rc = sl__bind_values(b, q, out); break;
    default: rc = sl_error_set(b->err, SL_ERR_INTERNAL, q->pos, "unknown query kind");
    }
    if (rc != 0)
        return -1;
    if (q->order_by && sl__bind_order(b, q, out) != 0) {
        sl__rel_free(out);
        return -1;
    }
    if (q->limit || q->offset) {
        int64_t limit = -1, offset = 0;
        if ((q->limit && sl__count_arg(b, q->limit, "LIMIT", &limit) != 0) ||
            (q->offset && sl__count_arg(b, q->offset, "OFFSET", &offset) != 0)) {
            sl__rel_free(out);
            return -1;
        }
        sl_lp *lim = sl_lp_new(SL_LP_LIMIT, out->lp);
        lim->limit = limit;
        lim->offset = offset;
        for (int i = 0; i < out->lp->ncols; i++)
            sl_lp_add_col(lim, out->lp->cols[i].name, out->lp->cols[i].type,
                          out->lp->cols[i].rowtime);
        out->lp = lim;
        sl__rel_scope(out, NULL);
    }
    return 0;
}

sl_lp *sl_bind_query(sl_binder *b, const sl_query *q)
{
    sl__rel r = {0};
    if (sl__bind_query_rel(b, q, &r) != 0)
        return NULL;
    sl_lp *lp = r.lp;
    r.lp = NULL;
    sl__rel_clear(&r);
    /* A query's output names are unique, as Flink makes them: a star's columns
    ** were renamed against the names before them (sl__bind_items); now every
    ** name an earlier column has becomes name0, name1, ... (SELECT a.x, b.x:
    ** x, x0). Inside a query a subquery's names stay as its select list gives
    ** them (SELECT * over (SELECT a.x, b.x) is ambiguous, as in Flink). */
    for (int i = 1; i < lp->ncols; i++) {
        char *name = sl__unique_name(lp, lp->cols[i].name, i);
        sl_free(lp->cols[i].name);
        lp->cols[i].name = name;
    }
    return lp;
}

/* ------------------------------------------------------------------------
** INSERT
*/

/* INSERT INTO t VALUES ($1, ...) / SELECT $1, ...: a parameter that is a
** whole value takes its target column's type. */
static void sl__infer_insert_params(sl_binder *b, const sl_query *q, const sl_table *t,
                                    const int *target, int ntarget)
{
    if (!b->params || !q)
        return;
    if (q->kind == SL_QUERY_VALUES) {
        for (int r = 0; r < sl_list_len(q->rows); r++) {
            const sl_list *row = sl_list_get(q->rows, r);
            for (int c = 0; c < sl_list_len(row) && c < ntarget; c++) {
                const sl_expr *e = sl_list_get(row, c);
                if (e->kind == SL_EXPR_PARAM)
                    sl_bind_param_infer(b->params, e->ival, t->cols[target[c]].type);
            }
        }
    } else if (q->kind == SL_QUERY_SELECT) {
        for (int c = 0; c < sl_list_len(q->items) && c < ntarget; c++) {
            const sl_select_item *it = sl_list_get(q->items, c);
            if (it->expr->kind == SL_EXPR_PARAM)
                sl_bind_param_infer(b->params, it->expr->ival, t->cols[target[c]].type);
        }
    }
}

sl_lp *sl_bind_insert(sl_binder *b, const sl_stmt *s)
{
    if (sl_binder_view(b, s->name)) {
        sl_error_set(b->err, SL_ERR_WRONG_OBJECT_TYPE, s->name_pos, "cannot insert into view \"%s\"",
                     s->name);
        return NULL;
    }
    const sl_table *t = sl_catalog_table(b->cat, s->name);
    if (!t) {
        sl_error_set(b->err, SL_ERR_UNDEFINED_TABLE, s->name_pos, "table \"%s\" does not exist",
                     s->name);
        return NULL;
    }
    if (!t->connector || !t->connector->caps.sink) {
        sl_error_set(b->err, SL_ERR_WRONG_OBJECT_TYPE, s->name_pos,
                     "table \"%s\" cannot be written to", s->name);
        sl_error_detail(b->err, "Connector '%s' can only be read from.",
                        t->connector ? t->connector->name : "?");
        return NULL;
    }
    if (sl_metadata_check_sink(t, s->name_pos, b->err) != 0)
        return NULL;
    /* Target columns: the list, or all columns in order (but VIRTUAL
    ** metadata columns, which are only read). */
    int nwritten = 0;
    for (int c = 0; c < t->ncols; c++)
        nwritten += !t->cols[c].virt;
    int ntarget = s->column_names ? sl_list_len(s->column_names) : nwritten;
    int *target = sl_calloc((size_t)(ntarget ? ntarget : 1), sizeof(int));
    for (int i = 0, c = 0; !s->column_names && c < t->ncols; c++)
        if (!t->cols[c].virt)
            target[i++] = c;
    for (int i = 0; s->column_names && i < ntarget; i++) {
        const sl_ident *id = sl_list_get(s->column_names, i);
        target[i] = -1;
        for (int c = 0; c < t->ncols; c++)
            if (strcmp(t->cols[c].name, id->name) == 0)
                target[i] = c;
        if (target[i] >= 0 && t->cols[target[i]].virt) {
            sl_error_set(b->err, "428C9", id->pos,
                         "cannot insert into virtual metadata column \"%s\"", id->name);
            sl_error_detail(b->err, "A VIRTUAL column is only read from table \"%s\".",
                            t->name);
            sl_free(target);
            return NULL;
        }
        for (int c = 0; target[i] < 0 && c < t->nall; c++) {
            if (strcmp(t->all[c].name, id->name) == 0) {
                /* Flink: the target's columns are its physical ones */
                sl_error_set(b->err, "428C9", id->pos,
                             "cannot insert into computed column \"%s\"", id->name);
                sl_error_detail(b->err, "A computed column is not stored: it is computed when "
                                        "table \"%s\" is read.", t->name);
                sl_free(target);
                return NULL;
            }
        }
        if (target[i] < 0) {
            sl_error_set(b->err, SL_ERR_UNDEFINED_COLUMN, id->pos,
                         "column \"%s\" of table \"%s\" does not exist", id->name, t->name);
            sl_free(target);
            return NULL;
        }
        for (int j = 0; j < i; j++) {
            if (target[j] == target[i]) {
                sl_error_set(b->err, SL_ERR_DUPLICATE_COLUMN, id->pos,
                             "column \"%s\" specified more than once", id->name);
                sl_free(target);
                return NULL;
            }
        }
    }
    sl__infer_insert_params(b, s->query, t, target, ntarget);
    sl_lp *q = sl_bind_query(b, s->query);
    if (!q) {
        sl_free(target);
        return NULL;
    }
    sl_lp *sink = sl_lp_new(SL_LP_SINK, q);
    sink->pos = s->name_pos;
    sink->table = sl_strdup(t->name);
    sink->connector = t->connector;
    sink->sink_map = sl_calloc((size_t)t->ncols, sizeof(int));
    if (t->npk > 0) { /* the table's PRIMARY KEY (changelog.c: upserts by it) */
        sink->nkeys = t->npk;
        sink->keys = sl_malloc((size_t)t->npk * sizeof(int));
        memcpy(sink->keys, t->pk, (size_t)t->npk * sizeof(int));
    }
    for (int c = 0; c < t->ncols; c++) {
        sink->sink_map[c] = -1;
        sl_lp_add_col(sink, t->cols[c].name, t->cols[c].type, false);
    }
    if (q->ncols != ntarget) {
        sl_error_set(b->err, SL_ERR_SYNTAX, s->query->pos,
                     "INSERT has %s expressions than target columns",
                     q->ncols > ntarget ? "more" : "fewer");
        sl_error_detail(b->err, "The query produces %d column%s; table \"%s\" takes %d here.",
                        q->ncols, q->ncols == 1 ? "" : "s", t->name, ntarget);
        goto fail;
    }
    for (int i = 0; i < ntarget; i++) {
        const sl_column *tc = &t->cols[target[i]];
        if (!sl_type_assignable(q->cols[i].type, tc->type)) {
            char *want = sl_type_to_string(tc->type), *got = sl_type_to_string(q->cols[i].type);
            sl_error_set(b->err, SL_ERR_DATATYPE_MISMATCH, s->query->pos,
                         "column \"%s\" is of type %s but expression is of type %s", tc->name,
                         want, got);
            sl_error_hint(b->err, "You will need to rewrite or cast the expression.");
            sl_free(want);
            sl_free(got);
            goto fail;
        }
        sink->sink_map[target[i]] = i;
    }
    for (int c = 0; c < t->ncols; c++) {
        if (sink->sink_map[c] < 0 && t->cols[c].type.not_null && !t->cols[c].virt) {
            sl_error_set(b->err, SL_ERR_SYNTAX, s->name_pos,
                         "column \"%s\" of table \"%s\" is NOT NULL and has no value", t->cols[c].name,
                         t->name);
            sl_error_hint(b->err, "Add the column to the INSERT's column list.");
            goto fail;
        }
    }
    sl_free(target);
    return sink;
fail:
    sl_free(target);
    sl_lp_free(sink);
    return NULL;
}
