/*
** query.c — the simple query protocol: the statements of one Query message
** run in order through sl_session_exec; each statement's output maps onto
** the wire as the engine produces it:
**
**   begin     -> RowDescription (type OIDs from types.c)
**   row       -> DataRow (text, or binary per column for an extended-query
**                portal; text is PostgreSQL's form of the value, or the
**                engine's own when the session's sluice.result_format is
**                'engine', as the sluice shell sets it); the output is
**                written whenever 64 KiB are queued or 100 ms passed, so an
**                unbounded query streams instead of buffering
**   notice    -> NoticeResponse
**   complete  -> CommandComplete: "SELECT n" for every statement that
**                returned rows (SELECT, SHOW, EXPLAIN, DESCRIBE ...), "FETCH
**                n" for FETCH, the engine's tag otherwise. An INSERT run to
**                its end ('table.dml-sync' = 'true') is "INSERT 0 n", n the
**                rows it wrote; a background INSERT (the server's default)
**                is "INSERT 0 0" — it has written nothing yet — after the
**                engine's NoticeResponse 'job "<name>" submitted'
**   error     -> ErrorResponse, and the message's remaining statements are
**                skipped (PostgreSQL's implicit transaction)
**   nothing   -> EmptyQueryResponse (a message with no statement in it)
**
** An updating result (a changelog: GROUP BY over a stream in 'tableau' or
** 'changelog' result mode) arrives from the engine with its row kind as its
** first column, named op (+I, -U, +U, -D; CHAR(2), bpchar on the wire): it
** reaches the wire as any other column does, so a client sees what each row
** does (server.extended checks it by applying the changelog).
**
** Main routines: sl_query_simple, sl_rowout_* (the row writer extended.c
** shares).
*/
#include "server_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define SL__FLUSH_BYTES (64u << 10)
#define SL__FLUSH_NANOS (100 * 1000000LL)

int16_t sl_pg_format(int nformats, const int16_t *formats, int col)
{
    if (nformats <= 0)
        return 0;
    return nformats == 1 ? formats[0] : col < nformats ? formats[col] : 0;
}

void sl_pg_row_description(sl_conn *c, int ncols, const char *const *names, const sl_type *types,
                           int nformats, const int16_t *formats)
{
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
        sl_pgout_int16(&c->out, sl_pg_format(nformats, formats, i));
    }
    sl_pgout_end(&c->out, start);
}

void sl_rowout_init(sl_rowout *o, sl_conn *c, bool describe, int nformats, const int16_t *formats)
{
    memset(o, 0, sizeof *o);
    o->c = c;
    o->describe = describe;
    o->nformats = nformats;
    o->formats = formats;
    o->expect_ncols = -1;
    o->err = (sl_error)SL_ERROR_INIT;
    c->last_flush = sl_monotonic_nanos();
    sl_pgzone_update(&c->zone, c->session);
    const char *fmt = c->session ? sl_session_param(c->session, "sluice.result_format") : NULL;
    o->engine_text = fmt && strcmp(fmt, "engine") == 0;
    c->rowout = o;
}

void sl_conn_out_lock(sl_conn *c)
{
    if (c->rowout)
        pthread_mutex_lock(&c->out_mu);
}

void sl_conn_out_unlock(sl_conn *c)
{
    if (c->rowout)
        pthread_mutex_unlock(&c->out_mu);
}

/* The flusher's thread: while armed, write what waited 100 ms; else tick
** on (100 ms waits) while statements keep arming it, and wait to be armed
** (a signal) once a tick passed without one. One per connection, not per
** statement, and not woken per statement: a statement that queues its row
** and completes within a tick costs the flusher nothing (a round trip). */
static void *sl__flusher_main(void *arg)
{
    sl_conn *c = arg;
    pthread_mutex_lock(&c->out_mu);
    while (!c->flusher_quit) {
        if (!c->flush_armed && !c->flush_recent) {
            c->flusher_idle = true;
            pthread_cond_wait(&c->flush_cv, &c->out_mu);
            c->flusher_idle = false;
            continue;
        }
        c->flush_recent = false;
        int64_t now = sl_monotonic_nanos();
        /* rows queued: due 100 ms after the statement's last write */
        int64_t due = c->flush_armed && c->out.len > 0 ? c->last_flush + SL__FLUSH_NANOS
                                                        : now + SL__FLUSH_NANOS;
        if (due > now) {
            struct timespec ts = {(time_t)(due / 1000000000LL), (long)(due % 1000000000LL)};
            pthread_cond_timedwait(&c->flush_cv, &c->out_mu, &ts);
            now = sl_monotonic_nanos();
        }
        if (c->flush_armed && !c->flusher_quit && c->out.len > 0 &&
            now - c->last_flush >= SL__FLUSH_NANOS) {
            c->last_flush = now;
            sl_conn_flush(c);
        }
    }
    pthread_mutex_unlock(&c->out_mu);
    return NULL;
}

