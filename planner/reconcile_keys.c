/*
** reconcile_keys.c — RECONCILE's comparison on the business key: a hash
** table from each key (its columns' values, NULL-safe) to what the source
** of truth and the ledger hold for it (the COMPARE columns' values, rows
** per side), and the four data checks read from it (missing, duplicated,
** extra, mismatched) with their first sample keys.
**
** Values arrive as text already cast by the query that read them to one
** common type per column (session_reconcile.c), so equal values have equal
** text (decimals by value: 1.5 and 1.50 are both DECIMAL(p, 2) "1.50"). A
** key or row is encoded as, per column, one byte (0 = NULL, 1 = a value),
** then for a value its length (4 bytes) and bytes: NULL equals NULL, and no
** value can be confused with another.
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
** Memory: every distinct key of either side is held once, in an arena
** (an entry of 48 bytes holding its encoded key, the source's and the
** ledger's first encoded values, 16 bytes of the table per slot, a table
** at most 3/4 full): about 70 bytes plus the key's and both values' text
** per key, each rounded up to 16 (docs/BENCHMARKS.md).
**
** Spilling (grace hash): with a budget (sl_rk_set_budget, the option
** 'table.exec.reconcile.memory'), the table's memory (arenas, slot arrays,
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
    uint32_t vlen;     /* the source's encoded values' bytes */
    const char *vals;  /* the source's encoded values (arena), NULL when not in the source */
    const char *lvals; /* the first ledger row's encoded values (arena), or NULL */
    uint32_t lvlen;    /* their bytes */
    bool lvary;        /* a later ledger row's values differ from the first's */
    int64_t nsrc;      /* source rows with this key */
    int64_t nled;      /* ledger rows with this key */
    char key[];        /* the encoded key, in the entry (one cache line less to reach) */
} sl__rk_entry;

/* A slot: the key's hash beside its entry (a probe reads one array). */
typedef struct sl__rk_slot {
    uint64_t hash;
    sl__rk_entry *e;   /* NULL: free */
} sl__rk_slot;

/* A spill file: unlinked, written through buf, read back with pread. */
typedef struct sl__rk_file {
    int fd;            /* -1: none */
    char *buf;         /* the write buffer (NULL once flushed for good) */
    size_t len;        /* bytes in buf */
    size_t size;       /* bytes written to fd */
} sl__rk_file;

/* One partition. */
typedef struct sl__rk_part {
    sl_arena arena;       /* keys, values, entries */
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

static void sl__rk_part_init(sl__rk_part *t)
{
    memset(&t->arena, 0, sizeof t->arena);
    t->cap = 256;
    t->slots = sl_calloc(t->cap, sizeof(sl__rk_slot));
    t->n = 0;
    t->spill = NULL;
    atomic_init(&t->mem, 0);
}

static size_t sl__rk_part_mem(const sl__rk_part *t, size_t bufsz)
{
    return t->arena.total + t->cap * sizeof(sl__rk_slot) + (t->spill ? bufsz : 0);
}

/* Its memory freed, an empty table of one slot (sl_rk_prefetch reads it). */
static void sl__rk_part_empty(sl__rk_part *t)
{
    sl_arena_free(&t->arena);
    sl_free(t->slots);
    t->cap = 1;
    t->slots = sl_calloc(1, sizeof(sl__rk_slot));
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
        sl_arena_free(&t->parts[i].arena);
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
    sl__rk_slot *slots = sl_calloc(cap, sizeof *slots);
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].e)
            continue;
        size_t j = t->slots[i].hash & (cap - 1);
        while (slots[j].e)
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
    __builtin_prefetch(&t->slots[h & (t->cap - 1)]);
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
    size_t j = h & (t->cap - 1);
    sl__rk_entry *e;
    while ((e = t->slots[j].e) != NULL) {
        if (t->slots[j].hash == h && e->klen == klen && memcmp(e->key, key, klen) == 0)
            return e;
        j = (j + 1) & (t->cap - 1);
    }
    e = sl_arena_alloc(&t->arena, sizeof *e + klen);
    memset(e, 0, sizeof *e);
    memcpy(e->key, key, klen);
    e->klen = (uint32_t)klen;
    t->slots[j].e = e;
    t->slots[j].hash = h;
    t->n++;
    return e;
}

