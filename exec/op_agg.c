/*
** op_agg.c — group aggregation and window aggregation (see sl_exec.h,
** "Stateful operators").
**
** Both operators share one state: a table of groups keyed by the group key
** values. A group is a fixed-size record in one slab (header, key values,
** one accumulator per aggregate call); an open-addressing hash table
** (linear probing, backward-shift deletion) maps key hashes to records.
** String keys are copied into one allocation per group; nothing is
** allocated per row.
**
** Accumulators (sl__acc): COUNT counts, SUM/AVG keep an exact sum (128-bit
** for integers and DECIMAL, double for FLOAT/DOUBLE) and the number of
** non-NULL values, MIN/MAX keep the current value. Where rows can be
** retracted (group aggregation of an input the planner does not know to
** be insert-only: sl_group_agg_spec.append_only, Flink's MinWithRetract
** against MIN), MIN/MAX also keep a value -> count multiset (sl__mset) so
** that retracting the minimum finds the next one;
** DISTINCT calls keep such a multiset too and feed the inner accumulator
** only when a value appears (0 -> 1) or disappears (1 -> 0). LISTAGG keeps
** its values in arrival order (sl__vlist) and joins them with the call's
** separator when a result is needed; a retraction removes the first equal
** value (Flink's ListAggWithRetractAggFunction; retracting a value not in
** the list does nothing). A call with a FILTER column sees only the rows
** where that BOOLEAN column is TRUE (accumulations and retractions alike);
** COUNT(*) FILTER counts them as COUNT does (its state is COUNT's).
**
** A chunk is processed in two passes: row by row, find or create each row's
** group and count its rows (this decides which retractions apply); then per
** aggregate call, column by column, update the accumulators. The group
** operator then emits the changes of every group the chunk touched, in the
** order they were first touched: +I for a new group, -U/+U when its results
** changed, -D when its rows dropped to zero (Flink's mini-batch group
** aggregation). The window operator emits nothing until a watermark passes
** a window's end; then +I per group, ordered by window end and first
** appearance, and forgets them.
**
** Snapshot format (little-endian): "SLAG", u32 version, the operator's
** shape (kind, key and call types) for a sanity check, watermark, late
** rows, next sequence number, group count, then each group in first-seen
** order (sequence, last update, row count, keys, accumulators; multisets
** sorted by value; LISTAGG's values in list order), and a 64-bit checksum
** of everything before it. Restore checks every length and the checksum: a
** bad blob is XX001. Version 3 writes the groups' integers as varints
** (sl__put_int: about 11 bytes a group of COUNT and SUM by a BIGINT key
** instead of 57; with XXH3 as its checksum and the records read ahead, the
** task's snapshot of 1M such groups takes 27 ms instead of 89); version 2
** added LISTAGG; version 1 and 2 blobs still restore.
**
** State backend 'rocksdb' (non-windowed aggregation only): the table above
** is a cache of at most cache_groups groups; the rest live in RocksDB
** (state_rocks.h), each under a canonical encoding of its key values, its
** value the group's record in the snapshot encoding. A miss in the table
** looks the key up there before it makes a new group; before a chunk, the
** least recently touched groups are evicted (written back when changed
** since they were last written). A checkpoint writes every changed group
** and a RocksDB checkpoint into the checkpoint's directory; its blob
** ("SLRK") holds the operator's scalars and which backend took it. The
** code is the section "State backend 'rocksdb'" at the end of the file;
** the hooks elsewhere are one line each (sl__rk_*).
**
** Main routines: sl_group_agg_new, sl_window_agg_new; sl__agg_process,
** sl__agg_watermark, sl__agg_snapshot, sl__agg_restore.
*/
#include "sl_exec.h"
#include "acc_int.h"
#include "value_int.h"
#include "state_rocks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
** Values, hashing (value_int.h), comparison.
*/
static inline bool sl__val_eq(sl_phys ph, sl__val a, sl__val b)
{
    switch (ph) {
    case SL_PHYS_BOOL:
    case SL_PHYS_I64: return a.i == b.i;
    case SL_PHYS_F64: return sl__f64_bits(a.f) == sl__f64_bits(b.f);
    case SL_PHYS_I128: return a.d == b.d;
    case SL_PHYS_STR: return a.s.len == b.s.len && (a.s.len == 0 || memcmp(a.s.p, b.s.p, a.s.len) == 0);
    }
    return false;
}

/* Total order: numbers as numbers (NaN above everything), strings by bytes. */
static int sl__val_cmp(sl_phys ph, sl__val a, sl__val b)
{
    switch (ph) {
    case SL_PHYS_BOOL:
    case SL_PHYS_I64: return a.i < b.i ? -1 : a.i > b.i;
    case SL_PHYS_F64:
        if (isnan(a.f) || isnan(b.f))
            return isnan(a.f) - isnan(b.f);
        return a.f < b.f ? -1 : a.f > b.f;
    case SL_PHYS_I128: return a.d < b.d ? -1 : a.d > b.d;
    case SL_PHYS_STR: {
        uint32_t n = a.s.len < b.s.len ? a.s.len : b.s.len;
        int c = n ? memcmp(a.s.p, b.s.p, n) : 0;
        if (c)
            return c < 0 ? -1 : 1;
        return a.s.len < b.s.len ? -1 : a.s.len > b.s.len;
    }
    }
    return 0;
}

/* Write x into row r of vector col of c. */
static void sl__store(sl_chunk *c, int col, int r, sl__val x)
{
    switch (c->cols[col].phys) {
    case SL_PHYS_BOOL: sl_chunk_set_bool(c, col, r, x.i != 0); break;
    case SL_PHYS_I64: sl_chunk_set_i64(c, col, r, x.i); break;
    case SL_PHYS_F64: sl_chunk_set_f64(c, col, r, x.f); break;
    case SL_PHYS_I128: sl_chunk_set_i128(c, col, r, x.d); break;
    case SL_PHYS_STR: sl_chunk_set_str(c, col, r, x.s.p, x.s.len); break;
    }
}

/* ------------------------------------------------------------------------
** Multiset of values with counts (DISTINCT, retractable MIN/MAX): an
** open-addressing table; string values are owned copies.
*/
typedef struct sl__ment {
    sl__val v;      /* the value */
    int64_t count;  /* > 0; 0 = empty slot */
    uint64_t hash;  /* sl__val_hash of v */
} sl__ment;

typedef struct sl__mset {
    uint32_t cap;   /* slots (power of two) */
    uint32_t n;     /* distinct values */
    sl__ment *e;    /* slots */
} sl__mset;

static sl__mset *sl__mset_new(void)
{
    sl__mset *m = sl_malloc(sizeof *m);
    m->cap = 4;
    m->n = 0;
    m->e = sl_calloc(m->cap, sizeof(sl__ment));
    return m;
}

static void sl__mset_free(sl__mset *m, sl_phys ph)
{
    if (!m)
        return;
    if (ph == SL_PHYS_STR)
        for (uint32_t i = 0; i < m->cap; i++)
            if (m->e[i].count)
                sl_free((void *)m->e[i].v.s.p);
    sl_free(m->e);
    sl_free(m);
}

static uint32_t sl__mset_find(const sl__mset *m, sl_phys ph, sl__val v, uint64_t h)
{
    uint32_t mask = m->cap - 1, i = (uint32_t)h & mask;
    while (m->e[i].count) {
        if (m->e[i].hash == h && sl__val_eq(ph, m->e[i].v, v))
            return i;
        i = (i + 1) & mask;
    }
    return i; /* the empty slot where v would go */
}

static void sl__mset_grow(sl__mset *m)
{
    sl__ment *old = m->e;
    uint32_t ocap = m->cap;
    m->cap *= 2;
    m->e = sl_calloc(m->cap, sizeof(sl__ment));
    for (uint32_t i = 0; i < ocap; i++) {
        if (!old[i].count)
            continue;
        uint32_t j = (uint32_t)old[i].hash & (m->cap - 1);
        while (m->e[j].count)
            j = (j + 1) & (m->cap - 1);
        m->e[j] = old[i];
    }
    sl_free(old);
}

/* Put v (hash h, absent) with count c into the empty slot i where
** sl__mset_find left it; returns the set's own copy of v (its bytes live as
** long as the entry). */
static sl__val sl__mset_put(sl__mset *m, sl_phys ph, sl__val v, uint64_t h, uint32_t i, int64_t c)
{
    if ((m->n + 1) * 4 > m->cap * 3) {
        sl__mset_grow(m);
        i = sl__mset_find(m, ph, v, h);
    }
    if (ph == SL_PHYS_STR) {
        char *p = sl_malloc(v.s.len ? v.s.len : 1);
        if (v.s.len)
            memcpy(p, v.s.p, v.s.len);
        v.s.p = p;
    }
    m->e[i].v = v;
    m->e[i].count = c;
    m->e[i].hash = h;
    m->n++;
    return v;
}

/* Add c (> 0) occurrences of v; returns the new count. *stored (may be
** NULL) = the set's own copy of v (its bytes live as long as the entry). */
static int64_t sl__mset_add(sl__mset *m, sl_phys ph, sl__val v, int64_t c, sl__val *stored)
{
    uint64_t h = sl__val_hash(ph, v);
    uint32_t i = sl__mset_find(m, ph, v, h);
    if (m->e[i].count) {
        if (stored)
            *stored = m->e[i].v;
        return m->e[i].count += c;
    }
    v = sl__mset_put(m, ph, v, h, i, c);
    if (stored)
        *stored = v;
    return c;
}

/* Mark v (hash h) seen by the calls of `bits` (a shared set's entry counts
** are bit sets, never 0); returns the bits it had not had. */
static uint64_t sl__mset_mark_h(sl__mset *m, sl_phys ph, sl__val v, uint64_t h, uint64_t bits)
{
    uint32_t i = sl__mset_find(m, ph, v, h);
    if (m->e[i].count) {
        uint64_t had = (uint64_t)m->e[i].count;
        m->e[i].count = (int64_t)(had | bits);
        return bits & ~had;
    }
    sl__mset_put(m, ph, v, h, i, (int64_t)bits); /* no second hash and probe */
    return bits;
}

/* sl__mset_mark_h with v's hash computed. */
static uint64_t sl__mset_mark(sl__mset *m, sl_phys ph, sl__val v, uint64_t bits)
{
    return sl__mset_mark_h(m, ph, v, sl__val_hash(ph, v), bits);
}

/* Start loading the slot where a value of hash h is (or would go) in m:
** a large set's lookups miss the cache, so the loop over a chunk's rows
** asks for a row's slot some rows ahead of looking it up. */
static inline void sl__mset_prefetch(const sl__mset *m, uint64_t h)
{
    if (m)
        __builtin_prefetch(&m->e[(uint32_t)h & (m->cap - 1)]);
}

/* Remove one occurrence of v: the new count, or -1 when v is absent. */
static int64_t sl__mset_remove(sl__mset *m, sl_phys ph, sl__val v)
{
    uint64_t h = sl__val_hash(ph, v);
    uint32_t i = sl__mset_find(m, ph, v, h), mask = m->cap - 1;
    if (!m->e[i].count)
        return -1;
    if (--m->e[i].count > 0)
        return m->e[i].count;
    if (ph == SL_PHYS_STR)
        sl_free((void *)m->e[i].v.s.p);
    m->n--;
    /* Backward-shift deletion keeps probe chains intact. */
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!m->e[j].count)
            break;
        uint32_t k = (uint32_t)m->e[j].hash & mask;
        if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
            m->e[i] = m->e[j];
            i = j;
        }
    }
    memset(&m->e[i], 0, sizeof m->e[i]);
    return 0;
}

/* The smallest (dir = 1) or largest (dir = -1) value; false when empty. */
static bool sl__mset_extreme(const sl__mset *m, sl_phys ph, int dir, sl__val *out)
{
    bool have = false;
    for (uint32_t i = 0; i < m->cap; i++) {
        if (!m->e[i].count)
            continue;
        if (!have || sl__val_cmp(ph, m->e[i].v, *out) * dir < 0)
            *out = m->e[i].v;
        have = true;
    }
    return have;
}

/* ------------------------------------------------------------------------
** LISTAGG's value list.
*/
/* LISTAGG's values in arrival order: entries (u32 length, then the bytes)
** one after another in one buffer. */
typedef struct sl__vlist {
    char *buf;        /* the entries */
    size_t len;       /* bytes used */
    size_t cap;       /* bytes allocated */
    uint64_t bytes;   /* sum of the values' lengths */
} sl__vlist;

static void sl__vlist_add(sl__vlist **lp, sl__val x)
{
    if (!*lp)
        *lp = sl_calloc(1, sizeof **lp);
    sl__vlist *l = *lp;
    size_t need = l->len + 4 + x.s.len;
    if (need > l->cap) {
        l->cap = need > l->cap * 2 ? need : l->cap * 2;
        l->buf = sl_realloc(l->buf, l->cap);
    }
    memcpy(l->buf + l->len, &x.s.len, 4);
    if (x.s.len)
        memcpy(l->buf + l->len + 4, x.s.p, x.s.len);
    l->len = need;
    l->bytes += x.s.len;
}

/* Remove the first entry equal to x; false when there is none. */
static bool sl__vlist_remove(sl__vlist *l, sl__val x)
{
    for (size_t off = 0; l && off < l->len;) {
        uint32_t n;
        memcpy(&n, l->buf + off, 4);
        size_t next = off + 4 + n;
        if (n == x.s.len && (n == 0 || memcmp(l->buf + off + 4, x.s.p, n) == 0)) {
            memmove(l->buf + off, l->buf + next, l->len - next);
            l->len -= 4 + n;
            l->bytes -= n;
            return true;
        }
        off = next;
    }
    return false;
}

/* The entry at *off (advanced past it). */
static sl__val sl__vlist_next(const sl__vlist *l, size_t *off)
{
    sl__val x;
    memset(&x, 0, sizeof x);
    memcpy(&x.s.len, l->buf + *off, 4);
    x.s.p = l->buf + *off + 4;
    *off += 4 + x.s.len;
    return x;
}

static void sl__vlist_free(sl__vlist *l)
{
    if (l) {
        sl_free(l->buf);
        sl_free(l);
    }
}

/* ------------------------------------------------------------------------
** Aggregate calls and their accumulators.
*/
typedef enum sl__akind {
    SL__A_COUNT_STAR, /* COUNT(*): the group's row count */
    SL__A_COUNT,      /* COUNT(x) */
    SL__A_SUM_INT,    /* SUM of integers: 128-bit sum, BIGINT result */
    SL__A_SUM_DEC,    /* SUM of DECIMAL(p, s): DECIMAL(38, s) */
    SL__A_SUM_DBL,    /* SUM of FLOAT/DOUBLE: DOUBLE */
    SL__A_AVG_INT,    /* AVG of integers: integer division, the input's type */
    SL__A_AVG_DEC,    /* AVG of DECIMAL: DECIMAL(38, max(s, 6)), HALF_UP */
    SL__A_AVG_DBL,    /* AVG of FLOAT/DOUBLE */
    SL__A_MIN,        /* MIN of anything comparable */
    SL__A_MAX,        /* MAX */
    SL__A_LISTAGG,    /* LISTAGG / string_agg: the values joined by a separator */
    SL__A_ARRAY_AGG,  /* ARRAY_AGG: the values as an ARRAY (LISTAGG's list of encoded elements) */
} sl__akind;

typedef struct sl__call {
    sl__akind kind;   /* what it computes */
    int arg;          /* input column (-1 for COUNT(*)) */
    int filter;       /* FILTER: BOOLEAN input column, a row counts only when TRUE; -1 = none */
    sl_phys in_phys;  /* the argument's representation */
    int in_scale;     /* DECIMAL argument's scale */
    sl_type out;      /* result type */
    bool distinct;    /* a DISTINCT multiset filters the values */
    bool multiset;    /* retractable MIN/MAX: a value multiset */
    int pos;          /* statement byte offset of the call, for its errors */
    char *sep;        /* LISTAGG: the separator (owned) */
    uint32_t seplen;  /* its length */
    sl_type in_type;  /* ARRAY_AGG: the argument's (element) type */
    sl_strbuf elem;   /* ARRAY_AGG: the element being encoded (scratch) */
    int slot;         /* its accumulator in a group record, -1 = none (COUNT(*)) */
    /* DISTINCT calls of one argument over an insert-only input share one
    ** value set (Flink's shared distinct view): it lives in the
    ** accumulator of the first of them, `owner`, and an entry's count is
    ** the set of calls that have seen the value, one bit each (sbit). */
    uint64_t sbit;    /* this call's bit; 0 = the call has a set of its own */
    int owner;        /* when sbit: the call whose accumulator holds the set */
} sl__call;

