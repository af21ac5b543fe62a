/*
** format.c — results for scripts: `sluice --format csv|tsv|json` (and
** `--csv`), one line a row, printed as the rows arrive (no buffering, no
** row count; command tags as in the table format).
**
**   csv   a header line of column names, then the rows, comma-separated,
**         RFC 4180: a field holding a comma, a double quote, a line break or
**         a leading/trailing space is quoted ("" for a quote inside); SQL
**         NULL is an empty field, the empty string "" (as psql --csv).
**   tsv   a header line, then tab-separated fields, as PostgreSQL's COPY
**         text format: backslash, tab, line feed and carriage return become
**         \\ \t \n \r; SQL NULL is \N.
**   json  JSON Lines: one object a row, keys the column names in order;
**         NULL is null, BOOLEAN true/false, numbers (TINYINT .. DECIMAL)
**         unquoted (NaN and Infinity, which JSON cannot spell, as strings),
**         everything else a string (bytes that are not UTF-8 as U+FFFD).
**
** Main routines: sl_format_parse, sl_format_header, sl_format_row.
*/
#include <string.h>

#include "shell.h"

int sl_format_parse(const char *name, sl_out_format *out)
{
    static const struct {
        const char *name;
        sl_out_format f;
    } names[] = {{"table", SL_FORMAT_TABLE}, {"csv", SL_FORMAT_CSV},
                 {"tsv", SL_FORMAT_TSV}, {"json", SL_FORMAT_JSON}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (sl_strcasecmp(name, names[i].name) == 0) {
            *out = names[i].f;
            return 0;
        }
    }
    return -1;
}

/* A CSV field: quoted when it must be. */
static void csv_field(sl_strbuf *sb, const char *v, size_t n)
{
    bool quote = n == 0 || v[0] == ' ' || v[n - 1] == ' ';
    for (size_t i = 0; i < n && !quote; i++)
        quote = v[i] == ',' || v[i] == '"' || v[i] == '\n' || v[i] == '\r';
    if (!quote) {
        sl_strbuf_append_n(sb, v, n);
        return;
    }
    sl_strbuf_append_char(sb, '"');
    for (size_t i = 0; i < n; i++) {
        if (v[i] == '"')
            sl_strbuf_append_char(sb, '"');
        sl_strbuf_append_char(sb, v[i]);
    }
    sl_strbuf_append_char(sb, '"');
}

/* A TSV field (COPY text escapes). */
static void tsv_field(sl_strbuf *sb, const char *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (v[i]) {
        case '\\': sl_strbuf_append(sb, "\\\\"); break;
        case '\t': sl_strbuf_append(sb, "\\t"); break;
        case '\n': sl_strbuf_append(sb, "\\n"); break;
        case '\r': sl_strbuf_append(sb, "\\r"); break;
        default: sl_strbuf_append_char(sb, v[i]); break;
        }
    }
}

/* A JSON string: control characters as \uXXXX, invalid UTF-8 as U+FFFD. */
static void json_string(sl_strbuf *sb, const char *v, size_t n)
{
    sl_strbuf_append_char(sb, '"');
    for (size_t i = 0; i < n;) {
        unsigned char b = (unsigned char)v[i];
        size_t len;
        bool valid;
        sl_utf8_char(v + i, n - i, &len, &valid);
        if (!valid) {
            sl_strbuf_append(sb, "\\ufffd");
        } else if (b == '"' || b == '\\') {
            sl_strbuf_append_char(sb, '\\');
            sl_strbuf_append_char(sb, (char)b);
        } else if (b == '\n') {
            sl_strbuf_append(sb, "\\n");
        } else if (b == '\r') {
            sl_strbuf_append(sb, "\\r");
        } else if (b == '\t') {
            sl_strbuf_append(sb, "\\t");
        } else if (b < 0x20 || b == 0x7F) {
            sl_strbuf_appendf(sb, "\\u%04x", b);
        } else {
            sl_strbuf_append_n(sb, v + i, len);
        }
        i += len;
    }
    sl_strbuf_append_char(sb, '"');
}

