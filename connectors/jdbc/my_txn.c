/*
** my_txn.c — exactly-once into MariaDB/MySQL: the job's participant for the
** exactly-once jdbc sinks on one database (DESIGN.md section 5), by XA
** (a preparable participant) or as the job's last resource, with a
** progress row, fencing and recovery. The same protocol as pg_txn.c's for
** PostgreSQL; what differs is what MariaDB's XA allows (tests/mariadb/
** xa_test.py pins each fact down against the server):
**
**   - a prepared XA transaction stays attached to the session that
**     prepared it: another session's XA COMMIT answers 1397 (XAER_NOTA, as
**     for an unknown xid) until that session ends. So commit(N) runs on
**     the very connection that prepared N (kept aside, x->held), and a
**     restart's resolve() first ends the sessions of earlier incarnations
**     (KILL CONNECTION), which detaches what they prepared;
**   - XA RECOVER lists every prepared xid of the server to any user, and
**     any user may XA COMMIT / XA ROLLBACK a detached one: ours are told
**     by their gtrid, 'sluice:<prefix>:' compared exactly (its length is
**     in XA RECOVER's gtrid_length), never by a LIKE pattern;
**   - XA COMMIT of an xid already committed, rolled back or never seen is
**     the same 1397: commit(N) tells "committed" from "rolled back by a
**     newer incarnation" by the progress row (epoch >= N, our token), as
**     pg_txn.c does;
**   - a prepared XA transaction survives a server crash with
**     innodb_flush_log_at_trx_commit = 1 (and sync_binlog = 1 when the
**     binary log is on): the probe (my_check.c) decides the role from
**     these settings.
**
** The xid: gtrid 'sluice:<prefix>:' (a prefix of at most
** SL__MY_PREFIX_MAX bytes: MariaDB's gtrid holds 64), bqual
** '<epoch>:<token>', formatID 1. The token makes each incarnation's xids
** its own: a zombie can never commit what a newer instance prepared for
** the same epoch.
**
** The progress table sluice_progress, in the database of the first sink's
** table, created IF NOT EXISTS outside any epoch's transaction:
**
**   prefix  VARCHAR(191) PRIMARY KEY   'sink.transactional-id-prefix'
**   job     VARCHAR(1024)              the job that owns the row
**   epoch   BIGINT                     the newest committed epoch (-1: none)
**   token   BIGINT                     the newest incarnation's fencing token
**   updated DATETIME(6)                when the row last changed (UTC)
**
** Epoch N's transaction (XA START, or BEGIN for the last resource) ends
** with UPDATE sluice_progress SET epoch = N WHERE prefix = .. AND token =
** .. (no row matched: fenced, 55006), then XA END + XA PREPARE at
** prepare(N) and XA COMMIT at commit(N), or COMMIT at decide(N) for the
** last resource: that commit, with its progress row, is the decision.
**
**   step                    crash right after it          recovery
**   ---------------------   ---------------------------   -----------------------
**   writes of epoch N       XA active: rolled back by      nothing (N undecided)
**                           the server at disconnect
**   prepare(N)              xid(N) prepared, undecided     resolve(D < N): XA ROLLBACK
**   decision (seal)         xid(N) prepared, decided       resolve(D >= N): XA COMMIT
**   commit(N)               committed, the row says N      nothing
**   decide(N) (last res.)   committed with its row, or     recover() reads the row:
**                           not at all                     the decision
**
** Fencing. Every connection of an incarnation holds one of the named locks
** 'sluice:<hash of prefix>:<i>' (GET_LOCK, i < SL__MY_LOCKS): a session
** that is ours, seen from any other session (IS_USED_LOCK gives its id).
** Fencing ends the sessions holding them (KILL CONNECTION: an earlier
** incarnation, or a zombie's), which rolls back their open transactions
** and detaches their prepared ones, then bumps the token: INSERT ... ON
** DUPLICATE KEY UPDATE token = token + 1, waiting at most
** SL__MY_LOCK_WAIT seconds for the row (innodb_lock_wait_timeout): when a
** prepared transaction holds it (prepared after resolve looked), the
** prepared xids are resolved again and the bump retried. A zombie's next
** UPDATE of the row finds no row with its token: it stops with 55006.
**
** settle(D) finishes what this instance prepared by the newest seal D
** (commit when <= D, else roll back), on the connection that prepared it.
** free() closes every connection: what is open rolls back, what is
** prepared is left to the next start's resolve().
**
** Main routines: sl__my_txn_create, sl__my_txn_write, sl__my_xid_epoch.
*/
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jdbc_int.h"

#define SL__MY_GTRID_HEAD "sluice:"   /* every gtrid of ours starts so */
#define SL__MY_LOCKS 16               /* named locks marking our sessions */
#define SL__MY_LOCK_WAIT "2"          /* the fencing UPDATE's wait for the row (s) */
#define SL__MY_FENCE_TRIES 5          /* kill-and-retry rounds of fencing */
#define SL__MY_FREE_TIMEOUT_MS 5000   /* settle(): connecting to finish */
#define SL__MY_HELD 2                 /* prepared epochs kept with their connections */