typedef struct sl__acc {
    union {
        sl__val v;       /* SUM/AVG: sum (d or f); MIN/MAX: current value */
        sl__vlist *list; /* LISTAGG: the values; NULL until the first */
    };
    int64_t n;        /* non-NULL values accumulated (net of retractions) */
    sl__mset *set;    /* DISTINCT / retractable MIN/MAX values; NULL until used */
} sl__acc;

/* ------------------------------------------------------------------------
** Groups and the operator.
*/
typedef struct sl__group {
    uint32_t epoch;    /* chunk epoch of the last touch */
    uint8_t live;      /* 1 = in use; 0 = on the free list; | SL__RK_* ('rocksdb') */
    uint8_t kn[3];     /* the key null flags when there are at most 3 keys (SL__KNULL) */
    int64_t rows;      /* input rows counted (net of retractions) */
} sl__group;

/* A group record: the hot part (sl__group, the keys, one accumulator per
** call but COUNT(*), whose result is rows), then the fields a row seldom
** touches (sl__gcold, at coff). Records start on a cache line and their
** stride is a multiple of one, so a record whose hot part fits in 64 bytes
** (one key and one SUM, three keys and COUNT(*)) costs a row one miss. */
typedef struct sl__gcold {
    uint64_t hash;     /* hash of the key values */
    uint64_t seq;      /* first-seen order */
    int64_t updated;   /* processing time (ns) of the last update (TTL only) */
    char *kbytes;      /* owned bytes of the string keys */
} sl__gcold;

typedef struct sl__touch {
    uint32_t g;        /* group */
    bool was_new;      /* the group did not exist before the chunk */
} sl__touched;

typedef struct sl__window {
    int64_t end;       /* window end (ns) */
    uint32_t *g;       /* its groups in first-seen order */
    int n, cap;        /* used / allocated */
} sl__window;

typedef struct sl__agg {
    bool is_window;       /* window aggregation (append-only, fires on watermarks) */
    bool append_only;     /* a non-window aggregation of an insert-only input */
    bool no_before;       /* an update is +U alone (sl_group_agg_spec.no_before) */
    bool keeps_old;       /* a touched group's old results are kept (for -U, or to
                             drop an update that changes nothing); not when no -U
                             goes out and an unfiltered COUNT(*) of an insert-only
                             input makes every update change the results */
    int in_ncols;         /* input columns */
    sl_type *in_types;    /* their types */
    int nkeys;            /* key columns */
    int *keys;            /* their input columns */
    sl_phys *kphys;       /* their representations */
    int naggs;            /* calls */
    sl__call *calls;      /* the calls */
    sl_type *out_types;   /* keys then results */
    int64_t ttl_ns;       /* state retention (0 = forever) */
    int64_t (*now)(void *ctx); /* clock */
    void *now_ctx;        /* for now */
    int wend_key;         /* window: index into keys of window_end */
    int wstart_key;       /* window: index into keys of window_start */
    int time_col;         /* window: the event-time column (late rows), -1 = unknown */
    int64_t slide_ns;     /* window: HOP's slide, 0 = the window's length */
    int64_t slice_size_ns; /* window: a sliced HOP's size (its rows carry their slice of
                             slide_ns, and a window merges its slices); 0 = rows carry
                             their windows */
    const char *const *in_names; /* window: input column names (late rows), or NULL */

    size_t stride;        /* bytes per group record */
    size_t koff, aoff, noff, coff; /* offsets of keys, accumulators, key null flags, cold part */
    char *recs;           /* group records (64-byte aligned, in recs_mem) */
    char *recs_mem;       /* their allocation */
    uint32_t nrecs, caprecs; /* records in use (incl. free) / allocated */
    uint32_t *freel;      /* free record indices */
    uint32_t nfree, capfree; /* used / allocated */
    uint32_t ngroups;     /* live groups */
    uint64_t *tab;        /* hash table: (hash >> 32) << 32 | (index + 1); 0 = empty */
    uint32_t tabcap;      /* slots (power of two) */
    uint64_t next_seq;    /* next first-seen number */
    uint32_t epoch;       /* current chunk's epoch */

    int64_t wm;           /* current watermark */
    int64_t late;         /* late rows dropped */
    int64_t next_sweep;   /* TTL: next full expiry sweep (ns) */
    sl__window *wins;     /* window: windows (sliced: slices) sorted by end */
    int nwins, capwins;   /* used / allocated */
    uint64_t *mtab;       /* sliced: a window's groups while its slices merge
                             (sl__tab's entries, of the merged records) */
    uint32_t mcap;        /* its slots (power of two) */
    uint32_t *mord;       /* the merged records in first-seen order */
    uint32_t nmord, capmord; /* used / allocated */

    /* per-chunk scratch */
    int scap;             /* rows the scratch arrays hold */
    uint64_t *hashes;     /* per row */
    int32_t *gidx;        /* per row: group, -1 = skipped */
    sl__touched *touched;   /* groups touched, in order */
    int ntouched;         /* their number */
    sl_chunk *oldres;     /* results before the chunk, one row per touch */
    sl_chunk *newres;     /* results after it (one row) */
    sl_chunk *out;        /* output being filled */

    struct sl__rk *rk;    /* state backend 'rocksdb', or NULL ('hashmap') */
} sl__agg;

/* 'rocksdb' (the section at the end): group flags in sl__group.live. */
#define SL__RK_STORED 2u /* RocksDB holds a version of the group */
#define SL__RK_CLEAN 4u  /* ... and it is the current one */
static int32_t sl__rk_fetch(sl__agg *a, const sl_chunk *in, int r, uint64_t h, sl_error *err);
static void sl__rk_forget(sl__agg *a, sl__group *g);
static int sl__rk_make_room(sl_operator *op, sl__agg *a, int n, sl_error *err);
static int sl__rk_snapshot(sl_operator *op, sl__agg *a, sl_strbuf *state, sl_error *err);
static int sl__rk_restore(sl_operator *op, sl__agg *a, const char *state, size_t len, sl_error *err);
static void sl__rk_free(sl__agg *a);

#define SL__G(a, i) ((sl__group *)((a)->recs + (size_t)(i) * (a)->stride))
#define SL__KEYS(a, g) ((sl__val *)((char *)(g) + (a)->koff))
#define SL__KNULL(a, g) ((uint8_t *)(g) + (a)->noff)
#define SL__C(a, g) ((sl__gcold *)((char *)(g) + (a)->coff))
/* Call c's accumulator in group g; NULL for COUNT(*), which has none. */
#define SL__ACCG(a, g, c) ((a)->calls[c].slot < 0 ? NULL : \
                           (sl__acc *)((char *)(g) + (a)->aoff) + (a)->calls[c].slot)

static int64_t sl__now(sl__agg *a)
{
    return a->now ? a->now(a->now_ctx) : sl_now_nanos();
}

/* ------------------------------------------------------------------------
** The group table.
*/
static bool sl__key_eq_row(const sl__agg *a, const sl__group *g, const sl_chunk *in, int r)
{
    const sl__val *kv = SL__KEYS(a, g);
    const uint8_t *kn = SL__KNULL(a, g);
    for (int k = 0; k < a->nkeys; k++) {
        const sl_vector *v = &in->cols[a->keys[k]];
        bool isnull = v->nulls[r] != 0;
        if (isnull != (kn[k] != 0))
            return false;
        if (!isnull && !sl__val_eq(a->kphys[k], kv[k], sl__load(v, r)))
            return false;
    }
    return true;
}

/* Whether groups g and h have equal keys (but_window: but for window_start
** and window_end). */
static bool sl__key_eq_group(const sl__agg *a, const sl__group *g, const sl__group *h,
                             bool but_window)
{
    const sl__val *x = SL__KEYS(a, g), *y = SL__KEYS(a, h);
    const uint8_t *xn = SL__KNULL(a, g), *yn = SL__KNULL(a, h);
    for (int k = 0; k < a->nkeys; k++) {
        if (but_window && (k == a->wstart_key || k == a->wend_key))
            continue;
        if (xn[k] != yn[k])
            return false;
        if (!xn[k] && !sl__val_eq(a->kphys[k], x[k], y[k]))
            return false;
    }
    return true;
}

/* The hash of group g's keys (but_window: but for window_start and window_end). */
static uint64_t sl__hash_group(const sl__agg *a, const sl__group *g, bool but_window)
{
    const sl__val *kv = SL__KEYS(a, g);
    const uint8_t *kn = SL__KNULL(a, g);
    uint64_t h = SL__K1;
    for (int k = 0; k < a->nkeys; k++)
        if (!but_window || (k != a->wstart_key && k != a->wend_key))
            h = (h ^ (kn[k] ? SL__NULL_HASH : sl__val_hash(a->kphys[k], kv[k]))) * SL__K1;
    return sl__mix(h);
}

/* Hash the key columns of every row of in into a->hashes. */
static void sl__hash_rows(sl__agg *a, const sl_chunk *in)
{
    sl_chunk_hash_keys(in, a->nkeys, a->keys, a->hashes);
}

static void sl__tab_insert(sl__agg *a, uint64_t hash, uint32_t idx)
{
    uint32_t mask = a->tabcap - 1, i = (uint32_t)hash & mask;
    while (a->tab[i])
        i = (i + 1) & mask;
    a->tab[i] = (hash & 0xffffffff00000000ULL) | ((uint64_t)idx + 1);
}

/* Rehash the key table into cap slots (a power of two). */
static void sl__tab_resize(sl__agg *a, uint32_t cap)
{
    uint64_t *old = a->tab;
    uint32_t ocap = a->tabcap;
    a->tabcap = cap;
    /* Written, not calloc'ed: a probe would read calloc's untouched pages
    ** as the shared zero page, and the insert after it fault again to copy
    ** it, with a TLB shootdown across the job's threads (sl_base.h). */
    a->tab = sl_malloc((size_t)a->tabcap * sizeof(uint64_t));
    memset(a->tab, 0, (size_t)a->tabcap * sizeof(uint64_t));
    for (uint32_t i = 0; i < ocap; i++)
        if (old[i]) {
            uint32_t idx = (uint32_t)old[i] - 1;
            sl__tab_insert(a, SL__C(a, SL__G(a, idx))->hash, idx);
        }
    sl_free(old);
}

static void sl__tab_grow(sl__agg *a)
{
    sl__tab_resize(a, a->tabcap ? a->tabcap * 2 : 1024);
}

/* The group of row r (hash h), or -1. */
static int32_t sl__find_row(const sl__agg *a, const sl_chunk *in, int r, uint64_t h)
{
    if (!a->tabcap)
        return -1;
    uint32_t mask = a->tabcap - 1, i = (uint32_t)h & mask;
    uint64_t tag = h & 0xffffffff00000000ULL;
    for (;;) {
        uint64_t e = a->tab[i];
        if (!e)
            return -1;
        if ((e & 0xffffffff00000000ULL) == tag) {
            uint32_t idx = (uint32_t)e - 1;
            if (sl__key_eq_row(a, SL__G(a, idx), in, r))
                return (int32_t)idx;
        }
        i = (i + 1) & mask;
    }
}

/* Room for cap records, the first on a cache line (sl__gcold). A large
** realloc moves pages rather than bytes, but may land at another offset
** from a line: then the records move to the line. */
static void sl__recs_resize(sl__agg *a, uint32_t cap)
{
    size_t was = a->recs ? (size_t)(a->recs - a->recs_mem) : 0;
    a->recs_mem = sl_realloc(a->recs_mem, (size_t)cap * a->stride + 63);
    size_t off = (size_t)(-(uintptr_t)a->recs_mem & 63);
    if (off != was && a->nrecs)
        memmove(a->recs_mem + off, a->recs_mem + was, (size_t)a->nrecs * a->stride);
    a->recs = a->recs_mem + off;
    a->caprecs = cap;
}

/* A fresh, zeroed record (keys unset, not in the hash table). */
static uint32_t sl__alloc_group(sl__agg *a)
{
    uint32_t idx;
    if (a->nfree) {
        idx = a->freel[--a->nfree];
    } else {
        if (a->nrecs == a->caprecs) {
            SL_ALWAYS(a->caprecs < UINT32_MAX / 2);
            sl__recs_resize(a, a->caprecs ? a->caprecs * 2 : 256);
        }
        idx = a->nrecs++;
    }
    memset(SL__G(a, idx), 0, a->stride);
    SL__G(a, idx)->live = 1;
    a->ngroups++;
    return idx;
}

/* Copy the string keys of group g into one owned allocation. */
static void sl__own_keys(sl__agg *a, sl__group *g)
{
    sl__val *kv = SL__KEYS(a, g);
    uint8_t *kn = SL__KNULL(a, g);
    size_t total = 0;
    for (int k = 0; k < a->nkeys; k++)
        if (a->kphys[k] == SL_PHYS_STR && !kn[k])
            total += kv[k].s.len;
    if (!total)
        return;
    char *p = sl_malloc(total);
    SL__C(a, g)->kbytes = p;
    for (int k = 0; k < a->nkeys; k++)
        if (a->kphys[k] == SL_PHYS_STR && !kn[k] && kv[k].s.len) {
            memcpy(p, kv[k].s.p, kv[k].s.len);
            kv[k].s.p = p;
            p += kv[k].s.len;
        }
}

static void sl__win_add(sl__agg *a, int64_t end, uint32_t g);

/* Register a new group: keys set, table entry, window membership. */
/* Room for n groups at once (a restore knows the count): the record slab
** and a key table that will not need to grow while they are linked. */
static void sl__reserve_groups(sl__agg *a, uint32_t n)
{
    if (n > a->caprecs) {
        sl__recs_resize(a, n);
    }
    uint32_t cap = a->tabcap ? a->tabcap : 1024;
    while ((uint64_t)(n + 1) * 10 > (uint64_t)cap * 7)
        cap *= 2;
    if (cap > a->tabcap)
        sl__tab_resize(a, cap);
}

static void sl__link_group(sl__agg *a, uint32_t idx)
{
    if ((uint64_t)(a->ngroups + 1) * 10 > (uint64_t)a->tabcap * 7)
        sl__tab_grow(a);
    sl__tab_insert(a, SL__C(a, SL__G(a, idx))->hash, idx);
    if (a->is_window)
        sl__win_add(a, SL__KEYS(a, SL__G(a, idx))[a->wend_key].i, idx);
}

static uint32_t sl__new_group_row(sl__agg *a, const sl_chunk *in, int r, uint64_t h)
{
    uint32_t idx = sl__alloc_group(a);
    sl__group *g = SL__G(a, idx);
    SL__C(a, g)->hash = h;
    SL__C(a, g)->seq = a->next_seq++;
    sl__val *kv = SL__KEYS(a, g);
    uint8_t *kn = SL__KNULL(a, g);
    for (int k = 0; k < a->nkeys; k++) {
        const sl_vector *v = &in->cols[a->keys[k]];
        kn[k] = v->nulls[r] ? 1 : 0;
        if (!kn[k])
            kv[k] = sl__load(v, r);
    }
    sl__own_keys(a, g);
    sl__link_group(a, idx);
    return idx;
}

static void sl__free_acc(const sl__call *call, sl__acc *acc)
{
    sl__mset_free(acc->set, call->in_phys);
    if (call->kind == SL__A_LISTAGG || call->kind == SL__A_ARRAY_AGG)
        sl__vlist_free(acc->list);
    if (!call->multiset && (call->kind == SL__A_MIN || call->kind == SL__A_MAX) &&
        call->in_phys == SL_PHYS_STR && acc->n > 0)
        sl_free((void *)acc->v.s.p);
}

static void sl__free_accs(sl__agg *a, sl__group *g)
{
    for (int c = 0; c < a->naggs; c++)
        if (a->calls[c].slot >= 0)
            sl__free_acc(&a->calls[c], SL__ACCG(a, g, c));
}

static void sl__release_group(sl__agg *a, uint32_t idx);

/* Forget group idx (table entry, memory). Window membership is the caller's. */
static void sl__drop_group(sl__agg *a, uint32_t idx)
{
    sl__group *g = SL__G(a, idx);
    if (g->live & SL__RK_STORED)
        sl__rk_forget(a, g);
    uint32_t mask = a->tabcap - 1, i = (uint32_t)SL__C(a, g)->hash & mask;
    while ((uint32_t)a->tab[i] != idx + 1)
        i = (i + 1) & mask;
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!a->tab[j])
            break;
        uint32_t k = (uint32_t)SL__C(a, SL__G(a, (uint32_t)a->tab[j] - 1))->hash & mask;
        if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
            a->tab[i] = a->tab[j];
            i = j;
        }
    }
    a->tab[i] = 0;
    sl__release_group(a, idx);
}

