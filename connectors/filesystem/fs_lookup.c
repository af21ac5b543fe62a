/*
** fs_lookup.c — the filesystem connector as the table of a lookup join
** (sl_exec.h, sl_lookup): Flink's FileSystemLookupFunction. Every file
** under 'path' is read (the bounded source, fs_source.c, with the table's
** format) into memory and indexed by the lookup keys; the files are read
** again at the first lookup after 'lookup.join.cache.ttl' (60 min) has
** passed since they were loaded. No cache in front of it: the whole table
** is the cache, as in Flink.
**
** Index: chained hash buckets over sl_chunk_hash_keys of the key columns;
** identity = the keys' encoded bytes (rowcodec.c). Rows whose key holds a
** NULL are left out (a NULL equals nothing).
**
** Main routines: sl__fs_lookup_create, sl__fs_lookup_describe.
*/
#include <string.h>

#include "fs_int.h"

typedef struct sl__fsl_entry {
    uint64_t hash;
    size_t off, len;  /* key bytes in kbuf */
    int next;         /* bucket chain */
    int first;        /* its first row (index into refs) */
} sl__fsl_entry;

typedef struct sl__fsl_ref {
    int chunk, row;
    int next;         /* the key's next row, -1 = end */
} sl__fsl_ref;

typedef struct sl__fsl {
    sl_lookup_args args;
    sl_kvlist *opts;      /* the table's options without 'source.monitor-interval' */
    int *keys;
    int64_t ttl_ns;
    int64_t next_load;    /* clock value of the next reload */
    bool loaded;
    sl_list *chunks;      /* sl_chunk*: the table's rows */
    sl__fsl_entry *e;
    int ne, cap_e;
    sl__fsl_ref *refs;
    int nrefs, cap_refs;
    int *buckets;
    size_t nbuckets;
    sl_strbuf kbuf;
    sl_strbuf scratch;
    uint64_t *hashes;
    int hcap;
} sl__fsl;

static int64_t sl__fsl_now(const sl__fsl *l)
{
    return l->args.now ? l->args.now(l->args.now_ctx) : sl_monotonic_nanos();
}

static void sl__fsl_chunk_free(void *c)
{
    sl_chunk_free(c);
}

static void sl__fsl_clear(sl__fsl *l)
{
    sl_list_free(l->chunks, sl__fsl_chunk_free);
    l->chunks = sl_list_new();
    l->ne = l->nrefs = 0;
    sl_strbuf_reset(&l->kbuf);
    if (l->buckets)
        memset(l->buckets, 0xff, l->nbuckets * sizeof(int));
}

static void sl__fsl_key_bytes(sl_strbuf *sb, const sl_chunk *c, int nk, const int *cols, int r)
{
    for (int k = 0; k < nk; k++)
        sl_value_put(sb, c, cols[k], r);
}

static int sl__fsl_find(const sl__fsl *l, uint64_t h, const char *kb, size_t kn)
{
    for (int i = l->buckets[h & (l->nbuckets - 1)]; i >= 0; i = l->e[i].next)
        if (l->e[i].hash == h && l->e[i].len == kn && memcmp(l->kbuf.buf + l->e[i].off, kb, kn) == 0)
            return i;
    return -1;
}

static void sl__fsl_rehash(sl__fsl *l, size_t n)
{
    sl_free(l->buckets);
    l->buckets = sl_malloc(n * sizeof(int));
    memset(l->buckets, 0xff, n * sizeof(int));
    l->nbuckets = n;
    for (int i = 0; i < l->ne; i++) {
        size_t b = l->e[i].hash & (n - 1);
        l->e[i].next = l->buckets[b];
        l->buckets[b] = i;
    }
}

/* Index the rows of chunk ci. */
static void sl__fsl_index(sl__fsl *l, int ci)
{
    const sl_chunk *c = l->chunks->items[ci];
    int nk = l->args.nkeys;
    if (c->nrows > l->hcap) {
        l->hcap = c->nrows;
        l->hashes = sl_realloc(l->hashes, (size_t)l->hcap * sizeof(uint64_t));
    }
    sl_chunk_hash_keys(c, nk, l->keys, l->hashes);
    for (int r = 0; r < c->nrows; r++) {
        bool null = false;
        for (int k = 0; k < nk && !null; k++)
            null = c->cols[l->keys[k]].nulls[r];
        if (null)
            continue;
        sl_strbuf_reset(&l->scratch);
        sl__fsl_key_bytes(&l->scratch, c, nk, l->keys, r);
        int e = sl__fsl_find(l, l->hashes[r], l->scratch.buf, l->scratch.len);
        if (e < 0) {
            if (l->ne == l->cap_e) {
                l->cap_e = l->cap_e ? l->cap_e * 2 : 256;
                l->e = sl_realloc(l->e, (size_t)l->cap_e * sizeof *l->e);
            }
            e = l->ne++;
            l->e[e].hash = l->hashes[r];
            l->e[e].off = l->kbuf.len;
            l->e[e].len = l->scratch.len;
            l->e[e].first = -1;
            sl_strbuf_append_n(&l->kbuf, l->scratch.buf, l->scratch.len);
            size_t b = l->hashes[r] & (l->nbuckets - 1);
            l->e[e].next = l->buckets[b];
            l->buckets[b] = e;
            if ((size_t)l->ne * 2 > l->nbuckets)
                sl__fsl_rehash(l, l->nbuckets * 2);
        }
        if (l->nrefs == l->cap_refs) {
            l->cap_refs = l->cap_refs ? l->cap_refs * 2 : 256;
            l->refs = sl_realloc(l->refs, (size_t)l->cap_refs * sizeof *l->refs);
        }
        /* rows of a key in file order: append at the end of its chain */
        int x = l->nrefs++;
        l->refs[x] = (sl__fsl_ref){ci, r, -1};
        if (l->e[e].first < 0) {
            l->e[e].first = x;
        } else {
            int t = l->e[e].first;
            while (l->refs[t].next >= 0)
                t = l->refs[t].next;
            l->refs[t].next = x;
        }
    }
}

