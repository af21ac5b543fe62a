/*
** op_unnest.c — UNNEST as a stateless operator (see sl_exec.h,
** sl_unnest_spec): Flink's Correlate over $UNNEST_ROWS$, the expansion of
** CROSS JOIN UNNEST(arr) / LEFT JOIN UNNEST(arr) ON TRUE.
**
** For each input row, the ARRAY or MAP value in arr_col (bytes: u32 count,
** then the elements in rowcodec's layout, exec/array.c) is split into its
** elements; each gives one output row: the input row's first keep columns
** copied, then the element decoded into its column (a MAP entry: key and
** value), then with ordinality its 1-based position. The output row's kind
** is the input row's, so an updating input stays one (-U and +U each
** expand to the same number of rows), and time attributes among the copied
** columns keep their values. A NULL or empty value expands to nothing, or
** with outer to one row whose new columns are NULL. With a condition
** (LEFT JOIN ... ON cond) a row's expansion is built apart (cand), the
** condition evaluated over it (sl_eval_filter), and only the rows it holds
** for go out — or the NULL-padded row when it holds for none. Elements are decoded
** with sl_vector_value_get (strings copied into the output chunk's arena);
** a malformed value (never produced by Sluice) is an error XX001. Every
** emitted chunk holds at most SL_CHUNK_ROWS rows; before each emit the
** job's cancellation is checked (an array may hold many elements).
**
** Main routines: sl_unnest_new and its process callback.
*/
#include "sl_exec.h"

#include <string.h>

typedef struct sl__unnest {
    sl_unnest_spec spec;   /* in_types not kept */
    sl_type arr_type;      /* the ARRAY / MAP type */
    int nnew;              /* columns added: 1 (ARRAY) or 2 (MAP), + 1 with ordinality */
    sl_type *out_types;    /* the first keep input types, then the new columns */
    sl_chunk *out;         /* output buffer, reused across calls */
    sl_eval_prog *cond;    /* LEFT JOIN ... ON cond, over the output columns, or NULL */
    sl_chunk *cand;        /* with cond: one input row's expansion, before the condition */
    uint8_t *sel;          /* ... which of its rows it holds for (cand->cap bytes) */
} sl__unnest;

/* Make room for one row: emit the buffer when it is full. */
static int sl__room(sl_operator *op, const sl_emit *out, sl_error *err)
{
    sl__unnest *u = op->impl;
    if (!sl_chunk_full(u->out))
        return 0;
    if (sl_op_cancelled(op))
        return sl_op_cancel_error(err);
    if (out->fn(out->ctx, u->out, err) != 0)
        return -1;
    sl_chunk_reset(u->out);
    return 0;
}

/* Append input row r's kept columns as a new row of o; returns its index. */
static int sl__start_row(sl__unnest *u, sl_chunk *o, const sl_chunk *in, int r)
{
    int d = sl_chunk_append_row(o, (sl_row_kind)in->kinds[r]);
    for (int c = 0; c < u->spec.keep; c++)
        sl_chunk_set_from(o, c, d, in, c, r);
    return d;
}

/* Decode the element at p[0..n) into column col of row d of o. */
static int sl__put_elem(sl_chunk *o, int col, int d, const uint8_t *p, size_t n, sl_error *err)
{
    sl_vector *v = &o->cols[col];
    if (!sl_vector_value_get(p, n, v, d))
        return sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "malformed array value in UNNEST");
    if (v->nulls[d])
        return 0;
    if (v->phys == SL_PHYS_STR) /* it points into the input: copy it into the chunk */
        sl_chunk_set_str(o, col, d, v->v.str[d].ptr, v->v.str[d].len);
    return 0;
}

/* Emit row r of src (a candidate the condition selected). */
static int sl__emit_copy(sl_operator *op, const sl_chunk *src, int r, const sl_emit *out,
                         sl_error *err)
{
    sl__unnest *u = op->impl;
    if (sl__room(op, out, err) != 0)
        return -1;
    sl_chunk_copy_row(u->out, src, r);
    return 0;
}

static int sl__unnest_row(sl_operator *op, const sl_chunk *in, int r, const sl_emit *out,
                          const sl_eval_env *env, sl_error *err)
{
    sl__unnest *u = op->impl;
    const sl_vector *av = &in->cols[u->spec.arr_col];
    uint32_t count = 0;
    size_t *off = NULL;
    if (!av->nulls[r]) {
        const sl_str *a = &av->v.str[r];
        if (!sl_array_split((const uint8_t *)a->ptr, a->len, u->arr_type, &count, &off))
            return sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                                "malformed array value in UNNEST");
    }
    bool map = u->arr_type.id == SL_TYPE_MAP;
    uint32_t n = map ? count / 2 : count;
    const uint8_t *base = av->nulls[r] ? NULL : (const uint8_t *)av->v.str[r].ptr;
    int k = u->spec.keep, rc = 0;
    if (u->cond && (int64_t)n > u->cand->cap) { /* room for this row's whole expansion */
        sl_chunk_free(u->cand);
        sl_free(u->sel);
        u->cand = sl_chunk_new(op->out_ncols, u->out_types, (int)n);
        u->sel = sl_calloc((size_t)n, 1);
    }
    if (u->cond)
        sl_chunk_reset(u->cand);
    int kept = 0;
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        if (!u->cond && (rc = sl__room(op, out, err)) != 0)
            break;
        sl_chunk *o = u->cond ? u->cand : u->out;
        int d = sl__start_row(u, o, in, r);
        uint32_t e = map ? 2 * i : i;
        rc = sl__put_elem(o, k, d, base + off[e], off[e + 1] - off[e], err);
        if (rc == 0 && map)
            rc = sl__put_elem(o, k + 1, d, base + off[e + 1], off[e + 2] - off[e + 1], err);
        if (rc == 0 && u->spec.ordinality)
            sl_chunk_set_i64(o, k + u->nnew - 1, d, (int64_t)i + 1);
        kept++;
    }
    sl_free(off);
    if (rc == 0 && u->cond && n > 0) { /* LEFT JOIN ... ON cond: the rows it holds for */
        kept = sl_eval_filter(u->cond, u->cand, env, u->sel, err);
        rc = kept < 0 ? -1 : 0;
        for (int i = 0; rc == 0 && i < u->cand->nrows; i++)
            if (u->sel[i])
                rc = sl__emit_copy(op, u->cand, i, out, err);
    }
    if (rc == 0 && kept == 0 && u->spec.outer) { /* the row, NULL-padded */
        rc = sl__room(op, out, err);
        if (rc == 0)
            sl__start_row(u, u->out, in, r); /* the new columns stay NULL */
    }
    return rc;
}

