/*
** ast.c — lifetimes of the AST: free, deep copy and structural equality.
**
** Every node owns its children, its strings, its lists (sl_list of the element
** types documented in sl_parser.h) and its kvlists. The *_free functions
** release a whole tree and accept NULL. The *_dup functions make deep copies
** of every field, positions included. The *_equal functions compare trees
** structurally and ignore every position (pos, end, op_pos, name_pos,
** alias_pos, key_pos, value_pos ...).
**
** Equality compares, per node kind, exactly the fields and children that the
** kind gives a meaning to in sl_parser.h — the same ones the printer
** (print.c) writes — so that "print then parse" of a tree gives an equal
** tree, and a hand-built node that leaves an unused field at another default
** still compares equal. A NULL list and an empty list are equal (both print
** as nothing); so are a NULL and an empty kvlist. Identifiers compare
** case-sensitively, function names case-insensitively.
**
** Main routines: sl_stmt_free, sl_stmt_dup, sl_stmt_equal and their
** expression / query counterparts.
*/
#include "sl_parser.h"

#include <string.h>

/* ------------------------------------------------------------------------
** Free.
*/

/* Adapters with the void* signature sl_list_free expects. */
static void ast_order_item_free_v(void *p) { sl_order_item_free(p); }
static void ast_select_item_free_v(void *p) { sl_select_item_free(p); }
static void ast_column_def_free_v(void *p) { sl_column_def_free(p); }
static void ast_ident_free_v(void *p) { sl_ident_free(p); }
static void ast_row_free_v(void *p) { sl_list_free(p, sl_expr_free_v); }

/* Free an expression tree: strings, operands, argument list, OVER spec. */
void sl_expr_free(sl_expr *e)
{
    if (!e)
        return;
    sl_free(e->text);
    sl_free(e->qualifier);
    sl_expr_free(e->left);
    sl_expr_free(e->right);
    sl_list_free(e->args, sl_expr_free_v);
    sl_window_spec_free(e->over);
    sl_expr_free(e->filter);
    sl_query_free(e->query);
    sl_free(e);
}

/* sl_expr_free for sl_list_free. */
void sl_expr_free_v(void *p)
{
    sl_expr_free(p);
}

/* Free a sort item and its expression. */
void sl_order_item_free(sl_order_item *o)
{
    if (!o)
        return;
    sl_expr_free(o->expr);
    sl_free(o);
}

void sl_window_spec_free_v(void *p)
{
    sl_window_spec_free(p);
}

/* Free an OVER (...) spec and its lists. */
void sl_window_spec_free(sl_window_spec *w)
{
    if (!w)
        return;
    sl_list_free(w->partition_by, sl_expr_free_v);
    sl_list_free(w->order_by, ast_order_item_free_v);
    sl_expr_free(w->preceding);
    sl_free(w->name);
    sl_free(w);
}

/* Free a select-list item: its expression and alias. */
void sl_select_item_free(sl_select_item *it)
{
    if (!it)
        return;
    sl_expr_free(it->expr);
    sl_free(it->alias);
    sl_free(it);
}

/* Free a query of any kind with all its clauses and operands. */
void sl_query_free(sl_query *q)
{
    if (!q)
        return;
    sl_list_free(q->items, ast_select_item_free_v);
    sl_from_free(q->from);
    sl_expr_free(q->where);
    sl_list_free(q->group_by, sl_expr_free_v);
    sl_expr_free(q->having);
    sl_query_free(q->left);
    sl_query_free(q->right);
    sl_list_free(q->rows, ast_row_free_v);
    sl_list_free(q->order_by, ast_order_item_free_v);
    sl_expr_free(q->limit);
    sl_expr_free(q->offset);
    sl_free(q);
}

