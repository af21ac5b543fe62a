/*
** op_topn.c — Top-N (ROW_NUMBER() OVER (PARTITION BY keys ORDER BY ...)
** filtered to a rank range [rank_start, rank_end]) as a keyed stateful
** operator (see sl_exec.h, sl_topn_spec); also window Top-N.
**
** Semantics: Flink 2.2's AppendOnlyTopNFunction (checked side by side with
** Flink SQL 2.2, see tests/sql/run_topn.sql). Per partition a buffer holds
** rows sorted by their sort key; rows with equal sort keys (an "entry") stay
** in arrival order, a new one after the others. A row enters the buffer when
** its sort key is smaller than the buffer's largest, or the buffer holds
** fewer than rank_end rows; otherwise it is dropped without a trace.
**   with the rank number (output_rank, or a rank_start > 1): walking the
**     entries in order, the rows after the new row's entry move down one
**     rank each: for each, -U(it, rank) and +U(the row above it, rank),
**     while rank <= rank_end; then +I of the last row moved (or the new
**     row) at the next rank when that is still <= rank_end. Only ranks in
**     [rank_start, rank_end] are emitted. Entries the walk did not reach
**     are dropped from the buffer (so the buffer may hold more than
**     rank_end rows, in its last entry reached).
**   without it (rank_start = 1, the rank column not used above): when the
**     buffer then holds more than rank_end rows its last row is removed and
**     -D emitted for it — unless it equals the new row (by value), in which
**     case nothing is emitted at all —; then +I of the new row. The rank
**     column then holds 1 (the planner projects it away).
** Output = the input columns + the BIGINT NOT NULL rank column.
**
** Updating input (spec updating_input; Flink's RetractableTopNFunction):
** every row is kept (no trimming). +I/+U rows enter as above (without the
** rank: -D of the row now at rank_end + 1, then +I of the new row when it
** ranks <= rank_end); a -U/-D row retracts the first equal row of its sort
** key: with the rank, each row below it moves up one rank (-U of the row
** above at that rank, +U of it), then -D at the rank left empty (when <=
** rank_end); without, -D of it and +I of the row that reaches rank_end. A
** retraction of a row not there (forgotten by the TTL) is ignored.
**
** Window mode (spec window_end_col >= 0; Flink's WindowRank and
** WindowDeduplicate): the partition key includes the window; rows are
** buffered (only the best rank_end kept; ties_replace: a tie ranks before
** the rows it ties) until the watermark reaches the window's end; then
** ranks rank_start..rank_end go out as +I — windows in order of their end,
** partitions in first-seen order — and the window's state is dropped. A row
** of a window already fired is late: dropped and counted.
**
** Sort keys are encoded so that comparing the bytes (memcmp, then the
** shorter first) is the ORDER BY: per order column a null byte (0x00 NULL
** first, 0x01 not NULL, 0x02 NULL last), then the value big-endian with its
** sign bit flipped (BOOL one byte; F64 -0.0 and 0.0 one value, one NaN above
** +inf; STR its bytes with 0x00 escaped as 0x00 0xFF, ended by 0x00 0x00),
** every value byte inverted for DESC. Equal keys have equal bytes.
**
** TTL (ttl_ms > 0, processing time from the injectable clock): a
** partition's buffer is forgotten ttl_ms after its last change (Flink
** expires each sort key's list on its own, ttl after its last write; with
** one change per row the difference shows only for rows whose entry was
** written long before the others). Expired partitions are swept at most once
** per ttl. NULL keys are equal to each other (one partition for NULL).
**
** Snapshot (deterministic; partitions in first-seen order; integers
** little-endian):
**   "SLTOPN02" u32 ncols u32 nkeys u32 norder u8 flags (1 output_rank,
**   2 updating input) i64 rank_start i64 rank_end i32 window_end_col
**   u8 ties_replace u8 phys[ncols] i64 watermark i64 late_rows
**   u64 nparts, nparts x { i64 written_ns u32 nrows nrows x {u32 len bytes[len]} }
**   u64 XXH3 (sl_checksum) of everything before ("SLTOPN01": the same
**   layout with FNV-1a, sl_hash_bytes, which still restores)
** A row is per column u8 null (0/1), then if not null BOOL u8 | I64 i64 |
** F64 8 bytes | I128 16 bytes | STR u32 len + bytes. Restore checks every
** length and value, that each partition's rows share a key and are in
** order, and the checksum: anything wrong is XX001.
**
** Main routines: sl_topn_new and its process / snapshot / restore.
*/
#include "sl_exec.h"
#include "value_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct sl__tn_item {
    uint8_t *bytes; /* sort key, then the encoded row (owned) */
    uint32_t klen;  /* sort key bytes */
    uint32_t rlen;  /* row bytes */
} sl__tn_item;

typedef struct sl__tn_part {
    uint64_t hash;      /* hash of the encoded partition key */
    uint64_t seq;       /* first-seen sequence (snapshot order) */
    int64_t wend;       /* window mode: the partition's window_end (ns) */
    int64_t written;    /* processing time (ns) of the last change, for the TTL */
    uint32_t key_len;   /* encoded partition key bytes */
    uint8_t *key;       /* owned */
    sl__tn_item *items; /* the buffer, sorted */
    int n;              /* rows in it */
    int cap;            /* allocated */
} sl__tn_part;

