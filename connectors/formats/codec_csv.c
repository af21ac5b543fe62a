/*
** codec_csv.c — the csv row codec (Flink's CSV format, RFC 4180): one
** record of delimiter-separated values.
**
** Decoding gets one record without its line break (a trailing "\n" or
** "\r\n", as a Kafka message may have, is dropped). Fields are split by
** 'csv.field-delimiter'; a field that starts with 'csv.quote-character' is
** quoted: it ends at the next lone quote, "" inside stands for one quote,
** line breaks inside are data, and only the delimiter or the end of the
** record may follow it. A quote elsewhere in an unquoted field is an
** ordinary character. 'csv.escape-character' (unset by default) makes the
** next character literal, inside or outside quotes. The number of fields
** must equal the number of columns.
**
** Line framing (files, stdin): sl__csv_line_end ends a record at the first
** '\n' outside a quoted field and not escaped, so a multi-line quoted field
** (which the encoder writes for a value holding a line break) reads back
** whole; with 'csv.allow-comments' a record starting with '#' ends at the
** first '\n'.
**
** NULL: a field whose text as written (before unquoting) equals
** 'csv.null-literal' is NULL, so a quoted "null" stays a string. Unset, the
** null literal is the empty field: an empty unquoted field is NULL for
** every type and the empty string is written quoted ("") — so NULL and ''
** read back as they were (as PostgreSQL's CSV does; Flink reads both as ''
** and writes both as an empty field). With a null literal set, an empty
** field is the empty string for CHAR/VARCHAR, empty bytes for
** BINARY/VARBINARY, and NULL for the other types. Fields of other types are
** trimmed of surrounding blanks before parsing (Java's trim(), as Flink
** does); strings are taken as they are and must be valid UTF-8 (else a
** malformed record). Values are read with sl__codec_parse_text
** (timestamps in the SQL form, TIMESTAMP_LTZ with a trailing 'Z', BYTES
** base64). An empty line is not a record, except in a one-column table
** (RFC 4180: one empty field, so a NULL written as an empty line reads
** back); with 'csv.allow-comments' a line starting with '#' is not a
** record.
**
** Encoding joins the fields with the delimiter; a field is quoted (RFC 4180,
** quotes doubled, the escape character doubled) when it holds the
** delimiter, the quote or escape character, CR or LF, when its text equals
** the null literal (the empty string, by default), or when it would start a
** comment line. With quoting disabled the escape character is put before
** such characters instead; without either, or for an empty string that
** would read as NULL, such a value cannot be written (22023). NULL is
** written as the null literal.
** DECIMAL is written plain, doubles as the shortest exact text; a DATE
** outside 0000-01-01 .. 9999-12-31 is refused (22023: it would not read
** back).
**
** Main routines: sl__codec_csv_new and its decode / encode / line_end
** operations.
*/
#include "codec_int.h"

#include <stdio.h>
#include <string.h>

typedef struct sl__csv_codec {
    sl_codec base;     /* common part (first) */
    char delim;        /* field delimiter */
    int quote;         /* quote character, or -1 when quoting is disabled */
    int esc;           /* escape character, or -1 */
    bool comments;     /* 'csv.allow-comments' */
    char *null_lit;    /* 'csv.null-literal' ("" when unset) */
    size_t null_len;   /* its length */
    sl_strbuf fields;  /* decode: the unquoted text of every field, back to back */
    size_t *foff;      /* decode: per column, offset of its field's text in fields */
    size_t *flen;      /* decode: per column, length of that text */
    bool *fnull;       /* decode: per column, the field equals the null literal */
    sl_strbuf text;    /* encode: text of one value */
} sl__csv_codec;

static bool sl__csv_type_ok(sl_type t)
{
    /* ARRAY and MAP: refused (Flink's csv has no MAP; its ';'-joined arrays are not here) */
    return t.id != SL_TYPE_NULL && !sl_type_is_interval(t.id) && !sl_type_is_composite(t.id) &&
           t.id < SL_TYPE__COUNT;
}

/* ------------------------------------------------------------------------
** Decoding.
*/

/* The name of field number f for messages: the column's, or its number. */
static void sl__csv_field_name(const sl__csv_codec *k, int f, char *buf, size_t cap)
{
    if (f < k->base.ncols)
        snprintf(buf, cap, "field \"%s\"", k->base.names[f]);
    else
        snprintf(buf, cap, "field %d", f + 1);
}

