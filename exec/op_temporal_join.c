/*
** op_temporal_join.c — the event-time temporal join (see sl_exec.h,
** sl_join_spec with `temporal`): Flink's TemporalRowTimeJoinOperator. It
** reads the same tagged stream as the streaming join (column 0 the side,
** then the keys, the left columns, the right columns).
**
**   right rows   versions of their key, valid from their time (the right
**                time column): +I / +U a version, -D the key deleted from
**                that time on, -U nothing (its +U follows);
**   left rows    (append-only) wait until the watermark reaches their time,
**                then join the version of their key valid at that time —
**                the latest one with time <= the left row's, unless it is a
**                deletion; cond checks the pair; INNER emits the matches,
**                LEFT also the left row padded with NULLs otherwise. Output
**                is append-only (+I), left columns then right columns, in
**                order of the left rows' times (then arrival).
**
** A left row behind the watermark when it arrives is joined at the next
** watermark with the versions still kept, as Flink does. A key's versions
** older than its newest one at or before the watermark can no longer be
** chosen and are dropped whenever the key gets a version or a left row of
** it is joined. Rows whose time is NULL are dropped (counted as late).
**
** State: a key table (open addressing over sl_chunk_hash_keys of the key
** columns; identity = the key's encoded bytes) of version lists sorted by
** time (equal times in arrival order), and the waiting left rows; rows are
** kept encoded (rowcodec.c). Snapshots are deterministic: keys in order of
** their bytes, the waiting rows in order of (time, arrival).
**
** Main routine: sl_temporal_join_new.
*/
#include "sl_exec.h"

#include <stdlib.h>
#include <string.h>

typedef struct sl__tj_ver {
    int64_t time;   /* valid from */
    bool deleted;   /* a deletion */
    char *row;      /* the input row, encoded (NULL for a deletion) */
    uint32_t len;   /* its length */
} sl__tj_ver;

typedef struct sl__tj_key {
    uint64_t hash;   /* of the key columns */
    char *kb;        /* the key, encoded */
    uint32_t kn;     /* its length */
    sl__tj_ver *v;   /* versions by time */
    int nv, cap;
} sl__tj_key;

typedef struct sl__tj_left {
    int64_t time;  /* the left row's time */
    uint64_t seq;  /* arrival */
    int key;       /* its key, -1 for a NULL key */
    char *row;     /* the input row, encoded */
    uint32_t len;
} sl__tj_left;

typedef struct sl__tj {
    sl_join_spec spec;
    int width;             /* input columns */
    sl_type *types;        /* copy of the input types */
    sl_type *out_types;    /* left ++ right */
    int *keycols;          /* 1 .. nkeys */
    sl__tj_key *keys;      /* the key table's entries */
    int nk, cap_k;
    int *slots;            /* open addressing: entry + 1, 0 = empty */
    size_t nslots;
    sl__tj_left *pend;     /* left rows waiting for the watermark */
    int np, cap_p;
    uint64_t seq;
    int64_t wm;            /* newest watermark */
    int64_t late;          /* rows dropped (NULL time) */
    sl_chunk *kc;          /* one-row chunk of the key columns (a restored key's hash) */
    sl_type *ktypes;
    sl_chunk *scratch;     /* two decoded input rows: 0 left, 1 right */
    sl_chunk *cand;        /* joined candidates, for cond */
    uint8_t *sel;          /* cond's result per candidate */
    sl_eval_prog *cond;    /* or NULL */
    sl_chunk *out;         /* rows to emit */
    uint64_t *hashes;      /* per input row */
    int hcap;
    sl_strbuf buf;         /* encoding scratch */
} sl__tj;

static int sl__lcol(const sl__tj *j)
{
    return 1 + j->spec.nkeys;
}

static int sl__rcol(const sl__tj *j)
{
    return 1 + j->spec.nkeys + j->spec.nl;
}

/* The key table: entry of (hash, bytes), added when missing. */
static void sl__slots_put(int *slots, size_t n, uint64_t h, int e)
{
    size_t i = (size_t)h & (n - 1);
    while (slots[i])
        i = (i + 1) & (n - 1);
    slots[i] = e + 1;
}

