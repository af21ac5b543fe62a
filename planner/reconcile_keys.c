/*
** reconcile_keys.c — RECONCILE's comparison on the business key: a hash
** table from each key (its columns' values, NULL-safe) to what the source
** of truth and the ledger hold for it (the COMPARE columns' values, rows
** per side), and the four data checks read from it (missing, duplicated,
** extra, mismatched) with their first sample keys.
**
** Values arrive already cast by the query that read them to one common
** type per column (session_reconcile.c), so equal values have equal bytes
** (decimals by value: 1.5 and 1.50 are both DECIMAL(p, 2) 150). A key is
** encoded as, per column, one byte (0 = NULL, 1 = a value), then for a
** value its text's length (4 bytes) and text: NULL equals NULL, and no
** value can be confused with another. The values are opaque bytes to this
** file (session_reconcile.c's compact binary form).
**
** The sides may arrive interleaved (they are read at once): a key keeps
** the source's first values and the ledger's first values, and whether
** later ledger rows differ from those; mismatched is decided at the end.
**
** Partitions: the table is SL_RK_PARTS tables of its own (a key's by its
** hash's top bits), each with its lock: the two readers add their batches
** partition by partition (sl_rk_part, sl_rk_lock), so they wait for each
** other only on the same partition at once, and a partition grows alone.
**
** Memory: every distinct key of either side is held once: an entry of 16
** bytes plus the encoded key, rounded up to 8 (no values: their hash), and
** 8 bytes per slot of a table at most 3/4 full — about 45 bytes per key
** for a BIGINT key (docs/BENCHMARKS.md).
**
** Main routines: sl_rk_new, sl_rk_add, sl_rk_checks, sl_rk_free.
*/
#include "reconcile_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct sl__rk_entry {
    uint32_t klen;     /* the encoded key's bytes (key) */
    uint8_t nsrc;      /* source rows with this key: 0, 1, 2 = more */
    uint8_t nled;      /* ledger rows with this key: 0, 1, 2 = more */
    uint8_t differs;   /* a row's values differed from vh (sl_rk_add_hashed) */
    uint64_t vh;       /* the hash of the first row's values (either side) */
    char key[];        /* the encoded key, in the entry (one cache line less to reach) */
} sl__rk_entry;

/* A slot: 32 bits of the key's hash (its low bits are the key's home
** slot, so a grow needs no entry) beside its entry's reference: 8 bytes a
** slot, the table is a third of a key's memory. */
typedef struct sl__rk_slot {
    uint32_t tag; /* (uint32_t)hash */
    uint32_t ref; /* the entry: block << 20 | offset / 8 (sl__rk_ent); 0: free */
} sl__rk_slot;

/* The entries' memory: bump allocation in numbered blocks that double from
** 64 KB to 8 MB (an entry's offset / 8 fits 20 bits), each entry
** referenced by its block's number and offset. Blocks of 2 MB and more are
** aligned for transparent huge pages: a probe's entry is a cache miss
** anyway, and with 4 KB pages it was a TLB miss and, the first time, a
** page fault too (sys time was a quarter of the run at 10M keys). */
#define SL__RK_HUGE ((size_t)2 << 20)
#define SL__RK_BLOCK_MAX ((size_t)8 << 20)
#define SL__RK_BLOCKS 4096 /* per partition: 4096 * 8 MB */

typedef struct sl__rk_mem {
    char **blocks;   /* by number */
    uint32_t nblocks;
    char *cur, *end; /* the newest block's free bytes */
    size_t next;     /* the next block's size */
} sl__rk_mem;

static void *sl__rk_big(size_t bytes)
{
    void *p = NULL;
    if (bytes >= SL__RK_HUGE && posix_memalign(&p, SL__RK_HUGE, bytes) == 0)
        madvise(p, bytes, MADV_HUGEPAGE);
    else
        p = sl_malloc(bytes);
    return p;
}

static inline sl__rk_entry *sl__rk_ent(const sl__rk_mem *m, uint32_t ref)
{
    return (sl__rk_entry *)(m->blocks[ref >> 20] + ((size_t)(ref & 0xfffff) << 3));
}

