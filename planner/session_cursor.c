/*
** session_cursor.c — what the extended query protocol needs of a session:
** parameters ($n), describing a statement without running it, and cursors
** (rows read on demand), with PostgreSQL's DECLARE / FETCH / MOVE / CLOSE.
**
** Parameters: a statement's $n are typed by binding it once with the
** unknown ones untyped (sl_bind_params: the binder records the type each
** one's context gives it), then STRING for those still unknown. Executing
** with values turns each $n node of the AST into a typed literal —
** CAST(<literal> AS type), X'..' for bytes (the value's hex digits), a plain
** number under LIMIT / OFFSET — validated here (22P02 / 22003 naming the
** parameter); the text of the statement is never touched, so a value cannot
** change the statement.
**
** A prepared statement runs many times with new values: the session keeps
** the AST of the last SL__PARSED_MAX statements it ran with parameters,
** before their values went in, with their parameters' types (sl__parsed,
** keyed by the text and the declared types). Its next run copies that AST
** and puts its values in: no parsing, no binding for the types. An entry
** holds while the catalog keeps its version (sl_catalog_version: any
** CREATE, ALTER or DROP changes it) and the session has no temporary view
** (entries are only made without one): what the types were bound against.
**
** Cursors: the query runs on a thread of its own, in a fork of the session
** (sl__session_fork: its settings as they were at the open), into a sink
** that queues rows and notices for the reader. The queue is bounded
** (SL__CURSOR_MAX_ROWS rows or SL__CURSOR_MAX_BYTES bytes): a full queue
** blocks the producer — backpressure, memory bounded. Closing sets the
** fork's interrupt flag (the query's should_stop) and wakes a blocked
** producer, whose sink then cancels the query, and joins the thread.
**
**   producer (query thread)           reader (sl_cursor_fetch)
**   begin: columns, planned = true    waits for rows, the end, or the
**   row: waits while the queue is       session's interrupt (polled every
**        full, then queues               SL__CURSOR_POLL_MS) -> 57014
**   end: ended = true, rc, error      delivers rows and notices in order
**
** Main routines: sl_session_describe, sl_session_exec_params,
** sl_session_open_cursor, sl_cursor_fetch, sl_cursor_close, sl__cursor_stmt.
*/
#include "session_int.h"
#include "reconcile_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SL__CURSOR_POLL_MS 50                 /* a waiting reader looks at its interrupt */

/* ------------------------------------------------------------------------
** Walking a statement's expressions
*/

/* Called for every expression node; limit is true for a LIMIT / OFFSET. */
typedef void (*sl__expr_fn)(sl_expr *e, bool limit, void *ctx);

static void sl__walk_query(sl_query *q, sl__expr_fn fn, void *ctx);

static void sl__walk_expr(sl_expr *e, bool limit, sl__expr_fn fn, void *ctx)
{
    if (!e)
        return;
    fn(e, limit, ctx);
    sl__walk_query(e->query, fn, ctx); /* a subquery's */
    sl__walk_expr(e->left, false, fn, ctx);
    sl__walk_expr(e->right, false, fn, ctx);
    for (int i = 0; i < sl_list_len(e->args); i++)
        sl__walk_expr(sl_list_get(e->args, i), false, fn, ctx);
    sl__walk_expr(e->filter, false, fn, ctx);
    if (e->over) {
        for (int i = 0; i < sl_list_len(e->over->partition_by); i++)
            sl__walk_expr(sl_list_get(e->over->partition_by, i), false, fn, ctx);
        for (int i = 0; i < sl_list_len(e->over->order_by); i++)
            sl__walk_expr(((sl_order_item *)sl_list_get(e->over->order_by, i))->expr, false, fn,
                          ctx);
    }
}

static void sl__walk_from(sl_from *f, sl__expr_fn fn, void *ctx)
{
    if (!f)
        return;
    sl__walk_query(f->subquery, fn, ctx);
    sl__walk_from(f->left, fn, ctx);
    sl__walk_from(f->right, fn, ctx);
    sl__walk_expr(f->on, false, fn, ctx);
    sl__walk_from(f->input, fn, ctx);
    for (int i = 0; i < sl_list_len(f->args); i++)
        sl__walk_expr(sl_list_get(f->args, i), false, fn, ctx);
}

static void sl__walk_query(sl_query *q, sl__expr_fn fn, void *ctx)
{
    if (!q)
        return;
    for (int i = 0; i < sl_list_len(q->items); i++)
        sl__walk_expr(((sl_select_item *)sl_list_get(q->items, i))->expr, false, fn, ctx);
    sl__walk_from(q->from, fn, ctx);
    sl__walk_expr(q->where, false, fn, ctx);
    for (int i = 0; i < sl_list_len(q->group_by); i++)
        sl__walk_expr(sl_list_get(q->group_by, i), false, fn, ctx);
    sl__walk_expr(q->having, false, fn, ctx);
    sl__walk_query(q->left, fn, ctx);
    sl__walk_query(q->right, fn, ctx);
    for (int r = 0; r < sl_list_len(q->rows); r++) {
        sl_list *row = sl_list_get(q->rows, r);
        for (int i = 0; i < sl_list_len(row); i++)
            sl__walk_expr(sl_list_get(row, i), false, fn, ctx);
    }
    for (int i = 0; i < sl_list_len(q->order_by); i++)
        sl__walk_expr(((sl_order_item *)sl_list_get(q->order_by, i))->expr, false, fn, ctx);
    sl__walk_expr(q->limit, true, fn, ctx);
    sl__walk_expr(q->offset, true, fn, ctx);
}

static void sl__walk_stmt(sl_stmt *st, sl__expr_fn fn, void *ctx)
{
    if (!st)
        return;
    sl__walk_query(st->query, fn, ctx);
    sl__walk_expr(st->wm_expr, false, fn, ctx);
    for (int i = 0; i < sl_list_len(st->stmts); i++)
        sl__walk_stmt(sl_list_get(st->stmts, i), fn, ctx);
    sl__walk_stmt(st->inner, fn, ctx);
}