/* True when v[0..n) is a number as JSON spells it. */
static bool json_number(const char *v, size_t n)
{
    size_t i = 0;
    if (i < n && v[i] == '-')
        i++;
    if (i >= n || v[i] < '0' || v[i] > '9')
        return false;
    if (v[i] == '0' && i + 1 < n && v[i + 1] >= '0' && v[i + 1] <= '9')
        return false; /* no leading zeros */
    while (i < n && v[i] >= '0' && v[i] <= '9')
        i++;
    if (i < n && v[i] == '.') {
        i++;
        if (i >= n || v[i] < '0' || v[i] > '9')
            return false;
        while (i < n && v[i] >= '0' && v[i] <= '9')
            i++;
    }
    if (i < n && (v[i] == 'e' || v[i] == 'E')) {
        i++;
        if (i < n && (v[i] == '+' || v[i] == '-'))
            i++;
        if (i >= n || v[i] < '0' || v[i] > '9')
            return false;
        while (i < n && v[i] >= '0' && v[i] <= '9')
            i++;
    }
    return i == n;
}

void sl_format_header(sl_out_format f, int ncols, const char *const *names)
{
    if (f != SL_FORMAT_CSV && f != SL_FORMAT_TSV)
        return;
    sl_strbuf sb = SL_STRBUF_INIT;
    for (int c = 0; c < ncols; c++) {
        if (c > 0)
            sl_strbuf_append_char(&sb, f == SL_FORMAT_CSV ? ',' : '\t');
        const char *name = names[c] ? names[c] : "";
        if (f == SL_FORMAT_CSV)
            csv_field(&sb, name, strlen(name));
        else
            tsv_field(&sb, name, strlen(name));
    }
    sl_strbuf_append_char(&sb, '\n');
    fwrite(sb.buf, 1, sb.len, stdout);
    sl_strbuf_free(&sb);
}

void sl_format_row(sl_out_format f, int ncols, const char *const *names, const sl_type *types,
                   const char *const *values, const size_t *lens)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    if (f == SL_FORMAT_JSON)
        sl_strbuf_append_char(&sb, '{');
    for (int c = 0; c < ncols; c++) {
        const char *v = values ? values[c] : NULL;
        size_t n = v ? lens[c] : 0;
        if (f == SL_FORMAT_CSV) {
            if (c > 0)
                sl_strbuf_append_char(&sb, ',');
            if (v)
                csv_field(&sb, v, n);
        } else if (f == SL_FORMAT_TSV) {
            if (c > 0)
                sl_strbuf_append_char(&sb, '\t');
            if (v)
                tsv_field(&sb, v, n);
            else
                sl_strbuf_append(&sb, "\\N");
        } else {
            if (c > 0)
                sl_strbuf_append_char(&sb, ',');
            const char *name = names[c] ? names[c] : "";
            json_string(&sb, name, strlen(name));
            sl_strbuf_append_char(&sb, ':');
            sl_type_id t = types[c].id;
            if (!v)
                sl_strbuf_append(&sb, "null");
            else if (t == SL_TYPE_BOOLEAN && (sl_strcasecmp(v, "true") == 0 ||
                                              sl_strcasecmp(v, "false") == 0))
                sl_strbuf_append(&sb, sl_strcasecmp(v, "true") == 0 ? "true" : "false");
            else if (sl_type_is_numeric(t) && json_number(v, n))
                sl_strbuf_append_n(&sb, v, n);
            else
                json_string(&sb, v, n);
        }
    }
    if (f == SL_FORMAT_JSON)
        sl_strbuf_append_char(&sb, '}');
    sl_strbuf_append_char(&sb, '\n');
    fwrite(sb.buf, 1, sb.len, stdout);
    sl_strbuf_free(&sb);
}