typedef struct sl__my_slot {
    pthread_mutex_t mu; /* serializes the sink instances' writes */
    MYSQL *conn;        /* NULL until first used */
    int64_t epoch;      /* the epoch whose transaction it carries, -1 = none (x->mu) */
    bool begun;         /* XA START (or BEGIN) sent (x->mu) */
    time_t began;       /* when (SHOW JOBS) */
    bool broken;        /* a statement failed: transaction and connection are lost */
} sl__my_slot;

/* A prepared epoch and the session that prepared it (its XA COMMIT must
** come from there while the session lives). */
typedef struct sl__my_held {
    int64_t epoch;      /* -1 = free */
    MYSQL *conn;        /* may be NULL (lost: the xid is detached then) */
    time_t at;          /* when it was prepared */
} sl__my_held;

typedef struct sl__my_txn {
    pthread_mutex_t mu;       /* guards the slots' epochs and spare */
    sl__my_slot slot[2];      /* the epoch connections */
    sl__my_held held[SL__MY_HELD]; /* prepared, not yet committed (coordinating thread) */
    MYSQL *spare;             /* a connection freed by a commit, for the next epoch (mu) */
    MYSQL *ctl;               /* the control connection (coordinating thread only) */
    sl__pg_target target;     /* the first sink's database */
    const sl_kvlist *opts;    /* its options (scrubbing secrets) */
    char *prefix;             /* 'sink.transactional-id-prefix' */
    char *gtrid;              /* 'sluice:<prefix>:' */
    char *job;                /* the job's name */
    char *origin;             /* the job whose savepoint it starts from, or NULL */
    char *progress;           /* the progress table, quoted and qualified */
    char lockhead[40];        /* 'sluice:<16 hex>:' of the named locks */
    bool last_resource;       /* the role */
    int64_t token;            /* our fencing token, -1 before fencing */
    bool table_ready;         /* sluice_progress exists */
} sl__my_txn;

static int sl__myx_scrub(sl__my_txn *x, sl_error *err)
{
    sl_option_scrub_error(err, x->opts);
    return -1;
}

static char *sl__myx_bqual(int64_t epoch, int64_t token)
{
    return sl_sprintf("%" PRId64 ":%" PRId64, epoch, token);
}

/* "'gtrid','bqual',1" of (epoch, token), quoted for XA statements. */
static void sl__myx_xid(sl__my_txn *x, sl_strbuf *sb, int64_t epoch, int64_t token)
{
    char *bq = sl__myx_bqual(epoch, token);
    sl__my_quote_literal(sb, x->gtrid);
    sl_strbuf_append_char(sb, ',');
    sl__my_quote_literal(sb, bq);
    sl_strbuf_append(sb, ",1");
    sl_free(bq);
}

int64_t sl__my_xid_epoch(const char *data, size_t gtrid_len, size_t len, const char *prefix)
{
    size_t hl = strlen(SL__MY_GTRID_HEAD), pl = strlen(prefix);
    if (gtrid_len != hl + pl + 1 || len < gtrid_len + 3 ||
        memcmp(data, SL__MY_GTRID_HEAD, hl) != 0 || memcmp(data + hl, prefix, pl) != 0 ||
        data[hl + pl] != ':')
        return -1;
    const char *b = data + gtrid_len, *end = data + len;
    const char *colon = memchr(b, ':', (size_t)(end - b));
    if (!colon || sl__jdbc_digits(colon + 1, (size_t)(end - colon - 1)) < 0)
        return -1;
    return sl__jdbc_digits(b, (size_t)(colon - b));
}

/* The token of bqual data (after the gtrid), or -1. */
static int64_t sl__myx_token(const char *data, size_t gtrid_len, size_t len)
{
    const char *b = data + gtrid_len, *end = data + len;
    const char *colon = memchr(b, ':', (size_t)(end - b));
    return colon ? sl__jdbc_digits(colon + 1, (size_t)(end - colon - 1)) : -1;
}

/* Mark conn as ours: it takes the first free named lock. */
static int sl__myx_mark(sl__my_txn *x, MYSQL *c, sl_error *err)
{
    for (int i = 0; i < SL__MY_LOCKS; i++) {
        char *sql = sl_sprintf("SELECT GET_LOCK('%s%d', 0)", x->lockhead, i);
        MYSQL_RES *r = sl__my_query(c, sql, "marking the session", err);
        sl_free(sql);
        if (!r)
            return sl__myx_scrub(x, err);
        MYSQL_ROW row = mysql_fetch_row(r);
        bool got = row && row[0] && strcmp(row[0], "1") == 0;
        mysql_free_result(r);
        if (got)
            return 0;
    }
    /* more sessions than names: an earlier incarnation still holds them;
    ** fencing ends those, so this one runs unmarked */
    return 0;
}

static MYSQL *sl__myx_connect(sl__my_txn *x, int64_t timeout_ms, sl_error *err)
{
    MYSQL *c = sl__my_connect(&x->target, timeout_ms, err);
    if (!c) {
        sl__myx_scrub(x, err);
        return NULL;
    }
    if (sl__myx_mark(x, c, err) != 0) {
        mysql_close(c);
        return NULL;
    }
    return c;
}