/* The highest $n, and the position of the first $n above a bound. */
typedef struct sl__param_scan {
    int64_t max;   /* highest n */
    int64_t bound; /* values given */
    int over_pos;  /* first $n with n > bound, or -1 */
    int64_t over;  /* its n */
} sl__param_scan;

static void sl__scan_param(sl_expr *e, bool limit, void *ctx)
{
    sl__param_scan *ps = ctx;
    if (e->kind != SL_EXPR_PARAM)
        return;
    if (e->ival > ps->max)
        ps->max = e->ival;
    if (e->ival > ps->bound && (ps->over_pos < 0 || e->pos < ps->over_pos)) {
        ps->over_pos = e->pos;
        ps->over = e->ival;
    }
}

/* ------------------------------------------------------------------------
** Parameter types
*/

/* Bind st with the parameters of bp (each typed or SL_TYPE_NULL): the
** plans of a runnable statement, into plans when not NULL. 0 or -1. */
static int sl__bind_with(sl_session *s, const sl_stmt *st, sl_bind_params *bp, sl_list *plans,
                         sl_error *err)
{
    sl_binder b = sl__binder(s, err);
    b.params = bp;
    if (st->kind == SL_STMT_EXPLAIN)
        return st->inner ? sl__bind_with(s, st->inner, bp, plans, err) : 0;
    sl_list *mine = plans ? plans : sl_list_new();
    int rc = 0;
    switch (st->kind) {
    case SL_STMT_INSERT: {
        sl_lp *lp = sl_bind_insert(&b, st);
        rc = lp ? 0 : -1;
        if (lp)
            sl_list_push(mine, lp);
        break;
    }
    case SL_STMT_STATEMENT_SET:
        for (int i = 0; rc == 0 && i < sl_list_len(st->stmts); i++) {
            sl_lp *lp = sl_bind_insert(&b, sl_list_get(st->stmts, i));
            rc = lp ? 0 : -1;
            if (lp)
                sl_list_push(mine, lp);
        }
        break;
    case SL_STMT_QUERY:
    case SL_STMT_DECLARE_CURSOR:
    case SL_STMT_CREATE_VIEW: {
        sl_lp *lp = sl_bind_query(&b, st->query);
        rc = lp ? 0 : -1;
        if (lp)
            sl_list_push(mine, lp);
        break;
    }
    default:
        break;
    }
    /* the bounded path (bounded.c) reads the catalog relations: no changelog */
    for (int i = 0; rc == 0 && i < mine->n; i++)
        rc = sl_lp_reads_sysrel(mine->items[i]) ? 0 : sl_lp_analyze(mine->items[i], err);
    if (mine != plans)
        sl_list_free(mine, sl__lp_free_v);
    return rc;
}

/* types[0..n): the declared ones stay; the others get what binding infers,
** else STRING. Binding errors are not reported here (the statement's run
** or describe reports them with every type known). */
static void sl__infer_types(sl_session *s, const sl_stmt *st, int n, sl_type *types)
{
    sl_bind_params bp = {n, types};
    sl_error ignored = SL_ERROR_INIT;
    sl__bind_with(s, st, &bp, NULL, &ignored);
    sl_error_reset(&ignored);
    for (int i = 0; i < n; i++) {
        if (types[i].id == SL_TYPE_NULL)
            types[i] = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
        types[i].not_null = false;
    }
}

/* ------------------------------------------------------------------------
** Parameter values: typed literals in place of $n
*/

typedef struct sl__subst {
    int n;                 /* values */
    const sl_param *params; /* the values */
    const sl_type *types;  /* their types */
    sl_error *err;         /* first error */
} sl__subst;

/* 22P02 "invalid input syntax for type T: "v"" naming the parameter. */
static void sl__bad_value(sl__subst *sb, const sl_expr *e, const char *state, const char *what)
{
    const sl_param *p = &sb->params[e->ival - 1];
    char *tn = sl_type_to_string(sb->types[e->ival - 1]);
    int shown = p->len > 64 ? 64 : (int)p->len;
    sl_error_set(sb->err, state, e->pos, "%s for type %s: \"%.*s%s\"", what, tn, shown, p->value,
                 p->len > 64 ? "..." : "");
    sl_error_detail(sb->err, "The value of parameter $%lld.", (long long)e->ival);
    sl_free(tn);
}

static bool sl__is_int_type(sl_type_id id)
{
    return id == SL_TYPE_TINYINT || id == SL_TYPE_SMALLINT || id == SL_TYPE_INT ||
           id == SL_TYPE_BIGINT;
}

/* Whether v[0..n) is [+-]digits[.digits][e[+-]digits] (at least one digit). */
static bool sl__numeric_text(const char *v, size_t n, bool integer)
{
    size_t i = 0, digits = 0;
    if (i < n && (v[i] == '+' || v[i] == '-'))
        i++;
    for (; i < n && v[i] >= '0' && v[i] <= '9'; i++)
        digits++;
    if (!integer && i < n && v[i] == '.')
        for (i++; i < n && v[i] >= '0' && v[i] <= '9'; i++)
            digits++;
    if (digits == 0)
        return false;
    if (!integer && i < n && (v[i] == 'e' || v[i] == 'E')) {
        i++;
        if (i < n && (v[i] == '+' || v[i] == '-'))
            i++;
        size_t ed = 0;
        for (; i < n && v[i] >= '0' && v[i] <= '9'; i++)
            ed++;
        if (ed == 0)
            return false;
    }
    return i == n;
}

