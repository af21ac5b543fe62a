/*
** op_order.c — ORDER BY / LIMIT / OFFSET of a job (see sl_exec.h,
** sl_order_spec): one task (the planner sends every row to it) that keeps
** the rows it must hold back and releases them in order.
**
**   SL_ORDER_END    a batch sort (Flink's BatchPhysicalSort / SortLimit):
**                   every row is held until the end of the input (the
**                   watermark INT64_MAX), then sorted (op_sort.c's stable
**                   sort: ties keep their arrival order) and emitted. An
**                   updating input is applied first: -U / -D remove the
**                   newest held row equal to it, so the result is the
**                   final table's rows, insert-only. The held rows are
**                   found by a hash of their bytes (a table of chains,
**                   newest first), so a retraction costs one lookup.
**   SL_ORDER_TIME   a temporal sort (streaming; Flink's
**                   StreamPhysicalTemporalSort, RowTimeSortOperator): the
**                   first key is the event time ascending. A row whose time
**                   is at or before the watermark (or NULL) is late:
**                   dropped and counted. When the watermark reaches a held
**                   row's time it is released: the released rows sorted by
**                   all the keys (time first).
**   SL_ORDER_PASS   LIMIT / OFFSET alone over an append-only input (Flink's
**                   streaming limit): rows pass through as they come.
**
** In every mode the emitted rows are counted: the first `offset` are
** skipped, and after `limit` more (limit >= 0) nothing is emitted again and
** nothing more is held. Output = the input columns, +I only.
**
** State (snapshot): a magic, the shape (mode, columns and their
** representations), the watermark, the rows counted and the late rows,
** then the held rows (rowcodec.c's layout) in arrival order, then a
** checksum of it all. A restored operator holds the same rows in the same
** order, so it emits exactly what the one that took the snapshot would.
**
** Main routines: sl_order_new and its process / watermark / snapshot /
** restore.
*/
#include "sl_exec.h"

#include <string.h>

typedef struct sl__order {
    sl_order_mode mode;   /* END, TIME or PASS */
    int ncols;            /* input (= output) columns */
    sl_type *types;       /* their types */
    int nkeys;            /* sort keys */
    sl_sort_key *keys;    /* them */
    int time_col;         /* TIME: the event-time column (keys[0].col) */
    int64_t offset;       /* rows to skip */
    int64_t limit;        /* rows to emit after them, -1 = all */
    int64_t counted;      /* rows emitted or skipped so far */
    int64_t late;         /* TIME: late rows dropped */
    int64_t wm;           /* the last watermark (TIME) */
    sl_chunk *held;       /* rows held back, in arrival order */
    uint8_t *dead;        /* END: held[i] was retracted (held->cap bytes) */
    int ndead;            /* rows marked dead */
    uint64_t *hashes;     /* END: hash of held[i]'s bytes (held->cap) */
    int *chain;           /* END: the previous held row in held[i]'s slot, -1 (held->cap) */
    int *slots;           /* END: the newest held row per slot, -1 = none */
    int nslots;           /* a power of two, >= 2 * held->cap */
    sl_strbuf a, b;       /* scratch: a row's bytes */
    sl_chunk *out;        /* emission buffer */
} sl__order;

static bool sl__done(const sl__order *o)
{
    return o->limit >= 0 && o->counted >= o->offset + o->limit;
}

static uint64_t sl__row_hash(sl__order *o, const sl_chunk *c, int r)
{
    sl_strbuf_reset(&o->a);
    sl_row_put(&o->a, c, r);
    return sl_hash_bytes(o->a.buf, o->a.len, SL_HASH_INIT);
}

/* Link held row i into its slot's chain (END mode). */
static void sl__link(sl__order *o, int i)
{
    int s = (int)(o->hashes[i] & (uint64_t)(o->nslots - 1));
    o->chain[i] = o->slots[s];
    o->slots[s] = i;
}