typedef struct sl__topn {
    int in_ncols;              /* input columns */
    int nkeys;                 /* partition keys */
    int *keys;                 /* their columns (owned) */
    int norder;                /* order columns */
    sl_topn_order *order;      /* the order (owned) */
    int64_t start, end;        /* the rank range */
    bool output_rank;          /* the rank column is used above */
    bool with_number;          /* the with-rank-number algorithm */
    bool no_before;            /* -U rows are not emitted (sl_topn_spec.no_before) */
    int64_t ttl_ns;            /* retention in ns; 0 = forever */
    int64_t (*now)(void *ctx); /* clock */
    void *now_ctx;             /* for now */
    int64_t next_sweep;        /* no TTL sweep before this time */
    sl_type *in_types;         /* input types (owned) */
    sl_type *out_types;        /* input types + BIGINT NOT NULL */
    sl__tn_part *parts;        /* partitions (dense) */
    int nparts;                /* in use */
    int cap;                   /* allocated */
    int32_t *slots;            /* hash table: partition index or -1 */
    size_t nslots;             /* power of two */
    uint64_t next_seq;         /* next first-seen sequence */
    sl_strbuf kbuf;            /* scratch: partition key */
    sl_strbuf sbuf;            /* scratch: sort key */
    sl_strbuf rbuf;            /* scratch: row */
    sl_chunk *out;             /* output buffer */
    sl_chunk *scratch;         /* one-row chunk for restore */
    const sl_operator *op;     /* the operator (its cancellation flag) */
    int wend_col;              /* window mode: the window_end column, else -1 */
    bool ties_replace;         /* window mode: a tie ranks before the rows it ties */
    int64_t wm;                /* window mode: watermark reached (INT64_MIN: none) */
    int64_t late;              /* window mode: rows dropped as late */
    const char *const *in_names; /* window mode: input column names (late rows), or NULL */
    bool retract;              /* an updating input: every row kept (RetractableTopNFunction) */
} sl__topn;

static int64_t sl__real_now(void *ctx)
{
    (void)ctx;
    return sl_now_nanos();
}

/* ---- encoding (order-preserving sort keys) ----------------------------- */

/* Append n bytes of b big-endian-ordered as given, inverted when desc. */
static void sl__put_ordered(sl_strbuf *sb, const uint8_t *b, size_t n, bool desc)
{
    for (size_t i = 0; i < n; i++)
        sl_strbuf_append_char(sb, (char)(desc ? ~b[i] : b[i]));
}

static void sl__put_be64(sl_strbuf *sb, uint64_t v, bool desc)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (56 - 8 * i));
    sl__put_ordered(sb, b, 8, desc);
}

/* The sort key of row r of c into t->sbuf (see the header). */
static void sl__sortkey_encode(sl__topn *t, const sl_chunk *c, int r)
{
    sl_strbuf *sb = &t->sbuf;
    sl_strbuf_reset(sb);
    for (int k = 0; k < t->norder; k++) {
        const sl_topn_order *o = &t->order[k];
        const sl_vector *v = &c->cols[o->col];
        if (v->nulls[r]) {
            sl_strbuf_append_char(sb, o->nulls_first ? 0 : 2);
            continue;
        }
        sl_strbuf_append_char(sb, 1);
        sl__val x = sl__load(v, r);
        switch (v->phys) {
        case SL_PHYS_BOOL: {
            uint8_t b = (uint8_t)x.i;
            sl__put_ordered(sb, &b, 1, o->desc);
            break;
        }
        case SL_PHYS_I64: sl__put_be64(sb, (uint64_t)x.i ^ (UINT64_C(1) << 63), o->desc); break;
        case SL_PHYS_F64: {
            uint64_t bits = sl__f64_bits(x.f);
            bits = bits >> 63 ? ~bits : bits | UINT64_C(1) << 63;
            sl__put_be64(sb, bits, o->desc);
            break;
        }
        case SL_PHYS_I128: {
            unsigned __int128 u = (unsigned __int128)x.d;
            sl__put_be64(sb, (uint64_t)(u >> 64) ^ (UINT64_C(1) << 63), o->desc);
            sl__put_be64(sb, (uint64_t)u, o->desc);
            break;
        }
        case SL_PHYS_STR: {
            static const uint8_t esc[2] = {0, 0xFF}, fin[2] = {0, 0};
            const uint8_t *p = (const uint8_t *)x.s.p;
            for (uint32_t i = 0; i < x.s.len; i++) {
                if (p[i] == 0)
                    sl__put_ordered(sb, esc, 2, o->desc);
                else
                    sl__put_ordered(sb, &p[i], 1, o->desc);
            }
            sl__put_ordered(sb, fin, 2, o->desc);
            break;
        }
        }
    }
}

static int sl__key_cmp(const uint8_t *a, size_t la, const uint8_t *b, size_t lb)
{
    size_t n = la < lb ? la : lb;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    return la < lb ? -1 : la > lb;
}

/* Compare the sort key in t->sbuf with item it's. */
static int sl__cmp_item(const sl__topn *t, const sl__tn_item *it)
{
    return sl__key_cmp((const uint8_t *)(t->sbuf.buf ? t->sbuf.buf : ""), t->sbuf.len,
                       it->bytes, it->klen);
}

static bool sl__same_key(const sl__tn_item *a, const sl__tn_item *b)
{
    return a->klen == b->klen && memcmp(a->bytes, b->bytes, a->klen) == 0;
}

static void sl__key_encode(sl__topn *t, const sl_chunk *c, int r)
{
    sl_strbuf_reset(&t->kbuf);
    for (int k = 0; k < t->nkeys; k++)
        sl_value_put(&t->kbuf, c, t->keys[k], r);
}

static void sl__row_encode(sl__topn *t, const sl_chunk *c, int r)
{
    sl_strbuf_reset(&t->rbuf);
    sl_row_put_cols(&t->rbuf, c, 0, t->in_ncols, r);
}

/* ---- the partition table ----------------------------------------------- */

