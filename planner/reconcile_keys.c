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
** file (session_reconcile.c's compact binary form), kept as their hash.
**
** The sides may arrive interleaved (they are read at once): a key keeps
** the hash of its first row's values and whether a row since differed in
** a way that makes it mismatched (sl_rk_add_hashed).
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
** Spilling (grace hash): with a budget (sl_rk_set_budget, the option
** 'table.exec.reconcile.memory'), the table's memory (entries, slot arrays,
** spill buffers) is counted when a partition's lock is released
** (sl_rk_unlock, once per partition per batch, not per row), so it may
** pass the budget by one batch. Past it, the largest partitions in memory
** are spilled until it fits: a spilled partition's entries (both sides'
** state) are written to a file of its own, its memory freed, and every
** later row of that partition is appended to the file instead (the add
** path's one extra branch). Writes go through a buffer per spilled
** partition (budget/128, 4 kB to 1 MB), no syscall per row.
**
** sl_rk_checks and sl_rk_each_missing read the partitions in memory, then
** each spilled one in turn: its file is loaded into a fresh partition in
** the order it was written (the entries first, then the rows appended
** later: the first values are the same as without spilling) and freed.
** Before that the partitions in memory are spilled down to half the
** budget, so a loaded partition has the other half. A loaded partition
** that outgrows it is split by the next 4 bits of the hash into 16 files,
** recursively, at most SL__RK_MAX_LEVEL times (38 bits of the hash in
** all): past that, or below SL__RK_MIN_SPLIT keys, a partition is loaded
** whatever its size (only very long keys or values get there).
** The samples are the smallest keys whatever the order the partitions are
** read in, so they are the same with and without spilling; a sample from
** a loaded partition is copied before the partition is freed.
**
** Spill files: in a directory "reconcile-XXXXXX" made at the first spill
** under the temporary directory the caller names (RECONCILE: the engine's
** data directory's tmp/, not $TMPDIR, which is often a tmpfs, that is,
** memory again). Each file is unlinked as soon as it is created, so none
** is left behind whatever ends the statement (an error, 57014, kill -9);
** sl_rk_free closes them and removes the directory.
**
** Errors: an add or a check cannot fail to its caller (void); a failed
** spill (a full disk) or an interrupt while loading is kept, the table
** stops spilling and reading, and sl_rk_error reports it.
**
** Main routines: sl_rk_new, sl_rk_set_budget, sl_rk_add, sl_rk_checks,
** sl_rk_each_missing, sl_rk_error, sl_rk_free.
*/
#include "reconcile_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
#define SL__RK_BLOCK_MAX ((size_t)8 << 20)
#define SL__RK_BLOCKS 4096 /* per partition: 4096 * 8 MB */

typedef struct sl__rk_mem {
    char **blocks;   /* by number */
    uint32_t nblocks;
    char *cur, *end; /* the newest block's free bytes */
    size_t next;     /* the next block's size */
    size_t bytes;    /* the blocks' bytes (the budget counts them) */
} sl__rk_mem;

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
        char *b = sl_malloc_huge(size);
        m->blocks[m->nblocks++] = b;
        m->bytes += size;
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

/* A spill file: unlinked, written through buf, read back with pread. */
typedef struct sl__rk_file {
    int fd;            /* -1: none */
    char *buf;         /* the write buffer (NULL once flushed for good) */
    size_t len;        /* bytes in buf */
    size_t size;       /* bytes written to fd */
} sl__rk_file;

/* One partition. */
typedef struct sl__rk_part {
    sl__rk_mem heap;      /* the entries */
    sl__rk_slot *slots;   /* open addressing, linear probing */
    size_t cap;           /* slots (a power of two) */
    size_t n;             /* entries */
    pthread_mutex_t mu;   /* sl_rk_lock */
    sl__rk_file *spill;   /* spilled: its rows go to this file; NULL: in memory */
    atomic_size_t mem;    /* bytes counted in sl_rk.mem (set under mu) */
} sl__rk_part;

struct sl_rk {
    sl__rk_part parts[SL_RK_PARTS];
    size_t budget;                      /* bytes; 0 = no spilling */
    size_t bufsz;                       /* a spill file's write buffer */
    char *tmpbase;                      /* where the spill directory goes */
    char *tmpdir;                       /* the spill directory, once made */
    const volatile sig_atomic_t *stop;  /* the statement's interrupt, or NULL */
    atomic_size_t mem;                  /* the partitions' bytes */
    pthread_mutex_t spill_mu;           /* one spiller at a time (before any partition's lock) */
    atomic_bool failed;                 /* err is set (by the first failure) */
    sl_error err;
    sl_arena kept;                      /* copies of samples from loaded partitions */
    size_t peak;                        /* the most bytes at once (tests, docs) */
    int nspilled;                       /* partitions spilled (and split) so far */
};

#define SL__RK_SPLIT_BITS 4
#define SL__RK_SPLIT (1 << SL__RK_SPLIT_BITS)
#define SL__RK_MAX_LEVEL 8
#define SL__RK_MIN_SPLIT 64 /* keys: fewer are loaded whatever the budget (a split would not help) */

/* A zeroed slot array (sl_calloc_huge: calloc's zero pages cost a second
** fault and a TLB shootdown between the two readers, 13 % of the time). */
static sl__rk_slot *sl__rk_slots(size_t cap)
{
    return sl_calloc_huge(cap, sizeof(sl__rk_slot));
}

static void sl__rk_part_init(sl__rk_part *t)
{
    memset(&t->heap, 0, sizeof t->heap);
    t->cap = 256;
    t->slots = sl__rk_slots(t->cap);
    t->n = 0;
    t->spill = NULL;
    atomic_init(&t->mem, 0);
}

static size_t sl__rk_part_mem(const sl__rk_part *t, size_t bufsz)
{
    return t->heap.bytes + t->cap * sizeof(sl__rk_slot) + (t->spill ? bufsz : 0);
}

/* Its memory freed, an empty table of one slot (sl_rk_prefetch reads it). */
static void sl__rk_part_empty(sl__rk_part *t)
{
    sl__rk_mem_free(&t->heap);
    sl_free(t->slots);
    t->cap = 1;
    t->slots = sl__rk_slots(1);
    t->n = 0;
}

static void sl__rk_file_close(sl__rk_file *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    sl_free(f->buf);
    sl_free(f);
}

sl_rk *sl_rk_new(void)
{
    sl_rk *t = sl_calloc(1, sizeof *t);
    for (int i = 0; i < SL_RK_PARTS; i++) {
        sl__rk_part_init(&t->parts[i]);
        pthread_mutex_init(&t->parts[i].mu, NULL);
    }
    pthread_mutex_init(&t->spill_mu, NULL);
    atomic_init(&t->mem, 0);
    atomic_init(&t->failed, false);
    t->err = (sl_error)SL_ERROR_INIT;
    return t;
}

void sl_rk_set_budget(sl_rk *t, size_t bytes, const char *tmpdir,
                      const volatile sig_atomic_t *interrupt)
{
    t->budget = bytes;
    size_t b = bytes / 128;
    t->bufsz = b < 4096 ? 4096 : b > (1 << 20) ? (1 << 20) : b;
    sl_free(t->tmpbase);
    t->tmpbase = tmpdir ? sl_strdup(tmpdir) : NULL;
    t->stop = interrupt;
}

void sl_rk_free(sl_rk *t)
{
    if (!t)
        return;
    for (int i = 0; i < SL_RK_PARTS; i++) {
        sl__rk_mem_free(&t->parts[i].heap);
        sl_free(t->parts[i].slots);
        sl__rk_file_close(t->parts[i].spill);
        pthread_mutex_destroy(&t->parts[i].mu);
    }
    if (t->tmpdir)
        rmdir(t->tmpdir); /* its files were unlinked when made */
    sl_free(t->tmpdir);
    sl_free(t->tmpbase);
    sl_arena_free(&t->kept);
    sl_error_reset(&t->err);
    pthread_mutex_destroy(&t->spill_mu);
    sl_free(t);
}

int sl_rk_error(const sl_rk *t, sl_error *err)
{
    if (!atomic_load(&t->failed))
        return 0;
    sl_error_copy(err, &t->err);
    return -1;
}

void sl_rk_stats(const sl_rk *t, size_t *peak, int *nspilled)
{
    *peak = t->peak;
    *nspilled = t->nspilled;
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

/* The key's entry in t, made (counts 0) when it has none. */
static inline sl__rk_entry *sl__rk_entry_of(sl__rk_part *t, uint64_t h, const char *key,
                                            size_t klen)
{
    if (t->n * 4 >= t->cap * 3)
        sl__rk_grow(t);
    uint32_t tag = (uint32_t)h, ref;
    size_t j = tag & (t->cap - 1);
    while ((ref = t->slots[j].ref) != 0) {
        if (t->slots[j].tag == tag) {
            sl__rk_entry *e = sl__rk_ent(&t->heap, ref);
            if (e->klen == klen && memcmp(e->key, key, klen) == 0)
                return e;
        }
        j = (j + 1) & (t->cap - 1);
    }
    sl__rk_entry *e = sl__rk_alloc(&t->heap, sizeof *e + klen, &ref);
    memset(e, 0, sizeof *e);
    memcpy(e->key, key, klen);
    e->klen = (uint32_t)klen;
    t->slots[j].ref = ref;
    t->slots[j].tag = tag;
    t->n++;
    return e;
}

/* ------------------------------------------------------------------------
** Spill files. A record: a tag byte (SL__RK_STATE: an entry's state;
** SL__RK_SRC / SL__RK_LED: one row of a side), the key's hash (8 bytes), the
** key's length (4) and bytes, the values' hash (8; a state's: its first
** row's); a state then nsrc (1), nled (1) and differs (1). Native byte
** order: the file never outlives the process that wrote it.
**
** In every file a key has at most one state, before any of its rows: a
** partition spills its entries (one per key) before the rows that come
** after, and a split writes the entries it loaded before the records that
** follow. So a state always makes a new entry, and a row is added to it as
** sl_rk_add_hashed would (sl__rk_merge).
*/
enum { SL__RK_STATE = 1, SL__RK_SRC = 2, SL__RK_LED = 3 };

/* Keep the first failure; everything after it is skipped. */
static void sl__rk_fail(sl_rk *rk, const char *sqlstate, const char *what, const char *path,
                        int e)
{
    if (atomic_exchange(&rk->failed, true))
        return;
    sl_error_set(&rk->err, sqlstate, -1, "%s \"%s\"%s%s", what, path, e ? ": " : "",
                 e ? strerror(e) : "");
}

static int sl__rk_mkdir(sl_rk *rk)
{
    if (rk->tmpdir)
        return 0;
    const char *base = rk->tmpbase;
    if (!base || !*base) {
        base = getenv("TMPDIR");
        if (!base || !*base)
            base = "/tmp";
    }
    if (mkdir(base, 0700) != 0 && errno != EEXIST) {
        sl__rk_fail(rk, SL_ERR_IO, "could not create RECONCILE's spill directory", base, errno);
        return -1;
    }
    char *dir = sl_sprintf("%s/reconcile-XXXXXX", base);
    if (!mkdtemp(dir)) {
        sl__rk_fail(rk, SL_ERR_IO, "could not create RECONCILE's spill directory", dir, errno);
        sl_free(dir);
        return -1;
    }
    rk->tmpdir = dir;
    return 0;
}

/* A new, unlinked spill file, or NULL (rk failed). */
static sl__rk_file *sl__rk_file_new(sl_rk *rk)
{
    if (atomic_load(&rk->failed) || sl__rk_mkdir(rk) != 0)
        return NULL;
    char *path = sl_sprintf("%s/part-XXXXXX", rk->tmpdir);
    int fd = mkstemp(path);
    if (fd < 0) {
        sl__rk_fail(rk, SL_ERR_IO, "could not create RECONCILE's spill file", path, errno);
        sl_free(path);
        return NULL;
    }
    unlink(path);
    sl_free(path);
    sl__rk_file *f = sl_calloc(1, sizeof *f);
    f->fd = fd;
    f->buf = sl_malloc(rk->bufsz);
    return f;
}

static void sl__rk_write(sl_rk *rk, sl__rk_file *f, const char *p, size_t n)
{
    size_t off = 0;
    while (off < n && !atomic_load(&rk->failed)) {
        ssize_t w = write(f->fd, p + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            sl__rk_fail(rk, SL_ERR_IO, "could not write RECONCILE's spill file in", rk->tmpdir,
                        w < 0 ? errno : ENOSPC);
            break;
        }
        off += (size_t)w;
    }
    f->size += n;
}

static void sl__rk_flush(sl_rk *rk, sl__rk_file *f)
{
    sl__rk_write(rk, f, f->buf, f->len);
    f->len = 0;
}

static void sl__rk_put(sl_rk *rk, sl__rk_file *f, const void *p, size_t n)
{
    if (f->len + n > rk->bufsz) {
        sl__rk_flush(rk, f);
        if (n > rk->bufsz) { /* a value longer than the buffer: straight through */
            sl__rk_write(rk, f, p, n);
            return;
        }
    }
    memcpy(f->buf + f->len, p, n);
    f->len += n;
}

static void sl__rk_put_head(sl_rk *rk, sl__rk_file *f, uint8_t tag, uint64_t h,
                            const char *key, uint32_t klen)
{
    char head[1 + sizeof h + sizeof klen];
    head[0] = (char)tag;
    memcpy(head + 1, &h, sizeof h);
    memcpy(head + 1 + sizeof h, &klen, sizeof klen);
    sl__rk_put(rk, f, head, sizeof head);
    sl__rk_put(rk, f, key, klen);
}

/* One record, parsed. */
typedef struct sl__rk_rec {
    uint8_t tag;       /* SL__RK_STATE, SL__RK_SRC, SL__RK_LED */
    uint64_t h;        /* the key's hash */
    const char *key;
    uint32_t klen;
    uint64_t vh;       /* the values' hash (a state's: its first row's) */
    uint8_t nsrc, nled, differs; /* a state's */
} sl__rk_rec;

static void sl__rk_put_rec(sl_rk *rk, sl__rk_file *f, const sl__rk_rec *c)
{
    sl__rk_put_head(rk, f, c->tag, c->h, c->key, c->klen);
    char st[sizeof c->vh + 3];
    memcpy(st, &c->vh, sizeof c->vh);
    st[sizeof c->vh] = (char)c->nsrc;
    st[sizeof c->vh + 1] = (char)c->nled;
    st[sizeof c->vh + 2] = (char)c->differs;
    sl__rk_put(rk, f, st, c->tag == SL__RK_STATE ? sizeof st : sizeof c->vh);
}

/* An entry's state (its hash computed again: a slot keeps 32 bits). */
static void sl__rk_put_state(sl_rk *rk, sl__rk_file *f, const sl__rk_entry *e)
{
    sl__rk_rec c = {SL__RK_STATE, sl_rk_hash(e->key, e->klen), e->key, e->klen, e->vh,
                    e->nsrc, e->nled, e->differs};
    sl__rk_put_rec(rk, f, &c);
}

/* A row of a spilled partition (under its lock). */
static void sl__rk_spill_row(sl_rk *rk, sl__rk_file *f, bool ledger, uint64_t h,
                             const char *key, size_t klen, uint64_t vh)
{
    sl__rk_rec c = {ledger ? SL__RK_LED : SL__RK_SRC, h, key, (uint32_t)klen, vh, 0, 0, 0};
    sl__rk_put_rec(rk, f, &c);
}

/* Spill partition t (its lock held): its entries to a new file, its memory
** freed. */
static void sl__rk_spill_part(sl_rk *rk, sl__rk_part *t)
{
    sl__rk_file *f = sl__rk_file_new(rk);
    if (!f)
        return;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].ref)
            sl__rk_put_state(rk, f, sl__rk_ent(&t->heap, t->slots[i].ref));
    sl__rk_part_empty(t);
    t->spill = f;
    size_t m = sl__rk_part_mem(t, rk->bufsz);
    atomic_fetch_sub(&rk->mem, atomic_load(&t->mem) - m);
    atomic_store(&t->mem, m);
    rk->nspilled++;
}

