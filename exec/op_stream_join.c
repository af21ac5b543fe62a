/*
** op_stream_join.c — the streaming join of two inputs (see sl_exec.h,
** sl_join_spec): Flink's regular join (StreamingJoinOperator), its
** event-time interval join (RowTimeIntervalJoin) and its window join
** (WindowJoinOperator), over one tagged stream (column 0 the side, then the
** keys, the left columns, the right columns).
**
** State. A key table (open addressing, linear probing, power-of-two size,
** load <= 1/2; the hash is sl_chunk_hash_keys over columns 1..nkeys, the
** identity the key's encoded bytes) holds, per key and side, a doubly
** linked list of records in arrival order. A record is one encoded row of
** its side's columns; its bytes (and those of keys over 16 bytes, shorter
** ones sit in their entry) live in one byte store, so nothing is allocated
** per value. Each slot carries 32 bits of its entry's hash, so a probe
** rarely touches an entry it does not want. Lookup visits the key's
** other-side list only. A record that goes away is unlinked and marked dead; when dead
** records outnumber live ones the store, the records and both tables are
** rebuilt (compaction), the lists' order kept.
**
** Regular join (Flink 2.2 StreamingJoinOperator without unique keys, no
** mini-batch): a record is a distinct row with its count (a multiset) and,
** on an outer side, its number of associations (matches on the other
** side); a second hash table finds a record by (key, side, row bytes). For
** each input row, the other side's records of its key are the candidates;
** cond is evaluated over a scratch chunk of the joined candidate rows (one
** evaluation per batch of up to SL_CHUNK_ROWS candidates), then the
** matches are walked in list order, each record as often as its count:
**   accumulate (+I/+U)  input side outer: per match [other side outer:
**                       -D null+other when its associations were 0; they
**                       become old+1], +I joined; no match: +I input+null.
**                       The row is added with associations = matches.
**                       Input side inner: the row is added; per match as
**                       above, the joined row +I — or with the input's own
**                       kind (+I/+U) when neither side is outer (INNER).
**   retract (-U/-D)     one equal row is removed (nothing when there is
**                       none); per match the joined row as -D (input side
**                       outer) or with the input's kind, then [other side
**                       outer: +I null+other when its associations were 1;
**                       they become old-1]; no match: -D input+null when
**                       the input side is outer.
** A row with a NULL key matches nothing (Flink's filterNullKeys): on an
** outer side it gives +I / -D input+null, on an inner side nothing; it is
** not kept, as nothing can ever match it. TTL (ttl_ms > 0): a record not
** written (added, retracted, its associations changed) for ttl_ms of
** processing time is gone (Flink's state TTL, OnCreateAndWrite, never
** returning expired state): skipped and dropped when met, swept at most
** once per ttl.
**
** Interval join (Flink's RowTimeIntervalJoin, allowed lateness 0): inputs
** append-only (another kind is XX000). With T = max(watermark, 0) (Flink's
** operator time) and a left row at time t: the right rows kept for its key
** with time in [t - upper, t - lower] are its candidates; each match emits
** +I joined and marks both rows as joined. The row is kept when T < t -
** lower (a right row not behind the watermark could still match), else —
** when it matched nothing and the left side is outer — it gives +I
** left+null at once. Symmetrically for a right row at time s: [s + lower,
** s + upper], kept when T < s + upper. A kept row is dropped when the
** watermark passes that bound (T > t - lower, T > s + upper; everything at
** the end of input), in order of the bound then arrival (a min-heap over
** both sides), giving +I row+null for an outer side's row that never
** joined. No row is dropped as late (as Flink: a row behind the watermark
** still joins the rows kept), so late_rows stays 0. A NULL time or key
** matches nothing (outer side: +I row+null at once).
**
** Window join (Flink's WindowJoinOperator, event time): inputs append-only;
** the keys include both sides' window_start and window_end, so a key's
** records are one window's rows of one join key. A row whose window_end is
** at or behind the watermark is late: dropped and counted (late_rows).
** Otherwise it is kept (as an interval row: its time is its window_end, a
** timer in the heap); a row with a NULL key is kept only on an outer side,
** marked to match nothing. When the watermark reaches a window_end, each
** key with rows of that window fires (in order of window_end, then of its
** earliest row's arrival): every left row with the right rows in arrival
** order, cond evaluated per batch as above, +I joined for each match; an
** outer side's rows that matched nothing go out +I padded with NULLs; then
** the key's rows are dropped. Output is +I only, nothing is retracted.
**
** Snapshot (deterministic: keys in the order of their encoded bytes, each
** side's records in list order; integers little-endian):
**   "SLSJOIN" u32 version (1) u32 in_ncols u32 nkeys u32 nl u32 nr u8 type
**   u8 mode (0 regular, 1 interval, 2 window) u8 phys[in_ncols]
**   i64 watermark i64 late_rows
**   u64 nkeys, nkeys x { u32 len key bytes,
**                        2 x { u64 n, n x { u32 len row bytes,
**                              regular: u32 count i32 associations i64 written
**                              interval, window: u8 joined u64 arrival
**                              rank } } }
**   u64 checksum of everything before: XXH3 (sl_checksum); version 1
**       blobs (the same layout, FNV-1a sl_hash_bytes) still restore
** A value is u8 null (0/1) then BOOL u8 | I64 i64 | F64 8 bytes | I128 16
** bytes | STR u32 len + bytes. Restore checks every length, value, count,
** rank and the checksum: anything wrong is XX001. Expired records are left
** out.
**
** Main routines: sl_join_new and its process / watermark / snapshot /
** restore (sl__regular_row, sl__interval_row, sl__window_row and
** sl__window_fire the three modes).
*/
#include "sl_exec.h"

#include <stdlib.h>
#include <string.h>

#define SL__KEY_INLINE 16 /* encoded keys up to this long live in their entry */

typedef struct sl__sj_key {
    uint64_t hash;             /* sl_chunk_hash_keys of the key columns */
    union {
        uint64_t off;                  /* encoded key bytes in the store (len > 16) */
        uint8_t inl[SL__KEY_INLINE];   /* ... or here (len <= 16: one cache miss less) */
    } at;
    uint32_t len;              /* their length */
    int32_t nlive;             /* live records of both sides */
    int32_t head[2], tail[2];  /* each side's list of records (-1: empty) */
} sl__sj_key;

typedef struct sl__sj_rec {
    uint64_t hash;       /* regular: hash of (key, side, row bytes) */
    uint64_t off;        /* encoded row bytes in the store */
    uint32_t len;        /* their length */
    int32_t key;         /* its key */
    int32_t prev, next;  /* neighbours in the key's list of its side (-1: none) */
    uint8_t side;        /* 0 left, 1 right */
    bool live;           /* in its key's list (else dead, awaiting compaction) */
    bool joined;         /* interval: has matched (window: while its window fires) */
    bool nullkey;        /* window: its key has a NULL (it matches nothing) */
    int32_t count;       /* regular: copies of the row */
    int32_t assoc;       /* regular, outer side: number of associations */
    int64_t written;     /* regular: processing time of the last write (TTL) */
    int64_t time;        /* interval: the row's event time; window: its window_end */
    uint64_t seq;        /* interval, window: arrival number */
} sl__sj_rec;

/* A hash table slot: an index (-1: empty) and the top half of its hash, so
** that a probe rarely touches the entry it does not want. */
typedef struct sl__slot {
    int32_t idx;  /* key or record index, -1 = empty */
    uint32_t tag; /* hash >> 32 */
} sl__slot;

/* A kept interval row waiting for the watermark to pass its bound. */
typedef struct sl__sj_timer {
    int64_t bound; /* dropped once T > bound */
    uint64_t seq;  /* arrival (ties) */
    int32_t rec;   /* the record */
} sl__sj_timer;

