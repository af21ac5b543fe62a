/*
** kafka_int.h — internals shared by the kafka connector's files (kafka.c:
** declaration and the librdkafka configuration; kafka_source.c: the
** consumer; kafka_sink.c: the producer). Not a public header: only files
** under connectors/kafka/ include it.
*/
#ifndef SL_KAFKA_INT_H
#define SL_KAFKA_INT_H

#include <librdkafka/rdkafka.h>

#include "../sl_connector_int.h"

/* ---- kafka_meta.c: METADATA columns ---- */

typedef enum sl__kafka_meta_key {
    SL__KM_TOPIC, SL__KM_PARTITION, SL__KM_HEADERS, SL__KM_LEADER_EPOCH, SL__KM_OFFSET,
    SL__KM_TIMESTAMP, SL__KM_TIMESTAMP_TYPE,
} sl__kafka_meta_key;

typedef struct sl__kafka_meta {
    int n;        /* metadata columns */
    int *cols;    /* their table indexes */
    int *keys;    /* their sl__kafka_meta_key (-1: a sink's VIRTUAL column) */
    int ts_col;   /* a sink: the column written as the record's timestamp, or -1 */
    int hdr_col;  /* a sink: the column written as the record's headers, or -1 */
    sl_type hdr_type; /* MAP<STRING, BYTES> */
    sl_strbuf scratch; /* a source: the headers value being built */
} sl__kafka_meta;

/* The metadata columns of sl_source_args.meta / sl_sink_args.meta (NULL:
** none). 0, or -1 with err (a key the planner should have refused). */
int sl__kafka_meta_new(const char *const *meta, int ncols, sl__kafka_meta *m, sl_error *err);
void sl__kafka_meta_free(sl__kafka_meta *m);
/* Whether table column col is a metadata column. */
bool sl__kafka_meta_is(const sl__kafka_meta *m, int col);
/* Fill the metadata columns of row `row` of out from the record msg. */
void sl__kafka_meta_fill(sl__kafka_meta *m, const rd_kafka_message_t *msg, sl_chunk *out,
                         int row);
/* The headers to write for row r of in (its headers column), NULL when
** there are none; the caller hands them to rd_kafka_producev or destroys
** them. -1 with err for a header without a name. */
int sl__kafka_meta_headers(const sl__kafka_meta *m, const sl_chunk *in, int r,
                           rd_kafka_headers_t **out, sl_error *err);
/* The timestamp (epoch ms) to write for row r of in: its timestamp column,
** 0 (the producer's clock) when there is none or it is NULL. */
int64_t sl__kafka_meta_timestamp(const sl__kafka_meta *m, const sl_chunk *in, int r);

/* ---- kafka_layout.c: a record's key and value ---- */

typedef struct sl__kafka_layout {
    sl_codec *key;     /* the key's codec (mapped onto the table), or NULL: no key */
    sl_codec *value;   /* the value's codec (mapped onto the table) */
    int nkey;          /* the key's columns */
    int *key_cols;     /* their table indexes, in the key's order */
    bool value_all;    /* the value holds every column ('value.fields-include' = ALL) */
    sl__kafka_meta meta; /* the metadata columns (in neither key nor value) */
} sl__kafka_layout;

/* The layout of a table's records from its options (and, for upsert-kafka,
** its PRIMARY KEY). 0, or -1 with err. */
int sl__kafka_layout_new(const sl_kvlist *opts, bool upsert, int ncols, const char *const *names,
                         const sl_type *types, const char *const *meta, int npk, const int *pk,
                         sl__kafka_layout *l, sl_error *err);
void sl__kafka_layout_free(sl__kafka_layout *l);
/* CREATE TABLE's checks of the key options (shape may be NULL). */
int sl__kafka_layout_check(const sl_connector *c, const sl_kvlist *opts,
                           const sl_table_shape *shape, bool upsert, sl_error *err);

/* Create functions attached to sl__connector_kafka and sl__connector_upsert_kafka. */
int sl__kafka_source_create(const sl_source_args *args, sl_source **out, sl_error *err);
int sl__kafka_sink_create(const sl_sink_args *args, sl_sink **out, sl_error *err);
int sl__upsert_kafka_sink_create(const sl_sink_args *args, sl_sink **out, sl_error *err);
int sl__upsert_kafka_source_create(const sl_source_args *args, sl_source **out, sl_error *err);

/* Defaults of every producer (pairs for sl__kafka_conf): keyed records go
** to the partition Java's producer would choose (murmur2), as Flink's do;
** records without a key are spread at random. Its queue — the records
** handed to it and not yet acknowledged, each held twice once in a request
** — is bounded for memory (librdkafka's defaults are 1 GB and 100 000
** records); a full queue makes the sink wait for acknowledgements
** (kafka_sink.c), which is the job's backpressure. */
#define SL__KAFKA_PRODUCER_DEFAULTS                                                              \
    "partitioner", "murmur2_random", "queue.buffering.max.kbytes", SL__KAFKA_PRODUCER_KB,         \
        "queue.buffering.max.messages", SL__KAFKA_PRODUCER_MSGS
#define SL__KAFKA_PRODUCER_KB   "2048"
#define SL__KAFKA_PRODUCER_MSGS "10000"

