/*
** kafka_horizon.c — how far back a Kafka source can be read again: its
** topics' 'retention.ms' (the effective value: the topic's own, else the
** broker's default), read at plan time with the admin API
** (DescribeConfigs). EXPLAIN sets it against a deduplication's state TTL
** (planner/dedup_ttl.c): a record older than the TTL that a restart or a
** replay reads again is a duplicate the deduplication no longer knows.
**
** Several topics ('a;b'): the longest retention. 'topic-pattern', a broker
** that does not answer within the timeout, a topic it does not describe:
** unknown (-1 with the reason). 'retention.ms' = -1: forever (INT64_MAX).
** Size-based retention ('retention.bytes') is not looked at: it can only
** make the horizon shorter.
**
** Main routine: sl__kafka_replay_horizon.
*/
#include <stdlib.h>
#include <string.h>

#include "kafka_int.h"

/* The largest 'retention.ms' among the described resources r; -1 with the
** reason in *why when one lacks it. */
static int64_t sl__retention_of(const rd_kafka_DescribeConfigs_result_t *r, const char **why)
{
    size_t nres = 0;
    const rd_kafka_ConfigResource_t **rs = rd_kafka_DescribeConfigs_result_resources(r, &nres);
    int64_t best = 0;
    if (nres == 0) {
        *why = "the broker described no topic";
        return -1;
    }
    for (size_t i = 0; i < nres; i++) {
        if (rd_kafka_ConfigResource_error(rs[i])) {
            *why = rd_kafka_ConfigResource_error_string(rs[i]);
            return -1;
        }
        size_t nc = 0;
        const rd_kafka_ConfigEntry_t **cs = rd_kafka_ConfigResource_configs(rs[i], &nc);
        int64_t ms = -2;
        for (size_t k = 0; k < nc; k++) {
            const char *v = rd_kafka_ConfigEntry_value(cs[k]);
            if (strcmp(rd_kafka_ConfigEntry_name(cs[k]), "retention.ms") == 0 && v)
                ms = strtoll(v, NULL, 10);
        }
        if (ms == -2) {
            *why = "a topic without 'retention.ms'";
            return -1;
        }
        int64_t h = ms < 0 ? INT64_MAX : ms;
        if (h > best)
            best = h;
    }
    return best;
}

int sl__kafka_replay_horizon(const sl_kvlist *opts, int64_t timeout_ms, int64_t *horizon_ms,
                             const char **what, sl_error *err)
{
    *what = "retention.ms";
    const char *list = sl_kvlist_get(opts, "topic");
    if (!list)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "the topics of 'topic-pattern' are not known at plan time");
    rd_kafka_conf_t *conf = sl__kafka_conf(opts, NULL, err);
    if (!conf)
        return -1;
    char msg[512];
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, msg, sizeof msg);
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        return sl_error_set(err, SL_ERR_CONNECTION_FAILURE, -1,
                            "kafka: could not create a client: %s", msg);
    }
    int n = 0;
    char **topics = sl__kafka_split_topics(list, &n);
    rd_kafka_ConfigResource_t **res = sl_calloc((size_t)n + 1, sizeof *res);
    for (int i = 0; i < n; i++)
        res[i] = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topics[i]);
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    rd_kafka_AdminOptions_t *ao = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS);
    rd_kafka_AdminOptions_set_request_timeout(ao, (int)timeout_ms, NULL, 0);
    rd_kafka_DescribeConfigs(rk, res, (size_t)n, ao, q);
    rd_kafka_event_t *ev = rd_kafka_queue_poll(q, (int)timeout_ms + 500);
    const rd_kafka_DescribeConfigs_result_t *r =
        ev ? rd_kafka_event_DescribeConfigs_result(ev) : NULL;
    int rc = 0;
    const char *why = NULL;
    if (!ev || rd_kafka_event_error(ev) || !r) {
        rc = sl_error_set(err, SL_ERR_CONNECTION_FAILURE, -1, "the broker did not answer (%s)",
                          ev ? rd_kafka_event_error_string(ev) : "timed out");
    } else if ((*horizon_ms = sl__retention_of(r, &why)) < 0) {
        rc = sl_error_set(err, SL_ERR_CONNECTION_FAILURE, -1, "%s", why ? why : "unknown");
    }
    if (ev)
        rd_kafka_event_destroy(ev);
    rd_kafka_AdminOptions_destroy(ao);
    rd_kafka_queue_destroy(q);
    for (int i = 0; i < n; i++) {
        rd_kafka_ConfigResource_destroy(res[i]);
        sl_free(topics[i]);
    }
    sl_free(res);
    sl_free(topics);
    rd_kafka_destroy(rk);
    return rc;
}