static int sl__lookup(const sl__topn *t, uint64_t h)
{
    if (!t->nslots)
        return -1;
    const char *k = t->kbuf.buf ? t->kbuf.buf : "";
    for (size_t i = h & (t->nslots - 1);; i = (i + 1) & (t->nslots - 1)) {
        int32_t e = t->slots[i];
        if (e < 0)
            return -1;
        const sl__tn_part *p = &t->parts[e];
        if (p->hash == h && p->key_len == t->kbuf.len && memcmp(p->key, k, p->key_len) == 0)
            return e;
    }
}

static void sl__slot_put(sl__topn *t, int e)
{
    for (size_t i = t->parts[e].hash & (t->nslots - 1);; i = (i + 1) & (t->nslots - 1))
        if (t->slots[i] < 0) {
            t->slots[i] = e;
            return;
        }
}

static void sl__rehash(sl__topn *t, size_t want)
{
    size_t n = 16;
    while (n < want * 2)
        n *= 2;
    sl_free(t->slots);
    t->slots = sl_malloc(n * sizeof *t->slots);
    for (size_t i = 0; i < n; i++)
        t->slots[i] = -1;
    t->nslots = n;
    for (int e = 0; e < t->nparts; e++)
        sl__slot_put(t, e);
}

/* A new, empty partition for the key in t->kbuf (hash h). */
static int sl__part_new(sl__topn *t, uint64_t h, int64_t now)
{
    if (t->nparts == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 64;
        t->parts = sl_realloc(t->parts, (size_t)t->cap * sizeof *t->parts);
    }
    if ((size_t)(t->nparts + 1) * 2 > t->nslots)
        sl__rehash(t, (size_t)t->nparts + 1);
    SL_ALWAYS(t->kbuf.len <= UINT32_MAX);
    int e = t->nparts++;
    sl__tn_part *p = &t->parts[e];
    memset(p, 0, sizeof *p);
    p->hash = h;
    p->seq = t->next_seq++;
    p->written = now;
    p->key_len = (uint32_t)t->kbuf.len;
    p->key = sl_malloc((size_t)p->key_len + 1);
    if (p->key_len)
        memcpy(p->key, t->kbuf.buf, p->key_len);
    sl__slot_put(t, e);
    return e;
}

static void sl__part_clear(sl__tn_part *p)
{
    for (int i = 0; i < p->n; i++)
        sl_free(p->items[i].bytes);
    p->n = 0;
}

static void sl__part_free(sl__tn_part *p)
{
    sl__part_clear(p);
    sl_free(p->items);
    sl_free(p->key);
}

/* Insert the sort key in t->sbuf with the row in t->rbuf at position pos. */
static void sl__item_insert(sl__topn *t, sl__tn_part *p, int pos)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 8;
        p->items = sl_realloc(p->items, (size_t)p->cap * sizeof *p->items);
    }
    SL_ALWAYS(t->sbuf.len <= UINT32_MAX && t->rbuf.len <= UINT32_MAX);
    memmove(&p->items[pos + 1], &p->items[pos], (size_t)(p->n - pos) * sizeof *p->items);
    sl__tn_item *it = &p->items[pos];
    it->klen = (uint32_t)t->sbuf.len;
    it->rlen = (uint32_t)t->rbuf.len;
    it->bytes = sl_malloc((size_t)it->klen + it->rlen + 1);
    if (it->klen)
        memcpy(it->bytes, t->sbuf.buf, it->klen);
    if (it->rlen)
        memcpy(it->bytes + it->klen, t->rbuf.buf, it->rlen);
    p->n++;
}

static bool sl__expired(const sl__topn *t, const sl__tn_part *p, int64_t now)
{
    return t->ttl_ns > 0 && now - p->written >= t->ttl_ns;
}

/* Drop every expired or empty partition (order kept) and rebuild the table. */
static void sl__sweep(sl__topn *t, int64_t now)
{
    int w = 0;
    for (int e = 0; e < t->nparts; e++) {
        if (t->parts[e].n == 0 || sl__expired(t, &t->parts[e], now))
            sl__part_free(&t->parts[e]);
        else
            t->parts[w++] = t->parts[e];
    }
    if (w != t->nparts) {
        t->nparts = w;
        sl__rehash(t, (size_t)w);
    }
}

static void sl__clear(sl__topn *t)
{
    for (int e = 0; e < t->nparts; e++)
        sl__part_free(&t->parts[e]);
    t->nparts = 0;
    t->next_seq = 0;
    sl_free(t->slots);
    t->slots = NULL;
    t->nslots = 0;
}

/* ---- output ------------------------------------------------------------ */

/* Append item it's row as kind k with rank rank; flushes a full buffer. */
static int sl__emit(sl__topn *t, const sl__tn_item *it, sl_row_kind k, int64_t rank,
                    const sl_emit *out, sl_error *err)
{
    if (t->out->nrows == t->out->cap) {
        if (sl_op_cancelled(t->op))
            return sl_op_cancel_error(err);
        int rc = out->fn(out->ctx, t->out, err);
        sl_chunk_reset(t->out);
        if (rc != 0)
            return rc;
    }
    if (k == SL_ROW_UPDATE_BEFORE && t->no_before)
        return 0;
    int x = sl_chunk_append_row(t->out, k);
    sl_bytes_reader c = {it->bytes + it->klen, it->rlen, 0};
    bool ok = sl_row_get_cols(&c, t->out, 0, t->in_ncols, x);
    SL_ALWAYS(ok && c.off == c.n);
    sl_chunk_set_i64(t->out, t->in_ncols, x, rank);
    return 0;
}