static int sl__myx_ctl(sl__my_txn *x, sl_error *err)
{
    if (sl__my_alive(x->ctl))
        return 0;
    if (x->ctl)
        mysql_close(x->ctl);
    x->ctl = sl__myx_connect(x, 0, err);
    return x->ctl ? 0 : -1;
}

/* After a failure that may be the fencing's doing (the session was killed
** by a newer incarnation, or lost): when the progress row, read on a
** connection of its own, carries another token, err becomes the fencing
** error (55006), which the restart strategy does not restart. */
static int sl__myx_maybe_fenced(sl__my_txn *x, int64_t epoch, sl_error *err)
{
    if (x->token < 0 ||
        (strncmp(err->sqlstate, "08", 2) != 0 && strcmp(err->sqlstate, "57P01") != 0))
        return -1;
    sl_error e = SL_ERROR_INIT;
    MYSQL *c = sl__my_connect(&x->target, SL__MY_FREE_TIMEOUT_MS, &e);
    sl_strbuf q = SL_STRBUF_INIT;
    sl_strbuf_appendf(&q, "SELECT token FROM %s WHERE prefix = ", x->progress);
    sl__my_quote_literal(&q, x->prefix);
    MYSQL_RES *r = c ? sl__my_query(c, sl_strbuf_cstr(&q), NULL, &e) : NULL;
    MYSQL_ROW row = r ? mysql_fetch_row(r) : NULL;
    bool fenced = row && row[0] && strtoll(row[0], NULL, 10) != x->token;
    if (r)
        mysql_free_result(r);
    if (c)
        mysql_close(c);
    sl_strbuf_free(&q);
    sl_error_reset(&e);
    if (fenced)
        sl__jdbc_fenced(err, "MariaDB", x->job, x->prefix, epoch);
    return -1;
}

static int sl__myx_ensure_table(sl__my_txn *x, sl_error *err)
{
    if (x->table_ready)
        return 0;
    char *sql = sl_sprintf("CREATE TABLE IF NOT EXISTS %s (prefix VARCHAR(191) NOT NULL PRIMARY "
                           "KEY, job VARCHAR(1024) NOT NULL, epoch BIGINT NOT NULL, token BIGINT "
                           "NOT NULL, updated DATETIME(6) NOT NULL) ENGINE=InnoDB DEFAULT "
                           "CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
                           x->progress);
    int rc = sl__my_run(x->ctl, sql, "creating the progress table", err);
    sl_free(sql);
    if (rc != 0)
        return sl__myx_scrub(x, err);
    x->table_ready = true;
    return 0;
}

/* The progress row: its epoch (-1 when missing or another job's) and token. */
static int sl__myx_read_row(sl__my_txn *x, int64_t *epoch, int64_t *token, sl_error *err)
{
    *epoch = -1;
    if (token)
        *token = -1;
    sl_strbuf q = SL_STRBUF_INIT;
    sl_strbuf_appendf(&q, "SELECT epoch, token, job FROM %s WHERE prefix = ", x->progress);
    sl__my_quote_literal(&q, x->prefix);
    sl_error e = SL_ERROR_INIT;
    MYSQL_RES *r = sl__my_query(x->ctl, sl_strbuf_cstr(&q), "reading the progress table", &e);
    sl_strbuf_free(&q);
    if (!r) {
        if (strcmp(e.sqlstate, SL_ERR_UNDEFINED_TABLE) == 0) { /* nothing committed yet */
            sl_error_reset(&e);
            return 0;
        }
        sl_error_move(err, &e);
        return sl__myx_scrub(x, err);
    }
    MYSQL_ROW row = mysql_fetch_row(r);
    if (row && row[0] && row[1] && row[2]) {
        bool ours = strcmp(row[2], x->job) == 0 || (x->origin && strcmp(row[2], x->origin) == 0);
        if (ours)
            *epoch = strtoll(row[0], NULL, 10);
        if (token)
            *token = strtoll(row[1], NULL, 10);
    }
    mysql_free_result(r);
    return 0;
}

/* XA COMMIT (commit) or XA ROLLBACK of data's xid on c. */
static int sl__myx_finish_xid(sl__my_txn *x, MYSQL *c, int64_t epoch, int64_t token, bool commit,
                              sl_error *err)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_strbuf_append(&sb, commit ? "XA COMMIT " : "XA ROLLBACK ");
    sl__myx_xid(x, &sb, epoch, token);
    char *what = sl_sprintf("%s the XA transaction of epoch %" PRId64,
                            commit ? "committing" : "rolling back", epoch);
    int rc = sl__my_run(c, sl_strbuf_cstr(&sb), what, err);
    sl_free(what);
    sl_strbuf_free(&sb);
    return rc;
}