/* Spill the largest partitions in memory until the table's bytes are at
** most limit (or none is left). Takes no lock while holding a partition's:
** spill_mu, then one partition's at a time. */
static void sl__rk_spill_to(sl_rk *rk, size_t limit)
{
    pthread_mutex_lock(&rk->spill_mu);
    bool tried[SL_RK_PARTS] = {false};
    while (atomic_load(&rk->mem) > limit && !atomic_load(&rk->failed)) {
        int v = -1;
        size_t best = 0;
        for (int p = 0; p < SL_RK_PARTS; p++) {
            size_t m = atomic_load_explicit(&rk->parts[p].mem, memory_order_relaxed);
            if (!tried[p] && m > best) {
                best = m;
                v = p;
            }
        }
        if (v < 0)
            break;
        tried[v] = true;
        sl__rk_part *t = &rk->parts[v];
        pthread_mutex_lock(&t->mu);
        if (!t->spill && t->n > 0)
            sl__rk_spill_part(rk, t);
        pthread_mutex_unlock(&t->mu);
    }
    pthread_mutex_unlock(&rk->spill_mu);
}

/* Count the partition's bytes as its lock is released (once per batch of
** the partition's rows): past the budget, spill. */
void sl_rk_unlock(sl_rk *rk, int part)
{
    sl__rk_part *t = &rk->parts[part];
    bool over = false;
    if (rk->budget && !atomic_load_explicit(&rk->failed, memory_order_relaxed)) {
        size_t m = sl__rk_part_mem(t, rk->bufsz), old = atomic_load(&t->mem);
        atomic_store(&t->mem, m);
        size_t total = atomic_fetch_add(&rk->mem, m - old) + (m - old);
        over = total > rk->budget;
    }
    pthread_mutex_unlock(&t->mu);
    if (over) {
        size_t total = atomic_load(&rk->mem);
        pthread_mutex_lock(&rk->spill_mu);
        if (total > rk->peak)
            rk->peak = total;
        pthread_mutex_unlock(&rk->spill_mu);
        sl__rk_spill_to(rk, rk->budget);
    }
}

