/*
** codec.c — row codecs: dispatch by the table's 'format' and what the
** formats share (see codec_int.h).
**
** sl_codec_new picks the codec of 'format' (json, csv, raw); decode and
** encode go through the codec's operations. The shared part holds the row
** being decoded (committed to the chunk only when every field decoded, so
** a malformed record never leaves half a row), the malformed-record error,
** the per-type text parsers and formatters used by json and csv, base64 and
** UTF-8 validation.
**
** Line framing (files, stdin): sl_codec_line_end finds where a record
** ends, by default at the first '\n' (csv has its own scanner: a quoted
** field may hold line breaks).
**
** Main routines: sl_codec_new, sl_codec_free, sl_codec_decode,
** sl_codec_encode, sl_codec_line_end, sl__codec_parse_text,
** sl__codec_fmt_*.
*/
#include "codec_int.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
** Public entry points.
*/
sl_codec *sl_codec_new(const sl_kvlist *table_opts, int ncols, const char *const *names,
                       const sl_type *types, sl_error *err)
{
    const char *fmt = sl_kvlist_get(table_opts, "format");
    if (!fmt) {
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1, "the table has no format");
        return NULL;
    }
    if (strcmp(fmt, "json") == 0)
        return sl__codec_json_new(table_opts, ncols, names, types, err);
    if (strcmp(fmt, "csv") == 0)
        return sl__codec_csv_new(table_opts, ncols, names, types, err);
    if (strcmp(fmt, "raw") == 0)
        return sl__codec_raw_new(table_opts, ncols, names, types, err);
    sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1, "format '%s' has no row codec", fmt);
    return NULL;
}

void sl_codec_free(sl_codec *c)
{
    if (!c)
        return;
    c->ops->free(c);
    sl__codec_fini(c);
    sl_free(c);
}

int sl_codec_decode(sl_codec *c, const char *rec, size_t len, sl_chunk *out, sl_error *err)
{
    SL_ALWAYS(out->ncols == c->width && !sl_chunk_full(out));
    return c->ops->decode(c, rec, len, out, err);
}

int sl_codec_decode_fill(sl_codec *c, const char *rec, size_t len, sl_chunk *out, int row,
                         sl_error *err)
{
    SL_ALWAYS(out->ncols == c->width && row >= 0 && row < out->nrows);
    c->fill_row = row;
    int rc = c->ops->decode(c, rec, len, out, err);
    c->fill_row = -1;
    return rc;
}

int sl_codec_encode(sl_codec *c, const sl_chunk *in, int r, sl_strbuf *out, sl_error *err)
{
    SL_ALWAYS(in->ncols == c->width && r >= 0 && r < in->nrows);
    return c->ops->encode(c, in, r, out, err);
}

void sl_codec_set_line_framing(sl_codec *c)
{
    c->lines = true;
}

size_t sl_codec_line_end(sl_codec *c, const char *rec, size_t n, size_t *scanned,
                         size_t *reclen)
{
    if (*scanned == 0)
        c->scan_state = c->scan_prev = 0;
    size_t end;
    bool cr_data = false;
    if (c->ops->line_end) {
        end = c->ops->line_end(c, rec, n, scanned, &cr_data);
    } else {
        const char *nl = *scanned < n ? memchr(rec + *scanned, '\n', n - *scanned) : NULL;
        end = nl ? (size_t)(nl - rec) : n;
        *scanned = end;
    }
    *reclen = end > 0 && rec[end - 1] == '\r' && !cr_data ? end - 1 : end;
    return end;
}

sl_codec *sl_codec_new_physical(const sl_kvlist *table_opts, int ncols, const char *const *names,
                                const sl_type *types, const char *const *meta, sl_error *err)
{
    if (!meta)
        return sl_codec_new(table_opts, ncols, names, types, err);
    const char **cn = sl_calloc((size_t)ncols + 1, sizeof(char *));
    sl_type *ct = sl_calloc((size_t)ncols + 1, sizeof(sl_type));
    int *map = sl_calloc((size_t)ncols + 1, sizeof(int)), n = 0;
    for (int i = 0; i < ncols; i++) {
        if (meta[i])
            continue;
        cn[n] = names[i];
        ct[n] = types[i];
        map[n++] = i;
    }
    sl_codec *c = sl_codec_new(table_opts, n, cn, ct, err);
    if (c)
        sl_codec_map_columns(c, ncols, map);
    sl_free(cn);
    sl_free(ct);
    sl_free(map);
    return c;
}

