/*
** kafka_source.c — the kafka source: the records of one or more topics
** ('topic' = 'a;b', or every topic matching 'topic-pattern') decoded with
** the table's format. Replayable; unbounded (never SL_SOURCE_END) unless
** 'scan.bounded.mode' is set (below).
**
** Consumer: librdkafka with 'enable.auto.commit' = false,
** 'isolation.level' = read_committed and 'auto.offset.reset' = earliest
** unless the user set them (properties.<x>), and 'group.id' = sluice-<table>
** when 'properties.group.id' is not given. There is no group membership: a
** subtask lists the topics' partitions (metadata) and assigns itself, with
** explicit offsets, the ones it owns — Flink's rule, so an existing
** partition never changes owner when others appear: partition i of topic
** t goes to subtask (start(t) + i) % parallelism, start(t) = ((Java
** hashCode of t) * 31 & 0x7FFFFFFF) % parallelism. The partitions are
** listed again every 'scan.topic-partition-discovery.interval' (new
** partitions, new topics matching the pattern); new ones are read from
** their beginning.
**
** Start: after seek(), the stored offsets (partitions not in the stored
** position — added since — start at the beginning); otherwise by
** 'scan.startup.mode': earliest-offset (the beginning), latest-offset (the
** high watermark, read once at start, so the position is a real offset),
** group-offsets (the group's committed offsets, the beginning where it has
** none), timestamp (rd_kafka_offsets_for_times of
** 'scan.startup.timestamp-millis'; the end of a partition without a later
** record), specific-offsets ('scan.startup.specific-offsets', for the first
** topic; the beginning for partitions not listed).
**
** Bounded ('scan.bounded.mode', Flink's option): each partition ends
** before a stop offset fixed when the source starts: the end
** read_committed sees then (latest-offset: the last stable offset, as the
** consumer's isolation level asks the broker for it), or
** 'scan.bounded.specific-offsets' (partitions of the first topic not
** listed are not read). A partition is done once a record at or past its
** stop arrives, or the end-of-partition event (enable.partition.eof, set
** for a bounded read) is at or past it — transaction markers take offsets
** that no record reaches. When every partition of the subtask is done,
** poll returns SL_SOURCE_END. No new partitions are looked for.
**
** Position (text): "v2 <topic>:<partition>:<next offset>,..." for this
** subtask's partitions in the order they were found; -2 means "from the
** beginning" (nothing read yet). Every record handed out is before its
** partition's offset. Topic names cannot hold ':' or ','. ("v1
** <partition>:<offset>,..." of earlier versions is read for one topic.)
** Offsets live in checkpoints; once a checkpoint is decided its offsets
** are committed to the group as well (asynchronously), for monitoring
** tools: never read back, except by 'group-offsets' at a fresh start.
**
** Splits: each partition is a split (sl_source_ops.splits), so the task's
** watermark is the smallest of its partitions' (Flink's per-partition
** watermarks): a row is never late because another partition ran ahead.
**
** Records: one message value is one record, its bytes as they are (the
** csv codec drops a trailing "\n" or "\r\n"), in the value's format; with
** 'key.format' and EXCEPT_KEY its key fills the key's columns
** (kafka_layout.c); a message without a value (tombstone) is a null record:
** a row whose value is NULL for format 'raw' (as Flink reads it), skipped
** for the others. upsert-kafka (always from the earliest offset):
** a value is the +U of its key's row, a tombstone the -D of its key (only
** the key's columns filled); the planner's ChangelogNormalize makes the
** changelog complete. A malformed record fails the source (22P02, the
** codec's message; the detail adds `in <topic>/<partition>/<offset>:
** <record>`, "(the key)" for a key), or with '<format>.ignore-parse-errors'
** is skipped and counted.
**
** poll returns within about 100 ms: it reads for at most 50 ms, taking
** the messages already fetched in batches, and waits at most 100 ms when
** nothing arrives.
**
** Memory ('scan.buffer.max-bytes', B): the records fetched but not yet
** decoded stay within about B, each counted as its key and value plus
** SL__KAFKA_MSG_COST. librdkafka's own bound on its queue
** (queued.max.messages.kbytes, queued.min.messages: B/4 of values and as
** many messages as B/4 pays for, unless the user set them) stops its
** fetching, but version 2.0 then looks again only when its broker thread
** wakes for another reason, up to a second later, which halved the
** throughput of a catching-up job. So the source takes the fetched
** messages out of librdkafka's queue into a ring of its own while the
** ring holds less than B/2; above that it leaves them, and librdkafka
** stops at its bound. Once the source has emptied librdkafka's queue
** after it reached its bound, it seeks each partition to just after the
** last message taken from it (sl__kafka_wake), which wakes librdkafka's
** fetcher at once — pausing and resuming does not: the main thread
** handles those while the broker thread sleeps on. Nothing is lost or
** read twice.
**
** Main routines: sl__kafka_source_create and the sl_source_ops below.
*/
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kafka_int.h"

#define SL__KAFKA_POLL_WORK_MS    50  /* read for at most this long per poll */
#define SL__KAFKA_IDLE_WAIT_MS    100 /* longest wait in one poll */
#define SL__KAFKA_META_TIMEOUT_MS 10000
#define SL__KAFKA_SHOW_BYTES      200 /* bytes of a bad record in messages */
#define SL__KAFKA_TOPIC_WAIT_MS   5000 /* a new topic may take this long to appear */
#define SL__KAFKA_BATCH           256  /* messages taken from the consumer's queue at once */
/* What a fetched message costs beyond its key and value: librdkafka's op
** and message (about 180 bytes with malloc's header), the record's framing
** in the fetch buffer, the ring's pointer. */
#define SL__KAFKA_MSG_COST        224
#define SL__KAFKA_LIB_MIN_BYTES   (64 << 10) /* librdkafka's queue bound at least */

typedef enum {
    SL__START_EARLIEST,
    SL__START_LATEST,
    SL__START_GROUP,
    SL__START_TIMESTAMP,
    SL__START_SPECIFIC,
} sl__kafka_start;

typedef struct sl__kafka_part {
    char *topic;       /* its topic (owned) */
    int32_t partition; /* partition number */
    int64_t next;      /* offset of the next record to hand out; -2 = beginning */
    int64_t stop;      /* bounded: the offset it ends before; -1 = unbounded */
    bool done;         /* bounded: every record before stop was handed out */
    int64_t taken;     /* offset after the last record taken into the ring; -1 = none */
} sl__kafka_part;

