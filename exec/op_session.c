/*
** op_session.c — session window aggregation (see sl_exec.h,
** sl_session_agg_spec): Flink's window aggregation over the SESSION window
** TVF (and over GROUP BY SESSION(ts, gap)).
**
** Input rows come from the SESSION TVF step with each row's own window
** [t, t + gap) in the window_start / window_end key columns. The other
** group keys partition the sessions: per partition key, the open sessions
** are kept sorted by start and pairwise disjoint. A row's window merges
** with every open session it intersects or touches (s.start <= end &&
** s.end >= start, Flink's TimeWindow.intersects, so a row exactly gap after
** the last one still extends the session) into one session with the union
** of their bounds and rows; a row that meets no open session and whose
** window ends at or before the watermark is late (dropped, counted), as the
** window aggregation drops rows of an ended window.
**
** Because a session's rows cannot be assigned to their final window until
** it closes, the session buffers its rows (encoded, rowcodec.c); this keeps
** every aggregate exact, DISTINCT and LISTAGG included, at the cost of
** memory per row rather than per group. When the watermark reaches a
** session's end (end <= wm), its rows are replayed with window_start,
** window_end (and window_time, when grouped) set to the session's bounds
** into an inner window aggregation (op_agg.c's sl_window_agg_new — one set
** of accumulators for every window kind), whose watermark then emits one
** +I per group: ordered by session end, then the session's creation order.
** Fired sessions are forgotten; a partition key without open sessions is
** dropped when such keys outnumber the live ones.
**
** Snapshot (little-endian): "SLSESS01", u32 ncols, u8 phys[ncols], i64
** watermark, i64 late, u64 next sequence, u64 keys, then per key with open
** sessions in first-seen order: u32 key length, key bytes, u32 sessions,
** each i64 start, i64 end, u64 seq, u32 rows, u64 length, row bytes; then
** u64 length + the inner aggregation's snapshot, and sl_checksum of all
** before. Restore checks lengths, order and the checksum (XX001).
**
** Without an aggregation (sl_session_tvf_new, Flink's SESSION window TVF
** on its own) the same operator runs the TVF step itself (op_window.c) and
** buffers its rows; when a session closes its rows are emitted as they
** are, in arrival order, with the session's window_start / window_end /
** window_time, and the inner aggregation's snapshot is empty.
**
** Main routines: sl_session_agg_new, sl_session_tvf_new and their process /
** watermark / snapshot / restore callbacks.
*/
#include "sl_exec.h"

#include <stdlib.h>
#include <string.h>

#define SL__SESS_MAGIC "SLSESS01"

typedef struct sl__sess {
    int64_t start, end; /* [start, end), ns */
    uint64_t seq;       /* creation order (ties of end fire in this order) */
    uint32_t nrows;     /* rows buffered */
    sl_strbuf rows;     /* the rows, encoded one after another */
} sl__sess;

typedef struct sl__skey {
    uint64_t hash;      /* sl_checksum of the encoded key */
    char *key;          /* encoded partition key (owned) */
    uint32_t klen;      /* its length */
    sl__sess *s;        /* open sessions, by start, disjoint */
    int n, cap;         /* used / allocated */
} sl__skey;

typedef struct sl__session {
    int in_ncols;        /* input columns */
    sl_type *in_types;   /* their types (owned) */
    int npk;             /* partition key columns */
    int *pk;             /* their input columns */
    int start_col, end_col, time_col; /* input columns of window_start / _end / _time (-1) */
    sl_operator *inner;  /* the window aggregation the sessions are replayed into */
    sl_operator *tvf;    /* or (no aggregation): the TVF step whose rows are buffered */
    sl__skey *keys;      /* partition keys in first-seen order */
    int nkeys, capkeys;  /* used / allocated */
    int nempty;          /* keys without open sessions */
    int32_t *tab;        /* hash table: key index or -1 */
    size_t tabcap;       /* slots (power of two) */
    uint64_t next_seq;   /* next session sequence number */
    int64_t wm;          /* watermark */
    int64_t min_end;     /* no open session ends before this */
    int64_t late;        /* late rows dropped */
    sl_strbuf kbuf;      /* scratch: an encoded key */
    sl_chunk *keyrow;    /* scratch: one row of the key columns */
    sl_chunk *replay;    /* rows replayed into the inner aggregation */
    sl_operator *op;     /* the aggregation's operator (its side output), or NULL */
    const char *const *in_names; /* input column names (late rows), or NULL */
} sl__session;

