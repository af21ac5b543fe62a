/*
** kafka_source.c — the kafka source: the records of one topic decoded with
** the table's format. Unbounded (never SL_SOURCE_END), replayable.
**
** Consumer: librdkafka with 'enable.auto.commit' = false,
** 'isolation.level' = read_committed and 'auto.offset.reset' = earliest
** unless the user set them (properties.<x>), and 'group.id' = sluice-<table>
** when 'properties.group.id' is not given. There is no group membership:
** at its first poll a subtask lists the topic's partitions (metadata) and
** assigns itself, with rd_kafka_assign and explicit offsets, the partitions
** i with i % parallelism == subtask. Offsets are never committed to the
** group; the checkpoint holds them.
**
** Start: after seek(), the stored offsets (partitions not in the stored
** position — added since — start at the beginning); otherwise by
** 'scan.startup.mode': earliest-offset (the beginning), latest-offset (the
** high watermark, read once at start, so the position is a real offset),
** group-offsets (the group's committed offsets, the beginning where it has
** none), timestamp (rd_kafka_offsets_for_times of
** 'scan.startup.timestamp-millis'; the end of a partition without a later
** record), specific-offsets ('scan.startup.specific-offsets'; the beginning
** for partitions not listed).
**
** Position (text): "v1 <partition>:<next offset>,..." for this subtask's
** partitions, in partition order; -2 means "from the beginning" (nothing
** read yet). Every record handed out is before its partition's offset.
** Before the first poll the partitions are not known yet and the position
** is "v1 " (a restart from it reads every partition from the beginning,
** whatever 'scan.startup.mode' says).
**
** Records: one message value is one record (a trailing "\n" or "\r\n" is
** dropped); a message without a value (tombstone) is skipped. A malformed
** record fails the source (22P02, the codec's message; the detail adds
** `in <topic>/<partition>/<offset>: <record>`), or with
** '<format>.ignore-parse-errors' is skipped and counted.
**
** poll returns within about 100 ms: it reads for at most 50 ms, and waits
** at most 100 ms when nothing arrives.
**
** Main routines: sl__kafka_source_create and the sl_source_ops below.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "kafka_int.h"

#define SL__KAFKA_POLL_WORK_MS    50  /* read for at most this long per poll */
#define SL__KAFKA_IDLE_WAIT_MS    100 /* longest wait in one poll */
#define SL__KAFKA_META_TIMEOUT_MS 10000
#define SL__KAFKA_SHOW_BYTES      200 /* bytes of a bad record in messages */

typedef enum {
    SL__START_EARLIEST,
    SL__START_LATEST,
    SL__START_GROUP,
    SL__START_TIMESTAMP,
    SL__START_SPECIFIC,
} sl__kafka_start;

typedef struct sl__kafka_part {
    int32_t partition; /* partition number */
    int64_t next;      /* offset of the next record to hand out; -2 = beginning */
} sl__kafka_part;

typedef struct sl__kafka_source {
    char *topic;
    int subtask, parallelism;
    sl__kafka_start start;
    int64_t start_ms;             /* SL__START_TIMESTAMP: epoch ms */
    sl__kafka_offset *specific;   /* SL__START_SPECIFIC: the offsets */
    int nspecific;                /* their number */
    sl_codec *codec;
    rd_kafka_t *rk;
    int64_t skipped;
    bool assigned;         /* partitions assigned */
    sl__kafka_part *parts; /* this subtask's partitions (sorted), once assigned */
    int nparts;
    sl__kafka_part *seeked; /* stored position (seek), until assigned */
    int nseeked;
    bool has_seek;
} sl__kafka_source;

#define SL__KAFKA_TOPIC_WAIT_MS 5000 /* a new topic may take this long to appear */

static int64_t sl__kafka_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int sl__kafka_fail(sl_error *err, const char *topic, const char *what, rd_kafka_resp_err_t e)
{
    return sl_error_set(err, SL_ERR_IO, -1, "kafka source: %s of topic \"%s\" failed: %s", what,
                        topic, rd_kafka_err2str(e));
}