typedef struct sl__kafka_source {
    char **topics;                /* 'topic': the listed topics */
    int ntopics;
    regex_t pattern;              /* 'topic-pattern', when has_pattern */
    bool has_pattern;
    char *what;                   /* the topics, for messages: "a", "a;b" or "pattern x" */
    int subtask, parallelism;
    sl__kafka_start start;
    int64_t start_ms;             /* SL__START_TIMESTAMP: epoch ms */
    sl__kafka_offset *specific;   /* SL__START_SPECIFIC: the offsets */
    int nspecific;                /* their number */
    int bounded;                  /* 'scan.bounded.mode': 0 unbounded, 1 latest-offset,
                                     2 specific-offsets */
    sl__kafka_offset *stops;      /* specific-offsets: the ends */
    int nstops;
    int64_t discovery_ms;         /* 'scan.topic-partition-discovery.interval'; 0 = never */
    int64_t discovered_at;        /* when the partitions were last listed */
    sl__kafka_layout layout;      /* the records' key and value */
    bool upsert;                  /* upsert-kafka: values are +U, tombstones -D of their key */
    rd_kafka_t *rk;
    rd_kafka_queue_t *queue;      /* the consumer's queue (messages of every partition) */
    int64_t skipped;
    bool assigned;                /* the first listing and assignment happened */
    sl__kafka_part *parts;        /* this subtask's partitions (split i = parts[i]) */
    int nparts, cap;
    sl__kafka_part *seeked;       /* stored position (seek), until assigned */
    int nseeked;
    bool has_seek;
    int32_t *row_split;           /* split of each row appended by the last poll */
    int row_cap;
    const rd_kafka_topic_t *last_rkt; /* the message lookup's cache: topic handle, */
    int32_t last_partition;           /* partition */
    int last_part;                    /* and index in parts (-1: none) */
    /* The prefetch (see the file's comment): messages taken out of
    ** librdkafka's queue, not yet decoded, in order. */
    rd_kafka_message_t **ring;    /* ring_cap slots */
    int ring_head, ring_len, ring_cap;
    int64_t ring_bytes;           /* their cost: keys, values, SL__KAFKA_MSG_COST each */
    int64_t ring_low;             /* the queue is emptied into the ring below this cost */
    int64_t lib_bytes;            /* librdkafka's bound: queued.max.messages.kbytes, */
    int64_t lib_msgs;             /* queued.min.messages */
    int64_t taken_bytes;          /* values taken since its queue was last empty */
    int64_t taken_msgs;           /* messages taken since then */
    int64_t avg_len;              /* the values' average length, lately */
    bool lib_full;                /* librdkafka's queue was seen at its bound since */
} sl__kafka_source;

static int sl__kafka_fail(sl_error *err, const char *topic, const char *what, rd_kafka_resp_err_t e)
{
    return sl_error_set(err, sl__kafka_sqlstate(e), -1, "kafka source: %s of topic \"%s\" failed: %s",
                        what, topic, rd_kafka_err2str(e));
}

/* Java's String.hashCode (the topic names are ASCII). */
static int32_t sl__java_hash(const char *s)
{
    uint32_t h = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = 31 * h + *p;
    return (int32_t)h;
}

int sl__kafka_owner(const char *topic, int32_t partition, int parallelism)
{
    int64_t start = ((int64_t)((uint32_t)sl__java_hash(topic) * 31u) & 0x7FFFFFFF) % parallelism;
    return (int)((start + partition) % parallelism);
}

static void sl__parts_free(sl__kafka_part *parts, int n)
{
    for (int i = 0; i < n; i++)
        sl_free(parts[i].topic);
    sl_free(parts);
}

/* ------------------------------------------------------------------------
** Listing and assigning partitions
*/

/* A partition found by a listing. */
typedef struct sl__found {
    const char *topic;
    int32_t partition;
} sl__found;

static bool sl__topic_wanted(const sl__kafka_source *s, const char *topic)
{
    if (s->has_pattern)
        return strncmp(topic, "__", 2) != 0 && regexec(&s->pattern, topic, 0, NULL, 0) == 0;
    for (int i = 0; i < s->ntopics; i++)
        if (strcmp(s->topics[i], topic) == 0)
            return true;
    return false;
}

/* Every partition of the wanted topics into *found (pointing into *md,
** which the caller destroys). The listed topics must exist: a topic just
** created may take a few seconds to show with leaders, so ask again for
** up to SL__KAFKA_TOPIC_WAIT_MS before calling it missing (at the first
** listing; later ones just wait for the next round). */
static int sl__kafka_list(sl__kafka_source *s, bool first, const struct rd_kafka_metadata **md,
                          sl__found **found, int *nfound, sl_error *err)
{
    *md = NULL;
    *found = NULL;
    *nfound = 0;
    int64_t until = sl__kafka_now_ms() + (first ? SL__KAFKA_TOPIC_WAIT_MS : 0);
    rd_kafka_topic_t *one =
        !s->has_pattern && s->ntopics == 1 ? rd_kafka_topic_new(s->rk, s->topics[0], NULL) : NULL;
    const char *missing = NULL;
    rd_kafka_resp_err_t e, te = 0;
    for (;;) {
        e = rd_kafka_metadata(s->rk, one ? 0 : 1, one, md, SL__KAFKA_META_TIMEOUT_MS);
        missing = NULL;
        te = 0;
        for (int i = 0; !e && !s->has_pattern && i < s->ntopics && !missing; i++) {
            const rd_kafka_metadata_topic_t *mt = NULL;
            for (int k = 0; k < (*md)->topic_cnt && !mt; k++)
                if (strcmp((*md)->topics[k].topic, s->topics[i]) == 0)
                    mt = &(*md)->topics[k];
            if (!mt || mt->err || mt->partition_cnt < 1) {
                missing = s->topics[i];
                te = mt ? mt->err : RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
            }
        }
        if (e || !missing || sl__kafka_now_ms() >= until)
            break;
        rd_kafka_metadata_destroy(*md);
        *md = NULL;
        sl_sleep_nanos(200 * SL_NANOS_PER_MILLI);
    }
    if (one)
        rd_kafka_topic_destroy(one);
    if (e)
        return sl__kafka_fail(err, s->what, "reading the metadata", e);
    if (missing) {
        int rc;
        if (te == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || te == 0 ||
            te == RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE)
            rc = sl_error_set(err, SL_ERR_UNDEFINED_OBJECT, -1,
                              "kafka source: topic \"%s\" does not exist", missing);
        else
            rc = sl__kafka_fail(err, missing, "reading the metadata", te);
        rd_kafka_metadata_destroy(*md);
        *md = NULL;
        return rc;
    }
    int n = 0;
    for (int k = 0; k < (*md)->topic_cnt; k++)
        if (!(*md)->topics[k].err && sl__topic_wanted(s, (*md)->topics[k].topic))
            n += (*md)->topics[k].partition_cnt;
    *found = sl_calloc((size_t)n + 1, sizeof **found);
    for (int k = 0; k < (*md)->topic_cnt; k++) {
        const rd_kafka_metadata_topic_t *mt = &(*md)->topics[k];
        if (mt->err || !sl__topic_wanted(s, mt->topic))
            continue;
        for (int i = 0; i < mt->partition_cnt; i++)
            (*found)[(*nfound)++] = (sl__found){mt->topic, mt->partitions[i].id};
    }
    return 0;
}

