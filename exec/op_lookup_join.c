/*
** op_lookup_join.c — the lookup join (see sl_exec.h, sl_lookup_join_spec):
** Flink's LookupJoinRunner / AsyncLookupJoinRunner with its partial cache.
**
** For each input chunk:
**   1. the key expressions are evaluated over the rows; the distinct
**      non-NULL keys (their encoded bytes, hashed with sl_chunk_hash_keys)
**      are collected;
**   2. each distinct key is looked for in the cache (when the provider asks
**      for one); the misses go to the provider in one batch, and the rows it
**      returns are matched back to their key by their key columns' bytes;
**      the misses' rows (or, with cache_missing, their absence) are cached;
**   3. the output is built in input order: for each input row, the left
**      columns then each of its key's rows, kept when cond holds; LEFT adds
**      the NULL-padded row when none is kept. A row's kind passes through.
**
** A key's rows are kept encoded (rowcodec.c): a u32 count then the rows.
** Nothing is snapshotted: the cache is an optimisation Flink does not
** checkpoint either, and a restored job looks the keys up again.
**
** Main routine: sl_lookup_join_new.
*/
#include "sl_exec.h"

#include <stdlib.h>
#include <string.h>

typedef struct sl__lj_key {
    uint64_t hash;
    size_t off, len;   /* its bytes in kbuf */
    bool miss;         /* not in the cache: asked of the provider */
    sl_strbuf val;     /* count + rows */
    uint32_t count;
} sl__lj_key;

typedef struct sl__lj {
    sl_lookup_join_spec spec;
    int nl, nr, nk;
    sl_type *out_types;
    sl_type *ktypes;
    int *kcols;              /* 0 .. nk-1 */
    sl_lookup *prov;
    sl_lookup_cache *cache;
    sl_eval_prog **kprog;    /* per key expression */
    sl_eval_prog *cond;      /* or NULL */
    sl_chunk *keys;          /* the keys of the input rows */
    int keys_cap;
    sl_chunk *one;           /* one row of key columns (a found row's key) */
    sl_chunk *miss;          /* the missed keys, for the provider */
    sl_chunk *cand;          /* candidate output rows */
    int cand_cap;
    uint8_t *sel;            /* cond per candidate */
    int sel_cap;
    int *cand_of;            /* per candidate: its input row */
    sl_chunk *out;
    uint64_t *hashes;
    int hcap;
    int *row_key;            /* per input row: distinct key or -1 */
    sl__lj_key *dk;          /* distinct keys of the chunk */
    int ndk, cap_dk;
    int *slots;              /* open addressing over dk: index + 1 */
    size_t nslots;
    sl_strbuf kbuf;          /* the keys' bytes */
    sl_strbuf scratch;
    int64_t (*now)(void *ctx);
    void *now_ctx;
} sl__lj;

static int64_t sl__lj_now_ms(const sl__lj *j)
{
    int64_t ns = j->now ? j->now(j->now_ctx) : sl_monotonic_nanos();
    return ns / SL_NANOS_PER_MILLI;
}

static int sl__lj_find(sl__lj *j, uint64_t h, const char *kb, size_t kn, bool add)
{
    size_t mask = j->nslots - 1;
    for (size_t i = (size_t)h & mask; j->slots[i]; i = (i + 1) & mask) {
        sl__lj_key *k = &j->dk[j->slots[i] - 1];
        if (k->hash == h && k->len == kn && memcmp(j->kbuf.buf + k->off, kb, kn) == 0)
            return j->slots[i] - 1;
    }
    if (!add)
        return -1;
    if (j->ndk == j->cap_dk) {
        int cap = j->cap_dk ? j->cap_dk * 2 : 64;
        j->dk = sl_realloc(j->dk, (size_t)cap * sizeof *j->dk);
        memset(j->dk + j->cap_dk, 0, (size_t)(cap - j->cap_dk) * sizeof *j->dk);
        j->cap_dk = cap;
    }
    int d = j->ndk++;
    sl__lj_key *k = &j->dk[d];
    k->hash = h;
    k->off = j->kbuf.len;
    k->len = kn;
    k->miss = false;
    k->count = 0;
    sl_strbuf_reset(&k->val);
    sl_strbuf_append_n(&j->kbuf, kb, kn);
    size_t i = (size_t)h & mask;
    while (j->slots[i])
        i = (i + 1) & mask;
    j->slots[i] = d + 1;
    return d;
}

