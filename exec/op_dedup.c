/*
** op_dedup.c — deduplication (ROW_NUMBER() OVER (PARTITION BY keys ORDER BY
** time) = 1) as a keyed stateful operator (see sl_exec.h, sl_dedup_spec).
**
** State: one entry per partition key, holding a copy of a row (in the
** operator's own memory, strings included) encoded as bytes. Entries live in
** an array; a static open-addressing hash table (linear probing, power-of-two
** size, load <= 1/2) maps the encoded key to its entry. No shared key map
** existed in exec/ when this was written, so the table is local to this file.
**
** Semantics (input must be append-only: any row kind but +I is an error
** XX000), as Flink 2.2 without mini-batch (checked side by side with Flink
** SQL 2.2, see tests/sql/run_dedup.sql):
**   keep_first by event time (order_col >= 0; Flink's
**               RowTimeDeduplicateKeepFirstRowFunction, insert-only):
**               a row whose time is behind the watermark (time < wm) is
**               late: dropped and counted, and set aside with sl_late_row
**               on the late side output when there is one
**               (op->side[SL_SIDE_LATE], 'table.exec.late-rows.table':
**               the watermark it missed, no window, its order column as
**               event time, the row's JSON without the ignored columns).
**               Otherwise, while the key has emitted nothing, the row
**               with the smallest time is its
**               candidate (ties: the one that arrived first). When the
**               watermark reaches the candidate's time (time <= wm) it is
**               emitted as +I — candidates in order of time, then arrival
**               — and the key is done: its later rows are dropped. The
**               result per key is the row with the earliest event time among
**               the rows that were not late; nothing is ever retracted. A
**               row with a NULL time cannot be ordered and is skipped (not
**               late), as the window table function skips it.
**   keep_first without order_col: the first row that arrives for a key is
**               emitted at once as +I (arrival order; Flink's proctime
**               keep-first).
**   keep_last   a row for a key without a kept row: +I; otherwise -U(kept)
**               then +U(new), and the new row is kept (no_before: +U(new)
**               alone, and only the key's time is kept). As Flink's
**               RowTimeDeduplicateFunction, a row whose order_col value is
**               smaller than the kept row's (both non-NULL) is out of order
**               and dropped (ties replace); the watermark plays no part (a
**               row behind it still replaces an older kept row, as in
**               Flink). A NULL time replaces and is replaced. order_col < 0:
**               pure arrival order.
** Output = the input columns + a BIGINT NOT NULL row number, always 1.
**
** Conflicts (keep_first, both kinds): a row of a key that is not kept — a
** later arrival, or a candidate replaced by an earlier-timed row — is
** compared with the key's kept row (the candidate, or the emitted row) on
** all its columns (the encoded row: a producer's retry is byte-identical,
** event time included). Identical: a duplicate, silent. Different: a
** conflict — counted over the state's life (ops->conflicts, snapshotted),
** logged at level info with its key, and with a side output
** (op->side[SL_SIDE_CONFLICTS], 'table.exec.deduplicate.conflict-table')
** emitted once in the canonical
** layout (sl_dedup_conflict_names: job, operator, conflict_key JSON,
** stored_row JSON, conflicting_row JSON, event_time = the conflicting
** row's order column or NULL, arrived_at = the clock when found). Each
** differing row is one conflict. A late row (by time, behind the
** watermark) is late only, never a conflict; a NULL time is skipped. After
** emission a keep-first by time keeps a 64-bit hash of the emitted row
** (sl_hash_bytes of its encoding: two differing rows of one key compare
** equal with odds of about 2^-64, a missed conflict) and, only when
** spec->keep_rows (a conflict table wants stored_row), the row itself;
** keep-first by arrival keeps its rows anyway. keep_last and normalize
** replace by design: no conflicts.
**
** Candidates waiting for the watermark sit in a binary min-heap of (time,
** arrival number, entry); a replaced candidate leaves a stale heap item,
** recognised by its arrival number and skipped when popped. After
** emitting, a keep_first entry keeps its key only (the row is freed).
**
** normalize (Flink's ChangelogNormalize, behind an upsert source such as
** upsert-kafka): keep last in arrival order, over a changelog of upserts
** (+I/+U: the key's row now) and deletes (-D: only the key's columns are
** read); -U rows are ignored. A new key gives +I, a changed row -U(kept)
** and +U(new), an unchanged one nothing, a delete of a kept row -D(kept) —
** the key's entry is then gone (dropped from snapshots, reused when the key
** returns, compacted away once gone entries outnumber live ones). No row
** number column.
**
** TTL (ttl_ms > 0, processing time from the injectable clock): as Flink's
** state TTL with OnCreateAndWrite, an entry expires ttl_ms after it was last
** written — keep_first when its row was emitted (a candidate waiting for
** the watermark never expires, as Flink keeps its timer state without TTL),
** keep_last on every kept row. An expired entry behaves as absent (the next
** row for its key is a new first row); expired entries are swept at most
** once per ttl. NULL keys are equal to each other (one partition for NULL).
**
** Snapshot (deterministic; live entries in first-seen order; all integers
** little-endian):
**   "SLDEDUP3" u32 ncols u32 nkeys u8 mode u8 phys[ncols]
**   i64 watermark i64 late_rows i64 conflicts
**   u64 count, count x { u8 kind i64 written_ns [kind 1: u64 arrival]
**                        [kind 3: u64 row_hash] u32 len bytes[len] }
**   u64 FNV-1a of everything before
** mode: 0 keep last, 1 keep first, 2 normalize, 3 keep last without -U
** (sl_dedup_spec.no_before: an entry holds its key and time only, written
** as kind 0 with the encoded key as its bytes, then u8 time_null i64 time;
** modes 0 and 3 refuse each other's snapshots). kind: 0 a kept row, 1 a
** candidate waiting for the watermark (its row, arrival number), 2 a key
** whose row was emitted, its hash unknown (the encoded key only; version
** 2), 3 the same with the row's hash, 4 an emitted row kept whole (its
** hash is recomputed). Version 2 ("SLDEDUP2": no conflicts count, kinds 0
** to 2) is still read: its emitted keys are not compared. arrival: the candidate's
** rank among the candidates by arrival (only their order matters). A row
** (a key) is per column
** (per key column): u8 null (0/1), then if not null BOOL u8 (0/1) | I64 i64
** | F64 8 bytes | I128 16 bytes | STR u32 len + bytes. Restore checks every
** length, value and the checksum: anything wrong is XX001. The version 1
** format ("SLDEDUP1", before event-time keep-first; no watermark, no kinds:
** u64 count, count x { i64 written u32 row_len row }) is still read: its
** keep-first rows were all emitted.
**
** Main routines: sl_dedup_new and its process / watermark / snapshot /
** restore.
*/
#include "sl_exec.h"

#include <stdlib.h>
#include <string.h>

