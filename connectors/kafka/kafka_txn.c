/*
** kafka_txn.c — Kafka as the job's last-resource participant (DESIGN.md
** section 5): the transactional producers every exactly-once Kafka sink of
** a job writes through, the decision of each checkpoint, fencing, and the
** probe of the broker's transaction limit.
**
** Producers. Two transactional producers with the stable ids <prefix>0 and
** <prefix>1 (the first sink's 'sink.transactional-id-prefix', followed by
** '-' unless it already ends in a separator): epoch N's rows go into the
** open transaction of producer N % 2. Every sink instance of the job — all
** subtasks, every table of a statement set on this cluster — produces into
** it, so one commit makes all of epoch N visible at once. Meanwhile the
** other producer already carries epoch N+1: writing never waits for a
** commit. Two are enough: the runtime triggers checkpoint N+1 only after N
** is decided, so epoch N+2 begins (at barrier N+1) after N's transaction
** ended.
**
** Decision. decide(N) adds to N's transaction a transactional offset
** commit for the consumer group 'sluice-progress-<prefix>': offset N on
** partition 0 of the first sink's topic, with the metadata
** "sluice-checkpoint <N> <job>". The offset commits atomically with the
** data, so the commit's success is the decision.
**
** Recovery. recover() calls init_transactions on both ids, which fences any
** earlier incarnation (a zombie then fails at its next call) and aborts its
** open transaction; then it reads the group's committed offsets on
** partition 0 of every sink's topic (only committed transactions' offsets
** are there) and returns the largest checkpoint whose metadata names this
** job. peek() reads them before that, without waiting for transactions in
** flight and without fencing anyone.
**
** Errors. A retriable error of a transactional call is retried until the
** transaction timeout has passed; an abortable one aborts the transaction
** and fails the checkpoint with 08006 (the job restarts from the decided
** checkpoint); a transaction Kafka aborted because it was open longer than
** transaction.timeout.ms fails it with 40000 (restarted too); being fenced
** by a newer incarnation fails the job with 55006, and any other fatal
** error with 58030 (neither is restarted).
**
** Main routines: sl__kafka_txn_create, sl__kafka_txn_producer,
** sl__kafka_txn_error, sl__kafka_probe, and the sl_participant_ops below.
*/
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kafka_int.h"

#define SL__TXN_RETRY_PAUSE_MS 100 /* between retries of a transactional call */

typedef struct sl__kafka_producer {
    rd_kafka_t *rk; /* the transactional producer */
    char *id;       /* its transactional.id */
    int64_t epoch;  /* the epoch of its open transaction, -1 = none (guarded by mu) */
    int64_t began;  /* when it began (monotonic ms) */
} sl__kafka_producer;

typedef struct sl__kafka_txn {
    pthread_mutex_t mu;           /* guards the producers' epochs */
    sl__kafka_producer prod[2];   /* epoch % 2 */
    char *group;                  /* the consumer group holding the decisions */
    char *job;                    /* the job's name (in the decision's metadata) */
    char *origin;                 /* the job whose savepoint it starts from, or NULL: its
                                     decisions are this job's past (sl_participant_args) */
    char *prefix;                 /* 'sink.transactional-id-prefix' */
    int ntopics;                  /* the sinks' topics: the first carries the decision */
    char **topics;
    const sl_kvlist *opts;        /* the first sink's options (the cluster's properties) */
    _Atomic int64_t failed;       /* records whose delivery failed (the transaction aborts) */
    int64_t timeout_ms;           /* transaction.timeout.ms: how long calls are retried */
    bool recovered;               /* init_transactions done */
} sl__kafka_txn;

static bool sl__fencing_code(rd_kafka_resp_err_t e)
{
    return e == RD_KAFKA_RESP_ERR__FENCED || e == RD_KAFKA_RESP_ERR_PRODUCER_FENCED ||
           e == RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH ||
           e == RD_KAFKA_RESP_ERR_TRANSACTION_COORDINATOR_FENCED;
}