/* Emit when rank is in the range. */
static int sl__emit_ranked(sl__topn *t, const sl__tn_item *it, sl_row_kind k, int64_t rank,
                           const sl_emit *out, sl_error *err)
{
    if (rank < t->start || rank > t->end)
        return 0;
    return sl__emit(t, it, k, rank, out, err);
}

static int sl__flush(sl__topn *t, const sl_emit *out, sl_error *err)
{
    int rc = t->out->nrows > 0 ? out->fn(out->ctx, t->out, err) : 0;
    sl_chunk_reset(t->out);
    return rc;
}

/* ---- processing -------------------------------------------------------- */

/* The new row is p->items[pos]: emit the rank changes and drop the entries
** the walk does not reach (AppendOnlyTopNFunction, with row number). */
static int sl__with_number(sl__topn *t, sl__tn_part *p, int pos, const sl_emit *out,
                           sl_error *err)
{
    int64_t rank = 0;
    bool found = false;
    int cur = -1, i = 0;
    while (i < p->n && rank <= t->end) {
        int e = i + 1;
        while (e < p->n && sl__same_key(&p->items[i], &p->items[e]))
            e++;
        if (!found && i <= pos && pos < e) {
            rank += e - i;
            cur = pos;
            found = true;
        } else if (found) {
            for (int j = i; j < e && rank <= t->end; j++) {
                if (sl__emit_ranked(t, &p->items[j], SL_ROW_UPDATE_BEFORE, rank, out, err) != 0 ||
                    sl__emit_ranked(t, &p->items[cur], SL_ROW_UPDATE_AFTER, rank, out, err) != 0)
                    return -1;
                cur = j;
                rank++;
            }
        } else {
            rank += e - i;
        }
        i = e;
    }
    if (rank <= t->end && cur >= 0 &&
        sl__emit_ranked(t, &p->items[cur], SL_ROW_INSERT, rank, out, err) != 0)
        return -1;
    if (t->retract)
        return 0; /* an updating input: every row stays (a row above may leave) */
    for (int j = i; j < p->n; j++)
        sl_free(p->items[j].bytes);
    p->n = i;
    return 0;
}

/* The new row is p->items[pos]: +I it, and -D the row it pushes out
** (AppendOnlyTopNFunction, without row number). */
static int sl__without_number(sl__topn *t, sl__tn_part *p, int pos, const sl_emit *out,
                              sl_error *err)
{
    if (p->n > t->end) {
        sl__tn_item last = p->items[p->n - 1];
        const sl__tn_item *in = &p->items[pos];
        bool same = last.rlen == in->rlen &&
                    memcmp(last.bytes + last.klen, in->bytes + in->klen, in->rlen) == 0;
        p->n--;
        if (same) {
            sl_free(last.bytes);
            return 0;
        }
        int rc = sl__emit(t, &last, SL_ROW_DELETE, t->start, out, err);
        sl_free(last.bytes);
        if (rc != 0)
            return -1;
    }
    return sl__emit(t, &p->items[pos], SL_ROW_INSERT, t->start, out, err);
}

/* The end of the entry (rows with equal sort keys) starting at i. */
static int sl__entry_end(const sl__tn_part *p, int i)
{
    int e = i + 1;
    while (e < p->n && sl__same_key(&p->items[i], &p->items[e]))
        e++;
    return e;
}

/* Updating input, without the rank: the new row is p->items[pos] (the last
** of its entry): +I it when it ranks <= rank_end, after -D of the row it
** pushes to rank_end + 1 (RetractableTopNFunction). */
static int sl__acc_without_number(sl__topn *t, sl__tn_part *p, int pos, const sl_emit *out,
                                  sl_error *err)
{
    int64_t rank = 0;
    bool found = false, collect = false;
    int del = -1;
    for (int i = 0; i < p->n && rank <= t->end;) {
        int e = sl__entry_end(p, i);
        if (!found && i <= pos && pos < e) {
            rank += e - i;
            collect = rank >= t->start && rank <= t->end;
            found = true;
        } else if (found) {
            if (rank + (e - i) <= t->end) {
                rank += e - i;
            } else {
                del = i + (int)(t->end - rank); /* old rank end + 1 ... now rank_end + 1 */
                break;
            }
        } else {
            rank += e - i;
        }
        i = e;
    }
    if (del >= 0 && sl__emit(t, &p->items[del], SL_ROW_DELETE, t->start, out, err) != 0)
        return -1;
    if (collect && sl__emit(t, &p->items[pos], SL_ROW_INSERT, t->start, out, err) != 0)
        return -1;
    return 0;
}

