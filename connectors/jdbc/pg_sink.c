/*
** pg_sink.c — the jdbc sink: rows into a PostgreSQL table through the row
** writer (pg_write.c: COPY for a table without a key, upserts and deletes
** by key, duplicate keys and conflicts), or into a MariaDB/MySQL table
** through my_write.c's: the sink calls its database through a driver
** (sl__jdbc_driver: sl__pg_driver at the end of this file, sl__my_driver),
** so batching, the interval, retries and the guarantees are one code for
** both.
**
** It runs the guarantee the resolver decided (sl_sink_args.guarantee):
**
**   none           rows are buffered and written in batches of
**                  'sink.buffer-flush.max-rows' on the sink's own
**                  connection; each batch is committed as it fills, and
**                  what is buffered at least every
**                  'sink.buffer-flush.interval' (checked as rows arrive,
**                  and by a timer thread of the sink's when none do) and at
**                  each checkpoint.
**   at-least-once  the same connection; a batch of max-rows rows is
**                  written into an open transaction, which is committed
**                  when the interval has passed since it began and, at the
**                  latest, in pre_commit: everything before the barrier is
**                  committed before the checkpoint is acknowledged. A crash
**                  replays the rows since the last checkpoint: duplicates
**                  in a table without a key, the same final state with one
**                  (upserts). One commit (one WAL flush) per interval
**                  instead of one per batch: bench_pg measures both.
**   exactly-once   every chunk goes into epoch N's transaction of the job's
**                  participant (pg_txn.c: sl__pg_txn_write), which
**                  prepares and commits it as checkpoint N is decided;
**                  pre_commit names the epoch in the committable; commit,
**                  abort and recover have nothing to do here.
**
** Failed writes (none / at-least-once): an error sl__pg_retryable calls
** passing (a lost connection, a serialization failure, a server restart)
** is retried up to 'sink.max-retries' times: reconnect, begin again and
** write every row of the transaction that was lost (they are kept until
** the commit). Other errors, or the last retry's, fail the job with the
** server's SQLSTATE. Conflicts counted in an attempt that was rolled back
** are not counted.
**
** The conflict table ('sink.conflict-table') is created when the sink
** starts, outside any epoch's transaction (sl__pg_writer_setup).
**
** Main routines: sl__pg_sink_create and the sl_sink_ops below.
*/
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "jdbc_int.h"

typedef struct sl__pg_sink {
    sl_guarantee guarantee;   /* what this sink runs */
    char *table;              /* the table's name (messages) */
    sl_kvlist *options;       /* the table's options (a copy: scrubbing errors) */
    sl__pg_target target;     /* where it is */
    char *appname;            /* application_name of its connection */
    const sl__jdbc_driver *drv; /* the database's calls (PostgreSQL or MariaDB) */
    void *w;                  /* the row writer */
    sl_participant *txn;      /* exactly-once: the job's participant */
    int64_t epoch;            /* the open epoch */
    void *conn;               /* none / at-least-once: its connection, or NULL */
    bool in_txn;              /* a transaction is open on conn */
    int64_t txn_start_ms;     /* when it began (monotonic) */
    int64_t flush_rows;       /* 'sink.buffer-flush.max-rows' (0: none) */
    int64_t interval_ms;      /* 'sink.buffer-flush.interval' (0: none) */
    int64_t max_retries;      /* 'sink.max-retries' */
    int ncols;                /* columns */
    sl_type *types;           /* their types */
    sl_chunk *buf;            /* rows not written yet */
    int64_t buf_since_ms;     /* when the oldest of them arrived */
    sl_list *held;            /* sl_chunk*: written into the open transaction */
    sl_list *spare;           /* sl_chunk*: emptied, for reuse as buf */
    int64_t conflicts_void;   /* conflicts counted in attempts rolled back */
    int64_t conflicts_at_begin; /* the writer's count when the transaction began */
    int *sel;                 /* row indexes (SL_CHUNK_ROWS) */
    /* The interval's timer (none / at-least-once with an interval): a
    ** thread committing what waits when no rows arrive to do it. */
    sl_flush_timer *timer;    /* NULL: none */
    pthread_mutex_t mu;       /* guards everything the sink ops touch */
} sl__pg_sink;

