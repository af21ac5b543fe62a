/*
** extended.c — the extended query protocol: prepared statements and
** portals, as PostgreSQL's "Extended Query" message flow specifies.
**
**   Parse    P name query n oid*n   keep the statement (one statement; its
**                                   declared parameter types) -> ParseComplete
**   Bind     B portal stmt nf fmt*nf np (len val)*np nr fmt*nr
**                                   a portal: the statement's text, its
**                                   parameters in the engine's text form
**                                   (types.c decodes text and binary),
**                                   the result format codes -> BindComplete
**   Describe D 'S' name             ParameterDescription + RowDescription
**                                   (text formats) or NoData
**            D 'P' name             RowDescription with the portal's result
**                                   formats, or NoData; a cursor of DECLARE
**                                   is a portal too (its columns in text)
**   Execute  E portal maxrows       rows, then CommandComplete; with
**                                   maxrows > 0 a cursor opens and stays in
**                                   the portal: PortalSuspended while rows
**                                   remain, CommandComplete at the end
**   Close    C 'S'|'P' name         -> CloseComplete (also for no such name)
**   Sync     S                      end of the implicit transaction: skip
**                                   mode ends, portals close outside a
**                                   BEGIN block -> ReadyForQuery
**   Flush    H                      write the output now (the loop holds
**                                   it while more messages are buffered)
**
** The states of one connection:
**
**   state        entered by                    left by
**   normal       Sync, the connection's start  an error in any message above
**   skipping     an ErrorResponse to P/B/D/E/C Sync (every message before it
**                                              is read and dropped, as in
**                                              PostgreSQL)
**
**   portal       created by Bind               ends at
**   bound        Bind (replaces the unnamed)   Close P, Close S of its
**                                              statement, the end of the
**                                              transaction, the connection's end
**   suspended    Execute with a row limit      the same; its cursor (a query
**                that left rows                running ahead on the engine's
**                                              thread) closes with it
**   done         CommandComplete or an error   the same; Execute again
**                                              answers "SELECT 0" for a query
**
** Without a row limit a portal runs in the connection's thread through
** sl_session_exec_params, its rows straight to the wire as simple query's
** do (flushed every 64 KiB / 100 ms); a CancelRequest stops it (57014).
** A row limit on a statement that is not a query (42P11 from the cursor)
** runs it whole, as PostgreSQL ignores the limit there.
**
** Main routines: sl_ext_message, sl_ext_end_of_transaction, sl_ext_free.
*/
#include "server_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A prepared statement. */
typedef struct sl__stmt {
    char *name;          /* "" for the unnamed statement */
    uint64_t id;         /* Close S finds its portals by it */
    char *sql;           /* the statement's text (NUL-terminated copy) */
    size_t len;
    bool empty;          /* nothing but whitespace and comments */
    int ntypes;          /* parameter types Parse declared */
    int32_t *oids;       /* [ntypes] their OIDs (0: unspecified) */
    bool described;      /* desc holds sl_session_describe's answer */
    sl_stmt_desc desc;
} sl__stmt;

/* A portal. */
typedef struct sl__portal {
    char *name;          /* "" for the unnamed portal */
    uint64_t stmt_id;    /* the statement it was bound from */
    char *sql;           /* its own copy: the statement may be replaced */
    size_t len;
    bool empty;
    int nparams;
    sl_param *params;    /* [nparams] values point into vals */
    char *vals;          /* the parameters' engine text, one after another */
    int nformats;        /* result format codes */
    int16_t *formats;
    sl_cursor *cursor;   /* opened by an Execute with a row limit */
    int ncols;           /* the cursor's columns, or those Describe P announced (-1: none) */
    sl_type *types;
    bool returns_rows;   /* a query: Execute after the end answers "SELECT 0" */
    bool done;           /* ran to its end, or failed */
} sl__portal;

struct sl_ext {
    sl_list *stmts;      /* sl__stmt* */
    sl_list *portals;    /* sl__portal* */
    bool skipping;       /* an error: drop messages until Sync */
    uint64_t next_id;
};