/* The partitions of the topic (sorted), or -1 with err. */
static int sl__kafka_partitions(sl__kafka_source *s, int32_t **out, int *n, sl_error *err)
{
    rd_kafka_topic_t *t = rd_kafka_topic_new(s->rk, s->topic, NULL);
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e;
    /* A topic just created may not be in the metadata yet, or have no
    ** leaders: ask again for a few seconds before calling it missing. */
    int64_t until = sl__kafka_now_ms() + SL__KAFKA_TOPIC_WAIT_MS;
    for (;;) {
        e = rd_kafka_metadata(s->rk, 0, t, &md, SL__KAFKA_META_TIMEOUT_MS);
        bool settled = e || (md->topic_cnt >= 1 && !md->topics[0].err &&
                             md->topics[0].partition_cnt >= 1);
        if (settled || sl__kafka_now_ms() >= until)
            break;
        rd_kafka_metadata_destroy(md);
        md = NULL;
        struct timespec pause = {0, 200 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    rd_kafka_topic_destroy(t);
    if (e)
        return sl__kafka_fail(err, s->topic, "reading the metadata", e);
    int rc = 0;
    if (md->topic_cnt < 1 || md->topics[0].err || md->topics[0].partition_cnt < 1) {
        rd_kafka_resp_err_t te =
            md->topic_cnt < 1 ? RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART : md->topics[0].err;
        if (te == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || te == 0)
            rc = sl_error_set(err, SL_ERR_UNDEFINED_OBJECT, -1,
                              "kafka source: topic \"%s\" does not exist", s->topic);
        else
            rc = sl__kafka_fail(err, s->topic, "reading the metadata", te);
    } else {
        const rd_kafka_metadata_topic_t *mt = &md->topics[0];
        *n = mt->partition_cnt;
        *out = sl_calloc((size_t)mt->partition_cnt, sizeof **out);
        for (int i = 0; i < mt->partition_cnt; i++)
            (*out)[i] = mt->partitions[i].id;
        for (int i = 1; i < *n; i++) /* insertion sort: a few partitions */
            for (int j = i; j > 0 && (*out)[j - 1] > (*out)[j]; j--) {
                int32_t x = (*out)[j];
                (*out)[j] = (*out)[j - 1];
                (*out)[j - 1] = x;
            }
    }
    rd_kafka_metadata_destroy(md);
    return rc;
}

/* Choose this subtask's partitions and their start offsets; assign them. */
static int sl__kafka_assign(sl__kafka_source *s, sl_error *err)
{
    int32_t *all = NULL;
    int nall = 0;
    if (sl__kafka_partitions(s, &all, &nall, err) != 0)
        return -1;
    sl_free(s->parts);
    s->parts = sl_calloc((size_t)nall, sizeof *s->parts);
    s->nparts = 0;
    for (int i = 0; i < nall; i++)
        if (all[i] % s->parallelism == s->subtask)
            s->parts[s->nparts++] = (sl__kafka_part){.partition = all[i], .next = -2};
    sl_free(all);
    rd_kafka_topic_partition_list_t *l =
        rd_kafka_topic_partition_list_new(s->nparts > 0 ? s->nparts : 1);
    for (int i = 0; i < s->nparts; i++)
        rd_kafka_topic_partition_list_add(l, s->topic, s->parts[i].partition);
    if (s->has_seek) {
        for (int i = 0; i < s->nparts; i++)
            for (int j = 0; j < s->nseeked; j++)
                if (s->seeked[j].partition == s->parts[i].partition)
                    s->parts[i].next = s->seeked[j].next;
    } else if (s->start == SL__START_LATEST) {
        for (int i = 0; i < s->nparts; i++) {
            int64_t lo = 0, hi = 0;
            rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(
                s->rk, s->topic, s->parts[i].partition, &lo, &hi, SL__KAFKA_META_TIMEOUT_MS);
            if (e) {
                rd_kafka_topic_partition_list_destroy(l);
                return sl__kafka_fail(err, s->topic, "reading the latest offsets", e);
            }
            s->parts[i].next = hi;
        }
    } else if (s->start == SL__START_TIMESTAMP && s->nparts > 0) {
        /* The first offset at or after the timestamp; the end where none. */
        for (int i = 0; i < l->cnt; i++)
            l->elems[i].offset = s->start_ms;
        rd_kafka_resp_err_t e = rd_kafka_offsets_for_times(s->rk, l, SL__KAFKA_META_TIMEOUT_MS);
        if (e) {
            rd_kafka_topic_partition_list_destroy(l);
            return sl__kafka_fail(err, s->topic, "looking up offsets by timestamp", e);
        }
        for (int i = 0; i < s->nparts; i++)
            for (int j = 0; j < l->cnt; j++)
                if (l->elems[j].partition == s->parts[i].partition) {
                    int64_t lo = 0, hi = 0;
                    if (l->elems[j].offset >= 0) {
                        s->parts[i].next = l->elems[j].offset;
                    } else if ((e = rd_kafka_query_watermark_offsets(
                                    s->rk, s->topic, s->parts[i].partition, &lo, &hi,
                                    SL__KAFKA_META_TIMEOUT_MS)) == 0) {
                        s->parts[i].next = hi;
                    } else {
                        rd_kafka_topic_partition_list_destroy(l);
                        return sl__kafka_fail(err, s->topic, "reading the latest offsets", e);
                    }
                }
    } else if (s->start == SL__START_SPECIFIC) {
        for (int i = 0; i < s->nparts; i++)
            for (int j = 0; j < s->nspecific; j++)
                if (s->specific[j].partition == s->parts[i].partition)
                    s->parts[i].next = s->specific[j].offset;
    } else if (s->start == SL__START_GROUP && s->nparts > 0) {
        rd_kafka_resp_err_t e = rd_kafka_committed(s->rk, l, SL__KAFKA_META_TIMEOUT_MS);
        if (e) {
            rd_kafka_topic_partition_list_destroy(l);
            return sl__kafka_fail(err, s->topic, "reading the group's committed offsets", e);
        }
        for (int i = 0; i < s->nparts; i++)
            for (int j = 0; j < l->cnt; j++)
                if (l->elems[j].partition == s->parts[i].partition && l->elems[j].offset >= 0)
                    s->parts[i].next = l->elems[j].offset;
    }
    for (int i = 0; i < s->nparts; i++) {
        rd_kafka_topic_partition_t *tp =
            rd_kafka_topic_partition_list_find(l, s->topic, s->parts[i].partition);
        tp->offset = s->parts[i].next >= 0 ? s->parts[i].next : RD_KAFKA_OFFSET_BEGINNING;
    }
    rd_kafka_resp_err_t e = rd_kafka_assign(s->rk, s->nparts > 0 ? l : NULL);
    rd_kafka_topic_partition_list_destroy(l);
    if (e)
        return sl__kafka_fail(err, s->topic, "assigning the partitions", e);
    sl_free(s->seeked);
    s->seeked = NULL;
    s->nseeked = 0;
    s->has_seek = false;
    s->assigned = true;
    if (s->nparts == 0)
        sl_log(SL_LOG_WARN,
               "kafka source: topic \"%s\" has fewer partitions than the source's parallelism "
               "(%d): subtask %d reads nothing",
               s->topic, s->parallelism, s->subtask);
    return 0;
}

static void sl__kafka_show_record(sl_strbuf *sb, const char *rec, size_t len)
{
    size_t n = len;
    if (n > SL__KAFKA_SHOW_BYTES) {
        n = SL__KAFKA_SHOW_BYTES;
        while (n > 0 && ((unsigned char)rec[n] & 0xC0) == 0x80)
            n--; /* do not cut a UTF-8 sequence */
    }
    sl_strbuf_append_n(sb, rec, n);
    if (n < len)
        sl_strbuf_append(sb, "...");
}

/* Decode one message into out. 0 or -1 with err. */
static int sl__kafka_message(sl__kafka_source *s, const rd_kafka_message_t *m, sl_chunk *out,
                             sl_error *err)
{
    sl__kafka_part *p = NULL;
    for (int i = 0; i < s->nparts; i++)
        if (s->parts[i].partition == m->partition)
            p = &s->parts[i];
    if (!p || (p->next >= 0 && m->offset < p->next))
        return 0; /* not ours, or before the position (a re-fetch) */
    if (m->payload) {
        const char *rec = m->payload;
        size_t len = m->len;
        if (len > 0 && rec[len - 1] == '\n')
            len--;
        if (len > 0 && rec[len - 1] == '\r')
            len--;
        int rc = sl_codec_decode(s->codec, rec, len, out, err);
        if (rc < 0) {
            if (!sl_error_isset(err))
                sl_error_set(err, SL_ERR_INVALID_TEXT, -1, "malformed record");
            sl_strbuf sb = SL_STRBUF_INIT;
            if (err->detail && err->detail[0])
                sl_strbuf_appendf(&sb, "%s\n", err->detail);
            sl_strbuf_appendf(&sb, "in %s/%" PRId32 "/%" PRId64 ": ", s->topic, m->partition,
                              m->offset);
            sl__kafka_show_record(&sb, rec, len);
            sl_error_detail(err, "%s", sl_strbuf_cstr(&sb));
            sl_strbuf_free(&sb);
            return -1;
        }
        if (rc == SL_CODEC_SKIPPED)
            s->skipped++;
    }
    p->next = m->offset + 1;
    return 0;
}

static int sl__kafka_poll(sl_source *src, sl_chunk *out, sl_error *err)
{
    sl__kafka_source *s = src->impl;
    if (!s->assigned && sl__kafka_assign(s, err) != 0)
        return -1;
    int64_t start = sl__kafka_now_ms();
    while (!sl_chunk_full(out)) {
        int64_t spent = sl__kafka_now_ms() - start;
        int wait;
        if (out->nrows > 0)
            wait = 0;
        else
            wait = spent >= SL__KAFKA_IDLE_WAIT_MS ? 0 : (int)(SL__KAFKA_IDLE_WAIT_MS - spent);
        rd_kafka_message_t *m = rd_kafka_consumer_poll(s->rk, wait);
        if (!m) {
            if (out->nrows > 0 || sl__kafka_now_ms() - start >= SL__KAFKA_IDLE_WAIT_MS)
                return SL_SOURCE_MORE;
            continue;
        }
        int rc = 0;
        if (m->err) {
            rd_kafka_resp_err_t e = m->err;
            if (e == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                /* nothing */
            } else if (e == RD_KAFKA_RESP_ERR__FATAL ||
                       e == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
                       e == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
                       e == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
                       e == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION) {
                rc = sl__kafka_fail(err, s->topic, "reading", e);
            } else {
                sl_log(SL_LOG_WARN, "kafka source: topic \"%s\": %s", s->topic,
                       rd_kafka_message_errstr(m));
            }
        } else {
            rc = sl__kafka_message(s, m, out, err);
        }
        rd_kafka_message_destroy(m);
        if (rc != 0)
            return -1;
        if (sl__kafka_now_ms() - start >= SL__KAFKA_POLL_WORK_MS)
            break;
    }
    return SL_SOURCE_MORE;
}

static int sl__kafka_position(sl_source *src, sl_strbuf *out, sl_error *err)
{
    sl__kafka_source *s = src->impl;
    const sl__kafka_part *parts = s->assigned ? s->parts : s->seeked;
    int n = s->assigned ? s->nparts : s->nseeked;
    sl_strbuf_append(out, "v1 ");
    for (int i = 0; i < n; i++)
        sl_strbuf_appendf(out, "%s%" PRId32 ":%" PRId64, i ? "," : "", parts[i].partition,
                          parts[i].next);
    return 0;
}

static int sl__kafka_seek(sl_source *src, const char *pos, size_t len, sl_error *err)
{
    sl__kafka_source *s = src->impl;
    char *text = sl_strndup(pos, len);
    sl__kafka_part *parts = NULL;
    int n = 0, cap = 0;
    bool ok = len >= 3 && memcmp(text, "v1 ", 3) == 0 && strlen(text) == len;
    const char *p = text + 3;
    while (ok && *p) {
        char *end;
        long long part = strtoll(p, &end, 10);
        if (end == p || *end != ':' || part < 0 || part > INT32_MAX) {
            ok = false;
            break;
        }
        p = end + 1;
        long long off = strtoll(p, &end, 10);
        if (end == p || off < -2 || (*end != ',' && *end != 0)) {
            ok = false;
            break;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            parts = sl_realloc(parts, (size_t)cap * sizeof *parts);
        }
        parts[n++] = (sl__kafka_part){.partition = (int32_t)part, .next = off < 0 ? -2 : off};
        p = end;
        if (*p == ',' && *++p == 0)
            ok = false; /* a trailing comma */
    }
    sl_free(text);
    if (!ok) {
        sl_free(parts);
        sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "invalid kafka source position");
        sl_error_detail(err, "The stored position is \"%.*s\".", (int)(len > 200 ? 200 : len), pos);
        return -1;
    }
    sl_free(s->seeked);
    s->seeked = parts;
    s->nseeked = n;
    s->has_seek = true;
    s->assigned = false; /* (re)assign at the next poll */
    return 0;
}

static int64_t sl__kafka_skipped(sl_source *src)
{
    sl__kafka_source *s = src->impl;
    return s->skipped;
}

static void sl__kafka_source_free(sl_source *src)
{
    if (!src)
        return;
    sl__kafka_source *s = src->impl;
    if (s->rk) {
        rd_kafka_consumer_close(s->rk);
        rd_kafka_destroy(s->rk);
    }
    sl_codec_free(s->codec);
    sl_free(s->parts);
    sl_free(s->seeked);
    sl_free(s->specific);
    sl_free(s->topic);
    sl_free(s);
    sl_free(src);
}

static const sl_source_ops sl__kafka_source_ops = {
    .poll = sl__kafka_poll,
    .position = sl__kafka_position,
    .seek = sl__kafka_seek,
    .skipped = sl__kafka_skipped,
    .free = sl__kafka_source_free,
};

int sl__kafka_source_create(const sl_source_args *args, sl_source **out, sl_error *err)
{
    *out = NULL;
    const char *topic = sl_kvlist_get(args->options, "topic");
    if (!topic || !topic[0])
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1, "option 'topic' is required");
    const char *mode = sl_kvlist_get(args->options, "scan.startup.mode");
    sl__kafka_start start = SL__START_GROUP;
    if (mode && strcasecmp(mode, "earliest-offset") == 0)
        start = SL__START_EARLIEST;
    else if (mode && strcasecmp(mode, "latest-offset") == 0)
        start = SL__START_LATEST;
    else if (mode && strcasecmp(mode, "timestamp") == 0)
        start = SL__START_TIMESTAMP;
    else if (mode && strcasecmp(mode, "specific-offsets") == 0)
        start = SL__START_SPECIFIC;
    int64_t start_ms = 0;
    const char *ts = sl_kvlist_get(args->options, "scan.startup.timestamp-millis");
    if (ts && sl_option_parse_int(ts, &start_ms, -1, err) != 0)
        return -1;
    sl__kafka_offset *specific = NULL;
    int nspecific = 0;
    const char *so = sl_kvlist_get(args->options, "scan.startup.specific-offsets");
    if (start == SL__START_SPECIFIC && (!so || sl__kafka_parse_offsets(so, &specific,
                                                                      &nspecific) != 0))
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "kafka source: invalid 'scan.startup.specific-offsets'");
    sl_codec *codec = sl_codec_new(args->options, args->ncols, args->names, args->types, err);
    if (!codec) {
        sl_free(specific);
        return -1;
    }
    char group[256];
    snprintf(group, sizeof group, "sluice-%s", args->table ? args->table : "source");
    const char *defaults[] = {"group.id",
                              group,
                              "enable.auto.commit",
                              "false",
                              "enable.auto.offset.store",
                              "false",
                              "isolation.level",
                              "read_committed",
                              "auto.offset.reset",
                              "earliest",
                              NULL};
    rd_kafka_conf_t *conf = sl__kafka_conf(args->options, defaults, err);
    if (!conf) {
        sl_codec_free(codec);
        sl_free(specific);
        return -1;
    }
    char msg[512];
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, msg, sizeof msg);
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        sl_codec_free(codec);
        sl_free(specific);
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "kafka source: could not create a consumer: %s", msg);
    }
    rd_kafka_poll_set_consumer(rk);
    sl__kafka_source *s = sl_calloc(1, sizeof *s);
    s->topic = sl_strdup(topic);
    s->subtask = args->subtask;
    s->parallelism = args->parallelism > 0 ? args->parallelism : 1;
    s->start = start;
    s->start_ms = start_ms;
    s->specific = specific;
    s->nspecific = nspecific;
    s->codec = codec;
    s->rk = rk;
    sl_source *src = sl_calloc(1, sizeof *src);
    src->ops = &sl__kafka_source_ops;
    src->impl = s;
    *out = src;
    return 0;
}