/* n bytes for an entry, and its reference (never 0: a block's first 8
** bytes are not handed out). */
static sl__rk_entry *sl__rk_alloc(sl__rk_mem *m, size_t n, uint32_t *ref)
{
    n = (n + 7) & ~(size_t)7; /* an entry's alignment */
    if (!m->cur || (size_t)(m->end - m->cur) < n) {
        if (m->nblocks == SL__RK_BLOCKS)
            SL_PANIC("RECONCILE: more than %d blocks of keys in one partition",
                     SL__RK_BLOCKS);
        size_t size = m->next ? m->next : (size_t)64 << 10;
        m->next = size < SL__RK_BLOCK_MAX ? size * 2 : size;
        if (size < n + 8)
            size = n + 8;
        if ((m->nblocks & (m->nblocks - 1)) == 0) /* 0, 1, 2, 4, ...: double the index */
            m->blocks = sl_realloc(m->blocks, sizeof(char *) * (m->nblocks ? m->nblocks * 2 : 1));
        char *b = sl__rk_big(size);
        m->blocks[m->nblocks++] = b;
        m->cur = b + 8;
        m->end = b + size;
    }
    *ref = (m->nblocks - 1) << 20 | (uint32_t)((m->cur - m->blocks[m->nblocks - 1]) >> 3);
    sl__rk_entry *e = (sl__rk_entry *)m->cur;
    m->cur += n;
    return e;
}

static void sl__rk_mem_free(sl__rk_mem *m)
{
    for (uint32_t i = 0; i < m->nblocks; i++)
        sl_free(m->blocks[i]);
    sl_free(m->blocks);
    memset(m, 0, sizeof *m);
}

/* One partition. */
typedef struct sl__rk_part {
    sl__rk_mem mem;       /* the entries */
    sl__rk_slot *slots;   /* open addressing, linear probing */
    size_t cap;           /* slots (a power of two) */
    size_t n;             /* entries */
    pthread_mutex_t mu;   /* sl_rk_lock */
} sl__rk_part;

struct sl_rk {
    sl__rk_part parts[SL_RK_PARTS];
};

/* A zeroed slot array. Written here, not calloc'ed: calloc's fresh pages
** would be the shared zero page until each is first written, so every
** probe's read and then its write would fault twice, the second time with
** a TLB shootdown across the two reader threads (perf: 13 % of the time).
** Large arrays are aligned for transparent huge pages (fewer TLB misses on
** probes that are cache misses anyway). */
static sl__rk_slot *sl__rk_slots(size_t cap)
{
    size_t bytes = cap * sizeof(sl__rk_slot);
    void *p = sl__rk_big(bytes);
    memset(p, 0, bytes);
    return p;
}

sl_rk *sl_rk_new(void)
{
    sl_rk *t = sl_calloc(1, sizeof *t);
    for (int i = 0; i < SL_RK_PARTS; i++) {
        t->parts[i].cap = 256;
        t->parts[i].slots = sl__rk_slots(t->parts[i].cap);
        pthread_mutex_init(&t->parts[i].mu, NULL);
    }
    return t;
}

void sl_rk_free(sl_rk *t)
{
    if (!t)
        return;
    for (int i = 0; i < SL_RK_PARTS; i++) {
        sl__rk_mem_free(&t->parts[i].mem);
        sl_free(t->parts[i].slots);
        pthread_mutex_destroy(&t->parts[i].mu);
    }
    sl_free(t);
}

size_t sl_rk_count(const sl_rk *t)
{
    size_t n = 0;
    for (int i = 0; i < SL_RK_PARTS; i++)
        n += t->parts[i].n;
    return n;
}

int sl_rk_part(uint64_t h)
{
    return (int)(h >> (64 - SL_RK_PART_BITS));
}

void sl_rk_lock(sl_rk *t, int part)
{
    pthread_mutex_lock(&t->parts[part].mu);
}

void sl_rk_unlock(sl_rk *t, int part)
{
    pthread_mutex_unlock(&t->parts[part].mu);
}