/* Free record idx (accumulators, owned keys) onto the free list; it is in
** no table. */
static void sl__release_group(sl__agg *a, uint32_t idx)
{
    sl__group *g = SL__G(a, idx);
    sl__free_accs(a, g);
    sl_free(SL__C(a, g)->kbytes);
    SL__C(a, g)->kbytes = NULL;
    g->live = 0;
    if (a->nfree == a->capfree) {
        a->capfree = a->capfree ? a->capfree * 2 : 256;
        a->freel = sl_realloc(a->freel, a->capfree * sizeof(uint32_t));
    }
    a->freel[a->nfree++] = idx;
    a->ngroups--;
}

/* Forget every group (restore, free). */
static void sl__clear(sl__agg *a)
{
    for (uint32_t i = 0; i < a->nrecs; i++) {
        sl__group *g = SL__G(a, i);
        if (g->live) {
            sl__free_accs(a, g);
            sl_free(SL__C(a, g)->kbytes);
        }
    }
    sl_free(a->recs_mem);
    sl_free(a->freel);
    sl_free(a->tab);
    a->recs = a->recs_mem = NULL;
    a->freel = NULL;
    a->tab = NULL;
    a->nrecs = a->caprecs = a->nfree = a->capfree = a->ngroups = a->tabcap = 0;
    for (int w = 0; w < a->nwins; w++)
        sl_free(a->wins[w].g);
    a->nwins = 0;
    a->next_seq = 0;
    a->wm = INT64_MIN;
    a->late = 0;
    a->next_sweep = 0;
}

/* ------------------------------------------------------------------------
** Windows: sorted by end, each with its groups in first-seen order.
*/
static void sl__win_add(sl__agg *a, int64_t end, uint32_t g)
{
    int lo = 0, hi = a->nwins;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (a->wins[mid].end < end)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == a->nwins || a->wins[lo].end != end) {
        if (a->nwins == a->capwins) {
            a->capwins = a->capwins ? a->capwins * 2 : 8;
            a->wins = sl_realloc(a->wins, (size_t)a->capwins * sizeof *a->wins);
        }
        memmove(&a->wins[lo + 1], &a->wins[lo], (size_t)(a->nwins - lo) * sizeof *a->wins);
        a->nwins++;
        memset(&a->wins[lo], 0, sizeof a->wins[lo]);
        a->wins[lo].end = end;
    }
    sl__window *w = &a->wins[lo];
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 16;
        w->g = sl_realloc(w->g, (size_t)w->cap * sizeof(uint32_t));
    }
    w->g[w->n++] = g;
}

/* ------------------------------------------------------------------------
** Accumulate and compute results.
*/
/* 22003 at the position of the aggregate call. */
static int sl__overflow(sl_error *err, const char *what, int pos)
{
    return sl_error_set(err, SL_ERR_NUMERIC_RANGE, pos, "%s overflow", what);
}

/* Add sign * x (|sign| = 1) to a DECIMAL(38) sum of the call at pos. */
static inline int sl__dec_acc(sl_i128 *sum, sl_i128 x, int sign, int pos, sl_error *err)
{
    static const sl_i128 lim = (sl_i128)10000000000000000000ULL * (sl_i128)10000000000000000000ULL;
    sl_i128 r;
    bool o = sign > 0 ? __builtin_add_overflow(*sum, x, &r) : __builtin_sub_overflow(*sum, x, &r);
    if (o || r >= lim || r <= -lim)
        return sl__overflow(err, "DECIMAL sum", pos);
    *sum = r;
    return 0;
}

/* ARRAY_AGG: value x as the bytes of an ARRAY element (null flag, value;
** sl_vector_value_put's layout), in the call's scratch until the next. */
static sl__val sl__element_bytes(const sl__call *call, sl__val x)
{
    sl_value_box b;
    sl_value_box_init(&b, call->in_type);
    switch (call->in_phys) {
    case SL_PHYS_BOOL: b.val.b = (uint8_t)x.i; break;
    case SL_PHYS_I64: b.val.i64 = x.i; break;
    case SL_PHYS_F64: b.val.f64 = x.f; break;
    case SL_PHYS_I128: b.val.i128 = x.d; break;
    case SL_PHYS_STR: b.val.str.ptr = x.s.p, b.val.str.len = x.s.len; break;
    }
    sl_strbuf *sb = (sl_strbuf *)&call->elem; /* scratch, not the call's meaning */
    sl_strbuf_reset(sb);
    sl_vector_value_put(sb, &b.v, 0);
    sl__val r;
    memset(&r, 0, sizeof r);
    r.s.p = sb->buf;
    r.s.len = (uint32_t)sb->len;
    return r;
}

/* Feed one non-NULL value (sign +1 accumulate, -1 retract) to the inner
** accumulator (after the DISTINCT filter). */
static int sl__acc_inner(const sl__call *call, sl__acc *acc, sl__val x, int sign, sl_error *err)
{
    switch (call->kind) {
    case SL__A_COUNT_STAR:
    case SL__A_COUNT: acc->n += sign; return 0;
    case SL__A_SUM_INT:
    case SL__A_AVG_INT:
        acc->v.d += sign > 0 ? (sl_i128)x.i : -(sl_i128)x.i;
        acc->n += sign;
        return 0;
    case SL__A_SUM_DEC:
    case SL__A_AVG_DEC:
        if (sl__dec_acc(&acc->v.d, x.d, sign, call->pos, err))
            return -1;
        acc->n += sign;
        return 0;
    case SL__A_SUM_DBL:
    case SL__A_AVG_DBL:
        acc->v.f += sign > 0 ? x.f : -x.f;
        acc->n += sign;
        return 0;
    case SL__A_MIN:
    case SL__A_MAX: {
        int dir = call->kind == SL__A_MIN ? 1 : -1;
        if (call->multiset) {
            if (!acc->set)
                acc->set = sl__mset_new();
            if (sign > 0) {
                sl__val st;
                sl__mset_add(acc->set, call->in_phys, x, 1, &st);
                if (acc->n <= 0 || sl__val_cmp(call->in_phys, st, acc->v) * dir < 0)
                    acc->v = st;
                acc->n++;
            } else {
                /* Compare before removing: the current value may point at
                ** the entry's bytes. */
                bool was_extreme = acc->n > 0 && sl__val_eq(call->in_phys, acc->v, x);
                int64_t c = sl__mset_remove(acc->set, call->in_phys, x);
                if (c < 0)
                    return 0; /* retracting a value never seen: ignored */
                acc->n--;
                if (c == 0 && was_extreme) {
                    sl__val nv;
                    memset(&nv, 0, sizeof nv);
                    sl__mset_extreme(acc->set, call->in_phys, dir, &nv);
                    acc->v = nv;
                }
            }
            return 0;
        }
        if (acc->n > 0 && sl__val_cmp(call->in_phys, x, acc->v) * dir >= 0) {
            acc->n++;
            return 0;
        }
        if (call->in_phys == SL_PHYS_STR) {
            char *p = sl_realloc(acc->n > 0 ? (void *)acc->v.s.p : NULL, x.s.len ? x.s.len : 1);
            if (x.s.len)
                memcpy(p, x.s.p, x.s.len);
            x.s.p = p;
        }
        acc->v = x;
        acc->n++;
        return 0;
    }
    case SL__A_ARRAY_AGG: /* the value as an ARRAY element (array.c's bytes) */
        x = sl__element_bytes(call, x);
        /* fall through */
    case SL__A_LISTAGG:
        if (sign > 0) {
            sl__vlist_add(&acc->list, x);
            acc->n++;
        } else if (sl__vlist_remove(acc->list, x)) {
            acc->n--;
        } /* else: a value not in the list; nothing to remove (as Flink) */
        return 0;
    }
    return 0;
}



/* A NULL input of call: ARRAY_AGG keeps it as a NULL element (Flink's
** RESPECT NULLS default); every other aggregate skips it. */
static void sl__acc_null(const sl__call *call, sl__acc *acc, int sign)
{
    if (call->kind != SL__A_ARRAY_AGG)
        return;
    sl__val x;
    memset(&x, 0, sizeof x);
    x.s.p = "\x01"; /* a NULL element's bytes */
    x.s.len = 1;
    if (sign > 0) {
        sl__vlist_add(&acc->list, x);
        acc->n++;
    } else if (sl__vlist_remove(acc->list, x)) {
        acc->n--;
    }
}

/* Feed one non-NULL value of call c to acc: through the DISTINCT filter,
** then the inner accumulator. */
static inline int sl__acc_value(const sl__call *call, sl__acc *acc, sl__val x, int sign,
                                sl_error *err)
{
    if (call->distinct) {
        if (!acc->set)
            acc->set = sl__mset_new();
        if (sign > 0) {
            if (sl__mset_add(acc->set, call->in_phys, x, 1, NULL) != 1)
                return 0;
        } else if (sl__mset_remove(acc->set, call->in_phys, x) != 0) {
            return 0;
        }
    }
    return sl__acc_inner(call, acc, x, sign, err);
}

#define SL__ACC(a, g, c) \
    ((sl__acc *)((a)->recs + (size_t)(g) * (a)->stride + (a)->aoff) + (a)->calls[c].slot)
#define SL__SIGN(k) (((k) & 1) ? -1 : 1) /* -U (1) and -D (3) retract */

/* A call with a FILTER: the rows of in whose filter column is TRUE, for
** accumulation and retraction alike (COUNT(*) FILTER counts them in acc->n). */
static int sl__accumulate_filtered(sl__agg *a, int c, const sl_chunk *in, sl_error *err)
{
    const sl__call *call = &a->calls[c];
    const int32_t *gi = a->gidx;
    const uint8_t *kinds = in->kinds;
    const sl_vector *f = &in->cols[call->filter];
    const sl_vector *v = call->arg >= 0 ? &in->cols[call->arg] : NULL;
    for (int i = 0; i < in->nrows; i++) {
        if (gi[i] < 0 || f->nulls[i] || !f->v.b[i])
            continue;
        sl__acc *acc = SL__ACC(a, gi[i], c);
        if (v && v->nulls[i]) {
            sl__acc_null(call, acc, SL__SIGN(kinds[i]));
            continue;
        }
        if (!v)
            acc->n += SL__SIGN(kinds[i]);
        else if (sl__acc_value(call, acc, sl__load(v, i), SL__SIGN(kinds[i]), err))
            return -1;
    }
    return 0;
}

/* The DISTINCT calls sharing owner's value set, together: a row's value
** is looked up once, and each call whose FILTER holds and which had not
** seen it accumulates it (the input is insert-only). */
static int sl__accumulate_shared(sl__agg *a, int owner, const sl_chunk *in, sl_error *err)
{
    int m[64], nm = 0;
    for (int c = owner; c < a->naggs && nm < 64; c++)
        if (a->calls[c].sbit && a->calls[c].owner == owner)
            m[nm++] = c;
    const sl__call *oc = &a->calls[owner];
    const sl_vector *v = &in->cols[oc->arg];
    const int32_t *gi = a->gidx;
    enum { BLOCK = 256, AHEAD = 8 };
    uint64_t hs[BLOCK]; /* the block's values' hashes */
    for (int i = 0; i < in->nrows; i++) {
        int k = i % BLOCK;
        if (k == 0) {
            int end = in->nrows - i < BLOCK ? in->nrows - i : BLOCK;
            for (int j = 0; j < end; j++)
                hs[j] = v->nulls[i + j] ? 0 : sl__val_hash(oc->in_phys, sl__load(v, i + j));
        }
        /* Three loads depend on each other: the group's accumulator, its
        ** set, the slot; each is asked for some rows before the next. */
        int ahead = i + AHEAD;
        if (ahead < in->nrows && ahead % BLOCK >= k && gi[ahead] >= 0 && !v->nulls[ahead])
            sl__mset_prefetch(SL__ACC(a, gi[ahead], owner)->set, hs[ahead % BLOCK]);
        if (ahead + AHEAD < in->nrows && gi[ahead + AHEAD] >= 0) {
            const sl__mset *set = SL__ACC(a, gi[ahead + AHEAD], owner)->set;
            if (set)
                __builtin_prefetch(set);
        }
        if (ahead + 2 * AHEAD < in->nrows && gi[ahead + 2 * AHEAD] >= 0)
            __builtin_prefetch(SL__ACC(a, gi[ahead + 2 * AHEAD], owner));
        if (gi[i] < 0 || v->nulls[i])
            continue;
        uint64_t want = 0;
        for (int j = 0; j < nm; j++) {
            const sl__call *call = &a->calls[m[j]];
            if (call->filter < 0 ||
                (!in->cols[call->filter].nulls[i] && in->cols[call->filter].v.b[i]))
                want |= call->sbit;
        }
        if (!want)
            continue;
        sl__acc *oacc = SL__ACC(a, gi[i], owner);
        if (!oacc->set)
            oacc->set = sl__mset_new();
        sl__val x = sl__load(v, i);
        uint64_t fresh = sl__mset_mark_h(oacc->set, oc->in_phys, x, hs[k], want);
        for (int j = 0; j < nm && fresh; j++)
            if (fresh & a->calls[m[j]].sbit &&
                sl__acc_inner(&a->calls[m[j]], SL__ACC(a, gi[i], m[j]), x, 1, err))
                return -1;
    }
    return 0;
}

/* Second pass: update every call's accumulators, column by column, for the
** rows whose group a->gidx names. */
static int sl__accumulate(sl__agg *a, const sl_chunk *in, sl_error *err)
{
    int n = in->nrows;
    const int32_t *gi = a->gidx;
    const uint8_t *kinds = in->kinds;
    for (int c = 0; c < a->naggs; c++) {
        const sl__call *call = &a->calls[c];
        if (call->kind == SL__A_COUNT_STAR)
            continue;
        if (call->sbit) {
            if (call->owner == c && sl__accumulate_shared(a, c, in, err) != 0)
                return -1;
            continue;
        }
        if (call->filter >= 0) {
            if (sl__accumulate_filtered(a, c, in, err) != 0)
                return -1;
            continue;
        }
        const sl_vector *v = &in->cols[call->arg];
        const uint8_t *nl = v->nulls;
        if (!call->distinct && call->kind == SL__A_COUNT) {
            for (int i = 0; i < n; i++)
                if (gi[i] >= 0 && !nl[i])
                    SL__ACC(a, gi[i], c)->n += SL__SIGN(kinds[i]);
            continue;
        }
        if (!call->distinct && (call->kind == SL__A_SUM_INT || call->kind == SL__A_AVG_INT)) {
            const int64_t *x = v->v.i64;
            for (int i = 0; i < n; i++) {
                if (gi[i] < 0 || nl[i])
                    continue;
                sl__acc *acc = SL__ACC(a, gi[i], c);
                int s = SL__SIGN(kinds[i]);
                acc->v.d += s > 0 ? (sl_i128)x[i] : -(sl_i128)x[i];
                acc->n += s;
            }
            continue;
        }
        if (!call->distinct && (call->kind == SL__A_SUM_DEC || call->kind == SL__A_AVG_DEC)) {
            const sl_i128 *x = v->v.i128;
            for (int i = 0; i < n; i++) {
                if (gi[i] < 0 || nl[i])
                    continue;
                sl__acc *acc = SL__ACC(a, gi[i], c);
                int s = SL__SIGN(kinds[i]);
                if (sl__dec_acc(&acc->v.d, x[i], s, call->pos, err))
                    return -1;
                acc->n += s;
            }
            continue;
        }
        for (int i = 0; i < n; i++) {
            if (gi[i] < 0)
                continue;
            if (nl[i]) {
                sl__acc_null(call, SL__ACC(a, gi[i], c), SL__SIGN(kinds[i]));
                continue;
            }
            if (sl__acc_value(call, SL__ACC(a, gi[i], c), sl__load(v, i), SL__SIGN(kinds[i]), err))
                return -1;
        }
    }
    return 0;
}

