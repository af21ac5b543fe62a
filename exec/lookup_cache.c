/*
** lookup_cache.c — the lookup join's partial cache (see sl_exec.h,
** sl_lookup_cache_opts): Flink's DefaultLookupCache ('lookup.cache' =
** 'PARTIAL'). Keys (their encoded bytes) map to values (the key's rows,
** encoded by the operator); an entry expires expire_write_ms after it was
** put and expire_access_ms after it was last read; beyond max_rows keys the
** least recently used (read or put) ones go.
**
** Structure: entries in one array with a free list, chained hash buckets
** (the caller's hash: sl_chunk_hash_keys of the key), and a doubly linked
** recency list (head = most recent). Not thread-safe: one per task, as
** Flink keeps one per subtask. Never snapshotted.
**
** Main routines: sl_lookup_cache_new, sl_lookup_cache_get,
** sl_lookup_cache_put.
*/
#include "sl_exec.h"

#include <string.h>

typedef struct sl__lc_entry {
    uint64_t hash;
    char *kb;          /* key bytes, then the value's (one allocation) */
    size_t kn, vn;     /* their lengths */
    int64_t written;   /* when put (ms) */
    int64_t accessed;  /* when last read or put (ms) */
    int next;          /* bucket chain (or free list), -1 = end */
    int prev_r, next_r;/* recency list, -1 = end */
    bool used;
} sl__lc_entry;

struct sl_lookup_cache {
    sl_lookup_cache_opts o;
    sl__lc_entry *e;
    int ne, cap;       /* entries allocated / room */
    int free_head;     /* free list */
    int *buckets;      /* entry index, -1 = empty */
    size_t nbuckets;   /* power of two */
    int head, tail;    /* recency: head most recent */
    int64_t size;      /* keys kept */
};

sl_lookup_cache *sl_lookup_cache_new(const sl_lookup_cache_opts *o)
{
    sl_lookup_cache *c = sl_calloc(1, sizeof *c);
    c->o = *o;
    c->free_head = c->head = c->tail = -1;
    c->nbuckets = 64;
    c->buckets = sl_malloc(c->nbuckets * sizeof(int));
    memset(c->buckets, 0xff, c->nbuckets * sizeof(int));
    return c;
}

void sl_lookup_cache_free(sl_lookup_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->ne; i++)
        if (c->e[i].used)
            sl_free(c->e[i].kb);
    sl_free(c->e);
    sl_free(c->buckets);
    sl_free(c);
}

int64_t sl_lookup_cache_size(const sl_lookup_cache *c)
{
    return c->size;
}

static void sl__lc_unlink(sl_lookup_cache *c, int i)
{
    sl__lc_entry *x = &c->e[i];
    if (x->prev_r >= 0)
        c->e[x->prev_r].next_r = x->next_r;
    else
        c->head = x->next_r;
    if (x->next_r >= 0)
        c->e[x->next_r].prev_r = x->prev_r;
    else
        c->tail = x->prev_r;
    x->prev_r = x->next_r = -1;
}

static void sl__lc_front(sl_lookup_cache *c, int i)
{
    sl__lc_entry *x = &c->e[i];
    x->prev_r = -1;
    x->next_r = c->head;
    if (c->head >= 0)
        c->e[c->head].prev_r = i;
    c->head = i;
    if (c->tail < 0)
        c->tail = i;
}

static int *sl__lc_slot(sl_lookup_cache *c, uint64_t h, const char *kb, size_t kn)
{
    int *at = &c->buckets[h & (c->nbuckets - 1)];
    while (*at >= 0) {
        sl__lc_entry *x = &c->e[*at];
        if (x->hash == h && x->kn == kn && memcmp(x->kb, kb, kn) == 0)
            return at;
        at = &x->next;
    }
    return at;
}

static void sl__lc_remove(sl_lookup_cache *c, int *slot)
{
    int i = *slot;
    sl__lc_entry *x = &c->e[i];
    *slot = x->next;
    sl__lc_unlink(c, i);
    sl_free(x->kb);
    x->kb = NULL;
    x->used = false;
    x->next = c->free_head;
    c->free_head = i;
    c->size--;
}

static bool sl__lc_expired(const sl_lookup_cache *c, const sl__lc_entry *x, int64_t now)
{
    return (c->o.expire_write_ms > 0 && now - x->written >= c->o.expire_write_ms) ||
           (c->o.expire_access_ms > 0 && now - x->accessed >= c->o.expire_access_ms);
}

bool sl_lookup_cache_get(sl_lookup_cache *c, uint64_t h, const char *kb, size_t kn,
                         int64_t now_ms, const char **val, size_t *vlen)
{
    int *slot = sl__lc_slot(c, h, kb, kn);
    if (*slot < 0)
        return false;
    sl__lc_entry *x = &c->e[*slot];
    if (sl__lc_expired(c, x, now_ms)) {
        sl__lc_remove(c, slot);
        return false;
    }
    x->accessed = now_ms;
    sl__lc_unlink(c, *slot);
    sl__lc_front(c, *slot);
    *val = x->kb + x->kn;
    *vlen = x->vn;
    return true;
}

static void sl__lc_grow(sl_lookup_cache *c)
{
    size_t n = c->nbuckets * 2;
    int *b = sl_malloc(n * sizeof(int));
    memset(b, 0xff, n * sizeof(int));
    for (int i = 0; i < c->ne; i++) {
        sl__lc_entry *x = &c->e[i];
        if (!x->used)
            continue;
        size_t k = x->hash & (n - 1);
        x->next = b[k];
        b[k] = i;
    }
    sl_free(c->buckets);
    c->buckets = b;
    c->nbuckets = n;
}

void sl_lookup_cache_put(sl_lookup_cache *c, uint64_t h, const char *kb, size_t kn,
                         const char *val, size_t vlen, int64_t now_ms)
{
    int *slot = sl__lc_slot(c, h, kb, kn);
    if (*slot >= 0)
        sl__lc_remove(c, slot);
    int i;
    if (c->free_head >= 0) {
        i = c->free_head;
        c->free_head = c->e[i].next;
    } else {
        if (c->ne == c->cap) {
            c->cap = c->cap ? c->cap * 2 : 64;
            c->e = sl_realloc(c->e, (size_t)c->cap * sizeof *c->e);
        }
        i = c->ne++;
    }
    sl__lc_entry *x = &c->e[i];
    memset(x, 0, sizeof *x);
    x->used = true;
    x->hash = h;
    x->kb = sl_malloc(kn + vlen + 1);
    memcpy(x->kb, kb, kn);
    if (vlen)
        memcpy(x->kb + kn, val, vlen);
    x->kn = kn;
    x->vn = vlen;
    x->written = x->accessed = now_ms;
    x->prev_r = x->next_r = -1;
    size_t k = h & (c->nbuckets - 1);
    x->next = c->buckets[k];
    c->buckets[k] = i;
    sl__lc_front(c, i);
    c->size++;
    while (c->o.max_rows > 0 && c->size > c->o.max_rows && c->tail >= 0) {
        sl__lc_entry *old = &c->e[c->tail];
        sl__lc_remove(c, sl__lc_slot(c, old->hash, old->kb, old->kn));
    }
    if ((size_t)c->size * 2 > c->nbuckets)
        sl__lc_grow(c);
}