static int sl__key_find(sl__tj *j, uint64_t h, const char *kb, uint32_t kn, bool add)
{
    if (j->nslots) {
        for (size_t i = (size_t)h & (j->nslots - 1); j->slots[i]; i = (i + 1) & (j->nslots - 1)) {
            sl__tj_key *k = &j->keys[j->slots[i] - 1];
            if (k->hash == h && k->kn == kn && memcmp(k->kb, kb, kn) == 0)
                return j->slots[i] - 1;
        }
    }
    if (!add)
        return -1;
    if ((size_t)(j->nk + 1) * 2 > j->nslots) {
        size_t n = j->nslots ? j->nslots * 2 : 64;
        int *s = sl_calloc(n, sizeof(int));
        for (int e = 0; e < j->nk; e++)
            sl__slots_put(s, n, j->keys[e].hash, e);
        sl_free(j->slots);
        j->slots = s;
        j->nslots = n;
    }
    if (j->nk == j->cap_k) {
        j->cap_k = j->cap_k ? j->cap_k * 2 : 64;
        j->keys = sl_realloc(j->keys, (size_t)j->cap_k * sizeof *j->keys);
    }
    sl__tj_key *k = &j->keys[j->nk];
    memset(k, 0, sizeof *k);
    k->hash = h;
    k->kb = sl_malloc(kn ? kn : 1);
    memcpy(k->kb, kb, kn);
    k->kn = kn;
    sl__slots_put(j->slots, j->nslots, h, j->nk);
    return j->nk++;
}

/* The encoded key of row r of in (into j->buf); false when a key is NULL. */
static bool sl__key_bytes(sl__tj *j, const sl_chunk *in, int r)
{
    for (int k = 0; k < j->spec.nkeys; k++)
        if (in->cols[1 + k].nulls[r])
            return false;
    sl_strbuf_reset(&j->buf);
    sl_row_put_cols(&j->buf, in, 1, j->spec.nkeys, r);
    return true;
}

static char *sl__row_bytes(sl__tj *j, const sl_chunk *in, int r, uint32_t *len)
{
    sl_strbuf_reset(&j->buf);
    sl_row_put(&j->buf, in, r);
    char *p = sl_malloc(j->buf.len ? j->buf.len : 1);
    memcpy(p, sl_strbuf_cstr(&j->buf), j->buf.len);
    *len = (uint32_t)j->buf.len;
    return p;
}

static void sl__ver_free(sl__tj_ver *v)
{
    sl_free(v->row);
}

/* Drop the versions of k older than its newest one at or before wm. */
static void sl__compact(sl__tj *j, sl__tj_key *k)
{
    int keep = -1;
    for (int i = 0; i < k->nv && k->v[i].time <= j->wm; i++)
        keep = i;
    if (keep <= 0)
        return;
    for (int i = 0; i < keep; i++)
        sl__ver_free(&k->v[i]);
    memmove(k->v, k->v + keep, (size_t)(k->nv - keep) * sizeof *k->v);
    k->nv -= keep;
}

static void sl__add_version(sl__tj *j, sl__tj_key *k, int64_t t, bool deleted, char *row,
                            uint32_t len)
{
    if (k->nv == k->cap) {
        k->cap = k->cap ? k->cap * 2 : 4;
        k->v = sl_realloc(k->v, (size_t)k->cap * sizeof *k->v);
    }
    int at = k->nv; /* after every version at or before t (arrival order) */
    while (at > 0 && k->v[at - 1].time > t)
        at--;
    memmove(k->v + at + 1, k->v + at, (size_t)(k->nv - at) * sizeof *k->v);
    k->v[at] = (sl__tj_ver){t, deleted, row, len};
    k->nv++;
    sl__compact(j, k);
}

static int sl__flush(sl__tj *j, const sl_emit *out, sl_error *err)
{
    if (j->out->nrows == 0)
        return 0;
    int rc = out->fn(out->ctx, j->out, err);
    sl_chunk_reset(j->out);
    return rc;
}

/* Left row (scratch row 0) padded with NULLs into the output. */
static int sl__emit_padded(sl__tj *j, const sl_emit *out, sl_error *err)
{
    int w = sl_chunk_append_row(j->out, SL_ROW_INSERT);
    for (int c = 0; c < j->spec.nl; c++)
        sl_chunk_set_from(j->out, c, w, j->scratch, sl__lcol(j) + c, 0);
    return sl_chunk_full(j->out) ? sl__flush(j, out, err) : 0;
}