static int sl__find_part(const sl__kafka_source *s, const char *topic, int32_t partition)
{
    for (int i = 0; i < s->nparts; i++)
        if (s->parts[i].partition == partition && strcmp(s->parts[i].topic, topic) == 0)
            return i;
    return -1;
}

/* Where a partition found at the first listing starts (by the stored
** position or the startup mode) — the modes that need the broker are
** resolved for all of them at once in sl__kafka_resolve_start. */
static int64_t sl__initial_offset(const sl__kafka_source *s, const sl__kafka_part *p)
{
    if (s->has_seek) {
        for (int j = 0; j < s->nseeked; j++)
            if (s->seeked[j].partition == p->partition && strcmp(s->seeked[j].topic, p->topic) == 0)
                return s->seeked[j].next;
        return -2;
    }
    if (s->start == SL__START_SPECIFIC && strcmp(p->topic, s->ntopics ? s->topics[0] : "") == 0)
        for (int j = 0; j < s->nspecific; j++)
            if (s->specific[j].partition == p->partition)
                return s->specific[j].offset;
    return -2;
}

/* latest-offset, timestamp and group-offsets: ask the broker for the start
** of parts[from..]. */
static int sl__kafka_resolve_start(sl__kafka_source *s, int from, sl_error *err)
{
    int n = s->nparts - from;
    if (n <= 0 || s->has_seek)
        return 0;
    if (s->start == SL__START_LATEST) {
        for (int i = from; i < s->nparts; i++) {
            int64_t lo = 0, hi = 0;
            rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(
                s->rk, s->parts[i].topic, s->parts[i].partition, &lo, &hi, SL__KAFKA_META_TIMEOUT_MS);
            if (e)
                return sl__kafka_fail(err, s->parts[i].topic, "reading the latest offsets", e);
            s->parts[i].next = hi;
        }
        return 0;
    }
    if (s->start != SL__START_TIMESTAMP && s->start != SL__START_GROUP)
        return 0;
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(n);
    for (int i = from; i < s->nparts; i++)
        rd_kafka_topic_partition_list_add(l, s->parts[i].topic, s->parts[i].partition)->offset =
            s->start == SL__START_TIMESTAMP ? s->start_ms : RD_KAFKA_OFFSET_INVALID;
    rd_kafka_resp_err_t e = s->start == SL__START_TIMESTAMP
                                ? rd_kafka_offsets_for_times(s->rk, l, SL__KAFKA_META_TIMEOUT_MS)
                                : rd_kafka_committed(s->rk, l, SL__KAFKA_META_TIMEOUT_MS);
    int rc = 0;
    if (e)
        rc = sl__kafka_fail(err, s->what,
                            s->start == SL__START_TIMESTAMP ? "looking up offsets by timestamp"
                                                            : "reading the group's committed offsets",
                            e);
    for (int i = from; rc == 0 && i < s->nparts; i++) {
        sl__kafka_part *p = &s->parts[i];
        rd_kafka_topic_partition_t *tp = rd_kafka_topic_partition_list_find(l, p->topic, p->partition);
        if (tp && tp->offset >= 0) {
            p->next = tp->offset;
        } else if (s->start == SL__START_TIMESTAMP) { /* no record at or after it: the end */
            int64_t lo = 0, hi = 0;
            e = rd_kafka_query_watermark_offsets(s->rk, p->topic, p->partition, &lo, &hi,
                                                 SL__KAFKA_META_TIMEOUT_MS);
            if (e)
                rc = sl__kafka_fail(err, p->topic, "reading the latest offsets", e);
            p->next = hi;
        }
    }
    rd_kafka_topic_partition_list_destroy(l);
    return rc;
}

/* A bounded source: where each partition ends (latest-offset: the end
** read_committed sees now; specific-offsets: the listed offset of the
** first topic, 0 for a partition not listed). A partition whose start is
** at or past its end is done at once. */
static int sl__kafka_resolve_stop(sl__kafka_source *s, sl_error *err)
{
    for (int i = 0; i < s->nparts; i++) {
        sl__kafka_part *p = &s->parts[i];
        p->stop = -1;
        if (!s->bounded)
            continue;
        p->stop = 0;
        if (s->bounded == 1) {
            int64_t lo = 0, hi = 0;
            rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(
                s->rk, p->topic, p->partition, &lo, &hi, SL__KAFKA_META_TIMEOUT_MS);
            if (e)
                return sl__kafka_fail(err, p->topic, "reading the latest offsets", e);
            p->stop = hi;
        } else if (strcmp(p->topic, s->ntopics ? s->topics[0] : "") == 0) {
            for (int j = 0; j < s->nstops; j++)
                if (s->stops[j].partition == p->partition)
                    p->stop = s->stops[j].offset;
        }
        p->done = p->stop == 0 || (p->next >= 0 && p->next >= p->stop);
    }
    return 0;
}

/* A bounded source whose partitions are all done. */
static bool sl__kafka_ended(const sl__kafka_source *s)
{
    if (!s->bounded || !s->assigned)
        return false;
    for (int i = 0; i < s->nparts; i++)
        if (!s->parts[i].done)
            return false;
    return true;
}