/* The literal node for value v (trimmed) of type t, or NULL with the error
** set. */
static sl_expr *sl__literal_of(sl__subst *sb, const sl_expr *e, const char *v, size_t n, sl_type t)
{
    int pos = e->pos;
    if (t.id == SL_TYPE_BOOLEAN) {
        static const char *const yes[] = {"t", "true", "y", "yes", "on", "1"};
        static const char *const no[] = {"f", "false", "n", "no", "off", "0"};
        for (size_t i = 0; i < SL_ARRAY_LEN(yes); i++) {
            bool y = strlen(yes[i]) == n && sl_strncasecmp(v, yes[i], n) == 0;
            bool f = strlen(no[i]) == n && sl_strncasecmp(v, no[i], n) == 0;
            if (y || f) {
                sl_expr *b = sl_expr_new(SL_EXPR_BOOL, pos);
                b->ival = y;
                return b;
            }
        }
        sl__bad_value(sb, e, SL_ERR_INVALID_TEXT, "invalid input syntax");
        return NULL;
    }
    if (sl_type_is_numeric(t.id)) {
        if (!sl__numeric_text(v, n, sl__is_int_type(t.id))) {
            sl__bad_value(sb, e, SL_ERR_INVALID_TEXT, "invalid input syntax");
            return NULL;
        }
        if (sl__is_int_type(t.id)) {
            static const long long lim[][2] = {
                {-128, 127}, {-32768, 32767}, {INT32_MIN, INT32_MAX}, {LLONG_MIN, LLONG_MAX}};
            int k = t.id == SL_TYPE_TINYINT ? 0 : t.id == SL_TYPE_SMALLINT ? 1
                  : t.id == SL_TYPE_INT     ? 2 : 3;
            char *z = sl_strndup(v, n), *end = NULL;
            errno = 0;
            long long x = strtoll(z, &end, 10);
            bool range = errno == ERANGE || x < lim[k][0] || x > lim[k][1];
            sl_free(z);
            if (range) {
                sl__bad_value(sb, e, SL_ERR_NUMERIC_RANGE, "value out of range");
                return NULL;
            }
        }
        bool neg = v[0] == '-';
        size_t skip = v[0] == '-' || v[0] == '+' ? 1 : 0;
        sl_expr *num = sl_expr_literal(SL_EXPR_NUMBER, v + skip, n - skip, pos);
        return neg ? sl_expr_unary(SL_OP_NEG, num, pos) : num;
    }
    if (t.id == SL_TYPE_DATE || t.id == SL_TYPE_TIME || t.id == SL_TYPE_TIMESTAMP ||
        t.id == SL_TYPE_TIMESTAMP_LTZ) {
        sl_expr *x = sl_expr_literal(SL_EXPR_TYPED, v, n, pos);
        x->type = sl_type_make(t.id);
        if (t.id == SL_TYPE_TIMESTAMP && n > 10) {
            /* as PostgreSQL's timestamp input: 'T' between date and time, and a
            ** zone after the time is ignored (drivers send one) */
            if (x->text[10] == 'T')
                x->text[10] = ' ';
            char *z = x->text + 11;
            while (*z && *z != '+' && *z != '-' && *z != 'Z' && *z != 'z')
                z++;
            *z = 0;
        }
        return x;
    }
    if (t.id == SL_TYPE_BINARY || t.id == SL_TYPE_VARBINARY) {
        /* hex digits, as inside X'...' (any bytes, NUL included) */
        bool ok = n % 2 == 0;
        for (size_t i = 0; ok && i < n; i++)
            ok = sl_hex_digit(v[i]) >= 0;
        if (!ok) {
            sl__bad_value(sb, e, SL_ERR_INVALID_TEXT, "invalid hexadecimal data");
            return NULL;
        }
        sl_expr *x = sl_expr_literal(SL_EXPR_XSTRING, v, n, pos);
        for (size_t i = 0; i < n; i++)
            x->text[i] = (char)(x->text[i] | 0x20); /* lower case, as the parser keeps it */
        return x;
    }
    if (sl_type_is_string(t.id)) {
        if (memchr(v, 0, n) || sl_utf8_invalid(v, n) >= 0) {
            sl__bad_value(sb, e, SL_ERR_CHARACTER_NOT_IN_REPERTOIRE,
                          "invalid byte sequence for encoding UTF8");
            return NULL;
        }
        return sl_expr_literal(SL_EXPR_STRING, v, n, pos);
    }
    char *tn = sl_type_to_string(t);
    sl_error_set(sb->err, SL_ERR_NOT_SUPPORTED, pos, "parameter $%lld of type %s is not supported",
                 (long long)e->ival, tn);
    sl_free(tn);
    return NULL;
}

/* Turn the $n node e into the literal of its value, in place. */
static void sl__subst_param(sl_expr *e, bool limit, void *ctx)
{
    sl__subst *sb = ctx;
    if (e->kind != SL_EXPR_PARAM || sl_error_isset(sb->err))
        return;
    if (e->ival < 1 || e->ival > sb->n) {
        sl_error_set(sb->err, SL_ERR_UNDEFINED_PARAM, e->pos, "there is no parameter $%lld",
                     (long long)e->ival);
        return;
    }
    const sl_param *p = &sb->params[e->ival - 1];
    sl_type t = sb->types[e->ival - 1];
    sl_expr *lit;
    if (!p->value) {
        if (limit) {
            sl_error_set(sb->err, SL_ERR_INVALID_PARAMETER, e->pos,
                         "parameter $%lld of LIMIT / OFFSET must not be NULL", (long long)e->ival);
            return;
        }
        lit = sl_expr_new(SL_EXPR_NULL, e->pos);
    } else {
        const char *v = p->value;
        size_t n = p->len;
        bool text = sl_type_is_string(t.id) || t.id == SL_TYPE_BINARY || t.id == SL_TYPE_VARBINARY;
        while (!text && n > 0 && (*v == ' ' || *v == '\t' || *v == '\n' || *v == '\r')) {
            v++;
            n--;
        }
        while (!text && n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\n' ||
                                  v[n - 1] == '\r'))
            n--;
        if (limit && (!sl__is_int_type(t.id) || !sl__numeric_text(v, n, true) || v[0] == '-')) {
            sl_error_set(sb->err, SL_ERR_INVALID_PARAMETER, e->pos,
                         "parameter $%lld of LIMIT / OFFSET must be a non-negative integer",
                         (long long)e->ival);
            return;
        }
        lit = sl__literal_of(sb, e, v, n, t);
        if (!lit)
            return;
        sl_error lerr = SL_ERROR_INIT; /* the binder's check of the literal itself */
        sl_bexpr *b = lit->kind == SL_EXPR_UNARY ? sl_bind_literal(lit->left, &lerr)
                                                 : sl_bind_literal(lit, &lerr);
        sl_bexpr_free(b);
        if (sl_error_isset(&lerr)) {
            sl__bad_value(sb, e, strcmp(lerr.sqlstate, SL_ERR_NUMERIC_RANGE) == 0
                                     ? SL_ERR_NUMERIC_RANGE
                                     : SL_ERR_INVALID_TEXT,
                          "invalid input syntax");
            sl_error_reset(&lerr);
            sl_expr_free(lit);
            return;
        }
        if (limit) { /* LIMIT / OFFSET take a number as written */
            e->kind = SL_EXPR_NUMBER;
            e->text = lit->text;
            lit->text = NULL;
            e->ival = 0;
            sl_expr_free(lit);
            return;
        }
    }
    e->kind = SL_EXPR_CAST;
    e->ival = 0; /* CAST, not TRY_CAST */
    e->type = t;
    e->type.not_null = false;
    e->left = lit;
}