/* The error of a producer that has failed fatally, or 0 when it has not.
** Kafka fences a transaction it aborted for its timeout the same way as one
** a newer instance took over. When one of the job's two transactions has
** been open longer than transaction.timeout.ms (whichever producer hit the
** fence first), it is taken for the timeout: 40000, and the restart
** strategy restarts the job, whose recovery refuses (before fencing anyone)
** if a newer instance had in fact gone on from a copy of its state. */
static int sl__fatal(sl__kafka_txn *x, rd_kafka_t *rk, const char *what, sl_error *err)
{
    char reason[512];
    rd_kafka_resp_err_t e = rd_kafka_fatal_error(rk, reason, sizeof reason);
    if (!e)
        return 0;
    if (!sl__fencing_code(e)) {
        sl_error_set(err, SL_ERR_IO, -1, "the Kafka transactional producer failed: %s", reason);
        sl_error_detail(err, "During %s.", what);
        return -1;
    }
    int64_t epoch = -1, open_ms = 0, now = sl__kafka_now_ms();
    pthread_mutex_lock(&x->mu);
    for (int i = 0; i < 2; i++)
        if (x->prod[i].epoch >= 0 && now - x->prod[i].began > open_ms) {
            epoch = x->prod[i].epoch;
            open_ms = now - x->prod[i].began;
        }
    pthread_mutex_unlock(&x->mu);
    if (epoch >= 0 && open_ms >= x->timeout_ms) {
        sl_error_set(err, SL_ERR_TRANSACTION_ROLLBACK, -1,
                     "Kafka aborted the transaction of checkpoint %" PRId64 " of job \"%s\": it "
                     "was open for %" PRId64 " ms, longer than 'properties.transaction.timeout.ms' "
                     "(%" PRId64 " ms)",
                     epoch, x->job, open_ms, x->timeout_ms);
        sl_error_detail(err, "Kafka refused %s: %s. Nothing of checkpoint %" PRId64
                             " became visible; a restart resumes from the checkpoint before.",
                        what, reason, epoch);
        sl_error_hint(err, "A transaction lasts from one checkpoint to the decision of the next: "
                           "raise 'properties.transaction.timeout.ms' (up to the brokers' "
                           "transaction.max.timeout.ms) or make checkpoints faster.");
        return -1;
    }
    sl_error_set(err, SL_ERR_OBJECT_IN_USE, -1,
                 "job \"%s\" was fenced: a newer instance writes with transactional id "
                 "prefix '%s'",
                 x->job, x->prefix);
    sl_error_detail(err, "Kafka refused %s: %s. This instance stops; nothing it had not "
                         "committed becomes visible.",
                    what, reason);
    sl_error_hint(err, "Run each job in one place at a time; give jobs that should run "
                       "side by side their own 'sink.transactional-id-prefix'.");
    return -1;
}

/* Delivery reports: served by whichever sink task polls (they also wake a
** task waiting for room in a full queue). A failed record makes its
** transaction fail to commit; the first one is logged. */
static void sl__txn_dr(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    sl__kafka_txn *x = opaque;
    if (m->err && x->failed++ == 0)
        sl_log(SL_LOG_WARN, "kafka: a record of job \"%s\" was not delivered: %s", x->job,
               rd_kafka_err2str(m->err));
}

int sl__kafka_txn_error(sl_participant *p, rd_kafka_t *rk, const char *what, sl_error *err)
{
    return sl__fatal(p->impl, rk, what, err);
}

/* Run one transactional call until it succeeds or fails for good. 0, or
** -1 with err (fatal: 55006 / 58030; abortable or out of time: 08006). */
typedef rd_kafka_error_t *(*sl__txn_call)(rd_kafka_t *rk, void *arg, int timeout_ms);

