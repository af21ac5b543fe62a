/*
** codec_raw.c — the raw row codec (Flink's Raw format): a record is the
** bytes of the table's single column.
**
**   CHAR/VARCHAR      the bytes as they are ('raw.charset' must be UTF-8;
**                     other charsets are not supported yet: 0A000); bytes
**                     that are not valid UTF-8 are a malformed record;
**   BINARY/VARBINARY  the bytes;
**   BOOLEAN           1 byte, 0 = false, anything else true;
**   TINYINT SMALLINT INT BIGINT  two's complement in 1, 2, 4, 8 bytes;
**   FLOAT DOUBLE      IEEE 754 in 4 / 8 bytes;
** numbers in 'raw.endianness' byte order (big-endian by default), as
** Flink's RawFormatSerializationSchema writes them. A record of the wrong
** size is malformed (22P02 "malformed raw record"; raw has no skip option).
**
** NULL is a null record (as in Flink: a Kafka message without a value),
** and a null record reads as NULL. An empty record reads as NULL for the
** fixed-size types, and as the empty value for strings and bytes.
**
** Line framing (files, stdin: sl_codec_set_line_framing): a record is a
** line, so encoding refuses (22023 "cannot write raw record") a value whose
** bytes hold a '\n' or end in '\r' (the reader would split it or drop the
** '\r'), and a NULL string or bytes value (a file has no null record; an
** empty line reads back as the empty value). A NULL of a fixed-size type
** is written as an empty line, which reads back as NULL. Flink writes such
** values anyway and reads back something else; use csv or json for them.
**
** Main routines: sl__codec_raw_new and its decode / encode operations.
*/
#include "codec_int.h"

#include <stdio.h>
#include <string.h>

typedef struct sl__raw_codec {
    sl_codec base; /* common part (first) */
    bool little;   /* 'raw.endianness' = 'little-endian' */
} sl__raw_codec;

static bool sl__raw_type_ok(sl_type t)
{
    switch (t.id) {
    case SL_TYPE_BOOLEAN:
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT:
    case SL_TYPE_FLOAT:
    case SL_TYPE_DOUBLE:
    case SL_TYPE_CHAR:
    case SL_TYPE_VARCHAR:
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY: return true;
    default: return false;
    }
}

/* Bytes of a fixed-size type, 0 for strings and bytes. */
static size_t sl__raw_width(sl_type_id id)
{
    switch (id) {
    case SL_TYPE_BOOLEAN:
    case SL_TYPE_TINYINT: return 1;
    case SL_TYPE_SMALLINT: return 2;
    case SL_TYPE_INT:
    case SL_TYPE_FLOAT: return 4;
    case SL_TYPE_BIGINT:
    case SL_TYPE_DOUBLE: return 8;
    default: return 0;
    }
}

static int sl__raw_decode(sl_codec *c, const char *rec, size_t len, sl_chunk *out, sl_error *err)
{
    sl__raw_codec *w = (sl__raw_codec *)c;
    sl_type t = c->types[0];
    sl__value *v = &c->vals[0];
    size_t width = sl__raw_width(t.id);
    sl__codec_row_begin(c);
    if (!rec) { /* a null record */
        if (t.not_null)
            return sl__codec_malformed(c, err, "field \"%s\" is null, but the column is NOT NULL",
                                       c->names[0]);
    } else if (width == 0) {
        if (sl_type_is_string(t.id) && sl__utf8_valid_prefix(rec, len) != len)
            return sl__codec_bad_value(c, err, 0, SL__PARSE_UTF8, rec, len, true);
        v->null = false;
        v->ptr = len ? rec : "";
        v->len = len;
    } else if (len != 0) {
        if (len != width) {
            char *tn = sl_type_to_string(t);
            int rc = sl__codec_malformed(c, err, "field \"%s\": expected %zu byte%s for %s, found %zu",
                                         c->names[0], width, width == 1 ? "" : "s", tn, len);
            sl_free(tn);
            return rc;
        }
        uint64_t u = 0;
        for (size_t i = 0; i < width; i++) {
            size_t b = w->little ? width - 1 - i : i;
            u = u << 8 | (unsigned char)rec[b];
        }
        v->null = false;
        switch (t.id) {
        case SL_TYPE_BOOLEAN: v->v.b = u != 0; break;
        case SL_TYPE_TINYINT: v->v.i64 = (int8_t)(uint8_t)u; break;
        case SL_TYPE_SMALLINT: v->v.i64 = (int16_t)(uint16_t)u; break;
        case SL_TYPE_INT: v->v.i64 = (int32_t)(uint32_t)u; break;
        case SL_TYPE_BIGINT: v->v.i64 = (int64_t)u; break;
        case SL_TYPE_FLOAT: {
            uint32_t bits = (uint32_t)u;
            float f;
            memcpy(&f, &bits, sizeof f);
            v->v.f64 = (double)f;
            break;
        }
        default: {
            double d;
            memcpy(&d, &u, sizeof d);
            v->v.f64 = d;
            break;
        }
        }
    } else if (t.not_null) {
        return sl__codec_malformed(c, err, "field \"%s\" is null, but the column is NOT NULL",
                                   c->names[0]);
    }
    sl__codec_row_commit(c, out);
    return SL_CODEC_ROW;
}

