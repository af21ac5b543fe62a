/*
** kafka.c — the 'kafka' and 'upsert-kafka' connectors (Flink's names and
** option names), on librdkafka: their declarations (options, capabilities,
** checks) and the librdkafka configuration every client builds from a
** table's options.
**
**   kafka         source: the records of one or more topics ('topic' =
**                 'a;b', or 'topic-pattern'), replayable, unbounded
**                 (kafka_source.c); sink: one record per row of an
**                 append-only query into one topic (kafka_sink.c);
**   upsert-kafka  sink: an updating query as the latest value per PRIMARY
**                 KEY (the record's key), a tombstone for a delete;
**
** The records' key and value (key.format, key.fields, value.format,
** value.fields-include): kafka_layout.c. Both sinks give none,
** at-least-once (an idempotent producer flushed at every checkpoint) or
** exactly-once (one transaction per checkpoint epoch, shared by every
** exactly-once Kafka sink of the job on the cluster: kafka_txn.c, the
** job's last-resource participant, which also probes the broker's
** transaction.max.timeout.ms for the guarantee resolver).
**
**   upsert-kafka  source: the topic as a table (the latest value per PRIMARY
**                 KEY, a tombstone deleting it), read from its beginning;
**                 the planner completes its changelog (ChangelogNormalize).
**
** Metadata columns (the record's topic, partition, offset, timestamp,
** headers, ...): kafka_meta.c.
**
** Not yet: 'sink.partitioner'.
**
** Main routines: sl__kafka_conf, sl__kafka_user_set, sl__kafka_sqlstate,
** sl__kafka_split_topics.
*/
#include <regex.h>
#include <string.h>

#include "kafka_int.h"

/* Options both connectors take. */
#define SL__KAFKA_BOOTSTRAP_OPTION                                                               \
    {.key = "properties.bootstrap.servers",                                                     \
     .type = SL_OPT_STRING,                                                                      \
     .required = true,                                                                           \
     .description = "Comma-separated list of the Kafka brokers (host:port)."}
#define SL__KAFKA_DISCOVERY_OPTION                                                               \
    {.key = "scan.topic-partition-discovery.interval",                                          \
     .type = SL_OPT_DURATION,                                                                    \
     .default_value = SL__KAFKA_DISCOVERY_DEFAULT,                                               \
     .description = "How often the source lists the partitions again: partitions added to "    \
                    "its topics (and new topics matching 'topic-pattern') are read from their " \
                    "beginning. '0' lists them only at the start."}
#define SL__KAFKA_BUFFER_OPTION                                                                  \
    {.key = "scan.buffer.max-bytes",                                                            \
     .type = SL_OPT_MEMSIZE,                                                                     \
     .default_value = SL__KAFKA_BUFFER_DEFAULT,                                                  \
     .description = "About how much of the fetched records each source subtask holds before "  \
                    "it stops fetching (keys and values, plus about 224 bytes per record): "    \
                    "librdkafka's queue gets a quarter of it as 'queued.max.messages.kbytes' "  \
                    "and 'queued.min.messages' unless those properties are set. At least "      \
                    "256 kb."}
#define SL__KAFKA_GROUP_OPTION                                                                   \
    {.key = "properties.group.id",                                                              \
     .type = SL_OPT_STRING,                                                                      \
     .description = "Consumer group of the source: whose committed offsets 'group-offsets' "    \
                    "starts from, and where the offsets of each decided checkpoint are "        \
                    "committed for monitoring (the checkpoint holds the positions); defaults "  \
                    "to 'sluice-' followed by the table name."}
#define SL__KAFKA_LAYOUT_OPTIONS                                                                 \
    {.key = "key.fields-prefix",                                                                \
     .type = SL_OPT_STRING,                                                                      \
     .description = "The key's columns are named <prefix><field> in the table and <field> in "  \
                    "the key's format (needs 'value.fields-include' = 'EXCEPT_KEY')."},          \
    {.key = "value.fields-include",                                                             \
     .type = SL_OPT_ENUM,                                                                        \
     .default_value = "ALL",                                                                     \
     .enum_values = "ALL|EXCEPT_KEY",                                                            \
     .description = "Which columns the records' value holds: ALL (the key's too), or "          \
                    "EXCEPT_KEY."}
