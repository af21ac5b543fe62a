/*
** op_window.c — the window table functions TUMBLE, HOP and CUMULATE as a
** stateless operator (see sl_exec.h, sl_window_tvf_spec).
**
** Each input row falls into one or more windows [start, end) computed from
** its event time t (ns) with Flink's assigners (TimeWindow /
** SlidingWindowAssigner / CumulativeWindowAssigner), all with the offset:
**
**   align(t, n)   = t - floor_mod(t - offset, n)         (correct before 1970)
**   TUMBLE(size)  = [align(t, size), + size)
**   HOP(slide, size): start = align(t, slide), then start -= slide while
**                 start > t - size; each [start, start + size). Emitted
**                 newest window first, as Flink's assigner lists them.
**   CUMULATE(step, max): ws = align(t, max); ends = align(t, step) + step,
**                 + step, ... up to ws + max; each [ws, end), ascending.
**   SESSION(gap)  = [t, t + gap): the row's own window, which the session
**                 window aggregation (op_session.c) then merges per key.
**
** The output row is the input row followed by window_start, window_end
** (TIMESTAMP(3) NOT NULL) and window_time = window_end - 1 ms (the time
** column's family at precision 3, NOT NULL); its row kind is the input's.
** A row whose time is NULL belongs to no window and is dropped (Flink's
** window TVF skips a null rowtime; it is not late, so late_rows stays 0).
** One input chunk may expand into many output chunks (HOP with size/slide
** = 60 makes 60 rows of each, at most SL_WINDOW_MAX_PER_ROW); every
** emitted chunk holds at most SL_CHUNK_ROWS rows, and before each the
** job's cancellation is checked (sl_op_cancelled). Window bounds are
** computed in ns exactly (__int128); a window that leaves the
** representable timestamp range is an error 22003.
**
** Main routines: sl_window_tvf_new and its process callback.
*/
#include "sl_exec.h"

#include "../parser/sl_parser.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct sl__wtvf {
    int in_ncols;        /* input columns */
    int time_col;        /* event-time column */
    int window_fn;       /* SL_WIN_TUMBLE / HOP / CUMULATE */
    int64_t size;        /* window size (CUMULATE: max size), ns */
    int64_t slide;       /* HOP slide / CUMULATE step, ns (= size for TUMBLE) */
    int64_t offset;      /* offset, ns */
    sl_type *out_types;  /* input types + window_start, window_end, window_time */
    sl_chunk *out;       /* output buffer, reused across calls */
    int *idx;            /* the rows with a time (sl__wtvf_one_each), out's capacity */
} sl__wtvf;

/* floor((t - offset) / n) * n + offset, i.e. the last n-aligned point <= t. */
static sl_i128 sl__align(sl_i128 t, int64_t offset, int64_t n)
{
    sl_i128 r = (t - offset) % n;
    if (r < 0)
        r += n;
    return t - r;
}

/* Copy value (src, scol, sr) into (dst, dcol, dr); strings go to dst's arena. */
static void sl__copy_value(sl_chunk *dst, int dcol, int dr, const sl_chunk *src, int scol,
                           int sr)
{
    const sl_vector *sv = &src->cols[scol];
    if (sv->nulls[sr]) {
        sl_chunk_set_null(dst, dcol, dr);
        return;
    }
    switch (sv->phys) {
    case SL_PHYS_BOOL: sl_chunk_set_bool(dst, dcol, dr, sv->v.b[sr]); break;
    case SL_PHYS_I64: sl_chunk_set_i64(dst, dcol, dr, sv->v.i64[sr]); break;
    case SL_PHYS_F64: sl_chunk_set_f64(dst, dcol, dr, sv->v.f64[sr]); break;
    case SL_PHYS_I128: sl_chunk_set_i128(dst, dcol, dr, sv->v.i128[sr]); break;
    case SL_PHYS_STR:
        sl_chunk_set_str(dst, dcol, dr, sv->v.str[sr].ptr, sv->v.str[sr].len);
        break;
    }
}

/* Append one output row: input row r of in plus the window [start, end). */
static int sl__emit_window(sl_operator *op, const sl_chunk *in, int r, sl_i128 start,
                           sl_i128 end, const sl_emit *out, sl_error *err)
{
    sl__wtvf *w = op->impl;
    /* window_time = end - 1 ms must stay representable, and so must start/end. */
    if (start < INT64_MIN || end > INT64_MAX || end - SL_NANOS_PER_MILLI < INT64_MIN)
        return sl_error_set(err, SL_ERR_NUMERIC_RANGE, -1,
                            "window bounds of a row are out of the timestamp range");
    if (sl_chunk_full(w->out)) {
        if (sl_op_cancelled(op))
            return sl_op_cancel_error(err);
        if (out->fn(out->ctx, w->out, err) != 0)
            return -1;
        sl_chunk_reset(w->out);
    }
    sl_chunk *o = w->out;
    int d = sl_chunk_append_row(o, (sl_row_kind)in->kinds[r]);
    for (int c = 0; c < w->in_ncols; c++)
        sl__copy_value(o, c, d, in, c, r);
    sl_chunk_set_i64(o, w->in_ncols, d, (int64_t)start);
    sl_chunk_set_i64(o, w->in_ncols + 1, d, (int64_t)end);
    sl_chunk_set_i64(o, w->in_ncols + 2, d, (int64_t)(end - SL_NANOS_PER_MILLI));
    return 0;
}