static void sl__sess_free_all(sl__session *s)
{
    for (int i = 0; i < s->nkeys; i++) {
        for (int j = 0; j < s->keys[i].n; j++)
            sl_strbuf_free(&s->keys[i].s[j].rows);
        sl_free(s->keys[i].s);
        sl_free(s->keys[i].key);
    }
    sl_free(s->keys);
    sl_free(s->tab);
    s->keys = NULL;
    s->tab = NULL;
    s->nkeys = s->capkeys = s->nempty = 0;
    s->tabcap = 0;
    s->min_end = INT64_MAX;
}

/* Rebuild the hash table over the keys (after growth or compaction). */
static void sl__rehash(sl__session *s)
{
    size_t cap = 16;
    while (cap < (size_t)s->nkeys * 2 + 2)
        cap *= 2;
    sl_free(s->tab);
    s->tab = sl_malloc(cap * sizeof(int32_t));
    memset(s->tab, 0xff, cap * sizeof(int32_t));
    s->tabcap = cap;
    for (int i = 0; i < s->nkeys; i++) {
        size_t j = s->keys[i].hash & (cap - 1);
        while (s->tab[j] >= 0)
            j = (j + 1) & (cap - 1);
        s->tab[j] = i;
    }
}

/* The key in s->kbuf (hash h): its index, created when absent. */
static int sl__key_find(sl__session *s, uint64_t h)
{
    const char *k = s->kbuf.buf ? s->kbuf.buf : "";
    size_t n = s->kbuf.len;
    if (s->tabcap) {
        for (size_t j = h & (s->tabcap - 1);; j = (j + 1) & (s->tabcap - 1)) {
            int32_t i = s->tab[j];
            if (i < 0)
                break;
            const sl__skey *e = &s->keys[i];
            if (e->hash == h && e->klen == n && (n == 0 || memcmp(e->key, k, n) == 0))
                return i;
        }
    }
    if (s->nkeys == s->capkeys) {
        s->capkeys = s->capkeys ? s->capkeys * 2 : 16;
        s->keys = sl_realloc(s->keys, (size_t)s->capkeys * sizeof(sl__skey));
    }
    sl__skey *e = &s->keys[s->nkeys++];
    memset(e, 0, sizeof *e);
    e->hash = h;
    e->klen = (uint32_t)n;
    e->key = sl_malloc(n ? n : 1);
    if (n)
        memcpy(e->key, k, n);
    s->nempty++; /* until its first session */
    if ((size_t)s->nkeys * 2 + 2 > s->tabcap) {
        sl__rehash(s);
    } else {
        size_t j = h & (s->tabcap - 1);
        while (s->tab[j] >= 0)
            j = (j + 1) & (s->tabcap - 1);
        s->tab[j] = s->nkeys - 1;
    }
    return s->nkeys - 1;
}

/* Drop the keys without open sessions (keeps first-seen order). */
static void sl__compact(sl__session *s)
{
    int k = 0;
    for (int i = 0; i < s->nkeys; i++) {
        if (s->keys[i].n == 0) {
            sl_free(s->keys[i].s);
            sl_free(s->keys[i].key);
        } else {
            s->keys[k++] = s->keys[i];
        }
    }
    s->nkeys = k;
    s->nempty = 0;
    sl__rehash(s);
}

/* Encode the partition key of row r of c into s->kbuf. */
static void sl__key_encode(sl__session *s, const sl_chunk *c, int r)
{
    sl_chunk_reset(s->keyrow);
    int d = sl_chunk_append_row(s->keyrow, SL_ROW_INSERT);
    for (int k = 0; k < s->npk; k++)
        sl_chunk_set_from(s->keyrow, k, d, c, s->pk[k], r);
    sl_strbuf_reset(&s->kbuf);
    sl_row_put(&s->kbuf, s->keyrow, d);
}