/* List the partitions; take the new ones this subtask owns, and assign
** them (all of them the first time). */
static int sl__kafka_discover(sl__kafka_source *s, sl_error *err)
{
    bool first = !s->assigned;
    const struct rd_kafka_metadata *md = NULL;
    sl__found *found = NULL;
    int nfound = 0;
    int rc = sl__kafka_list(s, first, &md, &found, &nfound, err);
    if (rc != 0 && !first) { /* a failed re-listing waits for the next round */
        sl_log(SL_LOG_WARN, "kafka source: listing the partitions of %s failed: %s", s->what,
               err->message);
        sl_error_reset(err);
        s->discovered_at = sl__kafka_now_ms();
        return 0;
    }
    if (rc != 0)
        return -1;
    int from = s->nparts;
    for (int i = 0; i < nfound; i++) {
        if (sl__kafka_owner(found[i].topic, found[i].partition, s->parallelism) != s->subtask ||
            sl__find_part(s, found[i].topic, found[i].partition) >= 0)
            continue;
        if (s->nparts == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 8;
            s->parts = sl_realloc(s->parts, (size_t)s->cap * sizeof *s->parts);
        }
        sl__kafka_part *p = &s->parts[s->nparts++];
        p->topic = sl_strdup(found[i].topic);
        p->partition = found[i].partition;
        p->next = -2;
        p->stop = -1;
        p->done = false;
        p->taken = -1;
        if (first)
            p->next = sl__initial_offset(s, p);
        else
            sl_log(SL_LOG_INFO, "kafka source: subtask %d reads new partition %s/%" PRId32,
                   s->subtask, p->topic, p->partition);
    }
    sl_free(found);
    rd_kafka_metadata_destroy(md);
    if (first && sl__kafka_resolve_start(s, 0, err) != 0)
        return -1;
    if (first && sl__kafka_resolve_stop(s, err) != 0)
        return -1;
    if (s->nparts > from) {
        rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(s->nparts - from);
        for (int i = from; i < s->nparts; i++)
            rd_kafka_topic_partition_list_add(l, s->parts[i].topic, s->parts[i].partition)->offset =
                s->parts[i].next >= 0 ? s->parts[i].next : RD_KAFKA_OFFSET_BEGINNING;
        rd_kafka_error_t *ae = rd_kafka_incremental_assign(s->rk, l);
        rd_kafka_topic_partition_list_destroy(l);
        if (ae) {
            rc = sl_error_set(err, SL_ERR_IO, -1, "kafka source: assigning the partitions of %s "
                                                  "failed: %s",
                              s->what, rd_kafka_error_string(ae));
            rd_kafka_error_destroy(ae);
            return rc;
        }
    }
    if (first) {
        sl__parts_free(s->seeked, s->nseeked);
        s->seeked = NULL;
        s->nseeked = 0;
        s->has_seek = false;
        s->assigned = true;
        if (s->nparts == 0)
            sl_log(SL_LOG_WARN,
                   "kafka source: %s has no partition for subtask %d of %d: it reads nothing "
                   "(until one appears)",
                   s->what, s->subtask, s->parallelism);
    }
    s->discovered_at = sl__kafka_now_ms();
    s->last_rkt = NULL;
    return 0;
}

/* ------------------------------------------------------------------------
** Reading
*/

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

/* The index in parts of a message's partition, or -1. */
static int sl__kafka_part_of(sl__kafka_source *s, const rd_kafka_message_t *m)
{
    const char *topic = rd_kafka_topic_name(m->rkt);
    if (m->rkt == s->last_rkt && m->partition == s->last_partition && s->last_part >= 0 &&
        strcmp(s->parts[s->last_part].topic, topic) == 0)
        return s->last_part;
    int i = sl__find_part(s, topic, m->partition);
    s->last_rkt = m->rkt;
    s->last_partition = m->partition;
    s->last_part = i;
    return i;
}

/* The last row of out came from split (partition) pi. */
static void sl__kafka_row_split(sl__kafka_source *s, const sl_chunk *out, int pi)
{
    if (out->cap > s->row_cap) {
        s->row_cap = out->cap;
        s->row_split = sl_realloc(s->row_split, (size_t)s->row_cap * sizeof(int32_t));
    }
    s->row_split[out->nrows - 1] = pi;
}

/* A decode failure of the record (or its key) at m: the place and the
** bytes join the codec's detail. Returns -1. */
static int sl__kafka_bad(const sl__kafka_part *p, const rd_kafka_message_t *m, bool key,
                         const char *rec, size_t len, sl_error *err)
{
    if (!sl_error_isset(err))
        sl_error_set(err, SL_ERR_INVALID_TEXT, -1, "malformed record");
    sl_strbuf sb = SL_STRBUF_INIT;
    if (err->detail && err->detail[0])
        sl_strbuf_appendf(&sb, "%s\n", err->detail);
    sl_strbuf_appendf(&sb, "in %s/%" PRId32 "/%" PRId64 "%s: ", p->topic, m->partition, m->offset,
                      key ? " (the key)" : "");
    sl__kafka_show_record(&sb, rec, len);
    sl_error_detail(err, "%s", sl_strbuf_cstr(&sb));
    sl_strbuf_free(&sb);
    return -1;
}

/* Decode one message into out: its value, then (EXCEPT_KEY) its key into
** the same row. 0 or -1 with err. */
static int sl__kafka_message(sl__kafka_source *s, const rd_kafka_message_t *m, sl_chunk *out,
                             sl_error *err)
{
    int pi = sl__kafka_part_of(s, m);
    sl__kafka_part *p = pi >= 0 ? &s->parts[pi] : NULL;
    if (!p || (p->next >= 0 && m->offset < p->next))
        return 0; /* not ours, or before the position (a re-fetch) */
    if (p->stop >= 0 && m->offset >= p->stop) {
        p->done = true; /* bounded: past its end */
        return 0;
    }
    if (!m->payload && s->upsert && m->key) { /* a tombstone: the key's row is deleted */
        int before = out->nrows;
        sl_chunk_append_row(out, SL_ROW_DELETE);
        int krc = sl_codec_decode_fill(s->layout.key, m->key, m->key_len, out, before, err);
        if (krc != SL_CODEC_ROW)
            out->nrows = before;
        if (krc < 0)
            return sl__kafka_bad(p, m, true, m->key, m->key_len, err);
        if (krc == SL_CODEC_SKIPPED)
            s->skipped++;
        if (krc == SL_CODEC_ROW) {
            sl__kafka_meta_fill(&s->layout.meta, m, out, before);
            sl__kafka_row_split(s, out, pi);
        }
    } else if (m->payload || !s->upsert) {
        const char *rec = m->payload; /* NULL: a null record */
        size_t len = rec ? m->len : 0;
        int before = out->nrows;
        int rc = sl_codec_decode(s->layout.value, rec, len, out, err);
        if (rc < 0)
            return sl__kafka_bad(p, m, false, rec ? rec : "", len, err);
        if (rc == SL_CODEC_ROW && s->upsert)
            out->kinds[out->nrows - 1] = SL_ROW_UPDATE_AFTER;
        if (rc == SL_CODEC_ROW && s->layout.key && !s->layout.value_all && m->key) {
            int krc = sl_codec_decode_fill(s->layout.key, m->key, m->key_len, out, out->nrows - 1,
                                           err);
            if (krc != SL_CODEC_ROW)
                out->nrows = before; /* the key failed: the row goes */
            if (krc < 0)
                return sl__kafka_bad(p, m, true, m->key, m->key_len, err);
            if (krc != SL_CODEC_ROW)
                rc = SL_CODEC_SKIPPED;
        }
        if (rc == SL_CODEC_SKIPPED)
            s->skipped++;
        if (out->nrows > before) {
            sl__kafka_meta_fill(&s->layout.meta, m, out, before);
            sl__kafka_row_split(s, out, pi);
        }
    }
    p->next = m->offset + 1;
    return 0;
}