/* Updating input: retract the row in t->rbuf (sort key in t->sbuf) from p,
** emitting the rank changes (RetractableTopNFunction): with the rank, the
** rows below it move up one rank each (-U/+U), then -D at the rank left
** empty; without, -D of it and +I of the row that moves up to rank_end. A
** row not there (forgotten by the TTL) is ignored. */
static int sl__retract(sl__topn *t, sl__tn_part *p, const sl_emit *out, sl_error *err)
{
    /* the row's position: the first equal row among its sort key's */
    int at = -1;
    for (int i = 0; i < p->n && at < 0;) {
        int e = sl__entry_end(p, i);
        if (sl__cmp_item(t, &p->items[i]) == 0)
            for (int j = i; j < e && at < 0; j++)
                if (p->items[j].rlen == t->rbuf.len &&
                    memcmp(p->items[j].bytes + p->items[j].klen, t->rbuf.buf, t->rbuf.len) == 0)
                    at = j;
        i = e;
    }
    if (at < 0)
        return 0;
    int64_t rank = 0;
    bool found = false;
    if (t->with_number) {
        int prev = -1;
        for (int i = 0; i < p->n && rank <= t->end;) {
            int e = sl__entry_end(p, i);
            if (!found && i <= at && at < e) {
                for (int j = i; j < e && rank <= t->end; j++) {
                    if (!found && j == at) {
                        prev = j;
                        found = true;
                    } else if (found) {
                        if (sl__emit_ranked(t, &p->items[prev], SL_ROW_UPDATE_BEFORE, rank, out,
                                            err) != 0 ||
                            sl__emit_ranked(t, &p->items[j], SL_ROW_UPDATE_AFTER, rank, out,
                                            err) != 0)
                            return -1;
                        prev = j;
                    }
                    rank++;
                }
            } else if (found) {
                for (int j = i; j < e && rank <= t->end; j++) {
                    if (sl__emit_ranked(t, &p->items[prev], SL_ROW_UPDATE_BEFORE, rank, out,
                                        err) != 0 ||
                        sl__emit_ranked(t, &p->items[j], SL_ROW_UPDATE_AFTER, rank, out, err) != 0)
                        return -1;
                    prev = j;
                    rank++;
                }
            } else {
                rank += e - i;
            }
            i = e;
        }
        if (found && rank <= t->end &&
            sl__emit_ranked(t, &p->items[prev], SL_ROW_DELETE, rank, out, err) != 0)
            return -1;
    } else {
        int64_t next = 1;
        for (int i = 0; i < p->n && next <= t->end;) {
            int e = sl__entry_end(p, i);
            if (!found && i <= at && at < e) {
                for (int j = i; j < e && next <= t->end; j++) {
                    if (!found && j == at) {
                        if (sl__emit(t, &p->items[j], SL_ROW_DELETE, t->start, out, err) != 0)
                            return -1;
                        next--;
                        found = true;
                    } else if (found && next == t->end) {
                        if (sl__emit(t, &p->items[j], SL_ROW_INSERT, t->start, out, err) != 0)
                            return -1;
                    }
                    next++;
                }
            } else if (found) {
                int64_t last = next + (e - i) - 1;
                if (last < t->end) {
                    next = last + 1;
                } else {
                    int add = i + (int)(t->end - next);
                    if (sl__emit(t, &p->items[add], SL_ROW_INSERT, t->start, out, err) != 0)
                        return -1;
                    break;
                }
            } else {
                next += e - i;
            }
            i = e;
        }
    }
    sl_free(p->items[at].bytes);
    memmove(&p->items[at], &p->items[at + 1], (size_t)(p->n - at - 1) * sizeof *p->items);
    p->n--;
    return 0;
}

static int sl__topn_row(sl__topn *t, const sl_chunk *in, int r, int64_t now, const sl_emit *out,
                        sl_error *err)
{
    sl__key_encode(t, in, r);
    uint64_t h = sl_checksum(t->kbuf.buf, t->kbuf.len); /* in memory only */
    int e = sl__lookup(t, h);
    if (e >= 0 && sl__expired(t, &t->parts[e], now)) {
        sl__part_clear(&t->parts[e]); /* forgotten: first seen now */
        t->parts[e].seq = t->next_seq++;
    }
    sl__sortkey_encode(t, in, r);
    sl_row_kind kind = (sl_row_kind)in->kinds[r];
    if (kind == SL_ROW_UPDATE_BEFORE || kind == SL_ROW_DELETE) {
        if (e < 0)
            return 0; /* nothing to retract (forgotten) */
        sl__row_encode(t, in, r);
        t->parts[e].written = now;
        return sl__retract(t, &t->parts[e], out, err);
    }
    if (e >= 0 && t->parts[e].n == 0)
        t->parts[e].seq = t->next_seq++; /* emptied by retractions: first seen now */
    if (e >= 0) {
        sl__tn_part *p = &t->parts[e];
        if (!t->retract && p->n > 0 && sl__cmp_item(t, &p->items[p->n - 1]) >= 0 &&
            p->n >= t->end)
            return 0; /* not in the buffer's range */
    } else {
        e = sl__part_new(t, h, now);
    }
    sl__tn_part *p = &t->parts[e];
    /* After every row with a smaller or equal key. */
    int lo = 0, hi = p->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (sl__cmp_item(t, &p->items[mid]) >= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    sl__row_encode(t, in, r);
    sl__item_insert(t, p, lo);
    p->written = now;
    if (t->with_number)
        return sl__with_number(t, p, lo, out, err);
    return t->retract ? sl__acc_without_number(t, p, lo, out, err)
                      : sl__without_number(t, p, lo, out, err);
}

/* Window mode: buffer row r of in in its (window, partition) until the
** window fires; only the rows ranked <= rank_end are kept. */
static int sl__window_row(sl_operator *op, sl__topn *t, const sl_chunk *in, int r,
                          sl_error *err)
{
    const sl_vector *we = &in->cols[t->wend_col];
    if (we->nulls[r])
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "window Top-N row without window_end");
    if (we->v.i64[r] <= t->wm) {
        t->late++;
        return sl_late_row(op, t->in_names, in, r, INT64_MIN, t->wm, true, INT64_MIN,
                           we->v.i64[r], err);
    }
    sl__key_encode(t, in, r);
    uint64_t h = sl_checksum(t->kbuf.buf, t->kbuf.len); /* in memory only */
    int e = sl__lookup(t, h);
    sl__sortkey_encode(t, in, r);
    if (e >= 0) {
        sl__tn_part *p = &t->parts[e];
        int c = p->n > 0 ? sl__cmp_item(t, &p->items[p->n - 1]) : -1;
        if (p->n >= t->end && (c > 0 || (c == 0 && !t->ties_replace)))
            return 0; /* ranks after rank_end */
    } else {
        e = sl__part_new(t, h, 0);
        t->parts[e].wend = we->v.i64[r];
    }
    sl__tn_part *p = &t->parts[e];
    int lo = 0, hi = p->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int c = sl__cmp_item(t, &p->items[mid]);
        if (c > 0 || (c == 0 && !t->ties_replace))
            lo = mid + 1;
        else
            hi = mid;
    }
    sl__row_encode(t, in, r);
    sl__item_insert(t, p, lo);
    while (p->n > t->end)
        sl_free(p->items[--p->n].bytes);
    return 0;
}

