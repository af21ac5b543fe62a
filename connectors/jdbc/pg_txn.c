/*
** pg_txn.c — exactly-once into PostgreSQL: the job's participant for the
** exactly-once jdbc sinks on one database (DESIGN.md section 5), fencing,
** recovery, and the resolver's live probe.
**
** One transaction per epoch and database. Every exactly-once jdbc sink
** instance of a job whose 'url' names this database (every table of a
** statement set, every subtask) writes epoch N into the same transaction
** (sl__pg_txn_write). So a reader never sees one table's epoch without the
** other's, and the last-resource role needs no restriction on parallelism.
** This deliberately strengthens the "one transaction per subtask"
** (and "a last resource has one subtask").
**
** Connections. Two epoch connections (epoch N open until its prepare or
** decision while N+1 already receives writes: the runtime triggers N+1's
** checkpoint only after N is decided, so two suffice), each with a mutex
** serializing the sink instances' writes, and one control connection for
** everything the coordinating thread does. Every connection is named
** 'sluice <prefix>' (application_name). A connection that failed is not
** reused: the job fails and restarts by its restart strategy.
**
** Writes. A table without a key is written by COPY (sl__pg_writer_put),
** kept open on the epoch's connection across chunks and ended
** (sl__pg_writer_finish) only when the connection is needed for anything
** else: another writer's rows, the progress row before PREPARE or COMMIT,
** or the same writer's rows of the next epoch (the other connection). One
** COPY per epoch and sink instance instead of one per chunk (bench_pg's
** case c). The slot's copy names the writer whose COPY may be open on its
** connection; it is changed under the slot's mutex and x->mu, so a sink
** instance can see under x->mu alone whether its COPY is open on the other
** slot: it takes the other slot's mutex only then. Never otherwise: that
** mutex may be held by a write waiting in the server for a row lock of
** this epoch's transaction, which is prepared only after this instance's
** barrier (a deadlock).
**
** The progress table sluice_progress (SL__PG_PROGRESS_TABLE), in the schema
** of the first sink's table, created IF NOT EXISTS outside any epoch's
** transaction:
**
**   prefix  text PRIMARY KEY  the participant's key: the first sink's
**                             'sink.transactional-id-prefix'
**   job     text              the job that owns the row
**   epoch   bigint            the newest committed epoch (-1: none)
**   token   bigint            the fencing token of the newest incarnation
**   updated timestamptz       when the row last changed
**
** Epoch N's transaction ends with
**   UPDATE sluice_progress SET epoch = N, updated = now()
**    WHERE prefix = $prefix AND token = $token
** (no row: another incarnation fenced this one: 55006 naming the prefix,
** the transaction rolled back), then
**
**   preparable      PREPARE TRANSACTION 'sluice:<prefix>:<N>' at prepare(N);
**                   COMMIT PREPARED at commit(N), after the decision;
**   last resource   COMMIT at decide(N) (max_prepared_transactions = 0): that
**                   commit, with its progress row, *is* the decision.
**
** The gid is 'sluice:<prefix>:<N>:<token>', < 200 bytes (PostgreSQL's
** limit): a prefix longer than SL__PG_PREFIX_MAX bytes is refused (22023).
** The token makes each incarnation's gids its own: a zombie's COMMIT
** PREPARED can never commit what a newer instance prepared for the same
** epoch. Ours are found in pg_prepared_xacts by parsing each gid of the
** database (the text between 'sluice:' and the epoch equals the prefix
** exactly, epoch and token are numbers), never by LIKE: prefix 'a' does not
** match 'ab'. resolve(D) commits ours of epochs <= D whatever their token.
**
**   step                     crash right after it         what recovery does
**   ----------------------   --------------------------   ---------------------------
**   writes of epoch N        transaction open: the        nothing (N not decided)
**                            server rolls it back
**   prepare(N)               gid(N) prepared, N not        resolve(D < N): ROLLBACK
**                            decided                       PREPARED gid(N)
**   decision (seal / last    gid(N) prepared, N decided    resolve(D >= N): COMMIT
**   resource's commit)                                     PREPARED gid(N)
**   commit(N)                committed: the progress row  nothing to resolve
**                            says N
**   decide(N) (last          committed with the progress  recover() reads N back: the
**   resource)                row, or not at all            decision; the runtime seals
**
** commit(N) is idempotent: COMMIT PREPARED of a gid already gone fails with
** 42704; then the progress row tells "committed" (epoch >= N, our token)
** from "rolled back by a newer incarnation" (fenced: 55006; nothing of N
** became visible).
**
** Fencing (a copy of the data directory started elsewhere: failover).
** recover() of the preparable role reads the progress row's epoch without
** fencing (the newest committed epoch); resolve(D) commits ours prepared for
** epochs <= D, rolls back the rest, then bumps the token. The last resource
** bumps the token first and then reads the epoch: that is the decision. The
** bump first terminates the other backends named 'sluice <prefix>' (an
** earlier incarnation's, e.g. a SIGSTOPped process whose open epoch
** transaction holds locks on the sinks' rows or on the progress row), then
** waits at most SL__PG_LOCK_TIMEOUT for the row: when a prepared
** transaction of theirs holds it (prepared after resolve looked), the
** prepared gids are resolved again and the bump retried
** (SL__PG_FENCE_TRIES). application_name keeps 63 bytes: two prefixes
** equal in their first 56 bytes would terminate each other's backends at
** a start (the other job then fails and restarts; nothing is lost).
** From then on the zombie's UPDATE finds no row with its token: its
** PREPARE or COMMIT never happens, and it stops with 55006.
**
** settle(D), after a failure, finishes the epoch this instance prepared by
** the data directory's newest seal D: COMMIT PREPARED when it is <= D (the
** seal became durable, whatever the failure said), ROLLBACK PREPARED
** otherwise — a failed job leaves no prepared transaction behind. It never
** fences (a fenced zombie settles too: its gids carry its own token, so it
** can only finish its own). free() rolls back what is open and leaves a
** prepared epoch that was not settled to the next start's resolve():
** without the seal it cannot know whether it was decided. Peek reads the
** progress row without fencing (both roles).
**
** Probe (plan time, bounded): SHOW max_prepared_transactions: >= 2:
** preparable; fewer: the last resource (the resolver then refuses a second
** last resource in the job, e.g. Kafka exactly-once); a role that can
** neither create sluice_progress nor write an existing one: at-least-once
** with the reason. Unreachable: the connect error (08001).
**
** Main routines: sl__pg_txn_create, sl__pg_txn_write, sl__pg_txn_run,
** sl__pg_probe, and the sl_participant_ops below.
*/
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jdbc_int.h"

