/*
** codec_json.c — the json row codec (Flink's JSON format): one JSON object
** per record, fields by column name.
**
** Decoding. Jansson parses and validates the record (json_loadb with
** JSON_DECODE_INT_AS_REAL, so that an integer too big for 64 bits is not a
** parse error, and JSON_ALLOW_NUL). Jansson keeps only a double for a
** number, so numbers are never read from it: after a successful parse, a
** small scanner (sl__json_spans) walks the top-level object of the same,
** already validated text and records, for each column, the byte span of its
** member's value (the last one when a key repeats, as Jansson keeps). A
** number is then parsed from its original lexeme: DECIMAL exactly with
** sl_dec_parse ("0.1" is exactly 0.1, 38 digits survive), integers exactly
** (an int64 beyond 2^53 stays exact), FLOAT/DOUBLE with strtod. Strings,
** booleans and null come from Jansson's tree.
**
** Per column: missing -> NULL (an error with 'json.fail-on-missing-field');
** null -> NULL; NOT NULL columns reject both. Strings are accepted for every
** type and parsed as its text (Flink: "12" for INT); numbers for numeric
** and string columns (a string column gets the lexeme); true/false for
** BOOLEAN and string columns; an object or array only for a string column
** (its JSON text as written). Anything else is a malformed record naming
** the field. An empty or blank record is not a record (SL_CODEC_NONE).
**
** Encoding writes {"col":value,...} with the columns in order, compact.
** Strings are escaped (", \, control characters); invalid UTF-8 in a value
** is replaced by U+FFFD (written as \ufffd), so the output is always valid
** JSON. DECIMAL is a JSON number, exact: as Java's BigDecimal.toString()
** (Flink's default: "1.0E-7" for tiny values) or plain with
** 'json.encode.decimal-as-plain-number'. FLOAT/DOUBLE: the shortest text
** that reads back the same; NaN and infinities as the strings "NaN",
** "Infinity", "-Infinity" (Jackson's default). BYTES: base64. Times: text
** in 'json.timestamp-format.standard'.
**
** Main routines: sl__codec_json_new and its decode / encode operations.
*/
#include "codec_int.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

typedef struct sl__json_codec {
    sl_codec base;       /* common part (first) */
    bool fail_missing;   /* 'json.fail-on-missing-field' */
    bool iso;            /* 'json.timestamp-format.standard' = 'ISO-8601' */
    bool ignore_nulls;   /* 'json.encode.ignore-null-fields' */
    bool plain_decimal;  /* 'json.encode.decimal-as-plain-number' */
    int *order;          /* column indexes sorted by name bytes (for key lookup) */
    size_t *span_off;    /* per column: offset of its value in the record */
    size_t *span_len;    /* per column: length of that value (0 = absent) */
} sl__json_codec;

static bool sl__json_type_ok(sl_type t)
{
    return t.id != SL_TYPE_NULL && !sl_type_is_interval(t.id) && t.id < SL_TYPE__COUNT;
}

/* Compare bytes k[0..kn) with a NUL-terminated name, memcmp order. */
static int sl__key_cmp(const char *k, size_t kn, const char *name)
{
    size_t nn = strlen(name);
    int c = memcmp(k, name, kn < nn ? kn : nn);
    if (c)
        return c;
    return kn < nn ? -1 : kn > nn ? 1 : 0;
}

/* The column named exactly k[0..kn), or -1. */
static int sl__json_find(const sl__json_codec *j, const char *k, size_t kn)
{
    int lo = 0, hi = j->base.ncols - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = sl__key_cmp(k, kn, j->base.names[j->order[mid]]);
        if (c == 0)
            return j->order[mid];
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return -1;
}

/* ------------------------------------------------------------------------
** The span scanner. It runs only on text Jansson accepted, but checks
** every bound anyway; 0 = failure.
*/
static size_t sl__ws(const char *s, size_t i, size_t n)
{
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* s[i] == '"': the index after the closing quote, or 0. */
static size_t sl__skip_string(const char *s, size_t i, size_t n, bool *escaped)
{
    for (i++; i < n; i++) {
        if (s[i] == '\\') {
            *escaped = true;
            i++;
        } else if (s[i] == '"') {
            return i + 1;
        }
    }
    return 0;
}

/* The index after the value starting at s[i], or 0. */
static size_t sl__skip_value(const char *s, size_t i, size_t n)
{
    bool esc = false;
    if (i >= n)
        return 0;
    if (s[i] == '"')
        return sl__skip_string(s, i, n, &esc);
    if (s[i] == '{' || s[i] == '[') {
        size_t depth = 0;
        while (i < n) {
            char ch = s[i];
            if (ch == '"') {
                i = sl__skip_string(s, i, n, &esc);
                if (!i)
                    return 0;
                continue;
            }
            if (ch == '{' || ch == '[')
                depth++;
            else if ((ch == '}' || ch == ']') && --depth == 0)
                return i + 1;
            i++;
        }
        return 0;
    }
    size_t start = i;
    while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\t' &&
           s[i] != '\n' && s[i] != '\r')
        i++;
    return i > start ? i : 0;
}