typedef struct sl__seq_idx {
    int64_t wend; /* window mode, firing: the window's end; else 0 */
    uint64_t seq; /* first-seen sequence */
    int idx;      /* partition index */
} sl__seq_idx;

/* By window end, then first-seen sequence. */
static int sl__cmp_seq(const void *a, const void *b)
{
    const sl__seq_idx *x = a, *y = b;
    if (x->wend != y->wend)
        return x->wend < y->wend ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Window mode: fire the windows ending at or before the watermark — in
** order of window_end, then of the partitions' first rows — emitting ranks
** rank_start..rank_end as +I, and drop them. */
static int sl__window_fire(sl__topn *t, const sl_emit *out, sl_error *err)
{
    sl__seq_idx *due = sl_malloc(((size_t)t->nparts + 1) * sizeof *due);
    int n = 0;
    for (int e = 0; e < t->nparts; e++)
        if (t->parts[e].wend <= t->wm)
            due[n++] = (sl__seq_idx){0, t->parts[e].seq, e};
    if (n == 0) {
        sl_free(due);
        return 0;
    }
    /* in order of window_end, then first seen */
    for (int i = 0; i < n; i++)
        due[i].wend = t->parts[due[i].idx].wend;
    qsort(due, (size_t)n, sizeof *due, sl__cmp_seq);
    sl_chunk_reset(t->out);
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        sl__tn_part *p = &t->parts[due[i].idx];
        for (int j = 0; j < p->n && !rc; j++)
            if (j + 1 >= t->start && j + 1 <= t->end)
                rc = sl__emit(t, &p->items[j], SL_ROW_INSERT,
                              t->output_rank ? j + 1 : t->start, out, err);
        sl__part_clear(p); /* emptied: swept below */
    }
    sl_free(due);
    int w = 0;
    for (int e = 0; e < t->nparts; e++) {
        if (t->parts[e].wend <= t->wm)
            sl__part_free(&t->parts[e]);
        else
            t->parts[w++] = t->parts[e];
    }
    t->nparts = w;
    sl__rehash(t, (size_t)w);
    if (rc)
        return -1;
    return sl__flush(t, out, err);
}

static int sl__topn_process(sl_operator *op, const sl_chunk *in, const sl_emit *out,
                            sl_error *err)
{
    sl__topn *t = op->impl;
    for (int r = 0; r < in->nrows && !t->retract; r++) /* before any state changes */
        if (in->kinds[r] != SL_ROW_INSERT)
            return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                "Top-N needs an append-only input, but got a %s row",
                                sl_row_kind_name((sl_row_kind)in->kinds[r]));
    if (t->wend_col >= 0) {
        for (int r = 0; r < in->nrows; r++)
            if (sl__window_row(op, t, in, r, err) != 0)
                return -1;
        return 0;
    }
    int64_t now = t->now(t->now_ctx);
    if (t->ttl_ns > 0 && now >= t->next_sweep) {
        sl__sweep(t, now);
        t->next_sweep = now + t->ttl_ns;
    }
    sl_chunk_reset(t->out);
    for (int r = 0; r < in->nrows; r++) {
        if (sl__topn_row(t, in, r, now, out, err) != 0)
            return -1;
    }
    return sl__flush(t, out, err);
}

static int sl__topn_watermark(sl_operator *op, int64_t wm, const sl_emit *out, sl_error *err)
{
    sl__topn *t = op->impl;
    if (wm > t->wm)
        t->wm = wm;
    if (t->wend_col < 0)
        return 0; /* nothing waits for event time */
    return sl__window_fire(t, out, err);
}

static int64_t sl__topn_late_rows(sl_operator *op)
{
    return ((sl__topn *)op->impl)->late;
}

/* ---- snapshot / restore ------------------------------------------------ */

static const char sl__magic[8] = {'S', 'L', 'T', 'O', 'P', 'N', '0', '2'};
static const char sl__magic_v1[8] = {'S', 'L', 'T', 'O', 'P', 'N', '0', '1'};

static int sl__topn_snapshot(sl_operator *op, sl_strbuf *state, sl_error *err)
{
    (void)err;
    sl__topn *t = op->impl;
    int64_t now = t->now(t->now_ctx);
    size_t start = state->len;
    sl_strbuf_append_n(state, sl__magic, sizeof sl__magic);
    sl_put_u32(state, (uint32_t)t->in_ncols);
    sl_put_u32(state, (uint32_t)t->nkeys);
    sl_put_u32(state, (uint32_t)t->norder);
    sl_strbuf_append_char(state, (char)((t->output_rank ? 1 : 0) | (t->retract ? 2 : 0)));
    sl_put_u64(state, (uint64_t)t->start);
    sl_put_u64(state, (uint64_t)t->end);
    sl_put_u32(state, (uint32_t)t->wend_col);
    sl_strbuf_append_char(state, t->ties_replace ? 1 : 0);
    for (int c = 0; c < t->in_ncols; c++)
        sl_strbuf_append_char(state, (char)sl_phys_of(t->in_types[c]));
    sl_put_u64(state, (uint64_t)t->wm);
    sl_put_u64(state, (uint64_t)t->late);
    sl__seq_idx *idx = sl_malloc(((size_t)t->nparts + 1) * sizeof *idx);
    int n = 0;
    for (int e = 0; e < t->nparts; e++)
        if (t->parts[e].n > 0 && (t->wend_col >= 0 || !sl__expired(t, &t->parts[e], now)))
            idx[n++] = (sl__seq_idx){0, t->parts[e].seq, e};
    qsort(idx, (size_t)n, sizeof *idx, sl__cmp_seq);
    sl_put_u64(state, (uint64_t)n);
    for (int i = 0; i < n; i++) {
        const sl__tn_part *p = &t->parts[idx[i].idx];
        sl_put_u64(state, (uint64_t)p->written);
        sl_put_u32(state, (uint32_t)p->n);
        for (int j = 0; j < p->n; j++) {
            sl_put_u32(state, p->items[j].rlen);
            sl_strbuf_append_n(state, (const char *)p->items[j].bytes + p->items[j].klen,
                               p->items[j].rlen);
        }
    }
    sl_free(idx);
    sl_put_u64(state, sl_checksum(state->buf + start, state->len - start));
    return 0;
}

