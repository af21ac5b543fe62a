/*
** op_over.c — OVER aggregation by event time (see sl_exec.h, sl_over_spec):
** agg(x) OVER (PARTITION BY keys ORDER BY time ROWS|RANGE BETWEEN ...
** PRECEDING AND CURRENT ROW), as Flink 2.2's RowTimeRowsBoundedPreceding-
** Function, RowTimeRangeBoundedPrecedingFunction and the two
** RowTime*UnboundedPrecedingFunctions.
**
** Semantics (input append-only: any row kind but +I is XX000):
**   a row whose time is at or behind the watermark (time <= wm, Flink's
**   `timestamp > currentWatermark` test) is late: dropped and counted; a
**   row with a NULL time is skipped. Other rows wait per key until the
**   watermark reaches their time; then each key's ready rows are taken in
**   time order (ties: arrival order) and each is emitted once, as +I: the
**   input row followed by the calls' results over its frame —
**     ROWS n      the row and the n rows before it (in that order);
**     ROWS UNB.   the row and every row before it;
**     RANGE p     every row with time in [t - p, t] (rows with equal time
**                 get the same results: all of them are in the frame);
**     RANGE UNB.  every row with time <= t.
**   Across keys, ready rows are emitted in time order, then arrival order.
**
** State per key (entries in first-seen order, a hash table over the
** encoded key): the rows waiting for the watermark; for a bounded frame the
** emitted rows of the last row's frame (ROWS n: the last n + 1; RANGE p:
** those with time >= the last emitted time - p); and the accumulators of
** that frame (acc_int.h, op_agg.c's): a row entering the frame is
** accumulated, a row leaving it retracted (as Flink's functions do; MIN/MAX
** keep a value multiset), so a row costs the same whatever the frame's
** size. An unbounded frame keeps only its running accumulators. Rows are
** kept encoded as bytes.
**
** TTL (ttl_ms > 0, processing time from the injectable clock): a key with
** no waiting rows and not written for ttl_ms is forgotten (Flink's state
** TTL); keys are swept at most once per ttl.
**
** Snapshot (little-endian): "SLOV" u32 version, shape (ncols, keys, time
** column, frame, preceding, calls), i64 wm, i64 late, u64 next arrival,
** u32 entries, each: key bytes, u64 key hash (sl_chunk_hash_keys'), i64 written, u32 waiting rows (i64 time,
** u64 arrival, row bytes) and u32 frame rows (likewise), u8 accumulators
** present (+ acc_int.h bytes); then a 64-bit checksum of all before it. A
** bad blob is XX001.
**
** Main routines: sl_over_new; sl__over_process, sl__over_watermark,
** sl__over_snapshot, sl__over_restore.
*/
#include "acc_int.h"
#include "value_int.h"

#include <stdlib.h>
#include <string.h>

#define SL__OV_MAGIC "SLOV"
#define SL__OV_VERSION 1

typedef struct sl__orow {
    int64_t time;     /* event time (ns) */
    uint64_t seq;     /* arrival number */
    char *bytes;      /* the encoded row (owned) */
    uint32_t len;     /* its length */
} sl__orow;

typedef struct sl__orows {
    sl__orow *v;      /* rows */
    int n, cap;       /* used / allocated */
} sl__orows;

typedef struct sl__oentry {
    char *key;        /* encoded key (owned) */
    uint32_t klen;    /* its length */
    uint64_t hash;    /* its hash */
    int64_t written;  /* processing time of the last write (TTL) */
    sl__orows pend;   /* rows waiting for the watermark */
    sl__orows frame;  /* bounded frames: the emitted rows of the current frame */
    void *acc;        /* the accumulators of the frame (all rows so far when
                         unbounded), or NULL before the first row */
} sl__oentry;

typedef struct sl__ready {
    int64_t time;     /* row time */
    uint64_t seq;     /* arrival */
    int entry;        /* its key */
} sl__ready;