/* A statement parsed for parameters and kept for its next run. */
typedef struct sl__parsed {
    char *sql;             /* its text */
    size_t len;
    int ndeclared;         /* the values' types it was typed with */
    sl_type *declared;     /* [ndeclared] */
    uint64_t cat_version;  /* the catalog's version when it was typed */
    sl_stmt *st;           /* the AST, $n nodes still in it (copied for each run) */
    int max;               /* highest $n */
    sl_type *types;        /* [max] their types: declared, else inferred */
} sl__parsed;

#define SL__PARSED_MAX 16 /* statements kept per session */

void sl__parsed_free_v(void *p)
{
    sl__parsed *e = p;
    sl_free(e->sql);
    sl_free(e->declared);
    sl_stmt_free(e->st);
    sl_free(e->types);
    sl_free(e);
}

/* The entry for sql with these values' types that still holds (moved to the
** front), or NULL. */
static sl__parsed *sl__parsed_find(sl_session *s, const char *sql, size_t len, int nparams,
                                   const sl_param *params)
{
    if (sl_list_len(s->tviews) > 0)
        return NULL;
    uint64_t version = sl_catalog_version(s->eng->cat) + s->tgen;
    for (int i = 0; i < sl_list_len(s->parsed); i++) {
        sl__parsed *e = sl_list_get(s->parsed, i);
        if (e->len != len || e->ndeclared != nparams || memcmp(e->sql, sql, len) != 0)
            continue;
        bool same = e->cat_version == version;
        for (int k = 0; same && k < nparams; k++)
            same = sl_type_equal(e->declared[k], params[k].type);
        if (!same)
            continue;
        memmove(&s->parsed->items[1], &s->parsed->items[0], (size_t)i * sizeof(void *));
        s->parsed->items[0] = e;
        return e;
    }
    return NULL;
}

/* Keep st (a copy) and its parameters' types for the next run, when the
** session has no temporary view; the least recently used entry goes. */
static void sl__parsed_keep(sl_session *s, const char *sql, size_t len, int nparams,
                            const sl_param *params, uint64_t version, const sl_stmt *st, int max,
                            const sl_type *types)
{
    if (sl_list_len(s->tviews) > 0)
        return;
    if (!s->parsed)
        s->parsed = sl_list_new();
    for (int i = 0; i < sl_list_len(s->parsed); i++) { /* a stale entry for the same text */
        sl__parsed *e = sl_list_get(s->parsed, i);
        if (e->len == len && e->ndeclared == nparams && memcmp(e->sql, sql, len) == 0) {
            sl__parsed_free_v(e);
            memmove(&s->parsed->items[i], &s->parsed->items[i + 1],
                    (size_t)(s->parsed->n - i - 1) * sizeof(void *));
            s->parsed->n--;
            break;
        }
    }
    if (s->parsed->n >= SL__PARSED_MAX)
        sl__parsed_free_v(s->parsed->items[--s->parsed->n]);
    sl__parsed *e = sl_calloc(1, sizeof *e);
    e->sql = sl_strndup(sql, len);
    e->len = len;
    e->ndeclared = nparams;
    e->declared = sl_calloc((size_t)nparams + 1, sizeof(sl_type));
    for (int k = 0; k < nparams; k++)
        e->declared[k] = params[k].type;
    e->cat_version = version;
    e->st = sl_stmt_dup(st);
    e->max = max;
    e->types = sl_calloc((size_t)max + 1, sizeof(sl_type));
    memcpy(e->types, types, sizeof(sl_type) * (size_t)max);
    sl_list_push(s->parsed, NULL);
    memmove(&s->parsed->items[1], &s->parsed->items[0],
            (size_t)(s->parsed->n - 1) * sizeof(void *));
    s->parsed->items[0] = e;
}

/* Parse sql, check its parameters against nparams values and replace them
** (the parse cache above spares parsing and typing a statement run
** before). NULL with err set. */
static sl_stmt *sl__parse_bound(sl_session *s, const char *sql, size_t len, int nparams,
                                const sl_param *params, sl_error *err)
{
    sl_stmt *st;
    sl_type *types;
    int max;
    const sl__parsed *hit = sl__parsed_find(s, sql, len, nparams, params);
    if (hit) {
        st = sl_stmt_dup(hit->st);
        max = hit->max;
        types = sl_calloc((size_t)max + 1, sizeof(sl_type));
        memcpy(types, hit->types, sizeof(sl_type) * (size_t)max);
    } else {
        /* the version before typing: a change while it types is seen next time */
        uint64_t version = sl_catalog_version(s->eng->cat) + s->tgen;
        st = sl_parse_one(sql, len, err);
        if (!st)
            return NULL;
        sl__param_scan ps = {0, nparams, -1, 0};
        sl__walk_stmt(st, sl__scan_param, &ps);
        if (ps.over_pos >= 0) {
            sl_error_set(err, SL_ERR_UNDEFINED_PARAM, ps.over_pos, "there is no parameter $%lld",
                         (long long)ps.over);
            sl_stmt_free(st);
            return NULL;
        }
        if (ps.max == 0)
            return st;
        max = (int)ps.max;
        types = sl_calloc((size_t)max, sizeof(sl_type));
        for (int i = 0; i < max; i++)
            types[i] = params[i].type;
        sl__infer_types(s, st, max, types);
        if (st->kind == SL_STMT_QUERY || st->kind == SL_STMT_INSERT)
            sl__parsed_keep(s, sql, len, nparams, params, version, st, max, types);
    }
    sl__subst sb = {max, params, types, err};
    sl__walk_stmt(st, sl__subst_param, &sb);
    sl_free(types);
    if (sl_error_isset(err)) {
        sl_stmt_free(st);
        return NULL;
    }
    return st;
}

