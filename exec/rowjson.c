/*
** rowjson.c — a row (or some of its columns) as a JSON object by column
** name, for the records of side outputs (a deduplication's conflicts) and
** their logs: the same shape as PostgreSQL's row_to_json, which the jdbc
** sink's conflict table holds ({"event_id":10,"amount":7.50,"note":"x"}).
**
** Values: NULL -> null; BOOLEAN -> true/false; integers and DECIMAL -> a
** JSON number (DECIMAL with its scale, as CAST to STRING spells it); FLOAT /
** DOUBLE -> a number when finite, else the string "NaN" / "Infinity" /
** "-Infinity"; TIMESTAMP -> "2026-01-31T12:00:00.123" and TIMESTAMP_LTZ ->
** the instant in UTC with "+00:00" (row_to_json's ISO text); every other
** type -> a string of its CAST(... AS STRING) text. Names and strings are
** escaped (", \, control characters); other bytes are copied.
**
** Main routine: sl_row_json.
*/
#include "sl_exec.h"

#include <math.h>
#include <string.h>

/* s[0..n) as a JSON string. */
static void sl__json_str(sl_strbuf *sb, const char *s, size_t n)
{
    sl_strbuf_append_char(sb, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        switch (ch) {
        case '"': sl_strbuf_append(sb, "\\\""); break;
        case '\\': sl_strbuf_append(sb, "\\\\"); break;
        case '\n': sl_strbuf_append(sb, "\\n"); break;
        case '\r': sl_strbuf_append(sb, "\\r"); break;
        case '\t': sl_strbuf_append(sb, "\\t"); break;
        default:
            if (ch < 0x20)
                sl_strbuf_appendf(sb, "\\u%04x", ch);
            else
                sl_strbuf_append_char(sb, (char)ch);
        }
    }
    sl_strbuf_append_char(sb, '"');
}

/* Value (v, r) as JSON (not NULL). */
static void sl__json_value(sl_strbuf *sb, const sl_vector *v, int r, sl_strbuf *tmp)
{
    sl_type_id id = v->type.id;
    if (id == SL_TYPE_BOOLEAN) {
        sl_strbuf_append(sb, v->v.b[r] ? "true" : "false");
        return;
    }
    if ((id == SL_TYPE_FLOAT || id == SL_TYPE_DOUBLE) && !isfinite(v->v.f64[r])) {
        sl_strbuf_append(sb, isnan(v->v.f64[r])   ? "\"NaN\""
                             : v->v.f64[r] > 0 ? "\"Infinity\""
                                               : "\"-Infinity\"");
        return;
    }
    sl_strbuf_reset(tmp);
    sl_value_format(tmp, v, r);
    switch (id) {
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT:
    case SL_TYPE_FLOAT:
    case SL_TYPE_DOUBLE:
    case SL_TYPE_DECIMAL: sl_strbuf_append_n(sb, tmp->buf, tmp->len); return;
    case SL_TYPE_TIMESTAMP:
    case SL_TYPE_TIMESTAMP_LTZ: {
        char *sp = tmp->len ? memchr(tmp->buf, ' ', tmp->len) : NULL;
        if (sp)
            *sp = 'T';
        if (id == SL_TYPE_TIMESTAMP_LTZ)
            sl_strbuf_append(tmp, "+00:00");
        break;
    }
    default: break;
    }
    sl__json_str(sb, tmp->buf ? tmp->buf : "", tmp->len);
}

void sl_row_json(sl_strbuf *sb, const sl_chunk *c, int r, int n, const int *cols,
                 const char *const *names)
{
    sl_strbuf tmp = SL_STRBUF_INIT;
    sl_strbuf_append_char(sb, '{');
    for (int i = 0; i < n; i++) {
        int col = cols ? cols[i] : i;
        if (i)
            sl_strbuf_append_char(sb, ',');
        const char *name = names[col];
        sl__json_str(sb, name, strlen(name));
        sl_strbuf_append_char(sb, ':');
        if (c->cols[col].nulls[r])
            sl_strbuf_append(sb, "null");
        else
            sl__json_value(sb, &c->cols[col], r, &tmp);
    }
    sl_strbuf_append_char(sb, '}');
    sl_strbuf_free(&tmp);
}