typedef struct sl__over {
    int in_ncols;             /* input columns */
    sl_type *types;           /* input then result types */
    int nkeys;                /* partition keys */
    int *keys;                /* their input columns */
    int time_col;             /* the event-time column */
    bool range;               /* RANGE (else ROWS) */
    int64_t preceding;        /* rows / ns before; -1 = UNBOUNDED */
    int naggs;                /* calls */
    sl_agg_call *calls;       /* them (separators point into the spec's) */
    sl_accs *accs;            /* their accumulators */
    int64_t ttl_ns;           /* state retention (0 = forever) */
    int64_t (*now)(void *ctx);/* clock */
    void *now_ctx;            /* for now */

    sl__oentry *ents;         /* keys in first-seen order */
    int nents, capents;       /* used / allocated */
    int32_t *tab;             /* hash table of entry + 1 (0 = empty), power of two */
    size_t tabcap;            /* its slots */
    int64_t wm;               /* watermark */
    int64_t late;             /* late rows dropped */
    const char *const *in_names; /* input column names (late rows), or NULL */
    uint64_t next_seq;        /* next arrival number */
    int64_t npend;            /* rows waiting, all keys */
    int *pk;                  /* the entries with rows waiting (any order) */
    int npk, cappk;           /* used / allocated */
    int64_t next_sweep;       /* TTL: next sweep (ns) */

    sl_strbuf kbuf, rbuf;     /* encoding scratch */
    sl_chunk *row;            /* one decoded row */
    sl_chunk *out;            /* output being filled */
} sl__over;

/* ---- snapshot integers (rows: rowcodec.c) ---------------------------- */

static inline void sl__put(sl_strbuf *sb, uint64_t v, int bytes)
{
    char b[8];
    for (int i = 0; i < bytes; i++)
        b[i] = (char)(v >> (8 * i));
    sl_strbuf_append_n(sb, b, (size_t)bytes);
}

typedef struct sl__cur {
    const uint8_t *p; /* bytes */
    size_t n, off;    /* length, read position */
    bool bad;         /* a read failed */
} sl__cur;

static uint64_t sl__get(sl__cur *c, int bytes)
{
    if (c->bad || c->n - c->off < (size_t)bytes) {
        c->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)c->p[c->off + (size_t)i] << (8 * i);
    c->off += (size_t)bytes;
    return v;
}

/* ---- keys and rows ----------------------------------------------------- */

static int64_t sl__real_now(void *ctx)
{
    (void)ctx;
    return sl_now_nanos();
}

static void sl__tab_put(sl__over *o, int e)
{
    size_t m = o->tabcap - 1, i = o->ents[e].hash & m;
    while (o->tab[i])
        i = (i + 1) & m;
    o->tab[i] = e + 1;
}

static void sl__rehash(sl__over *o)
{
    size_t want = 16;
    while (want < (size_t)o->nents * 2 + 2)
        want *= 2;
    sl_free(o->tab);
    o->tab = sl_calloc(want, sizeof(int32_t));
    o->tabcap = want;
    for (int e = 0; e < o->nents; e++)
        sl__tab_put(o, e);
}

/* The entry of the key in o->kbuf (hash h), or -1. */
static int sl__lookup(const sl__over *o, uint64_t h)
{
    if (!o->tabcap)
        return -1;
    size_t m = o->tabcap - 1;
    for (size_t i = h & m; o->tab[i]; i = (i + 1) & m) {
        const sl__oentry *en = &o->ents[o->tab[i] - 1];
        if (en->hash == h && en->klen == o->kbuf.len &&
            (en->klen == 0 || memcmp(en->key, o->kbuf.buf, en->klen) == 0))
            return o->tab[i] - 1;
    }
    return -1;
}