typedef struct sl__sjoin {
    sl_operator *op;           /* back pointer (cancellation) */
    int in_ncols, nkeys, nl, nr;
    uint64_t nulls_equal;      /* keys whose NULLs match (sl_join_spec) */
    int type;                  /* SL_JOIN_INNER / LEFT / RIGHT / FULL */
    bool outer[2];             /* left / right side is outer */
    bool ao[2];                /* regular: side is insert-only (sl_join_spec.append_only):
                                  its records are not in the record table */
    bool interval;             /* an interval join */
    bool window;               /* a window join (tcol: the window_end columns) */
    bool timed;                /* interval or window: records with a time, in the heap */
    int tcol[2];               /* interval: time column among each side's columns */
    int64_t lower, upper;      /* interval bounds (ns) */
    int64_t ttl_ns;            /* retention; 0 = forever */
    int64_t (*now)(void *ctx); /* clock */
    void *now_ctx;             /* for now */
    int64_t next_sweep;        /* no TTL sweep before this time */
    const sl_tz *tz;           /* for cond */
    sl_type *in_types;         /* input types (owned copy) */
    sl_type *out_types;        /* left ++ right types (points into in_types) */
    int *keycols;              /* 1..nkeys */
    sl_eval_prog *cond;        /* residual condition, or NULL */
    /* the store */
    uint8_t *bytes;            /* encoded keys and rows */
    uint64_t blen, bcap;       /* bytes used / allocated */
    sl__sj_key *keys;          /* keys */
    int nkeys_used, keys_cap;  /* keys in use (live or empty) / allocated */
    int nempty;                /* keys without live records */
    sl__slot *kslots;          /* key table */
    size_t nkslots;            /* its size */
    sl__sj_rec *recs;          /* records (live or dead) */
    int nrecs, recs_cap;       /* in use / allocated */
    int nlive;                 /* live records */
    sl__slot *rslots;          /* regular: record table (every record, dead ones too) */
    size_t nrslots;            /* its size */
    sl__sj_timer *heap;        /* timed: kept rows by (bound, seq), those pushed out of order */
    size_t nheap, heapcap;     /* items / allocated */
    sl__sj_timer *q;           /* timed: those pushed in order: q[qhead..qtail) is sorted */
    size_t qhead, qtail, qcap; /* first / end / allocated */
    uint64_t next_seq;         /* interval: next arrival number */
    int64_t wm;                /* watermark (INT64_MIN: none) */
    int64_t late;              /* rows dropped as late (always 0, see above) */
    const char *const *in_names; /* window: input column names (late rows), or NULL */
    /* scratch */
    sl_strbuf kbuf, rbuf;      /* encoded key / row */
    uint64_t *hashes;          /* key hashes of the input chunk */
    int hashes_cap;            /* allocated */
    int32_t *cand;             /* candidate records of one input row */
    int cand_cap;              /* allocated */
    uint8_t *sel;              /* cond results of a batch */
    int *pidx;                 /* rows of the pairs chunk to emit (SL_CHUNK_ROWS) */
    sl_chunk *pairs;           /* joined candidate rows (out types) */
    sl_chunk *out;             /* output buffer */
    sl_chunk *one;             /* one input-typed row (restore) */
} sl__sjoin;

static int64_t sl__real_now(void *ctx)
{
    (void)ctx;
    return sl_now_nanos();
}

static int64_t sl__sat_add(int64_t a, int64_t b)
{
    __int128 s = (__int128)a + b;
    return s > INT64_MAX ? INT64_MAX : s < INT64_MIN ? INT64_MIN : (int64_t)s;
}

/* First column of side s among the output columns / the input columns. */
static int sl__out_base(const sl__sjoin *j, int s)
{
    return s ? j->nl : 0;
}
static int sl__in_base(const sl__sjoin *j, int s)
{
    return 1 + j->nkeys + sl__out_base(j, s);
}
static int sl__side_ncols(const sl__sjoin *j, int s)
{
    return s ? j->nr : j->nl;
}

static void sl__key_encode(sl__sjoin *j, const sl_chunk *c, int r)
{
    sl_strbuf_reset(&j->kbuf);
    sl_row_put_cols(&j->kbuf, c, 1, j->nkeys, r);
}

/* Encode side s's columns of input row r (first column: base). */
static void sl__row_encode(sl__sjoin *j, const sl_chunk *c, int base, int s, int r)
{
    sl_strbuf_reset(&j->rbuf);
    sl_row_put_cols(&j->rbuf, c, base, sl__side_ncols(j, s), r);
}

/* Decode record rec's row into row r of dst, its side's columns from
** column base on. */
static void sl__rec_decode(const sl__sjoin *j, const sl__sj_rec *rec, sl_chunk *dst, int base,
                           int r)
{
    sl_bytes_reader c = {j->bytes + rec->off, rec->len, 0};
    SL_ALWAYS(sl_row_get_cols(&c, dst, base, sl__side_ncols(j, rec->side), r));
}

/* The pairs chunk's views (sl__pairs): record rec's columns into row r of
** dst from base on, strings pointing into the state's bytes, and input row
** sr's n columns from ib on, strings pointing into in's. Valid until the
** state stores a record (a realloc may move its bytes) or in changes: the
** pairs are read, and copied out by sl__out_pair(s), before either. */
static void sl__rec_view(const sl__sjoin *j, const sl__sj_rec *rec, sl_chunk *dst, int base, int r)
{
    sl_bytes_reader c = {j->bytes + rec->off, rec->len, 0};
    SL_ALWAYS(sl_row_get_cols_view(&c, dst, base, sl__side_ncols(j, rec->side), r));
}

static void sl__input_view(sl_chunk *dst, int base, int r, const sl_chunk *in, int ib, int n,
                           int sr)
{
    for (int i = 0; i < n; i++) {
        const sl_vector *sv = &in->cols[ib + i];
        sl_vector *dv = &dst->cols[base + i];
        dv->nulls[r] = sv->nulls[sr];
        if (sv->nulls[sr])
            continue;
        size_t w = sl_phys_size(sv->phys);
        memcpy((char *)dv->v.raw + (size_t)r * w, (const char *)sv->v.raw + (size_t)sr * w, w);
    }
}

static uint64_t sl__store(sl__sjoin *j, const char *p, size_t n)
{
    if (j->blen + n + 1 > j->bcap) {
        uint64_t cap = j->bcap ? j->bcap : 4096;
        while (cap < j->blen + n + 1)
            cap *= 2;
        j->bytes = sl_realloc(j->bytes, cap);
        j->bcap = cap;
    }
    uint64_t off = j->blen;
    if (n)
        memcpy(j->bytes + off, p, n);
    j->blen += n;
    return off;
}

/* ---- the key table ----------------------------------------------------- */

static const uint8_t *sl__key_bytes(const sl__sjoin *j, const sl__sj_key *key)
{
    return key->len <= SL__KEY_INLINE ? key->at.inl : j->bytes + key->at.off;
}

static int sl__key_lookup(const sl__sjoin *j, uint64_t h)
{
    if (!j->nkslots)
        return -1;
    const char *k = j->kbuf.buf ? j->kbuf.buf : "";
    uint32_t tag = (uint32_t)(h >> 32);
    for (size_t i = h & (j->nkslots - 1);; i = (i + 1) & (j->nkslots - 1)) {
        int32_t e = j->kslots[i].idx;
        if (e < 0)
            return -1;
        if (j->kslots[i].tag != tag)
            continue;
        const sl__sj_key *key = &j->keys[e];
        if (key->hash == h && key->len == j->kbuf.len &&
            memcmp(sl__key_bytes(j, key), k, key->len) == 0)
            return e;
    }
}

/* Put entry e of hash h into a table of n slots (a power of two). */
static void sl__slot_put(sl__slot *slots, size_t n, uint64_t h, int e)
{
    for (size_t i = h & (n - 1);; i = (i + 1) & (n - 1))
        if (slots[i].idx < 0) {
            slots[i] = (sl__slot){e, (uint32_t)(h >> 32)};
            return;
        }
}

static sl__slot *sl__slots_new(size_t n)
{
    sl__slot *s = sl_malloc(n * sizeof *s);
    for (size_t i = 0; i < n; i++)
        s[i] = (sl__slot){-1, 0};
    return s;
}

static void sl__key_rehash(sl__sjoin *j, size_t want)
{
    size_t n = 16;
    while (n < want * 2)
        n *= 2;
    sl_free(j->kslots);
    j->kslots = sl__slots_new(n);
    j->nkslots = n;
    for (int e = 0; e < j->nkeys_used; e++)
        sl__slot_put(j->kslots, n, j->keys[e].hash, e);
}

/* Add the key in j->kbuf (hash h). */
static int sl__key_add(sl__sjoin *j, uint64_t h)
{
    if (j->nkeys_used == j->keys_cap) {
        j->keys_cap = j->keys_cap ? j->keys_cap * 2 : 64;
        j->keys = sl_realloc(j->keys, (size_t)j->keys_cap * sizeof *j->keys);
    }
    SL_ALWAYS(j->kbuf.len <= UINT32_MAX);
    int e = j->nkeys_used++;
    sl__sj_key *key = &j->keys[e];
    key->hash = h;
    if (j->kbuf.len <= SL__KEY_INLINE) {
        memset(key->at.inl, 0, sizeof key->at.inl);
        if (j->kbuf.len)
            memcpy(key->at.inl, j->kbuf.buf, j->kbuf.len);
    } else {
        key->at.off = sl__store(j, j->kbuf.buf, j->kbuf.len);
    }
    key->len = (uint32_t)j->kbuf.len;
    key->nlive = 0;
    key->head[0] = key->head[1] = key->tail[0] = key->tail[1] = -1;
    j->nempty++;
    if ((size_t)j->nkeys_used * 2 > j->nkslots)
        sl__key_rehash(j, (size_t)j->nkeys_used);
    else
        sl__slot_put(j->kslots, j->nkslots, h, e);
    return e;
}

/* ---- records ----------------------------------------------------------- */

