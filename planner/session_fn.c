/*
** session_fn.c — PostgreSQL's session functions, and a SELECT without FROM
** answered in the caller's thread.
**
** Session functions are the session's state, not the rows': each call is
** replaced by its value when the statement starts (as PostgreSQL evaluates
** its stable functions once per statement), then the statement binds and
** runs as any other. A value is a STRING (CAST('v' AS STRING)) unless said:
**
**   version()                  'PostgreSQL 15.0 (Sluice x.y.z) ...'
**   current_schema[()]         'public' (the schema of every table and view)
**   current_database(), current_catalog
**                              the session_database parameter (the database the
**                              client connected to; 'sluice' when none)
**   current_user, session_user, user
**                              the session_authorization parameter
**   pg_backend_pid()           INT: the session_backend_pid parameter (the server
**                              gives BackendKeyData's process id), else getpid()
**   current_setting(name [, missing_ok])  as SHOW name; NULL for an unknown name
**                              when missing_ok
**   set_config(name, value, is_local)     as SET [LOCAL] name = value; its new value
**
** Describing a statement (sl__session_functions_typed) replaces them the
** same way, except set_config(), which becomes a NULL STRING: describing
** has no effect.
** Their arguments must be literals (0A000 otherwise). A view keeps the
** calls in its text, so a view that uses them fails to bind (42883).
**
** A SELECT without FROM, WHERE, GROUP BY, ORDER BY or LIMIT (SELECT 1,
** SELECT version(), the wire benchmark's round trip) binds like every
** query, then its one row is computed by the expression evaluator right
** here, without planning a job. Its columns are named as PostgreSQL names
** them: the alias, the column's or function's name (lower case), else
** ?column?; in result mode 'changelog' the op column (+I) comes first.
**
** Main routines: sl__session_functions, sl__session_functions_typed, sl__select_const.
*/
#include "session_int.h"
#include "../exec/sl_exec.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------
** Session functions
*/

static int sl__fn_query(sl_session *s, sl_query *q, const sl_result_sink *out, sl_error *err);

/* The sink of sl__session_functions_typed: set_config() changes nothing. */
static const sl_result_sink sl__typing_only = {NULL, NULL, NULL, NULL, NULL, NULL};

/* Replace e's contents by with's (e keeps its place in the tree). */
static void sl__replace(sl_expr *e, sl_expr *with)
{
    sl_expr tmp = *e;
    *e = *with;
    *with = tmp;
    sl_expr_free(with);
}

/* CAST('v' AS STRING), or CAST(NULL AS STRING) for v NULL. */
static sl_expr *sl__string_value(const char *v, int pos)
{
    sl_expr *c = sl_expr_new(SL_EXPR_CAST, pos);
    c->op_pos = pos;
    c->type = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    c->left = v ? sl_expr_literal(SL_EXPR_STRING, v, strlen(v), pos) : sl_expr_new(SL_EXPR_NULL, pos);
    return c;
}

/* The text of a literal argument (a string, or a session function already
** replaced by its value); NULL for SQL NULL; *ok false when it is not one. */
static const char *sl__literal_text(const sl_expr *a, bool *ok)
{
    *ok = true;
    if (a->kind == SL_EXPR_CAST && a->left)
        a = a->left;
    if (a->kind == SL_EXPR_STRING)
        return a->text;
    if (a->kind == SL_EXPR_NULL)
        return NULL;
    *ok = false;
    return NULL;
}

static int sl__arg_error(const sl_expr *e, const char *what, sl_error *err)
{
    sl_error_set(err, SL_ERR_NOT_SUPPORTED, e->pos, "%s() needs %s", e->text, what);
    return -1;
}