/* Arm the flusher (under out_mu): rows are queued and not written. */
static void sl__flusher_arm(sl_conn *c)
{
    if (c->flush_armed)
        return;
    c->flush_armed = true;
    c->flush_recent = true;
    if (!c->flusher_on)
        c->flusher_on = pthread_create(&c->flusher, NULL, sl__flusher_main, c) == 0;
    else if (c->flusher_idle)
        pthread_cond_signal(&c->flush_cv);
}

void sl_rowout_stop(sl_rowout *o)
{
    sl_conn *c = o->c;
    pthread_mutex_lock(&c->out_mu);
    c->flush_armed = false; /* a flush under way ended before the lock was had */
    pthread_mutex_unlock(&c->out_mu);
}

void sl_conn_flusher_init(sl_conn *c)
{
    pthread_mutex_init(&c->out_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&c->flush_cv, &ca);
    pthread_condattr_destroy(&ca);
}

void sl_conn_flusher_free(sl_conn *c)
{
    if (c->flusher_on) {
        pthread_mutex_lock(&c->out_mu);
        c->flusher_quit = true;
        pthread_cond_signal(&c->flush_cv);
        pthread_mutex_unlock(&c->out_mu);
        pthread_join(c->flusher, NULL);
        c->flusher_on = false;
    }
    pthread_cond_destroy(&c->flush_cv);
    pthread_mutex_destroy(&c->out_mu);
}

void sl_rowout_free(sl_rowout *o)
{
    sl_rowout_stop(o);
    if (o->c->rowout == o)
        o->c->rowout = NULL;
    sl_free(o->types);
    o->types = NULL;
    sl_error_reset(&o->err);
}

void sl_rowout_columns(sl_rowout *o, int ncols, const sl_type *types)
{
    sl_free(o->types);
    o->ncols = ncols;
    o->types = sl_malloc(sizeof(sl_type) * (size_t)(ncols > 0 ? ncols : 1));
    if (ncols > 0)
        memcpy(o->types, types, sizeof(sl_type) * (size_t)ncols);
    o->began = true;
}

static int sl__out_begin(void *ctx, int ncols, const char *const *names, const sl_type *types)
{
    sl_rowout *o = ctx;
    if (o->expect_ncols >= 0) { /* the rows must be what Describe said */
        bool same = o->expect_ncols == ncols;
        for (int i = 0; same && i < ncols; i++)
            same = sl_pgtype_of(o->expect_types[i]).oid == sl_pgtype_of(types[i]).oid;
        if (!same) {
            sl_error_set(&o->err, SL_ERR_NOT_SUPPORTED, -1,
                         "cached plan must not change result type");
            return 1;
        }
    }
    pthread_mutex_lock(&o->c->out_mu);
    sl_rowout_columns(o, ncols, types);
    if (o->describe)
        sl_pg_row_description(o->c, ncols, names, types, o->nformats, o->formats);
    pthread_mutex_unlock(&o->c->out_mu);
    return 0;
}

/* One DataRow onto c->out (under c->out_mu). 0, or 1 to stop the statement. */
static int sl__put_row(sl_rowout *o, const char *const *values, const size_t *lens)
{
    sl_conn *c = o->c;
    if (c->cancel || c->closed) {
        o->cancelled = c->cancel != 0;
        return 1;
    }
    size_t start = sl_pgout_begin(&c->out, 'D');
    sl_pgout_int16(&c->out, (int16_t)o->ncols);
    for (int i = 0; i < o->ncols; i++) {
        if (!values[i]) {
            sl_pgout_int32(&c->out, -1);
            continue;
        }
        /* the value goes straight after its length, filled in after it */
        size_t at = c->out.len;
        sl_pgout_int32(&c->out, 0);
        if (sl_pg_format(o->nformats, o->formats, i) == 1) {
            if (sl_pgbin_append(&c->out, o->types[i], values[i], lens[i], &c->zone) != 0) {
                c->out.len = start; /* drop the partial DataRow */
                sl_error_set(&o->err, SL_ERR_INTERNAL, -1,
                             "value of column %d has no binary form: \"%.*s\"", i + 1,
                             (int)(lens[i] > 64 ? 64 : lens[i]), values[i]);
                return 1;
            }
        } else if (o->engine_text) {
            sl_strbuf_append_n(&c->out, values[i], lens[i]);
        } else {
            sl_pgtext_append(&c->out, o->types[i], values[i], lens[i], &c->zone);
        }
        uint32_t n = htonl((uint32_t)(c->out.len - at - 4));
        memcpy(c->out.buf + at, &n, 4);
    }
    sl_pgout_end(&c->out, start);
    o->rows++;
    int64_t now = sl_monotonic_coarse_nanos(); /* a row's cost: no finer clock needed */
    if (c->out.len >= SL__FLUSH_BYTES || now - c->last_flush >= SL__FLUSH_NANOS) {
        c->last_flush = now;
        if (sl_conn_flush(c) != 0)
            return 1;
    } else {
        /* queued, not written: the flusher writes it if no row follows */
        sl__flusher_arm(c);
    }
    return 0;
}