/* Read every file into memory. */
static int sl__fsl_load(sl__fsl *l, sl_error *err)
{
    sl__fsl_clear(l);
    sl_source_args sa = {
        .options = l->opts,
        .ncols = l->args.ncols,
        .names = l->args.names,
        .types = l->args.types,
        .subtask = 0,
        .parallelism = 1,
        .table = l->args.table,
    };
    sl_source *src = NULL;
    if (sl__fs_source_create(&sa, &src, err) != 0)
        return -1;
    int rc;
    for (;;) {
        sl_chunk *c = sl_chunk_new(l->args.ncols, l->args.types, SL_CHUNK_ROWS);
        rc = src->ops->poll(src, c, err);
        if (rc < 0 || c->nrows == 0) {
            sl_chunk_free(c);
        } else {
            sl_list_push(l->chunks, c);
            sl__fsl_index(l, l->chunks->n - 1);
        }
        if (rc != SL_SOURCE_MORE)
            break;
    }
    src->ops->free(src);
    if (rc < 0)
        return -1;
    l->loaded = true;
    l->next_load = sl__fsl_now(l) + l->ttl_ns;
    return 0;
}

static int sl__fsl_lookup(sl_lookup *lk, const sl_chunk *keys, sl_lookup_row_fn fn, void *ctx,
                          sl_error *err)
{
    sl__fsl *l = lk->impl;
    if ((!l->loaded || sl__fsl_now(l) >= l->next_load) && sl__fsl_load(l, err) != 0)
        return -1;
    int nk = l->args.nkeys;
    if (keys->nrows > l->hcap) {
        l->hcap = keys->nrows;
        l->hashes = sl_realloc(l->hashes, (size_t)l->hcap * sizeof(uint64_t));
    }
    int *kc = sl_calloc((size_t)nk + 1, sizeof(int));
    for (int k = 0; k < nk; k++)
        kc[k] = k;
    sl_chunk_hash_keys(keys, nk, kc, l->hashes);
    int rc = 0;
    for (int r = 0; r < keys->nrows && rc == 0; r++) {
        sl_strbuf_reset(&l->scratch);
        sl__fsl_key_bytes(&l->scratch, keys, nk, kc, r);
        int e = sl__fsl_find(l, l->hashes[r], l->scratch.buf, l->scratch.len);
        for (int x = e >= 0 ? l->e[e].first : -1; x >= 0 && rc == 0; x = l->refs[x].next)
            rc = fn(ctx, l->chunks->items[l->refs[x].chunk], l->refs[x].row, err);
    }
    sl_free(kc);
    return rc;
}

static void sl__fsl_free(sl_lookup *lk)
{
    if (!lk)
        return;
    sl__fsl *l = lk->impl;
    sl_list_free(l->chunks, sl__fsl_chunk_free);
    sl_kvlist_free(l->opts);
    sl_free(l->keys);
    sl_free(l->e);
    sl_free(l->refs);
    sl_free(l->buckets);
    sl_strbuf_free(&l->kbuf);
    sl_strbuf_free(&l->scratch);
    sl_free(l->hashes);
    sl_free(l);
    sl_free(lk);
}

static const sl_lookup_ops sl__fsl_ops = {
    .lookup = sl__fsl_lookup,
    .free = sl__fsl_free,
};

static int64_t sl__fsl_ttl_ms(const sl_kvlist *opts, sl_error *err)
{
    const sl_kv *kv = sl_kvlist_find(opts, "lookup.join.cache.ttl");
    int64_t ms = 60 * 60 * 1000;
    if (kv && sl_option_parse_duration_ms(kv->value, &ms, kv->value_pos, err) != 0)
        return -1;
    return ms;
}

int sl__fs_lookup_create(const sl_lookup_args *args, sl_lookup **out, sl_error *err)
{
    int64_t ttl = sl__fsl_ttl_ms(args->options, err);
    if (ttl < 0)
        return -1;
    sl__fsl *l = sl_calloc(1, sizeof *l);
    l->args = *args;
    l->opts = sl_kvlist_dup(args->options);
    sl_kvlist_remove(l->opts, "source.monitor-interval"); /* the files there now */
    l->keys = sl_calloc((size_t)args->nkeys + 1, sizeof(int));
    memcpy(l->keys, args->keys, (size_t)args->nkeys * sizeof(int));
    l->ttl_ns = (ttl > 0 ? ttl : 1) * SL_NANOS_PER_MILLI;
    l->chunks = sl_list_new();
    sl__fsl_rehash(l, 64);
    sl_lookup *lk = sl_calloc(1, sizeof *lk);
    lk->ops = &sl__fsl_ops;
    lk->impl = l;
    *out = lk;
    return 0;
}

void sl__fs_lookup_describe(const sl_kvlist *opts, sl_strbuf *out)
{
    const char *ttl = sl_kvlist_get(opts, "lookup.join.cache.ttl");
    sl_strbuf_appendf(out, "cache=[FULL, reload-after=%s]", ttl ? ttl : "60 min");
}