static int sl__corrupt(sl__topn *t, sl_error *err, const char *what)
{
    sl__clear(t);
    return sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "Top-N state is corrupt: %s", what);
}

/* Restore one partition's rows from cursor c. NULL when fine, else what is
** wrong. */
static const char *sl__restore_part(sl__topn *t, sl_bytes_reader *c, int64_t written)
{
    uint32_t nrows;
    if (!sl_get_u32(c, &nrows))
        return "truncated partition";
    if (nrows == 0)
        return "an empty partition";
    if (nrows > (c->n - c->off) / (4 + (uint64_t)t->in_ncols))
        return "row count exceeds the data";
    sl__tn_part *p = NULL;
    for (uint32_t i = 0; i < nrows; i++) {
        uint32_t len;
        if (!sl_get_u32(c, &len) || len > c->n - c->off)
            return "truncated row";
        sl_bytes_reader rc = {c->p + c->off, len, 0};
        c->off += len;
        sl_chunk_reset(t->scratch);
        int r = sl_chunk_append_row(t->scratch, SL_ROW_INSERT);
        if (!sl_row_get_cols(&rc, t->scratch, 0, t->in_ncols, r) || rc.off != rc.n)
            return "malformed row";
        sl__row_encode(t, t->scratch, r);
        if (t->rbuf.len != len || memcmp(t->rbuf.buf, rc.p, len) != 0)
            return "malformed row";
        sl__key_encode(t, t->scratch, r);
        sl__sortkey_encode(t, t->scratch, r);
        if (!p) {
            uint64_t h = sl_checksum(t->kbuf.buf, t->kbuf.len); /* in memory only */
            if (sl__lookup(t, h) >= 0)
                return "duplicate partition";
            int e = sl__part_new(t, h, written);
            p = &t->parts[e];
            if (t->wend_col >= 0) {
                if (t->scratch->cols[t->wend_col].nulls[r])
                    return "a window row without window_end";
                p->wend = t->scratch->cols[t->wend_col].v.i64[r];
            }
        } else {
            if (t->kbuf.len != p->key_len || memcmp(t->kbuf.buf, p->key, p->key_len) != 0)
                return "rows of different partitions";
            if (sl__cmp_item(t, &p->items[p->n - 1]) < 0)
                return "rows out of order";
        }
        sl__item_insert(t, p, p->n);
    }
    return NULL;
}

static int sl__topn_restore(sl_operator *op, const char *state, size_t len, sl_error *err)
{
    sl__topn *t = op->impl;
    sl__clear(t);
    if (len < sizeof sl__magic + 8)
        return sl__corrupt(t, err, "truncated");
    uint64_t sum;
    sl_bytes_reader tail = {(const uint8_t *)state, len, len - 8};
    sl_get_u64(&tail, &sum);
    bool v1 = memcmp(state, sl__magic_v1, sizeof sl__magic_v1) == 0;
    if (sum != (v1 ? sl_hash_bytes(state, len - 8, SL_HASH_INIT) : sl_checksum(state, len - 8)))
        return sl__corrupt(t, err, "checksum mismatch");
    sl_bytes_reader c = {(const uint8_t *)state, len - 8, 0};
    char magic[sizeof sl__magic];
    uint32_t ncols, nkeys, norder, wcol;
    uint8_t outrank, ties;
    uint64_t start, end, count, wm, late;
    if (!sl_get_bytes(&c, magic, sizeof magic) ||
        (memcmp(magic, sl__magic, sizeof magic) != 0 && !v1))
        return sl__corrupt(t, err, "not a Top-N state");
    if (!sl_get_u32(&c, &ncols) || !sl_get_u32(&c, &nkeys) || !sl_get_u32(&c, &norder) ||
        !sl_get_u8(&c, &outrank) || !sl_get_u64(&c, &start) || !sl_get_u64(&c, &end) ||
        !sl_get_u32(&c, &wcol) || !sl_get_u8(&c, &ties))
        return sl__corrupt(t, err, "truncated header");
    if (ncols != (uint32_t)t->in_ncols || nkeys != (uint32_t)t->nkeys ||
        norder != (uint32_t)t->norder ||
        outrank != ((t->output_rank ? 1 : 0) | (t->retract ? 2 : 0)) ||
        (int64_t)start != t->start || (int64_t)end != t->end ||
        wcol != (uint32_t)t->wend_col || ties != (t->ties_replace ? 1 : 0))
        return sl__corrupt(t, err, "it belongs to a different Top-N");
    for (int col = 0; col < t->in_ncols; col++) {
        uint8_t ph;
        if (!sl_get_u8(&c, &ph))
            return sl__corrupt(t, err, "truncated header");
        if (ph != (uint8_t)sl_phys_of(t->in_types[col]))
            return sl__corrupt(t, err, "column types differ");
    }
    if (!sl_get_u64(&c, &wm) || !sl_get_u64(&c, &late))
        return sl__corrupt(t, err, "truncated header");
    if ((int64_t)late < 0)
        return sl__corrupt(t, err, "negative late row count");
    if (!sl_get_u64(&c, &count))
        return sl__corrupt(t, err, "truncated header");
    if (count > (c.n - c.off) / 12 || count > INT32_MAX / 2)
        return sl__corrupt(t, err, "partition count exceeds the data");
    for (uint64_t i = 0; i < count; i++) {
        uint64_t written;
        if (!sl_get_u64(&c, &written))
            return sl__corrupt(t, err, "truncated partition");
        const char *bad = sl__restore_part(t, &c, (int64_t)written);
        if (bad)
            return sl__corrupt(t, err, bad);
    }
    if (c.off != c.n)
        return sl__corrupt(t, err, "trailing bytes");
    sl_chunk_reset(t->scratch);
    t->wm = (int64_t)wm;
    t->late = (int64_t)late;
    t->next_sweep = 0;
    return 0;
}