static struct sl_ext *sl__ext(sl_conn *c)
{
    if (!c->ext) {
        c->ext = sl_calloc(1, sizeof *c->ext);
        c->ext->stmts = sl_list_new();
        c->ext->portals = sl_list_new();
    }
    return c->ext;
}

static void sl__stmt_free(sl__stmt *s)
{
    if (s->described)
        sl_stmt_desc_free(&s->desc);
    sl_free(s->name);
    sl_free(s->sql);
    sl_free(s->oids);
    sl_free(s);
}

static void sl__portal_free(sl__portal *p)
{
    if (p->cursor)
        sl_cursor_close(p->cursor);
    sl_free(p->name);
    sl_free(p->sql);
    sl_free(p->params);
    sl_free(p->vals);
    sl_free(p->formats);
    sl_free(p->types);
    sl_free(p);
}

static int sl__find(sl_list *l, const char *name, bool portal)
{
    for (int i = 0; i < sl_list_len(l); i++) {
        const char *n = portal ? ((sl__portal *)sl_list_get(l, i))->name
                               : ((sl__stmt *)sl_list_get(l, i))->name;
        if (strcmp(n, name) == 0)
            return i;
    }
    return -1;
}

/* Remove item i (order does not matter). */
static void sl__remove(sl_list *l, int i)
{
    l->items[i] = l->items[--l->n];
}

static void sl__portal_close(struct sl_ext *x, const char *name)
{
    int i = sl__find(x->portals, name, true);
    if (i >= 0) {
        sl__portal_free(sl_list_get(x->portals, i));
        sl__remove(x->portals, i);
    }
}

/* Close S (with_portals) or the unnamed statement replaced by the next
** Parse (its portals hold their own copy and go on, as in PostgreSQL). */
static void sl__stmt_close(struct sl_ext *x, const char *name, bool with_portals)
{
    int i = sl__find(x->stmts, name, false);
    if (i < 0)
        return;
    sl__stmt *s = sl_list_get(x->stmts, i);
    /* "Closing a prepared statement implicitly closes any open portals
    ** that were constructed from that statement." */
    for (int j = sl_list_len(x->portals) - 1; j >= 0 && with_portals; j--) {
        sl__portal *p = sl_list_get(x->portals, j);
        if (p->stmt_id == s->id) {
            sl__portal_free(p);
            sl__remove(x->portals, j);
        }
    }
    sl__stmt_free(s);
    sl__remove(x->stmts, i);
}

void sl_ext_end_of_transaction(sl_conn *c)
{
    if (!c->ext || !c->session || sl_session_txn_status(c->session) != 'I')
        return;
    for (int i = 0; i < sl_list_len(c->ext->portals); i++)
        sl__portal_free(sl_list_get(c->ext->portals, i));
    c->ext->portals->n = 0;
}

void sl_ext_free(sl_conn *c)
{
    struct sl_ext *x = c->ext;
    if (x) {
        for (int i = 0; i < sl_list_len(x->portals); i++)
            sl__portal_free(sl_list_get(x->portals, i));
        for (int i = 0; i < sl_list_len(x->stmts); i++)
            sl__stmt_free(sl_list_get(x->stmts, i));
        sl_list_free(x->portals, NULL);
        sl_list_free(x->stmts, NULL);
        sl_free(x);
        c->ext = NULL;
    }
    sl_pgzone_free(&c->zone);
}

/* ------------------------------------------------------------------------
** Errors
*/

/* Queue err (a position in sql[0..len), the statement's whole text; sql
** may be NULL) and skip until Sync. */
static void sl__fail(sl_conn *c, sl_error *err, const char *sql, size_t len)
{
    sl_conn_error(c, err, sql, len, 0, false);
    sl_error_reset(err);
    c->ext->skipping = true;
}

static void sl__failf(sl_conn *c, const char *sqlstate, const char *fmt, ...) SL_PRINTF(3, 4);
static void sl__failf(sl_conn *c, const char *sqlstate, const char *fmt, ...)
{
    sl_error err = SL_ERROR_INIT;
    va_list ap;
    va_start(ap, fmt);
    sl_error_setv(&err, sqlstate, -1, fmt, ap);
    va_end(ap);
    sl__fail(c, &err, NULL, 0);
}