static int sl__unnest_process(sl_operator *op, const sl_chunk *in, const sl_emit *out,
                              sl_error *err)
{
    sl__unnest *u = op->impl;
    sl_eval_env env = {.tz = u->spec.tz};
    for (int r = 0; r < in->nrows; r++)
        if (sl__unnest_row(op, in, r, out, &env, err) != 0)
            return -1;
    if (u->out->nrows > 0) {
        int rc = out->fn(out->ctx, u->out, err);
        sl_chunk_reset(u->out);
        return rc;
    }
    return 0;
}

static int sl__unnest_watermark(sl_operator *op, int64_t wm, const sl_emit *out, sl_error *err)
{
    (void)op, (void)wm, (void)out, (void)err;
    return 0; /* stateless: nothing becomes final here */
}

static int sl__unnest_snapshot(sl_operator *op, sl_strbuf *state, sl_error *err)
{
    (void)op, (void)state, (void)err;
    return 0; /* no state */
}

static int sl__unnest_restore(sl_operator *op, const char *state, size_t len, sl_error *err)
{
    (void)op, (void)state;
    if (len != 0)
        return sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                            "unexpected state for UNNEST (%zu bytes)", len);
    return 0;
}

static int64_t sl__unnest_late_rows(sl_operator *op)
{
    (void)op;
    return 0;
}

static void sl__unnest_free(sl_operator *op)
{
    if (!op)
        return;
    sl__unnest *u = op->impl;
    if (u) {
        sl_chunk_free(u->out);
        sl_chunk_free(u->cand);
        sl_free(u->sel);
        sl_eval_free(u->cond);
        sl_free(u->out_types);
        sl_free(u);
    }
    sl_free(op);
}

static const sl_operator_ops sl__unnest_ops = {
    sl__unnest_process,  sl__unnest_watermark, sl__unnest_snapshot,
    sl__unnest_restore,  sl__unnest_late_rows, sl__unnest_free,
    NULL, /* conflicts */
    NULL, /* backend: hashmap */
};

int sl_unnest_new(const sl_unnest_spec *spec, sl_operator **out, sl_error *err)
{
    *out = NULL;
    if (spec->arr_col < 0 || spec->arr_col >= spec->in_ncols || spec->keep < 0 ||
        spec->keep > spec->in_ncols)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "UNNEST column %d out of range",
                            spec->arr_col);
    sl_type at = spec->in_types[spec->arr_col];
    if (at.id != SL_TYPE_ARRAY && at.id != SL_TYPE_MAP)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "UNNEST of a value that is no ARRAY or MAP");
    sl__unnest *u = sl_calloc(1, sizeof *u);
    u->spec = *spec;
    u->spec.in_types = NULL;
    u->arr_type = at;
    bool map = at.id == SL_TYPE_MAP;
    u->nnew = (map ? 2 : 1) + (spec->ordinality ? 1 : 0);
    int n = spec->keep + u->nnew;
    u->out_types = sl_calloc((size_t)n, sizeof(sl_type));
    for (int i = 0; i < spec->keep; i++)
        u->out_types[i] = spec->in_types[i];
    sl_type *nt = u->out_types + spec->keep;
    nt[0] = map ? sl_type_key(at) : sl_type_elem(at);
    nt[0].not_null = false;
    if (map) {
        nt[1] = sl_type_value(at);
        nt[1].not_null = false;
    }
    if (spec->ordinality) {
        nt[u->nnew - 1] = sl_type_make(SL_TYPE_INT);
        nt[u->nnew - 1].not_null = !spec->outer;
    }
    u->out = sl_chunk_new(n, u->out_types, SL_CHUNK_ROWS);
    u->spec.cond = NULL;
    if (spec->cond) {
        u->cond = sl_eval_compile(spec->cond, n, u->out_types, err);
        if (!u->cond) {
            sl_chunk_free(u->out);
            sl_free(u->out_types);
            sl_free(u);
            return -1;
        }
        u->cand = sl_chunk_new(n, u->out_types, 16);
        u->sel = sl_calloc(16, 1);
    }
    sl_operator *op = sl_calloc(1, sizeof *op);
    op->ops = &sl__unnest_ops;
    op->impl = u;
    op->out_ncols = n;
    op->out_types = u->out_types;
    *out = op;
    return 0;
}