static int sl__csv_syntax(sl__csv_codec *k, sl_error *err, int f, const char *what, size_t at)
{
    char name[300];
    sl__csv_field_name(k, f, name, sizeof name);
    return sl__codec_malformed(&k->base, err, "%s: %s at byte %zu", name, what, at + 1);
}

/* Split rec into fields (texts into k->fields); *nf = the number of fields.
** 0, or a decode result (malformed). */
static int sl__csv_split(sl__csv_codec *k, const char *rec, size_t len, int *nf, sl_error *err)
{
    const char delim = k->delim;
    const int quote = k->quote, esc = k->esc;
    sl_strbuf *fb = &k->fields;
    size_t i = 0;
    int f = 0;
    sl_strbuf_reset(fb);
    for (;;) {
        size_t start = i, off = fb->len;
        if (quote >= 0 && i < len && rec[i] == (char)quote) {
            bool closed = false;
            for (i++; i < len;) {
                char ch = rec[i];
                if (esc >= 0 && ch == (char)esc) {
                    if (i + 1 >= len)
                        return sl__csv_syntax(k, err, f, "escape character at the end of the line",
                                              i);
                    sl_strbuf_append_char(fb, rec[i + 1]);
                    i += 2;
                } else if (ch == (char)quote) {
                    if (i + 1 < len && rec[i + 1] == (char)quote) {
                        sl_strbuf_append_char(fb, ch);
                        i += 2;
                    } else {
                        i++;
                        closed = true;
                        break;
                    }
                } else {
                    size_t run = i + 1; /* plain bytes up to the next special one */
                    while (run < len && rec[run] != (char)quote && (esc < 0 || rec[run] != (char)esc))
                        run++;
                    sl_strbuf_append_n(fb, rec + i, run - i);
                    i = run;
                }
            }
            if (!closed)
                return sl__csv_syntax(k, err, f, "unterminated quoted field starting", start);
            if (i < len && rec[i] != delim)
                return sl__csv_syntax(k, err, f, "unexpected character after the closing quote", i);
        } else {
            while (i < len && rec[i] != delim) {
                if (esc >= 0 && rec[i] == (char)esc) {
                    if (i + 1 >= len)
                        return sl__csv_syntax(k, err, f, "escape character at the end of the line",
                                              i);
                    sl_strbuf_append_char(fb, rec[i + 1]);
                    i += 2;
                    continue;
                }
                size_t run = i + 1;
                while (run < len && rec[run] != delim && (esc < 0 || rec[run] != (char)esc))
                    run++;
                sl_strbuf_append_n(fb, rec + i, run - i);
                i = run;
            }
        }
        if (f < k->base.ncols) {
            k->foff[f] = off;
            k->flen[f] = fb->len - off;
            k->fnull[f] = k->null_lit && i - start == k->null_len &&
                          memcmp(rec + start, k->null_lit, k->null_len) == 0;
        }
        if (f == INT32_MAX - 1)
            break;
        f++;
        if (i >= len)
            break;
        i++; /* the delimiter; a delimiter at the end is followed by an empty field */
    }
    *nf = f;
    return 0;
}

static int sl__csv_decode(sl_codec *c, const char *rec, size_t len, sl_chunk *out, sl_error *err)
{
    sl__csv_codec *k = (sl__csv_codec *)c;
    if (len > 0 && rec[len - 1] == '\n') { /* a line break after the record? */
        int st = c->scan_state, prev = c->scan_prev;
        size_t scanned = 0, reclen = len;
        if (sl_codec_line_end(c, rec, len, &scanned, &reclen) == len - 1)
            len = reclen;
        c->scan_state = st;
        c->scan_prev = prev;
    }
    if ((len == 0 && c->ncols != 1) || (k->comments && len > 0 && rec[0] == '#'))
        return SL_CODEC_NONE;
    int nf = 0;
    int rc = sl__csv_split(k, rec, len, &nf, err);
    if (rc != 0)
        return rc;
    if (nf != c->ncols)
        return sl__codec_malformed(c, err, "expected %d field%s, found %d", c->ncols,
                                   c->ncols == 1 ? "" : "s", nf);
    sl__codec_row_begin(c);
    for (int i = 0; i < c->ncols; i++) {
        sl_type t = c->types[i];
        const char *s = k->flen[i] ? k->fields.buf + k->foff[i] : "";
        size_t n = k->flen[i];
        bool null = k->fnull[i] ||
                    (n == 0 && !sl_type_is_string(t.id) && !sl_type_is_binary(t.id));
        if (null) {
            if (t.not_null)
                return sl__codec_malformed(c, err, "field \"%s\" is null, but the column is NOT NULL",
                                           c->names[i]);
            continue;
        }
        int prc = sl__codec_parse_text(c, i, s, n, false);
        if (prc != SL__PARSE_OK)
            return sl__codec_bad_value(c, err, i, prc, s, n, true);
    }
    sl__codec_row_commit(c, out);
    return SL_CODEC_ROW;
}