#define SL__PG_GID_HEAD "sluice:"     /* every gid of ours starts so */
#define SL__PG_PREFIX_MAX 152         /* 7 + 152 + 2 * (1 + 19 digits) < 200 bytes */
#define SL__PG_LOCK_TIMEOUT "2s"      /* the fencing UPDATE's wait for the row */
#define SL__PG_FENCE_TRIES 5          /* terminate-and-retry rounds of fencing */
#define SL__PG_FREE_TIMEOUT_MS 5000   /* free(): connecting to roll back */

typedef struct sl__pg_slot {
    pthread_mutex_t mu; /* serializes the sink instances' writes */
    PGconn *conn;       /* NULL until first used */
    int64_t epoch;      /* the epoch whose transaction it carries, -1 = none (x->mu) */
    bool begun;         /* BEGIN sent (x->mu) */
    time_t began;       /* when (wall clock, SHOW JOBS) */
    bool broken;        /* a statement failed: the transaction and connection are lost */
    sl__pg_writer *copy; /* the writer whose COPY may be open on conn, or NULL (mu + x->mu) */
} sl__pg_slot;

typedef struct sl__pg_txn {
    pthread_mutex_t mu;      /* guards the slots' epochs */
    sl__pg_slot slot[2];     /* the epoch connections */
    PGconn *ctl;             /* the control connection (coordinating thread only) */
    sl__pg_target target;    /* the first sink's database */
    const sl_kvlist *opts;   /* its options (scrubbing secrets) */
    char *prefix;            /* 'sink.transactional-id-prefix' */
    char *job;               /* the job's name */
    char *origin;            /* the job whose savepoint it starts from, or NULL */
    char *appname;           /* 'sluice <prefix>' */
    char *progress;          /* the progress table, quoted and qualified */
    bool last_resource;      /* the role */
    int64_t token;           /* our fencing token, -1 before fencing */
    int64_t prepared;        /* the epoch this instance prepared and did not commit, -1 */
    time_t prepared_at;      /* when (wall clock, SHOW JOBS) */
    bool table_ready;        /* sluice_progress exists */
} sl__pg_txn;

static char *sl__gid(const sl__pg_txn *x, int64_t epoch)
{
    return sl_sprintf(SL__PG_GID_HEAD "%s:%" PRId64 ":%" PRId64, x->prefix, epoch, x->token);
}

/* The epoch of gid when it is one of prefix's ('sluice:<prefix>:<epoch>:
** <token>', the prefix compared exactly), else -1. */
static int64_t sl__gid_epoch(const char *gid, const char *prefix)
{
    size_t hl = strlen(SL__PG_GID_HEAD), pl = strlen(prefix), gl = strlen(gid);
    if (gl < hl + pl + 4 || strncmp(gid, SL__PG_GID_HEAD, hl) != 0 ||
        strncmp(gid + hl, prefix, pl) != 0 || gid[hl + pl] != ':')
        return -1;
    const char *e = gid + hl + pl + 1, *colon = strchr(e, ':');
    if (!colon || sl__jdbc_digits(colon + 1, strlen(colon + 1)) < 0)
        return -1;
    return sl__jdbc_digits(e, (size_t)(colon - e));
}

static int sl__err(sl__pg_txn *x, sl_error *err);

/* After a failure that may be the fencing's doing (the connection was
** terminated by a newer incarnation: 57P01, or lost: 08xxx): when the
** progress row, read on a connection of its own, carries another token,
** err becomes the fencing error (55006), which the restart strategy does
** not restart. Else err stays (a server restart: the job restarts). */
static int sl__maybe_fenced(sl__pg_txn *x, int64_t epoch, sl_error *err)
{
    if (x->token < 0 || (strncmp(err->sqlstate, "08", 2) != 0 &&
                         strncmp(err->sqlstate, "57P0", 4) != 0))
        return -1;
    sl_error e = SL_ERROR_INIT;
    PGconn *c = sl__pg_connect(&x->target, x->appname, SL__PG_FREE_TIMEOUT_MS, &e);
    char *sql = sl_sprintf("SELECT token FROM %s WHERE prefix = $1", x->progress);
    const char *p[] = {x->prefix};
    PGresult *r = c ? sl__pg_exec(c, sql, 1, p, NULL, &e) : NULL;
    bool fenced = r && PQntuples(r) == 1 && strtoll(PQgetvalue(r, 0, 0), NULL, 10) != x->token;
    PQclear(r);
    sl_free(sql);
    if (c)
        PQfinish(c);
    sl_error_reset(&e);
    if (fenced) {
        sl_error_reset(err);
        sl__jdbc_fenced(err, "PostgreSQL", x->job, x->prefix, epoch);
    }
    return -1;
}

