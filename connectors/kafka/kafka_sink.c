/*
** kafka_sink.c — the kafka and upsert-kafka sinks: one record per row
** produced to 'topic' by librdkafka, its key and value in the layout of
** kafka_layout.c. Keyed records go to the partition of their key (murmur2,
** as Java's producer); records without a key are spread at random.
** upsert-kafka writes +I/+U as the key's new value and -D as a tombstone
** (a null value), and leaves -U out (the +U after it replaces the value).
** Format 'raw' writes a NULL value as a message without a value (as Flink
** does); upsert-kafka refuses that (22023: it would read as a deletion).
**
** The sink runs the guarantee the planner's resolver decided for it
** (sl_sink_args.guarantee), whatever the table asked for:
**   none           fire and forget: rows are handed to librdkafka, which
**                  sends them in the background; pre_commit only serves
**                  delivery reports. A failed delivery is logged.
**   at-least-once  (the default) an idempotent producer
**                  (enable.idempotence=true, acks=all unless the user set
**                  them): pre_commit flushes until every record written so
**                  far is acknowledged by the broker, so a checkpoint covers
**                  only delivered rows; a failed delivery fails the job
**                  (58030 naming the topic). After a crash the rows since
**                  the last checkpoint are produced again: duplicates, never
**                  a loss. commit, abort and recover have nothing to do.
**   exactly-once   epoch N's rows go into the transaction N of the job's
**                  participant (kafka_txn.c), shared with every other
**                  exactly-once Kafka sink instance of the job; the runtime
**                  has the participant commit it as the decision of
**                  checkpoint N. pre_commit waits until N's records are
**                  acknowledged (in the log, not yet visible), so that
**                  N+1's, written through the other producer while N
**                  commits, come after them in every partition: a key's
**                  updates keep their order. It names the transaction in
**                  the committable; commit, abort and recover have nothing
**                  to do (the participant decides, fences and aborts).
**                  Readers use isolation.level=read_committed.
**
** kafka: only +I rows (append-only; the planner prevents anything else).
**
** Main routines: sl__kafka_sink_create and the sl_sink_ops below.
*/
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "kafka_int.h"

#define SL__KAFKA_FLUSH_SLICE_MS 1000 /* one rd_kafka_flush call */
#define SL__KAFKA_CLOSE_FLUSH_MS 5000 /* on free: wait this long for pending records */

typedef struct sl__kafka_sink {
    char *topic;
    bool upsert;             /* upsert-kafka: -D writes a tombstone, -U is left out */
    sl_guarantee guarantee;  /* what this sink runs */
    sl__kafka_layout layout; /* the records' key and value */
    rd_kafka_t *own;         /* none / at-least-once: this instance's producer */
    sl_participant *txn;     /* exactly-once: the job's participant */
    rd_kafka_t *rk;          /* where rows go: own, or the open epoch's transactional producer */
    int64_t epoch;           /* the open epoch */
    sl_strbuf rec;           /* one encoded row's value */
    sl_strbuf key;           /* ... and its key */
    int64_t failed;          /* records whose delivery failed */
    char *first_error;       /* the first delivery error (owned), or NULL */
    rd_kafka_resp_err_t first_code; /* its code */
} sl__kafka_sink;

static void sl__kafka_dr(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    sl__kafka_sink *k = opaque;
    if (!m->err)
        return;
    if (k->failed++ == 0) {
        k->first_error = sl_strdup(rd_kafka_err2str(m->err));
        k->first_code = m->err;
    }
    if (k->guarantee == SL_GUARANTEE_NONE && k->failed == 1)
        sl_log(SL_LOG_WARN, "kafka sink: a record for topic \"%s\" was not delivered: %s", k->topic,
               rd_kafka_err2str(m->err));
}

/* 0, or -1 with err when a delivery failed (at-least-once). */
static int sl__kafka_check_delivery(sl__kafka_sink *k, sl_error *err)
{
    if (k->guarantee != SL_GUARANTEE_AT_LEAST_ONCE || k->failed == 0)
        return 0;
    char reason[512];
    rd_kafka_resp_err_t fe = rd_kafka_fatal_error(k->own, reason, sizeof reason);
    sl_error_set(err, fe ? SL_ERR_IO : sl__kafka_sqlstate(k->first_code), -1,
                 "could not write to Kafka topic \"%s\": %s", k->topic, fe ? reason : k->first_error);
    sl_error_detail(err, "%" PRId64 " record(s) were not delivered.", k->failed);
    return -1;
}

static int sl__kafka_begin(sl_sink *s, int64_t epoch, sl_error *err)
{
    sl__kafka_sink *k = s->impl;
    k->epoch = epoch;
    if (k->txn && !(k->rk = sl__kafka_txn_producer(k->txn, epoch, err)))
        return -1;
    return 0;
}