/* A format code inside a message (network order). */
static int16_t sl__code(const char *p)
{
    return (int16_t)((unsigned char)p[0] << 8 | (unsigned char)p[1]);
}

static void sl__reply(sl_conn *c, char type)
{
    size_t start = sl_pgout_begin(&c->out, type);
    sl_pgout_end(&c->out, start);
}

/* The statement's description, asked of the engine once. */
static int sl__describe(sl_conn *c, sl__stmt *s, sl_error *err)
{
    if (s->described)
        return 0;
    sl_type *declared = sl_malloc(sizeof(sl_type) * (size_t)(s->ntypes > 0 ? s->ntypes : 1));
    for (int i = 0; i < s->ntypes; i++)
        declared[i] = sl_pgtype_from_oid(s->oids[i]);
    int rc = sl_session_describe(c->session, s->sql, s->len, s->ntypes, declared, &s->desc, err);
    sl_free(declared);
    if (rc == 0)
        s->described = true;
    return rc;
}

/* ------------------------------------------------------------------------
** Parse
*/

static void sl__parse(sl_conn *c, sl_pgmsg *m)
{
    struct sl_ext *x = c->ext;
    const char *name = sl_pgmsg_string(m);
    const char *sql = sl_pgmsg_string(m);
    int n = sl_pgmsg_int16(m);
    if (m->bad || n < 0) {
        sl__failf(c, "08P01", "invalid Parse message");
        return;
    }
    int32_t *oids = sl_malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        oids[i] = sl_pgmsg_int32(m);
    if (!sl_pgmsg_done(m)) {
        sl_free(oids);
        sl__failf(c, "08P01", "invalid Parse message");
        return;
    }
    if (*name && sl__find(x->stmts, name, false) >= 0) {
        sl_free(oids);
        sl__failf(c, "42P05", "prepared statement \"%s\" already exists", name);
        return;
    }
    size_t len = strlen(sql), first = 0, rest = 0;
    int r = sl_sql_split(sql, len, &first);
    if (r == 1 && first < len && sl_sql_split(sql + first, len - first, &rest) >= 0) {
        sl_free(oids);
        sl__failf(c, SL_ERR_SYNTAX, "cannot insert multiple commands into a prepared statement");
        return;
    }
    if (!*name)
        sl__stmt_close(x, "", false);
    sl__stmt *s = sl_calloc(1, sizeof *s);
    s->name = sl_strdup(name);
    s->id = ++x->next_id;
    s->sql = sl_strdup(sql);
    s->len = len;
    s->empty = r < 0;
    s->ntypes = n;
    s->oids = oids;
    sl_list_push(x->stmts, s);
    sl__reply(c, '1');
}

/* ------------------------------------------------------------------------
** Bind
*/