/* Add row r of in (its window [start, end)) to key e's sessions; false
** when it is late (dropped and counted). */
static bool sl__add(sl__session *s, sl__skey *e, const sl_chunk *in, int r, int64_t start,
                    int64_t end)
{
    /* sessions [i, j) intersect [start, end]: sorted and disjoint, they are adjacent */
    int i = 0;
    while (i < e->n && e->s[i].end < start)
        i++;
    int j = i;
    while (j < e->n && e->s[j].start <= end)
        j++;
    if (i == j) {
        if (end <= s->wm) {
            s->late++;
            return false;
        }
        if (e->n == e->cap) {
            e->cap = e->cap ? e->cap * 2 : 2;
            e->s = sl_realloc(e->s, (size_t)e->cap * sizeof(sl__sess));
        }
        memmove(&e->s[i + 1], &e->s[i], (size_t)(e->n - i) * sizeof(sl__sess));
        e->n++;
        if (e->n == 1)
            s->nempty--;
        sl__sess *n = &e->s[i];
        memset(n, 0, sizeof *n);
        n->start = start;
        n->end = end;
        n->seq = s->next_seq++;
        j = i + 1;
    } else {
        sl__sess *m = &e->s[i];
        for (int x = i + 1; x < j; x++) { /* merge the later ones into the first */
            sl__sess *o = &e->s[x];
            sl_strbuf_append_n(&m->rows, o->rows.buf ? o->rows.buf : "", o->rows.len);
            m->nrows += o->nrows;
            if (o->end > m->end)
                m->end = o->end;
            if (o->seq < m->seq)
                m->seq = o->seq;
            sl_strbuf_free(&o->rows);
        }
        if (j - i > 1) {
            memmove(&e->s[i + 1], &e->s[j], (size_t)(e->n - j) * sizeof(sl__sess));
            e->n -= j - i - 1;
        }
        if (start < m->start)
            m->start = start;
        if (end > m->end)
            m->end = end;
    }
    sl__sess *m = &e->s[i];
    sl_row_put(&m->rows, in, r);
    m->nrows++;
    if (m->end < s->min_end)
        s->min_end = m->end;
    return true;
}

/* Buffer the rows of in (each with its own window) into their sessions. */
static int sl__session_add_rows(sl__session *s, const sl_chunk *in, sl_error *err)
{
    SL_ALWAYS(in->ncols == s->in_ncols);
    const sl_vector *sv = &in->cols[s->start_col], *ev = &in->cols[s->end_col];
    for (int r = 0; r < in->nrows; r++) {
        if (in->kinds[r] != SL_ROW_INSERT)
            return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                "a session window aggregation needs an append-only input");
        if (sv->nulls[r] || ev->nulls[r])
            continue; /* the TVF gives every row a window */
        sl__key_encode(s, in, r);
        int k = sl__key_find(s, sl_checksum(s->kbuf.buf ? s->kbuf.buf : "", s->kbuf.len));
        if (!sl__add(s, &s->keys[k], in, r, sv->v.i64[r], ev->v.i64[r]) && s->op &&
            sl_late_row(s->op, s->in_names, in, r, sv->v.i64[r], s->wm, true, sv->v.i64[r],
                        ev->v.i64[r], err) != 0) /* its own window [t, t + gap) */
            return -1;
    }
    return 0;
}

static int sl__session_tvf_rows(void *ctx, sl_chunk *rows, sl_error *err)
{
    return sl__session_add_rows(ctx, rows, err);
}

static int sl__session_process(sl_operator *op, const sl_chunk *in, const sl_emit *out,
                               sl_error *err)
{
    (void)out;
    sl__session *s = op->impl;
    if (!s->tvf)
        return sl__session_add_rows(s, in, err);
    const sl_emit buffer = {sl__session_tvf_rows, s};
    return s->tvf->ops->process(s->tvf, in, &buffer, err);
}