/* TUMBLE (a sliced HOP's slices too) and SESSION: one row per row with a
** time, in one output chunk: the input's columns as views (their strings
** stay the input's, which is unchanged until the rows went down the chain,
** as a calc's projections), the window's columns computed. */
static int sl__wtvf_one_each(sl_operator *op, const sl_chunk *in, const sl_emit *out,
                             sl_error *err)
{
    sl__wtvf *w = op->impl;
    sl_chunk *o = w->out;
    const sl_vector *tv = &in->cols[w->time_col];
    int n = 0;
    for (int r = 0; r < in->nrows; r++) { /* without a branch per row */
        w->idx[n] = r;
        n += tv->nulls[r] == 0;
    }
    if (n == 0)
        return 0;
    const int *idx = n == in->nrows ? NULL : w->idx;
    for (int c = 0; c < w->in_ncols; c++)
        sl_chunk_gather_view(o, c, in, c, idx, n);
    int64_t *ws = o->cols[w->in_ncols].v.i64, *we = o->cols[w->in_ncols + 1].v.i64;
    int64_t *wt = o->cols[w->in_ncols + 2].v.i64;
    bool bad = false;
    for (int j = 0; j < n; j++) {
        int r = idx ? idx[j] : j;
        o->kinds[j] = in->kinds[r];
        sl_i128 t = tv->v.i64[r];
        sl_i128 s = w->window_fn == SL_WIN_TUMBLE ? sl__align(t, w->offset, w->size) : t;
        sl_i128 e = s + w->size;
        bad |= (s < INT64_MIN) | (e > INT64_MAX) | (e - SL_NANOS_PER_MILLI < INT64_MIN);
        ws[j] = (int64_t)s;
        we[j] = (int64_t)e;
        wt[j] = (int64_t)(e - SL_NANOS_PER_MILLI);
    }
    if (bad)
        return sl_error_set(err, SL_ERR_NUMERIC_RANGE, -1,
                            "window bounds of a row are out of the timestamp range");
    for (int c = w->in_ncols; c < w->in_ncols + 3; c++)
        memset(o->cols[c].nulls, 0, (size_t)n);
    o->nrows = n;
    int rc = out->fn(out->ctx, o, err);
    sl_chunk_reset(o);
    return rc;
}

static int sl__wtvf_process(sl_operator *op, const sl_chunk *in, const sl_emit *out,
                            sl_error *err)
{
    sl__wtvf *w = op->impl;
    SL_ALWAYS(in->ncols == w->in_ncols);
    sl_chunk_reset(w->out);
    if ((w->window_fn == SL_WIN_TUMBLE || w->window_fn == SL_WIN_SESSION) &&
        in->nrows <= w->out->cap)
        return sl__wtvf_one_each(op, in, out, err);
    const sl_vector *tv = &in->cols[w->time_col];
    for (int r = 0; r < in->nrows; r++) {
        if (tv->nulls[r])
            continue; /* no window for a NULL time */
        sl_i128 t = tv->v.i64[r];
        switch (w->window_fn) {
        case SL_WIN_TUMBLE: {
            sl_i128 s = sl__align(t, w->offset, w->size);
            if (sl__emit_window(op, in, r, s, s + w->size, out, err) != 0)
                return -1;
            break;
        }
        case SL_WIN_HOP:
            for (sl_i128 s = sl__align(t, w->offset, w->slide); s > t - w->size; s -= w->slide)
                if (sl__emit_window(op, in, r, s, s + w->size, out, err) != 0)
                    return -1;
            break;
        case SL_WIN_SESSION:
            if (sl__emit_window(op, in, r, t, t + w->size, out, err) != 0)
                return -1;
            break;
        default: { /* SL_WIN_CUMULATE */
            sl_i128 ws = sl__align(t, w->offset, w->size);
            for (sl_i128 e = sl__align(t, w->offset, w->slide) + w->slide; e <= ws + w->size;
                 e += w->slide)
                if (sl__emit_window(op, in, r, ws, e, out, err) != 0)
                    return -1;
            break;
        }
        }
    }
    if (w->out->nrows > 0) {
        int rc = out->fn(out->ctx, w->out, err);
        sl_chunk_reset(w->out);
        return rc;
    }
    return 0;
}

static int sl__wtvf_watermark(sl_operator *op, int64_t wm, const sl_emit *out, sl_error *err)
{
    (void)op, (void)wm, (void)out, (void)err;
    return 0; /* stateless: nothing becomes final here */
}

static int sl__wtvf_snapshot(sl_operator *op, sl_strbuf *state, sl_error *err)
{
    (void)op, (void)state, (void)err;
    return 0; /* no state */
}