static void sl__bind(sl_conn *c, sl_pgmsg *m)
{
    struct sl_ext *x = c->ext;
    const char *pname = sl_pgmsg_string(m);
    const char *sname = sl_pgmsg_string(m);
    int nf = sl_pgmsg_int16(m);
    if (m->bad || nf < 0) {
        sl__failf(c, "08P01", "invalid Bind message");
        return;
    }
    const char *fmts = sl_pgmsg_bytes(m, 2 * (size_t)nf);
    int np = sl_pgmsg_int16(m);
    if (m->bad || np < 0) {
        sl__failf(c, "08P01", "invalid Bind message");
        return;
    }
    int si = sl__find(x->stmts, sname, false);
    if (si < 0) {
        if (*sname)
            sl__failf(c, "26000", "prepared statement \"%s\" does not exist", sname);
        else
            sl__failf(c, "26000", "unnamed prepared statement does not exist");
        return;
    }
    sl__stmt *s = sl_list_get(x->stmts, si);
    if (*pname && sl__find(x->portals, pname, true) >= 0) {
        sl__failf(c, "42P03", "cursor \"%s\" already exists", pname);
        return;
    }
    if (nf > 1 && nf != np) {
        sl__failf(c, "08P01", "bind message has %d parameter formats but %d parameters", nf, np);
        return;
    }
    int need = s->described && s->desc.nparams > s->ntypes ? s->desc.nparams : s->ntypes;
    if (np != need && (s->described || np < s->ntypes)) {
        sl__failf(c, "08P01",
                  "bind message supplies %d parameters, but prepared statement \"%s\" requires %d",
                  np, sname, need);
        return;
    }
    sl_pgzone_update(&c->zone, c->session); /* timestamptz parameters */
    /* Each parameter's type: declared, else (for a binary value, which
    ** cannot be read without one, and for bytea text, which is not the
    ** engine's: \x0aff or the escape format) the engine's inference. */
    sl_error err = SL_ERROR_INIT;
    sl_strbuf vals = SL_STRBUF_INIT;
    sl_param *params = sl_calloc((size_t)(np > 0 ? np : 1), sizeof *params);
    size_t *offs = sl_calloc((size_t)(np > 0 ? np : 1), sizeof *offs);
    int failed = 0;
    bool undescribable = false; /* describing failed: text values go as they are */
    for (int i = 0; i < np && !failed; i++) {
        int32_t len = sl_pgmsg_int32(m);
        const char *v = len > 0 ? sl_pgmsg_bytes(m, (size_t)len) : "";
        if (m->bad || len < -1) {
            failed = 1;
            break;
        }
        int fmt = nf == 0 ? 0 : sl__code(fmts + 2 * (nf == 1 ? 0 : i));
        if (fmt != 0 && fmt != 1) {
            sl_error_set(&err, SL_ERR_INVALID_PARAMETER, -1, "unsupported format code: %d", fmt);
            failed = 2;
            break;
        }
        int32_t oid = i < s->ntypes ? s->oids[i] : 0;
        if (oid == 0 && len >= 0 && (fmt == 1 || !undescribable)) {
            if (sl__describe(c, s, &err) != 0) { /* once per statement */
                if (fmt == 1) {
                    failed = 2;
                    break;
                }
                sl_error_reset(&err); /* text: Execute reports what is wrong */
                undescribable = true;
            }
            int32_t inferred = s->described && i < s->desc.nparams
                                   ? sl_pgtype_of(s->desc.param_types[i]).oid
                                   : 0;
            if (fmt == 1 || inferred == SL_OID_BYTEA)
                oid = inferred;
        }
        params[i].type = oid ? sl_pgtype_from_oid(oid) : sl_type_make(SL_TYPE_NULL);
        if (len < 0) {
            params[i].value = NULL;
            continue;
        }
        offs[i] = vals.len;
        if (sl_pgparam_decode(&vals, oid, fmt, v, (size_t)len, i + 1, &c->zone, &err) != 0) {
            failed = 2;
            break;
        }
        params[i].value = ""; /* not NULL: set below, once vals stops moving */
        params[i].len = vals.len - offs[i];
        if (oid == SL_OID_NUMERIC)
            params[i].type = sl_pgparam_type(oid, vals.buf ? vals.buf + offs[i] : "",
                                             params[i].len);
    }
    int nr = failed ? 0 : sl_pgmsg_int16(m);
    const char *rfmts = failed ? NULL : sl_pgmsg_bytes(m, 2 * (size_t)(nr > 0 ? nr : 0));
    if (!failed && (nr < 0 || !sl_pgmsg_done(m)))
        failed = 1;
    for (int i = 0; i < nr && !failed; i++) {
        int f = sl__code(rfmts + 2 * i);
        if (f != 0 && f != 1) {
            sl_error_set(&err, SL_ERR_INVALID_PARAMETER, -1, "unsupported format code: %d", f);
            failed = 2;
        }
    }
    if (failed) {
        sl_free(params);
        sl_free(offs);
        sl_strbuf_free(&vals);
        if (failed == 1)
            sl__failf(c, "08P01", "invalid Bind message");
        else
            sl__fail(c, &err, NULL, 0);
        return;
    }
    if (!*pname)
        sl__portal_close(x, "");
    sl__portal *p = sl_calloc(1, sizeof *p);
    p->name = sl_strdup(pname);
    p->stmt_id = s->id;
    p->sql = sl_strdup(s->sql);
    p->len = s->len;
    p->empty = s->empty;
    p->nparams = np;
    p->vals = sl_strbuf_detach(&vals);
    for (int i = 0; i < np; i++)
        if (params[i].value)
            params[i].value = p->vals + offs[i];
    p->params = params;
    sl_free(offs);
    p->ncols = -1;
    p->nformats = nr;
    p->formats = sl_malloc(sizeof(int16_t) * (size_t)(nr > 0 ? nr : 1));
    for (int i = 0; i < nr; i++)
        p->formats[i] = sl__code(rfmts + 2 * i);
    sl_list_push(x->portals, p);
    sl__reply(c, '2');
}