/* ------------------------------------------------------------------------
** Encoding.
*/

/* The text of a non-NULL value (CSV spelling) into sb. */
static void sl__csv_value_text(const sl_vector *v, int r, sl_strbuf *sb)
{
    switch (v->type.id) {
    case SL_TYPE_BOOLEAN: sl_strbuf_append(sb, v->v.b[r] ? "true" : "false"); break;
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT: sl_strbuf_appendf(sb, "%lld", (long long)v->v.i64[r]); break;
    case SL_TYPE_FLOAT:
    case SL_TYPE_DOUBLE: sl__codec_fmt_double(sb, v->v.f64[r], v->type.id == SL_TYPE_FLOAT); break;
    case SL_TYPE_DECIMAL: sl__codec_fmt_decimal(sb, v->v.i128[r], v->type.scale, true); break;
    case SL_TYPE_CHAR:
    case SL_TYPE_VARCHAR: sl_strbuf_append_n(sb, v->v.str[r].ptr, v->v.str[r].len); break;
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY:
        sl__base64_encode(sb, (const uint8_t *)v->v.str[r].ptr, v->v.str[r].len);
        break;
    default: sl__codec_fmt_temporal(sb, v->type, v->v.i64[r], false); break;
    }
}

static int sl__csv_cannot_write(sl__csv_codec *k, int col, sl_error *err)
{
    sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1, "cannot write CSV record");
    sl_error_detail(err,
                    "field \"%s\": the value needs quoting (it holds the field delimiter, a line "
                    "break, or is empty or equal to the null literal), but quoting is disabled and "
                    "no escape character is set",
                    k->base.names[col]);
    sl_error_hint(err, "Set 'csv.escape-character', or enable quoting.");
    return -1;
}

/* Append the field s[0..n) of column col, quoted or escaped as needed. */
static int sl__csv_field(sl__csv_codec *k, int col, const char *s, size_t n, sl_strbuf *out,
                         sl_error *err)
{
    const int quote = k->quote, esc = k->esc;
    bool need = false;
    for (size_t i = 0; i < n && !need; i++) {
        char ch = s[i];
        need = ch == k->delim || ch == '\r' || ch == '\n' || (quote >= 0 && ch == (char)quote) ||
               (esc >= 0 && ch == (char)esc);
    }
    bool lead = false; /* the first character must not be read as it is */
    if (col == 0 && n > 0 && s[0] == '#' && k->comments)
        lead = true;
    if (n == k->null_len && (n == 0 || memcmp(s, k->null_lit, n) == 0))
        lead = true; /* would read as NULL (the empty string, by default) */
    if (!need && !lead) {
        sl_strbuf_append_n(out, s, n);
        return 0;
    }
    if (quote >= 0) {
        sl_strbuf_append_char(out, (char)quote);
        for (size_t i = 0; i < n; i++) {
            if (s[i] == (char)quote || (esc >= 0 && s[i] == (char)esc))
                sl_strbuf_append_char(out, s[i]);
            sl_strbuf_append_char(out, s[i]);
        }
        sl_strbuf_append_char(out, (char)quote);
        return 0;
    }
    if (esc < 0 || n == 0)
        return sl__csv_cannot_write(k, col, err);
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch == k->delim || ch == '\r' || ch == '\n' || ch == (char)esc || (i == 0 && lead))
            sl_strbuf_append_char(out, (char)esc);
        sl_strbuf_append_char(out, ch);
    }
    return 0;
}

