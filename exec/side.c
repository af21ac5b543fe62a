/*
** side.c — what operators set aside on their side output (sl_operator.side):
** the canonical late-row layout, a row as a JSON object by column name (the
** late row's `row`, a conflict's keys and versions), and sl_late_row, which
** every operator dropping a row as late calls. The runtime (job.c) maps the
** canonical rows onto the side table and writes them in the open epoch.
**
** Main routines: sl_late_row, sl_json_row, sl_late_types.
*/
#include "sl_exec.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const sl_late_names[SL_LATE_NCOLS] = {
    "job", "operator", "event_time", "watermark", "window_start", "window_end", "arrived_at", "row",
};

void sl_late_types(sl_type *types)
{
    sl_type str = sl_type_make(SL_TYPE_VARCHAR);
    sl_type ts = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    types[0] = str;
    types[1] = str;
    types[2] = ts;
    types[3] = ts;
    types[4] = ts;
    types[5] = ts;
    types[6] = sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, 3, 0);
    types[7] = str;
}

/* A JSON string of n bytes (escaped as RFC 8259 asks). */
static void sl__json_string(sl_strbuf *sb, const char *p, size_t n)
{
    sl_strbuf_append_char(sb, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (ch == '"' || ch == '\\') {
            sl_strbuf_append_char(sb, '\\');
            sl_strbuf_append_char(sb, (char)ch);
        } else if (ch == '\n') {
            sl_strbuf_append(sb, "\\n");
        } else if (ch == '\r') {
            sl_strbuf_append(sb, "\\r");
        } else if (ch == '\t') {
            sl_strbuf_append(sb, "\\t");
        } else if (ch < 0x20) {
            sl_strbuf_appendf(sb, "\\u%04x", ch);
        } else {
            sl_strbuf_append_char(sb, (char)ch);
        }
    }
    sl_strbuf_append_char(sb, '"');
}

void sl_json_row(sl_strbuf *sb, const sl_chunk *c, int r, int n, const int *cols,
                 const char *const *names)
{
    sl_strbuf v = SL_STRBUF_INIT;
    sl_strbuf_append_char(sb, '{');
    for (int i = 0; i < n; i++) {
        int col = cols ? cols[i] : i;
        const sl_vector *vec = &c->cols[col];
        if (i)
            sl_strbuf_append_char(sb, ',');
        if (names && names[col]) {
            sl__json_string(sb, names[col], strlen(names[col]));
        } else {
            char nm[16];
            snprintf(nm, sizeof nm, "$%d", col);
            sl__json_string(sb, nm, strlen(nm));
        }
        sl_strbuf_append_char(sb, ':');
        v.len = 0;
        if (!sl_value_format(&v, vec, r)) {
            sl_strbuf_append(sb, "null");
            continue;
        }
        switch (vec->type.id) {
        case SL_TYPE_BOOLEAN:
            sl_strbuf_append(sb, vec->v.b[r] ? "true" : "false");
            break;
        case SL_TYPE_TINYINT:
        case SL_TYPE_SMALLINT:
        case SL_TYPE_INT:
        case SL_TYPE_BIGINT:
        case SL_TYPE_DECIMAL:
            sl_strbuf_append_n(sb, sl_strbuf_cstr(&v), v.len);
            break;
        case SL_TYPE_FLOAT:
        case SL_TYPE_DOUBLE:
            if (isfinite(vec->v.f64[r])) {
                sl_strbuf_append_n(sb, sl_strbuf_cstr(&v), v.len);
                break;
            }
            sl__json_string(sb, sl_strbuf_cstr(&v), v.len); /* NaN, Infinity: no JSON numbers */
            break;
        default:
            sl__json_string(sb, sl_strbuf_cstr(&v), v.len);
            break;
        }
    }
    sl_strbuf_append_char(sb, '}');
    sl_strbuf_free(&v);
}

/* Event time (ns) at millisecond precision, as TIMESTAMP(3) keeps it. */
static int64_t sl__ms(int64_t ns)
{
    int64_t ms = ns / SL_NANOS_PER_MILLI - (ns % SL_NANOS_PER_MILLI < 0);
    return ms * SL_NANOS_PER_MILLI;
}

int sl_late_row(const sl_operator *op, const char *const *names, const sl_chunk *in, int r,
                int64_t event_time, int64_t watermark, bool has_window, int64_t window_start,
                int64_t window_end, sl_error *err)
{
    return sl_late_row_cols(op, names, in, r, in->ncols, NULL, event_time, watermark, has_window,
                            window_start, window_end, err);
}

int sl_late_row_cols(const sl_operator *op, const char *const *names, const sl_chunk *in, int r,
                     int n, const int *cols, int64_t event_time, int64_t watermark,
                     bool has_window, int64_t window_start, int64_t window_end, sl_error *err)
{
    if (!op->side[SL_SIDE_LATE].fn)
        return 0;
    sl_type types[SL_LATE_NCOLS];
    sl_late_types(types);
    sl_chunk *c = sl_chunk_new(SL_LATE_NCOLS, types, 1);
    int x = sl_chunk_append_row(c, SL_ROW_INSERT); /* job, operator, arrived_at: the runtime's */
    if (event_time != INT64_MIN)
        sl_chunk_set_i64(c, 2, x, sl__ms(event_time));
    if (watermark != INT64_MIN)
        sl_chunk_set_i64(c, 3, x, sl__ms(watermark));
    if (has_window && window_start != INT64_MIN)
        sl_chunk_set_i64(c, 4, x, sl__ms(window_start));
    if (has_window)
        sl_chunk_set_i64(c, 5, x, sl__ms(window_end));
    sl_strbuf js = SL_STRBUF_INIT;
    sl_json_row(&js, in, r, n, cols, names);
    sl_chunk_set_str(c, 7, x, sl_strbuf_cstr(&js), js.len);
    sl_strbuf_free(&js);
    int rc = op->side[SL_SIDE_LATE].fn(op->side[SL_SIDE_LATE].ctx, c, err);
    sl_chunk_free(c);
    return rc;
}