typedef struct sl__dd_entry {
    uint64_t hash;       /* hash of the encoded key */
    uint64_t seq;        /* first-seen sequence (snapshot order) */
    int64_t written;     /* processing time (ns) of the last write, for the TTL */
    int64_t order_val;   /* the row's order_col value */
    bool order_null;     /* that value is NULL or there is no order_col */
    bool gone;           /* normalize: the key was deleted (the entry waits for reuse) */
    bool pending;        /* keep_first by time: the row is a candidate not yet emitted
                            (false with no row: the key's row was emitted) */
    uint64_t arrival;    /* pending: the candidate's arrival number */
    bool has_hash;       /* keep_first: row_hash holds the emitted row's hash (false for
                            keys restored from a version 1 or 2 snapshot) */
    uint64_t row_hash;   /* keep_first by time, emitted: the hash of the encoded row */
    uint32_t key_len;    /* encoded key bytes at bytes[0..key_len) */
    uint32_t row_len;    /* encoded row bytes at bytes[key_len..) */
    uint8_t *bytes;      /* key then row (owned) */
} sl__dd_entry;

typedef struct sl__dedup {
    int in_ncols;              /* input columns */
    int nkeys;                 /* partition keys */
    int *keys;                 /* their columns (owned copy) */
    int order_col;             /* ordering column, -1 = none */
    bool keep_first;           /* first row or last row */
    bool normalize;            /* ChangelogNormalize (see above) */
    int ngone;                 /* normalize: entries whose key was deleted */
    int64_t ttl_ns;            /* retention in ns; 0 = forever */
    int64_t (*now)(void *ctx); /* clock */
    void *now_ctx;             /* for now */
    int64_t next_sweep;        /* no TTL sweep before this time */
    sl_type *out_types;        /* input types + BIGINT NOT NULL */
    sl_type *in_types;         /* input types (owned copy) */
    sl__dd_entry *ents;        /* entries (dense; removal compacts) */
    int nents;                 /* entries in use */
    int cap;                   /* entries allocated */
    int32_t *slots;            /* hash table: entry index or -1 */
    size_t nslots;             /* table size (power of two) */
    uint64_t next_seq;         /* next first-seen sequence number */
    uint64_t next_arrival;     /* next candidate arrival number */
    sl_strbuf kbuf;            /* scratch: encoded key */
    sl_strbuf rbuf;            /* scratch: encoded row */
    sl_chunk *out;             /* output buffer */
    sl_chunk *scratch;         /* one-row chunk for restore */
    bool by_time;              /* keep_first by event time (waits for the watermark) */
    int64_t wm;                /* watermark reached (INT64_MIN: none yet) */
    int64_t late;              /* rows dropped as behind the watermark */
    int npending;              /* entries holding a candidate */
    struct sl__dd_timer *heap; /* candidates by (time, arrival): a binary min-heap */
    size_t nheap;              /* heap items (stale ones included) */
    size_t heapcap;            /* heap items allocated */
    int64_t conflicts;         /* keep_first: conflicts found over the state's life */
    char **names;              /* input column names (owned) */
    char *job;                 /* the job's name, for conflict rows (owned) */
    char *op_name;             /* the operator's name in logs and conflict rows (owned) */
    bool keep_rows;            /* keep_first by time: emitted rows are kept whole */
    const sl_emit *side;       /* during process: its conflicts' side output, or NULL */
    sl_chunk *side_out;        /* conflict rows waiting for the side output (lazy) */
    sl_type side_types[SL_DEDUP_CONFLICT_NCOLS]; /* their types */
    bool *ignore;              /* per input column: left out of the comparison and of
                                  the conflict's JSON (spec->ignore; owned; NULL = none) */
    int *shown;                /* with ignore: the other columns (owned) */
    int nshown;                /* how many */
    sl_strbuf cbuf;            /* with ignore: scratch for the compared columns */
    uint64_t rhash;            /* with ignore: sl__cmp_hash of the row in rbuf */
    bool quiet;                /* spec->quiet: conflicts are a twin's to report */
    bool no_before;            /* keep last without -U: entries keep their key and time,
                                  not their row (mode 3) */
} sl__dedup;

/* A candidate waiting for the watermark. Stale when its entry's arrival
** number differs (the candidate was replaced, or emitted). */
typedef struct sl__dd_timer {
    int64_t time;     /* the candidate's event time */
    uint64_t arrival; /* its arrival number */
    int32_t idx;      /* its entry */
} sl__dd_timer;

static int64_t sl__real_now(void *ctx)
{
    (void)ctx;
    return sl_now_nanos();
}


/* ---- the key table ----------------------------------------------------- */

static void sl__key_encode(sl__dedup *d, const sl_chunk *c, int r)
{
    sl_strbuf_reset(&d->kbuf);
    for (int k = 0; k < d->nkeys; k++)
        sl_value_put(&d->kbuf, c, d->keys[k], r);
}

/* The hash a conflict check compares, of row r of c: every column but the
** ignored ones (with d->ignore only: without, the encoded row is compared). */
static uint64_t sl__cmp_hash(sl__dedup *d, const sl_chunk *c, int r)
{
    sl_strbuf_reset(&d->cbuf);
    for (int i = 0; i < d->nshown; i++)
        sl_value_put(&d->cbuf, c, d->shown[i], r);
    return sl_hash_bytes(d->cbuf.buf, d->cbuf.len, SL_HASH_INIT);
}

static void sl__row_encode(sl__dedup *d, const sl_chunk *c, int r)
{
    sl_strbuf_reset(&d->rbuf);
    sl_row_put_cols(&d->rbuf, c, 0, d->in_ncols, r);
    if (d->ignore)
        d->rhash = sl__cmp_hash(d, c, r);
}

/* The entry of the key in d->kbuf (hash h), or -1. */
static int sl__lookup(const sl__dedup *d, uint64_t h)
{
    if (!d->nslots)
        return -1;
    const char *k = d->kbuf.buf ? d->kbuf.buf : "";
    for (size_t i = h & (d->nslots - 1);; i = (i + 1) & (d->nslots - 1)) {
        int32_t e = d->slots[i];
        if (e < 0)
            return -1;
        const sl__dd_entry *en = &d->ents[e];
        if (en->hash == h && en->key_len == d->kbuf.len && memcmp(en->bytes, k, en->key_len) == 0)
            return e;
    }
}

static void sl__slot_put(sl__dedup *d, int e)
{
    for (size_t i = d->ents[e].hash & (d->nslots - 1);; i = (i + 1) & (d->nslots - 1))
        if (d->slots[i] < 0) {
            d->slots[i] = e;
            return;
        }
}

/* Rebuild the hash table for the current entries (size >= 2 x entries). */
static void sl__rehash(sl__dedup *d, size_t want)
{
    size_t n = 16;
    while (n < want * 2)
        n *= 2;
    sl_free(d->slots);
    d->slots = sl_malloc(n * sizeof *d->slots);
    for (size_t i = 0; i < n; i++)
        d->slots[i] = -1;
    d->nslots = n;
    for (int e = 0; e < d->nents; e++)
        sl__slot_put(d, e);
}

/* Set entry en's row to the encoded row in d->rbuf, from row r of c. */
/* Entry en's time: row r of c's order column. */
static void sl__entry_set_order(sl__dedup *d, sl__dd_entry *en, const sl_chunk *c, int r)
{
    en->order_null = d->order_col < 0 || c->cols[d->order_col].nulls[r];
    en->order_val = en->order_null ? 0 : c->cols[d->order_col].v.i64[r];
}