/* The candidates so far: cond, then the matches (and LEFT's padded rows). */
static int sl__run_candidates(sl__tj *j, const sl_emit *out, sl_error *err)
{
    sl_chunk *c = j->cand;
    if (c->nrows == 0)
        return 0;
    if (j->cond) {
        sl_eval_env env = {0};
        env.tz = j->spec.tz;
        if (sl_eval_filter(j->cond, c, &env, j->sel, err) < 0)
            return -1;
    } else {
        memset(j->sel, 1, (size_t)c->nrows);
    }
    int nout = j->spec.nl + j->spec.nr;
    for (int r = 0; r < c->nrows; r++) {
        if (!j->sel[r] && j->spec.type != SL_JOIN_LEFT)
            continue;
        int w = sl_chunk_append_row(j->out, SL_ROW_INSERT);
        int upto = j->sel[r] ? nout : j->spec.nl;
        for (int col = 0; col < upto; col++)
            sl_chunk_set_from(j->out, col, w, c, col, r);
        if (sl_chunk_full(j->out) && sl__flush(j, out, err) != 0)
            return -1;
    }
    sl_chunk_reset(c);
    return 0;
}

static int sl__cmp_left(const void *a, const void *b)
{
    const sl__tj_left *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int sl__decode(sl__tj *j, const char *p, uint32_t len, int r, sl_error *err)
{
    sl_bytes_reader rd = {(const uint8_t *)p, len, 0};
    if (!sl_row_get(&rd, j->scratch, r))
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "temporal join: a kept row is damaged");
    return 0;
}

/* Join the waiting left rows whose time the watermark reached. */
static int sl__fire(sl__tj *j, const sl_emit *out, sl_error *err)
{
    if (j->np == 0)
        return 0;
    qsort(j->pend, (size_t)j->np, sizeof *j->pend, sl__cmp_left);
    int done = 0;
    for (; done < j->np && j->pend[done].time <= j->wm; done++) {
        sl__tj_left *l = &j->pend[done];
        sl_chunk_reset(j->scratch);
        sl_chunk_append_row(j->scratch, SL_ROW_INSERT);
        sl_chunk_append_row(j->scratch, SL_ROW_INSERT);
        if (sl__decode(j, l->row, l->len, 0, err) != 0)
            return -1;
        const sl__tj_ver *v = NULL;
        if (l->key >= 0) {
            sl__tj_key *k = &j->keys[l->key];
            for (int i = 0; i < k->nv && k->v[i].time <= l->time; i++)
                v = &k->v[i];
            if (v && v->deleted)
                v = NULL;
            if (v && sl__decode(j, v->row, v->len, 1, err) != 0)
                return -1;
        }
        if (!v) { /* after the candidates before it: output in time order */
            if (j->spec.type == SL_JOIN_LEFT &&
                (sl__run_candidates(j, out, err) != 0 || sl__emit_padded(j, out, err) != 0))
                return -1;
        } else {
            sl_chunk *c = j->cand;
            int w = sl_chunk_append_row(c, SL_ROW_INSERT);
            for (int col = 0; col < j->spec.nl; col++)
                sl_chunk_set_from(c, col, w, j->scratch, sl__lcol(j) + col, 0);
            for (int col = 0; col < j->spec.nr; col++)
                sl_chunk_set_from(c, j->spec.nl + col, w, j->scratch, sl__rcol(j) + col, 1);
            if (sl_chunk_full(c) && sl__run_candidates(j, out, err) != 0)
                return -1;
        }
        if ((done & 1023) == 1023 && j->out && sl__flush(j, out, err) != 0)
            return -1;
    }
    if (sl__run_candidates(j, out, err) != 0 || sl__flush(j, out, err) != 0)
        return -1;
    for (int i = 0; i < done; i++) {
        if (j->pend[i].key >= 0)
            sl__compact(j, &j->keys[j->pend[i].key]);
        sl_free(j->pend[i].row);
    }
    memmove(j->pend, j->pend + done, (size_t)(j->np - done) * sizeof *j->pend);
    j->np -= done;
    return 0;
}