static uint64_t sl__rec_hash(uint64_t keyhash, int side, const char *p, size_t n)
{
    /* XXH3 (sl_checksum) reads 8+ bytes a step where FNV reads one: a row
    ** of a few hundred bytes hashes several times faster. Not stored. */
    uint64_t h = sl_checksum(p, n) ^ (keyhash * 31 + (uint64_t)side + 1);
    h ^= h >> 33; /* mix the key and side in before the bits index the table */
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* The record hash of the row in j->rbuf on side s under a key hashed
** keyhash; 0 on an insert-only side, whose records are not in the record
** table (sl__rec_lookup finds none there). */
static uint64_t sl__rbuf_hash(const sl__sjoin *j, uint64_t keyhash, int s)
{
    return j->ao[s] ? 0 : sl__rec_hash(keyhash, s, j->rbuf.buf ? j->rbuf.buf : "", j->rbuf.len);
}

static void sl__rslot_put(sl__sjoin *j, int e)
{
    sl__slot_put(j->rslots, j->nrslots, j->recs[e].hash, e);
}

static void sl__rec_rehash(sl__sjoin *j, size_t want)
{
    size_t n = 16;
    while (n < want * 2)
        n *= 2;
    sl_free(j->rslots);
    j->rslots = sl__slots_new(n);
    j->nrslots = n;
    for (int e = 0; e < j->nrecs; e++)
        if (!j->ao[j->recs[e].side])
            sl__rslot_put(j, e);
}

/* Regular: the record of row j->rbuf of side s under key (hash h), live or
** dead, or -1. */
static int sl__rec_lookup(const sl__sjoin *j, int key, int s, uint64_t h)
{
    if (!j->nrslots || j->ao[s])
        return -1;
    const char *p = j->rbuf.buf ? j->rbuf.buf : "";
    uint32_t tag = (uint32_t)(h >> 32);
    for (size_t i = h & (j->nrslots - 1);; i = (i + 1) & (j->nrslots - 1)) {
        int32_t e = j->rslots[i].idx;
        if (e < 0)
            return -1;
        if (j->rslots[i].tag != tag)
            continue;
        const sl__sj_rec *rec = &j->recs[e];
        if (rec->hash == h && rec->key == key && rec->side == s && rec->len == j->rbuf.len &&
            memcmp(j->bytes + rec->off, p, rec->len) == 0)
            return e;
    }
}

static void sl__link(sl__sjoin *j, int e)
{
    sl__sj_rec *rec = &j->recs[e];
    sl__sj_key *key = &j->keys[rec->key];
    rec->prev = key->tail[rec->side];
    rec->next = -1;
    if (rec->prev >= 0)
        j->recs[rec->prev].next = e;
    else
        key->head[rec->side] = e;
    key->tail[rec->side] = e;
    rec->live = true;
    if (key->nlive++ == 0)
        j->nempty--;
    j->nlive++;
}

/* Unlink a live record: it is dead (until compaction; a regular one can be
** revived by an equal row). */
static void sl__kill(sl__sjoin *j, int e)
{
    sl__sj_rec *rec = &j->recs[e];
    sl__sj_key *key = &j->keys[rec->key];
    if (rec->prev >= 0)
        j->recs[rec->prev].next = rec->next;
    else
        key->head[rec->side] = rec->next;
    if (rec->next >= 0)
        j->recs[rec->next].prev = rec->prev;
    else
        key->tail[rec->side] = rec->prev;
    rec->prev = rec->next = -1;
    rec->live = false;
    if (--key->nlive == 0)
        j->nempty++;
    j->nlive--;
}

/* A new record for row j->rbuf of side s under key (linked at the tail). */
static int sl__rec_new(sl__sjoin *j, int key, int s, uint64_t h)
{
    if (j->nrecs == j->recs_cap) {
        j->recs_cap = j->recs_cap ? j->recs_cap * 2 : 256;
        j->recs = sl_realloc(j->recs, (size_t)j->recs_cap * sizeof *j->recs);
    }
    SL_ALWAYS(j->rbuf.len <= UINT32_MAX && j->nrecs < INT32_MAX);
    int e = j->nrecs++;
    sl__sj_rec *rec = &j->recs[e];
    memset(rec, 0, sizeof *rec);
    rec->hash = h;
    rec->off = sl__store(j, j->rbuf.buf, j->rbuf.len);
    rec->len = (uint32_t)j->rbuf.len;
    rec->key = key;
    rec->side = (uint8_t)s;
    rec->prev = rec->next = -1;
    if (!j->timed && !j->ao[s]) {
        if ((size_t)j->nrecs * 2 > j->nrslots)
            sl__rec_rehash(j, (size_t)j->nrecs);
        else
            sl__rslot_put(j, e);
    }
    sl__link(j, e);
    return e;
}

static bool sl__expired(const sl__sjoin *j, const sl__sj_rec *rec, int64_t now)
{
    return j->ttl_ns > 0 && now - rec->written >= j->ttl_ns;
}

/* ---- the interval rows' heap ------------------------------------------- */

static bool sl__timer_less(const sl__sj_timer *a, const sl__sj_timer *b)
{
    return a->bound < b->bound || (a->bound == b->bound && a->seq < b->seq);
}

static void sl__heap_push(sl__sjoin *j, sl__sj_timer t)
{
    if (j->nheap == j->heapcap) {
        j->heapcap = j->heapcap ? j->heapcap * 2 : 64;
        j->heap = sl_realloc(j->heap, j->heapcap * sizeof *j->heap);
    }
    size_t i = j->nheap++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!sl__timer_less(&t, &j->heap[parent]))
            break;
        j->heap[i] = j->heap[parent];
        i = parent;
    }
    j->heap[i] = t;
}

static void sl__heap_pop(sl__sjoin *j)
{
    sl__sj_timer t = j->heap[--j->nheap];
    size_t i = 0, n = j->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && sl__timer_less(&j->heap[c + 1], &j->heap[c]))
            c++;
        if (!sl__timer_less(&j->heap[c], &t))
            break;
        j->heap[i] = j->heap[c];
        i = c;
    }
    if (n)
        j->heap[i] = t;
}

/* The bound after which an interval row of side s at time t is dropped
** (window: its window_end, when the window fires). */
static int64_t sl__bound(const sl__sjoin *j, int s, int64_t t)
{
    if (j->window)
        return t;
    return s == 0 ? sl__sat_add(t, -j->lower) : sl__sat_add(t, j->upper);
}

static int sl__cmp_timer(const void *a, const void *b)
{
    const sl__sj_timer *x = a, *y = b;
    return sl__timer_less(x, y) ? -1 : sl__timer_less(y, x) ? 1 : 0;
}

/* The kept rows' timers: a sorted queue of those pushed in order (rows
** arrive about in time order, windows fire in order, and seq grows: most
** of them), and a min-heap of the others; the first timer is the smaller
** of their firsts. A pop from the queue is a step, not a sift-down of a
** heap as large as the state. The first timer, or NULL: */
static const sl__sj_timer *sl__timers_top(const sl__sjoin *j)
{
    const sl__sj_timer *q = j->qhead < j->qtail ? &j->q[j->qhead] : NULL;
    if (j->nheap && (!q || sl__timer_less(&j->heap[0], q)))
        return &j->heap[0];
    return q;
}

/* Drop the first timer (there is one). */
static void sl__timers_pop(sl__sjoin *j)
{
    if (j->nheap && sl__timers_top(j) == j->heap)
        sl__heap_pop(j);
    else if (++j->qhead == j->qtail)
        j->qhead = j->qtail = 0;
}

static void sl__q_grow(sl__sjoin *j)
{
    j->qcap = j->qcap ? j->qcap * 2 : 64;
    j->q = sl_realloc(j->q, j->qcap * sizeof *j->q);
}

static void sl__timers_push(sl__sjoin *j, sl__sj_timer t)
{
    if (j->qhead < j->qtail && sl__timer_less(&t, &j->q[j->qtail - 1])) {
        sl__heap_push(j, t);
        return;
    }
    if (j->qtail == j->qcap) {
        if (j->qhead > j->qcap / 2) { /* room at the front: move down */
            memmove(j->q, j->q + j->qhead, (j->qtail - j->qhead) * sizeof *j->q);
            j->qtail -= j->qhead;
            j->qhead = 0;
        } else {
            sl__q_grow(j);
        }
    }
    j->q[j->qtail++] = t;
}

/* Every live record's timer again (after compaction, restore), sorted:
** all in the queue. */
static void sl__heap_rebuild(sl__sjoin *j)
{
    j->nheap = 0;
    j->qhead = j->qtail = 0;
    for (int e = 0; e < j->nrecs; e++) {
        const sl__sj_rec *rec = &j->recs[e];
        if (!rec->live)
            continue;
        if (j->qtail == j->qcap)
            sl__q_grow(j);
        j->q[j->qtail++] = (sl__sj_timer){sl__bound(j, rec->side, rec->time), rec->seq, e};
    }
    qsort(j->q, j->qtail, sizeof *j->q, sl__cmp_timer);
}

/* ---- compaction -------------------------------------------------------- */