static void sl__entry_set_row(sl__dedup *d, sl__dd_entry *en, const sl_chunk *c, int r)
{
    SL_ALWAYS(d->rbuf.len <= UINT32_MAX);
    en->bytes = sl_realloc(en->bytes, (size_t)en->key_len + d->rbuf.len + 1);
    if (d->rbuf.len)
        memcpy(en->bytes + en->key_len, d->rbuf.buf, d->rbuf.len);
    en->row_len = (uint32_t)d->rbuf.len;
    sl__entry_set_order(d, en, c, r);
}

/* Drop entry en's row, keeping its key. */
static void sl__entry_drop_row(sl__dd_entry *en)
{
    en->bytes = sl_realloc(en->bytes, (size_t)en->key_len + 1);
    en->row_len = 0;
    en->order_null = true;
    en->order_val = 0;
}

/* Add a new entry, without a row, for the key in d->kbuf (hash h); returns
** its index. */
static int sl__insert(sl__dedup *d, uint64_t h, int64_t now)
{
    if (d->nents == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 64;
        d->ents = sl_realloc(d->ents, (size_t)d->cap * sizeof *d->ents);
    }
    if ((size_t)(d->nents + 1) * 2 > d->nslots)
        sl__rehash(d, (size_t)d->nents + 1);
    SL_ALWAYS(d->kbuf.len <= UINT32_MAX);
    int e = d->nents++;
    sl__dd_entry *en = &d->ents[e];
    memset(en, 0, sizeof *en);
    en->hash = h;
    en->seq = d->next_seq++;
    en->written = now;
    en->key_len = (uint32_t)d->kbuf.len;
    en->bytes = sl_malloc((size_t)en->key_len + 1);
    if (en->key_len)
        memcpy(en->bytes, d->kbuf.buf, en->key_len);
    en->order_null = true;
    sl__slot_put(d, e);
    return e;
}

/* Whether the entry's TTL ran out (a candidate waiting for the watermark
** never expires). */
static bool sl__expired(const sl__dedup *d, const sl__dd_entry *en, int64_t now)
{
    return d->ttl_ns > 0 && !en->pending && now - en->written >= d->ttl_ns;
}

/* Whether an entry holds no row: expired, or its key deleted. */
static bool sl__absent(const sl__dedup *d, const sl__dd_entry *en, int64_t now)
{
    return en->gone || sl__expired(d, en, now);
}

/* ---- the candidates' heap ---------------------------------------------- */

static bool sl__timer_less(const sl__dd_timer *a, const sl__dd_timer *b)
{
    return a->time < b->time || (a->time == b->time && a->arrival < b->arrival);
}

static void sl__heap_push(sl__dedup *d, int64_t time, uint64_t arrival, int idx)
{
    if (d->nheap == d->heapcap) {
        d->heapcap = d->heapcap ? d->heapcap * 2 : 64;
        d->heap = sl_realloc(d->heap, d->heapcap * sizeof *d->heap);
    }
    size_t i = d->nheap++;
    sl__dd_timer t = {time, arrival, idx};
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!sl__timer_less(&t, &d->heap[parent]))
            break;
        d->heap[i] = d->heap[parent];
        i = parent;
    }
    d->heap[i] = t;
}

/* Remove the smallest item (the heap is not empty). */
static void sl__heap_pop(sl__dedup *d)
{
    sl__dd_timer t = d->heap[--d->nheap];
    size_t i = 0, n = d->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && sl__timer_less(&d->heap[c + 1], &d->heap[c]))
            c++;
        if (!sl__timer_less(&d->heap[c], &t))
            break;
        d->heap[i] = d->heap[c];
        i = c;
    }
    if (n)
        d->heap[i] = t;
}

/* Rebuild the heap from the entries' candidates (entry indices changed, or
** stale items outnumber live ones). */
static void sl__heap_rebuild(sl__dedup *d)
{
    d->nheap = 0;
    for (int e = 0; e < d->nents; e++)
        if (d->ents[e].pending)
            sl__heap_push(d, d->ents[e].order_val, d->ents[e].arrival, e);
}

/* Drop every absent entry (compacting, order kept) and rebuild the table. */
static void sl__sweep(sl__dedup *d, int64_t now)
{
    int w = 0;
    for (int e = 0; e < d->nents; e++) {
        if (sl__absent(d, &d->ents[e], now))
            sl_free(d->ents[e].bytes);
        else
            d->ents[w++] = d->ents[e];
    }
    d->ngone = 0;
    if (w != d->nents) {
        d->nents = w;
        sl__rehash(d, (size_t)w);
        sl__heap_rebuild(d);
    }
}

static void sl__clear(sl__dedup *d)
{
    for (int e = 0; e < d->nents; e++)
        sl_free(d->ents[e].bytes);
    d->nents = 0;
    d->ngone = 0;
    d->next_seq = 0;
    d->next_arrival = 0;
    d->npending = 0;
    d->nheap = 0;
    d->wm = INT64_MIN;
    d->late = 0;
    d->conflicts = 0;
    sl_free(d->slots);
    d->slots = NULL;
    d->nslots = 0;
}

/* ---- processing -------------------------------------------------------- */

/* Make room for two more output rows, flushing the output buffer. */
static int sl__room(sl__dedup *d, const sl_emit *out, sl_error *err)
{
    if (d->out->cap - d->out->nrows >= 2)
        return 0;
    int rc = out->fn(out->ctx, d->out, err);
    sl_chunk_reset(d->out);
    return rc;
}

/* Emit what is left in the output buffer. */
static int sl__flush(sl__dedup *d, const sl_emit *out, sl_error *err)
{
    int rc = d->out->nrows > 0 ? out->fn(out->ctx, d->out, err) : 0;
    sl_chunk_reset(d->out);
    return rc;
}

/* Append row r of c to the output as kind k (+ row number 1). */
static void sl__out_input_row(sl__dedup *d, const sl_chunk *c, int r, sl_row_kind k)
{
    sl_chunk *o = d->out;
    int x = sl_chunk_append_row(o, k);
    for (int col = 0; col < d->in_ncols; col++) {
        const sl_vector *v = &c->cols[col];
        if (v->nulls[r])
            continue;
        switch (v->phys) {
        case SL_PHYS_BOOL: sl_chunk_set_bool(o, col, x, v->v.b[r]); break;
        case SL_PHYS_I64: sl_chunk_set_i64(o, col, x, v->v.i64[r]); break;
        case SL_PHYS_F64: sl_chunk_set_f64(o, col, x, v->v.f64[r]); break;
        case SL_PHYS_I128: sl_chunk_set_i128(o, col, x, v->v.i128[r]); break;
        case SL_PHYS_STR: sl_chunk_set_str(o, col, x, v->v.str[r].ptr, v->v.str[r].len); break;
        }
    }
    if (!d->normalize)
        sl_chunk_set_i64(o, d->in_ncols, x, 1);
}