/* The table for the held rows' capacity, every held row linked. */
static void sl__rehash(sl__order *o)
{
    if (o->mode != SL_ORDER_END)
        return;
    o->hashes = sl_realloc(o->hashes, sizeof(uint64_t) * (size_t)o->held->cap);
    o->chain = sl_realloc(o->chain, sizeof(int) * (size_t)o->held->cap);
    int n = 1;
    while (n < 2 * o->held->cap)
        n *= 2;
    if (n != o->nslots) {
        o->nslots = n;
        o->slots = sl_realloc(o->slots, sizeof(int) * (size_t)n);
    }
    memset(o->slots, 0xff, sizeof(int) * (size_t)n);
    for (int i = 0; i < o->held->nrows; i++) {
        o->hashes[i] = sl__row_hash(o, o->held, i);
        sl__link(o, i);
    }
}

/* The newest live held row equal to row r of c, or -1 (END mode). */
static int sl__find(sl__order *o, const sl_chunk *c, int r)
{
    uint64_t h = sl__row_hash(o, c, r); /* its bytes stay in o->a */
    for (int i = o->slots[h & (uint64_t)(o->nslots - 1)]; i >= 0; i = o->chain[i]) {
        if (o->dead[i] || o->hashes[i] != h)
            continue;
        sl_strbuf_reset(&o->b);
        sl_row_put(&o->b, o->held, i);
        if (o->b.len == o->a.len && memcmp(o->b.buf, o->a.buf, o->a.len) == 0)
            return i;
    }
    return -1;
}

/* Room for n more held rows. */
static void sl__reserve(sl__order *o, int n)
{
    if (o->held->nrows + n <= o->held->cap)
        return;
    int cap = o->held->cap * 2;
    while (cap < o->held->nrows + n)
        cap *= 2;
    sl_chunk *c = sl_chunk_new(o->ncols, o->types, cap);
    int *all = sl_malloc(sizeof(int) * ((size_t)o->held->nrows + 1));
    for (int i = 0; i < o->held->nrows; i++)
        all[i] = i;
    sl_chunk_append_rows(c, o->held, all, o->held->nrows);
    sl_free(all);
    o->dead = sl_realloc(o->dead, (size_t)cap);
    memset(o->dead + o->held->nrows, 0, (size_t)(cap - o->held->nrows));
    sl_chunk_free(o->held);
    o->held = c;
    sl__rehash(o);
}

static int sl__flush(sl__order *o, const sl_emit *out, sl_error *err)
{
    if (o->out->nrows == 0)
        return 0;
    int rc = out->fn(out->ctx, o->out, err);
    sl_chunk_reset(o->out);
    return rc;
}

/* Emit row r of c (counted against OFFSET / LIMIT). */
static int sl__emit_row(sl__order *o, const sl_chunk *c, int r, const sl_emit *out, sl_error *err)
{
    if (sl__done(o))
        return 0;
    if (o->counted++ < o->offset)
        return 0;
    int k = sl_chunk_copy_row(o->out, c, r);
    o->out->kinds[k] = SL_ROW_INSERT;
    return sl_chunk_full(o->out) ? sl__flush(o, out, err) : 0;
}

/* The held rows keep[i] != 0 stay; the others go. */
static void sl__keep(sl__order *o, const uint8_t *keep)
{
    int n = 0;
    int *rows = sl_malloc(sizeof(int) * ((size_t)o->held->nrows + 1));
    for (int i = 0; i < o->held->nrows; i++)
        if (keep[i])
            rows[n++] = i;
    sl_chunk *c = sl_chunk_new(o->ncols, o->types, o->held->cap);
    sl_chunk_append_rows(c, o->held, rows, n);
    sl_free(rows);
    sl_chunk_free(o->held);
    o->held = c;
    memset(o->dead, 0, (size_t)c->cap);
    o->ndead = 0;
    sl__rehash(o);
}