/* 22023 "cannot write raw record" with the detail's reason. */
static int sl__raw_cannot_write(sl_codec *c, sl_error *err, const char *why)
{
    sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1, "cannot write raw record");
    sl_error_detail(err, "field \"%s\": %s", c->names[0], why);
    sl_error_hint(err, "A raw file holds one value per line. Use format 'csv' or 'json' for "
                       "such values.");
    return -1;
}

/* Line framing: the bytes p[0..n) must read back as one line. */
static int sl__raw_check_line(sl_codec *c, const char *p, size_t n, sl_error *err)
{
    const char *nl = n ? memchr(p, '\n', n) : NULL;
    if (nl) {
        char why[128];
        snprintf(why, sizeof why,
                 "the value holds a line break (byte %zu), which would split the record",
                 (size_t)(nl - p) + 1);
        return sl__raw_cannot_write(c, err, why);
    }
    if (n > 0 && p[n - 1] == '\r')
        return sl__raw_cannot_write(
            c, err, "the value ends in a carriage return, which the reader drops");
    return 0;
}

static int sl__raw_encode(sl_codec *c, const sl_chunk *in, int r, sl_strbuf *out, sl_error *err)
{
    sl__raw_codec *w = (sl__raw_codec *)c;
    const sl_vector *v = &in->cols[sl__codec_col(c, 0)];
    size_t width = sl__raw_width(v->type.id);
    if (v->nulls[r]) {
        if (!c->lines)
            return SL_CODEC_NULL_RECORD;
        if (width == 0)
            return sl__raw_cannot_write(c, err,
                                        "the value is NULL, which a line cannot represent (an "
                                        "empty line reads back as the empty value)");
        return 0; /* an empty line: NULL */
    }
    if (width == 0) {
        if (c->lines && sl__raw_check_line(c, v->v.str[r].ptr, v->v.str[r].len, err) != 0)
            return -1;
        sl_strbuf_append_n(out, v->v.str[r].ptr, v->v.str[r].len);
        return 0;
    }
    uint64_t u;
    switch (v->type.id) {
    case SL_TYPE_BOOLEAN: u = v->v.b[r] ? 1 : 0; break;
    case SL_TYPE_FLOAT: {
        float f = (float)v->v.f64[r];
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        u = bits;
        break;
    }
    case SL_TYPE_DOUBLE: memcpy(&u, &v->v.f64[r], sizeof u); break;
    default: u = (uint64_t)v->v.i64[r]; break;
    }
    char buf[8];
    for (size_t i = 0; i < width; i++) {
        size_t b = w->little ? i : width - 1 - i;
        buf[b] = (char)(u >> (8 * i) & 0xFF);
    }
    if (c->lines && sl__raw_check_line(c, buf, width, err) != 0)
        return -1;
    sl_strbuf_append_n(out, buf, width);
    return 0;
}

static void sl__raw_free(sl_codec *c)
{
}

static const sl__codec_ops sl__raw_ops = {
    .decode = sl__raw_decode,
    .encode = sl__raw_encode,
    .free = sl__raw_free,
};

sl_codec *sl__codec_raw_new(const sl_kvlist *opts, int ncols, const char *const *names,
                            const sl_type *types, sl_error *err)
{
    if (ncols != 1) {
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1,
                     "format 'raw' needs a table with exactly one column");
        sl_error_detail(err, "The table has %d columns.", ncols);
        return NULL;
    }
    if (sl__codec_check_types("raw", ncols, names, types, sl__raw_type_ok, err) != 0)
        return NULL;
    const sl_kv *cs = sl_kvlist_find(opts, "raw.charset");
    if (cs && cs->value && sl_strcasecmp(cs->value, "UTF-8") != 0) {
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, cs->value_pos,
                     "format 'raw' does not support charset '%s' yet", cs->value);
        sl_error_hint(err, "Use 'raw.charset' = 'UTF-8'.");
        return NULL;
    }
    const sl_kv *en = sl_kvlist_find(opts, "raw.endianness");
    bool little = false;
    if (en && en->value) {
        if (sl_strcasecmp(en->value, "little-endian") == 0) {
            little = true;
        } else if (sl_strcasecmp(en->value, "big-endian") != 0) {
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, en->value_pos,
                         "invalid value for option 'raw.endianness': \"%s\"", en->value);
            return NULL;
        }
    }
    sl__raw_codec *w = sl_calloc(1, sizeof *w);
    sl__codec_init(&w->base, &sl__raw_ops, "raw", ncols, names, types);
    w->little = little;
    return &w->base;
}