/* A new entry for the key in o->kbuf. */
static int sl__add_entry(sl__over *o, uint64_t h)
{
    if (o->nents == o->capents) {
        o->capents = o->capents ? o->capents * 2 : 64;
        o->ents = sl_realloc(o->ents, (size_t)o->capents * sizeof(sl__oentry));
    }
    int e = o->nents++;
    sl__oentry *en = &o->ents[e];
    memset(en, 0, sizeof *en);
    en->klen = (uint32_t)o->kbuf.len;
    en->key = sl_malloc(en->klen ? en->klen : 1);
    if (en->klen) /* no PARTITION BY: the empty key */
        memcpy(en->key, o->kbuf.buf, en->klen);
    en->hash = h;
    if ((size_t)o->nents * 2 + 2 > o->tabcap)
        sl__rehash(o);
    else
        sl__tab_put(o, e);
    return e;
}

static void sl__rows_push(sl__orows *rs, sl__orow r)
{
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? rs->cap * 2 : 4;
        rs->v = sl_realloc(rs->v, (size_t)rs->cap * sizeof(sl__orow));
    }
    rs->v[rs->n++] = r;
}

static void sl__rows_free(sl__orows *rs)
{
    for (int i = 0; i < rs->n; i++)
        sl_free(rs->v[i].bytes);
    sl_free(rs->v);
    memset(rs, 0, sizeof *rs);
}

/* Drop the first k rows of rs. */
static void sl__rows_drop(sl__orows *rs, int k)
{
    if (k == 0)
        return;
    for (int i = 0; i < k; i++)
        sl_free(rs->v[i].bytes);
    memmove(rs->v, rs->v + k, (size_t)(rs->n - k) * sizeof(sl__orow));
    rs->n -= k;
}

static void sl__entry_free(sl__over *o, sl__oentry *en)
{
    sl_free(en->key);
    sl__rows_free(&en->pend);
    sl__rows_free(&en->frame);
    if (en->acc) {
        sl_accs_clear(o->accs, en->acc);
        sl_free(en->acc);
    }
}

static sl__orow sl__own_row(const sl_strbuf *sb, int64_t time, uint64_t seq)
{
    sl__orow r = {time, seq, sl_malloc(sb->len ? sb->len : 1), (uint32_t)sb->len};
    memcpy(r.bytes, sb->buf, sb->len);
    return r;
}

/* Decode row x into o->row (row 0, reset first). */
static int sl__load_row(sl__over *o, const sl__orow *x, sl_error *err)
{
    sl_chunk_reset(o->row);
    sl_chunk_append_row(o->row, SL_ROW_INSERT);
    sl_bytes_reader c = {(const uint8_t *)x->bytes, x->len, 0};
    if (!sl_row_get_cols(&c, o->row, 0, o->in_ncols, 0))
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "OVER aggregation: a kept row is damaged");
    return 0;
}

/* ---- TTL ---------------------------------------------------------------- */

/* Forget keys with nothing waiting and not written for ttl (compacting the
** entries, order kept). */
static void sl__sweep(sl__over *o, int64_t now)
{
    if (o->ttl_ns <= 0 || now < o->next_sweep)
        return;
    o->next_sweep = now + o->ttl_ns;
    int w = 0;
    int *map = sl_malloc((size_t)(o->nents ? o->nents : 1) * sizeof(int));
    for (int e = 0; e < o->nents; e++) {
        sl__oentry *en = &o->ents[e];
        map[e] = w;
        if (en->pend.n == 0 && now - en->written >= o->ttl_ns)
            sl__entry_free(o, en);
        else
            o->ents[w++] = *en;
    }
    if (w != o->nents) { /* entries with waiting rows stay: renumber them */
        o->nents = w;
        for (int i = 0; i < o->npk; i++)
            o->pk[i] = map[o->pk[i]];
        sl__rehash(o);
    }
    sl_free(map);
}

/* ---- processing --------------------------------------------------------- */

static void sl__pk_add(sl__over *o, int e)
{
    if (o->npk == o->cappk) {
        o->cappk = o->cappk ? o->cappk * 2 : 64;
        o->pk = sl_realloc(o->pk, (size_t)o->cappk * sizeof(int));
    }
    o->pk[o->npk++] = e;
}