#define SL__KAFKA_TXN_OPTION                                                                     \
    {.key = "sink.transactional-id-prefix",                                                     \
     .type = SL_OPT_STRING,                                                                      \
     .description = "Exactly-once sinks: the prefix of the transactional ids (<prefix>0 and "   \
                    "<prefix>1, '-' added unless it ends in '-', '_' or '.'); stable across "     \
                    "restarts, so a restart fences the instance before it; unique to one job."}
#define SL__KAFKA_PROPERTIES_OPTION                                                              \
    {.key = "properties.#",                                                                     \
     .type = SL_OPT_STRING,                                                                      \
     .description = "Passed to librdkafka as # (both consumer and producer), e.g. "             \
                    "'properties.isolation.level' (the source defaults to read_committed); "    \
                    "transactional.id and enable.auto.commit are the connector's own. "         \
                    "Producers queue at most 'queue.buffering.max.kbytes' = 2048 and "          \
                    "'queue.buffering.max.messages' = 10000 by default (the sink waits when "    \
                    "the queue is full)."}

/* The sink's capabilities both connectors share: exactly-once as the job's
** last-resource participant (kafka_txn.c). */
#define SL__KAFKA_SINK_CAPS                                                                      \
    .sink = true, .sink_max = SL_GUARANTEE_EXACTLY_ONCE, .sink_mech = SL_MECH_LAST_RESOURCE,    \
    .sink_default = SL_GUARANTEE_AT_LEAST_ONCE,                                                  \
    .txn_prefix_option = "sink.transactional-id-prefix",                                         \
    .txn_timeout_option = "properties.transaction.timeout.ms",                                   \
    .txn_timeout_default_ms = SL__KAFKA_TXN_TIMEOUT_DEFAULT_MS, .txn_system = "kafka",         \
    .cluster_option = "properties.bootstrap.servers", .sink_target_option = "topic",           \
    .probe = sl__kafka_probe

static const sl_option_spec sl__kafka_options[] = {
    {.key = "topic",
     .type = SL_OPT_STRING,
     .description = "The topic to write to, or the topics to read from: 'a' or 'a;b;c' "
                    "(Flink's list). A sink writes one topic."},
    {.key = "topic-pattern",
     .type = SL_OPT_STRING,
     .description = "Instead of 'topic', for a source: every topic whose whole name matches "
                    "this regular expression (POSIX extended), including topics created while "
                    "the job runs; internal topics (starting with '__') are left out."},
    SL__KAFKA_DISCOVERY_OPTION,
    SL__KAFKA_BOOTSTRAP_OPTION,
    SL__KAFKA_GROUP_OPTION,
    SL__KAFKA_BUFFER_OPTION,
    {.key = "scan.startup.mode",
     .type = SL_OPT_ENUM,
     .default_value = "group-offsets",
     .enum_values = "earliest-offset|latest-offset|group-offsets|timestamp|specific-offsets",
     .description = "Where the source starts without a checkpoint: the earliest offset, the "
                    "latest offset, the group's committed offsets (earliest where the group "
                    "has none), the first record at or after 'scan.startup.timestamp-millis', "
                    "or 'scan.startup.specific-offsets' (earliest for partitions not listed). "
                    "After a restart it continues from the checkpoint."},
    {.key = "scan.startup.timestamp-millis",
     .type = SL_OPT_INT,
     .description = "For 'timestamp': epoch milliseconds; each partition starts at its first "
                    "record with a timestamp at or after it (at its end when there is none)."},
    {.key = "scan.startup.specific-offsets",
     .type = SL_OPT_STRING,
     .description = "For 'specific-offsets': 'partition:0,offset:42;partition:1,offset:300' "
                    "(Flink's format)."},
    {.key = "scan.bounded.mode",
     .type = SL_OPT_ENUM,
     .enum_values = "latest-offset|specific-offsets",
     .description = "Makes the source bounded (Flink's option; unset: unbounded): it ends "
                    "when every partition reached the latest offset read_committed saw when "
                    "it started, or 'scan.bounded.specific-offsets'."},
    {.key = "scan.bounded.specific-offsets",
     .type = SL_OPT_STRING,
     .description = "For bounded 'specific-offsets': where each partition ends (its records "
                    "before that offset are read), 'partition:0,offset:42;partition:1,"
                    "offset:300' for the first topic; a partition not listed is not read."},
    {.key = "key.fields",
     .type = SL_OPT_STRING,
     .description = "The columns the records' key holds, 'a;b', in the format of 'key.format' "
                    "(a sink's keyed records go to the partition of their key)."},
    SL__KAFKA_LAYOUT_OPTIONS,
    SL__KAFKA_TXN_OPTION,
    SL__KAFKA_PROPERTIES_OPTION,
};