/* Rebuild the store, the keys and the records without the dead records and
** the keys left empty; each list keeps its order. */
static void sl__compact(sl__sjoin *j)
{
    uint8_t *ob = j->bytes;
    sl__sj_key *ok = j->keys;
    sl__sj_rec *orecs = j->recs;
    int onkeys = j->nkeys_used;
    j->bytes = NULL;
    j->blen = j->bcap = 0;
    j->keys = NULL;
    j->nkeys_used = j->keys_cap = 0;
    j->nempty = 0;
    j->recs = NULL;
    j->nrecs = j->recs_cap = 0;
    j->nlive = 0;
    sl_free(j->kslots);
    j->kslots = NULL;
    j->nkslots = 0;
    sl_free(j->rslots);
    j->rslots = NULL;
    j->nrslots = 0;
    for (int k = 0; k < onkeys; k++) {
        if (ok[k].nlive == 0)
            continue;
        sl_strbuf_reset(&j->kbuf);
        sl_strbuf_append_n(&j->kbuf,
                           (const char *)(ok[k].len <= SL__KEY_INLINE ? ok[k].at.inl
                                                                    : ob + ok[k].at.off),
                           ok[k].len);
        int nk = sl__key_add(j, ok[k].hash);
        for (int s = 0; s < 2; s++)
            for (int e = ok[k].head[s]; e >= 0; e = orecs[e].next) {
                const sl__sj_rec *o = &orecs[e];
                sl_strbuf_reset(&j->rbuf);
                sl_strbuf_append_n(&j->rbuf, (const char *)ob + o->off, o->len);
                int ne = sl__rec_new(j, nk, s, o->hash);
                sl__sj_rec *n = &j->recs[ne];
                n->joined = o->joined;
                n->count = o->count;
                n->assoc = o->assoc;
                n->written = o->written;
                n->time = o->time;
                n->seq = o->seq;
                n->nullkey = o->nullkey;
            }
    }
    sl_free(ob);
    sl_free(ok);
    sl_free(orecs);
    if (j->timed)
        sl__heap_rebuild(j);
}

static void sl__maybe_compact(sl__sjoin *j)
{
    int dead = j->nrecs - j->nlive;
    if ((dead > 1024 && dead > j->nlive) ||
        (j->nempty > 1024 && j->nempty > j->nkeys_used - j->nempty))
        sl__compact(j);
}

/* Drop every expired record (silently). */
static void sl__ttl_sweep(sl__sjoin *j, int64_t now)
{
    for (int e = 0; e < j->nrecs; e++)
        if (j->recs[e].live && sl__expired(j, &j->recs[e], now))
            sl__kill(j, e);
}

/* ---- output ------------------------------------------------------------ */

static int sl__flush(sl__sjoin *j, const sl_emit *out, sl_error *err)
{
    if (j->out->nrows == 0)
        return 0;
    int rc = out->fn(out->ctx, j->out, err);
    sl_chunk_reset(j->out);
    if (rc == 0 && sl_op_cancelled(j->op))
        return sl_op_cancel_error(err);
    return rc;
}

/* A new output row of kind k (flushing a full buffer first), or -1. */
static int sl__out_row(sl__sjoin *j, sl_row_kind k, const sl_emit *out, sl_error *err)
{
    if (sl_chunk_full(j->out) && sl__flush(j, out, err) != 0)
        return -1;
    return sl_chunk_append_row(j->out, k);
}

/* Emit input row r (of side s) padded with NULLs. */
static int sl__out_input_padded(sl__sjoin *j, const sl_chunk *in, int r, int s, sl_row_kind k,
                                const sl_emit *out, sl_error *err)
{
    int o = sl__out_row(j, k, out, err);
    if (o < 0)
        return -1;
    int ob = sl__out_base(j, s), ib = sl__in_base(j, s);
    for (int i = 0; i < sl__side_ncols(j, s); i++)
        sl_chunk_set_from(j->out, ob + i, o, in, ib + i, r);
    return 0;
}

/* Emit record e padded with NULLs. */
static int sl__out_rec_padded(sl__sjoin *j, int e, sl_row_kind k, const sl_emit *out,
                              sl_error *err)
{
    int o = sl__out_row(j, k, out, err);
    if (o < 0)
        return -1;
    sl__rec_decode(j, &j->recs[e], j->out, sl__out_base(j, j->recs[e].side), o);
    return 0;
}

/* Emit row i of the pairs chunk as kind k. */
static int sl__out_pair(sl__sjoin *j, int i, sl_row_kind k, const sl_emit *out, sl_error *err)
{
    if (sl_chunk_full(j->out) && sl__flush(j, out, err) != 0)
        return -1;
    int o = sl_chunk_copy_row(j->out, j->pairs, i);
    j->out->kinds[o] = (uint8_t)k;
    return 0;
}

/* Emit rows idx[0..n) of the pairs chunk as kind k, column by column
** (as many sl__out_pair calls, without a row copy each). */
static int sl__out_pairs(sl__sjoin *j, const int *idx, int n, sl_row_kind k, const sl_emit *out,
                         sl_error *err)
{
    while (n > 0) {
        if (sl_chunk_full(j->out) && sl__flush(j, out, err) != 0)
            return -1;
        int at = j->out->nrows, room = j->out->cap - at;
        int take = n < room ? n : room;
        sl_chunk_append_rows(j->out, j->pairs, idx, take);
        memset(j->out->kinds + at, (int)k, (size_t)take);
        idx += take;
        n -= take;
    }
    return 0;
}

/* Evaluate cond over the pairs chunk into j->sel. 0, or -1 with err. */
static int sl__pairs_cond(sl__sjoin *j, int64_t now, sl_error *err)
{
    if (!j->cond) {
        memset(j->sel, 1, (size_t)j->pairs->nrows);
        return 0;
    }
    sl_eval_env env = {0};
    env.now_nanos = now;
    env.tz = j->tz;
    return sl_eval_filter(j->cond, j->pairs, &env, j->sel, err) < 0 ? -1 : 0;
}

/* Fill the pairs chunk with input row r (side s) joined with candidates
** cand[from..to), evaluate cond over them into j->sel. 0, or -1 with err. */
static int sl__pairs(sl__sjoin *j, const sl_chunk *in, int r, int s, int from, int to,
                     int64_t now, sl_error *err)
{
    sl_chunk_reset(j->pairs);
    int ob = sl__out_base(j, s), ib = sl__in_base(j, s);
    for (int c = from; c < to; c++) {
        int p = sl_chunk_append_row(j->pairs, SL_ROW_INSERT);
        sl__input_view(j->pairs, ob, p, in, ib, sl__side_ncols(j, s), r);
        const sl__sj_rec *rec = &j->recs[j->cand[c]];
        sl__rec_view(j, rec, j->pairs, sl__out_base(j, rec->side), p);
    }
    return sl__pairs_cond(j, now, err);
}

static void sl__cand_push(sl__sjoin *j, int *n, int e)
{
    if (*n == j->cand_cap) {
        j->cand_cap = j->cand_cap ? j->cand_cap * 2 : 64;
        j->cand = sl_realloc(j->cand, (size_t)j->cand_cap * sizeof *j->cand);
    }
    j->cand[(*n)++] = e;
}

/* ---- regular join ------------------------------------------------------ */

/* Add the row in j->rbuf to side s of key (Flink's addRecord: one more
** copy; an outer side's associations set to assoc). */
static void sl__add(sl__sjoin *j, int key, int s, int32_t assoc, int64_t now)
{
    uint64_t h = sl__rbuf_hash(j, j->keys[key].hash, s);
    int e = sl__rec_lookup(j, key, s, h); /* insert-only: none, a record each */
    if (e >= 0 && j->recs[e].live && sl__expired(j, &j->recs[e], now))
        sl__kill(j, e);
    if (e < 0) {
        e = sl__rec_new(j, key, s, h);
        j->recs[e].count = 0;
    } else if (!j->recs[e].live) {
        j->recs[e].count = 0;
        sl__link(j, e);
    }
    sl__sj_rec *rec = &j->recs[e];
    rec->count++;
    rec->assoc = assoc;
    rec->written = now;
}

/* Retract one copy of the row in j->rbuf from side s of key (nothing when
** it is not there). */
static void sl__retract(sl__sjoin *j, int key, int s, int64_t now)
{
    int e = sl__rec_lookup(j, key, s, sl__rbuf_hash(j, j->keys[key].hash, s));
    if (e < 0 || !j->recs[e].live)
        return;
    if (sl__expired(j, &j->recs[e], now) || j->recs[e].count <= 1) {
        sl__kill(j, e);
        return;
    }
    j->recs[e].count--;
    j->recs[e].written = now;
}

/* Whether row r's key has a NULL that matches nothing (not a key whose
** NULLs are equal). */
static bool sl__key_null(const sl__sjoin *j, const sl_chunk *in, int r)
{
    for (int k = 1; k <= j->nkeys; k++)
        if (in->cols[k].nulls[r] && !(k <= 64 && (j->nulls_equal >> (k - 1) & 1)))
            return true;
    return false;
}