static int sl__tj_process(sl_operator *op, const sl_chunk *in, const sl_emit *out,
                          sl_error *err)
{
    sl__tj *j = op->impl;
    if (in->nrows > j->hcap) {
        j->hcap = in->nrows;
        j->hashes = sl_realloc(j->hashes, (size_t)j->hcap * sizeof(uint64_t));
    }
    sl_chunk_hash_keys(in, j->spec.nkeys, j->keycols, j->hashes);
    int lt = sl__lcol(j) + j->spec.ltime, rt = sl__rcol(j) + j->spec.rtime;
    for (int r = 0; r < in->nrows; r++) {
        bool right = in->cols[0].v.i64[r] != 0;
        sl_row_kind kind = (sl_row_kind)in->kinds[r];
        int tc = right ? rt : lt;
        if (in->cols[tc].nulls[r]) {
            j->late++;
            continue;
        }
        int64_t t = in->cols[tc].v.i64[r];
        bool has_key = sl__key_bytes(j, in, r);
        if (right) {
            if (kind == SL_ROW_UPDATE_BEFORE || !has_key)
                continue;
            int e = sl__key_find(j, j->hashes[r], sl_strbuf_cstr(&j->buf), (uint32_t)j->buf.len,
                                 true);
            uint32_t len = 0;
            char *row = kind == SL_ROW_DELETE ? NULL : sl__row_bytes(j, in, r, &len);
            sl__add_version(j, &j->keys[e], t, kind == SL_ROW_DELETE, row, len);
            continue;
        }
        if (kind != SL_ROW_INSERT)
            return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                "a temporal join's left input must be append-only");
        int e = has_key ? sl__key_find(j, j->hashes[r], sl_strbuf_cstr(&j->buf),
                                       (uint32_t)j->buf.len, true)
                        : -1;
        if (j->np == j->cap_p) {
            j->cap_p = j->cap_p ? j->cap_p * 2 : 256;
            j->pend = sl_realloc(j->pend, (size_t)j->cap_p * sizeof *j->pend);
        }
        sl__tj_left *l = &j->pend[j->np++];
        l->time = t;
        l->seq = j->seq++;
        l->key = e;
        l->row = sl__row_bytes(j, in, r, &l->len);
    }
    return 0;
}

static int sl__tj_watermark(sl_operator *op, int64_t wm, const sl_emit *out, sl_error *err)
{
    sl__tj *j = op->impl;
    if (wm <= j->wm)
        return 0;
    j->wm = wm;
    return sl__fire(j, out, err);
}

static int64_t sl__tj_late(sl_operator *op)
{
    return ((sl__tj *)op->impl)->late;
}

/* ------------------------------------------------------------------------
** Snapshots: "SLTJOIN" 1, the watermark, the late count, the keys in order
** of their bytes (bytes, versions: time, deleted, row), the waiting rows in
** order of (time, arrival) (time, key's rank or -1, row).
*/
static const char sl__magic[8] = {'S', 'L', 'T', 'J', 'O', 'I', 'N', 1};

static int sl__cmp_keyidx(const void *a, const void *b, void *ctx)
{
    const sl__tj *j = ctx;
    const sl__tj_key *x = &j->keys[*(const int *)a];
    const sl__tj_key *y = &j->keys[*(const int *)b];
    uint32_t n = x->kn < y->kn ? x->kn : y->kn;
    int c = memcmp(x->kb, y->kb, n);
    return c ? c : (x->kn > y->kn) - (x->kn < y->kn);
}

static void sl__put_blob(sl_strbuf *sb, const char *p, uint32_t n)
{
    sl_put_u32(sb, n);
    sl_strbuf_append_n(sb, p, n);
}

static int sl__tj_snapshot(sl_operator *op, sl_strbuf *sb, sl_error *err)
{
    sl__tj *j = op->impl;
    int *order = sl_calloc((size_t)j->nk + 1, sizeof(int));
    int *rank = sl_calloc((size_t)j->nk + 1, sizeof(int));
    for (int i = 0; i < j->nk; i++)
        order[i] = i;
    qsort_r(order, (size_t)j->nk, sizeof(int), sl__cmp_keyidx, j);
    sl_strbuf_append_n(sb, sl__magic, sizeof sl__magic);
    sl_put_u64(sb, (uint64_t)j->wm);
    sl_put_u64(sb, (uint64_t)j->late);
    sl_put_u32(sb, (uint32_t)j->nk);
    for (int i = 0; i < j->nk; i++) {
        const sl__tj_key *k = &j->keys[order[i]];
        rank[order[i]] = i;
        sl__put_blob(sb, k->kb, k->kn);
        sl_put_u32(sb, (uint32_t)k->nv);
        for (int v = 0; v < k->nv; v++) {
            sl_put_u64(sb, (uint64_t)k->v[v].time);
            sl_strbuf_append_char(sb, k->v[v].deleted ? 1 : 0);
            sl__put_blob(sb, k->v[v].row ? k->v[v].row : "", k->v[v].len);
        }
    }
    qsort(j->pend, (size_t)j->np, sizeof *j->pend, sl__cmp_left);
    sl_put_u32(sb, (uint32_t)j->np);
    for (int i = 0; i < j->np; i++) {
        sl_put_u64(sb, (uint64_t)j->pend[i].time);
        sl_put_u32(sb, j->pend[i].key < 0 ? UINT32_MAX : (uint32_t)rank[j->pend[i].key]);
        sl__put_blob(sb, j->pend[i].row, j->pend[i].len);
    }
    sl_free(order);
    sl_free(rank);
    return 0;
}