/* End the other sessions marked as ours (an earlier incarnation's, a
** zombie's): their open transactions roll back, their prepared ones are
** detached (then XA RECOVER's and resolvable). The control connection is
** this incarnation's only one at fencing time. */
static int sl__myx_kill_earlier(sl__my_txn *x, sl_error *err)
{
    sl_strbuf q = SL_STRBUF_INIT;
    sl_strbuf_append(&q, "SELECT ");
    for (int i = 0; i < SL__MY_LOCKS; i++)
        sl_strbuf_appendf(&q, "%sIS_USED_LOCK('%s%d')", i ? ", " : "", x->lockhead, i);
    sl_strbuf_append(&q, ", CONNECTION_ID()");
    MYSQL_RES *r = sl__my_query(x->ctl, sl_strbuf_cstr(&q), "stopping an earlier incarnation", err);
    sl_strbuf_free(&q);
    if (!r)
        return sl__myx_scrub(x, err);
    MYSQL_ROW row = mysql_fetch_row(r);
    int killed = 0;
    for (int i = 0; row && i < SL__MY_LOCKS; i++) {
        if (!row[i] || strcmp(row[i], row[SL__MY_LOCKS]) == 0)
            continue;
        char *sql = sl_sprintf("KILL CONNECTION %s", row[i]);
        sl_error e = SL_ERROR_INIT;
        if (sl__my_run(x->ctl, sql, NULL, &e) == 0 || strcmp(e.sqlstate, "XX000") == 0) {
            killed++; /* 1094 unknown thread: it ended meanwhile */
            sl_log(SL_LOG_WARN, "jdbc: job \"%s\": ended session %s of an earlier incarnation "
                                "with prefix '%s'",
                   x->job, row[i], x->prefix);
        }
        sl_error_reset(&e);
        sl_free(sql);
    }
    mysql_free_result(r);
    if (killed) /* KILL returns before the session is gone: let it go */
        sl_sleep_nanos(200 * SL_NANOS_PER_MILLI);
    return 0;
}

/* Commit ours prepared for epochs <= decided, roll back the rest. A
** prepared xid still attached to a session that is ending answers 1397 for
** a moment: retried for a while. */
static int sl__myx_resolve_xids(sl__my_txn *x, int64_t decided, sl_error *err)
{
    for (int round = 0;; round++) {
        MYSQL_RES *r = sl__my_query(x->ctl, "XA RECOVER", "listing prepared XA transactions", err);
        if (!r)
            return sl__myx_scrub(x, err);
        int rc = 0, busy = 0;
        MYSQL_ROW row;
        while (rc == 0 && (row = mysql_fetch_row(r))) {
            unsigned long *lens = mysql_fetch_lengths(r);
            if (!row[0] || strcmp(row[0], "1") != 0 || !row[1] || !row[3])
                continue;
            size_t gl = (size_t)strtoul(row[1], NULL, 10);
            int64_t n = sl__my_xid_epoch(row[3], gl, lens[3], x->prefix);
            int64_t tok = n < 0 ? -1 : sl__myx_token(row[3], gl, lens[3]);
            if (n < 0 || tok < 0)
                continue;
            bool commit = n <= decided;
            sl_error e = SL_ERROR_INIT;
            rc = sl__myx_finish_xid(x, x->ctl, n, tok, commit, &e);
            if (rc != 0 && strcmp(e.sqlstate, SL_ERR_UNDEFINED_OBJECT) == 0) {
                rc = 0; /* attached to a session still ending, or finished meanwhile */
                busy++;
                sl_error_reset(&e);
            } else if (rc != 0) {
                sl_error_move(err, &e);
                sl__myx_scrub(x, err);
            } else {
                sl_log(SL_LOG_INFO, "jdbc: job \"%s\": %s XA transaction of epoch %" PRId64
                                    " with prefix '%s' (decided: %" PRId64 ")",
                       x->job, commit ? "committed" : "rolled back", n, x->prefix, decided);
            }
        }
        mysql_free_result(r);
        if (rc != 0 || busy == 0)
            return rc;
        if (round == 20) {
            sl_error_set(err, SL_ERR_OBJECT_IN_USE, -1,
                         "job \"%s\": %d prepared XA transaction%s with prefix '%s' stay "
                         "attached to another session",
                         x->job, busy, busy > 1 ? "s" : "", x->prefix);
            sl_error_hint(err, "An earlier instance of the job that is still running? End it, "
                               "or end its sessions (KILL CONNECTION), and start again.");
            return -1;
        }
        if (round == 0 && sl__myx_kill_earlier(x, err) != 0)
            return -1;
        sl_sleep_nanos(100 * SL_NANOS_PER_MILLI);
    }
}