int sl_session_exec_params(sl_session *s, const char *sql, size_t len, int nparams,
                           const sl_param *params, const sl_result_sink *out, sl_error *err)
{
    if (nparams == 0)
        return sl_session_exec(s, sql, len, out, err);
    sl_stmt *st = sl__parse_bound(s, sql, len, nparams, params, err);
    if (!st)
        return -1;
    int rc = sl__exec_stmt(s, st, out, err);
    sl_stmt_free(st);
    return rc;
}

/* A result's columns, copied (a sink's begin() arguments do not outlive it). */
static void sl__columns_copy(int ncols, const char *const *names, const sl_type *types,
                             int *out_n, char ***out_names, sl_type **out_types)
{
    *out_n = ncols;
    *out_names = sl_calloc((size_t)ncols + 1, sizeof(char *));
    *out_types = sl_calloc((size_t)ncols + 1, sizeof(sl_type));
    for (int i = 0; i < ncols; i++) {
        (*out_names)[i] = sl_strdup(names[i]);
        (*out_types)[i] = types[i];
    }
}

/* ------------------------------------------------------------------------
** Describe
*/

/* A sink that keeps the columns of begin and nothing else. */
typedef struct sl__capture {
    int ncols;      /* columns, once begin was called */
    char **names;   /* [ncols], owned */
    sl_type *types; /* [ncols], owned */
} sl__capture;

static int sl__capture_begin(void *ctx, int ncols, const char *const *names, const sl_type *types)
{
    sl__capture *c = ctx;
    if (c->names)
        return 0;
    sl__columns_copy(ncols, names, types, &c->ncols, &c->names, &c->types);
    return 0;
}

static sl_cursor *sl__cursor_find(sl_session *s, const char *name, int *index);

/* The columns a query's run begins with: its plan's, after Flink's op
** column when the result carries its row kind (as sl__run_stmt decides). */
static int sl__query_columns(sl_session *s, const sl_stmt *st, sl_bind_params *bp,
                             sl__capture *c, sl_error *err)
{
    sl_list *plans = sl_list_new();
    bool batch = false;
    int rc = sl__bind_with(s, st, bp, plans, err);
    if (rc == 0)
        rc = sl__batch_mode(s, plans, &batch, err);
    if (rc == 0) {
        const sl_lp *top = plans->items[0];
        sl__result_mode mode = sl__result_mode_of(s);
        bool updating = top->changelog != SL_CL_INSERT;
        /* the bounded path (bounded.c) sends its rows without a row kind */
        bool kind = !sl_lp_reads_sysrel(top) &&
                    (mode == SL__RESULT_CHANGELOG ||
                     (mode == SL__RESULT_TABLEAU && updating && !batch));
        int k = kind ? 1 : 0;
        c->ncols = top->ncols + k;
        c->names = sl_calloc((size_t)c->ncols + 1, sizeof(char *));
        c->types = sl_calloc((size_t)c->ncols + 1, sizeof(sl_type));
        if (kind) {
            c->names[0] = sl_strdup("op");
            c->types[0] = sl_type_make_p(SL_TYPE_CHAR, 2, 0);
        }
        for (int i = 0; i < top->ncols; i++) {
            c->names[k + i] = sl_strdup(top->cols[i].name);
            c->types[k + i] = top->cols[i].type;
        }
    }
    sl_list_free(plans, sl__lp_free_v);
    return rc;
}

int sl_session_describe(sl_session *s, const char *sql, size_t len, int ndeclared,
                        const sl_type *declared, sl_stmt_desc *out, sl_error *err)
{
    memset(out, 0, sizeof *out);
    sl_stmt *st = sl_parse_one(sql, len, err);
    if (!st)
        return -1;
    /* current_database() and the other session functions, as the run will
    ** replace them (without set_config's effect) */
    bool fns = st->kind == SL_STMT_QUERY || st->kind == SL_STMT_INSERT ||
               st->kind == SL_STMT_STATEMENT_SET;
    if (fns && sl__session_functions_typed(s, st, err) != 0) {
        sl_stmt_free(st);
        return -1;
    }
    sl__param_scan ps = {0, INT64_MAX, -1, 0};
    sl__walk_stmt(st, sl__scan_param, &ps);
    int n = ps.max > ndeclared ? (int)ps.max : ndeclared;
    out->nparams = n;
    out->param_types = sl_calloc((size_t)n + 1, sizeof(sl_type));
    for (int i = 0; i < ndeclared; i++)
        out->param_types[i] = declared[i];
    sl__infer_types(s, st, n, out->param_types);
    sl_bind_params bp = {n, out->param_types};
    sl__capture c = {0, NULL, NULL};
    int rc = 0;
    switch (st->kind) {
    case SL_STMT_QUERY:
        rc = sl__query_columns(s, st, &bp, &c, err);
        break;
    case SL_STMT_INSERT:
    case SL_STMT_STATEMENT_SET:
    case SL_STMT_CREATE_VIEW:
        rc = sl__bind_with(s, st, &bp, NULL, err);
        break;
    case SL_STMT_SHOW:
    case SL_STMT_DESCRIBE:
    case SL_STMT_EXPLAIN: {
        /* side-effect free: run them (parameters as NULLs of their types),
        ** keeping their columns */
        sl_param *nulls = sl_calloc((size_t)n + 1, sizeof(sl_param));
        for (int i = 0; i < n; i++)
            nulls[i].type = out->param_types[i];
        sl__subst sb = {n, nulls, out->param_types, err};
        sl__walk_stmt(st, sl__subst_param, &sb);
        sl_free(nulls);
        sl_result_sink cap = {&c, sl__capture_begin, NULL, NULL, NULL, NULL};
        if (!sl_error_isset(err))
            rc = sl__exec_stmt(s, st, &cap, err);
        else
            rc = -1;
        break;
    }
    case SL_STMT_SET:
        if (!st->name) { /* SET alone lists the settings */
            sl_result_sink cap = {&c, sl__capture_begin, NULL, NULL, NULL, NULL};
            rc = sl__exec_stmt(s, st, &cap, err);
        }
        break;
    case SL_STMT_RECONCILE: { /* its fixed columns; it runs at Execute */
        sl_type t[4];
        for (int i = 0; i < 4; i++)
            t[i] = sl_type_make_p(sl_reconcile_types[i],
                                  sl_reconcile_types[i] == SL_TYPE_VARCHAR ? SL_MAX_LENGTH : 0, 0);
        sl__capture_begin(&c, 4, sl_reconcile_names, t);
        break;
    }
    case SL_STMT_FETCH: {
        int ix;
        sl_cursor *cur = sl__cursor_find(s, st->name, &ix);
        int nc = 0;
        const char *const *names = NULL;
        const sl_type *types = NULL;
        if (!cur)
            rc = sl_error_set(err, SL_ERR_INVALID_CURSOR_NAME, st->name_pos,
                              "cursor \"%s\" does not exist", st->name);
        else if (sl_cursor_columns(cur, &nc, &names, &types) == 0)
            sl__capture_begin(&c, nc, names, types);
        break;
    }
    default: /* DDL, RESET, STOP JOB, DECLARE, MOVE, CLOSE: no rows */
        break;
    }
    sl_stmt_free(st);
    if (rc != 0) {
        for (int i = 0; i < c.ncols; i++)
            sl_free(c.names[i]);
        sl_free(c.names);
        sl_free(c.types);
        sl_stmt_desc_free(out);
        return -1;
    }
    out->ncols = c.ncols;
    out->names = c.names;
    out->types = c.types;
    return 0;
}