/* Append the kept row of entry en to the output as kind k. */
static void sl__out_kept_row(sl__dedup *d, const sl__dd_entry *en, sl_row_kind k)
{
    sl_chunk *o = d->out;
    int x = sl_chunk_append_row(o, k);
    sl_bytes_reader c = {en->bytes + en->key_len, en->row_len, 0};
    bool ok = sl_row_get_cols(&c, o, 0, d->in_ncols, x);
    SL_ALWAYS(ok && c.off == c.n);
    if (!d->normalize)
        sl_chunk_set_i64(o, d->in_ncols, x, 1);
}

/* ---- conflicts --------------------------------------------------------- */

const char *const sl_dedup_conflict_names[SL_DEDUP_CONFLICT_NCOLS] = {
    "job", "operator", "conflict_key", "stored_row", "conflicting_row", "event_time", "arrived_at",
};

void sl_dedup_conflict_types(sl_type *types)
{
    for (int i = 0; i < SL_DEDUP_CONFLICT_NCOLS; i++)
        types[i] = sl_type_make(SL_TYPE_VARCHAR);
    types[5] = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    types[6] = sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, 3, 0);
}

/* ns truncated to whole milliseconds (toward the past): TIMESTAMP(3). */
static int64_t sl__to_millis(int64_t ns)
{
    int64_t m = ns % SL_NANOS_PER_MILLI;
    return ns - (m < 0 ? m + SL_NANOS_PER_MILLI : m);
}

/* The kept row of entry en decoded into d->scratch (row 0). */
static const sl_chunk *sl__entry_row(sl__dedup *d, const sl__dd_entry *en)
{
    sl_chunk_reset(d->scratch);
    int x = sl_chunk_append_row(d->scratch, SL_ROW_INSERT);
    sl_bytes_reader c = {en->bytes + en->key_len, en->row_len, 0};
    bool ok = sl_row_get_cols(&c, d->scratch, 0, d->in_ncols, x);
    SL_ALWAYS(ok && c.off == c.n);
    return d->scratch;
}

/* Whether the row in d->rbuf equals entry en's kept row: its bytes when the
** entry holds them, else its hash; true when neither is known (a key
** restored from an old snapshot: nothing to compare with). */
static bool sl__same_row(sl__dedup *d, const sl__dd_entry *en)
{
    if (d->ignore) { /* the compared columns' hashes */
        if (en->row_len > 0)
            return sl__cmp_hash(d, sl__entry_row(d, en), 0) == d->rhash;
        return !en->has_hash || en->row_hash == d->rhash;
    }
    if (en->row_len > 0)
        return en->row_len == d->rbuf.len &&
               memcmp(en->bytes + en->key_len, d->rbuf.buf ? d->rbuf.buf : "", en->row_len) == 0;
    if (!en->has_hash)
        return true;
    return sl_hash_bytes(d->rbuf.buf, d->rbuf.len, SL_HASH_INIT) == en->row_hash;
}

/* A conflict: row cr of c (not kept) differs from the key's kept row
** (row sr of st; st NULL when only its hash is kept). Counted, logged and,
** with a side output, recorded in the canonical layout. */
static int sl__conflict(sl__dedup *d, const sl_chunk *st, int sr, const sl_chunk *c, int cr,
                        int64_t now, sl_error *err)
{
    const char *const *names = (const char *const *)d->names;
    if (d->quiet)
        return 0;
    sl_strbuf key = SL_STRBUF_INIT, row = SL_STRBUF_INIT, kept = SL_STRBUF_INIT;
    d->conflicts++;
    sl_strbuf_append_char(&key, '(');
    for (int k = 0; k < d->nkeys; k++)
        sl_strbuf_appendf(&key, "%s%s", k ? ", " : "", names[d->keys[k]]);
    sl_strbuf_append(&key, ")=(");
    for (int k = 0; k < d->nkeys; k++) {
        if (k)
            sl_strbuf_append(&key, ", ");
        if (!sl_value_format(&key, &c->cols[d->keys[k]], cr))
            sl_strbuf_append(&key, "null");
    }
    sl_strbuf_append_char(&key, ')');
    sl_json_row(&row, c, cr, d->nshown, d->shown, names);
    if (st)
        sl_json_row(&kept, st, sr, d->nshown, d->shown, names);
    /* Information, not a warning: a keep-first by a key that is no business
    ** key (the first order per customer) makes conflicts by design. A server
    ** logs information; the count is in SHOW JOBS either way. */
    sl_log(SL_LOG_INFO,
           "%s%s%s%s: conflict: Key %s is kept with other values; the row %s was dropped "
           "(kept: %s)",
           d->op_name, *d->job ? " of job \"" : "", d->job, *d->job ? "\"" : "",
           sl_strbuf_cstr(&key), sl_strbuf_cstr(&row),
           st ? sl_strbuf_cstr(&kept) : "a row whose values are not kept, only their hash");
    int rc = 0;
    if (d->side) {
        if (!d->side_out)
            d->side_out = sl_chunk_new(SL_DEDUP_CONFLICT_NCOLS, d->side_types, SL_CHUNK_ROWS);
        if (sl_chunk_full(d->side_out)) {
            rc = d->side->fn(d->side->ctx, d->side_out, err);
            sl_chunk_reset(d->side_out);
        }
        if (rc == 0) {
            sl_chunk *o = d->side_out;
            int x = sl_chunk_append_row(o, SL_ROW_INSERT);
            sl_chunk_set_str(o, 0, x, d->job, strlen(d->job));
            sl_chunk_set_str(o, 1, x, d->op_name, strlen(d->op_name));
            sl_strbuf_reset(&key);
            sl_json_row(&key, c, cr, d->nkeys, d->keys, names);
            sl_chunk_set_str(o, 2, x, key.buf ? key.buf : "", key.len);
            if (st)
                sl_chunk_set_str(o, 3, x, kept.buf, kept.len);
            sl_chunk_set_str(o, 4, x, row.buf, row.len);
            if (d->order_col >= 0 && !c->cols[d->order_col].nulls[cr])
                sl_chunk_set_i64(o, 5, x, sl__to_millis(c->cols[d->order_col].v.i64[cr]));
            sl_chunk_set_i64(o, 6, x, sl__to_millis(now));
        }
    }
    sl_strbuf_free(&key);
    sl_strbuf_free(&row);
    sl_strbuf_free(&kept);
    return rc;
}

/* Hand the conflict rows collected to the side output. */
static int sl__side_flush(sl__dedup *d, sl_error *err)
{
    if (!d->side || !d->side_out || d->side_out->nrows == 0)
        return 0;
    int rc = d->side->fn(d->side->ctx, d->side_out, err);
    sl_chunk_reset(d->side_out);
    return rc;
}

/* A later row (r of in, encoded in d->rbuf) of a key whose row entry en
** keeps (emitted, or the candidate): a conflict when it differs. */
static int sl__compare_kept(sl__dedup *d, const sl__dd_entry *en, const sl_chunk *in, int r,
                            int64_t now, sl_error *err)
{
    if (sl__same_row(d, en))
        return 0; /* an identical duplicate: silent */
    const sl_chunk *st = en->row_len > 0 ? sl__entry_row(d, en) : NULL;
    return sl__conflict(d, st, 0, in, r, now, err);
}