static void sl__topn_free(sl_operator *op)
{
    if (!op)
        return;
    sl__topn *t = op->impl;
    if (t) {
        sl__clear(t);
        sl_free(t->parts);
        sl_free(t->keys);
        sl_free(t->order);
        sl_free(t->in_types);
        sl_free(t->out_types);
        sl_strbuf_free(&t->kbuf);
        sl_strbuf_free(&t->sbuf);
        sl_strbuf_free(&t->rbuf);
        sl_chunk_free(t->out);
        sl_chunk_free(t->scratch);
        sl_free(t);
    }
    sl_free(op);
}

static const sl_operator_ops sl__topn_ops = {
    sl__topn_process, sl__topn_watermark,  sl__topn_snapshot,
    sl__topn_restore, sl__topn_late_rows, sl__topn_free,
    NULL, /* conflicts */
    NULL, /* backend: hashmap */
};

int sl_topn_new(const sl_topn_spec *spec, sl_operator **out, sl_error *err)
{
    *out = NULL;
    if (spec->in_ncols < 0 || spec->nkeys < 0 || spec->norder < 1 || spec->ttl_ms < 0 ||
        spec->ttl_ms > INT64_MAX / SL_NANOS_PER_MILLI || spec->rank_start < 1 ||
        spec->rank_end < 1 || spec->rank_end > INT32_MAX || spec->window_end_col < -1 ||
        spec->window_end_col >= spec->in_ncols ||
        (spec->window_end_col >= 0 && sl_phys_of(spec->in_types[spec->window_end_col]) != SL_PHYS_I64))
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "invalid Top-N spec");
    for (int k = 0; k < spec->nkeys; k++)
        if (spec->keys[k] < 0 || spec->keys[k] >= spec->in_ncols)
            return sl_error_set(err, SL_ERR_INTERNAL, -1, "Top-N key %d out of range",
                                spec->keys[k]);
    for (int k = 0; k < spec->norder; k++)
        if (spec->order[k].col < 0 || spec->order[k].col >= spec->in_ncols)
            return sl_error_set(err, SL_ERR_INTERNAL, -1, "Top-N order column %d out of range",
                                spec->order[k].col);
    sl__topn *t = sl_calloc(1, sizeof *t);
    t->in_ncols = spec->in_ncols;
    t->nkeys = spec->nkeys;
    t->keys = sl_malloc(((size_t)spec->nkeys + 1) * sizeof(int));
    if (spec->nkeys)
        memcpy(t->keys, spec->keys, (size_t)spec->nkeys * sizeof(int));
    t->norder = spec->norder;
    t->order = sl_malloc((size_t)spec->norder * sizeof *t->order);
    memcpy(t->order, spec->order, (size_t)spec->norder * sizeof *t->order);
    t->start = spec->rank_start;
    t->end = spec->rank_end;
    t->output_rank = spec->output_rank;
    t->with_number = spec->output_rank || spec->rank_start > 1;
    t->wend_col = spec->window_end_col;
    t->in_names = spec->in_names;
    t->ties_replace = spec->window_end_col >= 0 && spec->ties_replace;
    t->wm = INT64_MIN;
    t->retract = spec->updating_input && spec->window_end_col < 0;
    t->no_before = spec->no_before && spec->window_end_col < 0;
    t->ttl_ns = spec->ttl_ms * SL_NANOS_PER_MILLI;
    t->now = spec->now ? spec->now : sl__real_now;
    t->now_ctx = spec->now_ctx;
    t->in_types = sl_calloc((size_t)spec->in_ncols + 1, sizeof(sl_type));
    t->out_types = sl_calloc((size_t)spec->in_ncols + 1, sizeof(sl_type));
    for (int i = 0; i < spec->in_ncols; i++)
        t->in_types[i] = t->out_types[i] = spec->in_types[i];
    sl_type rn = sl_type_make(SL_TYPE_BIGINT);
    rn.not_null = true;
    t->out_types[spec->in_ncols] = rn;
    t->out = sl_chunk_new(spec->in_ncols + 1, t->out_types, SL_CHUNK_ROWS);
    t->scratch = sl_chunk_new(spec->in_ncols, t->in_types, 1);
    sl_operator *op = sl_calloc(1, sizeof *op);
    op->ops = &sl__topn_ops;
    op->impl = t;
    t->op = op;
    op->out_ncols = spec->in_ncols + 1;
    op->out_types = t->out_types;
    *out = op;
    return 0;
}