/* A server error, its secrets scrubbed. */
static int sl__err(sl__pg_txn *x, sl_error *err)
{
    sl_option_scrub_error(err, x->opts);
    return -1;
}

static void sl__quiet(void *arg, const char *message)
{
    (void)arg, (void)message; /* "relation ... already exists, skipping" */
}

static PGconn *sl__connect(sl__pg_txn *x, int64_t timeout_ms, sl_error *err)
{
    PGconn *c = sl__pg_connect(&x->target, x->appname, timeout_ms, err);
    if (!c)
        sl__err(x, err);
    else
        PQsetNoticeProcessor(c, sl__quiet, NULL);
    return c;
}

static int sl__ctl(sl__pg_txn *x, sl_error *err)
{
    if (x->ctl && PQstatus(x->ctl) == CONNECTION_OK)
        return 0;
    if (x->ctl)
        PQfinish(x->ctl);
    x->ctl = sl__connect(x, 0, err);
    return x->ctl ? 0 : -1;
}

/* sl__pg_exec on the control connection, its errors scrubbed. */
static PGresult *sl__q(sl__pg_txn *x, const char *sql, int n, const char *const *params,
                       const char *what, sl_error *err)
{
    PGresult *r = sl__pg_exec(x->ctl, sql, n, params, what, err);
    if (!r)
        sl__err(x, err);
    return r;
}

/* Create the progress table when it is missing (outside any epoch). */
static int sl__ensure_table(sl__pg_txn *x, sl_error *err)
{
    if (x->table_ready)
        return 0;
    char *sql = sl_sprintf("CREATE TABLE IF NOT EXISTS %s (prefix text PRIMARY KEY, job text NOT "
                           "NULL, epoch bigint NOT NULL, token bigint NOT NULL, updated "
                           "timestamptz NOT NULL DEFAULT now())",
                           x->progress);
    sl_error e = SL_ERROR_INIT;
    PGresult *r = sl__pg_exec(x->ctl, sql, 0, NULL, "creating the progress table", &e);
    sl_free(sql);
    /* Two jobs creating it at once: one of them sees a unique violation. */
    if (!r && strcmp(e.sqlstate, "23505") != 0 && strcmp(e.sqlstate, "42P07") != 0) {
        sl_error_move(err, &e);
        return sl__err(x, err);
    }
    sl_error_reset(&e);
    PQclear(r);
    x->table_ready = true;
    return 0;
}

/* The progress row: its epoch (-1 when missing or another job's) and token. */
static int sl__read_row(sl__pg_txn *x, int64_t *epoch, int64_t *token, sl_error *err)
{
    *epoch = -1;
    if (token)
        *token = -1;
    char *sql = sl_sprintf("SELECT epoch, token, job FROM %s WHERE prefix = $1", x->progress);
    const char *p[] = {x->prefix};
    sl_error e = SL_ERROR_INIT;
    PGresult *r = sl__pg_exec(x->ctl, sql, 1, p, "reading the progress table", &e);
    sl_free(sql);
    if (!r) {
        if (strcmp(e.sqlstate, SL_ERR_UNDEFINED_TABLE) == 0) { /* nothing committed yet */
            sl_error_reset(&e);
            return 0;
        }
        sl_error_move(err, &e);
        return sl__err(x, err);
    }
    if (PQntuples(r) == 1) {
        const char *job = PQgetvalue(r, 0, 2);
        bool ours = strcmp(job, x->job) == 0 || (x->origin && strcmp(job, x->origin) == 0);
        if (ours)
            *epoch = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        if (token)
            *token = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
    }
    PQclear(r);
    return 0;
}

/* COMMIT PREPARED (commit) or ROLLBACK PREPARED gid on the control connection. */
static int sl__finish_prepared(sl__pg_txn *x, const char *gid, bool commit, sl_error *err)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_strbuf_append(&sb, commit ? "COMMIT PREPARED " : "ROLLBACK PREPARED ");
    sl__pg_quote_literal(&sb, gid);
    char *what = sl_sprintf("%s prepared transaction '%s'", commit ? "committing" : "rolling back",
                            gid);
    PGresult *r = sl__pg_exec(x->ctl, sl_strbuf_cstr(&sb), 0, NULL, what, err);
    sl_free(what);
    sl_strbuf_free(&sb);
    if (!r)
        return -1;
    PQclear(r);
    return 0;
}

/* Commit ours prepared for epochs <= decided, roll back the rest. */
static int sl__resolve_gids(sl__pg_txn *x, int64_t decided, sl_error *err)
{
    PGresult *r = sl__q(x,
                        "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() "
                        "ORDER BY gid",
                        0, NULL, "listing prepared transactions", err);
    if (!r)
        return -1;
    int rc = 0;
    for (int i = 0; rc == 0 && i < PQntuples(r); i++) {
        const char *gid = PQgetvalue(r, i, 0);
        int64_t n = sl__gid_epoch(gid, x->prefix);
        if (n < 0)
            continue;
        bool commit = n <= decided;
        sl_error e = SL_ERROR_INIT;
        rc = sl__finish_prepared(x, gid, commit, &e);
        if (rc != 0 && strcmp(e.sqlstate, SL_ERR_UNDEFINED_OBJECT) == 0) {
            rc = 0; /* finished meanwhile by another session */
            sl_error_reset(&e);
        } else if (rc != 0) {
            sl_error_move(err, &e);
            sl__err(x, err);
        } else {
            sl_log(SL_LOG_INFO, "jdbc: job \"%s\": %s prepared transaction '%s' (decided: %" PRId64
                                ")",
                   x->job, commit ? "committed" : "rolled back", gid, decided);
        }
    }
    PQclear(r);
    return rc;
}