/* normalize: one row of an upsert changelog. */
static void sl__normalize_row(sl__dedup *d, const sl_chunk *in, int r, int64_t now)
{
    sl_row_kind kind = (sl_row_kind)in->kinds[r];
    if (kind == SL_ROW_UPDATE_BEFORE)
        return; /* an upsert changelog says the new row only */
    sl__key_encode(d, in, r);
    uint64_t h = sl_checksum(d->kbuf.buf, d->kbuf.len); /* in memory only */
    int e = sl__lookup(d, h);
    sl__dd_entry *en = e >= 0 ? &d->ents[e] : NULL;
    bool kept = en && !sl__absent(d, en, now);
    if (kind == SL_ROW_DELETE) {
        if (kept) {
            sl__out_kept_row(d, en, SL_ROW_DELETE);
            en->gone = true;
            d->ngone++;
        }
        return;
    }
    sl__row_encode(d, in, r);
    if (kept && en->row_len == d->rbuf.len &&
        memcmp(en->bytes + en->key_len, d->rbuf.buf ? d->rbuf.buf : "", en->row_len) == 0) {
        en->written = now; /* the same row again: nothing changed */
        return;
    }
    if (kept) {
        sl__out_kept_row(d, en, SL_ROW_UPDATE_BEFORE);
        sl__out_input_row(d, in, r, SL_ROW_UPDATE_AFTER);
    } else {
        sl__out_input_row(d, in, r, SL_ROW_INSERT);
    }
    if (!en) {
        e = sl__insert(d, h, now);
        sl__entry_set_row(d, &d->ents[e], in, r);
        return;
    }
    if (en->gone) { /* the key is back */
        en->gone = false;
        d->ngone--;
    }
    if (!kept)
        en->seq = d->next_seq++; /* first seen again */
    sl__entry_set_row(d, en, in, r);
    en->written = now;
}

/* keep_first by event time: one row (see the header). Emits nothing but
** conflicts. */
static int sl__first_by_time_row(const sl_operator *op, sl__dedup *d, const sl_chunk *in, int r,
                                 int64_t now, sl_error *err)
{
    const sl_vector *tv = &in->cols[d->order_col];
    if (tv->nulls[r])
        return 0; /* cannot be ordered */
    int64_t t = tv->v.i64[r];
    if (t < d->wm) {
        d->late++; /* late, whether or not it differs; kept with a late-rows table */
        return sl_late_row_cols(op, (const char *const *)d->names, in, r, d->nshown, d->shown,
                                t, d->wm, false, 0, 0, err);
    }
    sl__key_encode(d, in, r);
    uint64_t h = sl_checksum(d->kbuf.buf, d->kbuf.len); /* in memory only */
    int e = sl__lookup(d, h);
    sl__row_encode(d, in, r);
    if (e < 0) {
        e = sl__insert(d, h, now);
    } else {
        sl__dd_entry *en = &d->ents[e];
        if (sl__expired(d, en, now)) {
            en->seq = d->next_seq++; /* forgotten: first seen again */
            en->has_hash = false;
        } else if (!en->pending || t >= en->order_val) {
            /* emitted already, or not earlier than the candidate */
            return sl__compare_kept(d, en, in, r, now, err);
        } else if (!sl__same_row(d, en)) {
            /* An earlier row replaces the candidate, which is not kept. */
            if (sl__conflict(d, in, r, sl__entry_row(d, en), 0, now, err) != 0)
                return -1;
        }
    }
    sl__dd_entry *en = &d->ents[e];
    sl__entry_set_row(d, en, in, r);
    if (!en->pending)
        d->npending++;
    en->pending = true;
    en->arrival = d->next_arrival++;
    sl__heap_push(d, t, en->arrival, e);
    return 0;
}

static int sl__dedup_process(sl_operator *op, const sl_chunk *in, const sl_emit *out,
                             sl_error *err)
{
    sl__dedup *d = op->impl;
    SL_ALWAYS(in->ncols == d->in_ncols);
    int64_t now = d->now(d->now_ctx);
    d->side = op->side[SL_SIDE_CONFLICTS].fn ? &op->side[SL_SIDE_CONFLICTS] : NULL;
    if (d->ttl_ns > 0 && now >= d->next_sweep) {
        sl__sweep(d, now);
        d->next_sweep = now + d->ttl_ns;
    }
    if (d->normalize) {
        sl_chunk_reset(d->out);
        for (int r = 0; r < in->nrows; r++) {
            if (sl__room(d, out, err) != 0)
                return -1;
            sl__normalize_row(d, in, r, now);
        }
        if (d->ngone > 1024 && d->ngone > d->nents / 2)
            sl__sweep(d, now);
        return sl__flush(d, out, err);
    }
    for (int r = 0; r < in->nrows; r++) /* reject the chunk before any state changes */
        if (in->kinds[r] != SL_ROW_INSERT)
            return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                "deduplication needs an append-only input, but got a %s row",
                                sl_row_kind_name((sl_row_kind)in->kinds[r]));
    if (d->by_time) {
        for (int r = 0; r < in->nrows; r++)
            if (sl__first_by_time_row(op, d, in, r, now, err) != 0)
                return -1;
        return sl__side_flush(d, err);
    }
    sl_chunk_reset(d->out);
    for (int r = 0; r < in->nrows; r++) {
        sl__key_encode(d, in, r);
        uint64_t h = sl_checksum(d->kbuf.buf, d->kbuf.len); /* in memory only */
        int e = sl__lookup(d, h);
        if (sl__room(d, out, err) != 0)
            return -1;
        if (e >= 0 && sl__expired(d, &d->ents[e], now)) {
            /* Forgotten: a new first row for the key, first seen now. */
            sl__dd_entry *en = &d->ents[e];
            if (d->no_before) {
                sl__entry_set_order(d, en, in, r);
            } else {
                sl__row_encode(d, in, r);
                sl__entry_set_row(d, en, in, r);
            }
            en->seq = d->next_seq++;
            en->written = now;
            sl__out_input_row(d, in, r, SL_ROW_INSERT);
            continue;
        }
        if (e < 0) {
            if (!d->no_before)
                sl__row_encode(d, in, r);
            e = sl__insert(d, h, now);
            if (d->no_before)
                sl__entry_set_order(d, &d->ents[e], in, r);
            else
                sl__entry_set_row(d, &d->ents[e], in, r);
            sl__out_input_row(d, in, r, SL_ROW_INSERT);
            continue;
        }
        if (d->keep_first) { /* a later row of a key already emitted */
            sl__row_encode(d, in, r);
            if (sl__compare_kept(d, &d->ents[e], in, r, now, err) != 0)
                return -1;
            continue;
        }
        sl__dd_entry *en = &d->ents[e];
        if (d->order_col >= 0 && !en->order_null && !in->cols[d->order_col].nulls[r] &&
            in->cols[d->order_col].v.i64[r] < en->order_val)
            continue; /* older than the kept row: out of order, dropped */
        if (d->no_before) {
            sl__out_input_row(d, in, r, SL_ROW_UPDATE_AFTER);
            sl__entry_set_order(d, en, in, r);
            en->written = now;
            continue;
        }
        sl__out_kept_row(d, en, SL_ROW_UPDATE_BEFORE);
        sl__out_input_row(d, in, r, SL_ROW_UPDATE_AFTER);
        sl__row_encode(d, in, r);
        sl__entry_set_row(d, en, in, r);
        en->written = now;
    }
    if (sl__side_flush(d, err) != 0)
        return -1;
    return sl__flush(d, out, err);
}