/* One message (a record or an event). 0 or -1 with err. */
static int sl__kafka_one(sl__kafka_source *s, const rd_kafka_message_t *m, sl_chunk *out,
                         sl_error *err)
{
    if (!m->err)
        return sl__kafka_message(s, m, out, err);
    rd_kafka_resp_err_t e = m->err;
    const char *topic = m->rkt ? rd_kafka_topic_name(m->rkt) : s->what;
    if (e == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        /* bounded: at the end read_committed sees, past the stop offset */
        int pi = m->rkt ? sl__kafka_part_of(s, m) : -1;
        if (pi >= 0 && s->parts[pi].stop >= 0 && m->offset >= s->parts[pi].stop)
            s->parts[pi].done = true;
        return 0;
    }
    if (e == RD_KAFKA_RESP_ERR__FATAL || e == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
        e == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED || e == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
        e == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION)
        return sl__kafka_fail(err, topic, "reading", e);
    sl_log(SL_LOG_WARN, "kafka source: topic \"%s\": %s", topic, rd_kafka_message_errstr(m));
    return 0;
}

/* ------------------------------------------------------------------------
** The prefetch (the file's comment tells why it is the source's own)
*/

/* What a fetched message is counted as in the ring. */
static int64_t sl__kafka_msg_cost(const rd_kafka_message_t *m)
{
    return (int64_t)m->len + (int64_t)m->key_len + SL__KAFKA_MSG_COST;
}

static void sl__ring_push(sl__kafka_source *s, rd_kafka_message_t *m)
{
    if (s->ring_len == s->ring_cap) {
        int cap = s->ring_cap ? 2 * s->ring_cap : 1024;
        rd_kafka_message_t **r = sl_malloc((size_t)cap * sizeof *r);
        for (int i = 0; i < s->ring_len; i++)
            r[i] = s->ring[(s->ring_head + i) % s->ring_cap];
        sl_free(s->ring);
        s->ring = r;
        s->ring_cap = cap;
        s->ring_head = 0;
    }
    s->ring[(s->ring_head + s->ring_len++) % s->ring_cap] = m;
    int pi = m->err || !m->rkt ? -1 : sl__kafka_part_of(s, m);
    if (pi >= 0)
        s->parts[pi].taken = m->offset + 1;
    s->ring_bytes += sl__kafka_msg_cost(m);
    s->taken_bytes += (int64_t)m->len; /* as librdkafka counts its queue: values */
    s->taken_msgs++;
    s->avg_len += ((int64_t)m->len - s->avg_len) / 64;
}

static rd_kafka_message_t *sl__ring_pop(sl__kafka_source *s)
{
    rd_kafka_message_t *m = s->ring[s->ring_head];
    s->ring_head = (s->ring_head + 1) % s->ring_cap;
    s->ring_len--;
    s->ring_bytes -= sl__kafka_msg_cost(m);
    return m;
}

/* librdkafka reached its queue's bound: it stopped fetching and (2.0)
** looks again only when its broker thread wakes for another reason, up to
** a second later. A seek wakes it at once ("seek done"), and the thread
** then decides again for all its partitions: each partition a record was
** taken from is sought to just after the last one (librdkafka's own
** position would not do: a seek forgets it until the next record is
** taken). The seek drops what librdkafka has queued for the partition —
** nothing, the queue was just emptied, unless a fetch still running landed
** since — and fetches again from there. */
static void sl__kafka_wake(sl__kafka_source *s)
{
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(s->nparts + 1);
    for (int i = 0; i < s->nparts; i++)
        if (!s->parts[i].done && s->parts[i].taken >= 0)
            rd_kafka_topic_partition_list_add(l, s->parts[i].topic, s->parts[i].partition)->offset =
                s->parts[i].taken;
    if (l->cnt > 0) {
        rd_kafka_error_t *e = rd_kafka_seek_partitions(s->rk, l, 0 /* asynchronous */);
        if (e) /* not expected; the bound still holds, librdkafka only waits longer */
            rd_kafka_error_destroy(e);
    }
    rd_kafka_topic_partition_list_destroy(l);
}

/* Move what librdkafka has fetched into the ring (up to twice the low
** mark: the rest waits in its bounded queue); once its queue is empty,
** wake it if it had reached its bound since it was last empty. Its queue
** also holds messages a seek made outdated, which it counts and drops
** instead of handing them out: its length tells their number, the average
** value their size. */
static void sl__kafka_refill(sl__kafka_source *s)
{
    int64_t queued = rd_kafka_queue_length(s->queue);
    if (queued >= s->lib_msgs || queued * s->avg_len >= s->lib_bytes)
        s->lib_full = true;
    rd_kafka_message_t *msgs[SL__KAFKA_BATCH];
    for (;;) {
        ssize_t got = rd_kafka_consume_batch_queue(s->queue, 0, msgs, SL__KAFKA_BATCH);
        for (ssize_t i = 0; i < got; i++)
            sl__ring_push(s, msgs[i]);
        if (got < SL__KAFKA_BATCH)
            break;
        if (s->ring_bytes >= 2 * s->ring_low)
            return;
    }
    if (s->lib_full || s->taken_bytes >= s->lib_bytes || s->taken_msgs >= s->lib_msgs)
        sl__kafka_wake(s);
    s->lib_full = false;
    s->taken_bytes = 0;
    s->taken_msgs = 0;
}

/* Messages are taken from the ring, refilled from librdkafka's queue while
** it is below its low mark; only when both are empty does poll wait, for
** the first message. */
static int sl__kafka_poll(sl_source *src, sl_chunk *out, sl_error *err)
{
    sl__kafka_source *s = src->impl;
    if (!s->assigned ||
        (s->discovery_ms > 0 && sl__kafka_now_ms() - s->discovered_at >= s->discovery_ms)) {
        if (sl__kafka_discover(s, err) != 0)
            return -1;
    }
    if (sl__kafka_ended(s))
        return SL_SOURCE_END;
    int64_t start = sl__kafka_now_ms();
    while (!sl_chunk_full(out) && !sl__kafka_ended(s)) {
        if (s->ring_bytes < s->ring_low)
            sl__kafka_refill(s);
        if (s->ring_len == 0) {
            int64_t spent = sl__kafka_now_ms() - start;
            if (out->nrows > 0 || spent >= SL__KAFKA_IDLE_WAIT_MS)
                return SL_SOURCE_MORE;
            rd_kafka_message_t *m =
                rd_kafka_consumer_poll(s->rk, (int)(SL__KAFKA_IDLE_WAIT_MS - spent));
            if (!m)
                continue;
            sl__ring_push(s, m);
        }
        int n = out->cap - out->nrows; /* at most one row per message */
        if (n > s->ring_len)
            n = s->ring_len;
        if (n > SL__KAFKA_BATCH)
            n = SL__KAFKA_BATCH;
        int rc = 0;
        for (int i = 0; i < n; i++) {
            rd_kafka_message_t *m = sl__ring_pop(s);
            if (rc == 0)
                rc = sl__kafka_one(s, m, out, err);
            rd_kafka_message_destroy(m);
        }
        if (rc != 0)
            return -1;
        if (sl__kafka_now_ms() - start >= SL__KAFKA_POLL_WORK_MS)
            break;
    }
    return sl__kafka_ended(s) ? SL_SOURCE_END : SL_SOURCE_MORE;
}

