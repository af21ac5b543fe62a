/*
** chunk.c — columnar batches: allocation, row append, setters, row copy and
** the text form of a value (see sl_exec.h).
*/
#include "eval_int.h"
#include "sl_exec.h"
#include "value_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sl_phys sl_phys_of(sl_type t)
{
    switch (t.id) {
    case SL_TYPE_NULL:
    case SL_TYPE_BOOLEAN: return SL_PHYS_BOOL;
    case SL_TYPE_FLOAT:
    case SL_TYPE_DOUBLE: return SL_PHYS_F64;
    case SL_TYPE_DECIMAL: return SL_PHYS_I128;
    case SL_TYPE_CHAR:
    case SL_TYPE_VARCHAR:
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY:
    case SL_TYPE_ARRAY:
    case SL_TYPE_MAP: return SL_PHYS_STR;
    default: return SL_PHYS_I64;
    }
}

const char *sl_row_kind_name(sl_row_kind k)
{
    static const char *const names[] = {"+I", "-U", "+U", "-D"};
    return (unsigned)k < 4 ? names[k] : "?";
}

size_t sl_phys_size(sl_phys p)
{
    switch (p) {
    case SL_PHYS_BOOL: return 1;
    case SL_PHYS_I64: return sizeof(int64_t);
    case SL_PHYS_F64: return sizeof(double);
    case SL_PHYS_I128: return sizeof(sl_i128);
    case SL_PHYS_STR: return sizeof(sl_str);
    }
    return 8;
}

sl_chunk *sl_chunk_new(int ncols, const sl_type *types, int cap)
{
    SL_ALWAYS(ncols >= 0 && cap > 0);
    sl_chunk *c = sl_calloc(1, sizeof *c);
    c->ncols = ncols;
    c->cap = cap;
    c->cols = sl_calloc((size_t)(ncols ? ncols : 1), sizeof(sl_vector));
    c->kinds = sl_calloc((size_t)cap, 1);
    for (int i = 0; i < ncols; i++) {
        sl_vector *v = &c->cols[i];
        v->type = types[i];
        v->phys = sl_phys_of(types[i]);
        v->nulls = sl_calloc((size_t)cap, 1);
        v->v.raw = sl_calloc((size_t)cap, sl_phys_size(v->phys));
    }
    return c;
}

void sl_chunk_free(sl_chunk *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->ncols; i++) {
        sl_free(c->cols[i].nulls);
        sl_free(c->cols[i].v.raw);
    }
    sl_free(c->cols);
    sl_free(c->kinds);
    sl_arena_free(&c->arena);
    sl_free(c);
}

void sl_chunk_reset(sl_chunk *c)
{
    c->nrows = 0;
    sl_arena_reset(&c->arena);
}

void sl_chunk_null_tail(sl_chunk *c)
{
    if (c->nrows >= c->cap)
        return;
    for (int i = 0; i < c->ncols; i++)
        memset(c->cols[i].nulls + c->nrows, 1, (size_t)(c->cap - c->nrows));
}

bool sl_chunk_full(const sl_chunk *c)
{
    return c->nrows >= c->cap;
}

int sl_chunk_append_row(sl_chunk *c, sl_row_kind k)
{
    SL_ALWAYS(c->nrows < c->cap);
    int r = c->nrows++;
    c->kinds[r] = (uint8_t)k;
    for (int i = 0; i < c->ncols; i++)
        c->cols[i].nulls[r] = 1;
    return r;
}

void sl_chunk_set_str(sl_chunk *c, int col, int r, const char *p, size_t len)
{
    SL_ALWAYS(len <= UINT32_MAX);
    c->cols[col].nulls[r] = 0;
    c->cols[col].v.str[r].ptr = sl_arena_memdup(&c->arena, p, len);
    c->cols[col].v.str[r].len = (uint32_t)len;
}