static int sl__csv_encode(sl_codec *c, const sl_chunk *in, int r, sl_strbuf *out, sl_error *err)
{
    sl__csv_codec *k = (sl__csv_codec *)c;
    size_t start = out->len;
    if (sl__codec_check_dates(c, in, r, err) != 0)
        return -1;
    for (int i = 0; i < c->ncols; i++) {
        const sl_vector *v = &in->cols[sl__codec_col(c, i)];
        if (i > 0)
            sl_strbuf_append_char(out, k->delim);
        sl_strbuf_reset(&k->text);
        if (v->nulls[r]) {
            sl_strbuf_append(out, k->null_lit);
            continue;
        }
        sl__csv_value_text(v, r, &k->text);
        if (sl__csv_field(k, i, k->text.len ? k->text.buf : "", k->text.len, out, err) != 0) {
            out->len = start; /* nothing of this record */
            if (out->buf)
                out->buf[start] = 0;
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------
** Line framing: where a record ends. States of the scanner at *scanned.
*/
enum {
    SL__CSV_AT_START = 0, /* at the start of a field (0: the start of the record) */
    SL__CSV_PLAIN,        /* in an unquoted field */
    SL__CSV_PLAIN_ESC,    /* after the escape character in an unquoted field */
    SL__CSV_QUOTED,       /* in a quoted field */
    SL__CSV_QUOTED_ESC,   /* after the escape character in a quoted field */
    SL__CSV_QUOTE,        /* after a quote in a quoted field: closing, or doubled */
    SL__CSV_COMMENT,      /* in a comment line */
};

static size_t sl__csv_line_end(sl_codec *c, const char *rec, size_t n, size_t *scanned,
                               bool *cr_data)
{
    sl__csv_codec *k = (sl__csv_codec *)c;
    const char delim = k->delim;
    const int quote = k->quote, esc = k->esc;
    int st = c->scan_state, prev = c->scan_prev;
    size_t i = *scanned;
    if (i == 0 && n > 0 && k->comments && rec[0] == '#')
        st = SL__CSV_COMMENT;
    for (; i < n; i++) {
        /* Fast paths: runs of bytes that leave the state as it is. */
        if (st == SL__CSV_PLAIN) {
            size_t j = i;
            while (j < n && rec[j] != '\n' && rec[j] != delim && (esc < 0 || rec[j] != (char)esc))
                j++;
            if (j > i) {
                prev = SL__CSV_PLAIN;
                i = j;
                if (i >= n)
                    break;
            }
        } else if (st == SL__CSV_QUOTED && esc < 0) {
            const char *q = memchr(rec + i, quote, n - i);
            size_t j = q ? (size_t)(q - rec) : n;
            if (j > i) {
                prev = SL__CSV_QUOTED;
                i = j;
                if (i >= n)
                    break;
            }
        } else if (st == SL__CSV_COMMENT) {
            const char *nl = memchr(rec + i, '\n', n - i);
            size_t j = nl ? (size_t)(nl - rec) : n;
            if (j > i) {
                prev = SL__CSV_COMMENT;
                i = j;
                if (i >= n)
                    break;
            }
        }
        char ch = rec[i];
        if (ch == '\n' && (st == SL__CSV_AT_START || st == SL__CSV_PLAIN || st == SL__CSV_QUOTE ||
                           st == SL__CSV_COMMENT))
            break;
        prev = st;
        switch (st) {
        case SL__CSV_QUOTE:
            if (quote >= 0 && ch == (char)quote) {
                st = SL__CSV_QUOTED; /* a doubled quote */
                continue;
            }
            /* the quote closed the field: ch is read as after it */
            /* fall through */
        case SL__CSV_PLAIN:
            st = ch == delim ? SL__CSV_AT_START
                 : esc >= 0 && ch == (char)esc ? SL__CSV_PLAIN_ESC
                                               : SL__CSV_PLAIN;
            break;
        case SL__CSV_AT_START:
            st = quote >= 0 && ch == (char)quote ? SL__CSV_QUOTED
                 : ch == delim                   ? SL__CSV_AT_START
                 : esc >= 0 && ch == (char)esc   ? SL__CSV_PLAIN_ESC
                                                 : SL__CSV_PLAIN;
            break;
        case SL__CSV_PLAIN_ESC: st = SL__CSV_PLAIN; break;
        case SL__CSV_QUOTED:
            if (esc >= 0 && ch == (char)esc)
                st = SL__CSV_QUOTED_ESC;
            else if (quote >= 0 && ch == (char)quote)
                st = SL__CSV_QUOTE;
            break;
        case SL__CSV_QUOTED_ESC: st = SL__CSV_QUOTED; break;
        default: break; /* SL__CSV_COMMENT */
        }
    }
    c->scan_state = st;
    c->scan_prev = prev;
    *scanned = i;
    /* rec[i-1] is a '\r' read after the escape character: data */
    *cr_data = i > 0 && (prev == SL__CSV_PLAIN_ESC || prev == SL__CSV_QUOTED_ESC ||
                         prev == SL__CSV_QUOTED);
    return i;
}

static void sl__csv_free(sl_codec *c)
{
    sl__csv_codec *k = (sl__csv_codec *)c;
    sl_free(k->null_lit);
    sl_strbuf_free(&k->fields);
    sl_strbuf_free(&k->text);
    sl_free(k->foff);
    sl_free(k->flen);
    sl_free(k->fnull);
}

static const sl__codec_ops sl__csv_ops = {
    .decode = sl__csv_decode,
    .encode = sl__csv_encode,
    .free = sl__csv_free,
    .line_end = sl__csv_line_end,
};

/* A one-character option: *out = its character, def when absent ('\t'
** written as backslash-t is a tab when allow_tab). -1 with err. */
static int sl__csv_char(const sl_kvlist *opts, const char *key, int def, bool allow_tab, int *out,
                        sl_error *err)
{
    const sl_kv *kv = sl_kvlist_find(opts, key);
    *out = def;
    if (!kv || !kv->value)
        return 0;
    if (strlen(kv->value) == 1)
        *out = (unsigned char)kv->value[0];
    else if (allow_tab && strcmp(kv->value, "\\t") == 0)
        *out = '\t';
    else
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->value_pos,
                            "invalid value for option '%s': \"%s\" is not a single character", key,
                            kv->value);
    return 0;
}

sl_codec *sl__codec_csv_new(const sl_kvlist *opts, int ncols, const char *const *names,
                            const sl_type *types, sl_error *err)
{
    bool disable_quote, comments, ignore;
    int delim, quote, esc;
    if (sl__codec_check_types("csv", ncols, names, types, sl__csv_type_ok, err) != 0 ||
        sl__codec_opt_bool(opts, "csv.disable-quote-character", false, &disable_quote, err) != 0 ||
        sl__codec_opt_bool(opts, "csv.allow-comments", false, &comments, err) != 0 ||
        sl__codec_opt_bool(opts, "csv.ignore-parse-errors", false, &ignore, err) != 0 ||
        sl__csv_char(opts, "csv.field-delimiter", ',', true, &delim, err) != 0 ||
        sl__csv_char(opts, "csv.quote-character", '"', false, &quote, err) != 0 ||
        sl__csv_char(opts, "csv.escape-character", -1, false, &esc, err) != 0)
        return NULL;
    if (disable_quote)
        quote = -1;
    if (delim == quote || delim == esc || (quote >= 0 && quote == esc) || delim == '\n' ||
        delim == '\r') {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                     "the CSV field delimiter, quote and escape characters must differ, and the "
                     "delimiter cannot be a line break");
        return NULL;
    }
    const char *null_lit = sl_kvlist_get(opts, "csv.null-literal");
    if (null_lit && strchr(null_lit, delim)) {
        const sl_kv *kv = sl_kvlist_find(opts, "csv.null-literal");
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->value_pos,
                     "option 'csv.null-literal' cannot contain the field delimiter");
        return NULL;
    }
    sl__csv_codec *k = sl_calloc(1, sizeof *k);
    sl__codec_init(&k->base, &sl__csv_ops, "CSV", ncols, names, types);
    k->base.ignore_errors = ignore;
    k->delim = (char)delim;
    k->quote = quote;
    k->esc = esc;
    k->comments = comments;
    k->null_lit = sl_strdup(null_lit ? null_lit : "");
    k->null_len = strlen(k->null_lit);
    size_t n = (size_t)(ncols ? ncols : 1);
    k->foff = sl_calloc(n, sizeof(size_t));
    k->flen = sl_calloc(n, sizeof(size_t));
    k->fnull = sl_calloc(n, sizeof(bool));
    return &k->base;
}
