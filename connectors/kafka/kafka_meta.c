/*
** kafka_meta.c — a Kafka table's METADATA columns (Flink's keys, declared in
** kafka.c): the one place that fills them from a record, and the one place
** that takes a written record's timestamp from a row.
**
**   topic           STRING NOT NULL            the record's topic
**   partition       INT NOT NULL               its partition
**   headers         MAP<STRING, BYTES> NOT NULL  the record's headers (a name
**                                              given twice: the last value, as
**                                              Flink's map; writable)
**   leader-epoch    INT NULL                   the leader epoch (NULL when
**                                              librdkafka does not tell it)
**   offset          BIGINT NOT NULL            its offset in the partition
**   timestamp       TIMESTAMP_LTZ(3) NOT NULL  its timestamp (writable)
**   timestamp-type  STRING NOT NULL            NoTimestampType, CreateTime or
**                                              LogAppendTime
**
** Every value comes from the record itself, so a replay from a checkpoint's
** offsets fills the same values. A written timestamp is the produced
** record's timestamp (CreateTime); NULL leaves it to the producer (now).
** Written headers are the map's entries in its order (a NULL value is a
** header without a value; a NULL name is refused, 22004).
**
** Main routines: sl__kafka_meta_new, sl__kafka_meta_fill,
** sl__kafka_meta_timestamp, sl__kafka_meta_headers.
*/
#include <string.h>

#include "kafka_int.h"

static const char *const sl__keys[] = {
    [SL__KM_TOPIC] = "topic",   [SL__KM_PARTITION] = "partition",
    [SL__KM_HEADERS] = "headers", [SL__KM_LEADER_EPOCH] = "leader-epoch",
    [SL__KM_OFFSET] = "offset", [SL__KM_TIMESTAMP] = "timestamp",
    [SL__KM_TIMESTAMP_TYPE] = "timestamp-type",
};

int sl__kafka_meta_new(const char *const *meta, int ncols, sl__kafka_meta *m, sl_error *err)
{
    memset(m, 0, sizeof *m);
    m->ts_col = m->hdr_col = -1;
    m->hdr_type = sl_type_map_of(sl_type_make(SL_TYPE_VARCHAR), sl_type_make(SL_TYPE_VARBINARY));
    for (int i = 0; meta && i < ncols; i++)
        m->n += meta[i] != NULL;
    if (m->n == 0)
        return 0;
    m->cols = sl_calloc((size_t)m->n, sizeof(int));
    m->keys = sl_calloc((size_t)m->n, sizeof(int));
    for (int i = 0, k = 0; i < ncols; i++) {
        if (!meta[i])
            continue;
        int key = -1;
        for (size_t j = 0; j < SL_ARRAY_LEN(sl__keys); j++)
            if (strcmp(meta[i], sl__keys[j]) == 0)
                key = (int)j;
        if (meta[i][0] && key < 0) { /* the planner checked them */
            sl__kafka_meta_free(m);
            return sl_error_set(err, SL_ERR_INTERNAL, -1, "kafka: unexpected metadata key '%s'",
                                meta[i]);
        }
        m->cols[k] = i;
        m->keys[k++] = key; /* -1: a sink's VIRTUAL column, not written */
        if (key == SL__KM_TIMESTAMP && m->ts_col < 0)
            m->ts_col = i;
        if (key == SL__KM_HEADERS && m->hdr_col < 0)
            m->hdr_col = i;
    }
    return 0;
}

void sl__kafka_meta_free(sl__kafka_meta *m)
{
    sl_free(m->cols);
    sl_free(m->keys);
    sl_strbuf_free(&m->scratch);
    memset(m, 0, sizeof *m);
    m->ts_col = m->hdr_col = -1;
}

bool sl__kafka_meta_is(const sl__kafka_meta *m, int col)
{
    for (int k = 0; k < m->n; k++)
        if (m->cols[k] == col)
            return true;
    return false;
}

/* A STR value in the row layout (rowcodec.c): not null, u32 length, bytes. */
static void sl__put_str(sl_strbuf *sb, const void *p, size_t n)
{
    sl_strbuf_append_char(sb, 0);
    sl_put_u32(sb, (uint32_t)n);
    sl_strbuf_append_n(sb, p, n);
}