/* Free a FROM item: table, subquery, join (both inputs) or window TVF. */
void sl_from_free(sl_from *f)
{
    if (!f)
        return;
    sl_free(f->name);
    sl_free(f->schema);
    sl_free(f->alias);
    sl_query_free(f->subquery);
    sl_from_free(f->left);
    sl_from_free(f->right);
    sl_expr_free(f->on);
    sl_expr_free(f->as_of);
    sl_from_free(f->input);
    sl_free(f->time_col);
    sl_list_free(f->partition, ast_ident_free_v);
    sl_list_free(f->columns, ast_ident_free_v);
    sl_list_free(f->args, sl_expr_free_v);
    sl_free(f);
}

/* Free a column definition. */
void sl_column_def_free(sl_column_def *c)
{
    if (!c)
        return;
    sl_free(c->name);
    sl_free(c->comment);
    sl_free(c->meta_key);
    sl_expr_free(c->expr);
    sl_list_free(c->fields, ast_column_def_free_v);
    sl_free(c);
}

/* Free an identifier. */
void sl_ident_free(sl_ident *id)
{
    if (!id)
        return;
    sl_free(id->name);
    sl_free(id);
}

/* Free a statement of any kind, with nested statements (sets, EXPLAIN). */
void sl_stmt_free(sl_stmt *s)
{
    if (!s)
        return;
    sl_free(s->name);
    sl_list_free(s->columns, ast_column_def_free_v);
    sl_list_free(s->primary_key, ast_ident_free_v);
    sl_ident_free(s->wm_column);
    sl_list_free(s->partition_by, ast_ident_free_v);
    sl_ident_free(s->like);
    sl_expr_free(s->wm_expr);
    sl_free(s->comment);
    sl_kvlist_free(s->options);
    sl_query_free(s->query);
    sl_list_free(s->column_names, ast_ident_free_v);
    sl_list_free(s->stmts, sl_stmt_free_v);
    sl_stmt_free(s->inner);
    sl_free(s->value);
    sl_ident_free(s->source);
    sl_list_free(s->keys, ast_ident_free_v);
    sl_list_free(s->compare, ast_ident_free_v);
    sl_expr_free(s->where);
    sl_free(s->job);
    sl_free(s);
}

/* sl_stmt_free for sl_list_free. */
void sl_stmt_free_v(void *p)
{
    sl_stmt_free(p);
}

/* ------------------------------------------------------------------------
** Deep copy. Each copies the struct (positions included), then replaces
** every owned pointer by a copy of what it points to.
*/
static sl_from *ast_from_dup(const sl_from *f);

/* Copy a list, copying each element with dup (NULL in, NULL out). */
static sl_list *ast_list_dup(const sl_list *l, void *(*dup)(const void *))
{
    if (!l)
        return NULL;
    sl_list *r = sl_list_new();
    for (int i = 0; i < l->n; i++)
        sl_list_push(r, dup(l->items[i]));
    return r;
}

static void *ast_expr_dup_v(const void *p) { return sl_expr_dup(p); }

static void *ast_order_item_dup_v(const void *p)
{
    const sl_order_item *o = p;
    sl_order_item *r = sl_malloc(sizeof *r);
    *r = *o;
    r->expr = sl_expr_dup(o->expr);
    return r;
}

sl_window_spec *sl_window_spec_dup(const sl_window_spec *w)
{
    if (!w)
        return NULL;
    sl_window_spec *r = sl_malloc(sizeof *r);
    *r = *w;
    r->partition_by = ast_list_dup(w->partition_by, ast_expr_dup_v);
    r->order_by = ast_list_dup(w->order_by, ast_order_item_dup_v);
    r->preceding = sl_expr_dup(w->preceding);
    r->name = w->name ? sl_strdup(w->name) : NULL;
    return r;
}

/* Deep copy of an expression (positions included); NULL in, NULL out. */
sl_expr *sl_expr_dup(const sl_expr *e)
{
    if (!e)
        return NULL;
    sl_expr *r = sl_malloc(sizeof *r);
    *r = *e;
    r->text = sl_strdup(e->text);
    r->qualifier = sl_strdup(e->qualifier);
    r->left = sl_expr_dup(e->left);
    r->right = sl_expr_dup(e->right);
    r->args = ast_list_dup(e->args, ast_expr_dup_v);
    r->over = sl_window_spec_dup(e->over);
    r->filter = sl_expr_dup(e->filter);
    r->query = sl_query_dup(e->query);
    return r;
}