typedef struct sl__fire {
    int64_t end;  /* session end */
    uint64_t seq; /* session sequence */
    int key;      /* its key */
    int idx;      /* its index there */
} sl__fire;

static int sl__fire_cmp(const void *a, const void *b)
{
    const sl__fire *x = a, *y = b;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Replay s->replay (when not empty) into the inner aggregation. */
static int sl__flush(sl_operator *op, const sl_emit *out, sl_error *err)
{
    sl__session *s = op->impl;
    if (!s->replay->nrows)
        return 0;
    if (sl_op_cancelled(op))
        return sl_op_cancel_error(err);
    int rc = s->inner ? s->inner->ops->process(s->inner, s->replay, out, err)
                      : out->fn(out->ctx, s->replay, err);
    sl_chunk_reset(s->replay);
    return rc;
}

static int sl__session_watermark(sl_operator *op, int64_t wm, const sl_emit *out, sl_error *err)
{
    sl__session *s = op->impl;
    if (s->inner)
        s->inner->cancel = op->cancel;
    if (wm > s->wm)
        s->wm = wm;
    if (s->min_end > s->wm)
        return 0;
    /* the sessions that end at or before the watermark, in firing order */
    sl__fire *f = NULL;
    size_t nf = 0, capf = 0;
    int64_t min_end = INT64_MAX;
    for (int k = 0; k < s->nkeys; k++) {
        sl__skey *e = &s->keys[k];
        for (int i = 0; i < e->n; i++) {
            if (e->s[i].end > s->wm) {
                if (e->s[i].end < min_end)
                    min_end = e->s[i].end;
                continue;
            }
            if (nf == capf) {
                capf = capf ? capf * 2 : 16;
                f = sl_realloc(f, capf * sizeof *f);
            }
            f[nf++] = (sl__fire){e->s[i].end, e->s[i].seq, k, i};
        }
    }
    s->min_end = min_end;
    if (nf)
        qsort(f, nf, sizeof *f, sl__fire_cmp);
    int rc = 0;
    for (size_t x = 0; x < nf && rc == 0; x++) {
        sl__sess *m = &s->keys[f[x].key].s[f[x].idx];
        sl_bytes_reader rd = {(const uint8_t *)m->rows.buf, m->rows.len, 0};
        for (uint32_t r = 0; r < m->nrows && rc == 0; r++) {
            if (sl_chunk_full(s->replay) && (rc = sl__flush(op, out, err)) != 0)
                break;
            int d = sl_chunk_append_row(s->replay, SL_ROW_INSERT);
            SL_ALWAYS(sl_row_get(&rd, s->replay, d));
            sl_chunk_set_i64(s->replay, s->start_col, d, m->start);
            sl_chunk_set_i64(s->replay, s->end_col, d, m->end);
            if (s->time_col >= 0)
                sl_chunk_set_i64(s->replay, s->time_col, d, m->end - SL_NANOS_PER_MILLI);
        }
    }
    if (rc == 0)
        rc = sl__flush(op, out, err);
    if (rc == 0 && s->inner)
        rc = s->inner->ops->watermark(s->inner, s->wm, out, err);
    /* forget the fired sessions (state stays consistent even after an error) */
    for (int k = 0; k < s->nkeys; k++) {
        sl__skey *e = &s->keys[k];
        int w = 0;
        for (int i = 0; i < e->n; i++) {
            if (e->s[i].end <= s->wm)
                sl_strbuf_free(&e->s[i].rows);
            else
                e->s[w++] = e->s[i];
        }
        if (e->n && !w)
            s->nempty++;
        e->n = w;
    }
    sl_free(f);
    if (s->nempty > 1024 && s->nempty * 2 > s->nkeys)
        sl__compact(s);
    return rc;
}

static void sl__put_shape(const sl__session *s, sl_strbuf *sb)
{
    sl_strbuf_append_n(sb, SL__SESS_MAGIC, 8);
    sl_put_u32(sb, (uint32_t)s->in_ncols);
    for (int c = 0; c < s->in_ncols; c++)
        sl_strbuf_append_char(sb, (char)sl_phys_of(s->in_types[c]));
}

static int sl__session_snapshot(sl_operator *op, sl_strbuf *state, sl_error *err)
{
    sl__session *s = op->impl;
    size_t base = state->len;
    sl__put_shape(s, state);
    sl_put_u64(state, (uint64_t)s->wm);
    sl_put_u64(state, (uint64_t)s->late);
    sl_put_u64(state, s->next_seq);
    uint64_t live = 0;
    for (int k = 0; k < s->nkeys; k++)
        live += s->keys[k].n > 0;
    sl_put_u64(state, live);
    for (int k = 0; k < s->nkeys; k++) {
        const sl__skey *e = &s->keys[k];
        if (!e->n)
            continue;
        sl_put_u32(state, e->klen);
        sl_strbuf_append_n(state, e->key, e->klen);
        sl_put_u32(state, (uint32_t)e->n);
        for (int i = 0; i < e->n; i++) {
            const sl__sess *m = &e->s[i];
            sl_put_u64(state, (uint64_t)m->start);
            sl_put_u64(state, (uint64_t)m->end);
            sl_put_u64(state, m->seq);
            sl_put_u32(state, m->nrows);
            sl_put_u64(state, m->rows.len);
            sl_strbuf_append_n(state, m->rows.buf ? m->rows.buf : "", m->rows.len);
        }
    }
    sl_strbuf inner = SL_STRBUF_INIT;
    if (s->inner && s->inner->ops->snapshot(s->inner, &inner, err) != 0) {
        sl_strbuf_free(&inner);
        return -1;
    }
    sl_put_u64(state, inner.len);
    sl_strbuf_append_n(state, inner.buf ? inner.buf : "", inner.len);
    sl_strbuf_free(&inner);
    sl_put_u64(state, sl_checksum(state->buf + base, state->len - base));
    return 0;
}

static int sl__corrupt(sl__session *s, sl_error *err)
{
    sl__sess_free_all(s);
    s->wm = INT64_MIN;
    s->late = 0;
    s->next_seq = 0;
    return sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                        "the state of a session window aggregation is corrupted");
}