static char *sl__get_blob(sl_bytes_reader *rd, uint32_t *n)
{
    if (!sl_get_u32(rd, n) || *n > rd->n - rd->off)
        return NULL;
    char *p = sl_malloc(*n ? *n : 1);
    sl_get_bytes(rd, p, *n);
    return p;
}

static void sl__tj_clear(sl__tj *j)
{
    for (int i = 0; i < j->nk; i++) {
        for (int v = 0; v < j->keys[i].nv; v++)
            sl__ver_free(&j->keys[i].v[v]);
        sl_free(j->keys[i].v);
        sl_free(j->keys[i].kb);
    }
    j->nk = 0;
    sl_free(j->slots);
    j->slots = NULL;
    j->nslots = 0;
    for (int i = 0; i < j->np; i++)
        sl_free(j->pend[i].row);
    j->np = 0;
}

static int sl__tj_restore(sl_operator *op, const char *state, size_t len, sl_error *err)
{
    sl__tj *j = op->impl;
    sl__tj_clear(j);
    sl_bytes_reader rd = {(const uint8_t *)state, len, 0};
    char magic[8];
    uint64_t wm, late;
    uint32_t nk;
    bool ok = sl_get_bytes(&rd, magic, sizeof magic) && memcmp(magic, sl__magic, 8) == 0 &&
              sl_get_u64(&rd, &wm) && sl_get_u64(&rd, &late) && sl_get_u32(&rd, &nk) &&
              nk <= len;
    for (uint32_t i = 0; ok && i < nk; i++) {
        uint32_t kn, nv;
        char *kb = sl__get_blob(&rd, &kn);
        if (!kb || !sl_get_u32(&rd, &nv) || nv > len) {
            sl_free(kb);
            ok = false;
            break;
        }
        /* the key's hash: decode it into the key chunk */
        sl_bytes_reader kr = {(const uint8_t *)kb, kn, 0};
        sl_chunk_reset(j->kc);
        sl_chunk_append_row(j->kc, SL_ROW_INSERT);
        uint64_t h = 0;
        int *kcols = sl_calloc((size_t)j->spec.nkeys + 1, sizeof(int));
        for (int c = 0; c < j->spec.nkeys; c++)
            kcols[c] = c;
        ok = sl_row_get(&kr, j->kc, 0) && kr.off == kn;
        if (ok)
            sl_chunk_hash_keys(j->kc, j->spec.nkeys, kcols, &h);
        sl_free(kcols);
        if (!ok || sl__key_find(j, h, kb, kn, false) >= 0) {
            sl_free(kb);
            ok = false;
            break;
        }
        int e = sl__key_find(j, h, kb, kn, true);
        sl_free(kb);
        for (uint32_t v = 0; ok && v < nv; v++) {
            uint64_t t;
            char del;
            uint32_t rn;
            ok = sl_get_u64(&rd, &t) && sl_get_bytes(&rd, &del, 1) && (del == 0 || del == 1);
            char *row = ok ? sl__get_blob(&rd, &rn) : NULL;
            ok = ok && row;
            if (ok && del) {
                sl_free(row);
                row = NULL;
                rn = 0;
            }
            if (ok)
                sl__add_version(j, &j->keys[e], (int64_t)t, del == 1, row, rn);
        }
    }
    uint32_t np = 0;
    ok = ok && sl_get_u32(&rd, &np) && np <= len;
    for (uint32_t i = 0; ok && i < np; i++) {
        uint64_t t;
        uint32_t key, rn;
        ok = sl_get_u64(&rd, &t) && sl_get_u32(&rd, &key) && (key == UINT32_MAX || key < nk);
        char *row = ok ? sl__get_blob(&rd, &rn) : NULL;
        ok = ok && row;
        if (!ok) {
            sl_free(row);
            break;
        }
        if (j->np == j->cap_p) {
            j->cap_p = j->cap_p ? j->cap_p * 2 : 256;
            j->pend = sl_realloc(j->pend, (size_t)j->cap_p * sizeof *j->pend);
        }
        j->pend[j->np++] = (sl__tj_left){(int64_t)t, j->seq++,
                                         key == UINT32_MAX ? -1 : (int)key, row, rn};
    }
    if (!ok || rd.off != len) {
        sl__tj_clear(j);
        return sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                            "the temporal join's state in the checkpoint is damaged");
    }
    j->wm = (int64_t)wm;
    j->late = (int64_t)late;
    return 0;
}

