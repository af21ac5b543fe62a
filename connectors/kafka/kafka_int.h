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

/* Create functions attached to sl__connector_kafka. */
int sl__kafka_source_create(const sl_source_args *args, sl_source **out, sl_error *err);
int sl__kafka_sink_create(const sl_sink_args *args, sl_sink **out, sl_error *err);

/* A librdkafka configuration from the table's options: bootstrap.servers
** and every 'properties.<x>' as <x>, then the given defaults (pairs of key,
** value, NULL-terminated) for keys the user did not set. Errors are routed
** to sl_log. NULL with err (22023 naming the option) when librdkafka
** refuses a property. */
rd_kafka_conf_t *sl__kafka_conf(const sl_kvlist *opts, const char *const *defaults, sl_error *err);

/* One entry of 'scan.startup.specific-offsets'. */
typedef struct sl__kafka_offset {
    int32_t partition; /* partition */
    int64_t offset;    /* the offset to start at */
} sl__kafka_offset;

/* Parse 'partition:0,offset:42;partition:1,offset:300' (Flink's format) into
** *out (caller frees; out and n may be NULL to only check). 0 or -1. */
int sl__kafka_parse_offsets(const char *text, sl__kafka_offset **out, int *n);

/* Whether the user set 'properties.<key>'. */
bool sl__kafka_user_set(const sl_kvlist *opts, const char *key);

#endif /* SL_KAFKA_INT_H */