static int sl__wtvf_restore(sl_operator *op, const char *state, size_t len, sl_error *err)
{
    (void)op, (void)state;
    if (len != 0)
        return sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                            "unexpected state for a window table function (%zu bytes)", len);
    return 0;
}

static int64_t sl__wtvf_late_rows(sl_operator *op)
{
    (void)op;
    return 0;
}

static void sl__wtvf_free(sl_operator *op)
{
    if (!op)
        return;
    sl__wtvf *w = op->impl;
    if (w) {
        sl_chunk_free(w->out);
        sl_free(w->idx);
        sl_free(w->out_types);
        sl_free(w);
    }
    sl_free(op);
}

static const sl_operator_ops sl__wtvf_ops = {
    sl__wtvf_process,  sl__wtvf_watermark, sl__wtvf_snapshot,
    sl__wtvf_restore,  sl__wtvf_late_rows, sl__wtvf_free,
    NULL, /* conflicts */
    NULL, /* backend: hashmap */
};

/* Validate the spec: 0, or -1 with err (42P20 for bad window parameters). */
static int sl__wtvf_check(const sl_window_tvf_spec *s, sl_error *err)
{
    if (s->in_ncols < 0 || s->time_col < 0 || s->time_col >= s->in_ncols)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "window time column %d out of range",
                            s->time_col);
    if (!sl_type_is_timestamp(s->in_types[s->time_col].id))
        return sl_error_set(err, SL_ERR_INTERNAL, -1,
                            "the time column of a window must be a TIMESTAMP or TIMESTAMP_LTZ");
    if (s->window_fn != SL_WIN_TUMBLE && s->window_fn != SL_WIN_HOP &&
        s->window_fn != SL_WIN_CUMULATE && s->window_fn != SL_WIN_SESSION)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "unknown window function %d",
                            s->window_fn);
    /* the planner checked all of this with positions (planner/bind.c) */
    const int64_t max_ms = INT64_MAX / SL_NANOS_PER_MILLI;
    if (s->size_ms <= 0 || s->size_ms > max_ms)
        return sl_error_set(err, SL_ERR_WINDOWING, -1,
                            "window size must be positive and at most %" PRId64 " ms", max_ms);
    if (s->offset_ms < -max_ms || s->offset_ms > max_ms)
        return sl_error_set(err, SL_ERR_WINDOWING, -1, "window offset out of range");
    if (s->window_fn != SL_WIN_TUMBLE && s->window_fn != SL_WIN_SESSION) {
        if (s->slide_ms <= 0 || s->slide_ms > max_ms)
            return sl_error_set(err, SL_ERR_WINDOWING, -1,
                                "window slide or step must be positive");
        if (s->window_fn == SL_WIN_CUMULATE && s->size_ms % s->slide_ms != 0)
            return sl_error_set(err, SL_ERR_WINDOWING, -1,
                                "the size of a CUMULATE window must be a multiple of its step");
        /* windows per row: ceil(size / slide) (SQL makes HOP's a multiple too) */
        int64_t per_row = s->size_ms / s->slide_ms + (s->size_ms % s->slide_ms != 0);
        if (per_row > SL_WINDOW_MAX_PER_ROW)
            return sl_error_set(err, SL_ERR_PROGRAM_LIMIT, -1,
                                "a row would fall into %" PRId64 " windows (at most %d)", per_row,
                                SL_WINDOW_MAX_PER_ROW);
    }
    return 0;
}

int sl_window_tvf_new(const sl_window_tvf_spec *spec, sl_operator **out, sl_error *err)
{
    *out = NULL;
    if (sl__wtvf_check(spec, err) != 0)
        return -1;
    sl__wtvf *w = sl_calloc(1, sizeof *w);
    w->in_ncols = spec->in_ncols;
    w->time_col = spec->time_col;
    w->window_fn = spec->window_fn;
    w->size = spec->size_ms * SL_NANOS_PER_MILLI;
    w->slide = (spec->window_fn == SL_WIN_TUMBLE || spec->window_fn == SL_WIN_SESSION
                    ? spec->size_ms : spec->slide_ms) *
               SL_NANOS_PER_MILLI;
    w->offset = spec->offset_ms * SL_NANOS_PER_MILLI;
    int n = spec->in_ncols + 3;
    w->out_types = sl_calloc((size_t)n, sizeof(sl_type));
    for (int i = 0; i < spec->in_ncols; i++)
        w->out_types[i] = spec->in_types[i];
    sl_type ts = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    ts.not_null = true;
    sl_type wt = sl_type_make_p(spec->in_types[spec->time_col].id, 3, 0);
    wt.not_null = true;
    w->out_types[spec->in_ncols] = ts;
    w->out_types[spec->in_ncols + 1] = ts;
    w->out_types[spec->in_ncols + 2] = wt;
    w->out = sl_chunk_new(n, w->out_types, SL_CHUNK_ROWS);
    w->idx = sl_malloc(SL_CHUNK_ROWS * sizeof(int));
    sl_operator *op = sl_calloc(1, sizeof *op);
    op->ops = &sl__wtvf_ops;
    op->impl = w;
    op->out_ncols = n;
    op->out_types = w->out_types;
    *out = op;
    return 0;
}