static int sl__retry(sl__kafka_txn *x, rd_kafka_t *rk, const char *what, sl__txn_call call,
                     void *arg, bool *abortable, sl_error *err)
{
    int64_t deadline = sl__kafka_now_ms() + x->timeout_ms;
    *abortable = false;
    for (;;) {
        int64_t left = deadline - sl__kafka_now_ms();
        rd_kafka_error_t *e = call(rk, arg, (int)(left > 1000 ? left : 1000));
        if (!e)
            return 0;
        if (rd_kafka_error_is_fatal(e)) {
            rd_kafka_error_destroy(e);
            if (sl__fatal(x, rk, what, err) == 0)
                sl_error_set(err, SL_ERR_IO, -1, "the Kafka transactional producer failed");
            return -1;
        }
        bool retry = rd_kafka_error_is_retriable(e) && sl__kafka_now_ms() < deadline;
        *abortable = rd_kafka_error_txn_requires_abort(e);
        if (retry && !*abortable) {
            rd_kafka_error_destroy(e);
            sl_sleep_nanos(SL__TXN_RETRY_PAUSE_MS * SL_NANOS_PER_MILLI);
            continue;
        }
        /* Abortable, or retriable and out of time: the job can try again
        ** from its checkpoint. Anything else is treated as fatal. */
        sl_error_set(err,
                     *abortable || rd_kafka_error_is_retriable(e) ? SL_ERR_CONNECTION_FAILURE
                                                                  : SL_ERR_IO,
                     -1, "Kafka %s failed: %s", what, rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
        return -1;
    }
}

static rd_kafka_error_t *sl__call_init(rd_kafka_t *rk, void *arg, int timeout_ms)
{
    (void)arg;
    return rd_kafka_init_transactions(rk, timeout_ms);
}

static rd_kafka_error_t *sl__call_commit(rd_kafka_t *rk, void *arg, int timeout_ms)
{
    (void)arg;
    return rd_kafka_commit_transaction(rk, timeout_ms);
}

static rd_kafka_error_t *sl__call_abort(rd_kafka_t *rk, void *arg, int timeout_ms)
{
    (void)arg;
    return rd_kafka_abort_transaction(rk, timeout_ms);
}

typedef struct sl__offsets_arg {
    rd_kafka_topic_partition_list_t *offsets;
    rd_kafka_consumer_group_metadata_t *group;
} sl__offsets_arg;

static rd_kafka_error_t *sl__call_offsets(rd_kafka_t *rk, void *arg, int timeout_ms)
{
    sl__offsets_arg *a = arg;
    return rd_kafka_send_offsets_to_transaction(rk, a->offsets, a->group, timeout_ms);
}

/* ------------------------------------------------------------------------
** For the sink instances
*/

rd_kafka_t *sl__kafka_txn_producer(sl_participant *sp, int64_t epoch, sl_error *err)
{
    sl__kafka_txn *x = sp->impl;
    sl__kafka_producer *p = &x->prod[epoch % 2];
    rd_kafka_t *rk = NULL;
    rd_kafka_error_t *e = NULL;
    pthread_mutex_lock(&x->mu);
    if (p->epoch == epoch) {
        rk = p->rk;
    } else if (p->epoch >= 0) {
        /* The runtime decides N before it triggers N+1: never reached. */
        sl_error_set(err, SL_ERR_INTERNAL, -1,
                     "kafka: epoch %" PRId64 " begins while the transaction of epoch %" PRId64
                     " is still open",
                     epoch, p->epoch);
    } else if ((e = rd_kafka_begin_transaction(p->rk)) == NULL) {
        p->epoch = epoch;
        p->began = sl__kafka_now_ms();
        rk = p->rk;
    }
    pthread_mutex_unlock(&x->mu);
    if (e) { /* (sl__fatal takes mu) */
        if (sl__fatal(x, p->rk, "beginning a transaction", err) == 0)
            sl_error_set(err, SL_ERR_IO, -1, "could not begin a Kafka transaction: %s",
                         rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
    }
    return rk;
}

const char *sl__kafka_txn_id(sl_participant *sp, int64_t epoch)
{
    sl__kafka_txn *x = sp->impl;
    return x->prod[epoch % 2].id;
}

/* ------------------------------------------------------------------------
** The participant
*/

/* "sluice-checkpoint <N> <job>": the decision's metadata. */
static char *sl__decision_text(const sl__kafka_txn *x, int64_t epoch)
{
    return sl_sprintf("sluice-checkpoint %" PRId64 " %s", epoch, x->job);
}

/* The checkpoint a committed offset records for this job (or for the job
** whose savepoint it starts from: the runtime then refuses a savepoint
** older than it), or -1. */
static int64_t sl__decision_of(const sl__kafka_txn *x, const rd_kafka_topic_partition_t *tp)
{
    if (tp->err || tp->offset < 0 || !tp->metadata)
        return -1;
    char *want = sl__decision_text(x, tp->offset);
    bool ours = tp->metadata_size == strlen(want) && memcmp(tp->metadata, want, tp->metadata_size) == 0;
    if (!ours && x->origin) {
        sl_free(want);
        want = sl_sprintf("sluice-checkpoint %" PRId64 " %s", tp->offset, x->origin);
        ours = tp->metadata_size == strlen(want) && memcmp(tp->metadata, want, tp->metadata_size) == 0;
    }
    if (!ours)
        sl_log(SL_LOG_WARN,
               "kafka: the consumer group '%s' records \"%.*s\", not a checkpoint of job \"%s\"; "
               "ignored",
               x->group, (int)(tp->metadata_size > 200 ? 200 : tp->metadata_size),
               (const char *)tp->metadata, x->job);
    sl_free(want);
    return ours ? tp->offset : -1;
}

/* Read the newest decision back: the group's committed offsets. stable:
** wait for the transactions that are still writing offsets to the group
** (read_committed makes librdkafka ask for stable offsets); else what is
** committed now, without waiting. */
static int sl__read_decision(sl__kafka_txn *x, bool stable, int64_t *decided, sl_error *err)
{
    *decided = -1;
    const char *level = stable ? "read_committed" : "read_uncommitted";
    const char *defaults[] = {"group.id", x->group, "enable.auto.commit", "false",
                              "isolation.level", level, NULL};
    rd_kafka_conf_t *conf = sl__kafka_conf(x->opts, defaults, err);
    if (!conf)
        return -1;
    /* Ours, whatever the table's properties say. */
    rd_kafka_conf_set(conf, "group.id", x->group, NULL, 0);
    rd_kafka_conf_set(conf, "isolation.level", level, NULL, 0);
    char msg[512];
    rd_kafka_t *c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, msg, sizeof msg);
    if (!c) {
        rd_kafka_conf_destroy(conf);
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "kafka: could not create a consumer: %s", msg);
    }
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(x->ntopics);
    for (int i = 0; i < x->ntopics; i++)
        rd_kafka_topic_partition_list_add(l, x->topics[i], 0);
    int rc = 0;
    int64_t deadline = sl__kafka_now_ms() + x->timeout_ms;
    for (;;) {
        rd_kafka_resp_err_t e =
            rd_kafka_committed(c, l, (int)(x->timeout_ms > 10000 ? 10000 : x->timeout_ms));
        if (!e)
            break;
        if (!stable || sl__kafka_now_ms() >= deadline) {
            rc = sl_error_set(err, SL_ERR_CONNECTION_FAILURE, -1,
                              "kafka: could not read the decided checkpoint of job \"%s\" "
                              "(consumer group '%s'): %s",
                              x->job, x->group, rd_kafka_err2str(e));
            break;
        }
        sl_sleep_nanos(SL__TXN_RETRY_PAUSE_MS * SL_NANOS_PER_MILLI);
    }
    for (int i = 0; rc == 0 && i < l->cnt; i++) {
        int64_t n = sl__decision_of(x, &l->elems[i]);
        if (n > *decided)
            *decided = n;
    }
    if (rc == 0 && stable)
        sl_log(SL_LOG_INFO, "kafka: job \"%s\": the newest checkpoint decided in consumer group "
                            "'%s' is %" PRId64,
               x->job, x->group, *decided);
    rd_kafka_topic_partition_list_destroy(l);
    rd_kafka_destroy(c);
    return rc;
}