/* Bump the fencing token (insert the row when missing), after ending the
** earlier incarnations' sessions. */
static int sl__myx_fence(sl__my_txn *x, bool resolve, int64_t decided, sl_error *err)
{
    if (sl__my_run(x->ctl, "SET SESSION innodb_lock_wait_timeout = " SL__MY_LOCK_WAIT, "fencing",
                   err) != 0)
        return sl__myx_scrub(x, err);
    sl_strbuf q = SL_STRBUF_INIT;
    sl_strbuf_appendf(&q, "INSERT INTO %s (prefix, job, epoch, token, updated) VALUES (",
                      x->progress);
    sl__my_quote_literal(&q, x->prefix);
    sl_strbuf_append(&q, ", ");
    sl__my_quote_literal(&q, x->job);
    sl_strbuf_append(&q, ", -1, 1, UTC_TIMESTAMP(6)) ON DUPLICATE KEY UPDATE token = token + 1, "
                         "epoch = IF(job = ");
    sl__my_quote_literal(&q, x->job);
    sl_strbuf_append(&q, " OR job = ");
    sl__my_quote_literal(&q, x->origin ? x->origin : x->job);
    sl_strbuf_append(&q, ", epoch, -1), job = VALUES(job), updated = UTC_TIMESTAMP(6)");
    sl_strbuf sel = SL_STRBUF_INIT;
    sl_strbuf_appendf(&sel, "SELECT token FROM %s WHERE prefix = ", x->progress);
    sl__my_quote_literal(&sel, x->prefix);
    int rc = sl__myx_kill_earlier(x, err) == 0 ? 1 : -1;
    for (int attempt = 1; rc == 1; attempt++) {
        sl_error e = SL_ERROR_INIT;
        if (sl__my_run(x->ctl, "START TRANSACTION", "fencing", &e) == 0 &&
            sl__my_run(x->ctl, sl_strbuf_cstr(&q), "fencing earlier incarnations", &e) == 0) {
            MYSQL_RES *r = sl__my_query(x->ctl, sl_strbuf_cstr(&sel), "fencing", &e);
            MYSQL_ROW row = r ? mysql_fetch_row(r) : NULL;
            if (row && row[0])
                x->token = strtoll(row[0], NULL, 10);
            if (r)
                mysql_free_result(r);
            if (row && sl__my_run(x->ctl, "COMMIT", "fencing", &e) == 0) {
                rc = 0;
                break;
            }
        }
        sl_error ignore = SL_ERROR_INIT;
        sl__my_run(x->ctl, "ROLLBACK", NULL, &ignore);
        sl_error_reset(&ignore);
        if (strcmp(e.sqlstate, "55P03") != 0 || attempt == SL__MY_FENCE_TRIES) {
            if (!sl_error_isset(&e))
                sl_error_set(&e, SL_ERR_INTERNAL, -1, "fencing: the progress row is missing");
            sl_error_move(err, &e);
            if (strcmp(err->sqlstate, "55P03") == 0)
                sl_error_hint(err, "Another session holds the row of '%s' in sluice_progress: "
                                   "an earlier instance of the job that is still running?",
                              x->prefix);
            rc = sl__myx_scrub(x, err);
            break;
        }
        sl_error_reset(&e);
        if (sl__myx_kill_earlier(x, err) != 0 ||
            (resolve && sl__myx_resolve_xids(x, decided, err) != 0))
            rc = -1;
    }
    sl_strbuf_free(&q);
    sl_strbuf_free(&sel);
    if (rc == 0)
        sl_log(SL_LOG_INFO, "jdbc: job \"%s\": fencing token of '%s' is now %" PRId64, x->job,
               x->prefix, x->token);
    return rc;
}

/* ------------------------------------------------------------------------
** The epochs' transactions.
*/
static sl__my_slot *sl__myx_slot_of(sl__my_txn *x, int64_t epoch, sl_error *err)
{
    int64_t *const epochs[2] = {&x->slot[0].epoch, &x->slot[1].epoch};
    int i = sl__jdbc_slot_claim(&x->mu, epochs, epoch, err);
    return i < 0 ? NULL : &x->slot[i];
}

static void sl__myx_slot_release(sl__my_txn *x, sl__my_slot *s)
{
    pthread_mutex_lock(&x->mu);
    s->epoch = -1;
    s->begun = false;
    pthread_mutex_unlock(&x->mu);
}

/* With s->mu held: the slot's transaction begun (XA START, or BEGIN). */
static int sl__myx_slot_begin(sl__my_txn *x, sl__my_slot *s, int64_t epoch, sl_error *err)
{
    if (s->broken)
        return sl_error_set(err, SL_ERR_CONNECTION_FAILURE, -1,
                            "jdbc: the transaction of job \"%s\" in %s failed earlier", x->job,
                            x->target.display);
    if (!s->conn) {
        pthread_mutex_lock(&x->mu);
        s->conn = x->spare;
        x->spare = NULL;
        pthread_mutex_unlock(&x->mu);
    }
    if (!s->conn && !(s->conn = sl__myx_connect(x, 0, err)))
        return -1;
    if (!s->begun) {
        sl_strbuf sb = SL_STRBUF_INIT;
        if (x->last_resource) {
            sl_strbuf_append(&sb, "START TRANSACTION");
        } else {
            sl_strbuf_append(&sb, "XA START ");
            sl__myx_xid(x, &sb, epoch, x->token);
        }
        int rc = sl__my_run(s->conn, sl_strbuf_cstr(&sb), "beginning the epoch's transaction",
                            err);
        sl_strbuf_free(&sb);
        if (rc != 0) {
            s->broken = true;
            return sl__myx_scrub(x, err);
        }
        pthread_mutex_lock(&x->mu);
        s->begun = true;
        s->began = time(NULL);
        pthread_mutex_unlock(&x->mu);
    }
    return 0;
}

int sl__my_txn_write(sl_participant *p, int64_t epoch, void *w, const sl_chunk *c, sl_error *err)
{
    sl__my_txn *x = p->impl;
    sl__my_slot *s = sl__myx_slot_of(x, epoch, err);
    if (!s)
        return -1;
    pthread_mutex_lock(&s->mu);
    int rc = sl__myx_slot_begin(x, s, epoch, err);
    if (rc == 0 && (rc = sl__my_driver.writer_put(w, s->conn, c, epoch, err)) != 0) {
        s->broken = true; /* the transaction is lost: the job restarts */
        sl__myx_scrub(x, err);
    }
    pthread_mutex_unlock(&s->mu);
    if (rc != 0)
        sl__myx_maybe_fenced(x, epoch, err);
    return rc;
}