static void sl__rk_grow(sl__rk_part *t)
{
    size_t cap = t->cap * 2;
    sl__rk_slot *slots = sl__rk_slots(cap);
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].ref)
            continue;
        size_t j = t->slots[i].tag & (cap - 1);
        while (slots[j].ref)
            j = (j + 1) & (cap - 1);
        slots[j] = t->slots[i];
    }
    sl_free(t->slots);
    t->slots = slots;
    t->cap = cap;
}

uint64_t sl_rk_hash(const char *key, size_t klen)
{
    return sl_hash_bytes(key, klen, 0x5eed);
}

void sl_rk_prefetch(const sl_rk *rk, uint64_t h)
{
    const sl__rk_part *t = &rk->parts[sl_rk_part(h)];
    __builtin_prefetch(&t->slots[(uint32_t)h & (t->cap - 1)]);
}

void sl_rk_add(sl_rk *t, bool ledger, const char *key, size_t klen, const char *vals, size_t vlen)
{
    sl_rk_add_hashed(t, ledger, sl_rk_hash(key, klen), key, klen, vals, vlen);
}

void sl_rk_add_hashed(sl_rk *rk, bool ledger, uint64_t h, const char *key, size_t klen,
                      const char *vals, size_t vlen)
{
    sl__rk_part *t = &rk->parts[sl_rk_part(h)];
    if (t->n * 4 >= t->cap * 3)
        sl__rk_grow(t);
    uint32_t tag = (uint32_t)h, ref;
    size_t j = tag & (t->cap - 1);
    sl__rk_entry *e = NULL;
    while ((ref = t->slots[j].ref) != 0) {
        if (t->slots[j].tag == tag) {
            e = sl__rk_ent(&t->mem, ref);
            if (e->klen == klen && memcmp(e->key, key, klen) == 0)
                break;
            e = NULL;
        }
        j = (j + 1) & (t->cap - 1);
    }
    if (!e) {
        e = sl__rk_alloc(&t->mem, sizeof *e + klen, &ref);
        memset(e, 0, sizeof *e);
        memcpy(e->key, key, klen);
        e->klen = (uint32_t)klen;
        t->slots[j].ref = ref;
        t->slots[j].tag = tag;
        t->n++;
    }
    /* The values by their hash: a mismatch goes unseen only when two
    ** different values' 64-bit hashes are equal (2^-64 per key). One hash
    ** is kept, the first row's of either side; mismatched is "a ledger row
    ** differs from the source's first row", and
    **   source first: every ledger row is compared with it;
    **   ledger first: every later ledger row with the first ledger row
    **     (one differing means some ledger row differs from the source's,
    **     whatever it is), and the source's first row with it too.
    ** Later source rows count, their values do not (as the job's dedup
    ** keeps the first). */
    uint64_t vh = sl_hash_bytes(vals, vlen, 0x7a1e5);
    if (e->nsrc == 0 && e->nled == 0) {
        e->vh = vh;
    } else if (ledger ? 1 : e->nsrc == 0) {
        e->differs |= vh != e->vh;
    }
    if (ledger)
        e->nled += e->nled < 2;
    else
        e->nsrc += e->nsrc < 2;
}

/* Some ledger row's values differ from the source's: the ledger's rows
** differ among themselves, or the first differs. */
static bool sl__rk_mismatch(const sl__rk_entry *e)
{
    if (e->nsrc == 0 || e->nled == 0)
        return false;
    return e->differs;
}

/* A one-column key that is a non-negative integer's digits. */
static bool sl__rk_digits(const sl__rk_entry *e)
{
    if (e->klen <= 5 || e->key[0] != 1)
        return false;
    for (uint32_t i = 5; i < e->klen; i++)
        if (e->key[i] < '0' || e->key[i] > '9')
            return false;
    return true;
}