void sl_chunk_set_str_static(sl_chunk *c, int col, int r, const char *p, size_t len)
{
    SL_ALWAYS(len <= UINT32_MAX);
    c->cols[col].nulls[r] = 0;
    c->cols[col].v.str[r].ptr = p;
    c->cols[col].v.str[r].len = (uint32_t)len;
}

int sl_chunk_copy_row(sl_chunk *dst, const sl_chunk *src, int r)
{
    SL_ALWAYS(dst->ncols == src->ncols);
    int d = sl_chunk_append_row(dst, (sl_row_kind)src->kinds[r]);
    for (int i = 0; i < src->ncols; i++) {
        const sl_vector *sv = &src->cols[i];
        if (sv->nulls[r])
            continue;
        switch (sv->phys) {
        case SL_PHYS_BOOL: sl_chunk_set_bool(dst, i, d, sv->v.b[r]); break;
        case SL_PHYS_I64: sl_chunk_set_i64(dst, i, d, sv->v.i64[r]); break;
        case SL_PHYS_F64: sl_chunk_set_f64(dst, i, d, sv->v.f64[r]); break;
        case SL_PHYS_I128: sl_chunk_set_i128(dst, i, d, sv->v.i128[r]); break;
        case SL_PHYS_STR: sl_chunk_set_str(dst, i, d, sv->v.str[r].ptr, sv->v.str[r].len); break;
        }
    }
    return d;
}

/* dv[at + k] = sv[rows[k]] for k < n, typed loops (a memcpy of a width
** known only at run time per value was a tenth of a filter/project job);
** strings copied into arena, or (arena NULL) left pointing where they are. */
static void sl__gather(sl_vector *dv, const sl_vector *sv, const int *rows, int n, int at,
                       sl_arena *arena)
{
    /* local restrict pointers: a byte store may alias the vectors' own
    ** fields, which the loops would load again on every row */
    uint8_t *restrict dn = dv->nulls + at;
    const uint8_t *restrict sn = sv->nulls;
    for (int k = 0; k < n; k++)
        dn[k] = sn[rows[k]];
    switch (sv->phys) {
    case SL_PHYS_BOOL: {
        uint8_t *restrict d = dv->v.b + at;
        const uint8_t *restrict s = sv->v.b;
        for (int k = 0; k < n; k++)
            d[k] = s[rows[k]];
        break;
    }
    case SL_PHYS_I64: {
        int64_t *restrict d = dv->v.i64 + at;
        const int64_t *restrict s = sv->v.i64;
        for (int k = 0; k < n; k++)
            d[k] = s[rows[k]];
        break;
    }
    case SL_PHYS_F64: {
        double *restrict d = dv->v.f64 + at;
        const double *restrict s = sv->v.f64;
        for (int k = 0; k < n; k++)
            d[k] = s[rows[k]];
        break;
    }
    case SL_PHYS_I128: {
        sl_i128 *restrict d = dv->v.i128 + at;
        const sl_i128 *restrict s = sv->v.i128;
        for (int k = 0; k < n; k++)
            d[k] = s[rows[k]];
        break;
    }
    case SL_PHYS_STR: {
        sl_str *restrict d = dv->v.str + at;
        const sl_str *restrict s = sv->v.str;
        if (!arena) {
            for (int k = 0; k < n; k++)
                d[k] = s[rows[k]];
            break;
        }
        /* the bytes of all n in one allocation, packed (an arena_memdup
        ** each was a call, a bump check and 16-byte padding per value) */
        size_t total = 0;
        for (int k = 0; k < n; k++)
            total += sv->nulls[rows[k]] ? 0 : s[rows[k]].len;
        char *b = sl_arena_alloc(arena, total ? total : 1);
        for (int k = 0; k < n; k++) {
            const sl_str *x = &s[rows[k]];
            if (sv->nulls[rows[k]]) {
                d[k] = (sl_str){"", 0};
                continue;
            }
            if (x->len)
                memcpy(b, x->ptr, x->len);
            d[k] = (sl_str){b, x->len};
            b += x->len;
        }
        break;
    }
    }
}