static int sl__fn_call(sl_session *s, sl_expr *e, const sl_result_sink *out, sl_error *err)
{
    const char *n = e->text;
    int nargs = sl_list_len(e->args);
    bool none = nargs == 0 && !e->ival && !e->distinct && !e->over;
    if (!n)
        return 0;
    if (none && sl_strcasecmp(n, "version") == 0) {
        sl__replace(e, sl__string_value("PostgreSQL 15.0 (Sluice " SLUICE_VERSION
                                        "), a streaming SQL engine, 64-bit", e->pos));
    } else if (none && sl_strcasecmp(n, "current_schema") == 0) {
        sl__replace(e, sl__string_value("public", e->pos));
    } else if (none && (sl_strcasecmp(n, "current_database") == 0 ||
                        sl_strcasecmp(n, "current_catalog") == 0)) {
        sl__replace(e, sl__string_value(sl_session_param(s, "session_database"), e->pos));
    } else if (none && (sl_strcasecmp(n, "current_user") == 0 ||
                        sl_strcasecmp(n, "session_user") == 0 || sl_strcasecmp(n, "user") == 0)) {
        sl__replace(e, sl__string_value(sl_session_param(s, "session_authorization"), e->pos));
    } else if (none && sl_strcasecmp(n, "pg_backend_pid") == 0) {
        const char *pid = sl_session_param(s, "session_backend_pid");
        sl__replace(e, sl_expr_literal(SL_EXPR_NUMBER, pid, strlen(pid), e->pos));
    } else if (sl_strcasecmp(n, "current_setting") == 0) {
        bool ok = nargs == 1 || nargs == 2, missing_ok = false;
        const char *name = ok ? sl__literal_text(sl_list_get(e->args, 0), &ok) : NULL;
        if (ok && nargs == 2) {
            const sl_expr *m = sl_list_get(e->args, 1);
            ok = m->kind == SL_EXPR_BOOL;
            missing_ok = ok && m->ival;
        }
        if (!ok || !name)
            return sl__arg_error(e, "a literal name and an optional literal missing_ok", err);
        sl_error lookup = SL_ERROR_INIT;
        const char *v = sl__pg_show_value(s, name, ((sl_expr *)sl_list_get(e->args, 0))->pos,
                                          missing_ok ? &lookup : err);
        sl_error_reset(&lookup);
        if (!v && !missing_ok)
            return -1;
        sl__replace(e, sl__string_value(v, e->pos));
    } else if (sl_strcasecmp(n, "set_config") == 0) {
        bool ok = nargs == 3, okv = true;
        const sl_expr *a0 = ok ? sl_list_get(e->args, 0) : NULL;
        const sl_expr *a1 = ok ? sl_list_get(e->args, 1) : NULL;
        const sl_expr *a2 = ok ? sl_list_get(e->args, 2) : NULL;
        const char *name = ok ? sl__literal_text(a0, &ok) : NULL;
        const char *value = ok ? sl__literal_text(a1, &okv) : NULL;
        if (!ok || !okv || !name || a2->kind != SL_EXPR_BOOL)
            return sl__arg_error(e, "a literal name, value and is_local", err);
        if (out == &sl__typing_only) { /* describing: its type, no effect */
            sl__replace(e, sl__string_value(NULL, e->pos));
            return 0;
        }
        if (sl__pg_set_value(s, name, value, a2->ival != 0, a0->pos, a1->pos, out, err) != 0)
            return -1;
        sl__replace(e, sl__string_value(sl_session_param(s, name), e->pos));
    }
    return 0;
}

static int sl__fn_expr(sl_session *s, sl_expr *e, const sl_result_sink *out, sl_error *err)
{
    if (!e)
        return 0;
    if (sl__fn_expr(s, e->left, out, err) != 0 || sl__fn_expr(s, e->right, out, err) != 0 ||
        sl__fn_expr(s, e->filter, out, err) != 0 || sl__fn_query(s, e->query, out, err) != 0)
        return -1;
    for (int i = 0; i < sl_list_len(e->args); i++) {
        sl_expr *a = sl_list_get(e->args, i);
        /* IN lists and CASE hold plain expressions; nothing else nests lists */
        if (sl__fn_expr(s, a, out, err) != 0)
            return -1;
    }
    if (e->over) {
        for (int i = 0; i < sl_list_len(e->over->partition_by); i++)
            if (sl__fn_expr(s, sl_list_get(e->over->partition_by, i), out, err) != 0)
                return -1;
        for (int i = 0; i < sl_list_len(e->over->order_by); i++)
            if (sl__fn_expr(s, ((sl_order_item *)sl_list_get(e->over->order_by, i))->expr, out,
                            err) != 0)
                return -1;
    }
    return e->kind == SL_EXPR_FUNC ? sl__fn_call(s, e, out, err) : 0;
}