/* A row into entry e. The values by their hash: a mismatch goes unseen
** only when two different values' 64-bit hashes are equal (2^-64 per key).
** One hash is kept, the first row's of either side; mismatched is "a
** ledger row differs from the source's first row", and
**   source first: every ledger row is compared with it;
**   ledger first: every later ledger row with the first ledger row (one
**     differing means some ledger row differs from the source's, whatever
**     it is), and the source's first row with it too.
** Later source rows count, their values do not (as the job's dedup keeps
** the first). */
static inline void sl__rk_row(sl__rk_entry *e, bool ledger, uint64_t vh)
{
    if (e->nsrc == 0 && e->nled == 0)
        e->vh = vh;
    else if (ledger || e->nsrc == 0)
        e->differs |= vh != e->vh;
    if (ledger)
        e->nled += e->nled < 2;
    else
        e->nsrc += e->nsrc < 2;
}

void sl_rk_add_hashed(sl_rk *rk, bool ledger, uint64_t h, const char *key, size_t klen,
                      const char *vals, size_t vlen)
{
    sl__rk_part *t = &rk->parts[sl_rk_part(h)];
    uint64_t vh = sl_hash_bytes(vals, vlen, 0x7a1e5);
    if (t->spill) { /* the one branch spilling costs the add */
        sl__rk_spill_row(rk, t->spill, ledger, h, key, klen, vh);
        return;
    }
    sl__rk_row(sl__rk_entry_of(t, h, key, klen), ledger, vh);
}