void sl_stmt_desc_free(sl_stmt_desc *d)
{
    for (int i = 0; i < d->ncols; i++)
        sl_free(d->names[i]);
    sl_free(d->names);
    sl_free(d->types);
    sl_free(d->param_types);
    memset(d, 0, sizeof *d);
}

/* ------------------------------------------------------------------------
** Cursors
*/

/* One queued item: a row, or a notice of the query. */
typedef struct sl__qitem {
    struct sl__qitem *next; /* the next in the queue */
    sl_error *notice;     /* a notice, or NULL for a row */
    const char **values;  /* [ncols] into data; NULL = SQL NULL */
    size_t *lens;         /* [ncols] */
    size_t bytes;         /* what it holds */
} sl__qitem;

struct sl_cursor {
    sl_session *owner;           /* the session that opened it (its interrupt) */
    sl_session *fork;            /* the query's session: settings as at the open */
    sl_stmt *st;                 /* the query (parameters replaced) */
    char *name;                  /* DECLARE'd name, or NULL */
    pthread_t thread;            /* the producer */
    bool started;                /* thread runs (joined by close) */
    volatile sig_atomic_t stop;  /* the fork's interrupt: the query's should_stop */
    pthread_mutex_t mu;          /* guards the [mu] fields */
    pthread_cond_t cv;           /* [mu] state changed: rows, room, planned, ended, closing */
    bool planned;                /* [mu] columns known (or the query ended) */
    bool ended;                  /* [mu] the query returned */
    bool closing;                /* [mu] close asked: a waiting producer cancels */
    int rc;                      /* [mu] the query's result once ended */
    sl_error err;                /* [mu] its error */
    int ncols;                   /* [mu] columns, once planned */
    char **names;                /* [mu] */
    sl_type *types;              /* [mu] */
    sl__qitem *head;             /* [mu] the queue: oldest first */
    sl__qitem *tail;             /* [mu] its newest */
    int64_t queued_rows;         /* [mu] rows in it */
    size_t queued_bytes;         /* [mu] bytes in it */
    int64_t delivered;           /* rows given to the reader so far */
};

static int sl__cq_begin(void *ctx, int ncols, const char *const *names, const sl_type *types)
{
    sl_cursor *c = ctx;
    pthread_mutex_lock(&c->mu);
    if (!c->planned) {
        sl__columns_copy(ncols, names, types, &c->ncols, &c->names, &c->types);
        c->planned = true;
        pthread_cond_broadcast(&c->cv);
    }
    pthread_mutex_unlock(&c->mu);
    return 0;
}

static void sl__cq_push(sl_cursor *c, sl__qitem *it)
{
    if (c->tail)
        c->tail->next = it;
    else
        c->head = it;
    c->tail = it;
    if (!it->notice) {
        c->queued_rows++;
        c->queued_bytes += it->bytes;
    }
    pthread_cond_broadcast(&c->cv);
}

static int sl__cq_row(void *ctx, const char *const *values, const size_t *lens)
{
    sl_cursor *c = ctx;
    int n = c->ncols;
    size_t bytes = 0;
    for (int i = 0; i < n; i++)
        bytes += values[i] ? lens[i] + 1 : 0;
    /* one block: the item, values, lens, then the bytes */
    size_t head = sizeof(sl__qitem) + (size_t)n * (sizeof(char *) + sizeof(size_t));
    sl__qitem *it = sl_calloc(1, head + bytes + 1);
    it->values = (const char **)(it + 1);
    it->lens = (size_t *)(it->values + n);
    it->bytes = head + bytes;
    char *data = (char *)(it->lens + n);
    for (int i = 0; i < n; i++) {
        it->lens[i] = values[i] ? lens[i] : 0;
        if (!values[i])
            continue;
        memcpy(data, values[i], lens[i]);
        data[lens[i]] = 0;
        it->values[i] = data;
        data += lens[i] + 1;
    }
    pthread_mutex_lock(&c->mu);
    while (!c->closing && (c->queued_rows >= SL__CURSOR_MAX_ROWS ||
                           c->queued_bytes >= SL__CURSOR_MAX_BYTES))
        pthread_cond_wait(&c->cv, &c->mu);
    bool closing = c->closing;
    if (!closing)
        sl__cq_push(c, it);
    pthread_mutex_unlock(&c->mu);
    if (closing)
        sl_free(it);
    return closing ? 1 : 0;
}