static void *ast_select_item_dup_v(const void *p)
{
    const sl_select_item *it = p;
    sl_select_item *r = sl_malloc(sizeof *r);
    *r = *it;
    r->expr = sl_expr_dup(it->expr);
    r->alias = sl_strdup(it->alias);
    return r;
}

static void *ast_row_dup_v(const void *p)
{
    return ast_list_dup(p, ast_expr_dup_v);
}

/* Deep copy of a query (positions included); NULL in, NULL out. */
sl_query *sl_query_dup(const sl_query *q)
{
    if (!q)
        return NULL;
    sl_query *r = sl_malloc(sizeof *r);
    *r = *q;
    r->items = ast_list_dup(q->items, ast_select_item_dup_v);
    r->from = ast_from_dup(q->from);
    r->where = sl_expr_dup(q->where);
    r->group_by = ast_list_dup(q->group_by, ast_expr_dup_v);
    r->having = sl_expr_dup(q->having);
    r->left = sl_query_dup(q->left);
    r->right = sl_query_dup(q->right);
    r->rows = ast_list_dup(q->rows, ast_row_dup_v);
    r->order_by = ast_list_dup(q->order_by, ast_order_item_dup_v);
    r->limit = sl_expr_dup(q->limit);
    r->offset = sl_expr_dup(q->offset);
    return r;
}

static void *ast_ident_dup_v(const void *p);

static sl_from *ast_from_dup(const sl_from *f)
{
    if (!f)
        return NULL;
    sl_from *r = sl_malloc(sizeof *r);
    *r = *f;
    r->name = sl_strdup(f->name);
    r->schema = sl_strdup(f->schema);
    r->alias = sl_strdup(f->alias);
    r->subquery = sl_query_dup(f->subquery);
    r->left = ast_from_dup(f->left);
    r->right = ast_from_dup(f->right);
    r->on = sl_expr_dup(f->on);
    r->as_of = sl_expr_dup(f->as_of);
    r->input = ast_from_dup(f->input);
    r->time_col = sl_strdup(f->time_col);
    r->partition = ast_list_dup(f->partition, ast_ident_dup_v);
    r->columns = ast_list_dup(f->columns, ast_ident_dup_v);
    r->args = ast_list_dup(f->args, ast_expr_dup_v);
    return r;
}

static void *ast_column_def_dup_v(const void *p)
{
    return sl_column_def_dup(p);
}

sl_column_def *sl_column_def_dup(const sl_column_def *c)
{
    sl_column_def *r = sl_malloc(sizeof *r);
    *r = *c;
    r->name = sl_strdup(c->name);
    r->comment = sl_strdup(c->comment);
    r->meta_key = sl_strdup(c->meta_key);
    r->expr = c->expr ? sl_expr_dup(c->expr) : NULL;
    r->fields = ast_list_dup(c->fields, ast_column_def_dup_v);
    return r;
}

static sl_ident *ast_ident_dup(const sl_ident *id)
{
    if (!id)
        return NULL;
    sl_ident *r = sl_malloc(sizeof *r);
    *r = *id;
    r->name = sl_strdup(id->name);
    return r;
}

static void *ast_ident_dup_v(const void *p) { return ast_ident_dup(p); }
static void *ast_stmt_dup_v(const void *p) { return sl_stmt_dup(p); }