static int sl__over_process(sl_operator *op, const sl_chunk *in, const sl_emit *out, sl_error *err)
{
    (void)out;
    sl__over *o = op->impl;
    int64_t now = o->ttl_ns > 0 ? o->now(o->now_ctx) : 0;
    sl__sweep(o, now);
    uint64_t *h = sl_malloc((size_t)(in->nrows ? in->nrows : 1) * sizeof(uint64_t));
    sl_chunk_hash_keys(in, o->nkeys, o->keys, h);
    const sl_vector *tv = &in->cols[o->time_col];
    for (int r = 0; r < in->nrows; r++) {
        if (in->kinds[r] != SL_ROW_INSERT) {
            sl_free(h);
            return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                "OVER aggregation received a %s row; its input must be append-only",
                                sl_row_kind_name((sl_row_kind)in->kinds[r]));
        }
        if (tv->nulls[r])
            continue;
        int64_t t = tv->v.i64[r];
        if (t <= o->wm) {
            o->late++;
            if (op->side[SL_SIDE_LATE].fn &&
                sl_late_row(op, o->in_names, in, r, t, o->wm, false, 0, 0, err) != 0) {
                sl_free(h);
                return -1;
            }
            continue;
        }
        sl_strbuf_reset(&o->kbuf);
        for (int k = 0; k < o->nkeys; k++)
            sl_value_put(&o->kbuf, in, o->keys[k], r);
        int e = sl__lookup(o, h[r]);
        if (e < 0)
            e = sl__add_entry(o, h[r]);
        sl_strbuf_reset(&o->rbuf);
        sl_row_put_cols(&o->rbuf, in, 0, o->in_ncols, r);
        if (o->ents[e].pend.n == 0)
            sl__pk_add(o, e);
        sl__rows_push(&o->ents[e].pend, sl__own_row(&o->rbuf, t, o->next_seq++));
        o->ents[e].written = now;
        o->npend++;
    }
    sl_free(h);
    return 0;
}