/* A record read back into t: a state makes its key's entry (the first
** record of the key in its file), a row is added as sl_rk_add_hashed
** would. */
static void sl__rk_merge(sl_rk *rk, sl__rk_part *t, const sl__rk_rec *c)
{
    size_t n = t->n;
    sl__rk_entry *e = sl__rk_entry_of(t, c->h, c->key, c->klen);
    if (c->tag != SL__RK_STATE) {
        sl__rk_row(e, c->tag == SL__RK_LED, c->vh);
        return;
    }
    if (t->n == n) { /* not the key's first record: a file this file never writes */
        if (!atomic_exchange(&rk->failed, true))
            sl_error_set(&rk->err, SL_ERR_INTERNAL, -1,
                         "RECONCILE's spill file holds a key's state after its rows");
        return;
    }
    e->vh = c->vh;
    e->nsrc = c->nsrc;
    e->nled = c->nled;
    e->differs = c->differs;
}

/* ------------------------------------------------------------------------
** Reading a spill file back.
*/
typedef struct sl__rk_reader {
    sl_rk *rk;
    const sl__rk_file *f;
    size_t off;        /* the file's next byte */
    char *buf;         /* bytes [buf_at, buf_at + len) of the file */
    size_t len, pos;   /* bytes in buf; the next one */
    sl_strbuf rec;     /* the current record */
} sl__rk_reader;

