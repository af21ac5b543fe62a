/*
** kafka_pending.c — the transactions open on a Kafka topic now, for
** RECONCILE's commit_boundary (planner/reconcile_job.c) through
** sl_connector.pending_txns. librdkafka 2.0 has no ListTransactions /
** DescribeTransactions, so they are seen in the partitions themselves:
**
**   - a partition's high watermark (HWM, read_uncommitted) above its last
**     stable offset (LSO: the end read_committed sees, the offset of the
**     first record of the oldest transaction still open) means a
**     transaction is open there, whose first record is at the LSO; both
**     are read with rd_kafka_query_watermark_offsets on consumers of the
**     two isolation levels (sl__kafka_ends_open, which the input boundary
**     uses too);
**   - the record at the LSO, read with the read_uncommitted consumer, tells
**     when the transaction began: its timestamp (CreateTime: the
**     producer's clock when the record was produced; LogAppendTime when
**     the topic says so: the broker's).
**
** Older or newer. A job's epoch N+1 begins at barrier N, and barrier N
** leaves the sources after checkpoint N was triggered: every record of an
** epoch after C is produced after C's trigger. So a transaction whose
** first record is older than C's trigger time belongs to an epoch <= C,
** which decide(C) or an earlier decision ended: still open, it is pending
** (before_ms is that time). One that began later is in flight (epoch C+1
** of a running job, or epoch C's when it began after the trigger: a
** record of epoch C may be produced after C's trigger, before barrier C
** reaches the sink — such a one is not told from C+1's and is taken as in
** flight). The comparison needs the producer's clock and the engine's to
** agree: one machine, or synchronized clocks. A sink that writes the
** record's timestamp from a column (METADATA 'timestamp') dates its
** records by the data, not by when they were produced: an in-flight
** transaction of old rows is taken for a pending one. A record without a
** timestamp cannot be dated: taken as in flight.
**
** Markers in flight. A transaction committed a moment ago has its commit
** markers on the way to the partitions: the LSO stays at its first
** record until they land. One that looks older is watched, its LSO read
** again every SL__PENDING_POLL_MS for up to settle_ms; once the LSO moved
** past it, the partition is looked at again (the next open transaction,
** if any, is dated the same way).
**
** Main routine: sl__kafka_pending_txns.
*/
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../../base/sl_time.h"
#include "kafka_int.h"

#define SL__PENDING_TIMEOUT_MS 10000 /* one metadata or record read */
#define SL__PENDING_POLL_MS    100   /* between two reads of an LSO that did not move */

/* The timestamp (epoch ms) of the record at offset at of the partition,
** read with the read_uncommitted consumer rk; -1 when none arrives (the
** records before the HWM deleted meanwhile). */
static int sl__record_time(rd_kafka_t *rk, const char *topic, int32_t partition, int64_t at,
                           int64_t hwm, int64_t *ms, sl_error *err)
{
    *ms = -1;
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(l, topic, partition)->offset = at;
    rd_kafka_resp_err_t e = rd_kafka_assign(rk, l);
    rd_kafka_topic_partition_list_destroy(l);
    if (e)
        return sl_error_set(err, sl__kafka_sqlstate(e), -1,
                            "kafka: reading the open transactions of topic \"%s\" failed: %s",
                            topic, rd_kafka_err2str(e));
    int64_t deadline = sl__kafka_now_ms() + SL__PENDING_TIMEOUT_MS;
    bool done = false;
    while (!done && sl__kafka_now_ms() < deadline) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
        if (!m)
            continue;
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            done = m->offset >= hwm;
        } else if (!m->err && m->offset >= at) {
            rd_kafka_timestamp_type_t type;
            *ms = rd_kafka_message_timestamp(m, &type);
            done = true;
        }
        rd_kafka_message_destroy(m);
    }
    rd_kafka_assign(rk, NULL);
    if (!done)
        return sl_error_set(err, SL_ERR_CONNECTION_FAILURE, -1,
                            "kafka: reading the open transactions of topic \"%s\" failed: the "
                            "record at offset %" PRId64 " of partition %" PRId32
                            " did not arrive in time",
                            topic, at, partition);
    return 0;
}