/* ------------------------------------------------------------------------
** Spill files. A record: a tag byte (SL__RK_STATE: an entry's state;
** SL__RK_SRC / SL__RK_LED: one row of a side), the key's hash (8 bytes), the
** key's length (4) and bytes; a row then its values' length (4) and bytes;
** a state nsrc (8), nled (8), lvary (1), and the source's values (length
** and bytes) when nsrc > 0, the ledger's when nled > 0. Native byte order:
** the file never outlives the process that wrote it.
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

static void sl__rk_put_bytes(sl_rk *rk, sl__rk_file *f, const char *p, uint32_t n)
{
    sl__rk_put(rk, f, &n, sizeof n);
    sl__rk_put(rk, f, p, n);
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

/* One record, parsed (a row is a state of one row). */
typedef struct sl__rk_rec {
    uint64_t h;
    const char *key, *vals, *lvals;
    uint32_t klen, vlen, lvlen;
    int64_t nsrc, nled;
    bool lvary;
} sl__rk_rec;

static void sl__rk_put_rec(sl_rk *rk, sl__rk_file *f, const sl__rk_rec *c)
{
    sl__rk_put_head(rk, f, SL__RK_STATE, c->h, c->key, c->klen);
    char st[2 * sizeof(int64_t) + 1];
    memcpy(st, &c->nsrc, sizeof c->nsrc);
    memcpy(st + sizeof c->nsrc, &c->nled, sizeof c->nled);
    st[2 * sizeof(int64_t)] = (char)c->lvary;
    sl__rk_put(rk, f, st, sizeof st);
    if (c->nsrc > 0)
        sl__rk_put_bytes(rk, f, c->vals, c->vlen);
    if (c->nled > 0)
        sl__rk_put_bytes(rk, f, c->lvals, c->lvlen);
}

static void sl__rk_put_state(sl_rk *rk, sl__rk_file *f, uint64_t h, const sl__rk_entry *e)
{
    sl__rk_rec c = {h, e->key, e->vals, e->lvals, e->klen, e->vlen, e->lvlen, e->nsrc, e->nled,
                    e->lvary};
    sl__rk_put_rec(rk, f, &c);
}

/* A row of a spilled partition (under its lock). */
static void sl__rk_spill_row(sl_rk *rk, sl__rk_file *f, bool ledger, uint64_t h,
                             const char *key, size_t klen, const char *vals, size_t vlen)
{
    sl__rk_put_head(rk, f, ledger ? SL__RK_LED : SL__RK_SRC, h, key, (uint32_t)klen);
    sl__rk_put_bytes(rk, f, vals, (uint32_t)vlen);
}

/* Spill partition t (its lock held): its entries to a new file, its memory
** freed. */
static void sl__rk_spill_part(sl_rk *rk, sl__rk_part *t)
{
    sl__rk_file *f = sl__rk_file_new(rk);
    if (!f)
        return;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].e)
            sl__rk_put_state(rk, f, t->slots[i].hash, t->slots[i].e);
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

void sl_rk_add_hashed(sl_rk *rk, bool ledger, uint64_t h, const char *key, size_t klen,
                      const char *vals, size_t vlen)
{
    sl__rk_part *t = &rk->parts[sl_rk_part(h)];
    if (t->spill) { /* the one branch spilling costs the add */
        sl__rk_spill_row(rk, t->spill, ledger, h, key, klen, vals, vlen);
        return;
    }
    sl__rk_entry *e = sl__rk_entry_of(t, h, key, klen);
    if (!ledger) {
        if (e->nsrc++ == 0) { /* the first row of the key counts (as the job's dedup keeps it) */
            e->vals = sl_arena_memdup(&t->arena, vals, vlen);
            e->vlen = (uint32_t)vlen;
        }
        return;
    }
    if (e->nled++ == 0) {
        e->lvals = sl_arena_memdup(&t->arena, vals, vlen);
        e->lvlen = (uint32_t)vlen;
    } else if (!e->lvary && (e->lvlen != vlen || memcmp(e->lvals, vals, vlen) != 0)) {
        e->lvary = true;
    }
}