static int sl__session_restore(sl_operator *op, const char *state, size_t len, sl_error *err)
{
    sl__session *s = op->impl;
    sl__sess_free_all(s);
    sl_strbuf shape = SL_STRBUF_INIT;
    sl__put_shape(s, &shape);
    bool ok = len >= shape.len + 8 && memcmp(state, shape.buf, shape.len) == 0;
    size_t slen = shape.len;
    sl_strbuf_free(&shape);
    if (!ok)
        return sl__corrupt(s, err);
    sl_bytes_reader tail = {(const uint8_t *)state, len, len - 8};
    uint64_t sum;
    if (!sl_get_u64(&tail, &sum) || sum != sl_checksum(state, len - 8))
        return sl__corrupt(s, err);
    sl_bytes_reader rd = {(const uint8_t *)state, len - 8, slen};
    uint64_t wm, late, seq, nk;
    if (!sl_get_u64(&rd, &wm) || !sl_get_u64(&rd, &late) || !sl_get_u64(&rd, &seq) ||
        !sl_get_u64(&rd, &nk) || nk > rd.n)
        return sl__corrupt(s, err);
    s->wm = (int64_t)wm;
    s->late = (int64_t)late;
    s->next_seq = seq;
    sl_chunk *probe = sl_chunk_new(s->in_ncols, s->in_types, 1);
    for (uint64_t k = 0; k < nk && ok; k++) {
        uint32_t klen, ns = 0;
        ok = sl_get_u32(&rd, &klen) && klen <= rd.n - rd.off;
        if (!ok)
            break;
        sl_strbuf_reset(&s->kbuf);
        sl_strbuf_append_n(&s->kbuf, (const char *)rd.p + rd.off, klen);
        rd.off += klen;
        sl_bytes_reader kr = {(const uint8_t *)s->kbuf.buf, klen, 0};
        sl_chunk_reset(s->keyrow);
        int d = sl_chunk_append_row(s->keyrow, SL_ROW_INSERT);
        ok = sl_row_get(&kr, s->keyrow, d) && kr.off == klen;
        if (!ok)
            break;
        int ki = sl__key_find(s, sl_checksum(s->kbuf.buf ? s->kbuf.buf : "", klen));
        sl__skey *e = &s->keys[ki];
        ok = e->n == 0 && sl_get_u32(&rd, &ns) && ns > 0 && ns <= rd.n;
        for (uint32_t i = 0; i < ns && ok; i++) {
            uint64_t st, en, sq, blen;
            uint32_t nrows;
            ok = sl_get_u64(&rd, &st) && sl_get_u64(&rd, &en) && sl_get_u64(&rd, &sq) &&
                 sl_get_u32(&rd, &nrows) && sl_get_u64(&rd, &blen) && blen <= rd.n - rd.off &&
                 (int64_t)st < (int64_t)en && sq < seq &&
                 (i == 0 || e->s[e->n - 1].end < (int64_t)st);
            if (!ok)
                break;
            /* every row must decode */
            sl_bytes_reader rr = {rd.p + rd.off, (size_t)blen, 0};
            for (uint32_t r = 0; r < nrows && ok; r++) {
                sl_chunk_reset(probe);
                ok = sl_row_get(&rr, probe, sl_chunk_append_row(probe, SL_ROW_INSERT));
            }
            ok = ok && rr.off == blen && nrows > 0;
            if (!ok)
                break;
            if (e->n == e->cap) {
                e->cap = e->cap ? e->cap * 2 : 2;
                e->s = sl_realloc(e->s, (size_t)e->cap * sizeof(sl__sess));
            }
            sl__sess *m = &e->s[e->n++];
            memset(m, 0, sizeof *m);
            m->start = (int64_t)st;
            m->end = (int64_t)en;
            m->seq = sq;
            m->nrows = nrows;
            sl_strbuf_append_n(&m->rows, (const char *)rd.p + rd.off, (size_t)blen);
            rd.off += (size_t)blen;
            if (m->end < s->min_end)
                s->min_end = m->end;
        }
        if (ok && e->n)
            s->nempty--;
    }
    sl_chunk_free(probe);
    uint64_t ilen = 0;
    ok = ok && sl_get_u64(&rd, &ilen) && ilen == rd.n - rd.off;
    if (!ok || (!s->inner && ilen))
        return sl__corrupt(s, err);
    if (!s->inner)
        return 0;
    return s->inner->ops->restore(s->inner, (const char *)rd.p + rd.off, (size_t)ilen, err);
}