static int sl__pg_sink_fail(sl__pg_sink *k, sl_error *err)
{
    sl_option_scrub_error(err, k->options);
    return -1;
}

static void sl__pg_sink_drop_conn(sl__pg_sink *k)
{
    if (k->w)
        k->drv->writer_forget(k->w); /* a COPY open on it ends with it */
    if (k->conn)
        k->drv->close(k->conn); /* an open transaction is rolled back by the server */
    k->conn = NULL;
    k->in_txn = false;
}

static int sl__pg_sink_connect(sl__pg_sink *k, sl_error *err)
{
    if (k->conn && k->drv->alive(k->conn))
        return 0;
    sl__pg_sink_drop_conn(k);
    k->conn = k->drv->connect(&k->target, k->appname, 0, err);
    return k->conn ? 0 : -1;
}

/* Write chunk c into the open transaction (begun when none is). */
static int sl__pg_sink_put(sl__pg_sink *k, const sl_chunk *c, sl_error *err)
{
    if (!k->in_txn) {
        if (k->drv->run(k->conn, "BEGIN", "beginning a transaction", err) != 0)
            return -1;
        k->in_txn = true;
        k->txn_start_ms = sl__pg_now_ms();
        k->conflicts_at_begin = k->drv->writer_conflicts(k->w);
    }
    return k->drv->writer_put(k->w, k->conn, c, -1, err);
}

/* After a failure: retry when it may pass, rewriting the lost transaction's
** rows (held) and then `then` (may be NULL). 0 when a retry succeeded. */
static int sl__pg_sink_retry(sl__pg_sink *k, const sl_chunk *then, sl_error *err)
{
    for (int64_t attempt = 1; attempt <= k->max_retries; attempt++) {
        if (!k->drv->retryable(err))
            return -1;
        sl_log(SL_LOG_WARN, "jdbc sink \"%s\": %s; retrying (%lld of %lld)", k->table,
               err->message, (long long)attempt, (long long)k->max_retries);
        if (k->in_txn)
            k->conflicts_void += k->drv->writer_conflicts(k->w) - k->conflicts_at_begin;
        sl__pg_sink_drop_conn(k);
        sl_sleep_nanos((attempt < 5 ? attempt : 5) * 200 * SL_NANOS_PER_MILLI);
        sl_error_reset(err);
        if (sl__pg_sink_connect(k, err) != 0)
            continue;
        int rc = 0;
        for (int i = 0; rc == 0 && i < k->held->n; i++)
            rc = sl__pg_sink_put(k, k->held->items[i], err);
        if (rc == 0 && then)
            rc = sl__pg_sink_put(k, then, err);
        if (rc == 0)
            return 0;
    }
    return -1;
}

/* Write the buffered rows into the open transaction. */
static int sl__pg_sink_flush(sl__pg_sink *k, sl_error *err)
{
    if (k->buf->nrows == 0)
        return 0;
    int rc = sl__pg_sink_connect(k, err) == 0 ? sl__pg_sink_put(k, k->buf, err) : -1;
    if (rc != 0 && sl__pg_sink_retry(k, k->buf, err) != 0) {
        if (k->conn && k->drv->alive(k->conn) && k->in_txn) {
            sl_error ignore = SL_ERROR_INIT;
            k->drv->run(k->conn, "ROLLBACK", NULL, &ignore);
            sl_error_reset(&ignore);
            k->in_txn = false;
        }
        return sl__pg_sink_fail(k, err);
    }
    sl_list_push(k->held, k->buf);
    if (k->spare->n > 0)
        k->buf = k->spare->items[--k->spare->n];
    else
        k->buf = sl_chunk_new(k->ncols, k->types, SL_CHUNK_ROWS);
    return 0;
}

/* Write what is buffered and commit the open transaction. */
static int sl__pg_sink_commit_all(sl__pg_sink *k, sl_error *err)
{
    if (sl__pg_sink_flush(k, err) != 0)
        return -1;
    while (k->in_txn) {
        if (k->drv->writer_finish(k->w, err) == 0 &&
            k->drv->run(k->conn, "COMMIT", "committing", err) == 0) {
            k->in_txn = false;
            break;
        }
        /* a COMMIT whose answer was lost may have happened: writing the
        ** rows again is a duplicate, which at-least-once allows */
        if (sl__pg_sink_retry(k, NULL, err) != 0)
            return sl__pg_sink_fail(k, err);
    }
    for (int i = 0; i < k->held->n; i++) { /* kept for the next batches (a few) */
        sl_chunk *c = k->held->items[i];
        if (k->spare->n < 64) {
            sl_chunk_reset(c);
            sl_list_push(k->spare, c);
        } else {
            sl_chunk_free(c);
        }
    }
    k->held->n = 0;
    return 0;
}

