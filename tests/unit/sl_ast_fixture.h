/*
** sl_ast_fixture.h — hand-built AST nodes for the parser unit tests
** (test_parser_ast.c, test_parser_print.c). Nodes are made with sl_calloc
** directly, independent of the builders in build.c, and freed with the
** *_free functions of ast.c. Positions are set to distinct values so that
** tests can check they are ignored by the *_equal functions.
*/
#ifndef SL_AST_FIXTURE_H
#define SL_AST_FIXTURE_H

#include "sl_parser.h"

#include <stdarg.h>

static int fx_next_pos = 1000; /* every node gets a fresh position */

SL_UNUSED static sl_expr *fx_new(sl_expr_kind kind)
{
    sl_expr *e = sl_calloc(1, sizeof *e);
    e->kind = kind;
    e->pos = fx_next_pos++;
    e->op_pos = fx_next_pos++;
    e->unit_precision = -1;
    return e;
}

SL_UNUSED static sl_list *fx_list(int n, ...)
{
    sl_list *l = sl_list_new();
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        sl_list_push(l, va_arg(ap, void *));
    va_end(ap);
    return l;
}

SL_UNUSED static sl_expr *fx_text(sl_expr_kind kind, const char *text)
{
    sl_expr *e = fx_new(kind);
    e->text = sl_strdup(text);
    return e;
}

SL_UNUSED static sl_expr *fx_num(const char *t) { return fx_text(SL_EXPR_NUMBER, t); }
SL_UNUSED static sl_expr *fx_str(const char *t) { return fx_text(SL_EXPR_STRING, t); }
SL_UNUSED static sl_expr *fx_null(void) { return fx_new(SL_EXPR_NULL); }

SL_UNUSED static sl_expr *fx_bool(int v)
{
    sl_expr *e = fx_new(SL_EXPR_BOOL);
    e->ival = v;
    return e;
}

SL_UNUSED static sl_expr *fx_col(const char *qualifier, const char *name)
{
    sl_expr *e = fx_text(SL_EXPR_COLUMN, name);
    e->qualifier = sl_strdup(qualifier);
    return e;
}

SL_UNUSED static sl_expr *fx_star(const char *qualifier)
{
    sl_expr *e = fx_new(SL_EXPR_STAR);
    e->qualifier = sl_strdup(qualifier);
    return e;
}

SL_UNUSED static sl_expr *fx_un(int op, sl_expr *x)
{
    sl_expr *e = fx_new(SL_EXPR_UNARY);
    e->op = op;
    e->left = x;
    return e;
}

SL_UNUSED static sl_expr *fx_bin(int op, sl_expr *l, sl_expr *r)
{
    sl_expr *e = fx_new(SL_EXPR_BINARY);
    e->op = op;
    e->left = l;
    e->right = r;
    return e;
}

SL_UNUSED static sl_expr *fx_is(sl_expr *x, int what, bool negated)
{
    sl_expr *e = fx_new(SL_EXPR_IS);
    e->op = what;
    e->negated = negated;
    e->left = x;
    return e;
}

SL_UNUSED static sl_expr *fx_between(sl_expr *x, sl_expr *lo, sl_expr *hi, bool negated)
{
    sl_expr *e = fx_new(SL_EXPR_BETWEEN);
    e->left = x;
    e->args = fx_list(2, lo, hi);
    e->negated = negated;
    return e;
}

/* x [NOT] IN (list) */
SL_UNUSED static sl_expr *fx_in(sl_expr *x, bool negated, sl_list *list)
{
    sl_expr *e = fx_new(SL_EXPR_IN);
    e->left = x;
    e->args = list;
    e->negated = negated;
    return e;
}

SL_UNUSED static sl_expr *fx_like(sl_expr *x, sl_expr *pattern, sl_expr *escape, bool negated)
{
    sl_expr *e = fx_new(SL_EXPR_LIKE);
    e->left = x;
    e->right = pattern;
    if (escape)
        e->args = fx_list(1, escape);
    e->negated = negated;
    return e;
}

/* CASE [operand] WHEN/THEN pairs (list of 2n) [ELSE els] END */
SL_UNUSED static sl_expr *fx_case(sl_expr *operand, sl_list *pairs, sl_expr *els)
{
    sl_expr *e = fx_new(SL_EXPR_CASE);
    e->left = operand;
    e->args = pairs;
    e->right = els;
    return e;
}

SL_UNUSED static sl_expr *fx_cast(sl_expr *x, sl_type t, bool try_cast)
{
    sl_expr *e = fx_new(SL_EXPR_CAST);
    e->left = x;
    e->type = t;
    e->ival = try_cast;
    return e;
}

/* name(args); args may be NULL */
SL_UNUSED static sl_expr *fx_func(const char *name, sl_list *args)
{
    sl_expr *e = fx_text(SL_EXPR_FUNC, name);
    e->args = args;
    return e;
}

SL_UNUSED static sl_expr *fx_interval(const char *text, int unit, int unit_to, int precision)
{
    sl_expr *e = fx_text(SL_EXPR_INTERVAL, text);
    e->unit = unit;
    e->unit_to = unit_to;
    e->unit_precision = precision;
    return e;
}

SL_UNUSED static sl_expr *fx_typed(sl_type_id id, const char *text)
{
    sl_expr *e = fx_text(SL_EXPR_TYPED, text);
    e->type = sl_type_make(id);
    return e;
}

SL_UNUSED static sl_order_item *fx_order(sl_expr *x, bool desc, int nulls)
{
    sl_order_item *o = sl_calloc(1, sizeof *o);
    o->expr = x;
    o->desc = desc;
    o->nulls = nulls;
    return o;
}