/* The live, unexpired records of side s of key as candidates (expired ones
** are dropped on the way); their number. */
static int sl__candidates(sl__sjoin *j, int key, int s, int64_t now)
{
    int n = 0;
    if (key < 0)
        return 0;
    for (int e = j->keys[key].head[s]; e >= 0;) {
        int next = j->recs[e].next;
        if (!j->timed && sl__expired(j, &j->recs[e], now))
            sl__kill(j, e);
        else
            sl__cand_push(j, &n, e);
        e = next;
    }
    return n;
}

static int sl__regular_row(sl__sjoin *j, const sl_chunk *in, int r, int s, int64_t now,
                           const sl_emit *out, sl_error *err)
{
    sl_row_kind kind = (sl_row_kind)in->kinds[r];
    bool acc = kind == SL_ROW_INSERT || kind == SL_ROW_UPDATE_AFTER;
    if (j->ao[s] && kind != SL_ROW_INSERT)
        return sl_error_set(err, SL_ERR_INTERNAL, -1,
                            "join planned for an insert-only %s input received a %s row",
                            s ? "right" : "left", sl_row_kind_name(kind));
    bool in_outer = j->outer[s], other_outer = j->outer[1 - s];
    if (sl__key_null(j, in, r)) {
        if (in_outer)
            return sl__out_input_padded(j, in, r, s, acc ? SL_ROW_INSERT : SL_ROW_DELETE, out,
                                        err);
        return 0;
    }
    sl__key_encode(j, in, r);
    int key = sl__key_lookup(j, j->hashes[r]);
    if (key < 0 && acc)
        key = sl__key_add(j, j->hashes[r]);
    sl__row_encode(j, in, sl__in_base(j, s), s, r);
    if (!acc && key >= 0)
        sl__retract(j, key, s, now);
    if (acc && !in_outer)
        sl__add(j, key, s, -1, now);
    int ncand = sl__candidates(j, key, 1 - s, now);
    sl_row_kind jk = acc ? (in_outer || other_outer ? SL_ROW_INSERT : kind)
                         : (in_outer ? SL_ROW_DELETE : kind);
    int64_t matches = 0;
    for (int from = 0; from < ncand; from += SL_CHUNK_ROWS) {
        int to = from + SL_CHUNK_ROWS < ncand ? from + SL_CHUNK_ROWS : ncand;
        if (sl__pairs(j, in, r, s, from, to, now, err) != 0)
            return -1;
        if (!other_outer) { /* no padded rows between: every copy of every pair at once */
            int n = 0;
            for (int c = from; c < to; c++) {
                if (!j->sel[c - from])
                    continue;
                for (int32_t copy = 0; copy < j->recs[j->cand[c]].count; copy++) {
                    if (n == SL_CHUNK_ROWS) {
                        if (sl__out_pairs(j, j->pidx, n, jk, out, err) != 0)
                            return -1;
                        n = 0;
                    }
                    j->pidx[n++] = c - from;
                    matches++;
                }
            }
            if (sl__out_pairs(j, j->pidx, n, jk, out, err) != 0)
                return -1;
            continue;
        }
        for (int c = from; c < to; c++) {
            if (!j->sel[c - from])
                continue;
            int e = j->cand[c];
            int32_t a0 = j->recs[e].assoc, count = j->recs[e].count;
            for (int32_t copy = 0; copy < count; copy++) {
                if (acc && other_outer) {
                    if (a0 == 0 && sl__out_rec_padded(j, e, SL_ROW_DELETE, out, err) != 0)
                        return -1;
                    j->recs[e].assoc = a0 + 1;
                    j->recs[e].written = now;
                }
                if (sl__out_pair(j, c - from, jk, out, err) != 0)
                    return -1;
                if (!acc && other_outer) {
                    if (a0 == 1 && sl__out_rec_padded(j, e, SL_ROW_INSERT, out, err) != 0)
                        return -1;
                    j->recs[e].assoc = a0 - 1;
                    j->recs[e].written = now;
                }
                matches++;
            }
        }
    }
    if (matches == 0 && in_outer &&
        sl__out_input_padded(j, in, r, s, acc ? SL_ROW_INSERT : SL_ROW_DELETE, out, err) != 0)
        return -1;
    if (acc && in_outer)
        sl__add(j, key, s, matches > INT32_MAX ? INT32_MAX : (int32_t)matches, now);
    return 0;
}

/* ---- interval join ----------------------------------------------------- */

/* The operator time: Flink's max(watermark, 0). */
static int64_t sl__optime(const sl__sjoin *j)
{
    return j->wm > 0 ? j->wm : 0;
}

static int sl__interval_row(sl__sjoin *j, const sl_chunk *in, int r, int s, int64_t now,
                            const sl_emit *out, sl_error *err)
{
    bool in_outer = j->outer[s], other_outer = j->outer[1 - s];
    int tc = sl__in_base(j, s) + j->tcol[s];
    if (sl__key_null(j, in, r) || in->cols[tc].nulls[r])
        return in_outer ? sl__out_input_padded(j, in, r, s, SL_ROW_INSERT, out, err) : 0;
    int64_t t = in->cols[tc].v.i64[r];
    /* the other side's qualifying times */
    int64_t lo = s == 0 ? sl__sat_add(t, -j->upper) : sl__sat_add(t, j->lower);
    int64_t hi = s == 0 ? sl__sat_add(t, -j->lower) : sl__sat_add(t, j->upper);
    sl__key_encode(j, in, r);
    int key = sl__key_lookup(j, j->hashes[r]);
    int n = 0;
    if (key >= 0)
        for (int e = j->keys[key].head[1 - s]; e >= 0; e = j->recs[e].next)
            if (j->recs[e].time >= lo && j->recs[e].time <= hi)
                sl__cand_push(j, &n, e);
    bool joined = false;
    for (int from = 0; from < n; from += SL_CHUNK_ROWS) {
        int to = from + SL_CHUNK_ROWS < n ? from + SL_CHUNK_ROWS : n;
        if (sl__pairs(j, in, r, s, from, to, now, err) != 0)
            return -1;
        int np = 0;
        for (int c = from; c < to; c++) {
            if (!j->sel[c - from])
                continue;
            j->pidx[np++] = c - from;
            if (other_outer)
                j->recs[j->cand[c]].joined = true;
            joined = true;
        }
        if (sl__out_pairs(j, j->pidx, np, SL_ROW_INSERT, out, err) != 0)
            return -1;
    }
    int64_t bound = sl__bound(j, s, t);
    if (sl__optime(j) < bound) {
        if (key < 0)
            key = sl__key_add(j, j->hashes[r]);
        sl__row_encode(j, in, sl__in_base(j, s), s, r);
        int e = sl__rec_new(j, key, s, 0);
        j->recs[e].time = t;
        j->recs[e].joined = joined;
        j->recs[e].seq = j->next_seq++;
        sl__timers_push(j, (sl__sj_timer){bound, j->recs[e].seq, e});
    } else if (!joined && in_outer) {
        return sl__out_input_padded(j, in, r, s, SL_ROW_INSERT, out, err);
    }
    return 0;
}

/* ---- window join ------------------------------------------------------- */

/* Keep row r of side s until its window fires; a row whose window already
** fired is late. */
static int sl__window_row(sl__sjoin *j, const sl_chunk *in, int r, int s, const sl_emit *out,
                          sl_error *err)
{
    int tc = sl__in_base(j, s) + j->tcol[s];
    if (in->cols[tc].nulls[r]) /* no window (a window TVF never gives one) */
        return j->outer[s] ? sl__out_input_padded(j, in, r, s, SL_ROW_INSERT, out, err) : 0;
    int64_t end = in->cols[tc].v.i64[r];
    if (end <= j->wm) {
        j->late++;
        if (!j->op->side[SL_SIDE_LATE].fn)
            return 0;
        int base = sl__in_base(j, s), n = sl__side_ncols(j, s); /* the row: its side's columns */
        int *cols = sl_malloc((size_t)(n ? n : 1) * sizeof(int));
        for (int c = 0; c < n; c++)
            cols[c] = base + c;
        int rc = sl_late_row_cols(j->op, j->in_names, in, r, n, cols, INT64_MIN, j->wm, true,
                                  INT64_MIN, end, err);
        sl_free(cols);
        return rc;
    }
    bool nullkey = sl__key_null(j, in, r);
    if (nullkey && !j->outer[s]) /* it can never give a row */
        return 0;
    sl__key_encode(j, in, r);
    int key = sl__key_lookup(j, j->hashes[r]);
    if (key < 0)
        key = sl__key_add(j, j->hashes[r]);
    sl__row_encode(j, in, sl__in_base(j, s), s, r);
    int e = sl__rec_new(j, key, s, 0);
    j->recs[e].time = end;
    j->recs[e].nullkey = nullkey;
    j->recs[e].seq = j->next_seq++;
    sl__timers_push(j, (sl__sj_timer){end, j->recs[e].seq, e});
    return 0;
}

/* Left record l joined with the right records cand[from..to) into the
** pairs chunk, cond evaluated into j->sel. */
static int sl__window_pairs(sl__sjoin *j, int l, int from, int to, int64_t now, sl_error *err)
{
    sl_chunk_reset(j->pairs);
    for (int c = from; c < to; c++) {
        int p = sl_chunk_append_row(j->pairs, SL_ROW_INSERT);
        sl__rec_view(j, &j->recs[l], j->pairs, 0, p);
        sl__rec_view(j, &j->recs[j->cand[c]], j->pairs, j->nl, p);
    }
    return sl__pairs_cond(j, now, err);
}