static int sl__txn_peek(sl_participant *sp, int64_t *decided, sl_error *err)
{
    return sl__read_decision(sp->impl, false, decided, err);
}

static int sl__txn_recover(sl_participant *sp, int64_t *decided, sl_error *err)
{
    sl__kafka_txn *x = sp->impl;
    for (int i = 0; i < 2; i++) {
        bool abortable;
        if (sl__retry(x, x->prod[i].rk, "initializing the transactions", sl__call_init, NULL,
                      &abortable, err) != 0)
            return -1;
        x->prod[i].epoch = -1;
    }
    x->recovered = true;
    /* Learn where the topics' partitions are now: the first records of an
    ** epoch would otherwise wait for it. */
    for (int i = 0; i < 2; i++)
        for (int t = 0; t < x->ntopics; t++)
            sl__kafka_learn_topic(x->prod[i].rk, x->topics[t], 5000);
    return sl__read_decision(x, true, decided, err);
}

static int sl__txn_decide(sl_participant *sp, int64_t epoch, sl_error *err)
{
    sl__kafka_txn *x = sp->impl;
    rd_kafka_t *rk = sl__kafka_txn_producer(sp, epoch, err); /* begun if nothing was written */
    if (!rk)
        return -1;
    sl__kafka_producer *p = &x->prod[epoch % 2];
    rd_kafka_topic_partition_list_t *offs = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_t *tp = rd_kafka_topic_partition_list_add(offs, x->topics[0], 0);
    tp->offset = epoch;
    char *meta = sl__decision_text(x, epoch);
    tp->metadata_size = strlen(meta);
    tp->metadata = meta; /* freed with the list */
    sl__offsets_arg a = {offs, rd_kafka_consumer_group_metadata_new(x->group)};
    bool abortable = false;
    int64_t started = sl__kafka_now_ms();
    int rc = sl__retry(x, rk, "recording the decision of the checkpoint", sl__call_offsets, &a,
                       &abortable, err);
    if (rc == 0)
        rc = sl__retry(x, rk, "committing the transaction", sl__call_commit, NULL, &abortable,
                       err);
    rd_kafka_consumer_group_metadata_destroy(a.group);
    rd_kafka_topic_partition_list_destroy(offs);
    if (rc != 0 && abortable) { /* the transaction failed: nothing of it becomes visible */
        sl_error ignore = SL_ERROR_INIT;
        bool again;
        sl__retry(x, rk, "aborting the transaction", sl__call_abort, NULL, &again, &ignore);
        sl_error_reset(&ignore);
        sl_error_detail(err, "Checkpoint %" PRId64 " was not decided; the job resumes from the "
                             "one before.",
                        epoch);
    }
    if (rc == 0)
        sl_log(SL_LOG_INFO, "kafka: checkpoint %" PRId64 " committed in %" PRId64 " ms (%s)",
               epoch, sl__kafka_now_ms() - started, p->id);
    if (rc == 0 || abortable) {
        pthread_mutex_lock(&x->mu);
        p->epoch = -1;
        pthread_mutex_unlock(&x->mu);
    }
    return rc;
}