static bool sl__rk_get(sl__rk_reader *r, void *dst, size_t n)
{
    char *d = dst;
    while (n > 0) {
        if (r->pos == r->len) {
            size_t want = r->f->size - r->off;
            if (want == 0)
                return false;
            if (want > r->rk->bufsz)
                want = r->rk->bufsz;
            ssize_t got = pread(r->f->fd, r->buf, want, (off_t)r->off);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                sl__rk_fail(r->rk, SL_ERR_IO, "could not read RECONCILE's spill file in",
                            r->rk->tmpdir, got < 0 ? errno : EIO);
                return false;
            }
            r->off += (size_t)got;
            r->len = (size_t)got;
            r->pos = 0;
        }
        size_t k = r->len - r->pos < n ? r->len - r->pos : n;
        memcpy(d, r->buf + r->pos, k);
        r->pos += k;
        d += k;
        n -= k;
    }
    return true;
}

/* Append a length and that many bytes to the record; their offset. */
static bool sl__rk_get_bytes(sl__rk_reader *r, size_t *at, uint32_t *len)
{
    if (!sl__rk_get(r, len, sizeof *len))
        return false;
    *at = r->rec.len;
    if (*len > r->f->size) /* a length no file of ours holds */
        return false;
    sl_strbuf_reserve(&r->rec, *len);
    if (!sl__rk_get(r, r->rec.buf + r->rec.len, *len))
        return false;
    r->rec.len += *len;
    return true;
}