void sl_codec_map_columns(sl_codec *c, int width, const int *map)
{
    sl_free(c->map);
    c->map = NULL;
    c->width = map ? width : c->ncols;
    if (!map)
        return;
    c->map = sl_calloc((size_t)(c->ncols ? c->ncols : 1), sizeof(int));
    for (int i = 0; i < c->ncols; i++) {
        SL_ALWAYS(map[i] >= 0 && map[i] < width);
        c->map[i] = map[i];
    }
}

/* ------------------------------------------------------------------------
** Common part.
*/
void sl__codec_init(sl_codec *c, const sl__codec_ops *ops, const char *label, int ncols,
                    const char *const *names, const sl_type *types)
{
    c->ops = ops;
    c->label = label;
    c->ncols = ncols;
    c->names = sl_calloc((size_t)(ncols ? ncols : 1), sizeof(char *));
    c->types = sl_calloc((size_t)(ncols ? ncols : 1), sizeof(sl_type));
    for (int i = 0; i < ncols; i++) {
        c->names[i] = sl_strdup(names[i]);
        c->types[i] = types[i];
    }
    c->vals = sl_calloc((size_t)(ncols ? ncols : 1), sizeof(sl__value));
    c->scratch = (sl_strbuf)SL_STRBUF_INIT;
    c->width = ncols;
    c->fill_row = -1;
}

void sl__codec_fini(sl_codec *c)
{
    sl_free(c->map);
    for (int i = 0; i < c->ncols; i++)
        sl_free(c->names[i]);
    sl_free(c->names);
    sl_free(c->types);
    sl_free(c->vals);
    sl_strbuf_free(&c->scratch);
}

int sl__codec_opt_bool(const sl_kvlist *opts, const char *key, bool def, bool *out,
                       sl_error *err)
{
    const sl_kv *kv = sl_kvlist_find(opts, key);
    *out = def;
    if (!kv || !kv->value)
        return 0;
    if (sl__parse_bool(kv->value, out) != NULL)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->value_pos,
                            "invalid value for option '%s': \"%s\" is not a boolean", key,
                            kv->value);
    return 0;
}

int sl__codec_check_types(const char *fmt, int ncols, const char *const *names,
                          const sl_type *types, bool (*ok)(sl_type t), sl_error *err)
{
    for (int i = 0; i < ncols; i++) {
        if (ok(types[i]))
            continue;
        char *t = sl_type_to_string(types[i]);
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1,
                     "format '%s' does not support type %s (column \"%s\")", fmt, t, names[i]);
        sl_free(t);
        return -1;
    }
    return 0;
}

void sl__codec_row_begin(sl_codec *c)
{
    for (int i = 0; i < c->ncols; i++) {
        c->vals[i].null = true;
        c->vals[i].in_scratch = false;
    }
    sl_strbuf_reset(&c->scratch);
}

void sl__codec_row_commit(sl_codec *c, sl_chunk *out)
{
    int r = c->fill_row >= 0 ? c->fill_row : sl_chunk_append_row(out, SL_ROW_INSERT);
    for (int i = 0; i < c->ncols; i++) {
        const sl__value *v = &c->vals[i];
        int col = sl__codec_col(c, i);
        if (v->null) {
            if (c->fill_row >= 0)
                sl_chunk_set_null(out, col, r);
            continue;
        }
        switch (out->cols[col].phys) {
        case SL_PHYS_BOOL: sl_chunk_set_bool(out, col, r, v->v.b != 0); break;
        case SL_PHYS_I64: sl_chunk_set_i64(out, col, r, v->v.i64); break;
        case SL_PHYS_F64: sl_chunk_set_f64(out, col, r, v->v.f64); break;
        case SL_PHYS_I128: sl_chunk_set_i128(out, col, r, v->v.i128); break;
        case SL_PHYS_STR:
            /* (an empty value may have no buffer behind it) */
            sl_chunk_set_str(out, col, r,
                             !v->len ? "" : v->in_scratch ? c->scratch.buf + v->off : v->ptr,
                             v->len);
            break;
        }
    }
}