/* Terminate the other backends named as ours: an earlier incarnation's
** (a zombie's open epoch transaction holds locks on the sinks' rows and,
** between its UPDATE and its end, on the progress row). At fencing time
** this instance has no other connection open. */
static int sl__terminate_earlier(sl__pg_txn *x, sl_error *err)
{
    PGresult *r = sl__q(x,
                        "SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                        "application_name = current_setting('application_name') AND pid <> "
                        "pg_backend_pid() AND datname = current_database()",
                        0, NULL, "stopping an earlier incarnation", err);
    if (!r)
        return -1;
    for (int i = 0; i < PQntuples(r); i++)
        sl_log(SL_LOG_WARN, "jdbc: job \"%s\": terminated backend %s of an earlier incarnation "
                            "with prefix '%s'",
               x->job, PQgetvalue(r, i, 0), x->prefix);
    PQclear(r);
    return 0;
}

/* Bump the fencing token (insert the row when missing), after terminating
** the earlier incarnations' backends. A prepared transaction of theirs
** holding the row (made after resolve looked) is resolved against decided
** (when resolve is true) and the bump retried. */
static int sl__fence(sl__pg_txn *x, bool resolve, int64_t decided, sl_error *err)
{
    if (sl__pg_run(x->ctl, "SET lock_timeout = '" SL__PG_LOCK_TIMEOUT "'", "fencing", err) != 0)
        return sl__err(x, err);
    char *sql = sl_sprintf(
        "INSERT INTO %s AS p (prefix, job, epoch, token, updated) VALUES ($1, $2, -1, 1, now()) "
        "ON CONFLICT (prefix) DO UPDATE SET token = p.token + 1, job = $2, updated = now(), "
        "epoch = CASE WHEN p.job = $2 OR p.job = $3 THEN p.epoch ELSE -1 END RETURNING token",
        x->progress);
    const char *p[] = {x->prefix, x->job, x->origin ? x->origin : x->job};
    int rc = sl__terminate_earlier(x, err) == 0 ? 1 : -1;
    for (int attempt = 1; rc == 1; attempt++) {
        sl_error e = SL_ERROR_INIT;
        PGresult *r = sl__pg_exec(x->ctl, sql, 3, p, "fencing earlier incarnations", &e);
        if (r) {
            x->token = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
            PQclear(r);
            rc = 0;
            break;
        }
        if (strcmp(e.sqlstate, "55P03") != 0 || attempt == SL__PG_FENCE_TRIES) {
            sl_error_move(err, &e);
            if (strcmp(err->sqlstate, "55P03") == 0)
                sl_error_hint(err, "Another session holds the row of '%s' in %s: an earlier "
                                   "instance of the job that is still running?",
                              x->prefix, SL__PG_PROGRESS_TABLE);
            rc = sl__err(x, err);
            break;
        }
        sl_error_reset(&e);
        if (sl__terminate_earlier(x, err) != 0 ||
            (resolve && sl__resolve_gids(x, decided, err) != 0))
            rc = -1;
    }
    sl_free(sql);
    sl_error ignore = SL_ERROR_INIT;
    sl__pg_run(x->ctl, "SET lock_timeout = 0", NULL, &ignore);
    sl_error_reset(&ignore);
    if (rc == 0)
        sl_log(SL_LOG_INFO, "jdbc: job \"%s\": fencing token of '%s' is now %" PRId64, x->job,
               x->prefix, x->token);
    return rc;
}

/* ------------------------------------------------------------------------
** The epochs' transactions.
*/

/* The slot of epoch (claimed when none has it yet), or NULL with err. */
static sl__pg_slot *sl__slot_of(sl__pg_txn *x, int64_t epoch, sl_error *err)
{
    int64_t *const epochs[2] = {&x->slot[0].epoch, &x->slot[1].epoch};
    int i = sl__jdbc_slot_claim(&x->mu, epochs, epoch, err);
    return i < 0 ? NULL : &x->slot[i];
}

static void sl__slot_release(sl__pg_txn *x, sl__pg_slot *s)
{
    pthread_mutex_lock(&x->mu);
    s->epoch = -1;
    s->begun = false;
    pthread_mutex_unlock(&x->mu);
}

/* With s->mu held: the slot's transaction begun. */
static int sl__slot_begin(sl__pg_txn *x, sl__pg_slot *s, sl_error *err)
{
    if (s->broken)
        return sl_error_set(err, SL_ERR_CONNECTION_FAILURE, -1,
                            "jdbc: the transaction of job \"%s\" in %s failed earlier", x->job,
                            x->target.display);
    if (!s->conn && !(s->conn = sl__connect(x, 0, err)))
        return -1;
    if (!s->begun) {
        if (sl__pg_run(s->conn, "BEGIN", "beginning the epoch's transaction", err) != 0) {
            s->broken = true;
            return sl__err(x, err);
        }
        pthread_mutex_lock(&x->mu);
        s->begun = true;
        s->began = time(NULL);
        pthread_mutex_unlock(&x->mu);
    }
    return 0;
}

/* With s->mu held: the COPY open on the slot's connection (if any) ended,
** so the connection can take other statements. A broken slot's is
** forgotten (its connection is lost). */
static void sl__slot_set_copy(sl__pg_txn *x, sl__pg_slot *s, sl__pg_writer *w)
{
    pthread_mutex_lock(&x->mu);
    s->copy = w;
    pthread_mutex_unlock(&x->mu);
}