static int sl__watermarks(rd_kafka_t *rk, const char *topic, int32_t partition, int64_t *hi,
                          sl_error *err)
{
    int64_t lo = 0;
    rd_kafka_resp_err_t e =
        rd_kafka_query_watermark_offsets(rk, topic, partition, &lo, hi, SL__PENDING_TIMEOUT_MS);
    if (e)
        return sl_error_set(err, sl__kafka_sqlstate(e), -1,
                            "kafka: reading the end offsets of topic \"%s\" failed: %s", topic,
                            rd_kafka_err2str(e));
    return 0;
}

/* "kafka <topic>:<partition> <what> since <time> UTC (offsets <LSO>..<HWM>)"
** appended to sb (", "-joined; ", ..." past max), counted in *n. */
static void sl__sample(sl_strbuf *sb, int64_t *n, int max, const char *what, const char *topic,
                       int32_t partition, int64_t ms, int64_t lso, int64_t hwm)
{
    if ((*n)++ >= max) {
        if (*n == max + 1)
            sl_strbuf_append(sb, ", ...");
        return;
    }
    char when[64];
    if (ms < 0 || sl_ts_format(ms * SL_NANOS_PER_MILLI, 3, when) < 0)
        snprintf(when, sizeof when, "an unknown time");
    sl_strbuf_appendf(sb,
                      "%skafka %s:%" PRId32 " %s since %s%s (offsets %" PRId64 "..%" PRId64 ")",
                      sb->len ? ", " : "", topic, partition, what, when, ms < 0 ? "" : " UTC", lso,
                      hwm);
}

/* One partition: look at its oldest open transaction, waiting up to
** settle_ms for one that looks older to end. */
static int sl__partition(rd_kafka_t *ru, rd_kafka_t *rc, const char *topic, int32_t partition,
                         int64_t before_ms, int64_t settle_ms, sl_pending_txns *out,
                         sl_error *err)
{
    int64_t deadline = sl__kafka_now_ms() + settle_ms;
    int64_t dated = -1, ms = -1; /* the LSO last dated, and its record's time */
    for (;;) {
        int64_t hwm = 0, lso = 0;
        if (sl__watermarks(ru, topic, partition, &hwm, err) != 0 ||
            sl__watermarks(rc, topic, partition, &lso, err) != 0)
            return -1;
        if (lso >= hwm)
            return 0; /* nothing open */
        if (lso != dated) {
            if (sl__record_time(ru, topic, partition, lso, hwm, &ms, err) != 0)
                return -1;
            dated = lso;
        }
        bool older = ms >= 0 && ms < before_ms;
        if (!older) {
            sl__sample(&out->newer_sample, &out->newer, out->max_samples, "open", topic,
                       partition, ms, lso, hwm);
            return 0;
        }
        if (sl__kafka_now_ms() >= deadline) {
            sl__sample(&out->older_sample, &out->older, out->max_samples, "pending", topic,
                       partition, ms, lso, hwm);
            return 0;
        }
        sl_sleep_nanos(SL__PENDING_POLL_MS * SL_NANOS_PER_MILLI);
    }
}

int sl__kafka_pending_txns(const sl_kvlist *opts, int64_t before_ms, int64_t settle_ms,
                           sl_pending_txns *out, sl_error *err)
{
    const char *list = sl_kvlist_get(opts, "topic");
    int ntopics = 0;
    char **topics = list ? sl__kafka_split_topics(list, &ntopics) : NULL;
    int rc = 0;
    for (int t = 0; rc == 0 && t < ntopics; t++) {
        rd_kafka_t *ru = NULL, *rcm = NULL;
        int32_t *parts = NULL, *parts2 = NULL;
        int nparts = 0, n2 = 0;
        rc = sl__kafka_ends_open(opts, topics[t], "read_uncommitted", true, &ru, &parts, &nparts,
                                 err);
        if (rc == 0)
            rc = sl__kafka_ends_open(opts, topics[t], "read_committed", true, &rcm, &parts2, &n2,
                                     err);
        for (int i = 0; rc == 0 && i < nparts; i++)
            rc = sl__partition(ru, rcm, topics[t], parts[i], before_ms, settle_ms, out, err);
        sl_free(parts);
        sl_free(parts2);
        if (ru)
            rd_kafka_destroy(ru);
        if (rcm)
            rd_kafka_destroy(rcm);
    }
    for (int i = 0; i < ntopics; i++)
        sl_free(topics[i]);
    sl_free(topics);
    return rc;
}