int sl__codec_malformed(sl_codec *c, sl_error *err, const char *detail_fmt, ...)
{
    if (c->ignore_errors)
        return SL_CODEC_SKIPPED;
    sl_error_set(err, SL_ERR_INVALID_TEXT, -1, "malformed %s record", c->label);
    va_list ap;
    va_start(ap, detail_fmt);
    char *d = sl_vsprintf(detail_fmt, ap);
    va_end(ap);
    sl_error_detail(err, "%s", d);
    sl_free(d);
    return -1;
}

/* ------------------------------------------------------------------------
** UTF-8 and showing text in messages.
*/
size_t sl__utf8_seq(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    if (n == 0)
        return 0;
    unsigned c = u[0];
    if (c < 0x80)
        return 1;
    size_t need;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        need = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        need = 3;
        if (c == 0xE0)
            lo = 0xA0; /* no overlongs */
        else if (c == 0xED)
            hi = 0x9F; /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F; /* <= U+10FFFF */
    } else
        return 0;
    if (n < need || u[1] < lo || u[1] > hi)
        return 0;
    for (size_t i = 2; i < need; i++)
        if (u[i] < 0x80 || u[i] > 0xBF)
            return 0;
    return need;
}

size_t sl__utf8_valid_prefix(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if ((unsigned char)s[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = sl__utf8_seq(s + i, n - i);
        if (!k)
            return i;
        i += k;
    }
    return n;
}

void sl__codec_show(sl_strbuf *sb, const char *s, size_t len, bool quoted)
{
    const size_t max = 64;
    if (quoted)
        sl_strbuf_append_char(sb, '"');
    size_t i = 0;
    while (i < len && i < max) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\') {
            sl_strbuf_append_char(sb, '\\');
            sl_strbuf_append_char(sb, (char)ch);
            i++;
        } else if (ch >= 0x20 && ch < 0x7f) {
            sl_strbuf_append_char(sb, (char)ch);
            i++;
        } else {
            size_t k = ch >= 0x80 ? sl__utf8_seq(s + i, len - i) : 0;
            if (k) {
                sl_strbuf_append_n(sb, s + i, k);
                i += k;
            } else {
                sl_strbuf_appendf(sb, "\\x%02x", ch);
                i++;
            }
        }
    }
    if (i < len)
        sl_strbuf_append(sb, "...");
    if (quoted)
        sl_strbuf_append_char(sb, '"');
}

int sl__codec_bad_value(sl_codec *c, sl_error *err, int col, int why, const char *s, size_t len,
                        bool quoted)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_strbuf_appendf(&sb, "field \"%s\": ", c->names[col]);
    if (why == SL__PARSE_UTF8) {
        sl_strbuf_appendf(&sb, "invalid UTF-8 at byte %zu", sl__utf8_valid_prefix(s, len) + 1);
    } else {
        sl__codec_show(&sb, s, len, quoted);
        sl_strbuf_append(&sb, why == SL__PARSE_RANGE ? " is out of range for " : " is not a valid ");
        sl_type t = c->types[col];
        t.not_null = false;
        sl_type_format(&sb, t);
    }
    int rc = sl__codec_malformed(c, err, "%s", sl_strbuf_cstr(&sb));
    sl_strbuf_free(&sb);
    return rc;
}

/* ------------------------------------------------------------------------
** Text parsers.
*/
static bool sl__is_blank(char ch)
{
    return (unsigned char)ch <= 0x20; /* Java's String.trim() */
}

static bool sl__is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