static void sl__txn_free(sl_participant *sp)
{
    if (!sp)
        return;
    sl__kafka_txn *x = sp->impl;
    for (int i = 0; i < 2; i++) {
        sl__kafka_producer *p = &x->prod[i];
        if (!p->rk)
            continue;
        if (x->recovered && p->epoch >= 0 && !rd_kafka_fatal_error(p->rk, NULL, 0)) {
            /* Abort at once rather than let it time out: an open transaction
            ** holds back what read_committed consumers see. */
            rd_kafka_error_t *e = rd_kafka_abort_transaction(p->rk, 5000);
            if (e)
                rd_kafka_error_destroy(e);
        }
        rd_kafka_destroy(p->rk);
        sl_free(p->id);
    }
    for (int i = 0; i < x->ntopics; i++)
        sl_free(x->topics[i]);
    sl_free(x->topics);
    sl_free(x->group);
    sl_free(x->job);
    sl_free(x->origin);
    sl_free(x->prefix);
    pthread_mutex_destroy(&x->mu);
    sl_free(x);
    sl_free(sp);
}

/* SHOW JOBS: the transactional ids with an open transaction, and since when. */
static void sl__txn_describe(sl_participant *sp, sl_strbuf *out)
{
    sl__kafka_txn *x = sp->impl;
    int64_t now = sl__kafka_now_ms();
    pthread_mutex_lock(&x->mu);
    for (int i = 0; i < 2; i++) {
        if (x->prod[i].epoch < 0)
            continue;
        time_t since = time(NULL) - (time_t)((now - x->prod[i].began) / 1000);
        struct tm tm;
        char buf[32];
        gmtime_r(&since, &tm);
        strftime(buf, sizeof buf, "%H:%M:%S UTC", &tm);
        sl_strbuf_appendf(out, "%skafka '%s' epoch %" PRId64 " open since %s",
                          out->len ? "; " : "", x->prod[i].id, x->prod[i].epoch, buf);
    }
    pthread_mutex_unlock(&x->mu);
}