/* A row found by the provider: to its key's rows. */
static int sl__lj_found(void *ctx, const sl_chunk *rows, int r, sl_error *err)
{
    (void)err;
    sl__lj *j = ctx;
    sl_chunk_reset(j->one);
    sl_chunk_append_row(j->one, SL_ROW_INSERT);
    for (int k = 0; k < j->nk; k++) {
        int c = j->spec.args.keys[k];
        if (rows->cols[c].nulls[r])
            return 0; /* a NULL key equals nothing */
        sl_chunk_set_from(j->one, k, 0, rows, c, r);
    }
    uint64_t h;
    sl_chunk_hash_keys(j->one, j->nk, j->kcols, &h);
    sl_strbuf_reset(&j->scratch);
    sl_row_put_cols(&j->scratch, j->one, 0, j->nk, 0);
    int d = sl__lj_find(j, h, j->scratch.buf, j->scratch.len, false);
    if (d < 0 || !j->dk[d].miss)
        return 0; /* not asked for (a provider may return more) */
    sl_row_put_cols(&j->dk[d].val, rows, 0, j->nr, r);
    j->dk[d].count++;
    return 0;
}

/* The number of rows of a key (the u32 before them). */
static uint32_t sl__lj_count(const sl__lj_key *k)
{
    sl_bytes_reader rd = {(const uint8_t *)k->val.buf, k->val.len, 0};
    uint32_t c = 0;
    return sl_get_u32(&rd, &c) ? c : 0;
}

static void sl__lj_grow(sl_chunk **c, int *cap, int need, int ncols, const sl_type *types)
{
    if (*c && *cap >= need) {
        sl_chunk_reset(*c);
        return;
    }
    sl_chunk_free(*c);
    *cap = need > *cap * 2 ? need : *cap * 2;
    if (*cap < 16)
        *cap = 16;
    *c = sl_chunk_new(ncols, types, *cap);
}

static int sl__lj_flush(sl__lj *j, const sl_emit *out, sl_error *err)
{
    if (j->out->nrows == 0)
        return 0;
    int rc = out->fn(out->ctx, j->out, err);
    sl_chunk_reset(j->out);
    return rc;
}