static int sl__kafka_splits(sl_source *src, const int32_t **split_of)
{
    sl__kafka_source *s = src->impl;
    *split_of = s->row_split;
    return s->nparts;
}

/* ------------------------------------------------------------------------
** Positions
*/

static int sl__kafka_position(sl_source *src, sl_strbuf *out, sl_error *err)
{
    sl__kafka_source *s = src->impl;
    const sl__kafka_part *parts = s->assigned ? s->parts : s->seeked;
    int n = s->assigned ? s->nparts : s->nseeked;
    sl_strbuf_append(out, "v2 ");
    for (int i = 0; i < n; i++)
        sl_strbuf_appendf(out, "%s%s:%" PRId32 ":%" PRId64, i ? "," : "", parts[i].topic,
                          parts[i].partition, parts[i].next);
    return 0;
}

/* Parse a stored position ("v2 t:p:o,..." or, for one topic, "v1 p:o,...")
** into *parts. 0 or -1. */
static int sl__parse_position(const sl__kafka_source *s, const char *pos, size_t len,
                              sl__kafka_part **parts, int *np)
{
    *parts = NULL;
    *np = 0;
    char *text = sl_strndup(pos, len);
    int cap = 0;
    bool v1 = len >= 3 && memcmp(text, "v1 ", 3) == 0;
    bool ok = strlen(text) == len && (v1 || (len >= 3 && memcmp(text, "v2 ", 3) == 0)) &&
              (!v1 || (!s->has_pattern && s->ntopics == 1));
    const char *p = text + 3;
    while (ok && *p) {
        const char *topic = v1 ? s->topics[0] : p;
        size_t tlen = strlen(topic);
        if (!v1) {
            const char *colon = strchr(p, ':');
            if (!colon || colon == p) {
                ok = false;
                break;
            }
            tlen = (size_t)(colon - p);
            p = colon + 1;
        }
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
        if (*np == cap) {
            cap = cap ? 2 * cap : 8;
            *parts = sl_realloc(*parts, (size_t)cap * sizeof **parts);
        }
        (*parts)[(*np)++] = (sl__kafka_part){.topic = sl_strndup(topic, tlen),
                                             .partition = (int32_t)part,
                                             .next = off < 0 ? -2 : off,
                                             .taken = -1};
        p = end;
        if (*p == ',' && *++p == 0)
            ok = false; /* a trailing comma */
    }
    sl_free(text);
    if (!ok) {
        sl__parts_free(*parts, *np);
        *parts = NULL;
        *np = 0;
    }
    return ok ? 0 : -1;
}

static int sl__kafka_seek(sl_source *src, const char *pos, size_t len, sl_error *err)
{
    sl__kafka_source *s = src->impl;
    sl__kafka_part *parts = NULL;
    int n = 0;
    if (sl__parse_position(s, pos, len, &parts, &n) != 0) {
        sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "invalid kafka source position");
        sl_error_detail(err, "The stored position is \"%.*s\".", (int)(len > 200 ? 200 : len), pos);
        return -1;
    }
    sl__parts_free(s->seeked, s->nseeked);
    s->seeked = parts;
    s->nseeked = n;
    s->has_seek = true;
    return 0;
}

/* A decided checkpoint's offsets: committed to the group for monitoring
** (asynchronously; a failure is only logged by librdkafka). */
static void sl__kafka_decided(sl_source *src, const char *pos, size_t len)
{
    sl__kafka_source *s = src->impl;
    sl__kafka_part *parts = NULL;
    int n = 0;
    if (!s->assigned || sl__parse_position(s, pos, len, &parts, &n) != 0)
        return;
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(n > 0 ? n : 1);
    for (int i = 0; i < n; i++)
        if (parts[i].next >= 0)
            rd_kafka_topic_partition_list_add(l, parts[i].topic, parts[i].partition)->offset =
                parts[i].next;
    if (l->cnt > 0)
        rd_kafka_commit(s->rk, l, 1);
    rd_kafka_topic_partition_list_destroy(l);
    sl__parts_free(parts, n);
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
    while (s->ring_len > 0)
        rd_kafka_message_destroy(sl__ring_pop(s));
    sl_free(s->ring);
    if (s->queue)
        rd_kafka_queue_destroy(s->queue);
    if (s->rk) {
        rd_kafka_consumer_close(s->rk);
        rd_kafka_destroy(s->rk);
    }
    sl__kafka_layout_free(&s->layout);
    sl__parts_free(s->parts, s->nparts);
    sl__parts_free(s->seeked, s->nseeked);
    for (int i = 0; i < s->ntopics; i++)
        sl_free(s->topics[i]);
    sl_free(s->topics);
    if (s->has_pattern)
        regfree(&s->pattern);
    sl_free(s->what);
    sl_free(s->specific);
    sl_free(s->stops);
    sl_free(s->row_split);
    sl_free(s);
    sl_free(src);
}

static const sl_source_ops sl__kafka_source_ops = {
    .poll = sl__kafka_poll,
    .position = sl__kafka_position,
    .seek = sl__kafka_seek,
    .skipped = sl__kafka_skipped,
    .free = sl__kafka_source_free,
    .decided = sl__kafka_decided,
    .splits = sl__kafka_splits,
};