/* Kafka's legal topic names: [a-zA-Z0-9._-]{1,249}. */
static bool sl__kafka_topic_name_ok(const char *t)
{
    size_t n = strlen(t);
    if (n < 1 || n > 249)
        return false;
    for (const char *p = t; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '_' || *p == '-'))
            return false;
    return true;
}

/* 'topic': one or more legal topic names. */
static int sl__kafka_check_topics(const sl_kv *tkv, sl_error *err)
{
    if (!tkv || !tkv->value)
        return 0;
    int n = 0;
    char **topics = sl__kafka_split_topics(tkv->value, &n);
    int rc = n == 0 ? -1 : 0;
    for (int i = 0; i < n; i++) {
        if (rc == 0 && !sl__kafka_topic_name_ok(topics[i])) {
            rc = sl_error_set(err, SL_ERR_INVALID_PARAMETER, tkv->value_pos,
                              "invalid value for option 'topic': \"%s\" is not a Kafka topic name",
                              topics[i]);
            sl_error_hint(err, "Topic names are 1 to 249 of the characters a-z, A-Z, 0-9, '.', "
                               "'_' and '-'; separate several with ';'.");
        }
        sl_free(topics[i]);
    }
    sl_free(topics);
    if (rc != 0 && !sl_error_isset(err))
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, tkv->value_pos,
                     "option 'topic' must not be empty");
    return rc;
}

/* The checks both connectors share: the cluster, the key and value, the
** properties the connector owns. */
static int sl__kafka_check_common(const sl_connector *c, const sl_kvlist *opts,
                                  const sl_table_shape *shape, bool upsert, sl_error *err)
{
    if (sl__kafka_check_topics(sl_kvlist_find(opts, "topic"), err) != 0)
        return -1;
    const sl_kv *bkv = sl_kvlist_find(opts, "properties.bootstrap.servers");
    if (bkv && bkv->value && bkv->value[0] == 0)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, bkv->value_pos,
                            "option 'properties.bootstrap.servers' must not be empty");
    if (sl__kafka_layout_check(c, opts, shape, upsert, err) != 0)
        return -1;
    static const char *const owned[] = {"properties.transactional.id",
                                        "properties.enable.auto.commit"};
    for (size_t i = 0; i < SL_ARRAY_LEN(owned); i++) {
        const sl_kv *kv = sl_kvlist_find(opts, owned[i]);
        if (kv)
            return sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->key_pos,
                                "option '%s' is set by the %s connector itself", owned[i], c->name);
    }
    return 0;
}