/* By time, then arrival (ready rows; kept rows below). */
static int sl__cmp_ready(const void *x, const void *y)
{
    const sl__ready *a = x, *b = y;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int sl__cmp_row(const void *x, const void *y)
{
    const sl__orow *a = x, *b = y;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Append x + results (from rec) to the output, emitting a full chunk. */
static int sl__out_row(sl__over *o, const sl__orow *x, const void *rec, const sl_emit *out,
                       sl_error *err)
{
    if (sl_chunk_full(o->out)) {
        int rc = out->fn(out->ctx, o->out, err);
        sl_chunk_reset(o->out);
        if (rc)
            return rc;
    }
    int r = sl_chunk_append_row(o->out, SL_ROW_INSERT);
    sl_bytes_reader c = {(const uint8_t *)x->bytes, x->len, 0};
    if (!sl_row_get_cols(&c, o->out, 0, o->in_ncols, r))
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "OVER aggregation: a kept row is damaged");
    return sl_accs_results(o->accs, rec, o->out, o->in_ncols, r, err);
}

/* Feed row x to rec: accumulate (sign +1) or retract (-1). */
static int sl__feed(sl__over *o, void *rec, const sl__orow *x, int sign, sl_error *err)
{
    return sl__load_row(o, x, err) || sl_accs_add(o->accs, rec, o->row, 0, sign, err) ? -1 : 0;
}

/* Emit the rows x[0..n) of entry en, all of time x[0].time for RANGE (one
** row for ROWS), with the results over their frame. The entry's running
** accumulators hold its frame: rows entering it are accumulated, rows
** leaving a bounded frame are retracted (and dropped). */
static int sl__emit_group(sl__over *o, sl__oentry *en, sl__orow *x, int n, const sl_emit *out,
                          sl_error *err)
{
    if (!en->acc)
        en->acc = sl_calloc(1, sl_accs_size(o->accs));
    int rc = 0;
    if (o->preceding < 0) { /* UNBOUNDED: nothing leaves */
        for (int i = 0; i < n && rc == 0; i++) {
            rc = sl__feed(o, en->acc, &x[i], 1, err);
            if (rc == 0 && !o->range)
                rc = sl__out_row(o, &x[i], en->acc, out, err);
        }
        for (int i = 0; rc == 0 && o->range && i < n; i++)
            rc = sl__out_row(o, &x[i], en->acc, out, err);
        for (int i = 0; i < n; i++)
            sl_free(x[i].bytes);
        return rc;
    }
    if (!o->range) { /* ROWS n: the frame is the last n + 1 rows */
        if (en->frame.n > o->preceding) {
            rc = sl__feed(o, en->acc, &en->frame.v[0], -1, err);
            sl__rows_drop(&en->frame, 1);
        }
        sl__rows_push(&en->frame, x[0]); /* the frame owns it now */
        if (rc == 0)
            rc = sl__feed(o, en->acc, &x[0], 1, err);
        return rc ? rc : sl__out_row(o, &x[0], en->acc, out, err);
    }
    /* RANGE p: the rows with time in [t - p, t] */
    int64_t lo = x[0].time - o->preceding;
    int from = 0;
    while (rc == 0 && from < en->frame.n && en->frame.v[from].time < lo)
        rc = sl__feed(o, en->acc, &en->frame.v[from++], -1, err);
    sl__rows_drop(&en->frame, from);
    for (int i = 0; i < n; i++) {
        sl__rows_push(&en->frame, x[i]);
        if (rc == 0)
            rc = sl__feed(o, en->acc, &x[i], 1, err);
    }
    for (int i = en->frame.n - n; rc == 0 && i < en->frame.n; i++)
        rc = sl__out_row(o, &en->frame.v[i], en->acc, out, err);
    return rc;
}

static int sl__over_watermark(sl_operator *op, int64_t wm, const sl_emit *out, sl_error *err)
{
    sl__over *o = op->impl;
    if (wm <= o->wm)
        return 0;
    o->wm = wm;
    if (o->npend == 0)
        return 0;
    /* Every ready row, by time then arrival, across keys. */
    sl__ready *rd = NULL;
    size_t nrd = 0, caprd = 0;
    for (int k = 0; k < o->npk; k++) {
        int e = o->pk[k];
        sl__oentry *en = &o->ents[e];
        for (int i = 0; i < en->pend.n; i++) {
            if (en->pend.v[i].time > wm)
                continue;
            if (nrd == caprd) {
                caprd = caprd ? caprd * 2 : 64;
                rd = sl_realloc(rd, caprd * sizeof *rd);
            }
            rd[nrd++] = (sl__ready){en->pend.v[i].time, en->pend.v[i].seq, e};
        }
    }
    if (nrd == 0) /* nothing at or before the watermark yet */
        return 0;
    qsort(rd, nrd, sizeof *rd, sl__cmp_ready);
    /* Each key's waiting rows in time order. */
    for (int k = 0; k < o->npk; k++) {
        sl__oentry *en = &o->ents[o->pk[k]];
        if (en->pend.n > 1)
            qsort(en->pend.v, (size_t)en->pend.n, sizeof(sl__orow), sl__cmp_row);
    }
    int rc = 0;
    for (size_t i = 0; i < nrd && rc == 0; i++) {
        if (sl_op_cancelled(op)) {
            rc = sl_op_cancel_error(err);
            break;
        }
        sl__oentry *en = &o->ents[rd[i].entry];
        /* pend is sorted, its head is the key's next row; a row already
        ** emitted with the rows of its time (RANGE) is no longer there */
        if (en->pend.n == 0 || en->pend.v[0].seq != rd[i].seq)
            continue;
        int n = 1;
        if (o->range)
            while (n < en->pend.n && en->pend.v[n].time == en->pend.v[0].time)
                n++;
        sl__orow *x = sl_malloc((size_t)n * sizeof(sl__orow));
        memcpy(x, en->pend.v, (size_t)n * sizeof(sl__orow));
        memmove(en->pend.v, en->pend.v + n, (size_t)(en->pend.n - n) * sizeof(sl__orow));
        en->pend.n -= n;
        o->npend -= n;
        rc = sl__emit_group(o, en, x, n, out, err);
        sl_free(x);
    }
    sl_free(rd);
    int w = 0;
    for (int k = 0; k < o->npk; k++)
        if (o->ents[o->pk[k]].pend.n > 0)
            o->pk[w++] = o->pk[k];
    o->npk = w;
    if (rc == 0 && o->out->nrows > 0)
        rc = out->fn(out->ctx, o->out, err);
    sl_chunk_reset(o->out);
    return rc;
}

static int64_t sl__over_late_rows(sl_operator *op)
{
    return ((sl__over *)op->impl)->late;
}

/* ---- snapshot / restore ------------------------------------------------- */

static void sl__put_shape(const sl__over *o, sl_strbuf *sb)
{
    sl__put(sb, (uint64_t)o->in_ncols, 4);
    for (int c = 0; c < o->in_ncols; c++)
        sl__put(sb, (uint64_t)o->types[c].id, 1);
    sl__put(sb, (uint64_t)o->nkeys, 4);
    for (int k = 0; k < o->nkeys; k++)
        sl__put(sb, (uint64_t)o->keys[k], 4);
    sl__put(sb, (uint64_t)o->time_col, 4);
    sl__put(sb, o->range, 1);
    sl__put(sb, (uint64_t)o->preceding, 8);
    sl__put(sb, (uint64_t)o->naggs, 4);
    for (int c = 0; c < o->naggs; c++) {
        sl__put(sb, (uint64_t)o->calls[c].fn, 2);
        sl__put(sb, (uint64_t)(int64_t)o->calls[c].arg, 4);
    }
}

static void sl__put_rows(sl_strbuf *sb, const sl__orows *rs)
{
    sl__put(sb, (uint64_t)rs->n, 4);
    for (int i = 0; i < rs->n; i++) {
        sl__put(sb, (uint64_t)rs->v[i].time, 8);
        sl__put(sb, rs->v[i].seq, 8);
        sl__put(sb, rs->v[i].len, 4);
        sl_strbuf_append_n(sb, rs->v[i].bytes, rs->v[i].len);
    }
}

static int sl__over_snapshot(sl_operator *op, sl_strbuf *state, sl_error *err)
{
    (void)err;
    sl__over *o = op->impl;
    size_t start = state->len;
    sl_strbuf_append_n(state, SL__OV_MAGIC, 4);
    sl__put(state, SL__OV_VERSION, 4);
    sl__put_shape(o, state);
    sl__put(state, (uint64_t)o->wm, 8);
    sl__put(state, (uint64_t)o->late, 8);
    sl__put(state, o->next_seq, 8);
    sl__put(state, (uint64_t)o->nents, 4);
    for (int e = 0; e < o->nents; e++) {
        const sl__oentry *en = &o->ents[e];
        sl__put(state, en->klen, 4);
        sl_strbuf_append_n(state, en->key, en->klen);
        sl__put(state, en->hash, 8);
        sl__put(state, (uint64_t)en->written, 8);
        sl__put_rows(state, &en->pend);
        sl__put_rows(state, &en->frame);
        sl__put(state, en->acc != NULL, 1);
        if (en->acc)
            sl_accs_put(o->accs, en->acc, state);
    }
    sl__put(state, sl__hash_bytes(state->buf + start, state->len - start), 8);
    return 0;
}

/* Rows as sl__put_rows wrote them; each must decode (checked into o->row). */
static bool sl__get_rows(sl__over *o, sl__cur *c, sl__orows *rs)
{
    uint32_t n = (uint32_t)sl__get(c, 4);
    if (c->bad || n > (c->n - c->off) / 20)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        int64_t t = (int64_t)sl__get(c, 8);
        uint64_t seq = sl__get(c, 8);
        uint32_t len = (uint32_t)sl__get(c, 4);
        if (c->bad || len > c->n - c->off || seq >= o->next_seq)
            return false;
        sl_bytes_reader rc = {c->p + c->off, len, 0};
        sl_chunk_reset(o->row);
        sl_chunk_append_row(o->row, SL_ROW_INSERT);
        if (!sl_row_get_cols(&rc, o->row, 0, o->in_ncols, 0) || rc.off != len)
            return false;
        sl__orow r = {t, seq, sl_malloc(len ? len : 1), len};
        memcpy(r.bytes, c->p + c->off, len);
        c->off += len;
        sl__rows_push(rs, r);
    }
    return true;
}