/* Deep copy of a statement (positions, kvlists included); NULL in, NULL out. */
sl_stmt *sl_stmt_dup(const sl_stmt *s)
{
    if (!s)
        return NULL;
    sl_stmt *r = sl_malloc(sizeof *r);
    *r = *s;
    r->name = sl_strdup(s->name);
    r->columns = ast_list_dup(s->columns, ast_column_def_dup_v);
    r->primary_key = ast_list_dup(s->primary_key, ast_ident_dup_v);
    r->wm_column = ast_ident_dup(s->wm_column);
    r->partition_by = ast_list_dup(s->partition_by, ast_ident_dup_v);
    r->like = ast_ident_dup(s->like);
    r->wm_expr = sl_expr_dup(s->wm_expr);
    r->comment = sl_strdup(s->comment);
    r->options = sl_kvlist_dup(s->options);
    r->query = sl_query_dup(s->query);
    r->column_names = ast_list_dup(s->column_names, ast_ident_dup_v);
    r->stmts = ast_list_dup(s->stmts, ast_stmt_dup_v);
    r->inner = sl_stmt_dup(s->inner);
    r->value = sl_strdup(s->value);
    r->source = ast_ident_dup(s->source);
    r->keys = ast_list_dup(s->keys, ast_ident_dup_v);
    r->compare = ast_list_dup(s->compare, ast_ident_dup_v);
    r->where = sl_expr_dup(s->where);
    r->job = sl_strdup(s->job);
    return r;
}

/* ------------------------------------------------------------------------
** Structural equality (positions ignored).
*/
static bool ast_from_equal(const sl_from *a, const sl_from *b);
static bool ast_ident_equal_v(const void *a, const void *b);

/* Both NULL, or both non-NULL and equal bytes. */
static bool ast_str_equal(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

/* As ast_str_equal, ignoring ASCII case (function names). */
static bool ast_str_equal_ci(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return sl_strcasecmp(a, b) == 0;
}

/* Lists of equal length (NULL = empty) whose elements are pairwise equal. */
static bool ast_list_equal(const sl_list *a, const sl_list *b, bool (*eq)(const void *, const void *))
{
    int n = sl_list_len(a);
    if (n != sl_list_len(b))
        return false;
    for (int i = 0; i < n; i++)
        if (!eq(a->items[i], b->items[i]))
            return false;
    return true;
}

static bool ast_expr_equal_v(const void *a, const void *b) { return sl_expr_equal(a, b); }

static bool ast_order_item_equal_v(const void *pa, const void *pb)
{
    const sl_order_item *a = pa, *b = pb;
    if (!a || !b)
        return a == b;
    return a->desc == b->desc && a->nulls == b->nulls && sl_expr_equal(a->expr, b->expr);
}

static bool ast_window_spec_equal(const sl_window_spec *a, const sl_window_spec *b)
{
    if (!a || !b)
        return a == b;
    return ast_list_equal(a->partition_by, b->partition_by, ast_expr_equal_v) &&
           ast_list_equal(a->order_by, b->order_by, ast_order_item_equal_v) &&
           a->frame == b->frame && a->current_row == b->current_row &&
           (a->name && b->name ? strcmp(a->name, b->name) == 0 : a->name == b->name) &&
           sl_expr_equal(a->preceding, b->preceding);
}

/* Structural equality of expressions, ignoring positions; two NULLs are equal. */
bool sl_expr_equal(const sl_expr *a, const sl_expr *b)
{
    if (!a || !b)
        return a == b;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case SL_EXPR_NULL:
        return true;
    case SL_EXPR_BOOL:
        return (a->ival != 0) == (b->ival != 0);
    case SL_EXPR_NUMBER:
    case SL_EXPR_STRING:
    case SL_EXPR_XSTRING:
        return ast_str_equal(a->text, b->text);
    case SL_EXPR_TYPED:
        return a->type.id == b->type.id && ast_str_equal(a->text, b->text);
    case SL_EXPR_INTERVAL:
        return ast_str_equal(a->text, b->text) && a->unit == b->unit &&
               a->unit_to == b->unit_to && a->unit_precision == b->unit_precision;
    case SL_EXPR_COLUMN:
        return ast_str_equal(a->text, b->text) && ast_str_equal(a->qualifier, b->qualifier);
    case SL_EXPR_STAR:
        return ast_str_equal(a->qualifier, b->qualifier);
    case SL_EXPR_UNARY:
        return a->op == b->op && sl_expr_equal(a->left, b->left);
    case SL_EXPR_BINARY:
        return a->op == b->op && sl_expr_equal(a->left, b->left) &&
               sl_expr_equal(a->right, b->right);
    case SL_EXPR_IS:
        return a->op == b->op && a->negated == b->negated && sl_expr_equal(a->left, b->left);
    case SL_EXPR_BETWEEN:
    case SL_EXPR_IN:
        return a->negated == b->negated && sl_expr_equal(a->left, b->left) &&
               ast_list_equal(a->args, b->args, ast_expr_equal_v) &&
               sl_query_equal(a->query, b->query);
    case SL_EXPR_LIKE:
        return a->negated == b->negated && sl_expr_equal(a->left, b->left) &&
               sl_expr_equal(a->right, b->right) &&
               ast_list_equal(a->args, b->args, ast_expr_equal_v);
    case SL_EXPR_CASE:
        return sl_expr_equal(a->left, b->left) && sl_expr_equal(a->right, b->right) &&
               ast_list_equal(a->args, b->args, ast_expr_equal_v);
    case SL_EXPR_CAST:
        return (a->ival != 0) == (b->ival != 0) && sl_type_equal(a->type, b->type) &&
               sl_expr_equal(a->left, b->left);
    case SL_EXPR_FUNC:
        return ast_str_equal_ci(a->text, b->text) && a->distinct == b->distinct &&
               (a->ival != 0) == (b->ival != 0) &&
               ast_list_equal(a->args, b->args, ast_expr_equal_v) &&
               ast_window_spec_equal(a->over, b->over) && sl_expr_equal(a->filter, b->filter);
    case SL_EXPR_PARAM:
        return a->ival == b->ival;
    case SL_EXPR_SUBQUERY:
        return a->ival == b->ival && sl_query_equal(a->query, b->query);
    case SL_EXPR_FIELD:
        return ast_str_equal(a->text, b->text) && sl_expr_equal(a->left, b->left);
    case SL_EXPR_EXISTS:
        return sl_query_equal(a->query, b->query);
    }
    return false;
}