static int sl__out_row(void *ctx, const char *const *values, const size_t *lens)
{
    sl_rowout *o = ctx;
    pthread_mutex_lock(&o->c->out_mu);
    int r = sl__put_row(o, values, lens);
    pthread_mutex_unlock(&o->c->out_mu);
    return r;
}

static void sl__out_notice(void *ctx, const sl_error *notice)
{
    sl_rowout *o = ctx;
    pthread_mutex_lock(&o->c->out_mu);
    sl_conn_error(o->c, notice, NULL, 0, 0, false);
    pthread_mutex_unlock(&o->c->out_mu);
}

static void sl__out_complete(void *ctx, const char *tag)
{
    sl_rowout *o = ctx;
    sl_conn *c = o->c;
    char buf[48];
    if (c->cancel) { /* stopped by a CancelRequest: an error, not a result */
        o->cancelled = true;
        return;
    }
    sl_rowout_stop(o); /* the statement is over: nothing more to wait for */
    if (o->began && strncmp(tag, "FETCH", 5) == 0) {
        snprintf(buf, sizeof buf, "FETCH %lld", (long long)o->rows);
        tag = buf;
    } else if (o->began && strncmp(tag, "INSERT", 6) != 0) {
        snprintf(buf, sizeof buf, "SELECT %lld", (long long)o->rows);
        tag = buf;
    }
    size_t start = sl_pgout_begin(&c->out, 'C');
    sl_pgout_string(&c->out, tag);
    sl_pgout_end(&c->out, start);
}

sl_result_sink sl_rowout_sink(sl_rowout *o)
{
    return (sl_result_sink){o, sl__out_begin, sl__out_row, sl__out_notice, sl__out_complete, NULL};
}

int sl_rowout_outcome(sl_rowout *o, int rc, sl_error *err)
{
    sl_rowout_stop(o);
    if (o->err.message) {
        sl_error_reset(err);
        sl_error_copy(err, &o->err);
        return -1;
    }
    if ((rc < 0 && o->c->cancel) || o->cancelled) {
        if (strcmp(err->sqlstate, SL_ERR_QUERY_CANCELED) != 0) {
            sl_error_reset(err);
            sl_error_set(err, SL_ERR_QUERY_CANCELED, -1, "canceling statement due to user request");
        }
        return -1;
    }
    return rc;
}

void sl_query_simple(sl_conn *c, const char *sql, size_t len)
{
    size_t off = 0;
    bool any = false;
    while (off < len) {
        size_t n = 0;
        int r = sl_sql_split(sql + off, len - off, &n);
        if (r < 0) /* only whitespace, comments and ';' are left */
            break;
        if (r == 0) /* the last statement, without ';' */
            n = len - off;
        any = true;
        sl_rowout o;
        sl_rowout_init(&o, c, true, 0, NULL);
        sl_result_sink sink = sl_rowout_sink(&o);
        sl_error err = SL_ERROR_INIT;
        int rc = sl_session_exec(c->session, sql + off, n, &sink, &err);
        rc = sl_rowout_outcome(&o, rc, &err);
        if (rc != 0) {
            sl_conn_error(c, &err, sql + off, n, sl_utf8_count(sql, off), false);
        }
        sl_error_reset(&err);
        sl_rowout_free(&o);
        if (rc != 0 || c->closed)
            break;
        off += n;
    }
    if (!any && !c->closed) {
        size_t start = sl_pgout_begin(&c->out, 'I');
        sl_pgout_end(&c->out, start);
    }
    /* A Query message is a transaction of its own outside BEGIN: it ends
    ** the portals of extended query too. */
    sl_ext_end_of_transaction(c);
}