static int sl__kafka_check(const sl_connector *c, const sl_kvlist *opts,
                           const sl_table_shape *shape, sl_error *err)
{
    const sl_kv *tkv = sl_kvlist_find(opts, "topic"), *pkv = sl_kvlist_find(opts, "topic-pattern");
    if (tkv && pkv)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, pkv->key_pos,
                            "options 'topic' and 'topic-pattern' cannot both be set");
    if (!tkv && !pkv)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "missing required option 'topic' (or 'topic-pattern') for connector "
                            "'%s'",
                            c->name);
    if (pkv && pkv->value) {
        regex_t re;
        char *anchored = sl_sprintf("^(%s)$", pkv->value);
        int bad = regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB);
        sl_free(anchored);
        if (bad == 0)
            regfree(&re);
        if (bad)
            return sl_error_set(err, SL_ERR_INVALID_PARAMETER, pkv->value_pos,
                                "invalid value for option 'topic-pattern': \"%s\" is not a "
                                "regular expression",
                                pkv->value);
    }
    /* The startup mode's own option, in Flink's format. */
    const char *mode = sl_kvlist_get(opts, "scan.startup.mode");
    const sl_kv *mkv = sl_kvlist_find(opts, "scan.startup.mode");
    if (mode && sl_strcasecmp(mode, "timestamp") == 0 &&
        !sl_kvlist_find(opts, "scan.startup.timestamp-millis"))
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, mkv ? mkv->value_pos : -1,
                            "'scan.startup.mode' = 'timestamp' needs the option "
                            "'scan.startup.timestamp-millis'");
    const sl_kv *so = sl_kvlist_find(opts, "scan.startup.specific-offsets");
    if (mode && sl_strcasecmp(mode, "specific-offsets") == 0 && !so)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, mkv ? mkv->value_pos : -1,
                            "'scan.startup.mode' = 'specific-offsets' needs the option "
                            "'scan.startup.specific-offsets'");
    const char *bmode = sl_kvlist_get(opts, "scan.bounded.mode");
    const sl_kv *bkv = sl_kvlist_find(opts, "scan.bounded.mode");
    const sl_kv *bo = sl_kvlist_find(opts, "scan.bounded.specific-offsets");
    if (bmode && sl_strcasecmp(bmode, "specific-offsets") == 0 && !bo)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, bkv ? bkv->value_pos : -1,
                            "'scan.bounded.mode' = 'specific-offsets' needs the option "
                            "'scan.bounded.specific-offsets'");
    if (bo && sl__kafka_parse_offsets(bo->value, NULL, NULL) != 0) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, bo->value_pos,
                     "invalid value for option 'scan.bounded.specific-offsets': \"%s\"",
                     bo->value);
        sl_error_hint(err, "Write 'partition:0,offset:42;partition:1,offset:300'.");
        return -1;
    }
    if (so && sl__kafka_parse_offsets(so->value, NULL, NULL) != 0) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, so->value_pos,
                     "invalid value for option 'scan.startup.specific-offsets': \"%s\"",
                     so->value);
        sl_error_hint(err, "Write 'partition:0,offset:42;partition:1,offset:300'.");
        return -1;
    }
    return sl__kafka_check_common(c, opts, shape, false, err);
}

static int sl__upsert_kafka_check(const sl_connector *c, const sl_kvlist *opts,
                                  const sl_table_shape *shape, sl_error *err)
{
    const sl_kv *tkv = sl_kvlist_find(opts, "topic");
    if (tkv && tkv->value && strchr(tkv->value, ';'))
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, tkv->value_pos,
                            "invalid value for option 'topic': connector '%s' takes one topic",
                            c->name);
    return sl__kafka_check_common(c, opts, shape, true, err);
}

static int sl__kafka_check_sink(const sl_connector *c, const sl_kvlist *opts,
                                const sl_table_shape *shape, sl_error *err)
{
    (void)shape;
    const char *topic = sl_kvlist_get(opts, "topic");
    if (!topic || strchr(topic, ';')) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1, "a %s sink writes one topic", c->name);
        sl_error_detail(err, topic ? "The table lists several topics ('topic' = '%s')."
                                   : "The table reads 'topic-pattern'.",
                        topic);
        sl_error_hint(err, "Write into a table whose 'topic' names one topic.");
        return -1;
    }
    return 0;
}

/* Flink's Kafka metadata (KafkaDynamicSource.ReadableMetadata, in its
** order; KafkaDynamicSink.WritableMetadata: headers, timestamp). */
static const sl_metadata_spec sl__kafka_metadata[] = {
    {"topic", "STRING NOT NULL", SL_TYPE_VARCHAR, 0, true, false,
     "Topic name of the Kafka record."},
    {"partition", "INT NOT NULL", SL_TYPE_INT, 0, true, false,
     "Partition ID of the Kafka record."},
    {"headers", "MAP<STRING, BYTES> NOT NULL", SL_TYPE_MAP, 0, true, true,
     "Headers of the Kafka record as a map of raw bytes; written, they are the record's "
     "headers."},
    {"leader-epoch", "INT NULL", SL_TYPE_INT, 0, false, false,
     "Leader epoch of the Kafka record if available (librdkafka before 2.1 does not tell it: "
     "NULL)."},
    {"offset", "BIGINT NOT NULL", SL_TYPE_BIGINT, 0, true, false,
     "Offset of the Kafka record in the partition."},
    {"timestamp", "TIMESTAMP_LTZ(3) NOT NULL", SL_TYPE_TIMESTAMP_LTZ, 3, true, true,
     "Timestamp of the Kafka record; written, it is the record's timestamp."},
    {"timestamp-type", "STRING NOT NULL", SL_TYPE_VARCHAR, 0, true, false,
     "Timestamp type of the Kafka record: \"NoTimestampType\", \"CreateTime\" (also when "
     "written) or \"LogAppendTime\"."},
};