static int sl__pg_sink_begin(sl_sink *s, int64_t epoch, sl_error *err)
{
    (void)err;
    sl__pg_sink *k = s->impl;
    k->epoch = epoch;
    return 0;
}

/* Whether what is buffered or written waits longer than the interval (mu held). */
static bool sl__pg_sink_due(const sl__pg_sink *k)
{
    int64_t now = sl__pg_now_ms();
    return k->interval_ms > 0 && ((k->buf->nrows > 0 && now - k->buf_since_ms >= k->interval_ms) ||
                                  (k->in_txn && now - k->txn_start_ms >= k->interval_ms));
}

/* The flush timer's calls (flush_timer.c; a quiet input). */
static bool sl__pg_sink_due_v(void *ctx)
{
    return sl__pg_sink_due(ctx);
}

static int sl__pg_sink_commit_all_v(void *ctx, sl_error *err)
{
    return sl__pg_sink_commit_all(ctx, err);
}

static int sl__pg_sink_write_locked(sl__pg_sink *k, const sl_chunk *c, sl_error *err)
{
    if (k->txn)
        return k->drv->txn_write(k->txn, k->epoch, k->w, c, err) == 0 ? 0
                                                                       : sl__pg_sink_fail(k, err);
    int64_t now = sl__pg_now_ms();
    for (int r0 = 0; r0 < c->nrows;) {
        if (k->buf->nrows == 0)
            k->buf_since_ms = now;
        int room = k->buf->cap - k->buf->nrows;
        int n = c->nrows - r0 < room ? c->nrows - r0 : room;
        if (k->flush_rows > 0 && n > k->flush_rows - k->buf->nrows)
            n = (int)(k->flush_rows - k->buf->nrows);
        for (int i = 0; i < n; i++)
            k->sel[i] = r0 + i;
        sl_chunk_append_rows(k->buf, c, k->sel, n);
        r0 += n;
        bool batch = k->flush_rows > 0 && k->buf->nrows >= k->flush_rows;
        if (batch || sl_chunk_full(k->buf)) {
            if (k->guarantee == SL_GUARANTEE_NONE && batch) {
                if (sl__pg_sink_commit_all(k, err) != 0) /* a batch is committed as it fills */
                    return -1;
            } else if (sl__pg_sink_flush(k, err) != 0) {
                return -1;
            }
        }
    }
    /* the interval: what is buffered or written is committed at least this often */
    if (sl__pg_sink_due(k))
        return sl__pg_sink_commit_all(k, err);
    return 0;
}

static int sl__pg_sink_write(sl_sink *s, const sl_chunk *c, sl_error *err)
{
    sl__pg_sink *k = s->impl;
    if (k->txn)
        return sl__pg_sink_write_locked(k, c, err);
    pthread_mutex_lock(&k->mu);
    int rc = sl_flush_timer_failed(k->timer, err);
    if (rc == 0)
        rc = sl__pg_sink_write_locked(k, c, err);
    pthread_mutex_unlock(&k->mu);
    return rc;
}

static int sl__pg_sink_pre_commit(sl_sink *s, int64_t epoch, sl_strbuf *committable,
                                  sl_error *err)
{
    sl__pg_sink *k = s->impl;
    if (k->txn) { /* the participant prepares and commits epoch's transaction */
        sl_strbuf_appendf(committable, "%s epoch %lld", k->drv->system, (long long)epoch);
        return 0;
    }
    pthread_mutex_lock(&k->mu);
    int rc = sl_flush_timer_failed(k->timer, err);
    if (rc == 0)
        rc = sl__pg_sink_commit_all(k, err);
    pthread_mutex_unlock(&k->mu);
    return rc;
}