/* The next record into *c (0), the end (1), or a failure (-1, rk failed). */
static int sl__rk_next(sl__rk_reader *r, sl__rk_rec *c)
{
    if (r->off == r->f->size && r->pos == r->len)
        return 1;
    sl_strbuf_reset(&r->rec);
    memset(c, 0, sizeof *c);
    size_t kat = 0;
    bool ok = sl__rk_get(r, &c->tag, 1) && sl__rk_get(r, &c->h, sizeof c->h) &&
              sl__rk_get_bytes(r, &kat, &c->klen) && sl__rk_get(r, &c->vh, sizeof c->vh);
    if (ok && c->tag == SL__RK_STATE)
        ok = sl__rk_get(r, &c->nsrc, 1) && sl__rk_get(r, &c->nled, 1) &&
             sl__rk_get(r, &c->differs, 1);
    else if (ok)
        ok = c->tag == SL__RK_SRC || c->tag == SL__RK_LED;
    if (!ok) {
        sl__rk_fail(r->rk, SL_ERR_DATA_CORRUPTED, "a record cut short in RECONCILE's spill file in",
                    r->rk->tmpdir, 0);
        return -1;
    }
    c->key = r->rec.buf + kat; /* the record's buffer no longer moves */
    return 0;
}

/* What is done with each partition read back: its entries are visited,
** then it is freed. */
typedef void (*sl__rk_visit_fn)(sl_rk *rk, const sl__rk_part *t, bool loaded, void *ctx);

/* Bytes a loaded partition may take now: the budget less what stays in
** memory and the buffers of a split. */
static size_t sl__rk_load_budget(sl_rk *rk)
{
    size_t fixed = atomic_load(&rk->mem) + (SL__RK_SPLIT + 1) * rk->bufsz;
    size_t min = rk->budget / 4;
    return rk->budget > fixed + min ? rk->budget - fixed : min;
}

static bool sl__rk_interrupted(sl_rk *rk)
{
    if (rk->stop && *rk->stop) {
        if (!atomic_exchange(&rk->failed, true))
            sl_error_set(&rk->err, SL_ERR_QUERY_CANCELED, -1,
                         "canceling statement due to user request");
        return true;
    }
    return atomic_load(&rk->failed);
}