static bool ast_select_item_equal_v(const void *pa, const void *pb)
{
    const sl_select_item *a = pa, *b = pb;
    if (!a || !b)
        return a == b;
    return ast_str_equal(a->alias, b->alias) && sl_expr_equal(a->expr, b->expr);
}

static bool ast_row_equal_v(const void *a, const void *b)
{
    return ast_list_equal(a, b, ast_expr_equal_v);
}

/* Structural equality of queries, ignoring positions. */
bool sl_query_equal(const sl_query *a, const sl_query *b)
{
    if (!a || !b)
        return a == b;
    if (a->kind != b->kind)
        return false;
    if (!ast_list_equal(a->order_by, b->order_by, ast_order_item_equal_v) ||
        !sl_expr_equal(a->limit, b->limit) || !sl_expr_equal(a->offset, b->offset))
        return false;
    switch (a->kind) {
    case SL_QUERY_SELECT:
        return a->distinct == b->distinct &&
               ast_list_equal(a->items, b->items, ast_select_item_equal_v) &&
               ast_from_equal(a->from, b->from) && sl_expr_equal(a->where, b->where) &&
               ast_list_equal(a->group_by, b->group_by, ast_expr_equal_v) &&
               sl_expr_equal(a->having, b->having);
    case SL_QUERY_UNION:
        return a->all == b->all && sl_query_equal(a->left, b->left) &&
               sl_query_equal(a->right, b->right);
    case SL_QUERY_VALUES:
        return ast_list_equal(a->rows, b->rows, ast_row_equal_v);
    }
    return false;
}