/* Record the member whose key is the string token s[k0..k1) (quotes
** included) and whose value is s[v0..v1). */
static void sl__json_member(sl__json_codec *j, const char *s, size_t k0, size_t k1, bool escaped,
                            size_t v0, size_t v1)
{
    int col;
    if (!escaped) {
        col = sl__json_find(j, s + k0 + 1, k1 - k0 - 2);
    } else {
        json_t *k = json_loadb(s + k0, k1 - k0, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
        col = json_is_string(k) ? sl__json_find(j, json_string_value(k), json_string_length(k))
                                : -1;
        json_decref(k);
    }
    if (col >= 0) {
        j->span_off[col] = v0;
        j->span_len[col] = v1 - v0;
    }
}

/* Find the value span of every column in the top-level object. 0 or -1. */
static int sl__json_spans(sl__json_codec *j, const char *s, size_t n)
{
    for (int i = 0; i < j->base.ncols; i++)
        j->span_len[i] = 0;
    size_t i = sl__ws(s, 0, n);
    if (i >= n || s[i] != '{')
        return -1;
    i = sl__ws(s, i + 1, n);
    if (i < n && s[i] == '}')
        return 0;
    for (;;) {
        bool escaped = false;
        if (i >= n || s[i] != '"')
            return -1;
        size_t k0 = i, k1 = sl__skip_string(s, i, n, &escaped);
        if (!k1)
            return -1;
        i = sl__ws(s, k1, n);
        if (i >= n || s[i] != ':')
            return -1;
        size_t v0 = sl__ws(s, i + 1, n), v1 = sl__skip_value(s, v0, n);
        if (!v1)
            return -1;
        sl__json_member(j, s, k0, k1, escaped, v0, v1);
        i = sl__ws(s, v1, n);
        if (i < n && s[i] == ',') {
            i = sl__ws(s, i + 1, n);
            continue;
        }
        return i < n && s[i] == '}' ? 0 : -1;
    }
}

/* ------------------------------------------------------------------------
** Decoding.
*/
static const char *sl__json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "a JSON object";
    case JSON_ARRAY: return "a JSON array";
    default: return "a JSON value";
    }
}

/* Decode the value v of column col (its text at rec[span]) into vals. */
static int sl__json_field(sl__json_codec *j, int col, json_t *v, const char *rec, sl_error *err)
{
    sl_codec *c = &j->base;
    sl_type t = c->types[col];
    const char *span = rec + j->span_off[col];
    size_t slen = j->span_len[col];
    bool text_col = sl_type_is_string(t.id);
    int rc;
    switch (json_typeof(v)) {
    case JSON_NULL: return 0; /* NULL (NOT NULL checked by the caller) */
    case JSON_STRING: {
        const char *s = json_string_value(v);
        size_t n = json_string_length(v);
        rc = sl__codec_parse_text(c, col, s, n, j->iso);
        return rc == SL__PARSE_OK ? 0 : sl__codec_bad_value(c, err, col, rc, s, n, true);
    }
    case JSON_INTEGER:
    case JSON_REAL:
        if (!slen) /* cannot happen: the scanner saw what Jansson saw */
            return sl__codec_malformed(c, err, "field \"%s\": number text not found",
                                       c->names[col]);
        if (!text_col && !sl_type_is_numeric(t.id))
            return sl__codec_bad_value(c, err, col, SL__PARSE_INVALID, span, slen, false);
        rc = sl__codec_parse_text(c, col, span, slen, j->iso);
        return rc == SL__PARSE_OK ? 0 : sl__codec_bad_value(c, err, col, rc, span, slen, false);
    case JSON_TRUE:
    case JSON_FALSE: {
        const char *s = json_is_true(v) ? "true" : "false";
        if (t.id != SL_TYPE_BOOLEAN && !text_col)
            return sl__codec_bad_value(c, err, col, SL__PARSE_INVALID, s, strlen(s), false);
        rc = sl__codec_parse_text(c, col, s, strlen(s), j->iso);
        return rc == SL__PARSE_OK ? 0 : sl__codec_bad_value(c, err, col, rc, s, strlen(s), false);
    }
    case JSON_OBJECT:
    case JSON_ARRAY:
        if (text_col && slen) {
            rc = sl__codec_parse_text(c, col, span, slen, j->iso);
            if (rc == SL__PARSE_OK)
                return 0;
        }
        {
            const char *k = sl__json_kind(v);
            return sl__codec_bad_value(c, err, col, SL__PARSE_INVALID, k, strlen(k), false);
        }
    }
    return sl__codec_malformed(c, err, "field \"%s\": unexpected JSON value", c->names[col]);
}