void sl_chunk_gather_view(sl_chunk *dst, int dcol, const sl_chunk *src, int scol, const int *rows,
                          int n)
{
    sl_vector *dv = &dst->cols[dcol];
    const sl_vector *sv = &src->cols[scol];
    SL_ALWAYS(dv->phys == sv->phys && n <= dst->cap);
    if (rows) {
        sl__gather(dv, sv, rows, n, 0, NULL);
        return;
    }
    memcpy(dv->nulls, sv->nulls, (size_t)n);
    memcpy(dv->v.raw, sv->v.raw, (size_t)n * sl_phys_size(sv->phys));
}

int sl_chunk_select_view(sl_chunk *dst, const sl_chunk *src, const uint8_t *sel,
                         const bool *cols)
{
    SL_ALWAYS(dst->ncols == src->ncols);
    sl_chunk_reset(dst);
    int idx[SL_CHUNK_ROWS], n = 0;
    for (int r0 = 0; r0 < src->nrows; r0 += SL_CHUNK_ROWS) { /* a bigger src: in slices */
        int end = src->nrows - r0 < SL_CHUNK_ROWS ? src->nrows : r0 + SL_CHUNK_ROWS, k = 0;
        for (int r = r0; r < end; r++) { /* without a branch per row */
            idx[k] = r;
            k += sel[r] != 0;
        }
        SL_ALWAYS(n + k <= dst->cap);
        uint8_t *restrict dk = dst->kinds + n;
        const uint8_t *restrict sk = src->kinds;
        for (int j = 0; j < k; j++)
            dk[j] = sk[idx[j]];
        for (int i = 0; i < src->ncols; i++)
            if (!cols || cols[i])
                sl__gather(&dst->cols[i], &src->cols[i], idx, k, n, NULL);
        n += k;
    }
    dst->nrows = n;
    return n;
}

void sl_chunk_append_rows(sl_chunk *dst, const sl_chunk *src, const int *rows, int n)
{
    SL_ALWAYS(dst->ncols == src->ncols && dst->nrows + n <= dst->cap);
    int at = dst->nrows;
    uint8_t *restrict dk = dst->kinds + at;
    const uint8_t *restrict sk = src->kinds;
    for (int k = 0; k < n; k++)
        dk[k] = sk[rows[k]];
    for (int i = 0; i < src->ncols; i++)
        sl__gather(&dst->cols[i], &src->cols[i], rows, n, at, &dst->arena);
    dst->nrows += n;
}

/* A FLOAT / DOUBLE as Flink shows it: Java's Float/Double.toString, the
** text CAST(... AS STRING) gives (1.0, 1.0E7, NaN, -Infinity, -0.0). */
static void sl__format_double_text(sl_strbuf *sb, double d, bool single)
{
    char buf[48];
    sl_strbuf_append_n(sb, buf, (size_t)sl__format_double(d, single, buf));
}

bool sl_value_format_tz(sl_strbuf *sb, const sl_vector *v, int r, const sl_tz *tz)
{
    int64_t local;
    if (v->type.id != SL_TYPE_TIMESTAMP_LTZ || v->nulls[r] ||
        sl_tz_to_local(tz, v->v.i64[r], &local) != 0)
        return sl_value_format(sb, v, r);
    char buf[64];
    sl_ts_format(local, v->type.precision, buf);
    sl_strbuf_append(sb, buf);
    return true;
}