/* The slot's copy is cleared only after the writer is finished: until
** then its own thread, about to write the next epoch on the other slot,
** sees it here and waits for this slot's mutex instead of appending to a
** row buffer that is being sent and reset. */
static int sl__slot_end_copy(sl__pg_txn *x, sl__pg_slot *s, sl_error *err)
{
    sl__pg_writer *w = s->copy;
    if (!w)
        return 0;
    int rc = 0;
    if (s->broken) {
        sl__pg_writer_forget(w);
    } else if (sl__pg_writer_finish(w, err) != 0) {
        s->broken = true; /* the transaction is aborted: the job restarts */
        rc = sl__err(x, err);
    }
    sl__slot_set_copy(x, s, NULL);
    return rc;
}

int sl__pg_txn_run(sl_participant *p, int64_t epoch, sl__pg_txn_fn fn, void *ctx, sl_error *err)
{
    sl__pg_txn *x = p->impl;
    sl__pg_slot *s = sl__slot_of(x, epoch, err);
    if (!s)
        return -1;
    pthread_mutex_lock(&s->mu);
    int rc = sl__slot_begin(x, s, err);
    if (rc == 0)
        rc = sl__slot_end_copy(x, s, err);
    if (rc == 0 && (rc = fn(ctx, s->conn, epoch, err)) != 0) {
        s->broken = true; /* the transaction is aborted: the job restarts */
        sl__err(x, err);
    }
    pthread_mutex_unlock(&s->mu);
    if (rc != 0)
        sl__maybe_fenced(x, epoch, err);
    return rc;
}

int sl__pg_txn_write(sl_participant *p, int64_t epoch, sl__pg_writer *w, const sl_chunk *c,
                     sl_error *err)
{
    sl__pg_txn *x = p->impl;
    sl__pg_slot *s = sl__slot_of(x, epoch, err);
    if (!s)
        return -1;
    /* w's COPY of the previous epoch, still open on the other slot's
    ** connection (under that slot's mutex, never two at once). */
    int rc = 0;
    for (int i = 0; i < 2 && rc == 0; i++) {
        sl__pg_slot *o = &x->slot[i];
        pthread_mutex_lock(&x->mu);
        bool mine = o != s && o->copy == w; /* only w's own put sets it to w */
        pthread_mutex_unlock(&x->mu);
        if (!mine)
            continue;
        pthread_mutex_lock(&o->mu);
        if (o->copy == w)
            rc = sl__slot_end_copy(x, o, err);
        pthread_mutex_unlock(&o->mu);
    }
    if (rc != 0)
        return sl__maybe_fenced(x, epoch, err);
    pthread_mutex_lock(&s->mu);
    rc = sl__slot_begin(x, s, err);
    if (rc == 0 && s->copy != w)
        rc = sl__slot_end_copy(x, s, err); /* another writer's */
    if (rc == 0) {
        if ((rc = sl__pg_writer_put(w, s->conn, c, epoch, err)) == 0) {
            if (s->copy != w)
                sl__slot_set_copy(x, s, w); /* a no-op finish for a table with a key */
        } else {
            sl_error ignored = SL_ERROR_INIT;
            sl__pg_writer_finish(w, &ignored);
            sl_error_reset(&ignored);
            sl__slot_set_copy(x, s, NULL);
            s->broken = true; /* the transaction is aborted: the job restarts */
            sl__err(x, err);
        }
    }
    pthread_mutex_unlock(&s->mu);
    if (rc != 0)
        sl__maybe_fenced(x, epoch, err);
    return rc;
}

/* Epoch's transaction ends with its progress row (our token, or fenced). */
static int sl__slot_progress(sl__pg_txn *x, sl__pg_slot *s, int64_t epoch, sl_error *err)
{
    if (sl__slot_begin(x, s, err) != 0 || /* an empty epoch: its transaction holds the row alone */
        sl__slot_end_copy(x, s, err) != 0)
        return sl__maybe_fenced(x, epoch, err);
    char *sql = sl_sprintf("UPDATE %s SET epoch = $3, updated = now() WHERE prefix = $1 AND "
                           "token = $2",
                           x->progress);
    char tok[24], ep[24];
    snprintf(tok, sizeof tok, "%" PRId64, x->token);
    snprintf(ep, sizeof ep, "%" PRId64, epoch);
    const char *p[] = {x->prefix, tok, ep};
    PGresult *r = sl__pg_exec(s->conn, sql, 3, p, "recording the epoch in the progress table", err);
    sl_free(sql);
    if (!r) {
        s->broken = true;
        sl__err(x, err);
        return sl__maybe_fenced(x, epoch, err);
    }
    bool ok = strcmp(PQcmdTuples(r), "1") == 0;
    PQclear(r);
    if (!ok) {
        sl_error ignore = SL_ERROR_INIT;
        sl__pg_run(s->conn, "ROLLBACK", NULL, &ignore);
        sl_error_reset(&ignore);
        sl__slot_release(x, s);
        return sl__jdbc_fenced(err, "PostgreSQL", x->job, x->prefix, epoch);
    }
    return 0;
}