static int sl__kafka_write(sl_sink *s, const sl_chunk *c, sl_error *err)
{
    sl__kafka_sink *k = s->impl;
    for (int r = 0; r < c->nrows; r++) {
        sl_row_kind kind = (sl_row_kind)c->kinds[r];
        if (!k->upsert && kind != SL_ROW_INSERT)
            return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                "kafka sink: a %s row reached an append-only sink",
                                sl_row_kind_name(kind));
        if (kind == SL_ROW_UPDATE_BEFORE)
            continue; /* the +U after it replaces the key's value */
        bool tombstone = kind == SL_ROW_DELETE;
        sl_strbuf_reset(&k->rec);
        int erc = tombstone ? 0 : sl_codec_encode(k->layout.value, c, r, &k->rec, err);
        if (erc < 0)
            return -1;
        if (erc == SL_CODEC_NULL_RECORD && k->upsert) /* would read as a deletion */
            return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                                "cannot write a NULL raw value to upsert-kafka topic \"%s\": a "
                                "message without a value deletes its key",
                                k->topic);
        if (erc == SL_CODEC_NULL_RECORD)
            tombstone = true; /* format 'raw': NULL is a message without a value */
        sl_strbuf_reset(&k->key);
        int krc = k->layout.key ? sl_codec_encode(k->layout.key, c, r, &k->key, err) : 0;
        if (krc < 0)
            return -1;
        bool has_key = k->layout.key && krc != SL_CODEC_NULL_RECORD; /* raw NULL: no key */
        for (;;) {
            rd_kafka_headers_t *hdrs = NULL; /* producev owns them when it succeeds */
            if (sl__kafka_meta_headers(&k->layout.meta, c, r, &hdrs, err) != 0)
                return -1;
            rd_kafka_resp_err_t e = rd_kafka_producev(
                k->rk, RD_KAFKA_V_TOPIC(k->topic), RD_KAFKA_V_HEADERS(hdrs),
                RD_KAFKA_V_KEY(has_key ? (k->key.buf ? k->key.buf : "") : NULL,
                               has_key ? k->key.len : 0),
                RD_KAFKA_V_VALUE(tombstone ? NULL : k->rec.buf ? k->rec.buf : "",
                                 tombstone ? 0 : k->rec.len),
                RD_KAFKA_V_TIMESTAMP(sl__kafka_meta_timestamp(&k->layout.meta, c, r)),
                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
            if (e && hdrs)
                rd_kafka_headers_destroy(hdrs);
            if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
                rd_kafka_poll(k->rk, 100); /* backpressure: wait for deliveries */
                continue;
            }
            if (e && k->txn && sl__kafka_txn_error(k->txn, k->rk, "a write", err) != 0)
                return -1; /* fenced */
            if (e == RD_KAFKA_RESP_ERR__STATE && k->txn) {
                /* The open transaction failed (a record of it timed out
                ** or was refused) and must be aborted: the job restarts
                ** from its last checkpoint, as when the commit fails. */
                sl_error_set(err, SL_ERR_CONNECTION_FAILURE, -1,
                             "the Kafka transaction of checkpoint %lld of a sink to topic \"%s\" "
                             "failed and must be aborted (%s)",
                             (long long)k->epoch, k->topic, rd_kafka_err2str(e));
                sl_error_detail(err, "Nothing of checkpoint %lld became visible; a restart "
                                     "resumes from the checkpoint before.",
                                (long long)k->epoch);
                return -1;
            }
            if (e)
                return sl_error_set(err, sl__kafka_sqlstate(e), -1,
                                    "could not write to Kafka topic \"%s\": %s", k->topic,
                                    rd_kafka_err2str(e));
            break;
        }
    }
    rd_kafka_poll(k->rk, 0); /* serve delivery reports */
    return sl__kafka_check_delivery(k, err);
}

/* Wait until every record handed to rk so far is acknowledged (or failed):
** librdkafka reports each one by message.timeout.ms at the latest. False
** when the producer failed fatally (the caller reports why). */
static bool sl__kafka_flush_all(sl__kafka_sink *k)
{
    while (rd_kafka_outq_len(k->rk) > 0) {
        rd_kafka_flush(k->rk, SL__KAFKA_FLUSH_SLICE_MS);
        if (rd_kafka_fatal_error(k->rk, NULL, 0))
            return false;
    }
    return true;
}