/* Nothing is staged by the sink itself: none and at-least-once committed
** before the checkpoint; exactly-once is the participant's. */
static int sl__pg_sink_nothing(sl_sink *s, const char *committable, size_t len, sl_error *err)
{
    (void)s, (void)committable, (void)len, (void)err;
    return 0;
}

static int sl__pg_sink_recover(sl_sink *s, const char *const *committables, const size_t *lens,
                               int n, sl_error *err)
{
    (void)s, (void)committables, (void)lens, (void)n, (void)err;
    return 0;
}

static int64_t sl__pg_sink_conflicts(sl_sink *s)
{
    sl__pg_sink *k = s->impl;
    pthread_mutex_lock(&k->mu);
    int64_t n = k->drv->writer_conflicts(k->w) - k->conflicts_void;
    pthread_mutex_unlock(&k->mu);
    return n;
}

static void sl__pg_sink_free(sl_sink *s)
{
    if (!s)
        return;
    sl__pg_sink *k = s->impl;
    sl_flush_timer_stop(k->timer);
    pthread_mutex_destroy(&k->mu);
    sl__pg_sink_drop_conn(k); /* what was not committed is rolled back */
    if (k->w)
        k->drv->writer_free(k->w);
    if (k->held) {
        for (int i = 0; i < k->held->n; i++)
            sl_chunk_free(k->held->items[i]);
        sl_list_free(k->held, NULL);
    }
    if (k->spare) {
        for (int i = 0; i < k->spare->n; i++)
            sl_chunk_free(k->spare->items[i]);
        sl_list_free(k->spare, NULL);
    }
    sl_chunk_free(k->buf);
    sl__pg_target_clear(&k->target);
    sl_kvlist_free(k->options);
    sl_free(k->types);
    sl_free(k->sel);
    sl_free(k->table);
    sl_free(k->appname);
    sl_free(k);
    sl_free(s);
}

static const sl_sink_ops sl__pg_sink_ops = {
    .begin = sl__pg_sink_begin,
    .write = sl__pg_sink_write,
    .pre_commit = sl__pg_sink_pre_commit,
    .commit = sl__pg_sink_nothing,
    .abort = sl__pg_sink_nothing,
    .recover = sl__pg_sink_recover,
    .free = sl__pg_sink_free,
    .conflicts = sl__pg_sink_conflicts,
};

int sl__pg_sink_create(const sl_sink_args *args, sl_sink **out, sl_error *err)
{
    *out = NULL;
    if (args->guarantee == SL_GUARANTEE_EXACTLY_ONCE && !args->participant)
        return sl_error_set(err, SL_ERR_INTERNAL, -1,
                            "jdbc sink: exactly-once needs the job's transactions");
    sl__pg_sink *k = sl_calloc(1, sizeof *k);
    sl_sink *s = sl_calloc(1, sizeof *s);
    s->ops = &sl__pg_sink_ops;
    s->impl = k;
    pthread_mutex_init(&k->mu, NULL);
    k->guarantee = args->guarantee;
    k->drv = sl__jdbc_is_mysql(args->options) ? &sl__my_driver : &sl__pg_driver;
    k->options = sl_kvlist_dup(args->options);
    k->ncols = args->ncols;
    k->types = sl_calloc((size_t)args->ncols + 1, sizeof(sl_type));
    for (int i = 0; i < args->ncols; i++)
        k->types[i] = args->types[i];
    k->held = sl_list_new();
    k->spare = sl_list_new();
    k->buf = sl_chunk_new(k->ncols, k->types, SL_CHUNK_ROWS);
    k->sel = sl_calloc(SL_CHUNK_ROWS, sizeof(int));
    if (sl__pg_target_parse(args->options, &k->target, err) != 0) {
        sl__pg_sink_free(s);
        return -1;
    }
    k->table = sl_strdup(args->table ? args->table : k->target.table);
    k->appname = sl_sprintf("sluice %s %s#%d", args->job ? args->job : "", k->table,
                            args->subtask);
    const sl_connector *c = &sl__connector_jdbc;
    if (sl__option_number(c, args->options, "sink.buffer-flush.max-rows", &k->flush_rows, err) !=
            0 ||
        sl__option_number(c, args->options, "sink.buffer-flush.interval", &k->interval_ms, err) !=
            0 ||
        sl__option_number(c, args->options, "sink.max-retries", &k->max_retries, err) != 0 ||
        k->drv->writer_new(args, &k->w, err) != 0) {
        sl__pg_sink_free(s);
        return -1;
    }
    if (k->flush_rows < 0)
        k->flush_rows = 0;
    if (k->max_retries < 0)
        k->max_retries = 0;
    /* What the writer needs besides the table (the conflict table), on a
    ** connection of the sink's (exactly-once writes through the
    ** participant's: this one is closed again). */
    int rc = sl__pg_sink_connect(k, err);
    if (rc == 0)
        rc = k->drv->writer_setup(k->w, k->conn, err);
    if (rc != 0) {
        sl__pg_sink_fail(k, err);
        sl__pg_sink_free(s);
        return -1;
    }
    if (k->guarantee == SL_GUARANTEE_EXACTLY_ONCE) {
        k->txn = args->participant;
        sl__pg_sink_drop_conn(k);
    } else {
        k->timer = sl_flush_timer_start(&k->mu, k->interval_ms, sl__pg_sink_due_v,
                                        sl__pg_sink_commit_all_v, k);
    }
    *out = s;
    return 0;
}