static void sl__cq_notice(void *ctx, const sl_error *notice)
{
    sl_cursor *c = ctx;
    sl__qitem *it = sl_calloc(1, sizeof *it);
    it->notice = sl_calloc(1, sizeof(sl_error));
    sl_error_copy(it->notice, notice);
    pthread_mutex_lock(&c->mu);
    sl__cq_push(c, it);
    pthread_mutex_unlock(&c->mu);
}

static void sl__qitem_free(sl__qitem *it)
{
    if (it->notice) {
        sl_error_reset(it->notice);
        sl_free(it->notice);
    }
    sl_free(it);
}

static void *sl__cursor_main(void *arg)
{
    sl_cursor *c = arg;
    sl_result_sink sink = {c, sl__cq_begin, sl__cq_row, sl__cq_notice, NULL, NULL};
    sl_error err = SL_ERROR_INIT;
    int rc = sl__exec_stmt(c->fork, c->st, &sink, &err);
    pthread_mutex_lock(&c->mu);
    c->rc = rc;
    if (rc != 0)
        sl_error_move(&c->err, &err);
    c->ended = true;
    c->planned = true;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    sl_error_reset(&err);
    return NULL;
}

/* Open a cursor over st (taken): checked and planned here, so that errors
** come with the open; run on its thread. */
static int sl__cursor_open_stmt(sl_session *s, sl_stmt *st, sl_cursor **out, sl_error *err)
{
    *out = NULL;
    if (st->kind != SL_STMT_QUERY) {
        sl_error_set(err, SL_ERR_INVALID_CURSOR_DEF, st->pos, "only a query can open a cursor");
        sl_stmt_free(st);
        return -1;
    }
    sl_list *plans = sl_list_new();
    int rc = sl__plan(s, st, plans, err);
    bool batch = false;
    if (rc == 0)
        rc = sl__batch_mode(s, plans, &batch, err);
    sl_list_free(plans, sl__lp_free_v);
    if (rc != 0) {
        sl__scrub_secrets(sl__cat(s), st, err);
        sl_stmt_free(st);
        return -1;
    }
    sl_cursor *c = sl_calloc(1, sizeof *c);
    c->owner = s;
    c->fork = sl__session_fork(s);
    c->fork->interrupt = &c->stop;
    c->st = st;
    c->err = (sl_error)SL_ERROR_INIT;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    if (pthread_create(&c->thread, NULL, sl__cursor_main, c) != 0) {
        sl_error_set(err, SL_ERR_PROGRAM_LIMIT, -1, "cannot start the query's thread");
        sl_cursor_close(c);
        return -1;
    }
    c->started = true;
    /* The query plans against the engine's catalog: wait until it has (and
    ** holds its snapshot), so that it reads the catalog while the session
    ** does nothing else, as a statement of its own would. */
    pthread_mutex_lock(&c->mu);
    while (!c->planned)
        pthread_cond_wait(&c->cv, &c->mu);
    bool failed = c->ended && c->rc != 0 && !c->names; /* before its first row */
    if (failed)
        sl_error_copy(err, &c->err);
    pthread_mutex_unlock(&c->mu);
    if (failed) {
        sl_cursor_close(c);
        return -1;
    }
    *out = c;
    return 0;
}

int sl_session_open_cursor(sl_session *s, const char *sql, size_t len, int nparams,
                           const sl_param *params, sl_cursor **out, sl_error *err)
{
    *out = NULL;
    sl_stmt *st = sl__parse_bound(s, sql, len, nparams, params, err);
    if (!st)
        return -1;
    return sl__cursor_open_stmt(s, st, out, err);
}

int sl_cursor_columns(sl_cursor *c, int *ncols, const char *const **names, const sl_type **types)
{
    pthread_mutex_lock(&c->mu);
    while (!c->planned)
        pthread_cond_wait(&c->cv, &c->mu);
    bool ok = c->names != NULL;
    *ncols = ok ? c->ncols : 0;
    *names = ok ? (const char *const *)c->names : NULL;
    *types = ok ? c->types : NULL;
    pthread_mutex_unlock(&c->mu);
    return ok ? 0 : -1;
}

static void sl__abs_deadline(struct timespec *ts, int ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_nsec += (long)ms * 1000000L;
    ts->tv_sec += ts->tv_nsec / 1000000000L;
    ts->tv_nsec %= 1000000000L;
}

int sl_cursor_fetch(sl_cursor *c, int64_t max, const sl_result_sink *out, sl_error *err)
{
    int64_t n = 0;
    int rc;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        if (max > 0 && n >= max) {
            rc = 1;
            break;
        }
        if (c->head) {
            sl__qitem *it = c->head;
            c->head = it->next;
            if (!c->head)
                c->tail = NULL;
            if (!it->notice) {
                c->queued_rows--;
                c->queued_bytes -= it->bytes;
            }
            pthread_cond_broadcast(&c->cv); /* room for the producer */
            pthread_mutex_unlock(&c->mu);
            int stop = 0;
            if (it->notice) {
                if (out && out->notice)
                    out->notice(out->ctx, it->notice);
            } else {
                n++;
                c->delivered++;
                if (out && out->row)
                    stop = out->row(out->ctx, it->values, it->lens);
            }
            sl__qitem_free(it);
            pthread_mutex_lock(&c->mu);
            if (stop) {
                rc = sl_error_set(err, SL_ERR_QUERY_CANCELED, -1,
                                  "canceling statement due to user request");
                break;
            }
            continue;
        }
        if (c->ended) {
            if (c->rc != 0) {
                sl_error_copy(err, &c->err);
                rc = -1;
            } else {
                rc = 0;
            }
            break;
        }
        volatile sig_atomic_t *intr = c->owner ? c->owner->interrupt : NULL;
        if (intr && *intr) {
            rc = sl_error_set(err, SL_ERR_QUERY_CANCELED, -1,
                              "canceling statement due to user request");
            break;
        }
        struct timespec ts;
        sl__abs_deadline(&ts, SL__CURSOR_POLL_MS);
        pthread_cond_timedwait(&c->cv, &c->mu, &ts);
    }
    int64_t total = c->delivered;
    pthread_mutex_unlock(&c->mu);
    if (rc == 0) {
        char tag[64];
        snprintf(tag, sizeof tag, "SELECT %lld", (long long)total);
        sl__result_complete(out, tag);
    }
    return rc;
}