/* The window ending at end of key k fired: join its rows (each left row
** with the right rows in arrival order), pad an outer side's unmatched
** rows, drop them. (The planner's keys include window_end, so a key holds
** one window; rows of other windows under one key are left alone.) */
static int sl__window_fire(sl__sjoin *j, int k, int64_t end, const sl_emit *out, sl_error *err)
{
    int64_t now = j->now(j->now_ctx);
    int nr = 0;
    for (int e = j->keys[k].head[1]; e >= 0; e = j->recs[e].next)
        if (j->recs[e].time == end)
            sl__cand_push(j, &nr, e);
    for (int l = j->keys[k].head[0]; l >= 0; l = j->recs[l].next) {
        if (j->recs[l].time != end)
            continue;
        bool matched = false;
        for (int from = 0; from < nr && !j->recs[l].nullkey; from += SL_CHUNK_ROWS) {
            int to = from + SL_CHUNK_ROWS < nr ? from + SL_CHUNK_ROWS : nr;
            if (sl__window_pairs(j, l, from, to, now, err) != 0)
                return -1;
            int np = 0;
            for (int c = from; c < to; c++) {
                if (!j->sel[c - from])
                    continue;
                j->pidx[np++] = c - from;
                j->recs[j->cand[c]].joined = true;
                matched = true;
            }
            if (sl__out_pairs(j, j->pidx, np, SL_ROW_INSERT, out, err) != 0)
                return -1;
        }
        if (!matched && j->outer[0] && sl__out_rec_padded(j, l, SL_ROW_INSERT, out, err) != 0)
            return -1;
    }
    for (int c = 0; c < nr; c++)
        if (j->outer[1] && !j->recs[j->cand[c]].joined &&
            sl__out_rec_padded(j, j->cand[c], SL_ROW_INSERT, out, err) != 0)
            return -1;
    for (int s = 0; s < 2; s++)
        for (int e = j->keys[k].head[s]; e >= 0;) {
            int next = j->recs[e].next;
            if (j->recs[e].time == end)
                sl__kill(j, e);
            e = next;
        }
    return 0;
}

/* ---- the operator ------------------------------------------------------ */

static int sl__sjoin_process(sl_operator *op, const sl_chunk *in, const sl_emit *out,
                             sl_error *err)
{
    sl__sjoin *j = op->impl;
    if (in->nrows == 0)
        return 0;
    for (int r = 0; r < in->nrows; r++) { /* reject the chunk before any state changes */
        if (in->cols[0].nulls[r] || (in->cols[0].v.i64[r] != 0 && in->cols[0].v.i64[r] != 1))
            return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                "join input row %d has no valid side tag", r);
        if (j->timed && in->kinds[r] != SL_ROW_INSERT)
            return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                "an %s join needs append-only inputs, but got a %s row",
                                j->window ? "window" : "interval",
                                sl_row_kind_name((sl_row_kind)in->kinds[r]));
    }
    int64_t now = j->now(j->now_ctx);
    if (j->ttl_ns > 0 && now >= j->next_sweep) {
        sl__ttl_sweep(j, now);
        j->next_sweep = sl__sat_add(now, j->ttl_ns);
    }
    if (in->nrows > j->hashes_cap) {
        j->hashes_cap = in->nrows;
        j->hashes = sl_realloc(j->hashes, (size_t)j->hashes_cap * sizeof *j->hashes);
    }
    sl_chunk_hash_keys(in, j->nkeys, j->keycols, j->hashes);
    sl_chunk_reset(j->out);
    enum { AHEAD = 8 };
    for (int r = 0; r < in->nrows; r++) {
        if (j->nkslots) { /* a large key table misses the cache: ask for a row's slot,
                             then its key, some rows before looking it up */
            size_t mask = j->nkslots - 1;
            if (r + 2 * AHEAD < in->nrows)
                __builtin_prefetch(&j->kslots[j->hashes[r + 2 * AHEAD] & mask]);
            if (r + AHEAD < in->nrows) {
                int32_t e = j->kslots[j->hashes[r + AHEAD] & mask].idx;
                if (e >= 0)
                    __builtin_prefetch(&j->keys[e]);
            }
        }
        int s = (int)in->cols[0].v.i64[r];
        int rc = j->window     ? sl__window_row(j, in, r, s, out, err)
                 : j->interval ? sl__interval_row(j, in, r, s, now, out, err)
                               : sl__regular_row(j, in, r, s, now, out, err);
        if (rc != 0) {
            sl_chunk_reset(j->out);
            return -1;
        }
    }
    sl__maybe_compact(j);
    return sl__flush(j, out, err);
}

/* Interval: drop the rows the watermark has passed, emitting an outer
** side's rows that never joined. */
static int sl__sjoin_watermark(sl_operator *op, int64_t wm, const sl_emit *out, sl_error *err)
{
    sl__sjoin *j = op->impl;
    if (wm > j->wm)
        j->wm = wm;
    if (j->window) {
        sl_chunk_reset(j->out);
        const sl__sj_timer *t;
        while ((t = sl__timers_top(j)) && t->bound <= j->wm) {
            int e = t->rec;
            sl__timers_pop(j);
            if (j->recs[e].live &&
                sl__window_fire(j, j->recs[e].key, j->recs[e].time, out, err) != 0) {
                sl_chunk_reset(j->out);
                return -1;
            }
        }
        if (sl__flush(j, out, err) != 0)
            return -1;
        sl__maybe_compact(j);
        return 0;
    }
    if (!j->interval)
        return 0;
    int64_t T = sl__optime(j);
    bool all = j->wm == INT64_MAX;
    sl_chunk_reset(j->out);
    const sl__sj_timer *t;
    while ((t = sl__timers_top(j)) && (all || t->bound < T)) {
        int e = t->rec;
        sl__timers_pop(j);
        sl__sj_rec *rec = &j->recs[e];
        if (j->outer[rec->side] && !rec->joined &&
            sl__out_rec_padded(j, e, SL_ROW_INSERT, out, err) != 0) {
            sl_chunk_reset(j->out);
            return -1;
        }
        sl__kill(j, e);
    }
    if (sl__flush(j, out, err) != 0)
        return -1;
    sl__maybe_compact(j);
    return 0;
}

static int64_t sl__sjoin_late_rows(sl_operator *op)
{
    return ((sl__sjoin *)op->impl)->late;
}

/* ---- snapshot / restore ------------------------------------------------ */

static const char sl__magic[7] = {'S', 'L', 'S', 'J', 'O', 'I', 'N'};
#define SL__VERSION 2 /* 2: XXH3 checksum; 1: FNV-1a (still read) */

/* The checksum of a version's blob: v1's FNV-1a reads a byte per step,
** a third of a large join's snapshot time; v2 reads XXH3's 32 bytes. */
static uint64_t sl__snap_sum(uint32_t version, const char *p, size_t n)
{
    return version == 1 ? sl_hash_bytes(p, n, SL_HASH_INIT) : sl_checksum(p, n);
}

typedef struct sl__key_ref {
    const uint8_t *p; /* key bytes */
    uint32_t len;     /* their length */
    int idx;          /* key index */
} sl__key_ref;