/* Sort the held rows sel[i] != 0 and emit them; they are no longer held. */
static int sl__release(sl_operator *op, const uint8_t *sel, const sl_emit *out, sl_error *err)
{
    sl__order *o = op->impl;
    int n = 0;
    int *rows = sl_malloc(sizeof(int) * ((size_t)o->held->nrows + 1));
    for (int i = 0; i < o->held->nrows; i++)
        if (sel[i])
            rows[n++] = i;
    sl_chunk *c = sl_chunk_new(o->ncols, o->types, n ? n : 1);
    sl_chunk_append_rows(c, o->held, rows, n);
    int *perm = sl_malloc(sizeof(int) * ((size_t)n + 1));
    sl_sort_bounded(c, o->keys, o->nkeys, perm);
    int rc = 0;
    for (int i = 0; i < n && rc == 0 && !sl__done(o); i++) {
        if (i % SL_CHUNK_ROWS == 0 && sl_op_cancelled(op))
            rc = sl_op_cancel_error(err);
        else
            rc = sl__emit_row(o, c, perm[i], out, err);
    }
    if (rc == 0)
        rc = sl__flush(o, out, err);
    sl_free(perm);
    sl_chunk_free(c);
    uint8_t *keep = sl_malloc((size_t)o->held->nrows + 1);
    for (int i = 0; i < o->held->nrows; i++)
        keep[i] = !sel[i] && !o->dead[i] && !sl__done(o);
    sl__keep(o, keep);
    sl_free(keep);
    sl_free(rows);
    return rc;
}

static int sl__order_process(sl_operator *op, const sl_chunk *in, const sl_emit *out,
                             sl_error *err)
{
    sl__order *o = op->impl;
    if (sl__done(o))
        return 0;
    if (o->mode == SL_ORDER_PASS) {
        for (int r = 0; r < in->nrows; r++) {
            if (in->kinds[r] != SL_ROW_INSERT)
                return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                    "LIMIT without ORDER BY got an update (%s)",
                                    sl_row_kind_name((sl_row_kind)in->kinds[r]));
            if (sl__emit_row(o, in, r, out, err) != 0)
                return -1;
        }
        return sl__flush(o, out, err);
    }
    sl__reserve(o, in->nrows);
    for (int r = 0; r < in->nrows; r++) {
        sl_row_kind k = (sl_row_kind)in->kinds[r];
        if (o->mode == SL_ORDER_TIME) {
            const sl_vector *t = &in->cols[o->time_col];
            if (k != SL_ROW_INSERT)
                return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                    "a sort on event time got an update (%s)",
                                    sl_row_kind_name(k));
            if (t->nulls[r] || t->v.i64[r] <= o->wm) {
                o->late++;
                continue;
            }
        } else if (k == SL_ROW_UPDATE_BEFORE || k == SL_ROW_DELETE) {
            int i = sl__find(o, in, r);
            if (i >= 0) {
                o->dead[i] = 1;
                o->ndead++;
            }
            continue;
        }
        int h = sl_chunk_copy_row(o->held, in, r);
        o->held->kinds[h] = SL_ROW_INSERT;
        if (o->mode == SL_ORDER_END) {
            o->hashes[h] = sl__row_hash(o, o->held, h);
            sl__link(o, h);
        }
    }
    /* Retracted rows are dropped once they are most of what is held. */
    if (o->ndead > 64 && o->ndead * 2 > o->held->nrows) {
        uint8_t *keep = sl_malloc((size_t)o->held->nrows + 1);
        for (int i = 0; i < o->held->nrows; i++)
            keep[i] = !o->dead[i];
        sl__keep(o, keep);
        sl_free(keep);
    }
    return 0;
}