/* Event time reached wm: keep_first by time emits every candidate whose
** time is at or before it, in order of time, then arrival. */
static int sl__dedup_watermark(sl_operator *op, int64_t wm, const sl_emit *out, sl_error *err)
{
    sl__dedup *d = op->impl;
    if (wm > d->wm)
        d->wm = wm;
    if (!d->by_time || d->nheap == 0 || d->heap[0].time > d->wm)
        return 0;
    int64_t now = d->now(d->now_ctx);
    sl_chunk_reset(d->out);
    while (d->nheap > 0 && d->heap[0].time <= d->wm) {
        sl__dd_timer t = d->heap[0];
        sl__heap_pop(d);
        sl__dd_entry *en = &d->ents[t.idx];
        if (!en->pending || en->arrival != t.arrival)
            continue; /* stale: replaced by an earlier row */
        if (sl__room(d, out, err) != 0)
            return -1;
        sl__out_kept_row(d, en, SL_ROW_INSERT);
        en->pending = false;
        en->written = now;
        en->row_hash = d->ignore ? sl__cmp_hash(d, sl__entry_row(d, en), 0)
                                 : sl_hash_bytes(en->bytes + en->key_len, en->row_len,
                                                 SL_HASH_INIT);
        en->has_hash = true;
        if (!d->keep_rows)
            sl__entry_drop_row(en);
        d->npending--;
    }
    if (d->nheap > 1024 && d->nheap > 2 * (size_t)d->npending)
        sl__heap_rebuild(d);
    return sl__flush(d, out, err);
}

static int64_t sl__dedup_late_rows(sl_operator *op)
{
    return ((sl__dedup *)op->impl)->late;
}

static int64_t sl__dedup_conflicts(sl_operator *op)
{
    return ((sl__dedup *)op->impl)->conflicts;
}

/* ---- snapshot / restore ------------------------------------------------ */

/* Version 4 is version 3 checksummed with XXH3 (sl_checksum) instead of
** byte-at-a-time FNV-1a (sl_hash_bytes); 1 to 3 still restore. A kept row's
** hash (SL__KIND_EMITTED_HASH) stays FNV-1a in every version. */
static const char sl__magic[8] = {'S', 'L', 'D', 'E', 'D', 'U', 'P', '4'};
static const char sl__magic_v3[8] = {'S', 'L', 'D', 'E', 'D', 'U', 'P', '3'};
static const char sl__magic_v2[8] = {'S', 'L', 'D', 'E', 'D', 'U', 'P', '2'};
static const char sl__magic_v1[8] = {'S', 'L', 'D', 'E', 'D', 'U', 'P', '1'};

enum {
    SL__KIND_KEPT = 0,         /* a kept row (keep_last, normalize, keep_first by arrival) */
    SL__KIND_PENDING = 1,      /* a candidate waiting for the watermark */
    SL__KIND_EMITTED = 2,      /* an emitted key, its row's hash unknown (version 2) */
    SL__KIND_EMITTED_HASH = 3, /* an emitted key and its row's hash */
    SL__KIND_EMITTED_ROW = 4,  /* an emitted row, kept whole */
};

typedef struct sl__seq_idx {
    uint64_t seq; /* first-seen sequence (or arrival number) */
    int idx;      /* entry index */
} sl__seq_idx;

static int sl__cmp_seq(const void *a, const void *b)
{
    uint64_t x = ((const sl__seq_idx *)a)->seq, y = ((const sl__seq_idx *)b)->seq;
    return x < y ? -1 : x > y;
}

static uint8_t sl__mode(const sl__dedup *d)
{
    return d->normalize ? 2 : d->keep_first ? 1 : d->no_before ? 3 : 0;
}

static int sl__dedup_snapshot(sl_operator *op, sl_strbuf *state, sl_error *err)
{
    (void)err;
    sl__dedup *d = op->impl;
    int64_t now = d->now(d->now_ctx);
    size_t start = state->len;
    sl_strbuf_append_n(state, sl__magic, sizeof sl__magic);
    sl_put_u32(state, (uint32_t)d->in_ncols);
    sl_put_u32(state, (uint32_t)d->nkeys);
    sl_strbuf_append_char(state, (char)sl__mode(d));
    for (int c = 0; c < d->in_ncols; c++)
        sl_strbuf_append_char(state, (char)sl_phys_of(d->in_types[c]));
    sl_put_u64(state, (uint64_t)d->wm);
    sl_put_u64(state, (uint64_t)d->late);
    sl_put_u64(state, (uint64_t)d->conflicts);
    /* The candidates' ranks by arrival, then live entries in first-seen order. */
    sl__seq_idx *idx = sl_malloc(((size_t)d->nents + 1) * sizeof *idx);
    uint64_t *rank = sl_malloc(((size_t)d->nents + 1) * sizeof *rank);
    int n = 0;
    for (int e = 0; e < d->nents; e++)
        if (d->ents[e].pending)
            idx[n++] = (sl__seq_idx){d->ents[e].arrival, e};
    qsort(idx, (size_t)n, sizeof *idx, sl__cmp_seq);
    for (int i = 0; i < n; i++)
        rank[idx[i].idx] = (uint64_t)i;
    n = 0;
    for (int e = 0; e < d->nents; e++)
        if (!sl__absent(d, &d->ents[e], now))
            idx[n++] = (sl__seq_idx){d->ents[e].seq, e};
    qsort(idx, (size_t)n, sizeof *idx, sl__cmp_seq);
    sl_put_u64(state, (uint64_t)n);
    for (int i = 0; i < n; i++) {
        const sl__dd_entry *en = &d->ents[idx[i].idx];
        bool emitted = d->by_time && !en->pending;
        int kind = en->pending                    ? SL__KIND_PENDING
                   : !emitted                     ? SL__KIND_KEPT
                   : en->row_len > 0              ? SL__KIND_EMITTED_ROW
                   : en->has_hash                 ? SL__KIND_EMITTED_HASH
                                                  : SL__KIND_EMITTED;
        sl_strbuf_append_char(state, (char)kind);
        sl_put_u64(state, (uint64_t)en->written);
        if (en->pending)
            sl_put_u64(state, rank[idx[i].idx]);
        if (kind == SL__KIND_EMITTED_HASH)
            sl_put_u64(state, en->row_hash);
        if (kind == SL__KIND_EMITTED || kind == SL__KIND_EMITTED_HASH || d->no_before) {
            sl_put_u32(state, en->key_len);
            sl_strbuf_append_n(state, (const char *)en->bytes, en->key_len);
            if (d->no_before) { /* mode 3: the key's time */
                sl_strbuf_append_char(state, (char)en->order_null);
                sl_put_u64(state, (uint64_t)en->order_val);
            }
        } else {
            sl_put_u32(state, en->row_len);
            sl_strbuf_append_n(state, (const char *)en->bytes + en->key_len, en->row_len);
        }
    }
    sl_free(idx);
    sl_free(rank);
    sl_put_u64(state, sl_checksum(state->buf + start, state->len - start));
    return 0;
}