const sl_connector sl__connector_kafka = {
    .name = "kafka",
    .description = "Records of Kafka topics, in one of the formats; exactly-once sinks by transactions.",
    .options = sl__kafka_options,
    .noptions = (int)SL_ARRAY_LEN(sl__kafka_options),
    .has_format = true,
    .has_key_format = true,
    .caps =
        {
            .source = true,
            .source_replayable = true,
            .source_bound = SL_BOUND_IF_SET,
            .source_bound_option = "scan.bounded.mode",
            .source_end = sl__kafka_source_end,
            SL__KAFKA_SINK_CAPS,
            .sink_updates = false,
        },
    .check = sl__kafka_check,
    .check_sink = sl__kafka_check_sink,
    .create_source = sl__kafka_source_create,
    .create_sink = sl__kafka_sink_create,
    .create_participant = sl__kafka_txn_create,
    .metadata = sl__kafka_metadata,
    .nmetadata = (int)SL_ARRAY_LEN(sl__kafka_metadata),
    .replay_horizon = sl__kafka_replay_horizon,
    .pending_txns = sl__kafka_pending_txns,
};

/* upsert-kafka: an updating changelog as the latest value per key. */
static const sl_option_spec sl__upsert_kafka_options[] = {
    {.key = "topic",
     .type = SL_OPT_STRING,
     .required = true,
     .description = "The topic: read from its beginning as a table (the latest value per "
                    "key), or written."},
    SL__KAFKA_BOOTSTRAP_OPTION,
    SL__KAFKA_GROUP_OPTION,
    SL__KAFKA_DISCOVERY_OPTION,
    SL__KAFKA_BUFFER_OPTION,
    SL__KAFKA_LAYOUT_OPTIONS,
    SL__KAFKA_TXN_OPTION,
    SL__KAFKA_PROPERTIES_OPTION,
};

const sl_connector sl__connector_upsert_kafka = {
    .name = "upsert-kafka",
    .description = "A Kafka topic as a table: the latest value per PRIMARY KEY, tombstones "
                   "for deletes; written from updating queries.",
    .options = sl__upsert_kafka_options,
    .noptions = (int)SL_ARRAY_LEN(sl__upsert_kafka_options),
    .has_format = true,
    .has_key_format = true,
    .caps =
        {
            .source = true,
            .source_replayable = true,
            .source_bound = SL_BOUND_NEVER,
            .source_upserts = true,
            SL__KAFKA_SINK_CAPS,
            .sink_updates = true,
            .sink_upserts = true,
        },
    .check = sl__upsert_kafka_check,
    .check_sink = sl__kafka_check_sink,
    .create_source = sl__upsert_kafka_source_create,
    .create_sink = sl__upsert_kafka_sink_create,
    .create_participant = sl__kafka_txn_create,
    .metadata = sl__kafka_metadata,
    .nmetadata = (int)SL_ARRAY_LEN(sl__kafka_metadata),
    .pending_txns = sl__kafka_pending_txns,
};

bool sl__kafka_user_set(const sl_kvlist *opts, const char *key)
{
    for (int i = 0; i < opts->n; i++) {
        const char *k = opts->items[i].key;
        if (strncmp(k, "properties.", 11) == 0 && strcmp(k + 11, key) == 0)
            return true;
    }
    return false;
}

const char *sl__kafka_sqlstate(rd_kafka_resp_err_t e)
{
    switch (e) {
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR__MSG_TIMED_OUT:
    case RD_KAFKA_RESP_ERR__RESOLVE:
    case RD_KAFKA_RESP_ERR__WAIT_COORD:
    case RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE:
    case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
    case RD_KAFKA_RESP_ERR_BROKER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION:
    case RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION:
    case RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_COORDINATOR:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR:
    case RD_KAFKA_RESP_ERR_CONCURRENT_TRANSACTIONS:
        return SL_ERR_CONNECTION_FAILURE;
    default:
        return SL_ERR_IO;
    }
}