static int sl__source_create(const sl_source_args *args, bool upsert, sl_source **out,
                             sl_error *err)
{
    *out = NULL;
    const char *topic = sl_kvlist_get(args->options, "topic");
    const char *pattern = sl_kvlist_get(args->options, "topic-pattern");
    if ((!topic || !topic[0]) && (!pattern || !pattern[0]))
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "option 'topic' or 'topic-pattern' is required");
    const char *mode = upsert ? "earliest-offset" /* the whole table, always */
                              : sl_kvlist_get(args->options, "scan.startup.mode");
    sl__kafka_start start = SL__START_GROUP;
    if (mode && strcasecmp(mode, "earliest-offset") == 0)
        start = SL__START_EARLIEST;
    else if (mode && strcasecmp(mode, "latest-offset") == 0)
        start = SL__START_LATEST;
    else if (mode && strcasecmp(mode, "timestamp") == 0)
        start = SL__START_TIMESTAMP;
    else if (mode && strcasecmp(mode, "specific-offsets") == 0)
        start = SL__START_SPECIFIC;
    int64_t start_ms = 0, discovery_ms = 0;
    const char *ts = sl_kvlist_get(args->options, "scan.startup.timestamp-millis");
    if (ts && sl_option_parse_int(ts, &start_ms, -1, err) != 0)
        return -1;
    const char *di = sl_kvlist_get(args->options, "scan.topic-partition-discovery.interval");
    if (sl_option_parse_duration_ms(di ? di : SL__KAFKA_DISCOVERY_DEFAULT, &discovery_ms, -1, err) !=
        0)
        return -1;
    sl__kafka_offset *specific = NULL;
    int nspecific = 0;
    const char *so = sl_kvlist_get(args->options, "scan.startup.specific-offsets");
    if (start == SL__START_SPECIFIC &&
        (!so || sl__kafka_parse_offsets(so, &specific, &nspecific) != 0))
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "kafka source: invalid 'scan.startup.specific-offsets'");
    const char *bmode = upsert ? NULL : sl_kvlist_get(args->options, "scan.bounded.mode");
    int bounded = !bmode ? 0 : strcasecmp(bmode, "specific-offsets") == 0 ? 2 : 1;
    sl__kafka_offset *stops = NULL;
    int nstops = 0;
    const char *bo = sl_kvlist_get(args->options, "scan.bounded.specific-offsets");
    if (bounded == 2 && (!bo || sl__kafka_parse_offsets(bo, &stops, &nstops) != 0)) {
        sl_free(specific);
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "kafka source: invalid 'scan.bounded.specific-offsets'");
    }
    if (bounded)
        discovery_ms = 0; /* a bounded read takes the partitions of its start */
    int64_t buffer = 0;
    const char *bm = sl_kvlist_get(args->options, "scan.buffer.max-bytes");
    if (sl_option_parse_memsize(bm ? bm : SL__KAFKA_BUFFER_DEFAULT, &buffer, -1, err) != 0 ||
        buffer < SL__KAFKA_BUFFER_MIN) {
        if (!sl_error_isset(err))
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                         "invalid value for option 'scan.buffer.max-bytes': \"%s\" is below "
                         "the least, %d kb",
                         bm, SL__KAFKA_BUFFER_MIN >> 10);
        sl_free(specific);
        sl_free(stops);
        return -1;
    }
    int64_t lib_bytes = buffer / 4 > SL__KAFKA_LIB_MIN_BYTES ? buffer / 4 : SL__KAFKA_LIB_MIN_BYTES;
    char lib_kb[32], lib_msgs[32];
    snprintf(lib_kb, sizeof lib_kb, "%" PRId64, lib_bytes >> 10);
    snprintf(lib_msgs, sizeof lib_msgs, "%" PRId64, lib_bytes / SL__KAFKA_MSG_COST);
    sl__kafka_source *s = sl_calloc(1, sizeof *s);
    sl_source *src = sl_calloc(1, sizeof *src);
    src->ops = &sl__kafka_source_ops;
    s->ring_low = buffer / 2;
    s->lib_bytes = lib_bytes;
    s->lib_msgs = lib_bytes / SL__KAFKA_MSG_COST;
    src->impl = s;
    s->specific = specific;
    s->nspecific = nspecific;
    s->bounded = bounded;
    s->stops = stops;
    s->nstops = nstops;
    s->last_part = -1;
    if (pattern && pattern[0]) {
        char *anchored = sl_sprintf("^(%s)$", pattern);
        int rc = regcomp(&s->pattern, anchored, REG_EXTENDED | REG_NOSUB);
        sl_free(anchored);
        if (rc != 0) {
            sl__kafka_source_free(src);
            return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                                "invalid value for option 'topic-pattern': \"%s\" is not a "
                                "regular expression",
                                pattern);
        }
        s->has_pattern = true;
        s->what = sl_sprintf("the topics matching '%s'", pattern);
    } else {
        s->topics = sl__kafka_split_topics(topic, &s->ntopics);
        s->what = sl_strdup(topic);
    }
    s->subtask = args->subtask;
    s->parallelism = args->parallelism > 0 ? args->parallelism : 1;
    s->start = start;
    s->start_ms = start_ms;
    s->discovery_ms = discovery_ms;
    s->upsert = upsert;
    if (sl__kafka_layout_new(args->options, upsert, args->ncols, args->names, args->types,
                             args->meta, args->npk, args->pk, &s->layout, err) != 0) {
        sl__kafka_source_free(src);
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
                              /* librdkafka's queue: a quarter of the buffer (the
                              ** file's comment), in values and in messages */
                              "queued.max.messages.kbytes",
                              lib_kb,
                              "queued.min.messages",
                              lib_msgs,
                              NULL};
    rd_kafka_conf_t *conf = sl__kafka_conf(args->options, defaults, err);
    if (!conf) {
        sl__kafka_source_free(src);
        return -1;
    }
    /* The bounds librdkafka runs with (the user's properties win): */
    char val[64];
    size_t vlen = sizeof val;
    if (rd_kafka_conf_get(conf, "queued.max.messages.kbytes", val, &vlen) == RD_KAFKA_CONF_OK)
        s->lib_bytes = strtoll(val, NULL, 10) * 1024;
    vlen = sizeof val;
    if (rd_kafka_conf_get(conf, "queued.min.messages", val, &vlen) == RD_KAFKA_CONF_OK)
        s->lib_msgs = strtoll(val, NULL, 10);
    if (bounded) /* its end is told by the end-of-partition events */
        rd_kafka_conf_set(conf, "enable.partition.eof", "true", NULL, 0);
    char msg[512];
    s->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, msg, sizeof msg);
    if (!s->rk) {
        rd_kafka_conf_destroy(conf);
        sl__kafka_source_free(src);
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "kafka source: could not create a consumer: %s", msg);
    }
    rd_kafka_poll_set_consumer(s->rk);
    s->queue = rd_kafka_queue_get_consumer(s->rk);
    *out = src;
    return 0;
}

int sl__kafka_source_create(const sl_source_args *args, sl_source **out, sl_error *err)
{
    return sl__source_create(args, false, out, err);
}