/* A librdkafka configuration from the table's options: bootstrap.servers
** and every 'properties.<x>' as <x>, then the given defaults (pairs of key,
** value, NULL-terminated) for keys the user did not set. Errors are routed
** to sl_log. NULL with err (22023 naming the option) when librdkafka
** refuses a property. */
rd_kafka_conf_t *sl__kafka_conf(const sl_kvlist *opts, const char *const *defaults, sl_error *err);

/* Have producer rk learn where topic's partitions are (a metadata request,
** at most timeout_ms): its first records would otherwise wait for its
** once-a-second look at topics it does not know, up to a second. A broker
** that does not answer only leaves that wait. */
void sl__kafka_learn_topic(rd_kafka_t *rk, const char *topic, int timeout_ms);

/* 'scan.buffer.max-bytes': the fetched records a source subtask holds
** (kafka_source.c), by default and at least. */
#define SL__KAFKA_BUFFER_DEFAULT "4 mb"
#define SL__KAFKA_BUFFER_MIN     (256 << 10)

/* 'scan.topic-partition-discovery.interval' by default (Flink's). */
#define SL__KAFKA_DISCOVERY_DEFAULT "5 min"

/* The topics of 'topic' = 'a;b;c' (Flink's list; blanks around names are
** dropped, empty names skipped); caller frees each and the array. */
char **sl__kafka_split_topics(const char *list, int *n);

/* The topics' retention ('retention.ms', the largest of 'topic''s topics;
** -1 = forever -> INT64_MAX), read with the admin API (kafka_horizon.c):
** sl_connector.replay_horizon. */
int sl__kafka_replay_horizon(const sl_kvlist *opts, int64_t timeout_ms, int64_t *horizon_ms,
                             const char **what, sl_error *err);

/* The source subtask that reads partition of topic (Flink's
** KafkaSourceEnumerator rule). */
int sl__kafka_owner(const char *topic, int32_t partition, int parallelism);

/* One entry of 'scan.startup.specific-offsets'. */
typedef struct sl__kafka_offset {
    int32_t partition; /* partition */
    int64_t offset;    /* the offset to start at */
} sl__kafka_offset;

/* Parse 'partition:0,offset:42;partition:1,offset:300' (Flink's format) into
** *out (caller frees; out and n may be NULL to only check). 0 or -1. */
int sl__kafka_parse_offsets(const char *text, sl__kafka_offset **out, int *n);
/* The read_committed end offsets of the first topic's partitions now, as
** 'scan.bounded.*' options (sl_connector_caps.source_end). */
int sl__kafka_source_end(const sl_kvlist *opts, sl_kvlist *bound, sl_strbuf *summary, sl_error *err);

/* A consumer for reading where topic's partitions end now (RECONCILE): a
** group of its own that never commits, end-of-partition events told, and
** 'isolation.level' = isolation unless the user set it (force: even then);
** with the topic's partitions, sorted (*parts, caller frees; *rk, caller
** destroys). 0, or -1 with err (42704 for a topic that does not exist). */
int sl__kafka_ends_open(const sl_kvlist *opts, const char *topic, const char *isolation,
                        bool force, rd_kafka_t **rk, int32_t **parts, int *nparts, sl_error *err);

/* The transactions open on 'topic' now (kafka_pending.c):
** sl_connector.pending_txns. */
int sl__kafka_pending_txns(const sl_kvlist *opts, int64_t before_ms, int64_t settle_ms,
                           sl_pending_txns *out, sl_error *err);

/* The SQLSTATE of a librdkafka error: 08006 when the cluster failed for now
** (a broker down, a timeout: the job is restarted from its checkpoint),
** else 58030. */
const char *sl__kafka_sqlstate(rd_kafka_resp_err_t e);

/* The monotonic clock in milliseconds (timeouts, retry deadlines). */
static inline int64_t sl__kafka_now_ms(void)
{
    return sl_monotonic_nanos() / SL_NANOS_PER_MILLI;
}

/* Whether the user set 'properties.<key>'. */
bool sl__kafka_user_set(const sl_kvlist *opts, const char *key);

/* ---- kafka_txn.c: the last-resource participant of exactly-once sinks ---- */

#define SL__KAFKA_TXN_TIMEOUT_DEFAULT_MS 60000 /* librdkafka's transaction.timeout.ms */

/* The connector's create_participant. */
int sl__kafka_txn_create(const sl_participant_args *args, sl_participant **out, sl_error *err);
/* The producer whose open transaction takes epoch's rows (the transaction
** is begun by the first caller). NULL with err. Thread-safe. */
rd_kafka_t *sl__kafka_txn_producer(sl_participant *p, int64_t epoch, sl_error *err);
/* Its transactional.id, for messages and committables. */
const char *sl__kafka_txn_id(sl_participant *p, int64_t epoch);
/* 0 while rk has not failed fatally; else -1 with err (a transaction open
** past its timeout: 40000; fenced: 55006, naming the job and the prefix;
** otherwise 58030); what names the failed step. */
int sl__kafka_txn_error(sl_participant *p, rd_kafka_t *rk, const char *what, sl_error *err);
/* 'properties.transaction.timeout.ms', or librdkafka's default. */
int64_t sl__kafka_txn_timeout_ms(const sl_kvlist *opts);
/* The connector's live probe: the broker's transaction.max.timeout.ms. */
int sl__kafka_probe(const sl_kvlist *opts, int64_t timeout_ms, sl_sink_probe *out, sl_error *err);

#endif /* SL_KAFKA_INT_H */