static int64_t sl__session_late_rows(sl_operator *op)
{
    sl__session *s = op->impl;
    return s->late + (s->inner ? s->inner->ops->late_rows(s->inner) : 0);
}

static void sl__session_free(sl_operator *op)
{
    if (!op)
        return;
    sl__session *s = op->impl;
    if (s) {
        sl__sess_free_all(s);
        if (s->inner)
            s->inner->ops->free(s->inner);
        if (s->tvf)
            s->tvf->ops->free(s->tvf);
        sl_free(s->in_types);
        sl_free(s->pk);
        sl_strbuf_free(&s->kbuf);
        sl_chunk_free(s->keyrow);
        sl_chunk_free(s->replay);
        sl_free(s);
    }
    sl_free(op);
}

static const sl_operator_ops sl__session_ops = {
    sl__session_process,  sl__session_watermark,  sl__session_snapshot,
    sl__session_restore,  sl__session_late_rows,  sl__session_free,
    NULL, /* conflicts */
    NULL, /* backend: hashmap */
};

int sl_session_agg_new(const sl_session_agg_spec *spec, sl_operator **out, sl_error *err)
{
    *out = NULL;
    const sl_group_agg_spec *g = &spec->window.group;
    int sk = spec->window.window_start_key, ek = spec->window.window_end_key,
        tk = spec->window_time_key;
    if (sk < 0 || ek < 0 || sk >= g->nkeys || ek >= g->nkeys || tk >= g->nkeys)
        return sl_error_set(err, SL_ERR_INTERNAL, -1,
                            "a session window aggregation needs window_start and window_end keys");
    sl_operator *inner = NULL;
    sl_window_agg_spec ws = spec->window;
    ws.group.ttl_ms = 0; /* sessions live until they fire */
    if (sl_window_agg_new(&ws, &inner, err) != 0)
        return -1;
    sl__session *s = sl_calloc(1, sizeof *s);
    s->inner = inner;
    s->in_ncols = g->in_ncols;
    s->in_types = sl_calloc((size_t)g->in_ncols + 1, sizeof(sl_type));
    for (int c = 0; c < g->in_ncols; c++)
        s->in_types[c] = g->in_types[c];
    s->start_col = g->keys[sk];
    s->end_col = g->keys[ek];
    s->time_col = tk >= 0 ? g->keys[tk] : -1;
    s->pk = sl_calloc((size_t)g->nkeys + 1, sizeof(int));
    sl_type *kt = sl_calloc((size_t)g->nkeys + 1, sizeof(sl_type));
    for (int k = 0; k < g->nkeys; k++) {
        if (k == sk || k == ek || k == tk)
            continue;
        kt[s->npk] = g->in_types[g->keys[k]];
        s->pk[s->npk++] = g->keys[k];
    }
    s->keyrow = sl_chunk_new(s->npk, kt, 1);
    sl_free(kt);
    s->replay = sl_chunk_new(s->in_ncols, s->in_types, SL_CHUNK_ROWS);
    s->wm = INT64_MIN;
    s->min_end = INT64_MAX;
    sl_operator *op = sl_calloc(1, sizeof *op);
    op->ops = &sl__session_ops;
    op->impl = s;
    s->op = op;
    s->in_names = spec->window.in_names;
    op->out_ncols = inner->out_ncols;
    op->out_types = inner->out_types;
    *out = op;
    return 0;
}