static const sl_participant_ops sl__kafka_txn_ops = {
    .recover = sl__txn_recover,
    .decide = sl__txn_decide,
    .free = sl__txn_free,
    .peek = sl__txn_peek,
    .describe = sl__txn_describe,
};

int64_t sl__kafka_txn_timeout_ms(const sl_kvlist *opts)
{
    const char *v = sl_kvlist_get(opts, "properties.transaction.timeout.ms");
    int64_t ms = SL__KAFKA_TXN_TIMEOUT_DEFAULT_MS;
    if (v && sl__parse_int(v, &ms) != NULL)
        ms = SL__KAFKA_TXN_TIMEOUT_DEFAULT_MS;
    return ms;
}

int sl__kafka_txn_create(const sl_participant_args *args, sl_participant **out, sl_error *err)
{
    *out = NULL;
    if (args->nsinks < 1)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "kafka: a participant without sinks");
    const sl_kvlist *opts = args->options[0];
    const char *prefix = sl_kvlist_get(opts, "sink.transactional-id-prefix");
    if (!prefix || !prefix[0])
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "exactly-once into Kafka needs 'sink.transactional-id-prefix'");
    sl__kafka_txn *x = sl_calloc(1, sizeof *x);
    pthread_mutex_init(&x->mu, NULL);
    x->prefix = sl_strdup(prefix);
    x->group = sl_sprintf("sluice-progress-%s", prefix);
    x->job = sl_strdup(args->job ? args->job : "");
    x->origin = args->origin ? sl_strdup(args->origin) : NULL;
    x->opts = opts;
    x->timeout_ms = sl__kafka_txn_timeout_ms(opts);
    x->topics = sl_calloc((size_t)args->nsinks, sizeof(char *));
    for (int i = 0; i < args->nsinks; i++) {
        const char *t = sl_kvlist_get(args->options[i], "topic");
        bool dup = false;
        for (int k = 0; t && k < x->ntopics && !dup; k++)
            dup = strcmp(x->topics[k], t) == 0;
        if (t && !dup)
            x->topics[x->ntopics++] = sl_strdup(t);
    }
    x->prod[0].epoch = x->prod[1].epoch = -1;
    sl_participant *sp = sl_calloc(1, sizeof *sp);
    sp->ops = &sl__kafka_txn_ops;
    sp->impl = x;
    size_t plen = strlen(prefix);
    bool sep = prefix[plen - 1] == '-' || prefix[plen - 1] == '_' || prefix[plen - 1] == '.';
    int rc = x->ntopics > 0 ? 0
                            : sl_error_set(err, SL_ERR_INTERNAL, -1, "kafka: a sink without a topic");
    for (int i = 0; rc == 0 && i < 2; i++) {
        x->prod[i].id = sl_sprintf("%s%s%d", prefix, sep ? "" : "-", i);
        const char *defaults[] = {SL__KAFKA_PRODUCER_DEFAULTS, NULL};
        rd_kafka_conf_t *conf = sl__kafka_conf(opts, defaults, err);
        if (!conf) {
            rc = -1;
            break;
        }
        char msg[512];
        if (rd_kafka_conf_set(conf, "transactional.id", x->prod[i].id, msg, sizeof msg) !=
            RD_KAFKA_CONF_OK) {
            rd_kafka_conf_destroy(conf);
            rc = sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                              "kafka: invalid transactional id '%s': %s", x->prod[i].id, msg);
            break;
        }
        rd_kafka_conf_set_dr_msg_cb(conf, sl__txn_dr);
        rd_kafka_conf_set_opaque(conf, x);
        x->prod[i].rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, msg, sizeof msg);
        if (!x->prod[i].rk) {
            rd_kafka_conf_destroy(conf);
            rc = sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                              "kafka: could not create a transactional producer: %s", msg);
        }
    }
    if (rc != 0) {
        sl__txn_free(sp);
        return -1;
    }
    *out = sp;
    return 0;
}