static int sl__json_decode(sl_codec *c, const char *rec, size_t len, sl_chunk *out,
                           sl_error *err)
{
    sl__json_codec *j = (sl__json_codec *)c;
    if (sl__ws(rec, 0, len) == len)
        return SL_CODEC_NONE;
    json_error_t je;
    json_t *root = json_loadb(rec, len, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL,
                              &je);
    if (!root) {
        sl_strbuf sb = SL_STRBUF_INIT;
        sl__codec_show(&sb, je.text, strnlen(je.text, sizeof je.text), false);
        int rc = je.line > 1 ? sl__codec_malformed(c, err, "invalid JSON at line %d, column %d: %s",
                                                   je.line, je.column, sl_strbuf_cstr(&sb))
                             : sl__codec_malformed(c, err, "invalid JSON at column %d: %s",
                                                   je.column, sl_strbuf_cstr(&sb));
        sl_strbuf_free(&sb);
        return rc;
    }
    int rc = 0;
    if (!json_is_object(root)) {
        const char *kind = json_is_array(root)    ? "an array"
                           : json_is_string(root) ? "a string"
                           : json_is_number(root) ? "a number"
                           : json_is_null(root)   ? "null"
                                                  : "a boolean";
        rc = sl__codec_malformed(c, err, "expected a JSON object, found %s", kind);
        goto done;
    }
    if (sl__json_spans(j, rec, len) != 0) {
        rc = sl__codec_malformed(c, err, "invalid JSON object");
        goto done;
    }
    sl__codec_row_begin(c);
    for (int i = 0; i < c->ncols; i++) {
        json_t *v = json_object_get(root, c->names[i]);
        if (!v && (j->fail_missing || c->types[i].not_null)) {
            rc = sl__codec_malformed(c, err, "field \"%s\" is missing", c->names[i]);
            goto done;
        }
        if (v && (rc = sl__json_field(j, i, v, rec, err)) != 0)
            goto done;
        if (c->vals[i].null && c->types[i].not_null) {
            rc = sl__codec_malformed(c, err, "field \"%s\" is null, but the column is NOT NULL",
                                     c->names[i]);
            goto done;
        }
    }
    sl__codec_row_commit(c, out);
    rc = SL_CODEC_ROW;
done:
    json_decref(root);
    return rc;
}

/* ------------------------------------------------------------------------
** Encoding.
*/

/* Append s[0..n) as a JSON string: quotes, escapes, invalid UTF-8 -> U+FFFD. */
static void sl__json_string(sl_strbuf *sb, const char *s, size_t n)
{
    sl_strbuf_append_char(sb, '"');
    size_t i = 0, run = 0; /* s[run..i) is pending plain text */
    while (i < n) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x20 && ch < 0x80 && ch != '"' && ch != '\\') {
            i++;
            continue;
        }
        if (ch >= 0x80) {
            size_t k = sl__utf8_seq(s + i, n - i);
            if (k) {
                i += k;
                continue;
            }
        }
        sl_strbuf_append_n(sb, s + run, i - run);
        switch (ch) {
        case '"': sl_strbuf_append(sb, "\\\""); break;
        case '\\': sl_strbuf_append(sb, "\\\\"); break;
        case '\b': sl_strbuf_append(sb, "\\b"); break;
        case '\f': sl_strbuf_append(sb, "\\f"); break;
        case '\n': sl_strbuf_append(sb, "\\n"); break;
        case '\r': sl_strbuf_append(sb, "\\r"); break;
        case '\t': sl_strbuf_append(sb, "\\t"); break;
        default:
            if (ch < 0x20)
                sl_strbuf_appendf(sb, "\\u%04x", ch);
            else
                sl_strbuf_append(sb, "\\ufffd"); /* a byte of invalid UTF-8 */
            break;
        }
        run = ++i;
    }
    sl_strbuf_append_n(sb, s + run, i - run);
    sl_strbuf_append_char(sb, '"');
}