static int sl__over_restore(sl_operator *op, const char *state, size_t len, sl_error *err)
{
    sl__over *o = op->impl;
    sl_strbuf shape = SL_STRBUF_INIT;
    sl__put_shape(o, &shape);
    bool ok = len >= 16 + shape.len && memcmp(state, SL__OV_MAGIC, 4) == 0;
    sl__cur c = {(const uint8_t *)state, len - 8, 4, false};
    if (ok) {
        uint64_t sum = 0;
        for (int i = 0; i < 8; i++)
            sum |= (uint64_t)(uint8_t)state[len - 8 + (size_t)i] << (8 * i);
        ok = sum == sl__hash_bytes(state, len - 8) && sl__get(&c, 4) == SL__OV_VERSION &&
             memcmp(state + c.off, shape.buf, shape.len) == 0;
        c.off += shape.len;
    }
    sl_strbuf_free(&shape);
    if (!ok)
        return sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                            "OVER aggregation state is damaged or of another query");
    o->wm = (int64_t)sl__get(&c, 8);
    o->late = (int64_t)sl__get(&c, 8);
    o->next_seq = sl__get(&c, 8);
    uint32_t n = (uint32_t)sl__get(&c, 4);
    ok = !c.bad && n <= (c.n - c.off) / 29;
    for (uint32_t i = 0; ok && i < n; i++) {
        uint32_t klen = (uint32_t)sl__get(&c, 4);
        if (c.bad || klen > c.n - c.off) {
            ok = false;
            break;
        }
        sl_strbuf_reset(&o->kbuf);
        sl_strbuf_append_n(&o->kbuf, (const char *)c.p + c.off, klen);
        c.off += klen;
        uint64_t h = sl__get(&c, 8);
        if (c.bad || sl__lookup(o, h) >= 0) {
            ok = false;
            break;
        }
        int e = sl__add_entry(o, h);
        sl__oentry *en = &o->ents[e];
        en->written = (int64_t)sl__get(&c, 8);
        ok = sl__get_rows(o, &c, &en->pend) && sl__get_rows(o, &c, &en->frame);
        o->npend += en->pend.n;
        if (en->pend.n > 0)
            sl__pk_add(o, e);
        uint64_t has_acc = sl__get(&c, 1);
        if (!ok || c.bad || has_acc > 1) {
            ok = false;
            break;
        }
        if (has_acc) {
            en->acc = sl_calloc(1, sl_accs_size(o->accs));
            ok = sl_accs_get(o->accs, en->acc, state, c.n, &c.off);
        }
    }
    ok = ok && !c.bad && c.off == c.n;
    if (!ok) {
        for (int e = 0; e < o->nents; e++)
            sl__entry_free(o, &o->ents[e]);
        o->nents = 0;
        o->npend = 0;
        o->npk = 0;
        sl__rehash(o);
        return sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "OVER aggregation state is damaged");
    }
    return 0;
}

