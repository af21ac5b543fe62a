/*
** array.c — ARRAY and MAP values as bytes: walking their elements and
** Flink's text of them (see sl_exec.h, "ARRAY and MAP values").
**
** A value is u32 count, then count elements (ARRAY) or count key, value
** pairs (MAP), each one value in rowcodec.c's layout (sl_value_skip tells
** its length). Text is Flink's CAST(... AS STRING): [1, 2, NULL] and
** {a=1, b=NULL}, elements as CAST(element AS STRING) spells them, strings
** unquoted.
**
** Main routines: sl_array_split, sl_array_format, sl_map_dedup.
*/
#include "sl_exec.h"

#include <string.h>

bool sl_array_split(const uint8_t *p, size_t n, sl_type t, uint32_t *count, size_t **off)
{
    *off = NULL;
    *count = 0;
    if (n < 4)
        return false;
    uint32_t c = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    bool map = t.id == SL_TYPE_MAP;
    uint64_t items = map ? 2 * (uint64_t)c : c;
    if (items > n) /* every element takes at least a byte */
        return false;
    sl_phys pa = sl_phys_of(map ? sl_type_key(t) : sl_type_elem(t));
    sl_phys pb = map ? sl_phys_of(sl_type_value(t)) : pa;
    size_t *o = sl_malloc(((size_t)items + 1) * sizeof *o);
    size_t at = 4;
    for (uint64_t i = 0; i < items; i++) {
        o[i] = at;
        size_t k = sl_value_skip(p + at, n - at, (i & 1) ? pb : pa);
        if (k == 0) {
            sl_free(o);
            return false;
        }
        at += k;
    }
    o[items] = at;
    if (at != n) {
        sl_free(o);
        return false;
    }
    *count = (uint32_t)items;
    *off = o;
    return true;
}

/* Append the text of one element (p[0..n), type t): NULL, or its CAST text. */
static bool sl__format_elem(sl_strbuf *sb, sl_type t, const uint8_t *p, size_t n)
{
    sl_value_box x;
    sl_value_box_init(&x, t);
    if (!sl_vector_value_get(p, n, &x.v, 0))
        return false;
    if (x.isnull)
        sl_strbuf_append(sb, "NULL");
    else
        sl_value_format(sb, &x.v, 0);
    return true;
}

bool sl_array_format(sl_strbuf *sb, sl_type t, const uint8_t *p, size_t n)
{
    uint32_t c;
    size_t *o;
    if (!sl_array_split(p, n, t, &c, &o)) {
        sl_strbuf_append(sb, "?"); /* malformed: never produced by Sluice */
        return true;
    }
    bool map = t.id == SL_TYPE_MAP;
    sl_strbuf_append_char(sb, map ? '{' : '[');
    for (uint32_t i = 0; i < c; i++) {
        if (i > 0)
            sl_strbuf_append(sb, map && (i & 1) ? "=" : ", ");
        sl_type et = map ? ((i & 1) ? sl_type_value(t) : sl_type_key(t)) : sl_type_elem(t);
        sl__format_elem(sb, et, p + o[i], o[i + 1] - o[i]);
    }
    sl_strbuf_append_char(sb, map ? '}' : ']');
    sl_free(o);
    return true;
}

bool sl_map_dedup(sl_strbuf *sb, size_t at, sl_type t)
{
    const uint8_t *p = (const uint8_t *)sb->buf + at;
    size_t n = sb->len - at;
    uint32_t c;
    size_t *o;
    if (!sl_array_split(p, n, t, &c, &o))
        return false;
    sl_strbuf out = SL_STRBUF_INIT;
    sl_put_u32(&out, 0);
    uint32_t kept = 0;
    for (uint32_t j = 0; j < c; j += 2) {
        size_t kn = o[j + 1] - o[j];
        bool seen = false;
        for (uint32_t e = 0; e < j && !seen; e += 2)
            seen = o[e + 1] - o[e] == kn && memcmp(p + o[e], p + o[j], kn) == 0;
        if (seen)
            continue;
        uint32_t last = j;
        for (uint32_t e = j + 2; e < c; e += 2)
            if (o[e + 1] - o[e] == kn && memcmp(p + o[e], p + o[j], kn) == 0)
                last = e;
        sl_strbuf_append_n(&out, (const char *)p + o[j], kn);
        sl_strbuf_append_n(&out, (const char *)p + o[last + 1], o[last + 2] - o[last + 1]);
        kept++;
    }
    sl_free(o);
    for (int b = 0; b < 4; b++)
        out.buf[b] = (char)(kept >> (8 * b));
    sb->len = at;
    sl_strbuf_append_n(sb, out.buf, out.len);
    sl_strbuf_free(&out);
    return true;
}