static void sl__json_value(sl__json_codec *j, const sl_vector *v, int r, sl_strbuf *out)
{
    switch (v->type.id) {
    case SL_TYPE_BOOLEAN: sl_strbuf_append(out, v->v.b[r] ? "true" : "false"); break;
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT: sl_strbuf_appendf(out, "%lld", (long long)v->v.i64[r]); break;
    case SL_TYPE_FLOAT:
    case SL_TYPE_DOUBLE: {
        double d = v->v.f64[r];
        bool special = isnan(d) || isinf(d);
        if (special)
            sl_strbuf_append_char(out, '"');
        sl__codec_fmt_double(out, d, v->type.id == SL_TYPE_FLOAT);
        if (special)
            sl_strbuf_append_char(out, '"');
        break;
    }
    case SL_TYPE_DECIMAL:
        sl__codec_fmt_decimal(out, v->v.i128[r], v->type.scale, j->plain_decimal);
        break;
    case SL_TYPE_CHAR:
    case SL_TYPE_VARCHAR: sl__json_string(out, v->v.str[r].ptr, v->v.str[r].len); break;
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY:
        sl_strbuf_append_char(out, '"');
        sl__base64_encode(out, (const uint8_t *)v->v.str[r].ptr, v->v.str[r].len);
        sl_strbuf_append_char(out, '"');
        break;
    default:
        sl_strbuf_append_char(out, '"');
        sl__codec_fmt_temporal(out, v->type, v->v.i64[r], j->iso);
        sl_strbuf_append_char(out, '"');
        break;
    }
}

static int sl__json_encode(sl_codec *c, const sl_chunk *in, int r, sl_strbuf *out,
                           sl_error *err)
{
    sl__json_codec *j = (sl__json_codec *)c;
    bool first = true;
    sl_strbuf_append_char(out, '{');
    for (int i = 0; i < c->ncols; i++) {
        const sl_vector *v = &in->cols[i];
        bool null = v->nulls[r] != 0;
        if (null && j->ignore_nulls)
            continue;
        if (!first)
            sl_strbuf_append_char(out, ',');
        first = false;
        sl__json_string(out, c->names[i], strlen(c->names[i]));
        sl_strbuf_append_char(out, ':');
        if (null)
            sl_strbuf_append(out, "null");
        else
            sl__json_value(j, v, r, out);
    }
    sl_strbuf_append_char(out, '}');
    return 0;
}

static void sl__json_free(sl_codec *c)
{
    sl__json_codec *j = (sl__json_codec *)c;
    sl_free(j->order);
    sl_free(j->span_off);
    sl_free(j->span_len);
}

static const sl__codec_ops sl__json_ops = {
    .decode = sl__json_decode,
    .encode = sl__json_encode,
    .free = sl__json_free,
};

sl_codec *sl__codec_json_new(const sl_kvlist *opts, int ncols, const char *const *names,
                             const sl_type *types, sl_error *err)
{
    bool fail_missing, ignore, ignore_nulls, plain;
    if (sl__codec_check_types("json", ncols, names, types, sl__json_type_ok, err) != 0 ||
        sl__codec_opt_bool(opts, "json.fail-on-missing-field", false, &fail_missing, err) != 0 ||
        sl__codec_opt_bool(opts, "json.ignore-parse-errors", false, &ignore, err) != 0 ||
        sl__codec_opt_bool(opts, "json.encode.ignore-null-fields", false, &ignore_nulls, err) !=
            0 ||
        sl__codec_opt_bool(opts, "json.encode.decimal-as-plain-number", false, &plain, err) != 0)
        return NULL;
    const sl_kv *std = sl_kvlist_find(opts, "json.timestamp-format.standard");
    bool iso = false;
    if (std && std->value) {
        if (sl_strcasecmp(std->value, "ISO-8601") == 0) {
            iso = true;
        } else if (sl_strcasecmp(std->value, "SQL") != 0) {
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, std->value_pos,
                         "invalid value for option 'json.timestamp-format.standard': \"%s\"",
                         std->value);
            return NULL;
        }
    }
    sl__json_codec *j = sl_calloc(1, sizeof *j);
    sl__codec_init(&j->base, &sl__json_ops, "JSON", ncols, names, types);
    j->base.ignore_errors = ignore;
    j->fail_missing = fail_missing;
    j->iso = iso;
    j->ignore_nulls = ignore_nulls;
    j->plain_decimal = plain;
    size_t n = (size_t)(ncols ? ncols : 1);
    j->order = sl_calloc(n, sizeof(int));
    j->span_off = sl_calloc(n, sizeof(size_t));
    j->span_len = sl_calloc(n, sizeof(size_t));
    for (int i = 0; i < ncols; i++) { /* insertion sort by name: ncols is small */
        int k = i;
        while (k > 0 && strcmp(names[j->order[k - 1]], names[i]) > 0) {
            j->order[k] = j->order[k - 1];
            k--;
        }
        j->order[k] = i;
    }
    return &j->base;
}