static int sl__corrupt(sl__dedup *d, sl_error *err, const char *what)
{
    sl__clear(d);
    return sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                        "deduplication state is corrupt: %s", what);
}

/* Restore one entry of kind kind from the bytes at cursor c (len bytes: a
** row, or for SL__KIND_EMITTED(_HASH) a key; row_hash for the latter).
** NULL when it is fine, else what is wrong. */
static const char *sl__restore_entry(sl__dedup *d, sl_bytes_reader *c, int kind, uint32_t len,
                                     int64_t written, uint64_t arrival, uint64_t row_hash)
{
    bool key_only = kind == SL__KIND_EMITTED || kind == SL__KIND_EMITTED_HASH || d->no_before;
    if (len > c->n - c->off)
        return "truncated entry";
    sl_bytes_reader rc = {c->p + c->off, len, 0};
    c->off += len;
    uint8_t onull = 1;
    uint64_t oval = 0;
    if (d->no_before && (!sl_get_u8(c, &onull) || !sl_get_u64(c, &oval) || onull > 1 ||
                         (onull && oval)))
        return "truncated entry";
    sl_chunk_reset(d->scratch);
    int r = sl_chunk_append_row(d->scratch, SL_ROW_INSERT);
    if (key_only) {
        for (int k = 0; k < d->nkeys; k++)
            if (!sl_value_get(&rc, d->scratch, d->keys[k], r))
                return "malformed key";
    } else if (!sl_row_get_cols(&rc, d->scratch, 0, d->in_ncols, r)) {
        return "malformed row";
    }
    if (rc.off != rc.n)
        return key_only ? "malformed key" : "malformed row";
    sl__key_encode(d, d->scratch, r);
    if (key_only &&
        (d->kbuf.len != len || (len && memcmp(d->kbuf.buf, rc.p, len) != 0)))
        return "malformed key"; /* a key column given twice decodes, but differently */
    uint64_t h = sl_checksum(d->kbuf.buf, d->kbuf.len); /* in memory only */
    if (sl__lookup(d, h) >= 0)
        return "duplicate key";
    if (kind == SL__KIND_PENDING && d->scratch->cols[d->order_col].nulls[r])
        return "a waiting row without a time";
    int e = sl__insert(d, h, written);
    sl__dd_entry *en = &d->ents[e];
    if (d->no_before) {
        en->order_null = onull != 0 || d->order_col < 0;
        en->order_val = (int64_t)oval;
    }
    if (!key_only) {
        sl_strbuf_reset(&d->rbuf);
        sl_strbuf_append_n(&d->rbuf, (const char *)rc.p, len);
        sl__entry_set_row(d, en, d->scratch, r);
    }
    if (kind == SL__KIND_EMITTED_HASH) {
        en->row_hash = row_hash;
        en->has_hash = true;
    } else if (kind == SL__KIND_EMITTED_ROW) {
        en->row_hash = d->ignore ? sl__cmp_hash(d, d->scratch, r)
                                 : sl_hash_bytes(rc.p, len, SL_HASH_INIT);
        en->has_hash = true;
        if (!d->keep_rows)
            sl__entry_drop_row(en);
    }
    if (kind == SL__KIND_PENDING) {
        en->pending = true;
        en->arrival = arrival;
        d->npending++;
    }
    return NULL;
}

static int sl__dedup_restore(sl_operator *op, const char *state, size_t len, sl_error *err)
{
    sl__dedup *d = op->impl;
    sl__clear(d);
    sl_bytes_reader c = {(const uint8_t *)state, len, 0};
    if (len < sizeof sl__magic + 8)
        return sl__corrupt(d, err, "truncated");
    uint64_t sum;
    sl_bytes_reader tail = {(const uint8_t *)state, len, len - 8};
    sl_get_u64(&tail, &sum);
    bool v4 = memcmp(state, sl__magic, sizeof sl__magic) == 0;
    if (sum != (v4 ? sl_checksum(state, len - 8) : sl_hash_bytes(state, len - 8, SL_HASH_INIT)))
        return sl__corrupt(d, err, "checksum mismatch");
    c.n = len - 8; /* the body */
    char magic[sizeof sl__magic];
    uint32_t ncols, nkeys;
    uint8_t mode;
    if (!sl_get_bytes(&c, magic, sizeof magic))
        return sl__corrupt(d, err, "not a deduplication state");
    bool v1 = memcmp(magic, sl__magic_v1, sizeof magic) == 0;
    bool v2 = memcmp(magic, sl__magic_v2, sizeof magic) == 0;
    if (!v1 && !v2 && !v4 && memcmp(magic, sl__magic_v3, sizeof magic) != 0)
        return sl__corrupt(d, err, "not a deduplication state");
    if (!sl_get_u32(&c, &ncols) || !sl_get_u32(&c, &nkeys) || !sl_get_u8(&c, &mode))
        return sl__corrupt(d, err, "truncated header");
    if (ncols != (uint32_t)d->in_ncols || nkeys != (uint32_t)d->nkeys || mode != sl__mode(d))
        return sl__corrupt(d, err, "it belongs to a different deduplication");
    for (int col = 0; col < d->in_ncols; col++) {
        uint8_t p;
        if (!sl_get_u8(&c, &p))
            return sl__corrupt(d, err, "truncated header");
        if (p != (uint8_t)sl_phys_of(d->in_types[col]))
            return sl__corrupt(d, err, "column types differ");
    }
    uint64_t wm = (uint64_t)INT64_MIN, late = 0, conflicts = 0, count;
    if (!v1 && (!sl_get_u64(&c, &wm) || !sl_get_u64(&c, &late)))
        return sl__corrupt(d, err, "truncated header");
    if (!v1 && !v2 && !sl_get_u64(&c, &conflicts))
        return sl__corrupt(d, err, "truncated header");
    if ((int64_t)late < 0)
        return sl__corrupt(d, err, "negative late row count");
    if ((int64_t)conflicts < 0)
        return sl__corrupt(d, err, "negative conflict count");
    if (!sl_get_u64(&c, &count))
        return sl__corrupt(d, err, "truncated header");
    /* Each entry takes at least 12 (v1: + a flag byte per column) / 13 bytes
    ** (v2: + one per key column). */
    if (count > (c.n - c.off) / (v1   ? 12 + (uint64_t)d->in_ncols
                                 : v2 ? 13 + (uint64_t)d->nkeys
                                      : 13) ||
        count > INT32_MAX / 2)
        return sl__corrupt(d, err, "entry count exceeds the data");
    for (uint64_t i = 0; i < count; i++) {
        uint8_t kind = SL__KIND_KEPT;
        uint64_t written, arrival = 0, row_hash = 0;
        uint32_t rlen;
        if (!v1 && !sl_get_u8(&c, &kind))
            return sl__corrupt(d, err, "truncated entry");
        if (!sl_get_u64(&c, &written))
            return sl__corrupt(d, err, "truncated entry");
        if (kind == SL__KIND_PENDING && !sl_get_u64(&c, &arrival))
            return sl__corrupt(d, err, "truncated entry");
        if (kind == SL__KIND_EMITTED_HASH && !sl_get_u64(&c, &row_hash))
            return sl__corrupt(d, err, "truncated entry");
        if (!sl_get_u32(&c, &rlen))
            return sl__corrupt(d, err, "truncated entry");
        /* Kept rows belong to the modes without a watermark wait; a keep-first
        ** by time holds candidates and emitted keys (version 1: rows it emitted). */
        if (kind > (v1 || v2 ? SL__KIND_EMITTED : SL__KIND_EMITTED_ROW) ||
            (!v1 && (kind == SL__KIND_KEPT) == d->by_time))
            return sl__corrupt(d, err, "an entry of the wrong kind");
        if (arrival >= count)
            return sl__corrupt(d, err, "an arrival rank out of range");
        const char *bad =
            sl__restore_entry(d, &c, kind, rlen, (int64_t)written, arrival, row_hash);
        if (bad)
            return sl__corrupt(d, err, bad);
        if (v1 && d->by_time) /* version 1: the row was emitted on arrival */
            sl__entry_drop_row(&d->ents[d->nents - 1]);
    }
    if (c.off != c.n)
        return sl__corrupt(d, err, "trailing bytes");
    sl_chunk_reset(d->scratch);
    d->wm = (int64_t)wm;
    d->late = (int64_t)late;
    d->conflicts = (int64_t)conflicts;
    d->next_arrival = count; /* above every rank */
    sl__heap_rebuild(d);
    d->next_sweep = 0;
    return 0;
}