/* ------------------------------------------------------------------------
** The probe: the broker's 'transaction.max.timeout.ms'
*/

int sl__kafka_probe(const sl_kvlist *opts, int64_t timeout_ms, sl_sink_probe *out, sl_error *err)
{
    rd_kafka_conf_t *conf = sl__kafka_conf(opts, NULL, err);
    if (!conf)
        return -1;
    char msg[512];
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, msg, sizeof msg);
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "kafka: could not create a client: %s", msg);
    }
    const char *servers = sl_kvlist_get(opts, "properties.bootstrap.servers");
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, NULL, &md, (int)timeout_ms);
    int rc = 0;
    if (e || md->broker_cnt < 1) {
        rc = sl_error_set(err, SL_ERR_CONNECTION_FAILURE, -1,
                          "could not reach the Kafka cluster at '%s': %s",
                          servers ? servers : "?", e ? rd_kafka_err2str(e) : "no brokers");
        sl_error_hint(err, "Check 'properties.bootstrap.servers' and that the brokers run.");
    }
    char id[16] = "";
    if (rc == 0)
        snprintf(id, sizeof id, "%" PRId32, md->brokers[0].id);
    if (md)
        rd_kafka_metadata_destroy(md);
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    if (rc == 0) {
        rd_kafka_ConfigResource_t *res = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_BROKER, id);
        rd_kafka_AdminOptions_t *ao = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS);
        rd_kafka_AdminOptions_set_request_timeout(ao, (int)timeout_ms, NULL, 0);
        rd_kafka_DescribeConfigs(rk, &res, 1, ao, q);
        rd_kafka_event_t *ev = rd_kafka_queue_poll(q, (int)timeout_ms + 1000);
        const rd_kafka_DescribeConfigs_result_t *r = ev ? rd_kafka_event_DescribeConfigs_result(ev) : NULL;
        if (!ev || rd_kafka_event_error(ev) || !r) {
            rc = sl_error_set(err, SL_ERR_CONNECTION_FAILURE, -1,
                              "could not read the configuration of the Kafka cluster at '%s': %s",
                              servers ? servers : "?",
                              ev ? rd_kafka_event_error_string(ev) : "timed out");
        } else {
            size_t nres = 0;
            const rd_kafka_ConfigResource_t **rs = rd_kafka_DescribeConfigs_result_resources(r, &nres);
            for (size_t i = 0; i < nres; i++) {
                size_t nc = 0;
                const rd_kafka_ConfigEntry_t **cs = rd_kafka_ConfigResource_configs(rs[i], &nc);
                for (size_t k = 0; k < nc; k++) {
                    const char *v = rd_kafka_ConfigEntry_value(cs[k]);
                    if (strcmp(rd_kafka_ConfigEntry_name(cs[k]), "transaction.max.timeout.ms") == 0 &&
                        v)
                        out->max_txn_timeout_ms = strtoll(v, NULL, 10);
                }
            }
        }
        if (ev)
            rd_kafka_event_destroy(ev);
        rd_kafka_AdminOptions_destroy(ao);
        rd_kafka_ConfigResource_destroy(res);
    }
    rd_kafka_queue_destroy(q);
    rd_kafka_destroy(rk);
    return rc;
}