static void sl__tj_free(sl_operator *op)
{
    if (!op)
        return;
    sl__tj *j = op->impl;
    if (j) {
        sl__tj_clear(j);
        sl_free(j->keys);
        sl_free(j->pend);
        sl_free(j->types);
        sl_free(j->out_types);
        sl_free(j->keycols);
        sl_free(j->ktypes);
        sl_chunk_free(j->kc);
        sl_chunk_free(j->scratch);
        sl_chunk_free(j->cand);
        sl_chunk_free(j->out);
        sl_free(j->sel);
        sl_eval_free(j->cond);
        sl_free(j->hashes);
        sl_strbuf_free(&j->buf);
        sl_free(j);
    }
    sl_free(op);
}

static const sl_operator_ops sl__tj_ops = {
    sl__tj_process, sl__tj_watermark, sl__tj_snapshot, sl__tj_restore, sl__tj_late, sl__tj_free,
    NULL, /* conflicts */
    NULL, /* backend: hashmap */
};

int sl_temporal_join_new(const sl_join_spec *spec, sl_operator **out, sl_error *err)
{
    *out = NULL;
    if (spec->nkeys < 1 || spec->nl < 1 || spec->nr < 1 ||
        spec->in_ncols != 1 + spec->nkeys + spec->nl + spec->nr ||
        (spec->type != SL_JOIN_INNER && spec->type != SL_JOIN_LEFT) || spec->ltime < 0 ||
        spec->ltime >= spec->nl || spec->rtime < 0 || spec->rtime >= spec->nr)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "temporal join: bad spec");
    sl__tj *j = sl_calloc(1, sizeof *j);
    j->spec = *spec;
    j->width = spec->in_ncols;
    j->types = sl_calloc((size_t)j->width, sizeof(sl_type));
    memcpy(j->types, spec->in_types, (size_t)j->width * sizeof(sl_type));
    int nout = spec->nl + spec->nr;
    j->out_types = sl_calloc((size_t)nout, sizeof(sl_type));
    for (int c = 0; c < nout; c++) {
        j->out_types[c] = j->types[1 + spec->nkeys + c];
        j->out_types[c].not_null = false;
    }
    j->keycols = sl_calloc((size_t)spec->nkeys, sizeof(int));
    j->ktypes = sl_calloc((size_t)spec->nkeys, sizeof(sl_type));
    for (int k = 0; k < spec->nkeys; k++) {
        j->keycols[k] = 1 + k;
        j->ktypes[k] = j->types[1 + k];
    }
    j->kc = sl_chunk_new(spec->nkeys, j->ktypes, 1);
    j->scratch = sl_chunk_new(j->width, j->types, 2);
    j->cand = sl_chunk_new(nout, j->out_types, SL_CHUNK_ROWS);
    j->out = sl_chunk_new(nout, j->out_types, SL_CHUNK_ROWS);
    j->sel = sl_calloc(SL_CHUNK_ROWS, 1);
    j->wm = INT64_MIN;
    sl_operator *op = sl_calloc(1, sizeof *op);
    op->ops = &sl__tj_ops;
    op->impl = j;
    op->out_ncols = nout;
    op->out_types = j->out_types;
    if (spec->cond && !(j->cond = sl_eval_compile(spec->cond, nout, j->out_types, err))) {
        sl__tj_free(op);
        return -1;
    }
    *out = op;
    return 0;
}