/* An integral number: [+-]digits[.digits][(e|E)[+-]digits], exactly
** integral, into *out (overflow beyond int64 -> RANGE). */
static int sl__parse_integral(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    size_t i0 = i;
    while (i < n && sl__is_digit(s[i]))
        i++;
    size_t i1 = i, f0 = i, f1 = i;
    if (i1 == i0)
        return SL__PARSE_INVALID;
    if (i < n && s[i] == '.') {
        f0 = ++i;
        while (i < n && sl__is_digit(s[i]))
            i++;
        f1 = i;
        if (f1 == f0)
            return SL__PARSE_INVALID;
    }
    int64_t e = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        size_t e0 = i;
        while (i < n && sl__is_digit(s[i])) {
            if (e < 1000000000)
                e = e * 10 + (s[i] - '0');
            i++;
        }
        if (i == e0)
            return SL__PARSE_INVALID;
        if (eneg)
            e = -e;
    }
    if (i != n)
        return SL__PARSE_INVALID;
    /* Digits C = s[i0..i1) ++ s[f0..f1), value = C * 10^(e - nfrac). */
    size_t nint = i1 - i0, nfrac = f1 - f0, nall = nint + nfrac;
    int64_t shift = e - (int64_t)nfrac;
    size_t keep = nall; /* digits of C that form the integer part */
    if (shift < 0) {
        uint64_t drop = (uint64_t)(-shift);
        if (drop >= nall)
            keep = 0;
        else
            keep = nall - (size_t)drop;
        for (size_t k = keep; k < nall; k++) {
            char d = k < nint ? s[i0 + k] : s[f0 + (k - nint)];
            if (d != '0')
                return SL__PARSE_INVALID; /* a fraction */
        }
        shift = 0;
    }
    uint64_t acc = 0;
    bool big = false;
    for (size_t k = 0; k < keep; k++) {
        unsigned d = (unsigned)((k < nint ? s[i0 + k] : s[f0 + (k - nint)]) - '0');
        if (acc > (UINT64_MAX - d) / 10) {
            big = true;
            break;
        }
        acc = acc * 10 + d;
    }
    for (int64_t k = 0; !big && acc != 0 && k < shift; k++) {
        if (acc > UINT64_MAX / 10)
            big = true;
        else
            acc *= 10;
    }
    if (big || acc > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
        return SL__PARSE_RANGE;
    *out = neg ? (int64_t)(0 - acc) : (int64_t)acc;
    return SL__PARSE_OK;
}

/* A floating-point number: [+-](digits[.digits*]|.digits)[(e|E)[+-]digits],
** NaN, [+-]Infinity. A finite text whose value overflows is RANGE. */
static int sl__parse_float(const char *s, size_t n, bool is_float, double *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (n - i == 8 && memcmp(s + i, "Infinity", 8) == 0) {
        *out = neg ? -INFINITY : INFINITY;
        return SL__PARSE_OK;
    }
    if (n == 3 && memcmp(s, "NaN", 3) == 0) {
        *out = NAN;
        return SL__PARSE_OK;
    }
    size_t d = 0;
    while (i < n && sl__is_digit(s[i]))
        i++, d++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && sl__is_digit(s[i]))
            i++, d++;
    }
    if (d == 0)
        return SL__PARSE_INVALID;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t e0 = i;
        while (i < n && sl__is_digit(s[i]))
            i++;
        if (i == e0)
            return SL__PARSE_INVALID;
    }
    if (i != n)
        return SL__PARSE_INVALID;
    char small[128];
    char *buf = n < sizeof small ? small : sl_malloc(n + 1);
    memcpy(buf, s, n);
    buf[n] = 0;
    errno = 0;
    double v = strtod(buf, NULL);
    if (buf != small)
        sl_free(buf);
    if (isinf(v))
        return SL__PARSE_RANGE;
    if (is_float) {
        /* Values up to half an ulp above FLT_MAX round to it (Java prints
        ** Float.MAX_VALUE as 3.4028235E38, which is above it). */
        if (fabs(v) >= 0x1.ffffffp127)
            return SL__PARSE_RANGE;
        v = fabs(v) > FLT_MAX ? copysign((double)FLT_MAX, v) : (double)(float)v;
    }
    *out = v;
    return SL__PARSE_OK;
}