/* The samples' order: integers by value, else the encoded bytes. */
static int sl__rk_keycmp(const sl__rk_entry *a, const sl__rk_entry *b)
{
    if (a->klen != b->klen && sl__rk_digits(a) && sl__rk_digits(b))
        return a->klen < b->klen ? -1 : 1;
    size_t n = a->klen < b->klen ? a->klen : b->klen;
    int c = memcmp(a->key, b->key, n);
    return c != 0 ? c : (a->klen < b->klen ? -1 : a->klen > b->klen);
}

/* Keep the SL_RK_SAMPLES smallest keys of a check. */
static void sl__rk_sample(sl_rk_check *c, const sl__rk_entry *e)
{
    c->count++;
    int n = c->nsamples;
    if (n == SL_RK_SAMPLES && sl__rk_keycmp(e, c->samples[n - 1]) >= 0)
        return;
    int i = n < SL_RK_SAMPLES ? n : n - 1;
    while (i > 0 && sl__rk_keycmp(e, c->samples[i - 1]) < 0) {
        c->samples[i] = c->samples[i - 1];
        i--;
    }
    c->samples[i] = e;
    if (n < SL_RK_SAMPLES)
        c->nsamples++;
}

static void sl__rk_part_checks(const sl__rk_part *t, sl_rk_check out[SL_RK_NCHECKS])
{
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].ref)
            continue;
        const sl__rk_entry *e = sl__rk_ent(&t->mem, t->slots[i].ref);
        if (e->nsrc > 0 && e->nled == 0)
            sl__rk_sample(&out[SL_RK_MISSING], e);
        if (e->nled > 1)
            sl__rk_sample(&out[SL_RK_DUPLICATED], e);
        if (e->nsrc == 0)
            sl__rk_sample(&out[SL_RK_EXTRA], e);
        if (sl__rk_mismatch(e))
            sl__rk_sample(&out[SL_RK_MISMATCHED], e);
    }
}

void sl_rk_checks(const sl_rk *rk, sl_rk_check out[SL_RK_NCHECKS])
{
    memset(out, 0, sizeof(sl_rk_check) * SL_RK_NCHECKS);
    for (int p = 0; p < SL_RK_PARTS; p++)
        sl__rk_part_checks(&rk->parts[p], out);
}

void sl_rk_encode(sl_strbuf *sb, int n, const char *const *values, const size_t *lens)
{
    for (int i = 0; i < n; i++) {
        if (!values[i]) {
            sl_strbuf_append_char(sb, 0);
            continue;
        }
        uint32_t len = (uint32_t)lens[i];
        sl_strbuf_append_char(sb, 1);
        sl_strbuf_append_n(sb, (const char *)&len, sizeof len);
        sl_strbuf_append_n(sb, values[i], len);
    }
}

void sl_rk_key_format(sl_strbuf *sb, const void *entry, int n, const char *const *names)
{
    const sl__rk_entry *e = entry;
    const char *p = e->key, *end = e->key + e->klen;
    if (n > 1)
        sl_strbuf_append_char(sb, '(');
    for (int i = 0; i < n && p < end; i++) {
        sl_strbuf_appendf(sb, "%s%s=", i ? ", " : "", names[i]);
        if (*p++ == 0) {
            sl_strbuf_append(sb, "NULL");
            continue;
        }
        uint32_t len;
        memcpy(&len, p, sizeof len);
        p += sizeof len;
        sl_strbuf_append_n(sb, p, len);
        p += len;
    }
    if (n > 1)
        sl_strbuf_append_char(sb, ')');
}

void sl_rk_each_missing(const sl_rk *rk, void (*fn)(void *ctx, const char *v, size_t len),
                        void *ctx)
{
    for (int p = 0; p < SL_RK_PARTS; p++) {
        const sl__rk_part *t = &rk->parts[p];
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slots[i].ref)
                continue;
            const sl__rk_entry *e = sl__rk_ent(&t->mem, t->slots[i].ref);
            if (e->nsrc == 0 || e->nled > 0 || e->klen < 5 || e->key[0] != 1)
                continue; /* not missing, or a NULL key */
            uint32_t len;
            memcpy(&len, e->key + 1, sizeof len);
            fn(ctx, e->key + 5, len);
        }
    }
}