int sl__upsert_kafka_source_create(const sl_source_args *args, sl_source **out, sl_error *err)
{
    return sl__source_create(args, true, out, err);
}

/* ------------------------------------------------------------------------
** The end now (RECONCILE's input boundary; kafka_pending.c reads the
** partitions' ends through sl__kafka_ends_open too)
*/

static int sl__found_cmp(const void *a, const void *b)
{
    const sl__found *x = a, *y = b;
    return x->partition < y->partition ? -1 : x->partition > y->partition;
}

/* The offset just after the last record read_committed delivers before hi
** in [lo, hi) (lo when there is none): the transaction markers after a
** partition's last record take offsets no record reaches, so a job that
** read every record stands there, not at hi. Read backwards from hi in
** growing windows, up to the end-of-partition event. */
static int sl__kafka_last_record_end(rd_kafka_t *rk, const char *topic, int32_t partition,
                                     int64_t lo, int64_t hi, int64_t *end, sl_error *err)
{
    *end = lo;
    for (int64_t window = 64; hi > lo; window *= 8) {
        int64_t start = hi - window > lo ? hi - window : lo;
        rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(l, topic, partition)->offset = start;
        rd_kafka_resp_err_t e = rd_kafka_assign(rk, l);
        rd_kafka_topic_partition_list_destroy(l);
        if (e)
            return sl__kafka_fail(err, topic, "reading the last records", e);
        int64_t last = -1, deadline = sl__kafka_now_ms() + SL__KAFKA_META_TIMEOUT_MS;
        bool eof = false;
        while (!eof) {
            if (sl__kafka_now_ms() > deadline)
                return sl__kafka_fail(err, topic, "reading the last records",
                                      RD_KAFKA_RESP_ERR__TIMED_OUT);
            rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
            if (!m)
                continue;
            if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                eof = true; /* at the end read_committed sees */
            } else if (!m->err) {
                if (m->offset < hi && m->offset > last)
                    last = m->offset;
                eof = m->offset >= hi - 1; /* a record at or past the end's last offset */
            }
            rd_kafka_message_destroy(m);
        }
        rd_kafka_assign(rk, NULL);
        if (last >= 0) {
            *end = last + 1;
            return 0;
        }
        if (start == lo)
            return 0;
    }
    return 0;
}

int sl__kafka_ends_open(const sl_kvlist *opts, const char *topic, const char *isolation,
                        bool force, rd_kafka_t **rk, int32_t **parts, int *nparts, sl_error *err)
{
    *rk = NULL;
    *parts = NULL;
    *nparts = 0;
    sl__kafka_source s;
    memset(&s, 0, sizeof s);
    char *one = sl_strdup(topic);
    s.topics = &one;
    s.ntopics = 1;
    s.what = one;
    const char *defaults[] = {"isolation.level", isolation, NULL};
    rd_kafka_conf_t *conf = sl__kafka_conf(opts, defaults, err);
    int rc = 0;
    char msg[512];
    if (conf) { /* its own group, never committed; the end of each partition told */
        rd_kafka_conf_set(conf, "group.id", "sluice-reconcile", NULL, 0);
        rd_kafka_conf_set(conf, "enable.auto.commit", "false", NULL, 0);
        rd_kafka_conf_set(conf, "enable.partition.eof", "true", NULL, 0);
        if (force)
            rd_kafka_conf_set(conf, "isolation.level", isolation, NULL, 0);
    }
    if (!conf)
        rc = -1;
    else if (!(s.rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, msg, sizeof msg))) {
        rd_kafka_conf_destroy(conf);
        rc = sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                          "kafka source: could not create a consumer: %s", msg);
    }
    const struct rd_kafka_metadata *md = NULL;
    sl__found *found = NULL;
    int nfound = 0;
    if (rc == 0)
        rc = sl__kafka_list(&s, true, &md, &found, &nfound, err);
    if (rc == 0 && nfound > 1)
        qsort(found, (size_t)nfound, sizeof *found, sl__found_cmp);
    if (rc == 0) {
        *parts = sl_calloc((size_t)nfound + 1, sizeof **parts);
        for (int i = 0; i < nfound; i++)
            (*parts)[i] = found[i].partition;
        *nparts = nfound;
        *rk = s.rk;
    } else if (s.rk) {
        rd_kafka_destroy(s.rk);
    }
    sl_free(found);
    if (md)
        rd_kafka_metadata_destroy(md);
    sl_free(one);
    return rc;
}

int sl__kafka_source_end(const sl_kvlist *opts, sl_kvlist *bound, sl_strbuf *summary, sl_error *err)
{
    const char *list = sl_kvlist_get(opts, "topic");
    int ntopics = 0;
    char **topics = list ? sl__kafka_split_topics(list, &ntopics) : NULL;
    int rc = 0;
    if (ntopics != 1)
        rc = sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1,
                          "a bounded read up to the end of several topics or a topic pattern "
                          "is not supported");
    rd_kafka_t *rk = NULL;
    int32_t *parts = NULL;
    int nparts = 0;
    if (rc == 0)
        rc = sl__kafka_ends_open(opts, topics[0], "read_committed", false, &rk, &parts, &nparts,
                                 err);
    sl_strbuf offsets = SL_STRBUF_INIT;
    for (int i = 0; rc == 0 && i < nparts; i++) {
        int64_t lo = 0, hi = 0; /* read_committed: hi is the last stable offset */
        rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(rk, topics[0], parts[i], &lo,
                                                                 &hi, SL__KAFKA_META_TIMEOUT_MS);
        if (e) {
            rc = sl__kafka_fail(err, topics[0], "reading the latest offsets", e);
            break;
        }
        rc = sl__kafka_last_record_end(rk, topics[0], parts[i], lo, hi, &hi, err);
        if (rc != 0)
            break;
        sl_strbuf_appendf(&offsets, "%spartition:%" PRId32 ",offset:%" PRId64, i ? ";" : "",
                          parts[i], hi);
        sl_strbuf_appendf(summary, "%sp%" PRId32 ":%" PRId64, i ? " " : "", parts[i], hi);
    }
    if (rc == 0) {
        sl_kvlist_set(bound, "scan.startup.mode", "earliest-offset", -1, -1);
        sl_kvlist_set(bound, "scan.bounded.mode", "specific-offsets", -1, -1);
        sl_kvlist_set(bound, "scan.bounded.specific-offsets", sl_strbuf_cstr(&offsets), -1, -1);
    }
    sl_strbuf_free(&offsets);
    sl_free(parts);
    if (rk)
        rd_kafka_destroy(rk);
    for (int i = 0; i < ntopics; i++)
        sl_free(topics[i]);
    sl_free(topics);
    return rc;
}