static int64_t sl__int_min(sl_type_id id)
{
    switch (id) {
    case SL_TYPE_TINYINT: return INT8_MIN;
    case SL_TYPE_SMALLINT: return INT16_MIN;
    case SL_TYPE_INT: return INT32_MIN;
    default: return INT64_MIN;
    }
}

static int64_t sl__int_max(sl_type_id id)
{
    switch (id) {
    case SL_TYPE_TINYINT: return INT8_MAX;
    case SL_TYPE_SMALLINT: return INT16_MAX;
    case SL_TYPE_INT: return INT32_MAX;
    default: return INT64_MAX;
    }
}

/* TIMESTAMP / TIMESTAMP_LTZ text: the date and time separated by ' ' (or
** 'T' when iso); LTZ ends in 'Z'. Truncated to precision p. */
static int sl__parse_timestamp(const char *s, size_t n, bool ltz, bool iso, int p, int64_t *out)
{
    if (ltz) {
        if (n == 0 || s[n - 1] != 'Z')
            return SL__PARSE_INVALID;
        n--;
    }
    if (n < 11 || s[10] != (iso ? 'T' : ' '))
        return SL__PARSE_INVALID;
    int64_t v;
    if (sl_ts_parse(s, n, &v) != 0)
        return SL__PARSE_INVALID;
    *out = sl_time_truncate(v, p);
    return SL__PARSE_OK;
}

void sl__codec_set_string(sl_codec *c, int col, const char *s, size_t len)
{
    sl__value *v = &c->vals[col];
    v->null = false;
    v->in_scratch = false;
    v->ptr = s;
    v->len = len;
}

int sl__codec_parse_text(sl_codec *c, int col, const char *s, size_t len, bool iso)
{
    sl_type t = c->types[col];
    sl__value *v = &c->vals[col];
    if (sl_type_is_string(t.id)) {
        if (sl__utf8_valid_prefix(s, len) != len)
            return SL__PARSE_UTF8;
        sl__codec_set_string(c, col, s, len);
        return SL__PARSE_OK;
    }
    if (sl_type_is_binary(t.id)) {
        size_t off = c->scratch.len;
        if (sl__base64_decode(&c->scratch, s, len) != 0) {
            c->scratch.len = off;
            return SL__PARSE_INVALID;
        }
        v->null = false;
        v->in_scratch = true;
        v->off = off;
        v->len = c->scratch.len - off;
        return SL__PARSE_OK;
    }
    while (len > 0 && sl__is_blank(s[0]))
        s++, len--;
    while (len > 0 && sl__is_blank(s[len - 1]))
        len--;
    int rc = SL__PARSE_INVALID;
    switch (t.id) {
    case SL_TYPE_BOOLEAN:
        if (len == 4 && sl_strncasecmp(s, "true", 4) == 0)
            v->v.b = 1, rc = SL__PARSE_OK;
        else if (len == 5 && sl_strncasecmp(s, "false", 5) == 0)
            v->v.b = 0, rc = SL__PARSE_OK;
        break;
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT:
        rc = sl__parse_integral(s, len, &v->v.i64);
        if (rc == SL__PARSE_OK && (v->v.i64 < sl__int_min(t.id) || v->v.i64 > sl__int_max(t.id)))
            rc = SL__PARSE_RANGE;
        break;
    case SL_TYPE_FLOAT:
    case SL_TYPE_DOUBLE:
        rc = sl__parse_float(s, len, t.id == SL_TYPE_FLOAT, &v->v.f64);
        break;
    case SL_TYPE_DECIMAL: {
        bool overflow = false;
        if (len > 0 && sl_dec_parse(s, len, t.precision, t.scale, &v->v.i128, &overflow) == 0)
            rc = SL__PARSE_OK;
        else if (len > 0 && overflow)
            rc = SL__PARSE_RANGE;
        break;
    }
    case SL_TYPE_DATE:
        if (sl_date_parse(s, len, &v->v.i64) == 0)
            rc = SL__PARSE_OK;
        break;
    case SL_TYPE_TIME:
        if (sl_time_parse(s, len, &v->v.i64) == 0) {
            v->v.i64 = sl_time_truncate(v->v.i64, t.precision);
            rc = SL__PARSE_OK;
        }
        break;
    case SL_TYPE_TIMESTAMP:
    case SL_TYPE_TIMESTAMP_LTZ:
        rc = sl__parse_timestamp(s, len, t.id == SL_TYPE_TIMESTAMP_LTZ, iso, t.precision,
                                 &v->v.i64);
        break;
    default: break;
    }
    if (rc == SL__PARSE_OK) {
        v->null = false;
        v->in_scratch = false;
    }
    return rc;
}