/* End epoch's transaction: its progress row, then closing (PREPARE
** TRANSACTION or COMMIT). 0 with the slot released; -1 when the progress
** row failed (fenced, or the connection); -2 when closing failed, the slot
** broken (whether it happened is for the restart to find out). */
static int sl__slot_close(sl__pg_txn *x, int64_t epoch, const char *closing, const char *what,
                          sl_error *err)
{
    sl__pg_slot *s = sl__slot_of(x, epoch, err);
    if (!s)
        return -1;
    pthread_mutex_lock(&s->mu);
    int rc = sl__slot_progress(x, s, epoch, err);
    if (rc == 0) {
        rc = sl__pg_run(s->conn, closing, what, err);
        if (rc == 0) {
            sl__slot_release(x, s);
        } else {
            rc = -2;
            s->broken = true;
            sl__err(x, err);
            sl__maybe_fenced(x, epoch, err);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

static int sl__txn_prepare(sl_participant *p, int64_t epoch, sl_error *err)
{
    sl__pg_txn *x = p->impl;
    char *gid = sl__gid(x, epoch);
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_strbuf_append(&sb, "PREPARE TRANSACTION ");
    sl__pg_quote_literal(&sb, gid);
    int rc = sl__slot_close(x, epoch, sl_strbuf_cstr(&sb), "preparing the epoch's transaction",
                            err);
    if (rc == 0) {
        x->prepared = epoch;
        x->prepared_at = time(NULL);
    } else if (rc == -2) {
        sl_error_detail(err, "Checkpoint %" PRId64 " was not decided; the job resumes from "
                             "the one before (prepared transaction '%s' is rolled back).",
                        epoch, gid);
    }
    sl_strbuf_free(&sb);
    sl_free(gid);
    return rc == 0 ? 0 : -1;
}

static int sl__txn_commit(sl_participant *p, int64_t epoch, sl_error *err)
{
    sl__pg_txn *x = p->impl;
    if (sl__ctl(x, err) != 0)
        return -1;
    char *gid = sl__gid(x, epoch);
    sl_error e = SL_ERROR_INIT;
    int rc = sl__finish_prepared(x, gid, true, &e);
    sl_free(gid);
    if (rc == 0) {
        if (x->prepared == epoch)
            x->prepared = -1;
        return 0;
    }
    if (strcmp(e.sqlstate, SL_ERR_UNDEFINED_OBJECT) != 0) {
        sl_error_move(err, &e);
        sl__err(x, err);
        return sl__maybe_fenced(x, epoch, err);
    }
    sl_error_reset(&e);
    /* Gone: committed already (by a restart's resolve) or rolled back by a
    ** newer incarnation. The progress row tells which. */
    int64_t done = -1, token = -1;
    if (sl__read_row(x, &done, &token, err) != 0)
        return -1;
    if (done >= epoch && token == x->token) {
        if (x->prepared == epoch)
            x->prepared = -1;
        return 0;
    }
    return sl__jdbc_fenced(err, "PostgreSQL", x->job, x->prefix, epoch);
}

/* The last resource's decision: the epoch's COMMIT, carrying its progress
** row (lost with the connection or not: the restart reads the row back). */
static int sl__txn_decide(sl_participant *p, int64_t epoch, sl_error *err)
{
    return sl__slot_close(p->impl, epoch, "COMMIT", "committing the epoch's transaction", err) == 0
               ? 0
               : -1;
}

static int sl__txn_peek(sl_participant *p, int64_t *decided, sl_error *err)
{
    sl__pg_txn *x = p->impl;
    *decided = -1;
    if (sl__ctl(x, err) != 0)
        return -1;
    return sl__read_row(x, decided, NULL, err);
}

static int sl__txn_recover(sl_participant *p, int64_t *decided, sl_error *err)
{
    sl__pg_txn *x = p->impl;
    *decided = -1;
    if (sl__ctl(x, err) != 0 || sl__ensure_table(x, err) != 0)
        return -1;
    if (x->last_resource && sl__fence(x, false, -1, err) != 0)
        return -1;
    if (sl__read_row(x, decided, NULL, err) != 0)
        return -1;
    sl_log(SL_LOG_INFO, "jdbc: job \"%s\": the newest epoch committed in %s with prefix '%s' is "
                        "%" PRId64,
           x->job, x->target.display, x->prefix, *decided);
    return 0;
}

static int sl__txn_resolve(sl_participant *p, int64_t decided, sl_error *err)
{
    sl__pg_txn *x = p->impl;
    if (sl__ctl(x, err) != 0 || sl__ensure_table(x, err) != 0)
        return -1;
    if (sl__resolve_gids(x, decided, err) != 0)
        return -1;
    return sl__fence(x, true, decided, err);
}

static int sl__txn_settle(sl_participant *p, int64_t decided, sl_error *err)
{
    sl__pg_txn *x = p->impl;
    if (x->prepared < 0)
        return 0;
    for (int i = 0; i < 2; i++) /* its open transactions end with their connections */
        if (x->slot[i].conn) {
            PQfinish(x->slot[i].conn);
            x->slot[i].conn = NULL;
        }
    if (!x->ctl || PQstatus(x->ctl) != CONNECTION_OK) {
        if (x->ctl)
            PQfinish(x->ctl);
        x->ctl = sl__connect(x, SL__PG_FREE_TIMEOUT_MS, err);
        if (!x->ctl)
            return -1;
    }
    bool commit = x->prepared <= decided;
    char *gid = sl__gid(x, x->prepared);
    sl_error e = SL_ERROR_INIT;
    int rc = sl__finish_prepared(x, gid, commit, &e);
    if (rc == 0)
        sl_log(SL_LOG_INFO, "jdbc: job \"%s\": %s prepared transaction '%s' (checkpoint %" PRId64
                            " is the newest sealed)",
               x->job, commit ? "committed" : "rolled back", gid, decided);
    if (rc == 0 || strcmp(e.sqlstate, SL_ERR_UNDEFINED_OBJECT) == 0) { /* gone: finished */
        x->prepared = -1;
        rc = 0;
        sl_error_reset(&e);
    } else {
        sl_error_move(err, &e);
    }
    sl_free(gid);
    return rc;
}

static void sl__txn_free(sl_participant *p)
{
    if (!p)
        return;
    sl__pg_txn *x = p->impl;
    for (int i = 0; i < 2; i++) { /* closing rolls back what is open */
        if (x->slot[i].conn)
            PQfinish(x->slot[i].conn);
        pthread_mutex_destroy(&x->slot[i].mu);
    }
    if (x->prepared >= 0)
        sl_log(SL_LOG_WARN, "jdbc: job \"%s\": prepared transaction of epoch %" PRId64
                            " is left for the next start to resolve",
               x->job, x->prepared);
    if (x->ctl)
        PQfinish(x->ctl);
    sl__pg_target_clear(&x->target);
    sl_free(x->prefix);
    sl_free(x->job);
    sl_free(x->origin);
    sl_free(x->appname);
    sl_free(x->progress);
    pthread_mutex_destroy(&x->mu);
    sl_free(x);
    sl_free(p);
}

/* SHOW JOBS: the gid this instance prepared and has not committed, and
** the epochs' open transactions. */
static void sl__txn_describe(sl_participant *p, sl_strbuf *out)
{
    sl__pg_txn *x = p->impl;
    if (x->prepared >= 0) {
        char *gid = sl__gid(x, x->prepared);
        sl_strbuf_appendf(out, "%spostgresql '%s' prepared", out->len ? "; " : "", gid);
        sl__jdbc_since(out, x->prepared_at);
        sl_free(gid);
    }
    pthread_mutex_lock(&x->mu);
    for (int i = 0; i < 2; i++)
        if (x->slot[i].epoch >= 0 && x->slot[i].begun) {
            sl_strbuf_appendf(out, "%spostgresql '%s' epoch %" PRId64 " open",
                              out->len ? "; " : "", x->prefix, x->slot[i].epoch);
            sl__jdbc_since(out, x->slot[i].began);
        }
    pthread_mutex_unlock(&x->mu);
}

static const sl_participant_ops sl__pg_preparable_ops = {
    .recover = sl__txn_recover,
    .free = sl__txn_free,
    .peek = sl__txn_peek,
    .prepare = sl__txn_prepare,
    .commit = sl__txn_commit,
    .resolve = sl__txn_resolve,
    .settle = sl__txn_settle,
    .describe = sl__txn_describe,
};

static const sl_participant_ops sl__pg_last_resource_ops = {
    .recover = sl__txn_recover,
    .decide = sl__txn_decide,
    .free = sl__txn_free,
    .peek = sl__txn_peek,
    .describe = sl__txn_describe,
};

/* The prefix of opts, checked: 0, or -1 with err (22023 at its value). */
static int sl__prefix_of(const sl_kvlist *opts, const char **out, sl_error *err)
{
    const sl_kv *kv = sl_kvlist_find(opts, "sink.transactional-id-prefix");
    *out = kv ? kv->value : NULL;
    if (!kv || !kv->value || !kv->value[0])
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "exactly-once into PostgreSQL needs 'sink.transactional-id-prefix'");
    if (strlen(kv->value) > SL__PG_PREFIX_MAX) {
        /* No position: the option is in the table's DDL, not in the INSERT
        ** being planned (the resolver points at the sink there). */
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                     "invalid value for option 'sink.transactional-id-prefix': %zu bytes, more "
                     "than %d",
                     strlen(kv->value), SL__PG_PREFIX_MAX);
        sl_error_hint(err, "Choose a prefix of at most %d bytes.", SL__PG_PREFIX_MAX);
        sl_error_detail(err, "It names the prepared transactions ('" SL__PG_GID_HEAD
                             "<prefix>:<checkpoint>:<token>'), which PostgreSQL limits to 199 "
                             "bytes.");
        return -1;
    }
    return 0;
}

int sl__pg_txn_create(const sl_participant_args *args, sl_participant **out, sl_error *err)
{
    *out = NULL;
    if (args->nsinks < 1)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "jdbc: a participant without sinks");
    const sl_kvlist *opts = args->options[0];
    const char *prefix;
    if (sl__prefix_of(opts, &prefix, err) != 0)
        return -1;
    sl__pg_txn *x = sl_calloc(1, sizeof *x);
    if (sl__pg_target_parse(opts, &x->target, err) != 0) {
        sl_free(x);
        return -1;
    }
    pthread_mutex_init(&x->mu, NULL);
    for (int i = 0; i < 2; i++) {
        pthread_mutex_init(&x->slot[i].mu, NULL);
        x->slot[i].epoch = -1;
    }
    x->opts = opts;
    x->prefix = sl_strdup(prefix);
    x->job = sl_strdup(args->job ? args->job : "");
    x->origin = args->origin ? sl_strdup(args->origin) : NULL;
    x->appname = sl_sprintf("sluice %s", prefix);
    sl_strbuf q = SL_STRBUF_INIT;
    if (x->target.schema) {
        sl__pg_quote_ident(&q, x->target.schema);
        sl_strbuf_append_char(&q, '.');
    }
    sl__pg_quote_ident(&q, SL__PG_PROGRESS_TABLE);
    x->progress = sl_strbuf_detach(&q);
    x->last_resource = args->last_resource;
    x->token = -1;
    x->prepared = -1;
    sl_participant *p = sl_calloc(1, sizeof *p);
    p->ops = x->last_resource ? &sl__pg_last_resource_ops : &sl__pg_preparable_ops;
    p->impl = x;
    *out = p;
    return 0;
}