/* Read spill file f (of depth level: its keys share the top 6 + 4 * (level
** - 1) bits of their hash) into a fresh partition and visit it; when it
** outgrows the load budget, split it by the next 4 bits into files read
** the same way. */
static void sl__rk_load(sl_rk *rk, const sl__rk_file *f, int level, sl__rk_visit_fn fn,
                        void *ctx)
{
    sl__rk_part t;
    sl__rk_part_init(&t);
    sl__rk_reader r = {rk, f, 0, sl_malloc(rk->bufsz), 0, 0, SL_STRBUF_INIT};
    sl__rk_file *kids[SL__RK_SPLIT] = {NULL};
    bool split = false;
    int shift = 64 - SL_RK_PART_BITS - SL__RK_SPLIT_BITS * level;
    size_t limit = sl__rk_load_budget(rk);
    sl__rk_rec c;
    for (uint64_t i = 0; sl__rk_next(&r, &c) == 0; i++) {
        if ((i & 4095) == 0 && sl__rk_interrupted(rk))
            break;
        if (split) {
            sl__rk_put_rec(rk, kids[(c.h >> shift) & (SL__RK_SPLIT - 1)], &c);
            continue;
        }
        sl__rk_merge(rk, &t, &c);
        if (level < SL__RK_MAX_LEVEL && t.n >= SL__RK_MIN_SPLIT && sl__rk_part_mem(&t, 0) > limit) {
            /* too large to load: what is loaded and the rest go to 16 files */
            for (int k = 0; k < SL__RK_SPLIT; k++)
                if (!(kids[k] = sl__rk_file_new(rk)))
                    break;
            if (atomic_load(&rk->failed))
                break;
            for (size_t j = 0; j < t.cap; j++) {
                if (!t.slots[j].ref)
                    continue;
                const sl__rk_entry *e = sl__rk_ent(&t.heap, t.slots[j].ref);
                uint64_t h = sl_rk_hash(e->key, e->klen);
                sl__rk_put_state(rk, kids[(h >> shift) & (SL__RK_SPLIT - 1)], e);
            }
            sl__rk_part_empty(&t);
            split = true;
            pthread_mutex_lock(&rk->spill_mu);
            rk->nspilled += SL__RK_SPLIT;
            pthread_mutex_unlock(&rk->spill_mu);
        }
        size_t now = atomic_load(&rk->mem) + sl__rk_part_mem(&t, 0) + rk->bufsz;
        if (now > rk->peak)
            rk->peak = now;
    }
    sl_free(r.buf);
    sl_strbuf_free(&r.rec);
    if (!split && !atomic_load(&rk->failed))
        fn(rk, &t, true, ctx);
    sl__rk_mem_free(&t.heap);
    sl_free(t.slots);
    for (int k = 0; k < SL__RK_SPLIT; k++) {
        if (!kids[k])
            continue;
        sl__rk_flush(rk, kids[k]);
        sl_free(kids[k]->buf);
        kids[k]->buf = NULL;
    }
    for (int k = 0; k < SL__RK_SPLIT; k++) {
        if (kids[k] && !atomic_load(&rk->failed))
            sl__rk_load(rk, kids[k], level + 1, fn, ctx);
        sl__rk_file_close(kids[k]);
    }
}

/* No more rows come: the spill files' last bytes written, their buffers'
** memory freed. */
static void sl__rk_seal(sl_rk *rk)
{
    for (int p = 0; p < SL_RK_PARTS; p++) {
        sl__rk_part *t = &rk->parts[p];
        if (!t->spill || !t->spill->buf)
            continue;
        sl__rk_flush(rk, t->spill);
        sl_free(t->spill->buf);
        t->spill->buf = NULL;
        size_t m = sl__rk_part_mem(t, 0);
        atomic_fetch_sub(&rk->mem, atomic_load(&t->mem) - m);
        atomic_store(&t->mem, m);
    }
}

/* Visit every partition: those in memory, then each spilled one read back.
** With spilled partitions, those in memory are spilled first down to half
** the budget, and the spill files' last bytes written. */
static void sl__rk_each_part(sl_rk *rk, sl__rk_visit_fn fn, void *ctx)
{
    bool spilled = false;
    for (int p = 0; p < SL_RK_PARTS; p++)
        spilled |= rk->parts[p].spill != NULL;
    if (spilled) {
        sl__rk_seal(rk);
        sl__rk_spill_to(rk, rk->budget / 2);
        sl__rk_seal(rk);
    }
    for (int p = 0; p < SL_RK_PARTS; p++)
        if (!rk->parts[p].spill)
            fn(rk, &rk->parts[p], false, ctx);
    for (int p = 0; p < SL_RK_PARTS && !atomic_load(&rk->failed); p++)
        if (rk->parts[p].spill)
            sl__rk_load(rk, rk->parts[p].spill, 1, fn, ctx);
}