/* ------------------------------------------------------------------------
** Describe
*/

static void sl__param_description(sl_conn *c, const sl__stmt *s)
{
    size_t start = sl_pgout_begin(&c->out, 't');
    int n = s->described && s->desc.nparams > s->ntypes ? s->desc.nparams : s->ntypes;
    sl_pgout_int16(&c->out, (int16_t)n);
    for (int i = 0; i < n; i++) {
        int32_t oid = i < s->ntypes ? s->oids[i] : 0;
        if (oid == 0 && s->described && i < s->desc.nparams)
            oid = sl_pgtype_of(s->desc.param_types[i]).oid;
        sl_pgout_int32(&c->out, oid ? oid : SL_OID_TEXT);
    }
    sl_pgout_end(&c->out, start);
}

/* The result format codes must be none, one, or one per column. */
static int sl__check_formats(sl_conn *c, const sl__portal *p, int ncols)
{
    if (p->nformats > 1 && p->nformats != ncols) {
        sl__failf(c, "08P01", "bind message has %d result formats but query has %d columns",
                  p->nformats, ncols);
        return -1;
    }
    return 0;
}

/* Describe P announced these columns: Execute holds the rows to them. */
static void sl__announce(sl__portal *p, int ncols, const sl_type *types)
{
    sl_free(p->types);
    p->ncols = ncols;
    p->types = sl_malloc(sizeof(sl_type) * (size_t)(ncols > 0 ? ncols : 1));
    if (ncols > 0)
        memcpy(p->types, types, sizeof(sl_type) * (size_t)ncols);
}