SL_UNUSED static sl_window_spec *fx_over(sl_list *partition_by, sl_list *order_by)
{
    sl_window_spec *w = sl_calloc(1, sizeof *w);
    w->partition_by = partition_by;
    w->order_by = order_by;
    return w;
}

SL_UNUSED static sl_select_item *fx_item(sl_expr *x, const char *alias)
{
    sl_select_item *it = sl_calloc(1, sizeof *it);
    it->expr = x;
    it->alias = sl_strdup(alias);
    it->alias_pos = alias ? fx_next_pos++ : -1;
    return it;
}

SL_UNUSED static sl_query *fx_query(sl_query_kind kind)
{
    sl_query *q = sl_calloc(1, sizeof *q);
    q->kind = kind;
    q->pos = fx_next_pos++;
    return q;
}

/* SELECT items FROM from (other clauses are set by the caller) */
SL_UNUSED static sl_query *fx_select(sl_list *items, sl_from *from)
{
    sl_query *q = fx_query(SL_QUERY_SELECT);
    q->items = items;
    q->from = from;
    return q;
}

SL_UNUSED static sl_query *fx_union(sl_query *l, sl_query *r, bool all)
{
    sl_query *q = fx_query(SL_QUERY_UNION);
    q->left = l;
    q->right = r;
    q->all = all;
    return q;
}

SL_UNUSED static sl_query *fx_values(sl_list *rows)
{
    sl_query *q = fx_query(SL_QUERY_VALUES);
    q->rows = rows;
    return q;
}

SL_UNUSED static sl_from *fx_from(sl_from_kind kind)
{
    sl_from *f = sl_calloc(1, sizeof *f);
    f->kind = kind;
    f->pos = fx_next_pos++;
    f->alias_pos = -1;
    f->time_col_pos = -1;
    return f;
}

SL_UNUSED static sl_from *fx_table(const char *name, const char *alias)
{
    sl_from *f = fx_from(SL_FROM_TABLE);
    f->name = sl_strdup(name);
    f->alias = sl_strdup(alias);
    if (alias)
        f->alias_pos = fx_next_pos++;
    return f;
}

SL_UNUSED static sl_from *fx_subquery(sl_query *q, const char *alias)
{
    sl_from *f = fx_from(SL_FROM_SUBQUERY);
    f->subquery = q;
    f->alias = sl_strdup(alias);
    return f;
}

SL_UNUSED static sl_from *fx_join(int type, sl_from *l, sl_from *r, sl_expr *on)
{
    sl_from *f = fx_from(SL_FROM_JOIN);
    f->join_type = type;
    f->left = l;
    f->right = r;
    f->on = on;
    return f;
}

SL_UNUSED static sl_from *fx_window(int fn, const char *table, const char *time_col, sl_list *args,
                                    const char *alias)
{
    sl_from *f = fx_from(SL_FROM_WINDOW);
    f->window_fn = fn;
    f->input = fx_table(table, NULL);
    f->time_col = sl_strdup(time_col);
    f->time_col_pos = fx_next_pos++;
    f->args = args;
    f->alias = sl_strdup(alias);
    return f;
}

SL_UNUSED static sl_ident *fx_ident(const char *name)
{
    sl_ident *id = sl_calloc(1, sizeof *id);
    id->name = sl_strdup(name);
    id->pos = fx_next_pos++;
    return id;
}

SL_UNUSED static sl_column_def *fx_coldef(const char *name, sl_type t, const char *comment)
{
    sl_column_def *c = sl_calloc(1, sizeof *c);
    c->name = sl_strdup(name);
    c->pos = fx_next_pos++;
    c->type = t;
    c->type_pos = fx_next_pos++;
    c->comment = sl_strdup(comment);
    return c;
}

SL_UNUSED static sl_type fx_type_nn(sl_type_id id)
{
    sl_type t = sl_type_make(id);
    t.not_null = true;
    return t;
}

SL_UNUSED static sl_stmt *fx_stmt(sl_stmt_kind kind, const char *name)
{
    sl_stmt *s = sl_calloc(1, sizeof *s);
    s->kind = kind;
    s->pos = fx_next_pos++;
    s->end = fx_next_pos++;
    s->name = sl_strdup(name);
    s->name_pos = fx_next_pos++;
    s->pk_pos = -1;
    s->options_pos = -1;
    return s;
}

/* A kvlist from n key/value pairs (const char *key, const char *value, ...). */
SL_UNUSED static sl_kvlist *fx_kv(int n, ...)
{
    sl_kvlist *l = sl_kvlist_new();
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        const char *k = va_arg(ap, const char *);
        const char *v = va_arg(ap, const char *);
        sl_kvlist_add(l, k, v, fx_next_pos, fx_next_pos + 1);
        fx_next_pos += 2;
    }
    va_end(ap);
    return l;
}

/* A query as a statement. */
SL_UNUSED static sl_stmt *fx_query_stmt(sl_query *q)
{
    sl_stmt *s = fx_stmt(SL_STMT_QUERY, NULL);
    s->query = q;
    return s;
}

/* Printing into fresh strings (caller frees). */
SL_UNUSED static char *fx_print_expr(const sl_expr *e)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_expr_print(&sb, e);
    return sl_strbuf_detach(&sb);
}

SL_UNUSED static char *fx_print_query(const sl_query *q)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_query_print(&sb, q);
    return sl_strbuf_detach(&sb);
}

SL_UNUSED static char *fx_print_stmt(const sl_stmt *s, sl_secret_fn is_secret, void *ctx)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_stmt_print(&sb, s, is_secret, ctx);
    return sl_strbuf_detach(&sb);
}

#endif /* SL_AST_FIXTURE_H */