static int sl__order_watermark(sl_operator *op, int64_t wm, const sl_emit *out, sl_error *err)
{
    sl__order *o = op->impl;
    if (wm <= o->wm || o->mode == SL_ORDER_PASS) {
        o->wm = wm > o->wm ? wm : o->wm;
        return 0;
    }
    o->wm = wm;
    if (o->mode == SL_ORDER_END && wm != INT64_MAX)
        return 0;
    uint8_t *sel = sl_malloc((size_t)o->held->nrows + 1);
    int n = 0;
    for (int i = 0; i < o->held->nrows; i++) {
        sel[i] = o->mode == SL_ORDER_END ? !o->dead[i]
                                         : o->held->cols[o->time_col].v.i64[i] <= wm;
        n += sel[i];
    }
    int rc = n || o->ndead ? sl__release(op, sel, out, err) : 0;
    sl_free(sel);
    return rc;
}

/* ---- snapshot / restore ------------------------------------------------ */

static const char sl__magic[8] = {'S', 'L', 'O', 'R', 'D', 'E', 'R', '1'};

static int sl__order_snapshot(sl_operator *op, sl_strbuf *state, sl_error *err)
{
    (void)err;
    sl__order *o = op->impl;
    size_t start = state->len;
    sl_strbuf_append_n(state, sl__magic, sizeof sl__magic);
    sl_strbuf_append_char(state, (char)o->mode);
    sl_put_u32(state, (uint32_t)o->ncols);
    for (int c = 0; c < o->ncols; c++)
        sl_strbuf_append_char(state, (char)sl_phys_of(o->types[c]));
    sl_put_u64(state, (uint64_t)o->wm);
    sl_put_u64(state, (uint64_t)o->counted);
    sl_put_u64(state, (uint64_t)o->late);
    sl_put_u64(state, (uint64_t)(o->held->nrows - o->ndead));
    for (int i = 0; i < o->held->nrows; i++)
        if (!o->dead[i])
            sl_row_put(state, o->held, i);
    sl_put_u64(state, sl_hash_bytes(state->buf + start, state->len - start, SL_HASH_INIT));
    return 0;
}

static int sl__corrupt(sl__order *o, sl_error *err, const char *what)
{
    sl_chunk_reset(o->held);
    memset(o->dead, 0, (size_t)o->held->cap);
    o->ndead = 0;
    sl__rehash(o);
    return sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "sort state is corrupt: %s", what);
}

static int sl__order_restore(sl_operator *op, const char *state, size_t len, sl_error *err)
{
    sl__order *o = op->impl;
    sl_chunk_reset(o->held);
    memset(o->dead, 0, (size_t)o->held->cap);
    o->ndead = 0;
    sl__rehash(o);
    if (len < sizeof sl__magic + 8)
        return sl__corrupt(o, err, "truncated");
    uint64_t sum;
    sl_bytes_reader tail = {(const uint8_t *)state, len, len - 8};
    sl_get_u64(&tail, &sum);
    if (sum != sl_hash_bytes(state, len - 8, SL_HASH_INIT))
        return sl__corrupt(o, err, "checksum mismatch");
    sl_bytes_reader c = {(const uint8_t *)state, len - 8, 0};
    char magic[sizeof sl__magic];
    uint8_t mode;
    uint32_t ncols;
    if (!sl_get_bytes(&c, magic, sizeof magic) || memcmp(magic, sl__magic, sizeof magic) != 0)
        return sl__corrupt(o, err, "not a sort state");
    if (!sl_get_u8(&c, &mode) || !sl_get_u32(&c, &ncols))
        return sl__corrupt(o, err, "truncated header");
    if (mode != (uint8_t)o->mode || ncols != (uint32_t)o->ncols)
        return sl__corrupt(o, err, "it belongs to a different sort");
    for (int col = 0; col < o->ncols; col++) {
        uint8_t p;
        if (!sl_get_u8(&c, &p))
            return sl__corrupt(o, err, "truncated header");
        if (p != (uint8_t)sl_phys_of(o->types[col]))
            return sl__corrupt(o, err, "column types differ");
    }
    uint64_t wm, counted, late, n;
    if (!sl_get_u64(&c, &wm) || !sl_get_u64(&c, &counted) || !sl_get_u64(&c, &late) ||
        !sl_get_u64(&c, &n))
        return sl__corrupt(o, err, "truncated header");
    if ((int64_t)counted < 0 || (int64_t)late < 0 || n > c.n - c.off)
        return sl__corrupt(o, err, "impossible counts");
    for (uint64_t i = 0; i < n; i++) {
        sl__reserve(o, 1);
        int r = sl_chunk_append_row(o->held, SL_ROW_INSERT);
        if (!sl_row_get(&c, o->held, r))
            return sl__corrupt(o, err, "malformed row");
    }
    if (c.off != c.n)
        return sl__corrupt(o, err, "trailing bytes");
    sl__rehash(o);
    o->wm = (int64_t)wm;
    o->counted = (int64_t)counted;
    o->late = (int64_t)late;
    return 0;
}