/* ------------------------------------------------------------------------
** PostgreSQL's driver (libpq, pg_write.c, pg_txn.c).
*/
static void sl__pg_drv_notice(void *arg, const char *message)
{
    (void)arg; /* the server's notices ("already exists, skipping") are not the user's */
    sl_log(SL_LOG_DEBUG, "jdbc sink: the server says: %s", message);
}

static void *sl__pg_drv_connect(const sl__pg_target *t, const char *appname, int64_t timeout_ms,
                                sl_error *err)
{
    PGconn *c = sl__pg_connect(t, appname, timeout_ms, err);
    if (c)
        PQsetNoticeProcessor(c, sl__pg_drv_notice, NULL);
    return c;
}

static bool sl__pg_drv_alive(void *conn)
{
    return PQstatus(conn) == CONNECTION_OK;
}

static void sl__pg_drv_close(void *conn)
{
    PQfinish(conn);
}

static int sl__pg_drv_run(void *conn, const char *sql, const char *what, sl_error *err)
{
    return sl__pg_run(conn, sql, what, err);
}

static int sl__pg_drv_writer_new(const sl_sink_args *args, void **out, sl_error *err)
{
    sl__pg_writer *w = NULL;
    int rc = sl__pg_writer_new(args, &w, err);
    *out = w;
    return rc;
}

static int sl__pg_drv_put(void *w, void *conn, const sl_chunk *c, int64_t epoch, sl_error *err)
{
    return sl__pg_writer_put(w, conn, c, epoch, err);
}

static int sl__pg_drv_finish(void *w, sl_error *err)
{
    return sl__pg_writer_finish(w, err);
}

static void sl__pg_drv_forget(void *w)
{
    sl__pg_writer_forget(w);
}

static int64_t sl__pg_drv_conflicts(const void *w)
{
    return sl__pg_writer_conflicts(w);
}

static int sl__pg_drv_setup(const void *w, void *conn, sl_error *err)
{
    return sl__pg_writer_setup(w, conn, err);
}

static void sl__pg_drv_free(void *w)
{
    sl__pg_writer_free(w);
}

static int sl__pg_drv_txn_write(sl_participant *p, int64_t epoch, void *w, const sl_chunk *c,
                                sl_error *err)
{
    return sl__pg_txn_write(p, epoch, w, c, err);
}

const sl__jdbc_driver sl__pg_driver = {
    .system = "postgresql",
    .connect = sl__pg_drv_connect,
    .alive = sl__pg_drv_alive,
    .close = sl__pg_drv_close,
    .run = sl__pg_drv_run,
    .retryable = sl__pg_retryable,
    .writer_new = sl__pg_drv_writer_new,
    .writer_put = sl__pg_drv_put,
    .writer_finish = sl__pg_drv_finish,
    .writer_forget = sl__pg_drv_forget,
    .writer_conflicts = sl__pg_drv_conflicts,
    .writer_setup = sl__pg_drv_setup,
    .writer_free = sl__pg_drv_free,
    .txn_write = sl__pg_drv_txn_write,
};