/* Epoch's transaction ends with its progress row (our token, or fenced). */
static int sl__myx_slot_progress(sl__my_txn *x, sl__my_slot *s, int64_t epoch, sl_error *err)
{
    if (sl__myx_slot_begin(x, s, epoch, err) != 0) /* an empty epoch: the row alone */
        return sl__myx_maybe_fenced(x, epoch, err);
    sl_strbuf q = SL_STRBUF_INIT;
    sl_strbuf_appendf(&q, "UPDATE %s SET epoch = %" PRId64 ", updated = UTC_TIMESTAMP(6) WHERE "
                          "prefix = ",
                      x->progress, epoch);
    sl__my_quote_literal(&q, x->prefix);
    sl_strbuf_appendf(&q, " AND token = %" PRId64, x->token);
    int64_t matched = -1;
    int rc = sl__my_run_count(s->conn, sl_strbuf_cstr(&q), &matched,
                              "recording the epoch in the progress table", err);
    sl_strbuf_free(&q);
    if (rc != 0) {
        s->broken = true;
        sl__myx_scrub(x, err);
        return sl__myx_maybe_fenced(x, epoch, err);
    }
    if (matched != 1) { /* no row with our token: another incarnation's */
        s->broken = true;                /* its transaction rolls back with the connection */
        return sl__jdbc_fenced(err, "MariaDB", x->job, x->prefix, epoch);
    }
    return 0;
}

/* The slot's connection leaves it (prepared: held for its commit). */
static MYSQL *sl__myx_slot_take(sl__my_txn *x, sl__my_slot *s)
{
    MYSQL *c = s->conn;
    s->conn = NULL;
    sl__myx_slot_release(x, s);
    return c;
}