static int64_t sl__order_late(sl_operator *op)
{
    return ((sl__order *)op->impl)->late;
}

static void sl__order_free(sl_operator *op)
{
    if (!op)
        return;
    sl__order *o = op->impl;
    sl_chunk_free(o->held);
    sl_chunk_free(o->out);
    sl_free(o->dead);
    sl_free(o->hashes);
    sl_free(o->chain);
    sl_free(o->slots);
    sl_strbuf_free(&o->a);
    sl_strbuf_free(&o->b);
    sl_free(o->keys);
    sl_free(o->types);
    sl_free(o);
    sl_free(op);
}

static const sl_operator_ops sl__order_ops = {
    sl__order_process, sl__order_watermark, sl__order_snapshot,
    sl__order_restore, sl__order_late,      sl__order_free,
    NULL, /* conflicts */
    NULL, /* backend: hashmap */
};

int sl_order_new(const sl_order_spec *spec, sl_operator **out, sl_error *err)
{
    if (spec->in_ncols < 0 || spec->nkeys < 0 || spec->offset < 0 ||
        (spec->mode == SL_ORDER_TIME &&
         (spec->nkeys < 1 || spec->keys[0].desc ||
          sl_phys_of(spec->in_types[spec->keys[0].col]) != SL_PHYS_I64)))
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "invalid sort");
    for (int k = 0; k < spec->nkeys; k++)
        if (spec->keys[k].col < 0 || spec->keys[k].col >= spec->in_ncols)
            return sl_error_set(err, SL_ERR_INTERNAL, -1, "invalid sort key");
    sl__order *o = sl_calloc(1, sizeof *o);
    o->mode = spec->mode;
    o->ncols = spec->in_ncols;
    o->types = sl_calloc((size_t)o->ncols + 1, sizeof(sl_type));
    if (o->ncols)
        memcpy(o->types, spec->in_types, (size_t)o->ncols * sizeof(sl_type));
    o->nkeys = spec->nkeys;
    o->keys = sl_calloc((size_t)o->nkeys + 1, sizeof(sl_sort_key));
    if (o->nkeys)
        memcpy(o->keys, spec->keys, (size_t)o->nkeys * sizeof(sl_sort_key));
    o->time_col = spec->mode == SL_ORDER_TIME ? spec->keys[0].col : -1;
    o->offset = spec->offset;
    o->limit = spec->limit < 0 ? -1 : spec->limit;
    o->wm = INT64_MIN;
    o->held = sl_chunk_new(o->ncols, o->types, SL_CHUNK_ROWS);
    o->dead = sl_calloc(SL_CHUNK_ROWS, 1);
    o->out = sl_chunk_new(o->ncols, o->types, SL_CHUNK_ROWS);
    sl__rehash(o);
    sl_operator *op = sl_calloc(1, sizeof *op);
    op->ops = &sl__order_ops;
    op->impl = o;
    op->out_ncols = o->ncols;
    op->out_types = o->types;
    *out = op;
    return 0;
}