static int sl__cmp_key(const void *a, const void *b)
{
    const sl__key_ref *x = a, *y = b;
    uint32_t n = x->len < y->len ? x->len : y->len;
    int c = n ? memcmp(x->p, y->p, n) : 0;
    if (c)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

static int sl__cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether record e is in the snapshot (live and, regular, not expired). */
static bool sl__kept(const sl__sjoin *j, int e, int64_t now)
{
    return j->recs[e].live && (j->timed || !sl__expired(j, &j->recs[e], now));
}

static int sl__sjoin_snapshot(sl_operator *op, sl_strbuf *state, sl_error *err)
{
    (void)err;
    sl__sjoin *j = op->impl;
    int64_t now = j->now(j->now_ctx);
    size_t start = state->len;
    /* Room for all of it at once (the store holds every row and long key;
    ** per record at most 24 bytes more, per key 48): no copies as it grows. */
    sl_strbuf_reserve(state, 4096 + (size_t)j->in_ncols + j->blen + (size_t)j->nrecs * 24 +
                                 (size_t)j->nkeys_used * (48 + SL__KEY_INLINE));
    sl_strbuf_append_n(state, sl__magic, sizeof sl__magic);
    sl_put_u32(state, SL__VERSION);
    sl_put_u32(state, (uint32_t)j->in_ncols);
    sl_put_u32(state, (uint32_t)j->nkeys);
    sl_put_u32(state, (uint32_t)j->nl);
    sl_put_u32(state, (uint32_t)j->nr);
    sl_strbuf_append_char(state, (char)j->type);
    sl_strbuf_append_char(state, (char)(j->window ? 2 : j->interval));
    for (int c = 0; c < j->in_ncols; c++)
        sl_strbuf_append_char(state, (char)sl_phys_of(j->in_types[c]));
    sl_put_u64(state, (uint64_t)j->wm);
    sl_put_u64(state, (uint64_t)j->late);
    /* interval, window: arrival ranks of the live records */
    uint64_t *seqs = NULL;
    int nseq = 0;
    if (j->timed) {
        seqs = sl_malloc(((size_t)j->nlive + 1) * sizeof *seqs);
        for (int e = 0; e < j->nrecs; e++)
            if (j->recs[e].live)
                seqs[nseq++] = j->recs[e].seq;
        qsort(seqs, (size_t)nseq, sizeof *seqs, sl__cmp_u64);
    }
    sl__key_ref *refs = sl_malloc(((size_t)j->nkeys_used + 1) * sizeof *refs);
    int nref = 0;
    for (int k = 0; k < j->nkeys_used; k++) {
        bool any = false;
        for (int s = 0; s < 2 && !any; s++)
            for (int e = j->keys[k].head[s]; e >= 0 && !any; e = j->recs[e].next)
                any = sl__kept(j, e, now);
        if (any)
            refs[nref++] = (sl__key_ref){sl__key_bytes(j, &j->keys[k]), j->keys[k].len, k};
    }
    qsort(refs, (size_t)nref, sizeof *refs, sl__cmp_key);
    sl_put_u64(state, (uint64_t)nref);
    for (int i = 0; i < nref; i++) {
        const sl__sj_key *key = &j->keys[refs[i].idx];
        sl_put_u32(state, key->len);
        sl_strbuf_append_n(state, (const char *)sl__key_bytes(j, key), key->len);
        for (int s = 0; s < 2; s++) {
            uint64_t n = 0;
            for (int e = key->head[s]; e >= 0; e = j->recs[e].next)
                n += sl__kept(j, e, now);
            sl_put_u64(state, n);
            for (int e = key->head[s]; e >= 0; e = j->recs[e].next) {
                if (!sl__kept(j, e, now))
                    continue;
                const sl__sj_rec *rec = &j->recs[e];
                sl_put_u32(state, rec->len);
                sl_strbuf_append_n(state, (const char *)j->bytes + rec->off, rec->len);
                if (j->timed) {
                    uint64_t *at = bsearch(&rec->seq, seqs, (size_t)nseq, sizeof *seqs,
                                           sl__cmp_u64);
                    sl_strbuf_append_char(state, (char)rec->joined);
                    sl_put_u64(state, (uint64_t)(at - seqs));
                } else {
                    sl_put_u32(state, (uint32_t)rec->count);
                    sl_put_u32(state, (uint32_t)rec->assoc);
                    sl_put_u64(state, (uint64_t)rec->written);
                }
            }
        }
    }
    sl_free(refs);
    sl_free(seqs);
    sl_put_u64(state, sl__snap_sum(SL__VERSION, state->buf + start, state->len - start));
    return 0;
}

/* Forget all state. */
static void sl__clear(sl__sjoin *j)
{
    j->blen = 0;
    j->nkeys_used = 0;
    j->nempty = 0;
    j->nrecs = 0;
    j->nlive = 0;
    j->nheap = 0;
    j->qhead = j->qtail = 0;
    j->next_seq = 0;
    j->wm = INT64_MIN;
    j->late = 0;
    j->next_sweep = 0;
    sl_free(j->kslots);
    j->kslots = NULL;
    j->nkslots = 0;
    sl_free(j->rslots);
    j->rslots = NULL;
    j->nrslots = 0;
}

static int sl__corrupt(sl__sjoin *j, sl_error *err, const char *what)
{
    sl__clear(j);
    return sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "join state is corrupt: %s", what);
}

/* Check that bytes [p, p+len) are exactly an encoding of columns cols[0..n)
** of the one-row chunk (decoding them there). */
static bool sl__decode_exact(sl__sjoin *j, const uint8_t *p, uint32_t len, int first, int n,
                             sl_strbuf *re)
{
    sl_bytes_reader c = {p, len, 0};
    if (!sl_row_get_cols(&c, j->one, first, n, 0) || c.off != c.n)
        return false;
    sl_strbuf_reset(re);
    sl_row_put_cols(re, j->one, first, n, 0);
    return re->len == len && (len == 0 || memcmp(re->buf, p, len) == 0);
}

/* Interval: the arrival ranks a restore has seen (owned by the caller). */
typedef struct sl__ranks {
    uint8_t *seen; /* seen[rank] != 0: taken */
    size_t n;      /* entries allocated */
} sl__ranks;

/* Restore nk keys and their records from c. NULL, or what is wrong. */
static const char *sl__restore_keys(sl__sjoin *j, sl_bytes_reader *c, uint64_t nk, sl__ranks *rk,
                                    uint64_t *totalp)
{
    uint64_t total = 0;
    const char *bad = NULL;
    const uint8_t *prev_key = NULL;
    uint32_t prev_len = 0;
    for (uint64_t i = 0; i < nk && !bad; i++) {
        uint32_t klen;
        if (!sl_get_u32(c, &klen) || klen > c->n - c->off)
            return "truncated key";
        const uint8_t *kp = c->p + c->off;
        c->off += klen;
        sl_chunk_reset(j->one);
        sl_chunk_append_row(j->one, SL_ROW_INSERT);
        if (!sl__decode_exact(j, kp, klen, 1, j->nkeys, &j->kbuf))
            return "malformed key";
        if (prev_key) {
            sl__key_ref a = {prev_key, prev_len, 0}, b = {kp, klen, 0};
            if (sl__cmp_key(&a, &b) >= 0)
                return "keys out of order";
        }
        prev_key = kp;
        prev_len = klen;
        /* window: an outer side's rows wait with their NULL key */
        bool nullkey = sl__key_null(j, j->one, 0);
        if (nullkey && !j->window)
            return "a NULL key";
        uint64_t h;
        sl_chunk_hash_keys(j->one, j->nkeys, j->keycols, &h);
        int key = sl__key_add(j, h);
        for (int s = 0; s < 2; s++) {
            uint64_t n;
            if (!sl_get_u64(c, &n))
                return "truncated key";
            if (n > (c->n - c->off) / 5)
                return "record count exceeds the data";
            for (uint64_t r = 0; r < n; r++) {
                uint32_t rlen;
                if (!sl_get_u32(c, &rlen) || rlen > c->n - c->off)
                    return "truncated record";
                const uint8_t *rp = c->p + c->off;
                c->off += rlen;
                sl_chunk_reset(j->one);
                sl_chunk_append_row(j->one, SL_ROW_INSERT);
                if (!sl__decode_exact(j, rp, rlen, sl__in_base(j, s), sl__side_ncols(j, s),
                                      &j->rbuf))
                    return "malformed record";
                if (j->timed) {
                    uint8_t joined;
                    uint64_t rank;
                    if (!sl_get_u8(c, &joined) || !sl_get_u64(c, &rank))
                        return "truncated record";
                    if (joined > 1)
                        return "malformed record";
                    int tc = sl__in_base(j, s) + j->tcol[s];
                    if (j->one->cols[tc].nulls[0])
                        return "a record without a time";
                    if (rank > c->n) /* ranks are below the record count */
                        return "an arrival rank out of range";
                    if (rank >= rk->n) {
                        size_t nn = rk->n ? rk->n * 2 : 64;
                        if (nn <= rank)
                            nn = (size_t)rank + 1;
                        rk->seen = sl_realloc(rk->seen, nn);
                        memset(rk->seen + rk->n, 0, nn - rk->n);
                        rk->n = nn;
                    }
                    if (rk->seen[rank])
                        return "a duplicate arrival rank";
                    rk->seen[rank] = 1;
                    int e = sl__rec_new(j, key, s, 0);
                    j->recs[e].time = j->one->cols[tc].v.i64[0];
                    j->recs[e].joined = joined;
                    j->recs[e].seq = rank;
                    j->recs[e].nullkey = nullkey;
                    if (j->window && (joined || (nullkey && !j->outer[s])))
                        return "malformed record";
                } else {
                    uint32_t count, assoc;
                    uint64_t written;
                    if (!sl_get_u32(c, &count) || !sl_get_u32(c, &assoc) ||
                        !sl_get_u64(c, &written))
                        return "truncated record";
                    if (count < 1 || count > INT32_MAX)
                        return "a record count out of range";
                    uint64_t h2 = sl__rbuf_hash(j, h, s);
                    if (sl__rec_lookup(j, key, s, h2) >= 0)
                        return "a duplicate record";
                    int e = sl__rec_new(j, key, s, h2);
                    j->recs[e].count = (int32_t)count;
                    j->recs[e].assoc = (int32_t)assoc;
                    j->recs[e].written = (int64_t)written;
                }
                total++;
                *totalp = total;
            }
        }
        if (j->keys[key].nlive == 0)
            return "a key without records";
    }
    return bad;
}