static void sl__describe_msg(sl_conn *c, sl_pgmsg *m)
{
    struct sl_ext *x = c->ext;
    const char *kind = sl_pgmsg_bytes(m, 1);
    const char *name = sl_pgmsg_string(m);
    if (!sl_pgmsg_done(m) || (*kind != 'S' && *kind != 'P')) {
        sl__failf(c, "08P01", "invalid Describe message");
        return;
    }
    sl_error err = SL_ERROR_INIT;
    if (*kind == 'S') {
        int i = sl__find(x->stmts, name, false);
        if (i < 0) {
            sl__failf(c, "26000", "prepared statement \"%s\" does not exist", name);
            return;
        }
        sl__stmt *s = sl_list_get(x->stmts, i);
        if (!s->empty && sl__describe(c, s, &err) != 0) {
            sl__fail(c, &err, s->sql, s->len);
            return;
        }
        sl__param_description(c, s);
        if (s->empty || s->desc.ncols == 0)
            sl__reply(c, 'n');
        else
            sl_pg_row_description(c, s->desc.ncols, (const char *const *)s->desc.names,
                                  s->desc.types, 0, NULL);
        return;
    }
    int i = sl__find(x->portals, name, true);
    sl_cursor *declared_cursor = i < 0 ? sl_session_cursor(c->session, name) : NULL;
    if (declared_cursor) { /* DECLARE's cursor: a portal, its columns in text */
        int ncols;
        const char *const *names;
        const sl_type *types;
        if (sl_cursor_columns(declared_cursor, &ncols, &names, &types) == 0)
            sl_pg_row_description(c, ncols, names, types, 0, NULL);
        else
            sl__reply(c, 'n');
        return;
    }
    if (i < 0) {
        sl__failf(c, "34000", "portal \"%s\" does not exist", name);
        return;
    }
    sl__portal *p = sl_list_get(x->portals, i);
    if (p->empty) {
        sl__reply(c, 'n');
        return;
    }
    if (p->cursor) { /* its columns as the running query has them */
        int ncols;
        const char *const *names;
        const sl_type *types;
        if (sl_cursor_columns(p->cursor, &ncols, &names, &types) == 0) {
            if (sl__check_formats(c, p, ncols) == 0)
                sl_pg_row_description(c, ncols, names, types, p->nformats, p->formats);
            return;
        }
    }
    /* The statement it came from, while it lives, has the same columns (its
    ** description uses the same declared types): one planning per
    ** statement, not per Bind (libpq describes every portal it executes). */
    for (int k = 0; k < sl_list_len(x->stmts); k++) {
        sl__stmt *s = sl_list_get(x->stmts, k);
        if (s->id != p->stmt_id)
            continue;
        if (sl__describe(c, s, &err) != 0) {
            sl__fail(c, &err, s->sql, s->len);
            return;
        }
        if (s->desc.ncols == 0)
            sl__reply(c, 'n');
        else if (sl__check_formats(c, p, s->desc.ncols) == 0)
            sl_pg_row_description(c, s->desc.ncols, (const char *const *)s->desc.names,
                                  s->desc.types, p->nformats, p->formats);
        sl__announce(p, s->desc.ncols, s->desc.types);
        return;
    }
    sl_type *declared = sl_malloc(sizeof(sl_type) * (size_t)(p->nparams > 0 ? p->nparams : 1));
    for (int k = 0; k < p->nparams; k++)
        declared[k] = p->params[k].type;
    sl_stmt_desc d;
    int rc = sl_session_describe(c->session, p->sql, p->len, p->nparams, declared, &d, &err);
    sl_free(declared);
    if (rc != 0) {
        sl__fail(c, &err, p->sql, p->len);
        return;
    }
    if (d.ncols == 0)
        sl__reply(c, 'n');
    else if (sl__check_formats(c, p, d.ncols) == 0)
        sl_pg_row_description(c, d.ncols, (const char *const *)d.names, d.types, p->nformats,
                              p->formats);
    sl__announce(p, d.ncols, d.types);
    sl_stmt_desc_free(&d);
}

/* ------------------------------------------------------------------------
** Execute
*/