bool sl_value_format(sl_strbuf *sb, const sl_vector *v, int r)
{
    if (v->nulls[r] || v->type.id == SL_TYPE_NULL)
        return false;
    char buf[64];
    switch (v->type.id) {
    case SL_TYPE_BOOLEAN: sl_strbuf_append(sb, v->v.b[r] ? "TRUE" : "FALSE"); break;
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT: sl_strbuf_append_i64(sb, v->v.i64[r]); break;
    case SL_TYPE_FLOAT: sl__format_double_text(sb, v->v.f64[r], true); break;
    case SL_TYPE_DOUBLE: sl__format_double_text(sb, v->v.f64[r], false); break;
    case SL_TYPE_DECIMAL:
        sl_dec_format(v->v.i128[r], v->type.scale, buf);
        sl_strbuf_append(sb, buf);
        break;
    case SL_TYPE_CHAR:
    case SL_TYPE_VARCHAR: sl_strbuf_append_n(sb, v->v.str[r].ptr, v->v.str[r].len); break;
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY:
        sl_strbuf_append(sb, "x'");
        for (uint32_t i = 0; i < v->v.str[r].len; i++)
            sl_strbuf_appendf(sb, "%02x", (unsigned char)v->v.str[r].ptr[i]);
        sl_strbuf_append_char(sb, '\'');
        break;
    case SL_TYPE_DATE:
        sl_date_format(v->v.i64[r], buf);
        sl_strbuf_append(sb, buf);
        break;
    case SL_TYPE_TIME:
        sl_time_format(v->v.i64[r], v->type.precision, buf);
        sl_strbuf_append(sb, buf);
        break;
    case SL_TYPE_TIMESTAMP:
    case SL_TYPE_TIMESTAMP_LTZ:
        sl_ts_format(v->v.i64[r], v->type.precision, buf);
        sl_strbuf_append(sb, buf);
        break;
    case SL_TYPE_INTERVAL_DT: {
        int64_t ms = v->v.i64[r];
        const char *sign = ms < 0 ? "-" : "+";
        uint64_t a = ms < 0 ? 0 - (uint64_t)ms : (uint64_t)ms;
        sl_strbuf_appendf(sb, "%s%llu %02llu:%02llu:%02llu.%03llu", sign,
                          (unsigned long long)(a / 86400000), (unsigned long long)(a / 3600000 % 24),
                          (unsigned long long)(a / 60000 % 60), (unsigned long long)(a / 1000 % 60),
                          (unsigned long long)(a % 1000));
        break;
    }
    case SL_TYPE_INTERVAL_YM: {
        int64_t m = v->v.i64[r];
        const char *sign = m < 0 ? "-" : "+";
        uint64_t a = m < 0 ? 0 - (uint64_t)m : (uint64_t)m;
        sl_strbuf_appendf(sb, "%s%llu-%02llu", sign, (unsigned long long)(a / 12),
                          (unsigned long long)(a % 12));
        break;
    }
    case SL_TYPE_ARRAY:
    case SL_TYPE_MAP:
        return sl_array_format(sb, v->type, (const uint8_t *)v->v.str[r].ptr, v->v.str[r].len);
    default: return false;
    }
    return true;
}

void sl_chunk_hash_keys(const sl_chunk *c, int nkeys, const int *keys, uint64_t *out)
{
    int n = c->nrows;
    uint64_t *h = out;
    for (int i = 0; i < n; i++)
        h[i] = SL__K1;
    for (int k = 0; k < nkeys; k++) {
        const sl_vector *v = &c->cols[keys[k]];
        const uint8_t *nl = v->nulls;
        switch (v->phys) {
        case SL_PHYS_I64:
            for (int i = 0; i < n; i++)
                h[i] = SL__HASH_COMBINE(
                    h[i], nl[i] ? SL__NULL_HASH : sl__mix((uint64_t)v->v.i64[i] + SL__K1));
            break;
        default:
            for (int i = 0; i < n; i++)
                h[i] = SL__HASH_COMBINE(
                    h[i], nl[i] ? SL__NULL_HASH : sl__val_hash(v->phys, sl__load(v, i)));
            break;
        }
    }
    for (int i = 0; i < n; i++)
        h[i] = sl__mix(h[i]);
}