int sl_session_tvf_new(const sl_session_tvf_spec *spec, sl_operator **out, sl_error *err)
{
    *out = NULL;
    if (spec->tvf.window_fn != SL_WIN_SESSION)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "a session window TVF needs SESSION");
    sl_operator *tvf = NULL;
    if (sl_window_tvf_new(&spec->tvf, &tvf, err) != 0)
        return -1;
    sl__session *s = sl_calloc(1, sizeof *s);
    s->tvf = tvf;
    s->in_ncols = tvf->out_ncols; /* the rows buffered: the TVF's */
    s->in_types = sl_calloc((size_t)s->in_ncols + 1, sizeof(sl_type));
    for (int c = 0; c < s->in_ncols; c++)
        s->in_types[c] = tvf->out_types[c];
    s->start_col = spec->tvf.in_ncols;
    s->end_col = spec->tvf.in_ncols + 1;
    s->time_col = spec->tvf.in_ncols + 2;
    s->pk = sl_calloc((size_t)spec->nkeys + 1, sizeof(int));
    sl_type *kt = sl_calloc((size_t)spec->nkeys + 1, sizeof(sl_type));
    for (int k = 0; k < spec->nkeys; k++) {
        SL_ALWAYS(spec->keys[k] >= 0 && spec->keys[k] < spec->tvf.in_ncols);
        kt[s->npk] = spec->tvf.in_types[spec->keys[k]];
        s->pk[s->npk++] = spec->keys[k];
    }
    s->keyrow = sl_chunk_new(s->npk, kt, 1);
    sl_free(kt);
    s->replay = sl_chunk_new(s->in_ncols, s->in_types, SL_CHUNK_ROWS);
    s->wm = INT64_MIN;
    s->min_end = INT64_MAX;
    sl_operator *op = sl_calloc(1, sizeof *op);
    op->ops = &sl__session_ops;
    op->impl = s;
    op->out_ncols = s->in_ncols;
    op->out_types = s->in_types;
    *out = op;
    return 0;
}