/* Write the result of call c of group g into row r of column col of dst. */
static int sl__call_result(const sl__call *call, const sl__acc *acc, int64_t rows, sl_chunk *dst,
                           int col, int r, sl_error *err)
{
    if (call->kind == SL__A_COUNT_STAR) {
        sl_chunk_set_i64(dst, col, r, rows);
        return 0;
    }
    if (call->kind == SL__A_COUNT) {
        sl_chunk_set_i64(dst, col, r, acc->n);
        return 0;
    }
    if (acc->n <= 0) {
        sl_chunk_set_null(dst, col, r);
        return 0;
    }
    switch (call->kind) {
    case SL__A_SUM_INT:
        if (acc->v.d > INT64_MAX || acc->v.d < INT64_MIN)
            return sl__overflow(err, "BIGINT sum", call->pos);
        sl_chunk_set_i64(dst, col, r, (int64_t)acc->v.d);
        return 0;
    case SL__A_SUM_DEC: sl_chunk_set_i128(dst, col, r, acc->v.d); return 0;
    case SL__A_SUM_DBL: sl_chunk_set_f64(dst, col, r, acc->v.f); return 0;
    case SL__A_AVG_INT: sl_chunk_set_i64(dst, col, r, (int64_t)(acc->v.d / acc->n)); return 0;
    case SL__A_AVG_DEC: {
        sl_i128 q;
        if (sl_dec_div(acc->v.d, call->in_scale, (sl_i128)acc->n, 0, call->out.precision,
                       call->out.scale, &q))
            return sl__overflow(err, "DECIMAL average", call->pos);
        sl_chunk_set_i128(dst, col, r, q);
        return 0;
    }
    case SL__A_AVG_DBL: {
        double d = acc->v.f / (double)acc->n;
        sl_chunk_set_f64(dst, col, r, call->out.id == SL_TYPE_FLOAT ? (double)(float)d : d);
        return 0;
    }
    case SL__A_MIN:
    case SL__A_MAX: sl__store(dst, col, r, acc->v); return 0;
    case SL__A_ARRAY_AGG: {
        const sl__vlist *l = acc->list;
        uint64_t total = l->bytes + 4;
        if (total > UINT32_MAX)
            return sl_error_set(err, SL_ERR_PROGRAM_LIMIT, call->pos,
                                "ARRAY_AGG result of %llu bytes exceeds the limit of %u bytes",
                                (unsigned long long)total, UINT32_MAX);
        char *p = sl_arena_alloc(&dst->arena, total), *q = p + 4;
        for (int b = 0; b < 4; b++)
            p[b] = (char)((uint64_t)acc->n >> (8 * b));
        size_t off = 0;
        for (int64_t i = 0; i < acc->n; i++) {
            sl__val x = sl__vlist_next(l, &off);
            memcpy(q, x.s.p, x.s.len);
            q += x.s.len;
        }
        dst->cols[col].nulls[r] = 0;
        dst->cols[col].v.str[r].ptr = p;
        dst->cols[col].v.str[r].len = (uint32_t)total;
        return 0;
    }
    case SL__A_LISTAGG: {
        const sl__vlist *l = acc->list;
        uint64_t total = l->bytes + (uint64_t)call->seplen * (uint64_t)(acc->n - 1);
        if (total > UINT32_MAX)
            return sl_error_set(err, SL_ERR_PROGRAM_LIMIT, call->pos,
                                "LISTAGG result of %llu bytes exceeds the limit of %u bytes",
                                (unsigned long long)total, UINT32_MAX);
        char *p = sl_arena_alloc(&dst->arena, total ? total : 1), *q = p;
        size_t off = 0;
        for (int64_t i = 0; i < acc->n; i++) {
            sl__val x = sl__vlist_next(l, &off);
            if (i > 0 && call->seplen) {
                memcpy(q, call->sep, call->seplen);
                q += call->seplen;
            }
            if (x.s.len) {
                memcpy(q, x.s.p, x.s.len);
                q += x.s.len;
            }
        }
        dst->cols[col].nulls[r] = 0;
        dst->cols[col].v.str[r].ptr = p;
        dst->cols[col].v.str[r].len = (uint32_t)total;
        return 0;
    }
    default: break;
    }
    return 0;
}

static int sl__result(const sl__agg *a, const sl__group *g, int c, sl_chunk *dst, int col, int r,
                      sl_error *err)
{
    return sl__call_result(&a->calls[c], SL__ACCG(a, g, c), g->rows, dst, col, r, err);
}

/* ------------------------------------------------------------------------
** Output.
*/
static int sl__flush(sl__agg *a, const sl_emit *out, sl_error *err)
{
    if (a->out->nrows == 0)
        return 0;
    int rc = out->fn(out->ctx, a->out, err);
    sl_chunk_reset(a->out);
    return rc;
}

/* Append a row of kind k holding group g's keys; *row = its index. */
static int sl__out_row(sl__agg *a, const sl_emit *out, sl_row_kind k, const sl__group *g, int *row,
                       sl_error *err)
{
    if (sl_chunk_full(a->out) && sl__flush(a, out, err))
        return -1;
    int r = sl_chunk_append_row(a->out, k);
    const sl__val *kv = SL__KEYS(a, g);
    const uint8_t *kn = SL__KNULL(a, g);
    for (int i = 0; i < a->nkeys; i++)
        if (!kn[i])
            sl__store(a->out, i, r, kv[i]);
    *row = r;
    return 0;
}

/* Copy the results in row sr of src (one column per call) into row r of out. */
static void sl__out_results(sl__agg *a, int r, const sl_chunk *src, int sr)
{
    for (int c = 0; c < a->naggs; c++) {
        const sl_vector *v = &src->cols[c];
        if (!v->nulls[sr])
            sl__store(a->out, a->nkeys + c, r, sl__load(v, sr));
    }
}

/* Whether row t of old (one column per call) holds the results in row r
** of a->out (its columns after the keys). */
static bool sl__results_same(const sl__agg *a, const sl_chunk *old, int t, int r)
{
    for (int c = 0; c < a->naggs; c++) {
        const sl_vector *x = &old->cols[c], *y = &a->out->cols[a->nkeys + c];
        if ((x->nulls[t] != 0) != (y->nulls[r] != 0))
            return false;
        if (!x->nulls[t] && !sl__val_eq(x->phys, sl__load(x, t), sl__load(y, r)))
            return false;
    }
    return true;
}

/* Record the first touch of group g in this chunk (with its results so far). */
static int sl__touch(sl__agg *a, uint32_t g, bool was_new, sl_error *err)
{
    sl__group *grp = SL__G(a, g);
    grp->epoch = a->epoch;
    grp->live &= ~SL__RK_CLEAN; /* it changes: RocksDB's copy is stale */
    int t = a->ntouched++;
    a->touched[t].g = g;
    a->touched[t].was_new = was_new;
    if (!a->keeps_old)
        return 0;
    int r = sl_chunk_append_row(a->oldres, SL_ROW_INSERT);
    SL_ALWAYS(r == t);
    if (!was_new)
        for (int c = 0; c < a->naggs; c++)
            if (sl__result(a, grp, c, a->oldres, c, r, err))
                return -1;
    return 0;
}

/* Emit the changes of the touched groups; forget the emptied ones. */
static int sl__emit_changes(sl__agg *a, const sl_emit *out, sl_error *err)
{
    for (int t = 0; t < a->ntouched; t++) {
        uint32_t g = a->touched[t].g;
        sl__group *grp = SL__G(a, g);
        int r;
        if (grp->rows <= 0) {
            if (!a->touched[t].was_new) {
                if (sl__out_row(a, out, SL_ROW_DELETE, grp, &r, err))
                    return -1;
                sl__out_results(a, r, a->oldres, t);
            }
            sl__drop_group(a, g);
            continue;
        }
        /* The new results go straight into the output row; an update's
        ** -U/+U pair is taken back when they equal the old ones. */
        if (!a->touched[t].was_new && a->out->cap - a->out->nrows < 2 && sl__flush(a, out, err))
            return -1; /* the pair stays in one chunk */
        int rb = -1;
        if (!a->touched[t].was_new && !a->no_before) {
            if (sl__out_row(a, out, SL_ROW_UPDATE_BEFORE, grp, &rb, err))
                return -1;
            sl__out_results(a, rb, a->oldres, t);
        }
        if (sl__out_row(a, out, a->touched[t].was_new ? SL_ROW_INSERT : SL_ROW_UPDATE_AFTER, grp,
                        &r, err))
            return -1;
        for (int c = 0; c < a->naggs; c++)
            if (sl__result(a, grp, c, a->out, a->nkeys + c, r, err))
                return -1;
        if (rb >= 0 && sl__results_same(a, a->oldres, t, r))
            a->out->nrows -= 2;
        else if (a->no_before && a->keeps_old && !a->touched[t].was_new &&
                 sl__results_same(a, a->oldres, t, r))
            a->out->nrows--;
    }
    return sl__flush(a, out, err);
}

/* ------------------------------------------------------------------------
** Processing.
*/
static void sl__ensure_scratch(sl__agg *a, int n)
{
    if (n <= a->scap)
        return;
    a->scap = n;
    a->hashes = sl_realloc(a->hashes, (size_t)n * sizeof *a->hashes);
    a->gidx = sl_realloc(a->gidx, (size_t)n * sizeof *a->gidx);
    a->touched = sl_realloc(a->touched, (size_t)n * sizeof *a->touched);
    sl_chunk_free(a->oldres);
    a->oldres = sl_chunk_new(a->naggs, a->out_types + a->nkeys, n);
}

/* Drop every group whose last update is ttl or more ago (silently). */
static void sl__ttl_sweep(sl__agg *a, int64_t now)
{
    for (uint32_t i = 0; i < a->nrecs; i++) {
        sl__group *g = SL__G(a, i);
        if (g->live && now - SL__C(a, g)->updated >= a->ttl_ns)
            sl__drop_group(a, i);
    }
}

/* A window aggregation's late row i onto its side output: once per input
** row, from the row of its latest window (a HOP row arrives once per
** window; when the latest is late, so are the earlier ones). */
static int sl__agg_late_side(sl_operator *op, const sl__agg *a, const sl_chunk *in, int i,
                             sl_error *err)
{
    const sl_vector *ws = &in->cols[a->keys[a->wstart_key]];
    const sl_vector *we = &in->cols[a->keys[a->wend_key]];
    int64_t start = ws->nulls[i] ? INT64_MIN : ws->v.i64[i], end = we->v.i64[i];
    bool has_time = a->time_col >= 0 && !in->cols[a->time_col].nulls[i];
    int64_t t = has_time ? in->cols[a->time_col].v.i64[i] : INT64_MIN;
    int64_t slide = a->slide_ns > 0 ? a->slide_ns : end - start;
    if (a->slice_size_ns && start != INT64_MIN)
        end = start + a->slice_size_ns; /* a slice comes once: its latest window */
    else if (has_time && start != INT64_MIN && start + slide <= t)
        return 0; /* not its latest window */
    return sl_late_row(op, a->in_names, in, i, t, a->wm, start != INT64_MIN, start, end, err);
}

static int sl__agg_process(sl_operator *op, const sl_chunk *in, const sl_emit *out, sl_error *err)
{
    sl__agg *a = op->impl;
    int n = in->nrows;
    if (n == 0)
        return 0;
    if (in->ncols != a->in_ncols)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "aggregation input has %d columns, expected %d",
                            in->ncols, a->in_ncols);
    if (a->append_only) {
        unsigned odd = 0; /* -U and -D */
        for (int i = 0; i < n; i++)
            odd |= in->kinds[i];
        if (odd & 1)
            return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                "aggregation planned for an insert-only input received a retraction");
    }
    sl__ensure_scratch(a, n);
    if (a->rk && sl__rk_make_room(op, a, n, err) != 0)
        return -1;
    bool ttl = a->ttl_ns > 0 && !a->is_window;
    int64_t now = 0;
    if (ttl) {
        now = sl__now(a);
        if (now >= a->next_sweep) {
            sl__ttl_sweep(a, now);
            a->next_sweep = now + a->ttl_ns;
        }
    }
    a->epoch++;
    a->ntouched = 0;
    sl_chunk_reset(a->oldres);
    sl__hash_rows(a, in);
    const sl_vector *wend = a->is_window ? &in->cols[a->keys[a->wend_key]] : NULL;
    /* a slice is late when the last window it is in has fired (its end is
    ** size - slide after the slice's); a->wm - late_extra cannot overflow:
    ** rows come after a watermark that is a time or INT64_MIN */
    int64_t late_extra = a->slice_size_ns ? a->slice_size_ns - a->slide_ns : 0;
    if (a->wm < INT64_MIN + late_extra)
        late_extra = 0;
    for (int i = 0; i < n; i++) {
        bool retract = (in->kinds[i] & 1) != 0;
        if (a->tabcap) { /* hide the cache misses of the probes ahead */
            uint32_t mask = a->tabcap - 1;
            if (i + 16 < n)
                __builtin_prefetch(&a->tab[(uint32_t)a->hashes[i + 16] & mask]);
            if (i + 8 < n) {
                uint64_t e = a->tab[(uint32_t)a->hashes[i + 8] & mask];
                if (e)
                    __builtin_prefetch(SL__G(a, (uint32_t)e - 1));
            }
        }
        if (wend) {
            if (in->kinds[i] != SL_ROW_INSERT)
                return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                    "window aggregation received a %s row; its input must be append-only",
                                    sl_row_kind_name((sl_row_kind)in->kinds[i]));
            if (wend->nulls[i])
                return sl_error_set(err, SL_ERR_INTERNAL, -1, "window aggregation row without window_end");
            if (wend->v.i64[i] <= a->wm - late_extra) {
                a->late++;
                a->gidx[i] = -1;
                if (op->side[SL_SIDE_LATE].fn && sl__agg_late_side(op, a, in, i, err) != 0)
                    return -1;
                continue;
            }
        }
        int32_t g = sl__find_row(a, in, i, a->hashes[i]);
        if (g < 0 && a->rk && (g = sl__rk_fetch(a, in, i, a->hashes[i], err)) == -2)
            return -1;
        if (g >= 0 && ttl && SL__G(a, g)->epoch != a->epoch && now - SL__C(a, SL__G(a, g))->updated >= a->ttl_ns) {
            sl__drop_group(a, (uint32_t)g); /* expired: as if never seen */
            g = -1;
        }
        if (g < 0) {
            if (retract) {
                a->gidx[i] = -1; /* nothing to retract from (Flink ignores it) */
                continue;
            }
            g = (int32_t)sl__new_group_row(a, in, i, a->hashes[i]);
            if (!wend && sl__touch(a, (uint32_t)g, true, err))
                return -1;
        } else if (!wend && SL__G(a, g)->epoch != a->epoch) {
            if (sl__touch(a, (uint32_t)g, false, err))
                return -1;
        }
        sl__group *grp = SL__G(a, g);
        if (retract) {
            if (grp->rows <= 0) {
                a->gidx[i] = -1;
                continue;
            }
            grp->rows--;
        } else {
            grp->rows++;
        }
        if (ttl)
            SL__C(a, grp)->updated = now;
        a->gidx[i] = g;
    }
    if (sl__accumulate(a, in, err))
        return -1;
    if (wend)
        return 0;
    return sl__emit_changes(a, out, err);
}

/* ------------------------------------------------------------------------
** Sliced HOP windows (Flink's slicing window aggregation): the input rows
** carry their slice, [align(t, slide), + slide), once, instead of one row
** per window; the groups are per slice, and a window [E - size, E) fires
** by merging the groups of its size / slide slices (those ending in
** (E - size, E]) per key. A slice is dropped when the last window it is
** in, ending size - slide after it, has fired. The calls are those whose
** accumulators merge: COUNT, SUM, AVG, MIN, MAX without DISTINCT.
*/

/* Fold src, call's accumulator of a slice, into dst, its window's. */
static int sl__acc_merge(const sl__call *call, sl__acc *dst, const sl__acc *src, sl_error *err)
{
    if (src->n == 0)
        return 0;
    switch (call->kind) {
    case SL__A_COUNT_STAR:
    case SL__A_COUNT: break;
    case SL__A_SUM_INT:
    case SL__A_AVG_INT: dst->v.d += src->v.d; break;
    case SL__A_SUM_DEC:
    case SL__A_AVG_DEC:
        if (sl__dec_acc(&dst->v.d, src->v.d, 1, call->pos, err))
            return -1;
        break;
    case SL__A_SUM_DBL:
    case SL__A_AVG_DBL: dst->v.f += src->v.f; break;
    case SL__A_MIN:
    case SL__A_MAX: /* the slice's extreme as one value (copied), then its count */
        if (sl__acc_inner(call, dst, src->v, 1, err))
            return -1;
        dst->n += src->n - 1;
        return 0;
    default: return sl_error_set(err, SL_ERR_INTERNAL, call->pos, "aggregate call cannot merge slices");
    }
    dst->n += src->n;
    return 0;
}

/* Whether call merges (sl__acc_merge). */
static bool sl__call_merges(const sl__call *call)
{
    return !call->distinct && !call->multiset && call->kind <= SL__A_MAX;
}

/* Emit group g (of a slice, or merged) as window [E - size, E)'s. */
static int sl__out_window_row(sl__agg *a, const sl_emit *out, const sl__group *g, int64_t end,
                              sl_error *err)
{
    int r;
    if (sl__out_row(a, out, SL_ROW_INSERT, g, &r, err))
        return -1;
    a->out->cols[a->wstart_key].v.i64[r] = end - a->slice_size_ns;
    a->out->cols[a->wend_key].v.i64[r] = end;
    for (int c = 0; c < a->naggs; c++)
        if (sl__result(a, g, c, a->out, a->nkeys + c, r, err))
            return -1;
    return 0;
}