static void sl__execute(sl_conn *c, sl_pgmsg *m)
{
    struct sl_ext *x = c->ext;
    const char *name = sl_pgmsg_string(m);
    int32_t max = sl_pgmsg_int32(m);
    if (!sl_pgmsg_done(m)) {
        sl__failf(c, "08P01", "invalid Execute message");
        return;
    }
    int i = sl__find(x->portals, name, true);
    if (i < 0) {
        sl__failf(c, "34000", "portal \"%s\" does not exist", name);
        return;
    }
    sl__portal *p = sl_list_get(x->portals, i);
    if (p->empty) {
        sl__reply(c, 'I');
        return;
    }
    if (p->done) {
        if (!p->returns_rows) {
            sl__failf(c, "55000", "portal \"%s\" cannot be run", name);
            return;
        }
        size_t start = sl_pgout_begin(&c->out, 'C');
        sl_pgout_string(&c->out, "SELECT 0");
        sl_pgout_end(&c->out, start);
        return;
    }
    c->cancel = 0;
    sl_error err = SL_ERROR_INIT;
    if (max > 0 && !p->cursor) {
        int rc = sl_session_open_cursor(c->session, p->sql, p->len, p->nparams, p->params,
                                        &p->cursor, &err);
        if (rc != 0 && strcmp(err.sqlstate, "42P11") != 0) {
            p->cursor = NULL;
            p->done = true;
            sl__fail(c, &err, p->sql, p->len);
            return;
        }
        if (rc != 0) { /* not a query: the limit does not apply */
            sl_error_reset(&err);
            p->cursor = NULL;
        } else {
            int ncols;
            const char *const *names;
            const sl_type *types;
            if (sl_cursor_columns(p->cursor, &ncols, &names, &types) != 0) {
                sl_error_set(&err, SL_ERR_INTERNAL, -1, "the cursor has no columns");
                p->done = true;
                sl_cursor_close(p->cursor);
                p->cursor = NULL;
                sl__fail(c, &err, NULL, 0);
                return;
            }
            if (sl__check_formats(c, p, ncols) != 0) {
                p->done = true;
                sl_cursor_close(p->cursor);
                p->cursor = NULL;
                return;
            }
            bool same = p->ncols < 0 || p->ncols == ncols; /* what Describe P said */
            for (int k = 0; same && p->ncols >= 0 && k < ncols; k++)
                same = sl_pgtype_of(p->types[k]).oid == sl_pgtype_of(types[k]).oid;
            if (!same) {
                p->done = true;
                sl_cursor_close(p->cursor);
                p->cursor = NULL;
                sl__failf(c, SL_ERR_NOT_SUPPORTED, "cached plan must not change result type");
                return;
            }
            sl__announce(p, ncols, types);
            p->returns_rows = true;
        }
    }
    sl_rowout o;
    sl_rowout_init(&o, c, false, p->nformats, p->formats);
    if (!p->cursor && p->ncols >= 0) {
        o.expect_ncols = p->ncols;
        o.expect_types = p->types;
    }
    sl_result_sink sink = sl_rowout_sink(&o);
    int rc;
    if (p->cursor) {
        sl_rowout_columns(&o, p->ncols, p->types);
        rc = sl_cursor_fetch(p->cursor, max > 0 ? max : 0, &sink, &err);
        if (rc == 0)
            p->done = true;
    } else {
        rc = sl_session_exec_params(c->session, p->sql, p->len, p->nparams, p->params, &sink,
                                    &err);
        p->done = true;
        p->returns_rows = o.began;
        if (rc == 0 && o.began && p->nformats > 1 && p->nformats != o.ncols) {
            /* rows went out in the formats asked; PostgreSQL refuses first */
            sl_log(SL_LOG_WARN, "portal \"%s\": %d result formats for %d columns", name,
                   p->nformats, o.ncols);
        }
    }
    rc = sl_rowout_outcome(&o, rc, &err);
    if (rc < 0) {
        p->done = true;
        if (p->cursor) {
            sl_cursor_close(p->cursor);
            p->cursor = NULL;
        }
        sl__fail(c, &err, p->sql, p->len);
    }
    if (rc == 1)
        sl__reply(c, 's'); /* PortalSuspended: rows remain */
    if (p->done && p->cursor) {
        sl_cursor_close(p->cursor);
        p->cursor = NULL;
    }
    sl_rowout_free(&o);
}

/* ------------------------------------------------------------------------
** Close, Sync, dispatch
*/

static void sl__close(sl_conn *c, sl_pgmsg *m)
{
    const char *kind = sl_pgmsg_bytes(m, 1);
    const char *name = sl_pgmsg_string(m);
    if (!sl_pgmsg_done(m) || (*kind != 'S' && *kind != 'P')) {
        sl__failf(c, "08P01", "invalid Close message");
        return;
    }
    if (*kind == 'S')
        sl__stmt_close(c->ext, name, true);
    else
        sl__portal_close(c->ext, name);
    sl__reply(c, '3');
}

void sl_ext_message(sl_conn *c, sl_pgmsg *m)
{
    struct sl_ext *x = sl__ext(c);
    if (m->type == 'S') {
        x->skipping = false;
        sl_ext_end_of_transaction(c);
        sl_conn_ready(c);
        return;
    }
    if (x->skipping)
        return;
    switch (m->type) {
    case 'P': sl__parse(c, m); break;
    case 'B': sl__bind(c, m); break;
    case 'D': sl__describe_msg(c, m); break;
    case 'E': sl__execute(c, m); break;
    case 'C': sl__close(c, m); break;
    case 'H': sl_conn_flush(c); break; /* the loop holds output while messages are buffered */
    default: break;
    }
}