static int sl__lj_process(sl_operator *op, const sl_chunk *in, const sl_emit *out, sl_error *err)
{
    sl__lj *j = op->impl;
    int n = in->nrows;
    if (n == 0)
        return 0;
    sl_eval_env env = {.tz = j->spec.tz};
    /* 1. the keys */
    sl__lj_grow(&j->keys, &j->keys_cap, n, j->nk, j->ktypes);
    for (int r = 0; r < n; r++)
        sl_chunk_append_row(j->keys, SL_ROW_INSERT);
    for (int k = 0; k < j->nk; k++)
        if (sl_eval_into(j->kprog[k], in, &env, j->keys, k, err) != 0)
            return -1;
    if (n > j->hcap) {
        j->hcap = n;
        j->hashes = sl_realloc(j->hashes, (size_t)n * sizeof(uint64_t));
        j->row_key = sl_realloc(j->row_key, (size_t)n * sizeof(int));
    }
    sl_chunk_hash_keys(j->keys, j->nk, j->kcols, j->hashes);
    size_t ns = 64;
    while (ns < (size_t)n * 2)
        ns *= 2;
    if (ns > j->nslots) {
        sl_free(j->slots);
        j->slots = sl_malloc(ns * sizeof(int));
        j->nslots = ns;
    }
    memset(j->slots, 0, j->nslots * sizeof(int));
    j->ndk = 0;
    sl_strbuf_reset(&j->kbuf);
    int64_t now = sl__lj_now_ms(j);
    sl_chunk_reset(j->miss);
    for (int r = 0; r < n; r++) {
        bool null = false;
        for (int k = 0; k < j->nk && !null; k++)
            null = j->keys->cols[k].nulls[r];
        if (null) {
            j->row_key[r] = -1;
            continue;
        }
        sl_strbuf_reset(&j->scratch);
        sl_row_put_cols(&j->scratch, j->keys, 0, j->nk, r);
        int before = j->ndk;
        int d = sl__lj_find(j, j->hashes[r], j->scratch.buf, j->scratch.len, true);
        j->row_key[r] = d;
        if (d < before)
            continue;
        /* 2. a new key: the cache, else the provider */
        const char *v;
        size_t vn;
        if (j->cache && sl_lookup_cache_get(j->cache, j->hashes[r], j->scratch.buf,
                                            j->scratch.len, now, &v, &vn)) {
            sl_strbuf_append_n(&j->dk[d].val, v, vn);
            continue;
        }
        j->dk[d].miss = true;
        if (sl_chunk_full(j->miss)) {
            sl_chunk *bigger = sl_chunk_new(j->nk, j->ktypes, j->miss->cap * 2);
            for (int x = 0; x < j->miss->nrows; x++)
                sl_chunk_copy_row(bigger, j->miss, x);
            sl_chunk_free(j->miss);
            j->miss = bigger;
        }
        sl_chunk_copy_row(j->miss, j->keys, r);
    }
    if (j->miss->nrows > 0) {
        for (int d = 0; d < j->ndk; d++)
            if (j->dk[d].miss)
                sl_put_u32(&j->dk[d].val, 0); /* the count, set below */
        if (j->prov->ops->lookup(j->prov, j->miss, sl__lj_found, j, err) != 0)
            return -1;
        for (int d = 0; d < j->ndk; d++) {
            sl__lj_key *k = &j->dk[d];
            if (!k->miss)
                continue;
            for (int b = 0; b < 4; b++)
                k->val.buf[b] = (char)(k->count >> (8 * b));
            if (j->cache && (k->count > 0 || j->prov->cache.cache_missing))
                sl_lookup_cache_put(j->cache, k->hash, j->kbuf.buf + k->off, k->len, k->val.buf,
                                    k->val.len, now);
        }
    }
    if (sl_op_cancelled(op))
        return sl_op_cancel_error(err);
    /* 3. candidates in input order */
    int ncand = 0;
    for (int r = 0; r < n; r++)
        if (j->row_key[r] >= 0)
            ncand += (int)sl__lj_count(&j->dk[j->row_key[r]]);
    if (ncand > 0) {
        sl__lj_grow(&j->cand, &j->cand_cap, ncand, j->nl + j->nr, j->out_types);
        if (j->cand_cap > j->sel_cap) {
            j->sel_cap = j->cand_cap;
            j->sel = sl_realloc(j->sel, (size_t)j->sel_cap);
            j->cand_of = sl_realloc(j->cand_of, (size_t)j->sel_cap * sizeof(int));
        }
        for (int r = 0; r < n; r++) {
            int d = j->row_key[r];
            if (d < 0)
                continue;
            sl_bytes_reader rd = {(const uint8_t *)j->dk[d].val.buf, j->dk[d].val.len, 0};
            uint32_t c;
            if (!sl_get_u32(&rd, &c))
                continue;
            for (uint32_t x = 0; x < c; x++) {
                int row = sl_chunk_append_row(j->cand, (sl_row_kind)in->kinds[r]);
                for (int col = 0; col < j->nl; col++)
                    sl_chunk_set_from(j->cand, col, row, in, col, r);
                if (!sl_row_get_cols(&rd, j->cand, j->nl, j->nr, row))
                    return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                        "lookup join: malformed cached row");
                j->cand_of[row] = r;
            }
        }
        if (j->cond) {
            if (sl_eval_filter(j->cond, j->cand, &env, j->sel, err) < 0)
                return -1;
        } else {
            memset(j->sel, 1, (size_t)ncand);
        }
    }
    /* 4. out, in input order */
    int ci = 0;
    for (int r = 0; r < n; r++) {
        bool any = false;
        for (; ci < ncand && j->cand_of[ci] == r; ci++) {
            if (!j->sel[ci])
                continue;
            any = true;
            if (sl_chunk_full(j->out) && sl__lj_flush(j, out, err) != 0)
                return -1;
            sl_chunk_copy_row(j->out, j->cand, ci);
        }
        if (!any && j->spec.type == SL_JOIN_LEFT) {
            if (sl_chunk_full(j->out) && sl__lj_flush(j, out, err) != 0)
                return -1;
            int row = sl_chunk_append_row(j->out, (sl_row_kind)in->kinds[r]);
            for (int col = 0; col < j->nl; col++)
                sl_chunk_set_from(j->out, col, row, in, col, r);
        }
    }
    return sl__lj_flush(j, out, err);
}

static int sl__lj_watermark(sl_operator *op, int64_t wm, const sl_emit *out, sl_error *err)
{
    (void)op, (void)wm, (void)out, (void)err;
    return 0;
}

static int sl__lj_snapshot(sl_operator *op, sl_strbuf *state, sl_error *err)
{
    (void)op, (void)state, (void)err;
    return 0; /* stateless: the cache is not kept */
}