static const char *sl__restore_body(sl__sjoin *j, sl_bytes_reader *c, uint64_t nk)
{
    sl__ranks rk = {NULL, 0};
    uint64_t total = 0;
    const char *bad = sl__restore_keys(j, c, nk, &rk, &total);
    if (!bad && j->timed) {
        for (uint64_t r = 0; r < total && !bad; r++)
            if (r >= rk.n || !rk.seen[r])
                bad = "arrival ranks not dense";
        j->next_seq = total;
    }
    sl_free(rk.seen);
    return bad;
}

static int sl__sjoin_restore(sl_operator *op, const char *state, size_t len, sl_error *err)
{
    sl__sjoin *j = op->impl;
    sl__clear(j);
    if (len < sizeof sl__magic + 4 + 8)
        return sl__corrupt(j, err, "truncated");
    uint64_t sum;
    uint32_t sumv = 0; /* the version says which checksum; a damaged one matches neither */
    sl_bytes_reader tail = {(const uint8_t *)state, len, len - 8};
    sl_bytes_reader head = {(const uint8_t *)state, len, sizeof sl__magic};
    sl_get_u64(&tail, &sum);
    sl_get_u32(&head, &sumv);
    if (sum != sl__snap_sum(sumv == 1 ? 1 : 2, state, len - 8))
        return sl__corrupt(j, err, "checksum mismatch");
    sl_bytes_reader c = {(const uint8_t *)state, len - 8, 0};
    char magic[sizeof sl__magic];
    uint32_t version, ncols, nkeys, nl, nr;
    uint8_t type, interval;
    if (!sl_get_bytes(&c, magic, sizeof magic) || memcmp(magic, sl__magic, sizeof magic) != 0)
        return sl__corrupt(j, err, "not a join state");
    if (!sl_get_u32(&c, &version))
        return sl__corrupt(j, err, "truncated header");
    if (version != SL__VERSION && version != 1)
        return sl__corrupt(j, err, "unknown version");
    if (!sl_get_u32(&c, &ncols) || !sl_get_u32(&c, &nkeys) || !sl_get_u32(&c, &nl) ||
        !sl_get_u32(&c, &nr) || !sl_get_u8(&c, &type) || !sl_get_u8(&c, &interval))
        return sl__corrupt(j, err, "truncated header");
    if (ncols != (uint32_t)j->in_ncols || nkeys != (uint32_t)j->nkeys || nl != (uint32_t)j->nl ||
        nr != (uint32_t)j->nr || type != (uint8_t)j->type ||
        interval != (uint8_t)(j->window ? 2 : j->interval))
        return sl__corrupt(j, err, "it belongs to a different join");
    for (int col = 0; col < j->in_ncols; col++) {
        uint8_t p;
        if (!sl_get_u8(&c, &p))
            return sl__corrupt(j, err, "truncated header");
        if (p != (uint8_t)sl_phys_of(j->in_types[col]))
            return sl__corrupt(j, err, "column types differ");
    }
    uint64_t wm, late, nk;
    if (!sl_get_u64(&c, &wm) || !sl_get_u64(&c, &late) || !sl_get_u64(&c, &nk))
        return sl__corrupt(j, err, "truncated header");
    if ((int64_t)late < 0)
        return sl__corrupt(j, err, "negative late row count");
    if (nk > (c.n - c.off) / 20)
        return sl__corrupt(j, err, "key count exceeds the data");
    const char *bad = sl__restore_body(j, &c, nk);
    if (bad)
        return sl__corrupt(j, err, bad);
    if (c.off != c.n)
        return sl__corrupt(j, err, "trailing bytes");
    j->wm = (int64_t)wm;
    j->late = (int64_t)late;
    if (j->timed)
        sl__heap_rebuild(j);
    sl_chunk_reset(j->one);
    return 0;
}

static void sl__sjoin_free(sl_operator *op)
{
    if (!op)
        return;
    sl__sjoin *j = op->impl;
    if (j) {
        sl_free(j->bytes);
        sl_free(j->keys);
        sl_free(j->kslots);
        sl_free(j->recs);
        sl_free(j->rslots);
        sl_free(j->heap);
        sl_free(j->q);
        sl_free(j->in_types);
        sl_free(j->keycols);
        sl_eval_free(j->cond);
        sl_strbuf_free(&j->kbuf);
        sl_strbuf_free(&j->rbuf);
        sl_free(j->hashes);
        sl_free(j->cand);
        sl_free(j->sel);
        sl_free(j->pidx);
        sl_chunk_free(j->pairs);
        sl_chunk_free(j->out);
        sl_chunk_free(j->one);
        sl_free(j);
    }
    sl_free(op);
}

static const sl_operator_ops sl__sjoin_ops = {
    sl__sjoin_process, sl__sjoin_watermark,  sl__sjoin_snapshot,
    sl__sjoin_restore, sl__sjoin_late_rows, sl__sjoin_free,
    NULL, /* conflicts */
    NULL, /* backend: hashmap */
};

int sl_join_new(const sl_join_spec *spec, sl_operator **out, sl_error *err)
{
    *out = NULL;
    if (spec->nkeys < 0 || spec->nl < 0 || spec->nr < 0 ||
        spec->in_ncols != 1 + spec->nkeys + spec->nl + spec->nr || spec->type < SL_JOIN_INNER ||
        spec->type > SL_JOIN_FULL || spec->ttl_ms < 0 ||
        spec->ttl_ms > INT64_MAX / SL_NANOS_PER_MILLI ||
        sl_phys_of(spec->in_types[0]) != SL_PHYS_I64 ||
        (spec->nulls_equal && (spec->interval || spec->window || spec->temporal)))
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "invalid join spec");
    if ((spec->interval || spec->window) &&
        (spec->ltime < 0 || spec->ltime >= spec->nl || spec->rtime < 0 || spec->rtime >= spec->nr ||
         sl_phys_of(spec->in_types[1 + spec->nkeys + spec->ltime]) != SL_PHYS_I64 ||
         sl_phys_of(spec->in_types[1 + spec->nkeys + spec->nl + spec->rtime]) != SL_PHYS_I64))
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "invalid %s join time columns",
                            spec->window ? "window" : "interval");
    sl__sjoin *j = sl_calloc(1, sizeof *j);
    j->in_ncols = spec->in_ncols;
    j->nkeys = spec->nkeys;
    j->nulls_equal = spec->nulls_equal;
    j->nl = spec->nl;
    j->nr = spec->nr;
    j->type = spec->type;
    j->outer[0] = spec->type == SL_JOIN_LEFT || spec->type == SL_JOIN_FULL;
    j->outer[1] = spec->type == SL_JOIN_RIGHT || spec->type == SL_JOIN_FULL;
    j->interval = spec->interval && !spec->window;
    j->window = spec->window;
    j->timed = spec->interval || spec->window;
    j->ao[0] = spec->append_only[0] && !j->timed;
    j->ao[1] = spec->append_only[1] && !j->timed;
    j->tcol[0] = spec->ltime;
    j->tcol[1] = spec->rtime;
    j->lower = spec->lower_ns;
    j->upper = spec->upper_ns;
    j->ttl_ns = spec->interval || spec->window ? 0 : spec->ttl_ms * SL_NANOS_PER_MILLI;
    j->now = spec->now ? spec->now : sl__real_now;
    j->now_ctx = spec->now_ctx;
    j->tz = spec->tz;
    j->wm = INT64_MIN;
    j->in_types = sl_calloc((size_t)spec->in_ncols + 1, sizeof(sl_type));
    for (int i = 0; i < spec->in_ncols; i++)
        j->in_types[i] = spec->in_types[i];
    j->out_types = j->in_types + 1 + spec->nkeys;
    j->keycols = sl_malloc(((size_t)spec->nkeys + 1) * sizeof(int));
    for (int k = 0; k < spec->nkeys; k++)
        j->keycols[k] = 1 + k;
    int nout = spec->nl + spec->nr;
    if (spec->cond) {
        j->cond = sl_eval_compile(spec->cond, nout, j->out_types, err);
        if (!j->cond) {
            sl_free(j->keycols);
            sl_free(j->in_types);
            sl_free(j);
            return -1;
        }
    }
    j->sel = sl_malloc(SL_CHUNK_ROWS);
    j->pidx = sl_malloc(SL_CHUNK_ROWS * sizeof *j->pidx);
    j->pairs = sl_chunk_new(nout, j->out_types, SL_CHUNK_ROWS);
    j->out = sl_chunk_new(nout, j->out_types, SL_CHUNK_ROWS);
    j->one = sl_chunk_new(spec->in_ncols, j->in_types, 1);
    sl_operator *op = sl_calloc(1, sizeof *op);
    op->ops = &sl__sjoin_ops;
    op->impl = j;
    j->in_names = spec->in_names;
    op->out_ncols = nout;
    op->out_types = j->out_types;
    /* a row joined when the later side arrives is behind the watermark by
    ** up to max(-lower, upper), as Flink's interval join delays its output
    ** watermark (lower <= upper, so this is >= 0) */
    if (j->interval)
        op->wm_delay = j->upper > -j->lower ? j->upper : -j->lower;
    j->op = op;
    *out = op;
    return 0;
}