/* ------------------------------------------------------------------------
** The resolver's live probe.
*/
int sl__pg_probe(const sl_kvlist *opts, int64_t timeout_ms, sl_sink_probe *out, sl_error *err)
{
    const char *prefix;
    if (sl_kvlist_get(opts, "sink.transactional-id-prefix") &&
        sl__prefix_of(opts, &prefix, err) != 0)
        return -1;
    sl__pg_target t;
    if (sl__pg_target_parse(opts, &t, err) != 0)
        return -1;
    PGconn *c = sl__pg_connect(&t, "sluice probe", timeout_ms > 0 ? timeout_ms : 5000, err);
    if (!c) {
        sl_option_scrub_error(err, opts);
        sl__pg_target_clear(&t);
        return -1;
    }
    /* Who may keep the progress table: CREATE on the schema when it is
    ** missing, else SELECT, INSERT and UPDATE on it. */
    static const char sql[] =
        "WITH s AS (SELECT coalesce($1, current_schema()) AS nsp), "
        "t AS (SELECT nsp, to_regclass(quote_ident(nsp) || '.' || quote_ident($2)) AS rel FROM s) "
        "SELECT current_setting('max_prepared_transactions')::int, current_user, nsp, "
        "rel IS NOT NULL, "
        "CASE WHEN nsp IS NULL THEN false WHEN rel IS NULL THEN "
        "has_schema_privilege(nsp, 'CREATE') ELSE has_table_privilege(rel, 'SELECT') AND "
        "has_table_privilege(rel, 'INSERT') AND has_table_privilege(rel, 'UPDATE') END FROM t";
    const char *params[] = {t.schema, SL__PG_PROGRESS_TABLE};
    PGresult *r = sl__pg_exec(c, sql, 2, params, "probing the server", err);
    int rc = -1;
    if (r && PQntuples(r) == 1) {
        int mpt = atoi(PQgetvalue(r, 0, 0));
        const char *user = PQgetvalue(r, 0, 1);
        const char *nsp = PQgetisnull(r, 0, 2) ? NULL : PQgetvalue(r, 0, 2);
        bool exists = strcmp(PQgetvalue(r, 0, 3), "t") == 0;
        bool allowed = strcmp(PQgetvalue(r, 0, 4), "t") == 0;
        out->mech = mpt >= 2 ? SL_MECH_2PC_PREPARABLE : SL_MECH_LAST_RESOURCE;
        if (!allowed) {
            out->max = SL_GUARANTEE_AT_LEAST_ONCE;
            if (!nsp)
                out->why = sl_sprintf("role \"%s\" has no schema for the progress table %s on "
                                      "%s (the search path is empty)",
                                      user, SL__PG_PROGRESS_TABLE, t.display);
            else if (exists)
                out->why = sl_sprintf("role \"%s\" may not SELECT, INSERT and UPDATE the "
                                      "progress table %s.%s on %s",
                                      user, nsp, SL__PG_PROGRESS_TABLE, t.display);
            else
                out->why = sl_sprintf("role \"%s\" may not create the progress table %s in "
                                      "schema %s on %s (CREATE on the schema is needed)",
                                      user, SL__PG_PROGRESS_TABLE, nsp, t.display);
        } else if (mpt < 2) {
            out->why = sl_sprintf("max_prepared_transactions is %d on %s: exactly-once commits "
                                  "as the job's last resource",
                                  mpt, t.display);
        }
        rc = 0;
    } else if (r) {
        sl_error_set(err, SL_ERR_INTERNAL, -1, "jdbc: the probe of %s returned no row",
                     t.display);
    }
    PQclear(r);
    PQfinish(c);
    if (rc != 0)
        sl_option_scrub_error(err, opts);
    sl__pg_target_clear(&t);
    return rc;
}