static void sl__kafka_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    (void)rk;
    if (level <= 3) /* LOG_ERR and worse (retried warnings stay quiet) */
        sl_log(SL_LOG_WARN, "kafka: %s: %s", fac, buf);
    else /* the rest, e.g. what 'properties.debug' asks for, at SLUICE_LOG=debug */
        sl_log(SL_LOG_DEBUG, "kafka: %s: %s", fac, buf);
}

rd_kafka_conf_t *sl__kafka_conf(const sl_kvlist *opts, const char *const *defaults, sl_error *err)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    char msg[512];
    for (int i = 0; i < opts->n; i++) {
        const sl_kv *kv = &opts->items[i];
        if (strncmp(kv->key, "properties.", 11) != 0 || !kv->value)
            continue;
        if (rd_kafka_conf_set(conf, kv->key + 11, kv->value, msg, sizeof msg) != RD_KAFKA_CONF_OK) {
            rd_kafka_conf_destroy(conf);
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->value_pos,
                         "invalid value for option '%s'", kv->key);
            sl_error_detail(err, "librdkafka: %s", msg);
            sl_option_scrub_error(err, opts); /* librdkafka may quote the value */
            return NULL;
        }
    }
    for (int i = 0; defaults && defaults[i]; i += 2) {
        if (sl__kafka_user_set(opts, defaults[i]))
            continue;
        if (rd_kafka_conf_set(conf, defaults[i], defaults[i + 1], msg, sizeof msg) !=
            RD_KAFKA_CONF_OK) {
            rd_kafka_conf_destroy(conf);
            sl_error_set(err, SL_ERR_INTERNAL, -1, "kafka: could not set %s=%s: %s", defaults[i],
                         defaults[i + 1], msg);
            return NULL;
        }
    }
    rd_kafka_conf_set_log_cb(conf, sl__kafka_log);
    return conf;
}

void sl__kafka_learn_topic(rd_kafka_t *rk, const char *topic, int timeout_ms)
{
    rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
    const struct rd_kafka_metadata *md = NULL;
    if (rkt && rd_kafka_metadata(rk, 0, rkt, &md, timeout_ms) == RD_KAFKA_RESP_ERR_NO_ERROR)
        rd_kafka_metadata_destroy(md);
    if (rkt)
        rd_kafka_topic_destroy(rkt);
}

char **sl__kafka_split_topics(const char *list, int *n)
{
    *n = 0;
    char **v = sl_calloc(strlen(list) / 2 + 2, sizeof(char *));
    const char *p = list;
    while (*p) {
        const char *end = strchr(p, ';');
        if (!end)
            end = p + strlen(p);
        const char *a = p, *b = end;
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        if (b > a)
            v[(*n)++] = sl_strndup(a, (size_t)(b - a));
        p = *end ? end + 1 : end;
    }
    return v;
}

int sl__kafka_parse_offsets(const char *text, sl__kafka_offset **out, int *n)
{
    if (out)
        *out = NULL;
    if (n)
        *n = 0;
    int cap = 0, count = 0, rc = 0;
    sl__kafka_offset *v = NULL;
    const char *p = text;
    while (rc == 0 && *p) {
        long long part = -1, off = -1;
        int used = 0;
        if (sscanf(p, " partition:%lld,offset:%lld%n", &part, &off, &used) != 2 || part < 0 ||
            part > INT32_MAX || off < 0) {
            rc = -1;
            break;
        }
        p += used;
        while (*p == ' ')
            p++;
        if (*p == ';')
            p++;
        else if (*p)
            rc = -1;
        if (count == cap) {
            cap = cap ? cap * 2 : 4;
            v = sl_realloc(v, (size_t)cap * sizeof *v);
        }
        v[count++] = (sl__kafka_offset){(int32_t)part, (int64_t)off};
    }
    if (rc == 0 && count == 0)
        rc = -1;
    if (rc == 0 && out) {
        *out = v;
        *n = count;
    } else {
        sl_free(v);
    }
    return rc;
}