/* ------------------------------------------------------------------------
** The checks
*/

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

/* A sample's copy that lives as long as rk (only its key is read). */
static const sl__rk_entry *sl__rk_keep(sl_rk *rk, const sl__rk_entry *e)
{
    sl__rk_entry *copy = sl_arena_alloc(&rk->kept, sizeof *copy + e->klen);
    memset(copy, 0, sizeof *copy);
    copy->klen = e->klen;
    memcpy(copy->key, e->key, e->klen);
    return copy;
}

static void sl__rk_part_checks(sl_rk *rk, const sl__rk_part *t, bool loaded, void *ctx)
{
    sl_rk_check *out = ctx;
    const void *before[SL_RK_NCHECKS][SL_RK_SAMPLES];
    for (int k = 0; k < SL_RK_NCHECKS; k++)
        memcpy(before[k], out[k].samples, sizeof before[k]);
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].ref)
            continue;
        const sl__rk_entry *e = sl__rk_ent(&t->heap, t->slots[i].ref);
        if (e->nsrc > 0 && e->nled == 0)
            sl__rk_sample(&out[SL_RK_MISSING], e);
        if (e->nled > 1)
            sl__rk_sample(&out[SL_RK_DUPLICATED], e);
        if (e->nsrc == 0)
            sl__rk_sample(&out[SL_RK_EXTRA], e);
        if (sl__rk_mismatch(e))
            sl__rk_sample(&out[SL_RK_MISMATCHED], e);
    }
    if (!loaded)
        return; /* a partition that stays in memory */
    /* a loaded partition is freed next: copy the samples it gave (the
    ** samples that were not there before; only their keys are read) */
    for (int k = 0; k < SL_RK_NCHECKS; k++) {
        for (int s = 0; s < out[k].nsamples; s++) {
            const sl__rk_entry *e = out[k].samples[s];
            bool old = false;
            for (int b = 0; b < SL_RK_SAMPLES && !old; b++)
                old = before[k][b] == e;
            if (!old)
                out[k].samples[s] = sl__rk_keep(rk, e);
        }
    }
}

/* const to the caller: the checks change no key's state; reading the
** spilled partitions back uses the table's spill state. */
void sl_rk_checks(const sl_rk *crk, sl_rk_check out[SL_RK_NCHECKS])
{
    sl_rk *rk = (sl_rk *)crk;
    memset(out, 0, sizeof(sl_rk_check) * SL_RK_NCHECKS);
    sl__rk_each_part(rk, sl__rk_part_checks, out);
    if (rk->nspilled == 0)
        return;
    /* a partition in memory may yet spill (sl_rk_each_missing makes room):
    ** the samples outlive it */
    for (int k = 0; k < SL_RK_NCHECKS; k++)
        for (int s = 0; s < out[k].nsamples; s++)
            out[k].samples[s] = sl__rk_keep(rk, out[k].samples[s]);
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

typedef struct sl__rk_missing {
    void (*fn)(void *ctx, const char *v, size_t len);
    void *ctx;
} sl__rk_missing;

static void sl__rk_part_missing(sl_rk *rk, const sl__rk_part *t, bool loaded, void *ctx)
{
    (void)rk;
    (void)loaded;
    const sl__rk_missing *m = ctx;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].ref)
            continue;
        const sl__rk_entry *e = sl__rk_ent(&t->heap, t->slots[i].ref);
        if (e->nsrc == 0 || e->nled > 0 || e->klen < 5 || e->key[0] != 1)
            continue; /* not missing, or a NULL key */
        uint32_t len;
        memcpy(&len, e->key + 1, sizeof len);
        m->fn(m->ctx, e->key + 5, len);
    }
}

void sl_rk_each_missing(const sl_rk *rk, void (*fn)(void *ctx, const char *v, size_t len),
                        void *ctx)
{
    sl__rk_missing m = {fn, ctx};
    sl__rk_each_part((sl_rk *)rk, sl__rk_part_missing, &m);
}