static int sl__kafka_pre_commit(sl_sink *s, int64_t epoch, sl_strbuf *committable, sl_error *err)
{
    sl__kafka_sink *k = s->impl;
    if (k->txn) { /* the participant's commit makes it durable and visible */
        /* Epoch N's records are in the log before any of N+1's is sent
        ** (N+1 writes through the other producer while N commits): a
        ** key's updates stay in the order they were made, which a
        ** compacted upsert topic's last value depends on. */
        sl__kafka_flush_all(k); /* a fatal error: reported just below */
        sl_strbuf_appendf(committable, "kafka transaction %s epoch %lld",
                          sl__kafka_txn_id(k->txn, epoch), (long long)epoch);
        return sl__kafka_txn_error(k->txn, k->rk, "a write", err);
    }
    if (k->guarantee == SL_GUARANTEE_NONE) {
        rd_kafka_poll(k->rk, 0);
        return 0;
    }
    char reason[512];
    if (!sl__kafka_flush_all(k) && rd_kafka_fatal_error(k->rk, reason, sizeof reason))
        return sl_error_set(err, SL_ERR_IO, -1, "could not write to Kafka topic \"%s\": %s",
                            k->topic, reason);
    return sl__kafka_check_delivery(k, err);
}

/* Nothing is staged here (the participant holds exactly-once
** transactions): commit, abort and recover have nothing to do. */
static int sl__kafka_commit(sl_sink *s, const char *committable, size_t len, sl_error *err)
{
    (void)s, (void)committable, (void)len, (void)err;
    return 0;
}

static int sl__kafka_recover(sl_sink *s, const char *const *committables, const size_t *lens, int n,
                             sl_error *err)
{
    (void)s, (void)committables, (void)lens, (void)n, (void)err;
    return 0;
}

static void sl__kafka_sink_free(sl_sink *s)
{
    if (!s)
        return;
    sl__kafka_sink *k = s->impl;
    if (k->own) {
        rd_kafka_flush(k->own, SL__KAFKA_CLOSE_FLUSH_MS);
        rd_kafka_destroy(k->own);
    }
    sl__kafka_layout_free(&k->layout);
    sl_strbuf_free(&k->rec);
    sl_strbuf_free(&k->key);
    sl_free(k->first_error);
    sl_free(k->topic);
    sl_free(k);
    sl_free(s);
}

static const sl_sink_ops sl__kafka_sink_ops = {
    .begin = sl__kafka_begin,
    .write = sl__kafka_write,
    .pre_commit = sl__kafka_pre_commit,
    .commit = sl__kafka_commit,
    .abort = sl__kafka_commit, /* nothing to discard either */
    .recover = sl__kafka_recover,
    .free = sl__kafka_sink_free,
};

static int sl__sink_create(const sl_sink_args *args, bool upsert, sl_sink **out, sl_error *err)
{
    *out = NULL;
    const char *topic = sl_kvlist_get(args->options, "topic");
    if (!topic || !topic[0] || strchr(topic, ';'))
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "kafka sink \"%s\": a sink writes one topic: set 'topic' to one name",
                            args->table ? args->table : "?");
    if (args->guarantee == SL_GUARANTEE_EXACTLY_ONCE && !args->participant)
        return sl_error_set(err, SL_ERR_INTERNAL, -1,
                            "kafka sink: exactly-once needs the job's transactions");
    sl__kafka_sink *k = sl_calloc(1, sizeof *k);
    sl_sink *s = sl_calloc(1, sizeof *s);
    s->ops = &sl__kafka_sink_ops;
    s->impl = k;
    k->topic = sl_strdup(topic);
    k->upsert = upsert;
    k->guarantee = args->guarantee;
    if (sl__kafka_layout_new(args->options, upsert, args->ncols, args->names, args->types,
                             args->meta, args->npk, args->pk, &k->layout, err) != 0) {
        sl__kafka_sink_free(s);
        return -1;
    }
    if (k->guarantee == SL_GUARANTEE_EXACTLY_ONCE) {
        k->txn = args->participant;
        *out = s;
        return 0;
    }
    const char *alo_defaults[] = {"enable.idempotence", "true", "acks", "all", SL__KAFKA_PRODUCER_DEFAULTS, NULL};
    const char *none_defaults[] = {SL__KAFKA_PRODUCER_DEFAULTS, NULL};
    rd_kafka_conf_t *conf = sl__kafka_conf(
        args->options, k->guarantee == SL_GUARANTEE_AT_LEAST_ONCE ? alo_defaults : none_defaults,
        err);
    if (!conf) {
        sl__kafka_sink_free(s);
        return -1;
    }
    rd_kafka_conf_set_dr_msg_cb(conf, sl__kafka_dr);
    rd_kafka_conf_set_opaque(conf, k);
    char msg[512];
    k->own = k->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, msg, sizeof msg);
    if (!k->own) {
        rd_kafka_conf_destroy(conf);
        sl__kafka_sink_free(s);
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "kafka sink: could not create a producer: %s", msg);
    }
    sl__kafka_learn_topic(k->rk, k->topic, 2000); /* else its first records wait up to 1 s */
    *out = s;
    return 0;
}

int sl__kafka_sink_create(const sl_sink_args *args, sl_sink **out, sl_error *err)
{
    return sl__sink_create(args, false, out, err);
}

int sl__upsert_kafka_sink_create(const sl_sink_args *args, sl_sink **out, sl_error *err)
{
    return sl__sink_create(args, true, out, err);
}