static bool ast_from_equal(const sl_from *a, const sl_from *b)
{
    if (!a || !b)
        return a == b;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case SL_FROM_TABLE:
        return ast_str_equal(a->name, b->name) && ast_str_equal(a->schema, b->schema) &&
               ast_str_equal(a->alias, b->alias) && sl_expr_equal(a->as_of, b->as_of);
    case SL_FROM_SUBQUERY:
        return ast_str_equal(a->alias, b->alias) && sl_query_equal(a->subquery, b->subquery);
    case SL_FROM_FUNCTION:
        return ast_str_equal_ci(a->name, b->name) && ast_str_equal(a->alias, b->alias) &&
               ast_list_equal(a->args, b->args, ast_expr_equal_v);
    case SL_FROM_JOIN:
        return a->join_type == b->join_type && ast_from_equal(a->left, b->left) &&
               ast_from_equal(a->right, b->right) && sl_expr_equal(a->on, b->on);
    case SL_FROM_WINDOW:
        /* The TABLE argument prints as its name only. */
        if (!a->input || !b->input) {
            if (a->input != b->input)
                return false;
        } else if (!ast_str_equal(a->input->name, b->input->name)) {
            return false;
        }
        return a->window_fn == b->window_fn && ast_str_equal(a->alias, b->alias) &&
               ast_str_equal(a->time_col, b->time_col) &&
               ast_list_equal(a->partition, b->partition, ast_ident_equal_v) &&
               ast_list_equal(a->args, b->args, ast_expr_equal_v);
    }
    return false;
}

static bool ast_column_def_equal_v(const void *pa, const void *pb)
{
    const sl_column_def *a = pa, *b = pb;
    if (!a || !b)
        return a == b;
    return ast_str_equal(a->name, b->name) && sl_type_equal(a->type, b->type) &&
           ast_str_equal(a->comment, b->comment) && sl_expr_equal(a->expr, b->expr) &&
           ast_list_equal(a->fields, b->fields, ast_column_def_equal_v) &&
           a->metadata == b->metadata && ast_str_equal(a->meta_key, b->meta_key) &&
           a->is_virtual == b->is_virtual;
}

static bool ast_ident_equal(const sl_ident *a, const sl_ident *b)
{
    if (!a || !b)
        return a == b;
    return ast_str_equal(a->name, b->name);
}

static bool ast_ident_equal_v(const void *a, const void *b) { return ast_ident_equal(a, b); }
static bool ast_stmt_equal_v(const void *a, const void *b) { return sl_stmt_equal(a, b); }

/* Same keys and values in the same order; NULL equals empty. */
static bool ast_kvlist_equal(const sl_kvlist *a, const sl_kvlist *b)
{
    int n = a ? a->n : 0;
    if (n != (b ? b->n : 0))
        return false;
    for (int i = 0; i < n; i++)
        if (!ast_str_equal(a->items[i].key, b->items[i].key) ||
            !ast_str_equal(a->items[i].value, b->items[i].value))
            return false;
    return true;
}