static int sl__lj_restore(sl_operator *op, const char *state, size_t len, sl_error *err)
{
    (void)op, (void)state, (void)err;
    if (len != 0)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "lookup join: unexpected state");
    return 0;
}

static int64_t sl__lj_late(sl_operator *op)
{
    (void)op;
    return 0;
}

static void sl__lj_free(sl_operator *op)
{
    if (!op)
        return;
    sl__lj *j = op->impl;
    if (j) {
        if (j->prov)
            j->prov->ops->free(j->prov);
        sl_lookup_cache_free(j->cache);
        for (int k = 0; j->kprog && k < j->nk; k++)
            sl_eval_free(j->kprog[k]);
        sl_free(j->kprog);
        sl_eval_free(j->cond);
        sl_chunk_free(j->keys);
        sl_chunk_free(j->one);
        sl_chunk_free(j->miss);
        sl_chunk_free(j->cand);
        sl_chunk_free(j->out);
        sl_free(j->sel);
        sl_free(j->cand_of);
        sl_free(j->hashes);
        sl_free(j->row_key);
        for (int d = 0; d < j->cap_dk; d++)
            sl_strbuf_free(&j->dk[d].val);
        sl_free(j->dk);
        sl_free(j->slots);
        sl_strbuf_free(&j->kbuf);
        sl_strbuf_free(&j->scratch);
        sl_free(j->out_types);
        sl_free(j->ktypes);
        sl_free(j->kcols);
        sl_free(j);
    }
    sl_free(op);
}

static const sl_operator_ops sl__lj_ops = {
    .process = sl__lj_process,
    .watermark = sl__lj_watermark,
    .snapshot = sl__lj_snapshot,
    .restore = sl__lj_restore,
    .late_rows = sl__lj_late,
    .free = sl__lj_free,
};

int sl_lookup_join_new(const sl_lookup_join_spec *spec, sl_operator **out, sl_error *err)
{
    if (spec->nkeys < 1 || (spec->type != SL_JOIN_INNER && spec->type != SL_JOIN_LEFT) ||
        !spec->create)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "lookup join: bad spec");
    sl__lj *j = sl_calloc(1, sizeof *j);
    sl_operator *op = sl_calloc(1, sizeof *op);
    op->ops = &sl__lj_ops;
    op->impl = j;
    j->spec = *spec;
    j->nl = spec->nl;
    j->nr = spec->args.ncols;
    j->nk = spec->nkeys;
    j->now = spec->args.now;
    j->now_ctx = spec->args.now_ctx;
    j->out_types = sl_calloc((size_t)(j->nl + j->nr) + 1, sizeof(sl_type));
    for (int c = 0; c < j->nl; c++)
        j->out_types[c] = spec->l_types[c];
    for (int c = 0; c < j->nr; c++) {
        j->out_types[j->nl + c] = spec->args.types[c];
        j->out_types[j->nl + c].not_null = false;
    }
    j->ktypes = sl_calloc((size_t)j->nk + 1, sizeof(sl_type));
    j->kcols = sl_calloc((size_t)j->nk + 1, sizeof(int));
    j->kprog = sl_calloc((size_t)j->nk + 1, sizeof(sl_eval_prog *));
    for (int k = 0; k < j->nk; k++) {
        j->ktypes[k] = spec->args.types[spec->args.keys[k]];
        j->ktypes[k].not_null = false;
        j->kcols[k] = k;
        j->kprog[k] = sl_eval_compile(spec->key_exprs[k], j->nl, spec->l_types, err);
        if (!j->kprog[k]) {
            sl__lj_free(op);
            return -1;
        }
    }
    if (spec->cond) {
        j->cond = sl_eval_compile(spec->cond, j->nl + j->nr, j->out_types, err);
        if (!j->cond) {
            sl__lj_free(op);
            return -1;
        }
    }
    j->one = sl_chunk_new(j->nk, j->ktypes, 1);
    j->miss = sl_chunk_new(j->nk, j->ktypes, SL_CHUNK_ROWS);
    j->out = sl_chunk_new(j->nl + j->nr, j->out_types, SL_CHUNK_ROWS);
    if (spec->create(&spec->args, &j->prov, err) != 0) {
        j->prov = NULL;
        sl__lj_free(op);
        return -1;
    }
    if (j->prov->cache.enabled)
        j->cache = sl_lookup_cache_new(&j->prov->cache);
    op->out_ncols = j->nl + j->nr;
    op->out_types = j->out_types;
    *out = op;
    return 0;
}