void sl_cursor_close(sl_cursor *c)
{
    if (!c)
        return;
    if (c->started) {
        pthread_mutex_lock(&c->mu);
        c->closing = true;
        c->stop = 1;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
        pthread_join(c->thread, NULL);
    }
    while (c->head) {
        sl__qitem *it = c->head;
        c->head = it->next;
        sl__qitem_free(it);
    }
    for (int i = 0; c->names && i < c->ncols; i++)
        sl_free(c->names[i]);
    sl_free(c->names);
    sl_free(c->types);
    sl_error_reset(&c->err);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    sl_session_free(c->fork);
    sl_stmt_free(c->st);
    sl_free(c->name);
    sl_free(c);
}

void sl__cursor_queued(sl_cursor *c, int64_t *rows, size_t *bytes)
{
    pthread_mutex_lock(&c->mu);
    *rows = c->queued_rows;
    *bytes = c->queued_bytes;
    pthread_mutex_unlock(&c->mu);
}

void sl__cursor_free_v(void *p)
{
    sl_cursor_close(p);
}

/* ------------------------------------------------------------------------
** DECLARE / FETCH / MOVE / CLOSE
*/

static sl_cursor *sl__cursor_find(sl_session *s, const char *name, int *index)
{
    for (int i = 0; name && i < sl_list_len(s->cursors); i++) {
        sl_cursor *c = sl_list_get(s->cursors, i);
        if (strcmp(c->name, name) == 0) {
            *index = i;
            return c;
        }
    }
    return NULL;
}

sl_cursor *sl_session_cursor(sl_session *s, const char *name)
{
    int ix;
    return sl__cursor_find(s, name, &ix);
}

/* FETCH's rows go on to out; MOVE's are counted only. */
typedef struct sl__fetch_out {
    const sl_result_sink *out; /* the statement's output */
    bool move;                 /* MOVE: skip */
    int64_t rows;              /* rows passed */
} sl__fetch_out;

static int sl__fo_row(void *ctx, const char *const *values, const size_t *lens)
{
    sl__fetch_out *fo = ctx;
    fo->rows++;
    if (fo->move || !fo->out || !fo->out->row)
        return 0;
    return fo->out->row(fo->out->ctx, values, lens);
}

static void sl__fo_notice(void *ctx, const sl_error *n)
{
    sl__fetch_out *fo = ctx;
    if (fo->out && fo->out->notice)
        fo->out->notice(fo->out->ctx, n);
}

static int sl__fetch_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out,
                          sl_error *err)
{
    int ix;
    sl_cursor *c = sl__cursor_find(s, st->name, &ix);
    if (!c)
        return sl_error_set(err, SL_ERR_INVALID_CURSOR_NAME, st->name_pos,
                            "cursor \"%s\" does not exist", st->name);
    bool move = st->kind == SL_STMT_MOVE;
    int ncols = 0;
    const char *const *names = NULL;
    const sl_type *types = NULL;
    sl_cursor_columns(c, &ncols, &names, &types);
    if (!move && names && out && out->begin && out->begin(out->ctx, ncols, names, types) != 0)
        return 0;
    sl__fetch_out fo = {out, move, 0};
    sl_result_sink sink = {&fo, NULL, sl__fo_row, sl__fo_notice, NULL, NULL};
    if (st->count != 0 && sl_cursor_fetch(c, st->count < 0 ? 0 : st->count, &sink, err) < 0)
        return -1;
    char tag[64];
    snprintf(tag, sizeof tag, "%s %lld", move ? "MOVE" : "FETCH", (long long)fo.rows);
    sl__result_complete(out, tag);
    return 0;
}

int sl__cursor_stmt(sl_session *s, const sl_stmt *st, const sl_result_sink *out, sl_error *err)
{
    int ix;
    switch (st->kind) {
    case SL_STMT_DECLARE_CURSOR: {
        if (st->binary)
            return sl_error_set(err, SL_ERR_NOT_SUPPORTED, st->pos,
                                "binary cursors are not supported");
        if (sl__cursor_find(s, st->name, &ix))
            return sl_error_set(err, SL_ERR_DUPLICATE_CURSOR, st->name_pos,
                                "cursor \"%s\" already exists", st->name);
        sl_stmt *q = sl_stmt_dup(st);
        q->kind = SL_STMT_QUERY;
        sl_free(q->name);
        q->name = NULL;
        sl_cursor *c;
        if (sl__cursor_open_stmt(s, q, &c, err) != 0)
            return -1;
        c->name = sl_strdup(st->name);
        if (!s->cursors)
            s->cursors = sl_list_new();
        sl_list_push(s->cursors, c);
        sl__result_complete(out, "DECLARE CURSOR");
        return 0;
    }
    case SL_STMT_FETCH:
    case SL_STMT_MOVE:
        return sl__fetch_stmt(s, st, out, err);
    case SL_STMT_CLOSE_CURSOR:
        if (!st->name) {
            sl_list_free(s->cursors, sl__cursor_free_v);
            s->cursors = NULL;
        } else if (sl__cursor_find(s, st->name, &ix)) {
            sl_cursor_close(s->cursors->items[ix]);
            memmove(&s->cursors->items[ix], &s->cursors->items[ix + 1],
                    (size_t)(s->cursors->n - ix - 1) * sizeof(void *));
            s->cursors->n--;
        } else {
            return sl_error_set(err, SL_ERR_INVALID_CURSOR_NAME, st->name_pos,
                                "cursor \"%s\" does not exist", st->name);
        }
        sl__result_complete(out, "CLOSE CURSOR");
        return 0;
    default:
        return sl_error_set(err, SL_ERR_INTERNAL, st->pos, "not a cursor statement");
    }
}