/* A key's rows that came after those e holds (nsrc source rows, the first
** with vals; nled ledger rows, the first with lvals, the others differing
** from it when lvary) merged into e: sl_rk_add_hashed's result had they
** been added one by one. */
static void sl__rk_merge(sl__rk_part *t, uint64_t h, const char *key, uint32_t klen,
                         int64_t nsrc, const char *vals, uint32_t vlen, int64_t nled,
                         const char *lvals, uint32_t lvlen, bool lvary)
{
    sl__rk_entry *e = sl__rk_entry_of(t, h, key, klen);
    if (nsrc > 0 && e->nsrc == 0) {
        e->vals = sl_arena_memdup(&t->arena, vals, vlen);
        e->vlen = vlen;
    }
    e->nsrc += nsrc;
    if (nled == 0)
        return;
    if (e->nled == 0) {
        e->lvals = sl_arena_memdup(&t->arena, lvals, lvlen);
        e->lvlen = lvlen;
        e->lvary = lvary;
    } else if (!e->lvary &&
               (lvary || e->lvlen != lvlen || memcmp(e->lvals, lvals, lvlen) != 0)) {
        e->lvary = true;
    }
    e->nled += nled;
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
    uint8_t tag;
    if (r->off == r->f->size && r->pos == r->len)
        return 1;
    sl_strbuf_reset(&r->rec);
    memset(c, 0, sizeof *c);
    size_t kat = 0, vat = 0, lat = 0;
    bool ok = sl__rk_get(r, &tag, 1) && sl__rk_get(r, &c->h, sizeof c->h) &&
              sl__rk_get_bytes(r, &kat, &c->klen);
    if (ok && (tag == SL__RK_SRC || tag == SL__RK_LED)) {
        ok = tag == SL__RK_SRC ? sl__rk_get_bytes(r, &vat, &c->vlen)
                               : sl__rk_get_bytes(r, &lat, &c->lvlen);
        c->nsrc = tag == SL__RK_SRC;
        c->nled = tag == SL__RK_LED;
    } else if (ok && tag == SL__RK_STATE) {
        uint8_t v = 0;
        ok = sl__rk_get(r, &c->nsrc, sizeof c->nsrc) && sl__rk_get(r, &c->nled, sizeof c->nled) &&
             sl__rk_get(r, &v, 1) && (c->nsrc <= 0 || sl__rk_get_bytes(r, &vat, &c->vlen)) &&
             (c->nled <= 0 || sl__rk_get_bytes(r, &lat, &c->lvlen));
        c->lvary = v != 0;
    } else {
        ok = false;
    }
    if (!ok) {
        sl__rk_fail(r->rk, SL_ERR_DATA_CORRUPTED, "a record cut short in RECONCILE's spill file in",
                    r->rk->tmpdir, 0);
        return -1;
    }
    c->key = r->rec.buf + kat; /* the record's buffer no longer moves */
    c->vals = r->rec.buf + vat;
    c->lvals = r->rec.buf + lat;
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
        sl__rk_merge(&t, c.h, c.key, c.klen, c.nsrc, c.vals, c.vlen, c.nled, c.lvals, c.lvlen,
                     c.lvary);
        if (level < SL__RK_MAX_LEVEL && t.n >= SL__RK_MIN_SPLIT && sl__rk_part_mem(&t, 0) > limit) {
            /* too large to load: what is loaded and the rest go to 16 files */
            for (int k = 0; k < SL__RK_SPLIT; k++)
                if (!(kids[k] = sl__rk_file_new(rk)))
                    break;
            if (atomic_load(&rk->failed))
                break;
            for (size_t j = 0; j < t.cap; j++)
                if (t.slots[j].e)
                    sl__rk_put_state(rk, kids[(t.slots[j].hash >> shift) & (SL__RK_SPLIT - 1)],
                                     t.slots[j].hash, t.slots[j].e);
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
    sl_arena_free(&t.arena);
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
    return e->lvary || e->lvlen != e->vlen || memcmp(e->lvals, e->vals, e->vlen) != 0;
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
        const sl__rk_entry *e = t->slots[i].e;
        if (!e)
            continue;
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
        const sl__rk_entry *e = t->slots[i].e;
        if (!e || e->nsrc == 0 || e->nled > 0 || e->klen < 5 || e->key[0] != 1)
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