static void sl__dedup_free(sl_operator *op)
{
    if (!op)
        return;
    sl__dedup *d = op->impl;
    if (d) {
        sl__clear(d);
        sl_free(d->ents);
        sl_free(d->heap);
        sl_free(d->keys);
        sl_free(d->in_types);
        sl_free(d->out_types);
        for (int i = 0; i < d->in_ncols; i++)
            sl_free(d->names[i]);
        sl_free(d->names);
        sl_free(d->job);
        sl_free(d->op_name);
        sl_chunk_free(d->side_out);
        sl_strbuf_free(&d->kbuf);
        sl_strbuf_free(&d->rbuf);
        sl_strbuf_free(&d->cbuf);
        sl_free(d->ignore);
        sl_free(d->shown);
        sl_chunk_free(d->out);
        sl_chunk_free(d->scratch);
        sl_free(d);
    }
    sl_free(op);
}

static const sl_operator_ops sl__dedup_ops = {
    sl__dedup_process, sl__dedup_watermark,  sl__dedup_snapshot,
    sl__dedup_restore, sl__dedup_late_rows, sl__dedup_free, sl__dedup_conflicts,
    NULL, /* backend: hashmap */
};

int sl_dedup_new(const sl_dedup_spec *spec, sl_operator **out, sl_error *err)
{
    *out = NULL;
    if (spec->in_ncols < 0 || spec->nkeys < 0 || spec->ttl_ms < 0 ||
        spec->ttl_ms > INT64_MAX / SL_NANOS_PER_MILLI)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "invalid deduplication spec");
    for (int k = 0; k < spec->nkeys; k++)
        if (spec->keys[k] < 0 || spec->keys[k] >= spec->in_ncols)
            return sl_error_set(err, SL_ERR_INTERNAL, -1, "deduplication key %d out of range",
                                spec->keys[k]);
    if (spec->order_col >= spec->in_ncols ||
        (spec->order_col >= 0 && sl_phys_of(spec->in_types[spec->order_col]) != SL_PHYS_I64))
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "invalid deduplication order column");
    sl__dedup *d = sl_calloc(1, sizeof *d);
    d->in_ncols = spec->in_ncols;
    d->nkeys = spec->nkeys;
    d->keys = sl_malloc(((size_t)spec->nkeys + 1) * sizeof(int));
    if (spec->nkeys)
        memcpy(d->keys, spec->keys, (size_t)spec->nkeys * sizeof(int));
    d->order_col = spec->order_col < 0 ? -1 : spec->order_col;
    d->keep_first = spec->keep_first && !spec->normalize;
    d->normalize = spec->normalize;
    if (d->normalize)
        d->order_col = -1; /* arrival order */
    d->by_time = d->keep_first && d->order_col >= 0;
    d->wm = INT64_MIN;
    d->ttl_ns = spec->ttl_ms * SL_NANOS_PER_MILLI;
    d->now = spec->now ? spec->now : sl__real_now;
    d->now_ctx = spec->now_ctx;
    d->in_types = sl_calloc((size_t)spec->in_ncols + 1, sizeof(sl_type));
    d->out_types = sl_calloc((size_t)spec->in_ncols + 1, sizeof(sl_type));
    for (int i = 0; i < spec->in_ncols; i++)
        d->in_types[i] = d->out_types[i] = spec->in_types[i];
    sl_type rn = sl_type_make(SL_TYPE_BIGINT);
    rn.not_null = true;
    d->out_types[spec->in_ncols] = rn;
    int out_ncols = spec->in_ncols + (d->normalize ? 0 : 1);
    d->out = sl_chunk_new(out_ncols, d->out_types, SL_CHUNK_ROWS);
    d->scratch = sl_chunk_new(spec->in_ncols, d->in_types, 1);
    d->names = sl_calloc((size_t)spec->in_ncols + 1, sizeof *d->names);
    for (int i = 0; i < spec->in_ncols; i++)
        d->names[i] = spec->in_names ? sl_strdup(spec->in_names[i]) : sl_sprintf("c%d", i);
    d->job = sl_strdup(spec->job ? spec->job : "");
    d->op_name = sl_strdup(spec->op_name ? spec->op_name : "Deduplicate");
    d->keep_rows = spec->keep_rows && d->by_time;
    d->quiet = spec->quiet;
    d->no_before = spec->no_before && !d->keep_first && !d->normalize;
    d->shown = sl_calloc((size_t)spec->in_ncols + 1, sizeof(int));
    for (int i = 0; i < spec->in_ncols; i++) {
        if (spec->ignore && spec->ignore[i]) {
            if (!d->ignore)
                d->ignore = sl_calloc((size_t)spec->in_ncols, sizeof(bool));
            d->ignore[i] = true;
        } else {
            d->shown[d->nshown++] = i;
        }
    }
    sl_dedup_conflict_types(d->side_types);
    sl_operator *op = sl_calloc(1, sizeof *op);
    op->ops = &sl__dedup_ops;
    op->impl = d;
    op->out_ncols = out_ncols;
    op->out_types = d->out_types;
    *out = op;
    return 0;
}