/* The record's headers as a MAP<STRING, BYTES> value into (out, c, row). */
static void sl__fill_headers(sl__kafka_meta *m, const rd_kafka_message_t *msg, sl_chunk *out,
                             int c, int row)
{
    sl_strbuf *sb = &m->scratch;
    sl_strbuf_reset(sb);
    rd_kafka_headers_t *hdrs = NULL; /* owned by msg */
    size_t n = 0;
    if (rd_kafka_message_headers(msg, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR && hdrs)
        n = rd_kafka_header_cnt(hdrs);
    sl_put_u32(sb, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        const char *name = NULL;
        const void *val = NULL;
        size_t size = 0;
        if (rd_kafka_header_get_all(hdrs, i, &name, &val, &size) != RD_KAFKA_RESP_ERR_NO_ERROR)
            name = "", val = NULL;
        sl__put_str(sb, name, strlen(name));
        if (val)
            sl__put_str(sb, val, size);
        else
            sl_strbuf_append_char(sb, 1); /* a header without a value: NULL */
    }
    sl_map_dedup(sb, 0, m->hdr_type); /* a name given twice: its last value */
    sl_chunk_set_str(out, c, row, sb->buf ? sb->buf : "", sb->len);
}

void sl__kafka_meta_fill(sl__kafka_meta *m, const rd_kafka_message_t *msg, sl_chunk *out,
                         int row)
{
    for (int k = 0; k < m->n; k++) {
        int c = m->cols[k];
        switch ((sl__kafka_meta_key)m->keys[k]) {
        case SL__KM_TOPIC: {
            const char *t = msg->rkt ? rd_kafka_topic_name(msg->rkt) : "";
            sl_chunk_set_str(out, c, row, t, strlen(t));
            break;
        }
        case SL__KM_PARTITION:
            sl_chunk_set_i64(out, c, row, msg->partition);
            break;
        case SL__KM_LEADER_EPOCH: {
#if RD_KAFKA_VERSION >= 0x020100ff
            int32_t epoch = rd_kafka_message_leader_epoch(msg);
            if (epoch >= 0) {
                sl_chunk_set_i64(out, c, row, epoch);
                break;
            }
#endif
            sl_chunk_set_null(out, c, row);
            break;
        }
        case SL__KM_OFFSET:
            sl_chunk_set_i64(out, c, row, msg->offset);
            break;
        case SL__KM_TIMESTAMP:
        case SL__KM_TIMESTAMP_TYPE: {
            rd_kafka_timestamp_type_t tt = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
            int64_t ms = rd_kafka_message_timestamp(msg, &tt);
            if (m->keys[k] == SL__KM_TIMESTAMP) {
                /* Flink: a record without a timestamp has -1 (1969-12-31 23:59:59.999) */
                sl_chunk_set_i64(out, c, row, ms * SL_NANOS_PER_MILLI);
                break;
            }
            const char *name = tt == RD_KAFKA_TIMESTAMP_CREATE_TIME       ? "CreateTime"
                               : tt == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? "LogAppendTime"
                                                                          : "NoTimestampType";
            sl_chunk_set_str(out, c, row, name, strlen(name));
            break;
        }
        case SL__KM_HEADERS:
            sl__fill_headers(m, msg, out, c, row);
            break;
        default:
            sl_chunk_set_null(out, c, row);
            break;
        }
    }
}

int64_t sl__kafka_meta_timestamp(const sl__kafka_meta *m, const sl_chunk *in, int r)
{
    if (m->ts_col < 0 || in->cols[m->ts_col].nulls[r])
        return 0;
    int64_t ns = in->cols[m->ts_col].v.i64[r];
    /* milliseconds, toward negative infinity (as the value's own truncation) */
    return ns >= 0 ? ns / SL_NANOS_PER_MILLI : -((-ns + SL_NANOS_PER_MILLI - 1) / SL_NANOS_PER_MILLI);
}

int sl__kafka_meta_headers(const sl__kafka_meta *m, const sl_chunk *in, int r,
                           rd_kafka_headers_t **out, sl_error *err)
{
    *out = NULL;
    if (m->hdr_col < 0 || in->cols[m->hdr_col].nulls[r])
        return 0;
    const uint8_t *p = (const uint8_t *)in->cols[m->hdr_col].v.str[r].ptr;
    size_t n = in->cols[m->hdr_col].v.str[r].len;
    uint32_t count = 0;
    size_t *off = NULL;
    if (!sl_array_split(p, n, m->hdr_type, &count, &off))
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "kafka sink: a malformed headers value");
    rd_kafka_headers_t *hdrs = count ? rd_kafka_headers_new((size_t)count / 2) : NULL;
    for (uint32_t i = 0; i + 1 < count; i += 2) {
        const uint8_t *k = p + off[i], *v = p + off[i + 1];
        size_t klen = off[i + 1] - off[i], vlen = off[i + 2] - off[i + 1];
        if (klen < 5 || k[0]) { /* a NULL name: Kafka has no such header */
            rd_kafka_headers_destroy(hdrs);
            sl_free(off);
            sl_error_set(err, SL_ERR_NULL_NOT_ALLOWED, -1,
                         "a Kafka header name cannot be NULL");
            sl_error_detail(err, "The headers metadata column's map has a NULL key.");
            return -1;
        }
        char *name = sl_strndup((const char *)k + 5, klen - 5);
        rd_kafka_header_add(hdrs, name, -1, vlen >= 5 && !v[0] ? v + 5 : NULL,
                            vlen >= 5 && !v[0] ? (ssize_t)(vlen - 5) : 0);
        sl_free(name);
    }
    sl_free(off);
    *out = hdrs;
    return 0;
}