static int sl__fn_from(sl_session *s, sl_from *f, const sl_result_sink *out, sl_error *err)
{
    if (!f)
        return 0;
    if (sl__fn_query(s, f->subquery, out, err) != 0 || sl__fn_from(s, f->left, out, err) != 0 ||
        sl__fn_from(s, f->right, out, err) != 0 || sl__fn_from(s, f->input, out, err) != 0 ||
        sl__fn_expr(s, f->on, out, err) != 0)
        return -1;
    for (int i = 0; i < sl_list_len(f->args); i++)
        if (sl__fn_expr(s, sl_list_get(f->args, i), out, err) != 0)
            return -1;
    return 0;
}

static int sl__fn_query(sl_session *s, sl_query *q, const sl_result_sink *out, sl_error *err)
{
    if (!q)
        return 0;
    for (int i = 0; i < sl_list_len(q->items); i++)
        if (sl__fn_expr(s, ((sl_select_item *)sl_list_get(q->items, i))->expr, out, err) != 0)
            return -1;
    if (sl__fn_from(s, q->from, out, err) != 0 || sl__fn_expr(s, q->where, out, err) != 0 ||
        sl__fn_expr(s, q->having, out, err) != 0 || sl__fn_expr(s, q->limit, out, err) != 0 ||
        sl__fn_expr(s, q->offset, out, err) != 0 || sl__fn_query(s, q->left, out, err) != 0 ||
        sl__fn_query(s, q->right, out, err) != 0)
        return -1;
    for (int i = 0; i < sl_list_len(q->group_by); i++)
        if (sl__fn_expr(s, sl_list_get(q->group_by, i), out, err) != 0)
            return -1;
    for (int i = 0; i < sl_list_len(q->order_by); i++)
        if (sl__fn_expr(s, ((sl_order_item *)sl_list_get(q->order_by, i))->expr, out, err) != 0)
            return -1;
    for (int r = 0; r < sl_list_len(q->rows); r++) {
        sl_list *row = sl_list_get(q->rows, r);
        for (int i = 0; i < sl_list_len(row); i++)
            if (sl__fn_expr(s, sl_list_get(row, i), out, err) != 0)
                return -1;
    }
    return 0;
}

int sl__session_functions(sl_session *s, sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    for (; st; st = st->inner) {
        if (st->kind == SL_STMT_CREATE_VIEW)
            return 0; /* a view keeps its text */
        if (sl__fn_query(s, st->query, out, err) != 0)
            return -1;
        for (int i = 0; i < sl_list_len(st->stmts); i++)
            if (sl__session_functions(s, sl_list_get(st->stmts, i), out, err) != 0)
                return -1;
    }
    return 0;
}

int sl__session_functions_typed(sl_session *s, sl_stmt *st, sl_error *err)
{
    return sl__session_functions(s, st, &sl__typing_only, err);
}

/* ------------------------------------------------------------------------
** SELECT without FROM
*/

/* PostgreSQL's name of a select item (FigureColname): caller frees. */
static char *sl__pg_colname(const sl_select_item *it)
{
    const sl_expr *e = it->expr;
    if (it->alias)
        return sl_strdup(it->alias);
    while (e->kind == SL_EXPR_CAST && e->left && e->left->kind != SL_EXPR_STRING &&
           e->left->kind != SL_EXPR_NUMBER && e->left->kind != SL_EXPR_NULL)
        e = e->left;
    const char *n = NULL;
    if (e->kind == SL_EXPR_COLUMN || e->kind == SL_EXPR_FUNC)
        n = e->text;
    else if (e->kind == SL_EXPR_CASE)
        n = "case";
    else if (e->kind == SL_EXPR_BOOL)
        n = "bool";
    if (!n)
        return sl_strdup("?column?");
    char *r = sl_strdup(n);
    if (e->kind == SL_EXPR_FUNC)
        for (char *p = r; *p; p++)
            *p = (char)tolower((unsigned char)*p);
    return r;
}

