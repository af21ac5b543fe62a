/*
** query.c — the simple query protocol: the statements of one Query message
** run in order through sl_session_exec; each statement's output maps onto
** the wire as the engine produces it:
**
**   begin     -> RowDescription (type OIDs from types.c)
**   row       -> DataRow (text format); the output is written whenever
**                64 KiB are queued or 100 ms passed, so an unbounded query
**                streams instead of buffering
**   notice    -> NoticeResponse
**   complete  -> CommandComplete (the engine's tag; "SELECT n" for queries)
**   error     -> ErrorResponse, and the message's remaining statements are
**                skipped (PostgreSQL's implicit transaction)
**
** Main routines: sl_query_simple.
*/
#include "server_int.h"

#include <stdio.h>
#include <string.h>

#define SL__FLUSH_BYTES (64u << 10)
#define SL__FLUSH_NANOS (100 * 1000000LL)

/* One statement's output on the wire. */
typedef struct sl__stmt_out {
    sl_conn *c;
    int ncols;
    sl_type *types;       /* the result's column types */
    int64_t rows;         /* DataRows sent */
    bool described;       /* RowDescription sent */
    int64_t last_flush;   /* sl_now_nanos of the last write */
    sl_strbuf val;        /* scratch: one value's wire text */
} sl__stmt_out;

static int sl__out_begin(void *ctx, int ncols, const char *const *names, const sl_type *types)
{
    sl__stmt_out *o = ctx;
    sl_conn *c = o->c;
    o->ncols = ncols;
    o->types = sl_malloc(sizeof(sl_type) * (size_t)(ncols > 0 ? ncols : 1));
    memcpy(o->types, types, sizeof(sl_type) * (size_t)ncols);
    size_t start = sl_pgout_begin(&c->out, 'T');
    sl_pgout_int16(&c->out, (int16_t)ncols);
    for (int i = 0; i < ncols; i++) {
        sl_pgtype t = sl_pgtype_of(types[i]);
        sl_pgout_string(&c->out, names[i]);
        sl_pgout_int32(&c->out, 0); /* table OID */
        sl_pgout_int16(&c->out, 0); /* column number */
        sl_pgout_int32(&c->out, t.oid);
        sl_pgout_int16(&c->out, t.size);
        sl_pgout_int32(&c->out, t.typmod);
        sl_pgout_int16(&c->out, 0); /* text format */
    }
    sl_pgout_end(&c->out, start);
    o->described = true;
    return 0;
}

static int sl__out_row(void *ctx, const char *const *values, const size_t *lens)
{
    sl__stmt_out *o = ctx;
    sl_conn *c = o->c;
    if (c->cancel || c->closed)
        return 1;
    size_t start = sl_pgout_begin(&c->out, 'D');
    sl_pgout_int16(&c->out, (int16_t)o->ncols);
    for (int i = 0; i < o->ncols; i++) {
        if (!values[i]) {
            sl_pgout_int32(&c->out, -1);
            continue;
        }
        sl_strbuf_reset(&o->val);
        sl_pgtext_append(&o->val, o->types[i], values[i], lens[i]);
        sl_pgout_int32(&c->out, (int32_t)o->val.len);
        sl_pgout_bytes(&c->out, o->val.buf, o->val.len);
    }
    sl_pgout_end(&c->out, start);
    o->rows++;
    int64_t now = sl_now_nanos();
    if (c->out.len >= SL__FLUSH_BYTES || now - o->last_flush >= SL__FLUSH_NANOS) {
        o->last_flush = now;
        if (sl_conn_flush(c) != 0)
            return 1;
    }
    return 0;
}

static void sl__out_notice(void *ctx, const sl_error *notice)
{
    sl__stmt_out *o = ctx;
    sl_conn_error(o->c, notice, NULL, 0, 0, false);
}

static void sl__out_complete(void *ctx, const char *tag)
{
    sl__stmt_out *o = ctx;
    sl_conn *c = o->c;
    if (c->cancel) /* a cancelled statement ends with 57014 (sl_query_simple) */
        return;
    size_t start = sl_pgout_begin(&c->out, 'C');
    if (o->described && strncmp(tag, "SELECT", 6) != 0 && strncmp(tag, "SHOW", 4) != 0 &&
        strncmp(tag, "FETCH", 5) != 0) {
        sl_pgout_string(&c->out, tag);
    } else if (o->described) {
        char buf[48];
        snprintf(buf, sizeof buf, "SELECT %lld", (long long)o->rows);
        sl_pgout_string(&c->out, buf);
    } else {
        sl_pgout_string(&c->out, tag);
    }
    sl_pgout_end(&c->out, start);
}

/* Characters (UTF-8 lead bytes) in s[0..n). */
static size_t sl__chars(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            k++;
    return k;
}

void sl_query_simple(sl_conn *c, const char *sql, size_t len)
{
    size_t off = 0;
    bool any = false;
    while (off < len) {
        size_t n = 0;
        int r = sl_sql_split(sql + off, len - off, &n);
        if (r < 0)
            break;
        if (r == 0) /* the last statement, without ';' */
            n = len - off;
        any = true;
        sl__stmt_out o = {c, 0, NULL, 0, false, sl_now_nanos(), SL_STRBUF_INIT};
        sl_result_sink sink = {&o, sl__out_begin, sl__out_row, sl__out_notice, sl__out_complete};
        sl_error err = SL_ERROR_INIT;
        int rc = sl_session_exec(c->session, sql + off, n, &sink, &err);
        if (rc == 0 && c->cancel) /* the engine ends an interrupted query quietly */
            rc = -1;
        if (rc != 0) {
            if (c->cancel && (!err.message || strcmp(err.sqlstate, "57014") != 0)) {
                sl_error_reset(&err);
                sl_error_set(&err, "57014", -1, "canceling statement due to user request");
            }
            sl_conn_error(c, &err, sql + off, n, sl__chars(sql, off), false);
        }
        sl_error_reset(&err);
        sl_free(o.types);
        sl_strbuf_free(&o.val);
        if (rc != 0 || c->closed)
            return;
        off += n;
    }
    if (!any) {
        size_t start = sl_pgout_begin(&c->out, 'I');
        sl_pgout_end(&c->out, start);
    }
}