/* A merged record for slice group s (keys shared, not owned), in a->mtab. */
static uint32_t sl__merged_for(sl__agg *a, uint32_t s, uint64_t h)
{
    uint32_t mask = a->mcap - 1, i = (uint32_t)h & mask;
    uint64_t tag = h & 0xffffffff00000000ULL;
    for (; a->mtab[i]; i = (i + 1) & mask)
        if ((a->mtab[i] & 0xffffffff00000000ULL) == tag &&
            sl__key_eq_group(a, SL__G(a, (uint32_t)a->mtab[i] - 1), SL__G(a, s), true))
            return (uint32_t)a->mtab[i] - 1;
    uint32_t m = sl__alloc_group(a); /* may move the records: indices only */
    sl__group *mg = SL__G(a, m), *sg = SL__G(a, s);
    memcpy(SL__KEYS(a, mg), SL__KEYS(a, sg), (size_t)a->nkeys * sizeof(sl__val));
    memcpy(SL__KNULL(a, mg), SL__KNULL(a, sg), (size_t)a->nkeys);
    a->mtab[i] = tag | ((uint64_t)m + 1);
    if (a->nmord == a->capmord) {
        a->capmord = a->capmord ? a->capmord * 2 : 256;
        a->mord = sl_realloc(a->mord, (size_t)a->capmord * sizeof(uint32_t));
    }
    a->mord[a->nmord++] = m;
    return m;
}

/* Fire window [end - size, end) from slices wins[lo, hi): one slice's
** groups as they are, several merged per key in first-seen order. */
static int sl__fire_window(sl_operator *op, sl__agg *a, int lo, int hi, int64_t end,
                           const sl_emit *out, sl_error *err)
{
    if (hi - lo == 1) {
        sl__window *win = &a->wins[lo];
        for (int j = 0; j < win->n; j++) {
            if (j % SL_CHUNK_ROWS == 0 && sl_op_cancelled(op))
                return sl_op_cancel_error(err);
            if (sl__out_window_row(a, out, SL__G(a, win->g[j]), end, err))
                return -1;
        }
        return 0;
    }
    uint64_t total = 0;
    for (int w = lo; w < hi; w++)
        total += (uint64_t)a->wins[w].n;
    uint32_t cap = 1024;
    while ((uint64_t)cap < total * 2)
        cap *= 2;
    if (cap > a->mcap) {
        sl_free(a->mtab);
        a->mtab = sl_malloc((size_t)cap * sizeof(uint64_t));
        a->mcap = cap;
    }
    memset(a->mtab, 0, (size_t)a->mcap * sizeof(uint64_t));
    a->nmord = 0;
    int rc = 0;
    uint64_t done = 0;
    for (int w = lo; w < hi && !rc; w++) {
        const sl__window *win = &a->wins[w];
        for (int j = 0; j < win->n && !rc; j++, done++) {
            if (done % SL_CHUNK_ROWS == 0 && sl_op_cancelled(op)) {
                rc = sl_op_cancel_error(err);
                break;
            }
            uint32_t s = win->g[j];
            uint32_t m = sl__merged_for(a, s, sl__hash_group(a, SL__G(a, s), true));
            sl__group *mg = SL__G(a, m), *sg = SL__G(a, s);
            mg->rows += sg->rows;
            for (int c = 0; c < a->naggs && !rc; c++)
                if (a->calls[c].slot >= 0)
                    rc = sl__acc_merge(&a->calls[c], SL__ACCG(a, mg, c), SL__ACCG(a, sg, c), err);
        }
    }
    for (uint32_t i = 0; i < a->nmord && !rc; i++)
        rc = sl__out_window_row(a, out, SL__G(a, a->mord[i]), end, err);
    for (uint32_t i = 0; i < a->nmord; i++)
        sl__release_group(a, a->mord[i]);
    a->nmord = 0;
    return rc;
}

/* Fire the windows ending in (prev, a->wm] that hold a slice, oldest first,
** dropping each slice after the last window it is in. */
static int sl__fire_slices(sl_operator *op, sl__agg *a, int64_t prev, const sl_emit *out,
                           sl_error *err)
{
    int64_t extra = a->slice_size_ns - a->slide_ns;
    while (a->nwins > 0) {
        /* the first unfired window of the oldest slice (each slice's end
        ** plus extra is past prev, or it would have been dropped) */
        sl_i128 e = a->wins[0].end;
        if (e <= prev)
            e += ((sl_i128)prev - e) / a->slide_ns * a->slide_ns + a->slide_ns;
        if (e > a->wm)
            break;
        int64_t end = (int64_t)e;
        int lo = 0, hi = 0;
        while (lo < a->nwins && (sl_i128)a->wins[lo].end <= e - a->slice_size_ns)
            lo++;
        for (hi = lo; hi < a->nwins && a->wins[hi].end <= end;)
            hi++;
        if (sl__fire_window(op, a, lo, hi, end, out, err))
            return -1;
        prev = end;
        int w = 0;
        for (; w < a->nwins && (sl_i128)a->wins[w].end + extra <= e; w++) {
            for (int j = 0; j < a->wins[w].n; j++)
                sl__drop_group(a, a->wins[w].g[j]);
            sl_free(a->wins[w].g);
        }
        memmove(a->wins, a->wins + w, (size_t)(a->nwins - w) * sizeof *a->wins);
        a->nwins -= w;
    }
    return sl__flush(a, out, err);
}

static int sl__agg_watermark(sl_operator *op, int64_t wm, const sl_emit *out, sl_error *err)
{
    sl__agg *a = op->impl;
    int64_t prev = a->wm;
    if (wm > a->wm)
        a->wm = wm;
    if (!a->is_window)
        return 0;
    if (a->slice_size_ns)
        return sl__fire_slices(op, a, prev, out, err);
    int w = 0;
    int rc = 0;
    for (; w < a->nwins && a->wins[w].end <= a->wm && !rc; w++) {
        sl__window *win = &a->wins[w];
        for (int j = 0; j < win->n && !rc; j++) {
            sl__group *grp = SL__G(a, win->g[j]);
            int r;
            /* firing may take long (many windows, many groups) */
            if (j % SL_CHUNK_ROWS == 0 && sl_op_cancelled(op)) {
                rc = sl_op_cancel_error(err);
                break;
            }
            rc = sl__out_row(a, out, SL_ROW_INSERT, grp, &r, err);
            for (int c = 0; c < a->naggs && !rc; c++)
                rc = sl__result(a, grp, c, a->out, a->nkeys + c, r, err);
        }
        for (int j = 0; j < win->n; j++)
            sl__drop_group(a, win->g[j]);
        sl_free(win->g);
    }
    if (w > 0) /* a->wins may be NULL: a task that never saw a window */
        memmove(a->wins, a->wins + w, (size_t)(a->nwins - w) * sizeof *a->wins);
    a->nwins -= w;
    if (rc)
        return -1;
    return sl__flush(a, out, err);
}

static int64_t sl__agg_late_rows(sl_operator *op)
{
    return ((sl__agg *)op->impl)->late;
}

/* ------------------------------------------------------------------------
** Snapshot and restore.
*/
#define SL__SNAP_MAGIC "SLAG"
/* 3: the groups' integers compact (sl__put_int), XXH3 checksum; 2: LISTAGG,
** fixed widths; 1: version 2 without LISTAGG. All three are read. */
#define SL__SNAP_VERSION 3

/* The encoders write through a cursor (w_*: p in, p past the field out)
** into room made ahead (sl__room: at least SL__FIELD_MAX bytes a field),
** so that a group's fixed-width fields go out without a bounds check or a
** reload of the buffer's length between them (a snapshot writes millions
** of them); sl__put_* are the same fields one at a time into a buffer. */
#define SL__FIELD_MAX 19 /* the longest field: a 128-bit varint */

static inline unsigned char *sl__room(sl_strbuf *sb, size_t n)
{
    if (sb->cap - sb->len <= n)
        sl_strbuf_reserve(sb, n + 65536);
    return (unsigned char *)sb->buf + sb->len;
}

/* What was written through the cursor up to p is the buffer's. */
static inline void sl__wrote(sl_strbuf *sb, unsigned char *p)
{
    sb->len = (size_t)(p - (unsigned char *)sb->buf);
    *p = 0;
}

/* The low `bytes` bytes of v, little-endian. */
static inline unsigned char *sl__w_fixed(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
    return p + bytes;
}

/* The groups' integers are written in one of two ways: fixed little-endian
** widths (c false: version 2 blobs, RocksDB's stored values, sl_accs_put),
** or compact (c true: version 3 blobs), each a zigzag LEB128 varint, so a
** count of 1 or a key below 64 takes one byte. sl__rd.compact reads them
** back. */
static inline unsigned char *sl__w_varint(unsigned char *p, uint64_t u)
{
    while (u >= 0x80) {
        *p++ = (unsigned char)(u | 0x80);
        u >>= 7;
    }
    *p++ = (unsigned char)u;
    return p;
}

/* A signed integer that fits in `bytes` (4 or 8). */
static inline unsigned char *sl__w_int(unsigned char *p, bool c, int64_t v, int bytes)
{
    if (c)
        return sl__w_varint(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
    return sl__w_fixed(p, (uint64_t)v, bytes);
}

static inline unsigned char *sl__w_i128(unsigned char *p, bool c, sl_i128 v)
{
    unsigned __int128 u = (unsigned __int128)v;
    if (!c) {
        p = sl__w_fixed(p, (uint64_t)u, 8);
        return sl__w_fixed(p, (uint64_t)(u >> 64), 8);
    }
    if (v == (int64_t)v) /* zigzag: the same bytes as a 64-bit one's */
        return sl__w_int(p, true, (int64_t)v, 8);
    u = (u << 1) ^ (unsigned __int128)(v >> 127);
    while (u >> 64) {
        *p++ = (unsigned char)(u | 0x80);
        u >>= 7;
    }
    return sl__w_varint(p, (uint64_t)u);
}

/* A value; a string only its length: its bytes follow (sl__put_val). */
static inline unsigned char *sl__w_val(unsigned char *p, bool c, sl_phys ph, sl__val x)
{
    switch (ph) {
    case SL_PHYS_BOOL:
    case SL_PHYS_I64: return sl__w_int(p, c, x.i, 8);
    case SL_PHYS_F64: return sl__w_fixed(p, sl__f64_bits(x.f), 8);
    case SL_PHYS_I128: return sl__w_i128(p, c, x.d);
    case SL_PHYS_STR: return sl__w_int(p, c, (int64_t)x.s.len, 4);
    }
    return p;
}

static inline void sl__put(sl_strbuf *sb, uint64_t v, int bytes)
{
    sl__wrote(sb, sl__w_fixed(sl__room(sb, (size_t)bytes), v, bytes));
}

static inline void sl__put_int(sl_strbuf *sb, bool c, int64_t v, int bytes)
{
    sl__wrote(sb, sl__w_int(sl__room(sb, SL__FIELD_MAX), c, v, bytes));
}

static void sl__put_val(sl_strbuf *sb, bool c, sl_phys ph, sl__val x)
{
    sl__wrote(sb, sl__w_val(sl__room(sb, SL__FIELD_MAX), c, ph, x));
    if (ph == SL_PHYS_STR)
        sl_strbuf_append_n(sb, x.s.p, x.s.len);
}

static _Thread_local sl_phys sl__sort_phys; /* qsort has no context argument */

static int sl__cmp_ment(const void *x, const void *y)
{
    return sl__val_cmp(sl__sort_phys, (*(const sl__ment *const *)x)->v, (*(const sl__ment *const *)y)->v);
}

/* Entries sorted by value: the same multiset gives the same bytes. */
/* Multiset m sorted by value; bit != 0: the values of a shared set that the
** call of that bit has seen, each once, as its own set would hold them
** (the input is insert-only). */
static void sl__put_mset(sl_strbuf *sb, bool c, sl_phys ph, const sl__mset *m, uint64_t bit)
{
    uint32_t k = 0;
    for (uint32_t i = 0; m && i < m->cap; i++)
        k += m->e[i].count && (!bit || ((uint64_t)m->e[i].count & bit));
    if (!k) {
        sl__put_int(sb, c, 0, 4);
        return;
    }
    const sl__ment **v = sl_malloc(k * sizeof *v);
    k = 0;
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->e[i].count && (!bit || ((uint64_t)m->e[i].count & bit)))
            v[k++] = &m->e[i];
    sl__sort_phys = ph;
    qsort(v, k, sizeof *v, sl__cmp_ment);
    sl__put_int(sb, c, k, 4);
    for (uint32_t i = 0; i < k; i++) {
        sl__put_val(sb, c, ph, v[i]->v);
        sl__put_int(sb, c, bit ? 1 : v[i]->count, 8);
    }
    sl_free(v);
}

/* An accumulator's fixed-width head (not COUNT(*)'s: the group's row
** count is its state): its count, then its sum or a MIN/MAX that is not a
** string. A call with more (sl__acc_more) has it follow: sl__put_acc_more. */
static inline unsigned char *sl__w_acc(unsigned char *p, bool c, const sl__call *call,
                                       const sl__acc *acc)
{
    p = sl__w_int(p, c, acc->n, 8);
    switch (call->kind) {
    case SL__A_SUM_INT:
    case SL__A_AVG_INT:
    case SL__A_SUM_DEC:
    case SL__A_AVG_DEC: return sl__w_i128(p, c, acc->v.d);
    case SL__A_SUM_DBL:
    case SL__A_AVG_DBL: return sl__w_fixed(p, sl__f64_bits(acc->v.f), 8);
    case SL__A_MIN:
    case SL__A_MAX:
        if (!call->multiset && acc->n > 0 && call->in_phys != SL_PHYS_STR)
            return sl__w_val(p, c, call->in_phys, acc->v);
        break;
    default: break;
    }
    return p;
}

/* Whether a call's accumulator has more than its head: a string MIN/MAX,
** a list, a multiset. */
static inline bool sl__acc_more(const sl__call *call)
{
    return ((call->kind == SL__A_MIN || call->kind == SL__A_MAX) && call->in_phys == SL_PHYS_STR) ||
           call->kind == SL__A_ARRAY_AGG || call->kind == SL__A_LISTAGG || call->sbit ||
           call->distinct || call->multiset;
}

/* The rest of an accumulator after its head; shared, the set its call
** shares (sl__call.sbit), else NULL. */
static void sl__put_acc_more(sl_strbuf *state, bool c, const sl__call *call, const sl__acc *acc,
                             const sl__mset *shared)
{
    switch (call->kind) {
    case SL__A_MIN:
    case SL__A_MAX:
        if (!call->multiset && acc->n > 0 && call->in_phys == SL_PHYS_STR)
            sl__put_val(state, c, call->in_phys, acc->v);
        break;
    case SL__A_ARRAY_AGG:
    case SL__A_LISTAGG: {
        size_t off = 0;
        for (int64_t i = 0; i < acc->n; i++)
            sl__put_val(state, c, SL_PHYS_STR, sl__vlist_next(acc->list, &off));
        break;
    }
    default: break;
    }
    if (call->sbit)
        sl__put_mset(state, c, call->in_phys, shared, call->sbit);
    else if (call->distinct || call->multiset)
        sl__put_mset(state, c, call->in_phys, acc->set, 0);
}

/* One accumulator, head and rest (sl_accs_put). */
static void sl__put_acc(sl_strbuf *state, bool c, const sl__call *call, const sl__acc *acc,
                        const sl__mset *shared)
{
    sl__wrote(state, sl__w_acc(sl__room(state, 2 * SL__FIELD_MAX), c, call, acc));
    if (sl__acc_more(call))
        sl__put_acc_more(state, c, call, acc, shared);
}

typedef struct sl__seqidx {
    uint64_t seq;  /* first-seen order */
    uint32_t idx;  /* record */
} sl__seqidx;

static int sl__cmp_seq(const void *x, const void *y)
{
    uint64_t a = ((const sl__seqidx *)x)->seq, b = ((const sl__seqidx *)y)->seq;
    return a < b ? -1 : a > b;
}