/* ------------------------------------------------------------------------
** Formatters.
*/
/* As printf's "%.<p>g" with the fewest p from 15 (6 for a FLOAT) that
** reads back (then ".0" when it has no point or exponent, as Java writes
** 1.0): the digits from sl_double_digits (double-conversion), laid out as
** %g lays them, byte for byte the text of the search by snprintf and
** strtod this replaced (t_double_text checks it against that search). */
void sl__codec_fmt_double(sl_strbuf *sb, double v, bool is_float)
{
    if (isnan(v)) {
        sl_strbuf_append(sb, "NaN");
        return;
    }
    if (isinf(v)) {
        sl_strbuf_append(sb, v < 0 ? "-Infinity" : "Infinity");
        return;
    }
    if (v == 0) {
        sl_strbuf_append(sb, signbit(v) ? "-0.0" : "0.0");
        return;
    }
    int from = is_float ? 6 : 15;
    char dg[24], buf[64], *o = buf;
    if (frexp(is_float ? (double)(float)v : v, &(int){0}) == (v < 0 ? -0.5 : 0.5)) {
        /* A power of two: its reading interval is lopsided, and there the
        ** digits of sl_double_digits at 15 or more can be longer than
        ** printf's (2^-645: 17 against 15); the search itself, rare. */
        for (int prec = from; prec <= (is_float ? 9 : 17); prec++) {
            snprintf(buf, sizeof buf, "%.*g", prec, v);
            double back = strtod(buf, NULL);
            if (is_float ? (float)back == (float)v : back == v)
                break;
        }
        sl_strbuf_append(sb, buf);
        if (!strpbrk(buf, ".e"))
            sl_strbuf_append(sb, ".0");
        return;
    }
    int x;
    bool neg;
    int n = sl_double_digits(v, is_float, from, dg, &x, &neg);
    int p = n > from ? n : from; /* the precision whose text read back first */
    if (neg)
        *o++ = '-';
    if (x < -4 || x >= p) { /* %g's exponent form: d.ddde+XX */
        *o++ = dg[0];
        if (n > 1) {
            *o++ = '.';
            memcpy(o, dg + 1, (size_t)n - 1);
            o += n - 1;
        }
        o += sprintf(o, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
    } else if (x >= 0) {
        for (int i = 0; i <= x; i++)
            *o++ = i < n ? dg[i] : '0';
        if (n > x + 1) {
            *o++ = '.';
            memcpy(o, dg + x + 1, (size_t)(n - x - 1));
            o += n - x - 1;
        }
    } else {
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -x - 1; i++)
            *o++ = '0';
        memcpy(o, dg, (size_t)n);
        o += n;
    }
    *o = 0;
    sl_strbuf_append_n(sb, buf, (size_t)(o - buf));
    if (!strpbrk(buf, ".e"))
        sl_strbuf_append(sb, ".0"); /* as Java writes 1.0 */
}