/* ------------------------------------------------------------------------
** DROP TABLE: the prepared transactions of the table's prefix would hold
** its rows locked with nothing left to resolve them. Refused while there
** are any; the job's restart resolves them (it knows which are decided),
** or an administrator rolls them back.
*/
int sl__pg_drop_check(const sl_connector *c, const sl_kvlist *opts, sl_error *err)
{
    (void)c;
    const char *prefix = sl_kvlist_get(opts, "sink.transactional-id-prefix");
    sl__pg_target t;
    if (!prefix || !prefix[0])
        return 0;
    sl_error e = SL_ERROR_INIT;
    if (sl__pg_target_parse(opts, &t, &e) != 0) {
        sl_error_reset(&e);
        return 0;
    }
    PGconn *conn = sl__pg_connect(&t, "sluice drop", SL__PG_FREE_TIMEOUT_MS, &e);
    PGresult *r = conn ? sl__pg_exec(conn,
                                     "SELECT gid, to_char(prepared AT TIME ZONE 'UTC', "
                                     "'YYYY-MM-DD HH24:MI:SS') FROM pg_prepared_xacts WHERE "
                                     "database = current_database() ORDER BY prepared",
                                     0, NULL, NULL, &e)
                       : NULL;
    if (!r) {
        sl_option_scrub_error(&e, opts);
        sl_log(SL_LOG_WARN, "jdbc: could not look for prepared transactions of prefix '%s' in "
                            "%s before dropping the table: %s",
               prefix, t.display, e.message ? e.message : "");
    }
    sl_strbuf gids = SL_STRBUF_INIT;
    int n = 0;
    for (int i = 0; r && i < PQntuples(r); i++)
        if (sl__gid_epoch(PQgetvalue(r, i, 0), prefix) >= 0) {
            if (n++ < 5)
                sl_strbuf_appendf(&gids, "%s'%s' (prepared %s UTC)", n > 1 ? ", " : "",
                                  PQgetvalue(r, i, 0), PQgetvalue(r, i, 1));
        }
    int rc = n > 0 ? sl__jdbc_drop_refused(err, false, &t, prefix, n, sl_strbuf_cstr(&gids)) : 0;
    sl_strbuf_free(&gids);
    sl_error_reset(&e);
    PQclear(r);
    if (conn)
        PQfinish(conn);
    sl__pg_target_clear(&t);
    return rc;
}