static void sl__put_shape(sl__agg *a, sl_strbuf *sb)
{
    sl__put(sb, a->slice_size_ns ? 2 : a->is_window, 1); /* groups per slice: 2 */
    sl__put(sb, (uint64_t)a->nkeys, 4);
    for (int k = 0; k < a->nkeys; k++)
        sl__put(sb, a->kphys[k], 1);
    sl__put(sb, (uint64_t)a->naggs, 4);
    for (int c = 0; c < a->naggs; c++) {
        const sl__call *call = &a->calls[c];
        sl__put(sb, call->kind, 1);
        sl__put(sb, call->distinct, 1);
        sl__put(sb, call->multiset, 1);
        sl__put(sb, call->in_phys, 1);
        sl__put(sb, (uint64_t)call->in_scale, 1);
    }
}

/* One group in the snapshot's encoding (sl__restore_group reads it): the
** checkpoint blob's records (compact, c) and, under 'rocksdb', a group's
** stored value (fixed widths). Compact, the sequence number is the step
** from the previous group's, *prev_seq (UINT64_MAX: none yet). */
static void sl__put_group(const sl__agg *a, const sl__group *g, sl_strbuf *sb, bool c,
                          uint64_t *prev_seq)
{
    uint64_t seq = c && *prev_seq != UINT64_MAX ? SL__C(a, g)->seq - *prev_seq : SL__C(a, g)->seq;
    if (c)
        *prev_seq = SL__C(a, g)->seq;
    /* Room for every fixed-width field of the group, made again after a
    ** part of variable length. */
    size_t room = (size_t)(3 + 2 * a->nkeys + 2 * a->naggs) * SL__FIELD_MAX;
    unsigned char *p = sl__room(sb, room);
    p = sl__w_int(p, c, (int64_t)seq, 8);
    p = sl__w_int(p, c, SL__C(a, g)->updated, 8);
    p = sl__w_int(p, c, g->rows, 8);
    const sl__val *kv = SL__KEYS(a, g);
    const uint8_t *kn = SL__KNULL(a, g);
    for (int k = 0; k < a->nkeys; k++) {
        *p++ = kn[k];
        if (kn[k])
            continue;
        p = sl__w_val(p, c, a->kphys[k], kv[k]);
        if (a->kphys[k] == SL_PHYS_STR) {
            sl__wrote(sb, p);
            sl_strbuf_append_n(sb, kv[k].s.p, kv[k].s.len);
            p = sl__room(sb, room);
        }
    }
    for (int i = 0; i < a->naggs; i++) {
        const sl__call *call = &a->calls[i];
        if (call->kind == SL__A_COUNT_STAR)
            continue;
        const sl__acc *acc = SL__ACCG(a, g, i);
        p = sl__w_acc(p, c, call, acc);
        if (sl__acc_more(call)) {
            sl__wrote(sb, p);
            sl__put_acc_more(sb, c, call, acc, call->sbit ? SL__ACCG(a, g, call->owner)->set : NULL);
            p = sl__room(sb, room);
        }
    }
    sl__wrote(sb, p);
}

static int sl__agg_snapshot(sl_operator *op, sl_strbuf *state, sl_error *err)
{
    sl__agg *a = op->impl;
    if (a->rk)
        return sl__rk_snapshot(op, a, state, err);
    size_t start = state->len;
    sl_strbuf_append_n(state, SL__SNAP_MAGIC, 4);
    sl__put(state, SL__SNAP_VERSION, 4);
    sl__put_shape(a, state);
    sl__put(state, (uint64_t)a->wm, 8);
    sl__put(state, (uint64_t)a->late, 8);
    sl__put(state, a->next_seq, 8);
    sl__put(state, a->ngroups, 4);
    /* About the size of a group: one allocation instead of ~20 doublings. */
    sl_strbuf_reserve(state, (size_t)a->ngroups * (size_t)(4 + 4 * a->nkeys + 6 * a->naggs) + 64);
    /* Records are in first-seen order until slots are reused: then one pass
    ** writes them; else they are sorted first. */
    size_t groups_at = state->len;
    uint64_t prev = UINT64_MAX;
    uint32_t n = 0;
    bool sorted = true;
    for (uint32_t i = 0; i < a->nrecs && sorted; i++) {
        const sl__group *g = SL__G(a, i);
        if (i + 12 < a->nrecs) { /* the records ahead, all their lines */
            const char *ahead = (const char *)SL__G(a, i + 12);
            for (size_t o = 0; o < a->stride; o += 64)
                __builtin_prefetch(ahead + o);
        }
        if (!g->live)
            continue;
        if (prev != UINT64_MAX && SL__C(a, g)->seq <= prev)
            sorted = false;
        else
            sl__put_group(a, g, state, true, &prev), n++;
    }
    if (!sorted) {
        state->len = groups_at;
        sl__seqidx *order = sl_malloc((a->ngroups ? a->ngroups : 1) * sizeof *order);
        n = 0;
        for (uint32_t i = 0; i < a->nrecs; i++)
            if (SL__G(a, i)->live)
                order[n++] = (sl__seqidx){SL__C(a, SL__G(a, i))->seq, i};
        qsort(order, n, sizeof *order, sl__cmp_seq);
        prev = UINT64_MAX;
        for (uint32_t j = 0; j < n; j++)
            sl__put_group(a, SL__G(a, order[j].idx), state, true, &prev);
        sl_free(order);
    }
    SL_ALWAYS(n == a->ngroups);
    sl__put(state, sl_checksum(state->buf + start, state->len - start), 8);
    return 0;
}

typedef struct sl__rd {
    const unsigned char *p; /* the blob */
    size_t n;               /* its length */
    size_t off;             /* read position */
    bool bad;               /* a read ran past the end */
    bool compact;           /* the groups' integers are varints (sl__put_int) */
} sl__rd;

static uint64_t sl__get(sl__rd *r, int bytes)
{
    if (r->bad || r->n - r->off < (size_t)bytes) {
        r->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)r->p[r->off + (size_t)i] << (8 * i);
    r->off += (size_t)bytes;
    return v;
}

/* A LEB128 varint of at most `bits` bits (64 or 128); bad when it is
** longer or runs past the end. */
static unsigned __int128 sl__get_varint(sl__rd *r, int bits)
{
    unsigned __int128 u = 0;
    for (int shift = 0; !r->bad && r->off < r->n && shift < bits; shift += 7) {
        unsigned b = r->p[r->off++];
        if (shift + 7 > bits && (b & 0x7f) >> (bits - shift))
            break; /* more bits than fit */
        u |= (unsigned __int128)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return u;
    }
    r->bad = true;
    return 0;
}

/* An integer sl__put_int wrote: a 4-byte one is 0..UINT32_MAX. */
static int64_t sl__get_int(sl__rd *r, int bytes)
{
    if (!r->compact)
        return (int64_t)sl__get(r, bytes);
    uint64_t u = (uint64_t)sl__get_varint(r, 64);
    int64_t v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
    if (bytes == 4 && (v < 0 || v > (int64_t)UINT32_MAX)) {
        r->bad = true;
        return 0;
    }
    return v;
}

static sl_i128 sl__get_i128(sl__rd *r)
{
    if (r->compact) {
        unsigned __int128 u = sl__get_varint(r, 128);
        return (sl_i128)(u >> 1) ^ -(sl_i128)(u & 1);
    }
    uint64_t lo = sl__get(r, 8), hi = sl__get(r, 8);
    return (sl_i128)(((unsigned __int128)hi << 64) | lo);
}

/* A value; strings point into the blob (the caller copies them). */
static sl__val sl__get_val(sl__rd *r, sl_phys ph)
{
    sl__val x;
    memset(&x, 0, sizeof x);
    switch (ph) {
    case SL_PHYS_BOOL:
    case SL_PHYS_I64: x.i = sl__get_int(r, 8); break;
    case SL_PHYS_F64: {
        uint64_t u = sl__get(r, 8);
        memcpy(&x.f, &u, 8);
        break;
    }
    case SL_PHYS_I128: x.d = sl__get_i128(r); break;
    case SL_PHYS_STR: {
        uint32_t len = (uint32_t)sl__get_int(r, 4);
        if (r->bad || r->n - r->off < len) {
            r->bad = true;
            break;
        }
        x.s.p = (const char *)r->p + r->off;
        x.s.len = len;
        r->off += len;
        break;
    }
    }
    return x;
}

static bool sl__get_mset(sl__rd *r, sl_phys ph, sl__mset **out, int64_t *total)
{
    uint32_t k = (uint32_t)sl__get_int(r, 4);
    *total = 0;
    for (uint32_t i = 0; i < k && !r->bad; i++) {
        sl__val x = sl__get_val(r, ph);
        int64_t cnt = sl__get_int(r, 8);
        if (r->bad || cnt <= 0 || *total > INT64_MAX - cnt)
            return false;
        if (!*out)
            *out = sl__mset_new();
        if (sl__mset_add(*out, ph, x, cnt, NULL) != cnt)
            return false; /* a duplicate value */
        *total += cnt;
    }
    return !r->bad;
}

/* One accumulator as sl__put_acc wrote it; false when the bytes are bad. */
static bool sl__get_acc(sl__rd *r, const sl__call *call, sl__acc *acc)
{
    acc->n = sl__get_int(r, 8);
    switch (call->kind) {
    case SL__A_SUM_INT:
    case SL__A_AVG_INT:
    case SL__A_SUM_DEC:
    case SL__A_AVG_DEC: acc->v.d = sl__get_i128(r); break;
    case SL__A_SUM_DBL:
    case SL__A_AVG_DBL: {
        uint64_t u = sl__get(r, 8);
        memcpy(&acc->v.f, &u, 8);
        break;
    }
    case SL__A_MIN:
    case SL__A_MAX:
        if (!call->multiset && acc->n > 0) {
            sl__val x = sl__get_val(r, call->in_phys);
            if (r->bad)
                return false;
            if (call->in_phys == SL_PHYS_STR) {
                char *p = sl_malloc(x.s.len ? x.s.len : 1);
                if (x.s.len)
                    memcpy(p, x.s.p, x.s.len);
                x.s.p = p;
            }
            acc->v = x;
        }
        break;
    case SL__A_LISTAGG:
    case SL__A_ARRAY_AGG:
        /* each value takes at least its 4-byte length: n is plausible */
        if (r->bad || acc->n < 0 || (uint64_t)acc->n > (r->n - r->off) / 4)
            return false;
        for (int64_t i = 0; i < acc->n && !r->bad; i++) {
            sl__val x = sl__get_val(r, SL_PHYS_STR);
            if (!r->bad)
                sl__vlist_add(&acc->list, x);
        }
        break;
    default: break;
    }
    if (r->bad || acc->n < 0)
        return false;
    if (call->distinct || call->multiset) {
        int64_t total;
        if (!sl__get_mset(r, call->in_phys, &acc->set, &total))
            return false;
        if (call->kind == SL__A_LISTAGG && (int64_t)(acc->set ? acc->set->n : 0) != acc->n)
            return false; /* DISTINCT LISTAGG lists each value of its set once */
        if (call->multiset) {
            if (total != acc->n)
                return false;
            if (total > 0)
                sl__mset_extreme(acc->set, call->in_phys, call->kind == SL__A_MIN ? 1 : -1,
                                 &acc->v);
        }
    }
    return !r->bad;
}

static bool sl__group_exists(const sl__agg *a, const sl__group *g)
{
    if (!a->tabcap)
        return false;
    uint32_t mask = a->tabcap - 1, i = (uint32_t)SL__C(a, g)->hash & mask;
    for (; a->tab[i]; i = (i + 1) & mask)
        if (sl__key_eq_group(a, SL__G(a, (uint32_t)a->tab[i] - 1), g, false))
            return true;
    return false;
}

/* Call c's set as read (each call's own, as every snapshot holds them)
** into the set it shares: its values marked with its bit. The owner, read
** first, turns its own counts into its bit. */
static void sl__share_set(sl__agg *a, sl__group *g, int c)
{
    const sl__call *call = &a->calls[c];
    sl__acc *acc = SL__ACCG(a, g, c), *oacc = SL__ACCG(a, g, call->owner);
    sl__mset *m = acc->set;
    if (!m)
        return;
    if (c == call->owner) {
        for (uint32_t i = 0; i < m->cap; i++)
            if (m->e[i].count)
                m->e[i].count = (int64_t)call->sbit;
        return;
    }
    if (!oacc->set)
        oacc->set = sl__mset_new();
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->e[i].count)
            sl__mset_mark(oacc->set, call->in_phys, m->e[i].v, call->sbit);
    sl__mset_free(m, call->in_phys);
    acc->set = NULL;
}

/* Read one group; false on any inconsistency. */
static bool sl__restore_group(sl__agg *a, sl__rd *r, uint64_t *prev_seq)
{
    uint32_t idx = sl__alloc_group(a);
    sl__group *g = SL__G(a, idx);
    SL__C(a, g)->seq = (uint64_t)sl__get_int(r, 8);
    if (r->compact && *prev_seq != UINT64_MAX)
        SL__C(a, g)->seq += *prev_seq; /* the step from the previous group's */
    SL__C(a, g)->updated = sl__get_int(r, 8);
    g->rows = sl__get_int(r, 8);
    if (r->bad || g->rows <= 0 || SL__C(a, g)->seq >= a->next_seq || (*prev_seq != UINT64_MAX && SL__C(a, g)->seq <= *prev_seq))
        goto bad_unlinked;
    *prev_seq = SL__C(a, g)->seq;
    sl__val *kv = SL__KEYS(a, g);
    uint8_t *kn = SL__KNULL(a, g);
    for (int k = 0; k < a->nkeys; k++) {
        uint64_t isnull = sl__get(r, 1);
        if (isnull > 1)
            goto bad_unlinked;
        kn[k] = (uint8_t)isnull;
        if (!isnull)
            kv[k] = sl__get_val(r, a->kphys[k]);
    }
    if (r->bad || (a->is_window && kn[a->wend_key]))
        goto bad_unlinked;
    sl__own_keys(a, g);
    SL__C(a, g)->hash = sl__hash_group(a, g, false);
    if (sl__group_exists(a, g))
        goto bad_unlinked;
    sl__link_group(a, idx);
    g = SL__G(a, idx);
    for (int c = 0; c < a->naggs; c++) {
        const sl__call *call = &a->calls[c];
        if (call->kind == SL__A_COUNT_STAR)
            continue;
        if (!sl__get_acc(r, call, SL__ACCG(a, g, c)))
            return false;
        if (call->sbit)
            sl__share_set(a, g, c);
    }
    return !r->bad;
bad_unlinked:
    /* Not in the table yet: release the record directly. */
    sl_free(SL__C(a, g)->kbytes);
    SL__C(a, g)->kbytes = NULL;
    g->live = 0;
    a->ngroups--;
    if (a->nfree == a->capfree) {
        a->capfree = a->capfree ? a->capfree * 2 : 256;
        a->freel = sl_realloc(a->freel, a->capfree * sizeof(uint32_t));
    }
    a->freel[a->nfree++] = idx;
    return false;
}

/* The blob's shape (at blob, shape->len bytes) against the operator's:
** equal, but for a MIN/MAX that kept a multiset in the blob and keeps one
** value here (its input is known to be insert-only now): conv[c] is set,
** and the restore drops those multisets (sl__drop_msets). */
static bool sl__shape_restorable(const sl__agg *a, const unsigned char *blob, const sl_strbuf *shape,
                                 bool *conv)
{
    size_t calls_at = 1 + 4 + (size_t)a->nkeys + 4; /* sl__put_shape's layout */
    for (size_t i = 0; i < shape->len; i++) {
        unsigned char want = (unsigned char)shape->buf[i];
        if (blob[i] == want)
            continue;
        if (i < calls_at || (i - calls_at) % 5 != 2 || blob[i] != 1 || want != 0)
            return false;
        int c = (int)((i - calls_at) / 5);
        if (a->calls[c].kind != SL__A_MIN && a->calls[c].kind != SL__A_MAX)
            return false;
        conv[c] = true;
    }
    return true;
}

/* After a restore with conv (sl__shape_restorable): each such MIN/MAX keeps
** its value (a string copied out of the multiset) and the multiset goes. */
static void sl__drop_msets(sl__agg *a, const bool *conv)
{
    for (int c = 0; c < a->naggs; c++) {
        if (!conv[c])
            continue;
        for (uint32_t i = 0; i < a->nrecs; i++) {
            sl__group *g = SL__G(a, i);
            if (!g->live)
                continue;
            sl__acc *acc = SL__ACCG(a, g, c);
            if (acc->n > 0 && a->calls[c].in_phys == SL_PHYS_STR) {
                char *p = sl_malloc(acc->v.s.len ? acc->v.s.len : 1);
                if (acc->v.s.len)
                    memcpy(p, acc->v.s.p, acc->v.s.len);
                acc->v.s.p = p;
            }
            sl__mset_free(acc->set, a->calls[c].in_phys);
            acc->set = NULL;
        }
        a->calls[c].multiset = false;
    }
}