/* Decimal digits of |v| into buf (no sign); returns the count. */
static int sl__u128_digits(sl_i128 v, char *buf)
{
    unsigned __int128 u = v < 0 ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    char tmp[48];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    for (int i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = 0;
    return n;
}

void sl__codec_fmt_decimal(sl_strbuf *sb, sl_i128 v, int s, bool plain)
{
    /* With at most 6 decimals the adjusted exponent is >= -6: plain. */
    char digits[48] = "";
    int adjusted = 0;
    if (!plain && s > 6)
        adjusted = sl__u128_digits(v, digits) - 1 - s;
    if (plain || s <= 6 || adjusted >= -6) {
        char buf[SL_DEC_STR_MAX];
        sl_dec_format(v, s, buf);
        sl_strbuf_append(sb, buf);
        return;
    }
    int nd = (int)strlen(digits);
    /* BigDecimal.toString(): unscaled digits as d.ddd, then E<adjusted>. */
    if (v < 0)
        sl_strbuf_append_char(sb, '-');
    sl_strbuf_append_char(sb, digits[0]);
    if (nd > 1) {
        sl_strbuf_append_char(sb, '.');
        sl_strbuf_append(sb, digits + 1);
    }
    sl_strbuf_appendf(sb, "E%d", adjusted);
}

int sl__codec_check_dates(sl_codec *c, const sl_chunk *in, int r, sl_error *err)
{
    static const int64_t lo = -719528, hi = 2932896; /* 0000-01-01, 9999-12-31 */
    for (int i = 0; i < c->ncols; i++) {
        const sl_vector *v = &in->cols[sl__codec_col(c, i)];
        if (v->type.id != SL_TYPE_DATE || v->nulls[r] || (v->v.i64[r] >= lo && v->v.i64[r] <= hi))
            continue;
        char buf[64];
        sl_date_format(v->v.i64[r], buf);
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1, "cannot write %s record", c->label);
        sl_error_detail(err, "field \"%s\": the date %s is outside 0000-01-01 .. 9999-12-31",
                        c->names[i], buf);
        return -1;
    }
    return 0;
}

void sl__codec_fmt_temporal(sl_strbuf *sb, sl_type t, int64_t v, bool iso)
{
    char buf[64];
    switch (t.id) {
    case SL_TYPE_DATE: sl_date_format(v, buf); break;
    case SL_TYPE_TIME: sl_time_format(v, t.precision, buf); break;
    case SL_TYPE_TIMESTAMP:
        if (iso)
            sl_ts_format_iso(v, t.precision, false, buf);
        else
            sl_ts_format(v, t.precision, buf);
        break;
    case SL_TYPE_TIMESTAMP_LTZ:
        if (iso) {
            sl_ts_format_iso(v, t.precision, true, buf);
        } else {
            int n = sl_ts_format(v, t.precision, buf);
            buf[n] = 'Z';
            buf[n + 1] = 0;
        }
        break;
    default: buf[0] = 0; break;
    }
    sl_strbuf_append(sb, buf);
}

/* ------------------------------------------------------------------------
** Base64.
*/
static const char sl__b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void sl__base64_encode(sl_strbuf *sb, const uint8_t *p, size_t n)
{
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t w = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        char q[4] = {sl__b64[w >> 18], sl__b64[w >> 12 & 63], sl__b64[w >> 6 & 63],
                     sl__b64[w & 63]};
        sl_strbuf_append_n(sb, q, 4);
    }
    if (n - i == 1) {
        uint32_t w = (uint32_t)p[i] << 16;
        char q[4] = {sl__b64[w >> 18], sl__b64[w >> 12 & 63], '=', '='};
        sl_strbuf_append_n(sb, q, 4);
    } else if (n - i == 2) {
        uint32_t w = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
        char q[4] = {sl__b64[w >> 18], sl__b64[w >> 12 & 63], sl__b64[w >> 6 & 63], '='};
        sl_strbuf_append_n(sb, q, 4);
    }
}

static int sl__b64_val(char ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    if (ch == '+')
        return 62;
    if (ch == '/')
        return 63;
    return -1;
}

int sl__base64_decode(sl_strbuf *sb, const char *s, size_t n)
{
    size_t data = n;
    if (n % 4 == 0 && n >= 4) { /* strip padding of a padded text */
        if (s[n - 1] == '=')
            data--;
        if (s[n - 2] == '=')
            data--;
    }
    if (data % 4 == 1)
        return -1;
    uint32_t w = 0;
    int bits = 0;
    for (size_t i = 0; i < data; i++) {
        int d = sl__b64_val(s[i]);
        if (d < 0)
            return -1;
        w = (w << 6 | (uint32_t)d) & 0xFFFFFF;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            sl_strbuf_append_char(sb, (char)(w >> bits & 0xFF));
        }
    }
    return 0;
}