static void sl__over_free(sl_operator *op)
{
    if (!op)
        return;
    sl__over *o = op->impl;
    if (o) {
        for (int e = 0; e < o->nents; e++)
            sl__entry_free(o, &o->ents[e]);
        sl_free(o->ents);
        sl_free(o->pk);
        sl_free(o->tab);
        sl_accs_free(o->accs);
        sl_strbuf_free(&o->kbuf);
        sl_strbuf_free(&o->rbuf);
        sl_chunk_free(o->row);
        sl_chunk_free(o->out);
        sl_free(o->types);
        sl_free(o->keys);
        sl_free(o->calls);
        sl_free(o);
    }
    sl_free(op);
}

static const sl_operator_ops sl__over_ops = {
    sl__over_process, sl__over_watermark, sl__over_snapshot,
    sl__over_restore, sl__over_late_rows, sl__over_free,
    NULL, /* conflicts */
    NULL, /* backend: hashmap */
};

int sl_over_new(const sl_over_spec *spec, sl_operator **out, sl_error *err)
{
    *out = NULL;
    if (spec->in_ncols <= 0 || spec->nkeys < 0 || spec->naggs <= 0 || spec->time_col < 0 ||
        spec->time_col >= spec->in_ncols || sl_phys_of(spec->in_types[spec->time_col]) != SL_PHYS_I64)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "invalid OVER aggregation spec");
    sl_operator *op = sl_calloc(1, sizeof *op);
    sl__over *o = sl_calloc(1, sizeof *o);
    op->ops = &sl__over_ops;
    op->impl = o;
    o->in_ncols = spec->in_ncols;
    o->types = sl_malloc((size_t)(spec->in_ncols + spec->naggs) * sizeof(sl_type));
    memcpy(o->types, spec->in_types, (size_t)spec->in_ncols * sizeof(sl_type));
    o->nkeys = spec->nkeys;
    o->keys = sl_malloc((size_t)(spec->nkeys + 1) * sizeof(int));
    for (int k = 0; k < spec->nkeys; k++) {
        if (spec->keys[k] < 0 || spec->keys[k] >= spec->in_ncols) {
            sl_error_set(err, SL_ERR_INTERNAL, -1, "partition key column %d out of range", spec->keys[k]);
            goto fail;
        }
        o->keys[k] = spec->keys[k];
    }
    o->time_col = spec->time_col;
    o->in_names = spec->in_names;
    o->range = spec->range;
    o->preceding = spec->preceding < 0 ? -1 : spec->preceding;
    if (!o->range && o->preceding > INT32_MAX) {
        sl_error_set(err, SL_ERR_INTERNAL, -1, "OVER ROWS frame too large");
        goto fail;
    }
    o->naggs = spec->naggs;
    o->calls = sl_malloc((size_t)spec->naggs * sizeof(sl_agg_call));
    memcpy(o->calls, spec->aggs, (size_t)spec->naggs * sizeof(sl_agg_call));
    for (int c = 0; c < spec->naggs; c++)
        o->types[spec->in_ncols + c] = spec->aggs[c].type;
    /* bounded frames retract the rows that leave them */
    if (sl_accs_new(spec->in_ncols, spec->in_types, spec->naggs, spec->aggs, o->preceding >= 0,
                    &o->accs, err))
        goto fail;
    o->ttl_ns = spec->ttl_ms > 0 ? spec->ttl_ms * 1000000 : 0;
    o->now = spec->now ? spec->now : sl__real_now;
    o->now_ctx = spec->now_ctx;
    o->wm = INT64_MIN;
    o->row = sl_chunk_new(o->in_ncols, o->types, 1);
    o->out = sl_chunk_new(o->in_ncols + o->naggs, o->types, SL_CHUNK_ROWS);
    sl__rehash(o);
    op->out_ncols = o->in_ncols + o->naggs;
    op->out_types = o->types;
    *out = op;
    return 0;
fail:
    sl__over_free(op);
    return -1;
}