static int sl__agg_restore(sl_operator *op, const char *state, size_t len, sl_error *err)
{
    sl__agg *a = op->impl;
    if (a->rk || (len >= 4 && memcmp(state, "SLRK", 4) == 0))
        return sl__rk_restore(op, a, state, len, err);
    sl__clear(a);
    sl_strbuf shape = SL_STRBUF_INIT;
    sl__put_shape(a, &shape);
    bool *conv = sl_calloc((size_t)a->naggs + 1, sizeof(bool));
    sl__rd r = {(const unsigned char *)state, len >= 8 ? len - 8 : 0, 0, len < 8, false};
    bool ok = !r.bad && len >= 8 + 8 + shape.len && memcmp(state, SL__SNAP_MAGIC, 4) == 0;
    uint32_t version = 0;
    if (ok) {
        r.off = 4;
        version = (uint32_t)sl__get(&r, 4);
        if (version < 1 || version > SL__SNAP_VERSION) {
            sl_strbuf_free(&shape);
            sl_free(conv);
            sl__clear(a);
            return sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                                "aggregation state has format version %u; this build reads "
                                "versions 1 to %d",
                                version, SL__SNAP_VERSION);
        }
        r.compact = version >= 3;
        sl__rd tr = {(const unsigned char *)state, len, len - 8, false, false};
        ok = sl__get(&tr, 8) == (version >= 3 ? sl_checksum(state, len - 8) /* XXH3 */
                                              : sl__hash_bytes(state, len - 8)) &&
             sl__shape_restorable(a, (const unsigned char *)state + r.off, &shape, conv);
        r.off += shape.len;
    }
    sl_strbuf_free(&shape);
    for (int c = 0; c < a->naggs; c++)
        if (conv[c])
            a->calls[c].multiset = true; /* read as written; dropped below */
    if (ok) {
        int64_t wm = (int64_t)sl__get(&r, 8);
        int64_t late = (int64_t)sl__get(&r, 8);
        a->next_seq = sl__get(&r, 8);
        uint32_t ng = (uint32_t)sl__get(&r, 4);
        a->wm = wm;
        a->late = late;
        ok = !r.bad && late >= 0;
        /* ng is plausible (a group takes at least 3 or 24 bytes): presize */
        if (ok && (uint64_t)ng * (r.compact ? 3 : 24) <= (uint64_t)(r.n - r.off))
            sl__reserve_groups(a, ng);
        uint64_t prev = UINT64_MAX;
        for (uint32_t i = 0; i < ng && ok; i++)
            ok = sl__restore_group(a, &r, &prev);
        ok = ok && !r.bad && r.off == r.n;
    }
    if (!ok) {
        sl__clear(a); /* with the multisets read so far */
        for (int c = 0; c < a->naggs; c++)
            a->calls[c].multiset = a->calls[c].multiset && !conv[c];
        sl_free(conv);
        return sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "aggregation state is corrupt or truncated");
    }
    sl__drop_msets(a, conv);
    sl_free(conv);
    return 0;
}

/* ------------------------------------------------------------------------
** Construction.
*/
static void sl__agg_free(sl_operator *op)
{
    if (!op)
        return;
    sl__agg *a = op->impl;
    if (a) {
        sl__clear(a);
        sl__rk_free(a);
        sl_free(a->wins);
        sl_free(a->mtab);
        sl_free(a->mord);
        sl_free(a->in_types);
        sl_free(a->keys);
        sl_free(a->kphys);
        for (int c = 0; c < a->naggs; c++) {
            sl_free(a->calls[c].sep);
            sl_strbuf_free(&a->calls[c].elem);
        }
        sl_free(a->calls);
        sl_free(a->out_types);
        sl_free(a->hashes);
        sl_free(a->gidx);
        sl_free(a->touched);
        sl_chunk_free(a->oldres);
        sl_chunk_free(a->newres);
        sl_chunk_free(a->out);
        sl_free(a);
    }
    sl_free(op);
}

static const char *sl__agg_backend(sl_operator *op)
{
    return ((sl__agg *)op->impl)->rk ? "rocksdb" : "hashmap";
}

static const sl_operator_ops sl__agg_ops = {
    sl__agg_process, sl__agg_watermark, sl__agg_snapshot, sl__agg_restore, sl__agg_late_rows, sl__agg_free,
    NULL, /* conflicts */
    sl__agg_backend,
};

/* The accumulator of one call and the representation its result must have. */
static int sl__plan_call(int in_ncols, const sl_type *in_types, bool retract, const sl_agg_call *ac,
                         sl__call *call, sl_error *err)
{
    memset(call, 0, sizeof *call);
    call->arg = ac->arg;
    call->filter = ac->filtered ? ac->filter : -1;
    call->pos = ac->pos;
    call->out = ac->type;
    if (ac->arg < -1 || ac->arg >= in_ncols || (ac->arg < 0 && ac->fn != SL_FN_COUNT))
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "aggregate argument column %d out of range", ac->arg);
    if (ac->filtered && (ac->filter < 0 || ac->filter >= in_ncols ||
                         in_types[ac->filter].id != SL_TYPE_BOOLEAN))
        return sl_error_set(err, SL_ERR_INTERNAL, -1,
                            "aggregate filter column %d is not a BOOLEAN input", ac->filter);
    sl_type in = ac->arg >= 0 ? in_types[ac->arg] : sl_type_make(SL_TYPE_BIGINT);
    call->in_phys = sl_phys_of(in);
    call->in_scale = in.id == SL_TYPE_DECIMAL ? in.scale : 0;
    bool isint = sl_type_is_integer(in.id), isdec = in.id == SL_TYPE_DECIMAL;
    bool isdbl = in.id == SL_TYPE_FLOAT || in.id == SL_TYPE_DOUBLE;
    sl_phys want;
    switch (ac->fn) {
    case SL_FN_COUNT:
        /* COUNT(*) FILTER counts its rows itself (not the group's) */
        call->kind = ac->arg < 0 && !ac->filtered ? SL__A_COUNT_STAR : SL__A_COUNT;
        call->distinct = ac->arg >= 0 && ac->distinct;
        want = SL_PHYS_I64;
        break;
    case SL_FN_SUM:
    case SL_FN_AVG: {
        bool sum = ac->fn == SL_FN_SUM;
        if (!isint && !isdec && !isdbl)
            return sl_error_set(err, SL_ERR_INTERNAL, -1, "%s of a non-numeric column", sum ? "SUM" : "AVG");
        call->kind = isint ? (sum ? SL__A_SUM_INT : SL__A_AVG_INT)
                   : isdec ? (sum ? SL__A_SUM_DEC : SL__A_AVG_DEC)
                           : (sum ? SL__A_SUM_DBL : SL__A_AVG_DBL);
        call->distinct = ac->distinct;
        want = isint ? SL_PHYS_I64 : isdec ? SL_PHYS_I128 : SL_PHYS_F64;
        break;
    }
    case SL_FN_MIN:
    case SL_FN_MAX:
        call->kind = ac->fn == SL_FN_MIN ? SL__A_MIN : SL__A_MAX;
        call->multiset = retract; /* retractions need the other values */
        want = call->in_phys;
        break;
    case SL_FN_ARRAY_AGG:
        if (ac->distinct)
            return sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1,
                                "ARRAY_AGG(DISTINCT ...) is not supported");
        call->kind = SL__A_ARRAY_AGG;
        call->in_type = in;
        want = SL_PHYS_STR;
        break;
    case SL_FN_LISTAGG: {
        if (call->in_phys != SL_PHYS_STR || !sl_type_is_string(in.id))
            return sl_error_set(err, SL_ERR_INTERNAL, -1, "LISTAGG of a non-string column");
        call->kind = SL__A_LISTAGG;
        call->distinct = ac->distinct;
        const char *sep = ac->sep ? ac->sep : ",";
        size_t n = strlen(sep);
        SL_ALWAYS(n <= UINT32_MAX);
        call->sep = sl_strdup(sep);
        call->seplen = (uint32_t)n;
        want = SL_PHYS_STR;
        break;
    }
    default: return sl_error_set(err, SL_ERR_INTERNAL, -1, "function %d is not an aggregate", (int)ac->fn);
    }
    if (sl_phys_of(ac->type) != want || (want == SL_PHYS_I128 && ac->type.id != SL_TYPE_DECIMAL))
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "aggregate result type does not match its argument");
    return 0;
}

/* Which DISTINCT calls share a value set (sl__call.sbit): those of one
** argument, COUNT, SUM or AVG, when the input is insert-only and there are
** at least two of them (at most 62, so that a count stays positive). */
static void sl__share_distinct(sl__agg *a)
{
    if (!a->append_only)
        return;
    for (int c = 0; c < a->naggs; c++) {
        sl__call *call = &a->calls[c];
        if (!call->distinct || call->arg < 0 || call->sbit || call->kind == SL__A_LISTAGG)
            continue;
        int n = 0;
        for (int d = c; d < a->naggs && n < 62; d++) {
            sl__call *o = &a->calls[d];
            if (o->distinct && o->arg == call->arg && !o->sbit && o->kind != SL__A_LISTAGG) {
                o->sbit = UINT64_C(1) << n++;
                o->owner = c;
            }
        }
        if (n < 2)
            call->sbit = 0; /* alone: its own set */
    }
}

static int sl__agg_new(const sl_group_agg_spec *spec, bool is_window, int wstart, int wend,
                       sl_operator **out, sl_error *err)
{
    *out = NULL;
    if (spec->in_ncols < 0 || spec->nkeys < 0 || spec->naggs < 0)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "invalid aggregation spec");
    sl_operator *op = sl_calloc(1, sizeof *op);
    sl__agg *a = sl_calloc(1, sizeof *a);
    op->ops = &sl__agg_ops;
    op->impl = a;
    a->is_window = is_window;
    /* Not under 'rocksdb': its stored groups keep the encoding they were
    ** written with, multisets included, and a restore could not drop them. */
    a->append_only = spec->append_only && !is_window && !spec->backend.rocksdb;
    a->no_before = spec->no_before && !is_window;
    a->keeps_old = !a->no_before;
    if (a->no_before) {
        bool counts_all = false;
        for (int c = 0; c < spec->naggs; c++)
            counts_all |= spec->aggs[c].fn == SL_FN_COUNT && spec->aggs[c].arg < 0 &&
                          !spec->aggs[c].filtered;
        a->keeps_old = !(counts_all && spec->append_only);
    }
    a->in_ncols = spec->in_ncols;
    a->in_types = sl_malloc((size_t)(spec->in_ncols + 1) * sizeof(sl_type));
    if (spec->in_ncols)
        memcpy(a->in_types, spec->in_types, (size_t)spec->in_ncols * sizeof(sl_type));
    a->nkeys = spec->nkeys;
    a->keys = sl_malloc((size_t)(spec->nkeys + 1) * sizeof(int));
    a->kphys = sl_malloc((size_t)(spec->nkeys + 1) * sizeof(sl_phys));
    a->naggs = spec->naggs;
    a->calls = sl_calloc((size_t)(spec->naggs + 1), sizeof(sl__call));
    a->out_types = sl_malloc((size_t)(spec->nkeys + spec->naggs + 1) * sizeof(sl_type));
    a->ttl_ns = spec->ttl_ms > 0 ? spec->ttl_ms * 1000000 : 0;
    a->now = spec->now;
    a->now_ctx = spec->now_ctx;
    a->wstart_key = wstart;
    a->wend_key = wend;
    a->wm = INT64_MIN;
    for (int k = 0; k < spec->nkeys; k++) {
        if (spec->keys[k] < 0 || spec->keys[k] >= spec->in_ncols) {
            sl_error_set(err, SL_ERR_INTERNAL, -1, "group key column %d out of range", spec->keys[k]);
            goto fail;
        }
        a->keys[k] = spec->keys[k];
        a->out_types[k] = spec->in_types[spec->keys[k]];
        a->kphys[k] = sl_phys_of(a->out_types[k]);
    }
    for (int c = 0; c < spec->naggs; c++) {
        if (sl__plan_call(a->in_ncols, a->in_types, !a->is_window && !a->append_only, &spec->aggs[c],
                          &a->calls[c], err))
            goto fail;
        a->out_types[spec->nkeys + c] = spec->aggs[c].type;
    }
    sl__share_distinct(a);
    if (is_window && (wend < 0 || wend >= spec->nkeys || wstart < 0 || wstart >= spec->nkeys ||
                      a->kphys[wend] != SL_PHYS_I64)) {
        sl_error_set(err, SL_ERR_INTERNAL, -1, "window aggregation needs window_start and window_end keys");
        goto fail;
    }
    /* The record's layout (sl__gcold says why). */
    int nslots = 0;
    for (int c = 0; c < a->naggs; c++)
        a->calls[c].slot = a->calls[c].kind == SL__A_COUNT_STAR ? -1 : nslots++;
    a->koff = (sizeof(sl__group) + 15) & ~(size_t)15;
    a->aoff = a->koff + (size_t)a->nkeys * sizeof(sl__val);
    size_t hot = a->aoff + (size_t)nslots * sizeof(sl__acc);
    if (a->nkeys <= (int)sizeof ((sl__group *)0)->kn) {
        a->noff = offsetof(sl__group, kn);
    } else {
        a->noff = hot;
        hot += (size_t)a->nkeys;
    }
    a->coff = (hot + 15) & ~(size_t)15;
    a->stride = (a->coff + sizeof(sl__gcold) + 63) & ~(size_t)63;
    a->out = sl_chunk_new(a->nkeys + a->naggs, a->out_types, SL_CHUNK_ROWS);
    a->newres = sl_chunk_new(a->naggs, a->out_types + a->nkeys, 1);
    op->out_ncols = a->nkeys + a->naggs;
    op->out_types = a->out_types;
    *out = op;
    return 0;
fail:
    sl__agg_free(op);
    return -1;
}

static void sl__rk_init(sl__agg *a, const sl_state_backend *b);

int sl_group_agg_new(const sl_group_agg_spec *spec, sl_operator **out, sl_error *err)
{
    if (sl__agg_new(spec, false, -1, -1, out, err) != 0)
        return -1;
    if (spec->backend.rocksdb)
        sl__rk_init((*out)->impl, &spec->backend);
    return 0;
}

int sl_window_agg_new(const sl_window_agg_spec *spec, sl_operator **out, sl_error *err)
{
    if (sl__agg_new(&spec->group, true, spec->window_start_key, spec->window_end_key, out, err) != 0)
        return -1;
    sl__agg *a = (*out)->impl;
    a->time_col = spec->time_col < spec->group.in_ncols ? spec->time_col : -1;
    a->slide_ns = spec->slide_ns;
    a->in_names = spec->in_names;
    if (spec->slice_size_ns) {
        bool ok = spec->slide_ns > 0 && spec->slice_size_ns > spec->slide_ns &&
                  spec->slice_size_ns % spec->slide_ns == 0;
        for (int c = 0; c < a->naggs && ok; c++)
            ok = sl__call_merges(&a->calls[c]);
        if (!ok) {
            sl__agg_free(*out);
            *out = NULL;
            return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                "sliced window aggregation needs a HOP window and calls whose "
                                "accumulators merge");
        }
        a->slice_size_ns = spec->slice_size_ns;
    }
    return 0;
}

/* ------------------------------------------------------------------------
** Accumulator records for other operators (acc_int.h).
*/
struct sl_accs {
    int n;          /* calls */
    sl__call *calls; /* them */
};

typedef struct sl__accrec {
    int64_t rows;   /* rows accumulated (COUNT(*)) */
    sl__acc acc[];  /* one per call */
} sl__accrec;

int sl_accs_new(int in_ncols, const sl_type *in_types, int ncalls, const sl_agg_call *calls,
                bool retract, sl_accs **out, sl_error *err)
{
    sl_accs *s = sl_calloc(1, sizeof *s);
    s->calls = sl_calloc((size_t)ncalls + 1, sizeof(sl__call));
    for (int c = 0; c < ncalls; c++, s->n++) {
        if (sl__plan_call(in_ncols, in_types, retract, &calls[c], &s->calls[c], err)) {
            sl_accs_free(s);
            return -1;
        }
    }
    *out = s;
    return 0;
}

void sl_accs_free(sl_accs *s)
{
    if (!s)
        return;
    for (int c = 0; c < s->n; c++) {
        sl_free(s->calls[c].sep);
        sl_strbuf_free(&s->calls[c].elem);
    }
    sl_free(s->calls);
    sl_free(s);
}

size_t sl_accs_size(const sl_accs *s)
{
    return sizeof(sl__accrec) + (size_t)s->n * sizeof(sl__acc);
}