int sl__select_const(sl_session *s, sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    const sl_query *q = st->query;
    if (st->kind != SL_STMT_QUERY || q->kind != SL_QUERY_SELECT || q->from || q->where ||
        q->group_by || q->having || q->order_by || q->limit || q->offset || q->distinct)
        return 0;
    int n = sl_list_len(q->items);
    for (int i = 0; i < n; i++)
        if (((sl_select_item *)sl_list_get(q->items, i))->expr->kind == SL_EXPR_STAR)
            return 0;
    char **names = sl_calloc((size_t)n + 1, sizeof(char *));
    for (int i = 0; i < n; i++)
        names[i] = sl__pg_colname(sl_list_get(q->items, i));
    int rc = -1;
    sl_lp *lp = NULL;
    sl_eval_prog **progs = sl_calloc((size_t)n + 1, sizeof(sl_eval_prog *));
    sl_type *types = sl_calloc((size_t)n + 1, sizeof(sl_type));
    sl_chunk *in = NULL, *row = NULL;
    sl_strbuf *bufs = sl_calloc((size_t)n + 1, sizeof(sl_strbuf));
    const char **vals = sl_calloc((size_t)n + 1, sizeof(char *));
    size_t *lens = sl_calloc((size_t)n + 1, sizeof(size_t));
    if (sl__session_functions(s, st, out, err) != 0)
        goto done;
    sl_binder b = sl__binder(s, err);
    lp = sl_bind_query(&b, q);
    if (!lp)
        goto done;
    if (lp->kind != SL_LP_PROJECT || !lp->input || lp->input->kind != SL_LP_VALUES ||
        lp->input->ncols != 0 || lp->nexprs != n) {
        rc = 0; /* e.g. an aggregate: the query path plans it */
        goto done;
    }
    const sl_tz *tz = sl__pg_tz(s, err);
    if (!tz)
        goto done;
    for (int i = 0; i < n; i++) {
        types[i] = lp->cols[i].type;
        if (!(progs[i] = sl_eval_compile_rows(lp->exprs[i], 0, NULL, 1, err)))
            goto done;
    }
    in = sl_chunk_new(0, NULL, 1);
    sl_chunk_append_row(in, SL_ROW_INSERT);
    row = sl_chunk_new(n, types, 1);
    sl_chunk_append_row(row, SL_ROW_INSERT);
    sl_eval_env env = {sl_now_nanos(), tz, sl_sysrel_def, s};
    for (int i = 0; i < n; i++) {
        if (sl_eval_into(progs[i], in, &env, row, i, err) != 0)
            goto done;
        if (sl_value_format_tz(&bufs[i], &row->cols[i], 0, tz)) {
            vals[i] = sl_strbuf_cstr(&bufs[i]);
            lens[i] = bufs[i].len;
        }
    }
    rc = 1;
    /* result mode 'changelog': the row kind first, as every query's */
    int k = sl__result_mode_of(s) == SL__RESULT_CHANGELOG ? 1 : 0;
    if (k) {
        memmove(names + 1, names, (size_t)n * sizeof *names);
        memmove(types + 1, types, (size_t)n * sizeof *types);
        memmove(vals + 1, vals, (size_t)n * sizeof *vals);
        memmove(lens + 1, lens, (size_t)n * sizeof *lens);
        names[0] = sl_strdup("op");
        types[0] = sl_type_make_p(SL_TYPE_CHAR, 2, 0);
        vals[0] = "+I";
        lens[0] = 2;
    }
    if (out && out->begin &&
        out->begin(out->ctx, n + k, (const char *const *)names, types) != 0)
        goto done;
    if (out && out->row && out->row(out->ctx, vals, lens) != 0)
        goto done;
    sl__result_complete(out, "SELECT 1");
done:
    for (int i = 0; i <= n; i++)
        sl_free(names[i]);
    for (int i = 0; i < n; i++) {
        sl_eval_free(progs[i]);
        sl_strbuf_free(&bufs[i]);
    }
    sl_free(names);
    sl_free(progs);
    sl_free(types);
    sl_free(bufs);
    sl_free(vals);
    sl_free(lens);
    sl_chunk_free(in);
    sl_chunk_free(row);
    sl_lp_free(lp);
    return rc;
}
