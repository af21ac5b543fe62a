/*
** enforce.c — the sinks' length enforcer: Flink's
** 'table.exec.sink.type-length-enforcer' over the values of a sink's
** CHAR(n) / VARCHAR(n) / BINARY(n) / VARBINARY(n) columns, just before the
** sink writes them (Flink's ConstraintEnforcer, CharLengthConstraint and
** BinaryLengthConstraint).
**
** Lengths are code points for CHAR / VARCHAR, bytes for BINARY / VARBINARY
** (sl_type_fit). A value fits when it is not longer than n and, for CHAR /
** BINARY, not shorter either:
**
**   TRIM_PAD  a longer value is cut to n, a shorter CHAR value padded with
**             spaces, a shorter BINARY value with zero bytes;
**   ERROR     a longer value fails the job (22001, naming the column, its
**             type and the value's length); a shorter CHAR / BINARY value
**             fails it too (22026, as Flink's check), unless the column
**             was converted from another type (pad_shorter: padded, as the
**             CAST would have).
**
** Rows that all fit pass through untouched; otherwise the chunk is copied
** (a shallow copy: unchanged strings still point into the input chunk,
** which outlives the sink's write) and the changed values are written into
** the copy's arena.
**
** Main routines: sl_length_check_new, sl_length_check_run,
** sl_length_check_free.
*/
#include "sl_exec.h"

#include <string.h>

struct sl_length_check {
    sl_length_spec spec;      /* mode, columns, position */
    const char *const *names; /* the sink's column names */
    const sl_type *types;     /* their types */
    int ncols;                /* the sink's columns */
    sl_chunk *out;            /* the copy, when a value changes */
};

sl_length_check *sl_length_check_new(const sl_length_spec *spec, const char *const *names,
                                     const sl_type *types)
{
    if (!spec || spec->mode == SL_LENGTH_IGNORE || spec->ncols <= 0)
        return NULL;
    sl_length_check *c = sl_calloc(1, sizeof *c);
    c->spec = *spec;
    c->names = names;
    c->types = types;
    for (int i = 0; i < spec->ncols; i++)
        if (spec->cols[i].col >= c->ncols)
            c->ncols = spec->cols[i].col + 1;
    return c;
}

void sl_length_check_free(sl_length_check *c)
{
    if (!c)
        return;
    sl_chunk_free(c->out);
    sl_free(c);
}

/* The copy of in that changed values go into (made on the first change). */
static sl_chunk *sl__copy(sl_length_check *c, const sl_chunk *in)
{
    if (c->out && c->out->cap < in->nrows) {
        sl_chunk_free(c->out);
        c->out = NULL;
    }
    if (!c->out) {
        sl_type *types = sl_calloc((size_t)in->ncols + 1, sizeof(sl_type));
        for (int i = 0; i < in->ncols; i++)
            types[i] = in->cols[i].type;
        c->out = sl_chunk_new(in->ncols, types, in->nrows > SL_CHUNK_ROWS ? in->nrows : SL_CHUNK_ROWS);
        sl_free(types);
    }
    sl_chunk *o = c->out;
    sl_chunk_reset(o);
    int n = in->nrows;
    memcpy(o->kinds, in->kinds, (size_t)n);
    for (int i = 0; i < in->ncols; i++) {
        memcpy(o->cols[i].nulls, in->cols[i].nulls, (size_t)n);
        memcpy(o->cols[i].v.raw, in->cols[i].v.raw, (size_t)n * sl_phys_size(in->cols[i].phys));
    }
    o->nrows = n;
    return o;
}

/* The error for a value of `units` characters (bytes) in column col. */
static int sl__misfit(const sl_length_check *c, int col, size_t units, sl_error *err)
{
    sl_type t = c->types[col];
    t.not_null = false;
    char *tn = sl_type_to_string(t);
    bool longer = units > (size_t)t.precision;
    const char *unit = sl_type_is_binary(t.id) ? "byte" : "character";
    sl_error_set(err, longer ? SL_ERR_STRING_TRUNCATION : SL_ERR_STRING_LENGTH_MISMATCH,
                 c->spec.pos, "value too %s for column \"%s\" of type %s",
                 longer ? "long" : "short", c->names[col], tn);
    sl_error_detail(err, "The value has %zu %s%s; 'table.exec.sink.type-length-enforcer' is "
                         "'ERROR'.", units, unit, units == 1 ? "" : "s");
    sl_error_hint(err, "Set 'table.exec.sink.type-length-enforcer' to 'TRIM_PAD' to %s values "
                       "to the column's length, or declare the column to fit them.",
                  longer ? "cut longer" : "pad shorter");
    sl_free(tn);
    return -1;
}

int sl_length_check_run(sl_length_check *c, sl_chunk *in, sl_chunk **out, sl_error *err)
{
    *out = in;
    if (!c)
        return 0;
    if (in->ncols < c->ncols)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "the sink's rows lack checked columns");
    sl_chunk *o = NULL;
    for (int k = 0; k < c->spec.ncols; k++) {
        int col = c->spec.cols[k].col;
        sl_type t = c->types[col];
        const sl_vector *v = &in->cols[col];
        if (v->phys != SL_PHYS_STR)
            continue;
        bool pad_ok = c->spec.mode == SL_LENGTH_TRIM_PAD || c->spec.cols[k].pad_shorter;
        for (int r = 0; r < in->nrows; r++) {
            if (v->nulls[r])
                continue;
            const sl_str *s = &v->v.str[r];
            size_t keep;
            size_t pad = sl_type_fit(t, s->ptr, s->len, &keep);
            if (keep == s->len && pad == 0)
                continue;
            bool binary = sl_type_is_binary(t.id);
            if (c->spec.mode == SL_LENGTH_ERROR && (keep < s->len || !pad_ok))
                return sl__misfit(c, col, binary ? s->len : sl_utf8_count(s->ptr, s->len), err);
            if (!o)
                o = sl__copy(c, in);
            const char *d = s->ptr; /* cut: a prefix of the input's bytes */
            if (pad) {
                char *w = sl_arena_alloc(&o->arena, keep + pad);
                memcpy(w, s->ptr, keep);
                memset(w + keep, binary ? 0 : ' ', pad);
                d = w;
            }
            o->cols[col].v.str[r].ptr = d;
            o->cols[col].v.str[r].len = (uint32_t)(keep + pad);
        }
    }
    if (o)
        *out = o;
    return 0;
}