void sl_accs_clear(const sl_accs *s, void *rec)
{
    sl__accrec *a = rec;
    for (int c = 0; c < s->n; c++)
        sl__free_acc(&s->calls[c], &a->acc[c]);
    memset(a, 0, sl_accs_size(s));
}

int sl_accs_add(const sl_accs *s, void *rec, const sl_chunk *in, int r, int sign, sl_error *err)
{
    sl__accrec *a = rec;
    a->rows += sign;
    for (int c = 0; c < s->n; c++) {
        const sl__call *call = &s->calls[c];
        if (call->kind == SL__A_COUNT_STAR)
            continue;
        if (call->filter >= 0 && (in->cols[call->filter].nulls[r] || !in->cols[call->filter].v.b[r]))
            continue;
        if (call->arg < 0) { /* COUNT(*) FILTER */
            a->acc[c].n += sign;
            continue;
        }
        const sl_vector *v = &in->cols[call->arg];
        if (v->nulls[r])
            sl__acc_null(call, &a->acc[c], sign);
        else if (sl__acc_value(call, &a->acc[c], sl__load(v, r), sign, err))
            return -1;
    }
    return 0;
}

int sl_accs_results(const sl_accs *s, const void *rec, sl_chunk *dst, int col0, int r, sl_error *err)
{
    const sl__accrec *a = rec;
    for (int c = 0; c < s->n; c++)
        if (sl__call_result(&s->calls[c], &a->acc[c], a->rows, dst, col0 + c, r, err))
            return -1;
    return 0;
}

void sl_accs_put(const sl_accs *s, const void *rec, sl_strbuf *sb)
{
    const sl__accrec *a = rec;
    sl__put(sb, (uint64_t)a->rows, 8);
    for (int c = 0; c < s->n; c++)
        if (s->calls[c].kind != SL__A_COUNT_STAR)
            sl__put_acc(sb, false, &s->calls[c], &a->acc[c], NULL);
}

bool sl_accs_get(const sl_accs *s, void *rec, const char *buf, size_t len, size_t *off)
{
    sl__accrec *a = rec;
    sl__rd r = {(const unsigned char *)buf, len, *off, false, false};
    a->rows = (int64_t)sl__get(&r, 8);
    if (r.bad || a->rows < 0)
        return false;
    for (int c = 0; c < s->n; c++)
        if (s->calls[c].kind != SL__A_COUNT_STAR && !sl__get_acc(&r, &s->calls[c], &a->acc[c]))
            return false;
    *off = r.off;
    return true;
}

/* ------------------------------------------------------------------------
** State backend 'rocksdb' (see the header comment): RocksDB behind the
** group table of a non-windowed aggregation.
*/
#define SL__RK_MAGIC "SLRK"
#define SL__RK_VERSION 1
#define SL__RK_DEFAULT_CACHE 1000000

typedef struct sl__rk {
    sl_rocks *db;       /* the database; NULL until first needed */
    bool incremental;   /* checkpoints share SSTs through hard links */
    uint32_t cap;       /* groups kept in memory */
    uint32_t hand;      /* eviction: the next record the clock looks at */
    bool evicting;      /* sl__rk_forget: the group leaves memory, not RocksDB */
    sl_strbuf key;      /* scratch: a key's encoding */
    sl_strbuf val;      /* scratch: a group's encoding */
    sl_strbuf staged;   /* groups to write: key then value, per sl__rk_ent */
    struct sl__rk_ent *ents; /* them */
    uint32_t nents, capents; /* used / allocated */
} sl__rk;

/* A group staged for writing: its key and value in sl__rk.staged. */
typedef struct sl__rk_ent {
    size_t off;         /* key at staged.buf + off, then the value */
    uint32_t klen, vlen;
} sl__rk_ent;

static void sl__rk_init(sl__agg *a, const sl_state_backend *b)
{
    sl__rk *rk = sl_calloc(1, sizeof *rk);
    rk->incremental = b->incremental;
    rk->cap = b->cache_groups <= 0 ? SL__RK_DEFAULT_CACHE
              : b->cache_groups > UINT32_MAX / 4 ? UINT32_MAX / 4
                                                 : (uint32_t)b->cache_groups;
    a->rk = rk;
}

static void sl__rk_free(sl__agg *a)
{
    if (!a->rk)
        return;
    sl_rocks_close(a->rk->db);
    sl_strbuf_free(&a->rk->key);
    sl_strbuf_free(&a->rk->val);
    sl_strbuf_free(&a->rk->staged);
    sl_free(a->rk->ents);
    sl_free(a->rk);
    a->rk = NULL;
}

/* (Re)open the database in the operator's working directory, from the
** RocksDB checkpoint in directory from, or empty (from NULL). */
static int sl__rk_open(sl_operator *op, sl__agg *a, const char *from, sl_error *err)
{
    sl_rocks_close(a->rk->db);
    a->rk->db = NULL;
    return sl_rocks_open(op->state_dir, from, &a->rk->db, err);
}

/* One key value into RocksDB's key: an integer big-endian with its sign
** bit flipped (RocksDB's byte order is then the numbers' order: ascending
** keys, common, append to its memtable's skip list at its end), anything
** else as a snapshot writes it. */
static void sl__rk_put_key(sl_strbuf *k, sl_phys ph, sl__val x)
{
    if (ph == SL_PHYS_I64 || ph == SL_PHYS_BOOL) {
        uint64_t u = (uint64_t)x.i ^ (1ULL << 63);
        char b[8];
        for (int i = 0; i < 8; i++)
            b[i] = (char)(u >> (56 - 8 * i));
        sl_strbuf_append_n(k, b, 8);
    } else {
        sl__put_val(k, false, ph, x);
    }
}

/* The key of a group as RocksDB's key: per key column a null flag, then
** the value (sl__rk_put_key). The same values give the same bytes, from a
** row (sl__rk_fetch) or from a group. */
static void sl__rk_key_group(sl__agg *a, const sl__group *g)
{
    sl_strbuf *k = &a->rk->key;
    sl_strbuf_reset(k);
    const sl__val *kv = SL__KEYS(a, g);
    const uint8_t *kn = SL__KNULL(a, g);
    for (int i = 0; i < a->nkeys; i++) {
        sl__put(k, kn[i], 1);
        if (!kn[i])
            sl__rk_put_key(k, a->kphys[i], kv[i]);
    }
}

static void sl__rk_key_row(sl__agg *a, const sl_chunk *in, int r)
{
    sl_strbuf *k = &a->rk->key;
    sl_strbuf_reset(k);
    for (int i = 0; i < a->nkeys; i++) {
        const sl_vector *v = &in->cols[a->keys[i]];
        bool isnull = v->nulls[r] != 0;
        sl__put(k, isnull, 1);
        if (!isnull)
            sl__rk_put_key(k, a->kphys[i], sl__load(v, r));
    }
}

/* Stage group g for writing into RocksDB (in the snapshot's per-group
** encoding, which sl__restore_group reads back); it is then clean. */
static void sl__rk_write(sl__agg *a, sl__group *g)
{
    sl__rk *rk = a->rk;
    sl__rk_key_group(a, g);
    sl_strbuf *v = &rk->val;
    sl_strbuf_reset(v);
    sl__put_group(a, g, v, false, NULL);
    if (rk->nents == rk->capents) {
        rk->capents = rk->capents ? rk->capents * 2 : 1024;
        rk->ents = sl_realloc(rk->ents, (size_t)rk->capents * sizeof *rk->ents);
    }
    rk->ents[rk->nents++] = (sl__rk_ent){rk->staged.len, (uint32_t)rk->key.len, (uint32_t)v->len};
    sl_strbuf_append_n(&rk->staged, rk->key.buf, rk->key.len);
    sl_strbuf_append_n(&rk->staged, v->buf, v->len);
    g->live |= SL__RK_STORED | SL__RK_CLEAN;
}

static _Thread_local const char *sl__rk_sort_base; /* qsort has no context argument */

static int sl__rk_cmp_ent(const void *x, const void *y)
{
    const sl__rk_ent *a = x, *b = y;
    uint32_t n = a->klen < b->klen ? a->klen : b->klen;
    int c = memcmp(sl__rk_sort_base + a->off, sl__rk_sort_base + b->off, n);
    return c ? c : a->klen < b->klen ? -1 : a->klen > b->klen;
}

/* Write the staged groups, in key order (RocksDB's memtable inserts a
** sorted batch several times faster than a shuffled one), and commit. */
static int sl__rk_write_staged(sl__agg *a, sl_error *err)
{
    sl__rk *rk = a->rk;
    sl__rk_sort_base = rk->staged.buf;
    if (rk->nents > 1) /* ents is NULL until a group is staged */
        qsort(rk->ents, rk->nents, sizeof *rk->ents, sl__rk_cmp_ent);
    for (uint32_t i = 0; i < rk->nents; i++) {
        const sl__rk_ent *e = &rk->ents[i];
        sl_rocks_put(rk->db, rk->staged.buf + e->off, e->klen, rk->staged.buf + e->off + e->klen,
                     e->vlen);
    }
    rk->nents = 0;
    sl_strbuf_reset(&rk->staged);
    return sl_rocks_commit(rk->db, err);
}

/* Group g is dropped for good (emptied, expired): RocksDB forgets it too,
** unless it only leaves memory (an eviction). */
static void sl__rk_forget(sl__agg *a, sl__group *g)
{
    if (!a->rk || a->rk->evicting)
        return;
    sl__rk_key_group(a, g);
    sl_rocks_delete(a->rk->db, a->rk->key.buf, a->rk->key.len);
}

/* Row r (hash h) missed the table: its group from RocksDB, linked into the
** table (clean), or -1 when RocksDB has none; -2 on an error. */
static int32_t sl__rk_fetch(sl__agg *a, const sl_chunk *in, int r, uint64_t h, sl_error *err)
{
    sl__rk_key_row(a, in, r);
    char *v = NULL;
    size_t n = 0;
    int found = sl_rocks_get(a->rk->db, a->rk->key.buf, a->rk->key.len, &v, &n, err);
    if (found <= 0)
        return found < 0 ? -2 : -1;
    sl__rd rd = {(const unsigned char *)v, n, 0, false, false};
    uint64_t prev = UINT64_MAX;
    bool ok = sl__restore_group(a, &rd, &prev) && rd.off == rd.n;
    sl_free(v);
    int32_t g = ok ? sl__find_row(a, in, r, h) : -1;
    if (g < 0) {
        sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                     "aggregation state in RocksDB is corrupt: a group cannot be read back");
        return -2;
    }
    SL__G(a, g)->live |= SL__RK_STORED | SL__RK_CLEAN;
    return g;
}

static int sl__rk_cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* Before a chunk of n rows: evict groups until the chunk's new ones fit in
** the cache (and an eighth of it more, so that eviction runs in batches).
** The least recently touched go first: the age (chunks since the last
** touch) above which a group goes is estimated from a sample, then a clock
** hand evicts those at least that old, and anything once it went round. */
static int sl__rk_make_room(sl_operator *op, sl__agg *a, int n, sl_error *err)
{
    sl__rk *rk = a->rk;
    if (!rk->db && sl__rk_open(op, a, NULL, err) != 0)
        return -1;
    if ((uint64_t)a->ngroups + (uint64_t)n <= rk->cap)
        return 0;
    uint32_t target = rk->cap > (uint32_t)n ? rk->cap - (uint32_t)n : 0;
    target -= target < rk->cap / 8 ? target : rk->cap / 8;
    uint32_t need = a->ngroups > target ? a->ngroups - target : 0;
    uint32_t ages[512], ns = 0;
    uint32_t step = a->nrecs / 512 + 1;
    for (uint32_t i = rk->hand % (a->nrecs ? a->nrecs : 1); i < a->nrecs && ns < 512; i += step)
        if (SL__G(a, i)->live)
            ages[ns++] = a->epoch - SL__G(a, i)->epoch;
    uint32_t min_age = 0;
    if (ns) {
        qsort(ages, ns, sizeof ages[0], sl__rk_cmp_u32);
        min_age = ages[(uint64_t)ns * (a->ngroups - need) / (a->ngroups ? a->ngroups : 1)];
    }
    rk->evicting = true;
    uint32_t evicted = 0, looked = 0;
    while (evicted < need) {
        if (looked++ >= a->nrecs) { /* round once: take any */
            min_age = 0;
            looked = 0;
        }
        if (rk->hand >= a->nrecs)
            rk->hand = 0;
        sl__group *g = SL__G(a, rk->hand);
        if (g->live && a->epoch - g->epoch >= min_age) {
            if (!(g->live & SL__RK_CLEAN))
                sl__rk_write(a, g);
            sl__drop_group(a, rk->hand);
            evicted++;
        }
        rk->hand++;
    }
    rk->evicting = false;
    return sl__rk_write_staged(a, err);
}

/* The checkpoint: every changed group into RocksDB, then a RocksDB
** checkpoint into op->chk_dir; the blob holds the scalars. */
static int sl__rk_snapshot(sl_operator *op, sl__agg *a, sl_strbuf *state, sl_error *err)
{
    sl__rk *rk = a->rk;
    if (!rk->db && sl__rk_open(op, a, NULL, err) != 0)
        return -1;
    for (uint32_t i = 0; i < a->nrecs; i++) {
        sl__group *g = SL__G(a, i);
        if (g->live && !(g->live & SL__RK_CLEAN))
            sl__rk_write(a, g);
    }
    if (sl__rk_write_staged(a, err) != 0 ||
        (op->chk_dir && sl_rocks_checkpoint(rk->db, op->chk_dir, rk->incremental, err) != 0))
        return -1;
    size_t start = state->len;
    sl_strbuf_append_n(state, SL__RK_MAGIC, 4);
    sl__put(state, SL__RK_VERSION, 4);
    sl__put_shape(a, state);
    sl__put(state, (uint64_t)a->wm, 8);
    sl__put(state, (uint64_t)a->late, 8);
    sl__put(state, a->next_seq, 8);
    sl__put(state, rk->incremental, 1);
    sl__put(state, sl__hash_bytes(state->buf + start, state->len - start), 8);
    return 0;
}

int sl_backend_mismatch(sl_error *err, const char *chk_dir, const char *took, const char *runs)
{
    char *chk = sl_strdup(chk_dir ? chk_dir : "(unknown)"); /* .../chk-<N>/files-op-...: chk-<N> */
    char *slash = strrchr(chk, '/');
    if (slash && slash != chk)
        *slash = '\0';
    sl_error_set(err, SL_ERR_OBJECT_STATE, -1,
                 "checkpoint %s was taken with state.backend.type '%s'; this job runs with '%s'",
                 chk, took, runs);
    sl_error_detail(err, "A checkpoint's keyed state restores only under the backend that "
                         "wrote it.");
    sl_error_hint(err, "SET 'state.backend.type' = '%s' to resume the job, or give it a new "
                       "'pipeline.name' to start it afresh.",
                  took);
    sl_free(chk);
    return -1;
}

static int sl__rk_restore(sl_operator *op, sl__agg *a, const char *state, size_t len, sl_error *err)
{
    bool rocks_blob = len >= 4 && memcmp(state, SL__RK_MAGIC, 4) == 0;
    if (!a->rk || !rocks_blob)
        return sl_backend_mismatch(err, op->chk_dir, rocks_blob ? "rocksdb" : "hashmap",
                                   a->rk ? "rocksdb" : "hashmap");
    sl__clear(a);
    sl_strbuf shape = SL_STRBUF_INIT;
    sl__put_shape(a, &shape);
    bool ok = len >= 4 + 4 + shape.len + 25 + 8;
    if (ok) {
        sl__rd tr = {(const unsigned char *)state, len, len - 8, false, false};
        ok = sl__get(&tr, 8) == sl__hash_bytes(state, len - 8);
    }
    sl__rd r = {(const unsigned char *)state, len >= 8 ? len - 8 : 0, 4, false, false};
    if (ok && sl__get(&r, 4) != SL__RK_VERSION)
        ok = false;
    if (ok) {
        ok = memcmp(state + r.off, shape.buf, shape.len) == 0;
        r.off += shape.len;
    }
    sl_strbuf_free(&shape);
    if (ok) {
        a->wm = (int64_t)sl__get(&r, 8);
        a->late = (int64_t)sl__get(&r, 8);
        a->next_seq = sl__get(&r, 8);
        (void)sl__get(&r, 1); /* incremental or not: restores the same way */
        ok = !r.bad && r.off == r.n && a->late >= 0;
    }
    if (!ok) {
        sl__clear(a);
        return sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                            "aggregation state is corrupt or truncated");
    }
    if (!op->chk_dir)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "RocksDB state restored without its files");
    return sl__rk_open(op, a, op->chk_dir, err);
}