/* Structural equality of statements, ignoring positions; option values
** are compared as written (no redaction). */
bool sl_stmt_equal(const sl_stmt *a, const sl_stmt *b)
{
    if (!a || !b)
        return a == b;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case SL_STMT_CREATE_TABLE:
        return ast_str_equal(a->name, b->name) && a->if_not_exists == b->if_not_exists &&
               a->temporary == b->temporary &&
               ast_list_equal(a->columns, b->columns, ast_column_def_equal_v) &&
               ast_list_equal(a->primary_key, b->primary_key, ast_ident_equal_v) &&
               ast_ident_equal(a->wm_column, b->wm_column) &&
               sl_expr_equal(a->wm_expr, b->wm_expr) && ast_str_equal(a->comment, b->comment) &&
               ast_list_equal(a->partition_by, b->partition_by, ast_ident_equal_v) &&
               ast_ident_equal(a->like, b->like) &&
               memcmp(a->like_opts, b->like_opts, sizeof a->like_opts) == 0 &&
               ast_kvlist_equal(a->options, b->options);
    case SL_STMT_DROP_TABLE:
        return ast_str_equal(a->name, b->name) && a->if_exists == b->if_exists &&
               a->temporary == b->temporary;
    case SL_STMT_ALTER_SET:
    case SL_STMT_ALTER_RESET:
        return ast_str_equal(a->name, b->name) && ast_kvlist_equal(a->options, b->options);
    case SL_STMT_CREATE_VIEW:
        return ast_str_equal(a->name, b->name) && a->temporary == b->temporary &&
               a->if_not_exists == b->if_not_exists &&
               ast_list_equal(a->column_names, b->column_names, ast_ident_equal_v) &&
               sl_query_equal(a->query, b->query);
    case SL_STMT_DROP_VIEW:
        return ast_str_equal(a->name, b->name) && a->temporary == b->temporary &&
               a->if_exists == b->if_exists;
    case SL_STMT_INSERT:
        return ast_str_equal(a->name, b->name) &&
               ast_list_equal(a->column_names, b->column_names, ast_ident_equal_v) &&
               sl_query_equal(a->query, b->query);
    case SL_STMT_STATEMENT_SET:
        return ast_list_equal(a->stmts, b->stmts, ast_stmt_equal_v);
    case SL_STMT_QUERY:
        return sl_query_equal(a->query, b->query);
    case SL_STMT_SET:
        return ast_str_equal(a->name, b->name) && ast_kvlist_equal(a->options, b->options);
    case SL_STMT_RESET:
        return ast_str_equal(a->name, b->name);
    case SL_STMT_DESCRIBE:
        return ast_str_equal(a->name, b->name) && a->sub == b->sub;
    case SL_STMT_HELP:
    case SL_STMT_BEGIN_SET:
        return true;
    case SL_STMT_RECONCILE:
        return ast_str_equal(a->name, b->name) && ast_ident_equal(a->source, b->source) &&
               ast_list_equal(a->keys, b->keys, ast_ident_equal_v) &&
               ast_list_equal(a->compare, b->compare, ast_ident_equal_v) &&
               sl_expr_equal(a->where, b->where) && ast_str_equal(a->job, b->job) &&
               a->repair == b->repair;
    case SL_STMT_USE:
    case SL_STMT_ALTER_RENAME:
        return ast_str_equal(a->name, b->name) && ast_str_equal(a->value, b->value);
    case SL_STMT_SHOW:
        if (a->show != b->show)
            return false;
        if (a->show == SL_SHOW_CREATE_TABLE || a->show == SL_SHOW_CREATE_VIEW ||
            a->show == SL_SHOW_JOB)
            return ast_str_equal(a->name, b->name);
        return true;
    case SL_STMT_EXPLAIN:
        return a->sub == b->sub && sl_stmt_equal(a->inner, b->inner);
    case SL_STMT_STOP_JOB:
    case SL_STMT_DROP_JOB:
        return ast_str_equal(a->name, b->name) && a->with_savepoint == b->with_savepoint;
    case SL_STMT_PG_SET:
        return ast_str_equal(a->name, b->name) && ast_str_equal(a->value, b->value) &&
               a->local == b->local;
    case SL_STMT_PG_SHOW:
    case SL_STMT_PG_RESET:
        return ast_str_equal(a->name, b->name);
    case SL_STMT_TXN:
    case SL_STMT_DISCARD:
        return a->sub == b->sub && ast_str_equal(a->name, b->name);
    case SL_STMT_DECLARE_CURSOR:
        return ast_str_equal(a->name, b->name) && a->binary == b->binary &&
               sl_query_equal(a->query, b->query);
    case SL_STMT_FETCH:
    case SL_STMT_MOVE:
        return ast_str_equal(a->name, b->name) && a->count == b->count;
    case SL_STMT_CLOSE_CURSOR:
        return ast_str_equal(a->name, b->name);
    case SL_STMT_DROP_FUNCTION:
        return ast_str_equal(a->name, b->name) && a->temporary == b->temporary &&
               a->sub == b->sub && a->if_exists == b->if_exists;
    }
    return false;
}