static int sl__myx_prepare(sl_participant *p, int64_t epoch, sl_error *err)
{
    sl__my_txn *x = p->impl;
    sl__my_slot *s = sl__myx_slot_of(x, epoch, err);
    if (!s)
        return -1;
    int h = -1;
    for (int i = 0; i < SL__MY_HELD && h < 0; i++)
        if (x->held[i].epoch < 0)
            h = i;
    if (h < 0)
        return sl_error_set(err, SL_ERR_INTERNAL, -1,
                            "jdbc: epoch %" PRId64 " prepared while %d are not committed", epoch,
                            SL__MY_HELD);
    pthread_mutex_lock(&s->mu);
    int rc = sl__myx_slot_progress(x, s, epoch, err);
    if (rc == 0) {
        sl_strbuf sb = SL_STRBUF_INIT;
        sl_strbuf_append(&sb, "XA END ");
        sl__myx_xid(x, &sb, epoch, x->token);
        rc = sl__my_run(s->conn, sl_strbuf_cstr(&sb), "ending the epoch's XA transaction", err);
        sl_strbuf_reset(&sb);
        sl_strbuf_append(&sb, "XA PREPARE ");
        sl__myx_xid(x, &sb, epoch, x->token);
        if (rc == 0)
            rc = sl__my_run(s->conn, sl_strbuf_cstr(&sb), "preparing the epoch's XA transaction",
                            err);
        sl_strbuf_free(&sb);
        if (rc == 0) {
            x->held[h].epoch = epoch;
            x->held[h].at = time(NULL);
            x->held[h].conn = sl__myx_slot_take(x, s);
        } else {
            s->broken = true;
            sl__myx_scrub(x, err);
            sl__myx_maybe_fenced(x, epoch, err);
            sl_error_detail(err, "Checkpoint %" PRId64 " was not decided; the job resumes from "
                                 "the one before (its XA transaction is rolled back).",
                            epoch);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

static sl__my_held *sl__myx_held(sl__my_txn *x, int64_t epoch)
{
    for (int i = 0; i < SL__MY_HELD; i++)
        if (x->held[i].epoch == epoch)
            return &x->held[i];
    return NULL;
}

/* The held connection done with: a spare for the next epoch, or closed. */
static void sl__myx_unhold(sl__my_txn *x, sl__my_held *h, bool reuse)
{
    if (h->conn) {
        pthread_mutex_lock(&x->mu);
        if (reuse && !x->spare) {
            x->spare = h->conn;
            h->conn = NULL;
        }
        pthread_mutex_unlock(&x->mu);
        if (h->conn)
            mysql_close(h->conn);
    }
    h->conn = NULL;
    h->epoch = -1;
}

static int sl__myx_commit(sl_participant *p, int64_t epoch, sl_error *err)
{
    sl__my_txn *x = p->impl;
    sl__my_held *h = sl__myx_held(x, epoch);
    sl_error e = SL_ERROR_INIT;
    int rc = -1;
    if (h && sl__my_alive(h->conn)) {
        rc = sl__myx_finish_xid(x, h->conn, epoch, x->token, true, &e);
        if (rc == 0) {
            sl__myx_unhold(x, h, true);
            return 0;
        }
        if (sl__my_alive(h->conn)) { /* the server said no: not a lost session */
            if (strcmp(e.sqlstate, SL_ERR_UNDEFINED_OBJECT) != 0) {
                sl_error_move(err, &e);
                sl__myx_scrub(x, err);
                return sl__myx_maybe_fenced(x, epoch, err);
            }
        }
        sl_error_reset(&e);
        sl__myx_unhold(x, h, false); /* its session ends: the xid is detached */
    }
    /* From the control connection: the session that prepared it is gone. */
    if (sl__myx_ctl(x, err) != 0)
        return -1;
    rc = sl__myx_finish_xid(x, x->ctl, epoch, x->token, true, &e);
    if (rc == 0) {
        if (h)
            h->epoch = -1;
        return 0;
    }
    if (strcmp(e.sqlstate, SL_ERR_UNDEFINED_OBJECT) != 0) {
        sl_error_move(err, &e);
        sl__myx_scrub(x, err);
        return sl__myx_maybe_fenced(x, epoch, err);
    }
    sl_error_reset(&e);
    /* Gone: committed already (a restart's resolve) or rolled back by a
    ** newer incarnation. The progress row tells which. */
    int64_t done = -1, token = -1;
    if (sl__myx_read_row(x, &done, &token, err) != 0)
        return -1;
    if (h)
        h->epoch = -1;
    if (done >= epoch && token == x->token)
        return 0;
    return sl__jdbc_fenced(err, "MariaDB", x->job, x->prefix, epoch);
}

/* The last resource's decision: the epoch's COMMIT with its progress row. */
static int sl__myx_decide(sl_participant *p, int64_t epoch, sl_error *err)
{
    sl__my_txn *x = p->impl;
    sl__my_slot *s = sl__myx_slot_of(x, epoch, err);
    if (!s)
        return -1;
    pthread_mutex_lock(&s->mu);
    int rc = sl__myx_slot_progress(x, s, epoch, err);
    if (rc == 0) {
        rc = sl__my_run(s->conn, "COMMIT", "committing the epoch's transaction", err);
        if (rc == 0) {
            sl__myx_slot_release(x, s);
        } else {
            s->broken = true;
            sl__myx_scrub(x, err);
            sl__myx_maybe_fenced(x, epoch, err);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

static int sl__myx_peek(sl_participant *p, int64_t *decided, sl_error *err)
{
    sl__my_txn *x = p->impl;
    *decided = -1;
    if (sl__myx_ctl(x, err) != 0)
        return -1;
    return sl__myx_read_row(x, decided, NULL, err);
}

static int sl__myx_recover(sl_participant *p, int64_t *decided, sl_error *err)
{
    sl__my_txn *x = p->impl;
    *decided = -1;
    if (sl__myx_ctl(x, err) != 0 || sl__myx_ensure_table(x, err) != 0)
        return -1;
    if (x->last_resource && sl__myx_fence(x, false, -1, err) != 0)
        return -1;
    if (sl__myx_read_row(x, decided, NULL, err) != 0)
        return -1;
    sl_log(SL_LOG_INFO, "jdbc: job \"%s\": the newest epoch committed in %s with prefix '%s' is "
                        "%" PRId64,
           x->job, x->target.display, x->prefix, *decided);
    return 0;
}

static int sl__myx_resolve(sl_participant *p, int64_t decided, sl_error *err)
{
    sl__my_txn *x = p->impl;
    if (sl__myx_ctl(x, err) != 0 || sl__myx_ensure_table(x, err) != 0)
        return -1;
    if (sl__myx_kill_earlier(x, err) != 0 || sl__myx_resolve_xids(x, decided, err) != 0)
        return -1;
    return sl__myx_fence(x, true, decided, err);
}

static int sl__myx_settle(sl_participant *p, int64_t decided, sl_error *err)
{
    sl__my_txn *x = p->impl;
    int rc = 0;
    for (int i = 0; i < SL__MY_HELD; i++) {
        sl__my_held *h = &x->held[i];
        if (h->epoch < 0)
            continue;
        bool commit = h->epoch <= decided;
        MYSQL *c = sl__my_alive(h->conn) ? h->conn : NULL;
        if (!c) {
            if (h->conn)
                mysql_close(h->conn);
            h->conn = NULL;
            if (!sl__my_alive(x->ctl)) {
                if (x->ctl)
                    mysql_close(x->ctl);
                x->ctl = sl__myx_connect(x, SL__MY_FREE_TIMEOUT_MS, err);
                if (!x->ctl)
                    return -1;
            }
            c = x->ctl;
        }
        sl_error e = SL_ERROR_INIT;
        int r = sl__myx_finish_xid(x, c, h->epoch, x->token, commit, &e);
        if (r == 0)
            sl_log(SL_LOG_INFO, "jdbc: job \"%s\": %s XA transaction of epoch %" PRId64
                                " (checkpoint %" PRId64 " is the newest sealed)",
                   x->job, commit ? "committed" : "rolled back", h->epoch, decided);
        if (r == 0 || strcmp(e.sqlstate, SL_ERR_UNDEFINED_OBJECT) == 0) {
            sl_error_reset(&e);
            sl__myx_unhold(x, h, false);
        } else {
            sl_error_move(err, &e);
            rc = -1;
        }
    }
    return rc;
}

static void sl__myx_free(sl_participant *p)
{
    if (!p)
        return;
    sl__my_txn *x = p->impl;
    for (int i = 0; i < 2; i++) { /* closing rolls back what is open */
        if (x->slot[i].conn)
            mysql_close(x->slot[i].conn);
        pthread_mutex_destroy(&x->slot[i].mu);
    }
    for (int i = 0; i < SL__MY_HELD; i++) {
        if (x->held[i].epoch >= 0)
            sl_log(SL_LOG_WARN, "jdbc: job \"%s\": the XA transaction of epoch %" PRId64
                                " is left prepared for the next start to resolve",
                   x->job, x->held[i].epoch);
        if (x->held[i].conn)
            mysql_close(x->held[i].conn);
    }
    if (x->spare)
        mysql_close(x->spare);
    if (x->ctl)
        mysql_close(x->ctl);
    sl__pg_target_clear(&x->target);
    sl_free(x->prefix);
    sl_free(x->gtrid);
    sl_free(x->job);
    sl_free(x->origin);
    sl_free(x->progress);
    pthread_mutex_destroy(&x->mu);
    sl_free(x);
    sl_free(p);
}

static void sl__myx_describe(sl_participant *p, sl_strbuf *out)
{
    sl__my_txn *x = p->impl;
    for (int i = 0; i < SL__MY_HELD; i++)
        if (x->held[i].epoch >= 0) {
            sl_strbuf_appendf(out, "%smariadb '%s%" PRId64 ":%" PRId64 "' prepared",
                              out->len ? "; " : "", x->gtrid, x->held[i].epoch, x->token);
            sl__jdbc_since(out, x->held[i].at);
        }
    pthread_mutex_lock(&x->mu);
    for (int i = 0; i < 2; i++)
        if (x->slot[i].epoch >= 0 && x->slot[i].begun) {
            sl_strbuf_appendf(out, "%smariadb '%s' epoch %" PRId64 " open", out->len ? "; " : "",
                              x->prefix, x->slot[i].epoch);
            sl__jdbc_since(out, x->slot[i].began);
        }
    pthread_mutex_unlock(&x->mu);
}

static const sl_participant_ops sl__my_preparable_ops = {
    .recover = sl__myx_recover,
    .free = sl__myx_free,
    .peek = sl__myx_peek,
    .prepare = sl__myx_prepare,
    .commit = sl__myx_commit,
    .resolve = sl__myx_resolve,
    .settle = sl__myx_settle,
    .describe = sl__myx_describe,
};

static const sl_participant_ops sl__my_last_resource_ops = {
    .recover = sl__myx_recover,
    .decide = sl__myx_decide,
    .free = sl__myx_free,
    .peek = sl__myx_peek,
    .describe = sl__myx_describe,
};

int sl__my_txn_create(const sl_participant_args *args, sl_participant **out, sl_error *err)
{
    *out = NULL;
    if (args->nsinks < 1)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "jdbc: a participant without sinks");
    const sl_kvlist *opts = args->options[0];
    const char *prefix = sl_kvlist_get(opts, "sink.transactional-id-prefix");
    if (!prefix || !prefix[0] || strlen(prefix) > SL__MY_PREFIX_MAX)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "exactly-once into MariaDB needs a 'sink.transactional-id-prefix' of "
                            "1 to %d bytes",
                            SL__MY_PREFIX_MAX);
    sl__my_txn *x = sl_calloc(1, sizeof *x);
    if (sl__pg_target_parse(opts, &x->target, err) != 0) {
        sl_free(x);
        return -1;
    }
    pthread_mutex_init(&x->mu, NULL);
    for (int i = 0; i < 2; i++) {
        pthread_mutex_init(&x->slot[i].mu, NULL);
        x->slot[i].epoch = -1;
    }
    for (int i = 0; i < SL__MY_HELD; i++)
        x->held[i].epoch = -1;
    x->opts = opts;
    x->prefix = sl_strdup(prefix);
    x->gtrid = sl_sprintf(SL__MY_GTRID_HEAD "%s:", prefix);
    x->job = sl_strdup(args->job ? args->job : "");
    x->origin = args->origin ? sl_strdup(args->origin) : NULL;
    snprintf(x->lockhead, sizeof x->lockhead, "sluice:%016" PRIx64 ":",
             sl_hash_bytes(prefix, strlen(prefix), 0x736c75696365ull));
    sl_strbuf q = SL_STRBUF_INIT;
    if (x->target.schema) {
        sl__my_quote_ident(&q, x->target.schema);
        sl_strbuf_append_char(&q, '.');
    }
    sl__my_quote_ident(&q, SL__PG_PROGRESS_TABLE);
    x->progress = sl_strbuf_detach(&q);
    x->last_resource = args->last_resource;
    x->token = -1;
    sl_participant *p = sl_calloc(1, sizeof *p);
    p->ops = x->last_resource ? &sl__my_last_resource_ops : &sl__my_preparable_ops;
    p->impl = x;
    *out = p;
    return 0;
}
