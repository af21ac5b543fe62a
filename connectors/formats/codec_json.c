/*
** codec_json.c — the json row codec (Flink's JSON format): one JSON object
** per record, fields by column name.
**
** Decoding. One pass (sl__json_parse) validates the record as strictly as
** Jansson would (the fuzzer checks that the two agree) and records, for
** each column, the kind and byte span of its member's value in the
** top-level object (the last one when a key repeats); no tree and no
** allocation per record — Jansson's tree was most of a Kafka job's CPU. A
** value is then read from its span: a number from its original lexeme
** (DECIMAL exactly with sl_dec_parse: "0.1" is exactly 0.1, 38 digits
** survive; integers exactly beyond 2^53; FLOAT/DOUBLE with strtod), a
** string unescaped only when it has escapes.
**
** Per column: missing -> NULL (an error with 'json.fail-on-missing-field');
** null -> NULL; NOT NULL columns reject both. Strings are accepted for every
** type and parsed as its text (Flink: "12" for INT); numbers for numeric
** and string columns (a string column gets the lexeme); true/false for
** BOOLEAN and string columns; an object or array only for a string column
** (its JSON text as written). Anything else is a malformed record naming
** the field. An empty or blank record is not a record (SL_CODEC_NONE).
**
** A ROW column is stored as its leaves, named by dotted paths ("person.id"):
** a column whose name has dots is the member of nested objects
** ({"person": {"id": 1}}); a null or absent object gives NULL leaves, any
** other value is malformed. They are written nested the same way (a NULL
** ROW as an object of nulls: its leaves are all there is).
**
** An ARRAY column is a JSON array, a MAP column a JSON object (keys: the
** key type's text; a NULL key fails the record (22004), is dropped or is
** written as a literal, by 'json.map-null-key.mode'; a repeated key's last
** value wins, in the first one's place), elements read and written
** as columns of their type are; nested ARRAY / MAP elements nest.
**
** Encoding writes {"col":value,...} with the columns in order, compact (a
** DATE outside 0000-01-01 .. 9999-12-31 is refused: 22023, it would not
** read back).
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

#include <math.h>
#include <string.h>

typedef struct sl__json_codec {
    sl_codec base;       /* common part (first) */
    bool fail_missing;   /* 'json.fail-on-missing-field' */
    bool iso;            /* 'json.timestamp-format.standard' = 'ISO-8601' */
    bool ignore_nulls;   /* 'json.encode.ignore-null-fields' */
    bool plain_decimal;  /* 'json.encode.decimal-as-plain-number' */
    int *order;          /* column indexes sorted by name bytes (for key lookup) */
    size_t *name_len;    /* per column: the length of its name */
    uint8_t *kind;       /* per column: the sl__jkind of its value (NONE = absent) */
    bool *escaped;       /* per column: a string value with escapes */
    size_t *span_off;    /* per column: offset of its value in the record */
    size_t *span_len;    /* per column: length of that value */
    sl_strbuf unesc;     /* unescaped string values of the record being decoded */
    sl_strbuf key;       /* an unescaped member name */
    /* ROW columns are stored as their leaves, named by dotted paths
    ** ("person.id"): their values are members of nested objects. */
    int ngroups;         /* the distinct proper prefixes of dotted column names */
    char **groups;       /* ... ("person", "c", "c.f"): each a nested object */
    sl_strbuf path;      /* decoding: the dotted path of a nested member */
    int maxd;            /* encoding: the most dots in a column name */
    const char **open_name; /* encoding: the nested objects open (maxd + 1) */
    size_t *open_len;    /* ... their names' lengths */
    bool *first;         /* ... per level: no member written yet (maxd + 2) */
    /* ARRAY / MAP columns: JSON arrays / objects (keys: the key's text). */
    sl_codec *el;        /* parses one element's text (its one column's type set per element) */
    sl_strbuf comp;      /* the encoded value being built */
    sl_strbuf elesc;     /* an element string, unescaped */
    int null_key;        /* 'json.map-null-key.mode': 0 FAIL, 1 DROP, 2 LITERAL */
    char *null_literal;  /* 'json.map-null-key.literal' (owned) */
    bool null_key_seen;  /* encoding: a NULL key in FAIL mode was met */
} sl__json_codec;

static bool sl__json_type_ok(sl_type t)
{
    if (t.id == SL_TYPE_ARRAY)
        return sl__json_type_ok(sl_type_elem(t));
    if (t.id == SL_TYPE_MAP)
        return sl__json_type_ok(sl_type_key(t)) && sl__json_type_ok(sl_type_value(t));
    return t.id != SL_TYPE_NULL && !sl_type_is_interval(t.id) && t.id < SL_TYPE__COUNT;
}

/* Compare bytes k[0..kn) with a NUL-terminated name, memcmp order. */
static int sl__key_cmp(const char *k, size_t kn, const char *name, size_t nn)
{
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
        int col = j->order[mid];
        int c = sl__key_cmp(k, kn, j->base.names[col], j->name_len[col]);
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
** The parser: one pass over the record that validates it as JSON (RFC
** 8259, as strictly as Jansson: UTF-8 checked, control characters refused
** in strings, surrogates paired, nesting at most SL__JSON_MAX_DEPTH deep,
** nothing after the value) and records, for each column, the kind and the
** byte span of its member's value in the top-level object (the last one
** when a key repeats). Nothing is allocated per record; values are read
** from their spans afterwards.
*/
#define SL__JSON_MAX_DEPTH 2048 /* Jansson's JSON_PARSER_MAX_DEPTH */

typedef struct sl__jparse {
    const char *s;   /* the record */
    size_t n;        /* its length */
    size_t i;        /* the next byte */
    size_t at;       /* failure: where */
    const char *why; /* failure: what (NULL: none) */
} sl__jparse;

static bool sl__jp_fail(sl__jparse *p, size_t at, const char *why)
{
    if (!p->why) {
        p->at = at;
        p->why = why;
    }
    return false;
}

static void sl__jp_ws(sl__jparse *p)
{
    while (p->i < p->n &&
           (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r'))
        p->i++;
}

static int sl__hex(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* The code unit of "\uXXXX" at s[i] (i at the backslash), or -1. */
static int32_t sl__jp_u16(const char *s, size_t i, size_t n)
{
    if (i + 6 > n || s[i] != '\\' || s[i + 1] != 'u')
        return -1;
    int32_t v = 0;
    for (size_t k = i + 2; k < i + 6; k++) {
        int h = sl__hex(s[k]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* The index of the first byte at or after i that is not plain printable
** ASCII (a control character, '"', '\\', or a byte >= 0x80), or n: eight
** bytes at a time. */
static size_t sl__json_plain_run(const char *s, size_t i, size_t n)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    while (i + 8 <= n) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
        /* a zero byte in q or b, a byte below 0x20, or one with the high bit */
        uint64_t bad = ((q - ones) & ~q) | ((b - ones) & ~b) | (w - ones * 0x20) | w;
        if (bad & high)
            break;
        i += 8;
    }
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
            break;
        i++;
    }
    return i;
}

/* A string at s[i] == '"'; i ends after its closing quote. A member's
** name (key) may not hold U+0000 (nor can Jansson's). */
static bool sl__jp_string(sl__jparse *p, bool key, bool *escaped)
{
    const char *s = p->s;
    size_t n = p->n, i = p->i + 1;
    for (;;) {
        i = sl__json_plain_run(s, i, n); /* the common case: printable ASCII */
        if (i >= n)
            return sl__jp_fail(p, n, "premature end of input in a string");
        unsigned char c = (unsigned char)s[i];
        if (c == '"') {
            p->i = i + 1;
            return true;
        }
        if (c < 0x20)
            return sl__jp_fail(p, i, "control character in a string");
        if (c >= 0x80) {
            size_t k = sl__utf8_seq(s + i, n - i);
            if (!k)
                return sl__jp_fail(p, i, "invalid UTF-8 in a string");
            i += k;
            continue;
        }
        *escaped = true; /* a backslash */
        if (i + 1 >= n)
            return sl__jp_fail(p, n, "premature end of input in a string");
        switch (s[i + 1]) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            i += 2;
            continue;
        case 'u': break;
        default: return sl__jp_fail(p, i, "invalid escape in a string");
        }
        int32_t u = sl__jp_u16(s, i, n);
        if (u < 0)
            return sl__jp_fail(p, i, "invalid \\u escape in a string");
        if (u == 0 && key)
            return sl__jp_fail(p, i, "U+0000 in a member's name");
        if (u >= 0xDC00 && u <= 0xDFFF)
            return sl__jp_fail(p, i, "a lone low surrogate in a string");
        if (u >= 0xD800 && u <= 0xDBFF) {
            int32_t lo = sl__jp_u16(s, i + 6, n);
            if (lo < 0xDC00 || lo > 0xDFFF)
                return sl__jp_fail(p, i, "a high surrogate without its low half in a string");
            i += 6;
        }
        i += 6;
    }
}

static bool sl__jp_digits(sl__jparse *p)
{
    size_t start = p->i;
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
        p->i++;
    return p->i > start;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool sl__jp_number(sl__jparse *p)
{
    size_t start = p->i;
    if (p->s[p->i] == '-')
        p->i++;
    if (p->i < p->n && p->s[p->i] == '0')
        p->i++;
    else if (!(p->i < p->n && p->s[p->i] >= '1' && p->s[p->i] <= '9') || !sl__jp_digits(p))
        return sl__jp_fail(p, start, "invalid number");
    if (p->i < p->n && p->s[p->i] == '.') {
        p->i++;
        if (!sl__jp_digits(p))
            return sl__jp_fail(p, start, "invalid number");
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        p->i++;
        if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
            p->i++;
        if (!sl__jp_digits(p))
            return sl__jp_fail(p, start, "invalid number");
    }
    return true;
}

typedef enum sl__jkind {
    SL__JV_NONE = 0, /* absent */
    SL__JV_NULL,
    SL__JV_STRING,
    SL__JV_NUMBER,
    SL__JV_TRUE,
    SL__JV_FALSE,
    SL__JV_OBJECT,
    SL__JV_ARRAY,
} sl__jkind;

static bool sl__jp_value(sl__jparse *p, int depth, sl__jkind *kind, bool *escaped);

/* An object (at '{') or array (at '['), members validated, nothing kept. */
static bool sl__jp_container(sl__jparse *p, int depth)
{
    bool object = p->s[p->i] == '{';
    char close = object ? '}' : ']';
    if (depth >= SL__JSON_MAX_DEPTH)
        return sl__jp_fail(p, p->i, "too deeply nested");
    p->i++;
    sl__jp_ws(p);
    if (p->i < p->n && p->s[p->i] == close) {
        p->i++;
        return true;
    }
    for (;;) {
        sl__jkind k;
        bool esc = false;
        if (object) {
            if (p->i >= p->n || p->s[p->i] != '"')
                return sl__jp_fail(p, p->i, "a string (the member's name) was expected");
            if (!sl__jp_string(p, true, &esc))
                return false;
            sl__jp_ws(p);
            if (p->i >= p->n || p->s[p->i] != ':')
                return sl__jp_fail(p, p->i, "':' was expected");
            p->i++;
            sl__jp_ws(p);
        }
        if (!sl__jp_value(p, depth + 1, &k, &esc))
            return false;
        sl__jp_ws(p);
        if (p->i < p->n && p->s[p->i] == ',') {
            p->i++;
            sl__jp_ws(p);
            continue;
        }
        if (p->i < p->n && p->s[p->i] == close) {
            p->i++;
            return true;
        }
        return sl__jp_fail(p, p->i, object ? "',' or '}' was expected" : "',' or ']' was expected");
    }
}

static bool sl__jp_literal(sl__jparse *p, const char *word, size_t len)
{
    if (p->n - p->i < len || memcmp(p->s + p->i, word, len) != 0)
        return sl__jp_fail(p, p->i, "a value was expected");
    p->i += len;
    return true;
}

/* Any value at s[i] (after blanks); i ends after it. */
static bool sl__jp_value(sl__jparse *p, int depth, sl__jkind *kind, bool *escaped)
{
    if (p->i >= p->n)
        return sl__jp_fail(p, p->n, "premature end of input");
    switch (p->s[p->i]) {
    case '"': *kind = SL__JV_STRING; return sl__jp_string(p, false, escaped);
    case '{': *kind = SL__JV_OBJECT; return sl__jp_container(p, depth);
    case '[': *kind = SL__JV_ARRAY; return sl__jp_container(p, depth);
    case 't': *kind = SL__JV_TRUE; return sl__jp_literal(p, "true", 4);
    case 'f': *kind = SL__JV_FALSE; return sl__jp_literal(p, "false", 5);
    case 'n': *kind = SL__JV_NULL; return sl__jp_literal(p, "null", 4);
    default:
        if (p->s[p->i] == '-' || (p->s[p->i] >= '0' && p->s[p->i] <= '9')) {
            *kind = SL__JV_NUMBER;
            return sl__jp_number(p);
        }
        return sl__jp_fail(p, p->i, "a value was expected");
    }
}

/* Unescape the validated string body s[0..n) into out (room for n bytes);
** returns the length written. */
static size_t sl__json_unescape(const char *s, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] != '\\') {
            out[o++] = s[i++];
            continue;
        }
        char e = s[i + 1];
        if (e != 'u') {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            out[o++] = to[strchr(from, e) - from];
            i += 2;
            continue;
        }
        uint32_t u = (uint32_t)sl__jp_u16(s, i, n);
        i += 6;
        if (u >= 0xD800 && u <= 0xDBFF) {
            u = 0x10000 + ((u - 0xD800) << 10) + ((uint32_t)sl__jp_u16(s, i, n) - 0xDC00);
            i += 6;
        }
        if (u < 0x80) {
            out[o++] = (char)u;
        } else if (u < 0x800) {
            out[o++] = (char)(0xC0 | (u >> 6));
            out[o++] = (char)(0x80 | (u & 0x3F));
        } else if (u < 0x10000) {
            out[o++] = (char)(0xE0 | (u >> 12));
            out[o++] = (char)(0x80 | ((u >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (u & 0x3F));
        } else {
            out[o++] = (char)(0xF0 | (u >> 18));
            out[o++] = (char)(0x80 | ((u >> 12) & 0x3F));
            out[o++] = (char)(0x80 | ((u >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (u & 0x3F));
        }
    }
    return o;
}

/* The column of a member named by the string token s[k0..k1) (quotes
** included): the column after the previous member's first (records
** usually list the columns in order), else a binary search. */
static int sl__json_column(sl__json_codec *j, const char *s, size_t k0, size_t k1, bool escaped,
                           int prev)
{
    const char *k = s + k0 + 1;
    size_t kn = k1 - k0 - 2;
    if (escaped) {
        sl_strbuf_reset(&j->key);
        sl_strbuf_reserve(&j->key, kn + 1);
        char *buf = j->key.buf;
        kn = sl__json_unescape(k, kn, buf);
        k = buf;
    }
    int guess = prev + 1;
    if (guess < j->base.ncols && j->name_len[guess] == kn &&
        memcmp(j->base.names[guess], k, kn) == 0)
        return guess;
    return sl__json_find(j, k, kn);
}

/* The nested object (ROW) whose dotted path is name[0..n), or -1. */
static int sl__json_group(const sl__json_codec *j, const char *name, size_t n)
{
    for (int g = 0; g < j->ngroups; g++)
        if (strlen(j->groups[g]) == n && memcmp(j->groups[g], name, n) == 0)
            return g;
    return -1;
}

/* The member value at s[v0..p->i) of kind named by the path in j->path: a
** leaf's span, or a nested object's members (a ROW; null or absent: NULL
** leaves). Unknown members are skipped, as at the top level. */
static bool sl__json_nested(sl__json_codec *j, sl__jparse *p, size_t v0, sl__jkind kind,
                            bool vesc, int depth);

/* The members of the validated object at p->s[p->i] == '{' under the
** dotted path in j->path. */
static bool sl__json_members(sl__json_codec *j, sl__jparse *p, int depth)
{
    size_t plen = j->path.len;
    p->i++;
    sl__jp_ws(p);
    if (p->i < p->n && p->s[p->i] == '}') {
        p->i++;
        return true;
    }
    for (;;) {
        bool kesc = false, vesc = false;
        size_t k0 = p->i;
        if (!sl__jp_string(p, true, &kesc))
            return false;
        size_t k1 = p->i;
        sl__jp_ws(p);
        p->i++; /* ':' (validated) */
        sl__jp_ws(p);
        size_t v0 = p->i;
        sl__jkind kind = SL__JV_NONE;
        if (!sl__jp_value(p, depth + 1, &kind, &vesc))
            return false;
        size_t kn = k1 - k0 - 2;
        sl_strbuf_append_char(&j->path, '.');
        sl_strbuf_reserve(&j->path, kn + 1);
        if (kesc) {
            j->path.len += sl__json_unescape(p->s + k0 + 1, kn, j->path.buf + j->path.len);
            j->path.buf[j->path.len] = '\0';
        } else {
            sl_strbuf_append_n(&j->path, p->s + k0 + 1, kn);
        }
        size_t end = p->i;
        if (!sl__json_nested(j, p, v0, kind, vesc, depth + 1))
            return false;
        p->i = end;
        j->path.len = plen;
        j->path.buf[plen] = '\0';
        sl__jp_ws(p);
        if (p->i < p->n && p->s[p->i] == ',') {
            p->i++;
            sl__jp_ws(p);
            continue;
        }
        p->i++; /* '}' (validated) */
        return true;
    }
}

static bool sl__json_nested(sl__json_codec *j, sl__jparse *p, size_t v0, sl__jkind kind,
                            bool vesc, int depth)
{
    int col = sl__json_find(j, j->path.buf, j->path.len);
    if (col >= 0) {
        j->kind[col] = (uint8_t)kind;
        j->escaped[col] = vesc;
        j->span_off[col] = v0;
        j->span_len[col] = p->i - v0;
        return true;
    }
    if (sl__json_group(j, j->path.buf, j->path.len) < 0)
        return true;
    if (kind == SL__JV_NULL) { /* a NULL ROW: its leaves are there, null */
        for (int i = 0; i < j->base.ncols; i++)
            if (strncmp(j->base.names[i], j->path.buf, j->path.len) == 0 &&
                j->base.names[i][j->path.len] == '.')
                j->kind[i] = SL__JV_NULL;
        return true;
    }
    if (kind != SL__JV_OBJECT)
        return sl__jp_fail(p, v0, "a JSON object was expected (a ROW)");
    sl__jparse sub = *p;
    sub.i = v0;
    bool ok = sl__json_members(j, &sub, depth);
    if (!ok)
        *p = sub;
    return ok;
}

/* Parse the record; fill kind/span of every column. */
static bool sl__json_parse(sl__json_codec *j, sl__jparse *p)
{
    sl_codec *c = &j->base;
    for (int i = 0; i < c->ncols; i++)
        j->kind[i] = SL__JV_NONE;
    sl__jp_ws(p);
    p->i++; /* the caller saw '{' */
    sl__jp_ws(p);
    int prev = -1;
    if (p->i < p->n && p->s[p->i] == '}') {
        p->i++;
    } else {
        for (;;) {
            bool kesc = false, vesc = false;
            if (p->i >= p->n || p->s[p->i] != '"')
                return sl__jp_fail(p, p->i, "a string (the member's name) was expected");
            size_t k0 = p->i;
            if (!sl__jp_string(p, true, &kesc))
                return false;
            size_t k1 = p->i;
            sl__jp_ws(p);
            if (p->i >= p->n || p->s[p->i] != ':')
                return sl__jp_fail(p, p->i, "':' was expected");
            p->i++;
            sl__jp_ws(p);
            size_t v0 = p->i;
            sl__jkind kind = SL__JV_NONE;
            if (!sl__jp_value(p, 1, &kind, &vesc))
                return false;
            int col = sl__json_column(j, p->s, k0, k1, kesc, prev);
            if (col >= 0) {
                j->kind[col] = (uint8_t)kind;
                j->escaped[col] = vesc;
                j->span_off[col] = v0;
                j->span_len[col] = p->i - v0;
                prev = col;
            } else if (j->ngroups) { /* a ROW column's nested object? */
                size_t kn = k1 - k0 - 2;
                sl_strbuf_reset(&j->path);
                sl_strbuf_reserve(&j->path, kn + 1);
                if (kesc) {
                    j->path.len = sl__json_unescape(p->s + k0 + 1, kn, j->path.buf);
                    j->path.buf[j->path.len] = '\0';
                } else {
                    sl_strbuf_append_n(&j->path, p->s + k0 + 1, kn);
                }
                if (!sl__json_nested(j, p, v0, kind, vesc, 1))
                    return false;
            }
            sl__jp_ws(p);
            if (p->i < p->n && p->s[p->i] == ',') {
                p->i++;
                sl__jp_ws(p);
                continue;
            }
            if (p->i < p->n && p->s[p->i] == '}') {
                p->i++;
                break;
            }
            return sl__jp_fail(p, p->i, "',' or '}' was expected");
        }
    }
    sl__jp_ws(p);
    return p->i == p->n || sl__jp_fail(p, p->i, "the end of the record was expected");
}

/* ------------------------------------------------------------------------
** Decoding.
*/

/* An ARRAY (from a JSON array) or MAP (from a JSON object) of type t from
** the validated value s[0..n) appended to out in sl_exec.h's encoding.
** false with *why (an element's problem) otherwise. */
static bool sl__json_composite(sl__json_codec *j, sl_type t, const char *s, size_t n,
                               sl_strbuf *out, const char **why);

/* One element (of type t) from its validated JSON value s[0..n) of kind:
** the null flag and value, as sl_vector_value_put writes them. */
static bool sl__json_element(sl__json_codec *j, sl_type t, const char *s, size_t n,
                             sl__jkind kind, bool escaped, sl_strbuf *out, const char **why)
{
    if (kind == SL__JV_NULL) {
        sl_strbuf_append_char(out, 1);
        return true;
    }
    if (sl_type_is_composite(t.id)) {
        if (kind != (t.id == SL_TYPE_ARRAY ? SL__JV_ARRAY : SL__JV_OBJECT)) {
            *why = t.id == SL_TYPE_ARRAY ? "a JSON array was expected" : "a JSON object was expected";
            return false;
        }
        sl_strbuf_append_char(out, 0);
        size_t at = out->len;
        sl_put_u32(out, 0);
        if (!sl__json_composite(j, t, s, n, out, why))
            return false;
        if (t.id == SL_TYPE_MAP && !sl_map_dedup(out, at + 4, t)) {
            *why = "a malformed MAP";
            return false;
        }
        uint32_t len = (uint32_t)(out->len - at - 4);
        for (int b = 0; b < 4; b++)
            out->buf[at + (size_t)b] = (char)(len >> (8 * b));
        return true;
    }
    if (kind == SL__JV_ARRAY || kind == SL__JV_OBJECT) {
        if (!sl_type_is_string(t.id)) {
            *why = "an element is not a scalar";
            return false;
        }
    } else if (kind == SL__JV_STRING) {
        s++, n -= 2;
        if (escaped) {
            sl_strbuf_reset(&j->elesc);
            sl_strbuf_reserve(&j->elesc, n + 1);
            n = sl__json_unescape(s, n, j->elesc.buf);
            s = j->elesc.buf;
        }
    } else if ((kind == SL__JV_NUMBER && !sl_type_is_numeric(t.id) && !sl_type_is_string(t.id)) ||
               ((kind == SL__JV_TRUE || kind == SL__JV_FALSE) && t.id != SL_TYPE_BOOLEAN &&
                !sl_type_is_string(t.id))) {
        *why = "an element does not fit the element type";
        return false;
    }
    sl_codec *e = j->el;
    e->types[0] = t;
    sl__codec_row_begin(e);
    if (sl__codec_parse_text(e, 0, s, n, j->iso) != SL__PARSE_OK) {
        *why = "an element does not fit the element type";
        return false;
    }
    const sl__value *v = &e->vals[0];
    sl_value_box x;
    sl_value_box_init(&x, t);
    switch (x.v.phys) {
    case SL_PHYS_BOOL: x.val.b = v->v.b; break;
    case SL_PHYS_I64: x.val.i64 = v->v.i64; break;
    case SL_PHYS_F64: x.val.f64 = v->v.f64; break;
    case SL_PHYS_I128: x.val.i128 = v->v.i128; break;
    case SL_PHYS_STR:
        x.val.str.ptr = v->in_scratch ? e->scratch.buf + v->off : v->ptr;
        x.val.str.len = (uint32_t)v->len;
        break;
    }
    sl_vector_value_put(out, &x.v, 0);
    return true;
}

static bool sl__json_composite(sl__json_codec *j, sl_type t, const char *s, size_t n,
                               sl_strbuf *out, const char **why)
{
    bool map = t.id == SL_TYPE_MAP;
    sl__jparse p = {s, n, 1, 0, NULL};
    size_t cnt_at = out->len;
    uint32_t cnt = 0;
    sl_put_u32(out, 0);
    sl__jp_ws(&p);
    while (p.i < p.n && p.s[p.i] != ']' && p.s[p.i] != '}') {
        bool kesc = false, vesc = false;
        sl__jkind kind = SL__JV_NONE;
        if (map) {
            size_t k0 = p.i;
            sl__jp_string(&p, true, &kesc);
            if (!sl__json_element(j, sl_type_key(t), s + k0, p.i - k0, SL__JV_STRING, kesc, out,
                                  why))
                return false;
            sl__jp_ws(&p);
            p.i++; /* ':' (validated) */
            sl__jp_ws(&p);
        }
        size_t v0 = p.i;
        sl__jp_value(&p, 1, &kind, &vesc);
        if (!sl__json_element(j, map ? sl_type_value(t) : sl_type_elem(t), s + v0, p.i - v0, kind,
                              vesc, out, why))
            return false;
        cnt++;
        sl__jp_ws(&p);
        if (p.i < p.n && p.s[p.i] == ',') {
            p.i++;
            sl__jp_ws(&p);
        }
    }
    for (int b = 0; b < 4; b++)
        out->buf[cnt_at + (size_t)b] = (char)(cnt >> (8 * b));
    return true;
}

/* Column col (an ARRAY or MAP) from its JSON array / object span. */
static int sl__json_composite_field(sl__json_codec *j, int col, const char *span, size_t slen,
                                    sl_error *err)
{
    sl_codec *c = &j->base;
    sl_type t = c->types[col];
    sl__jkind want = t.id == SL_TYPE_ARRAY ? SL__JV_ARRAY : SL__JV_OBJECT;
    const char *why = NULL;
    if ((sl__jkind)j->kind[col] != want)
        return sl__codec_malformed(c, err, "field \"%s\": %s was expected", c->names[col],
                                   want == SL__JV_ARRAY ? "a JSON array" : "a JSON object");
    sl_strbuf_reset(&j->comp);
    if (!sl__json_composite(j, t, span, slen, &j->comp, &why) ||
        (t.id == SL_TYPE_MAP && !sl_map_dedup(&j->comp, 0, t) && (why = "a malformed MAP")))
        return sl__codec_malformed(c, err, "field \"%s\": %s", c->names[col], why);
    sl__value *v = &c->vals[col];
    v->null = false;
    v->in_scratch = true;
    v->off = c->scratch.len;
    v->len = j->comp.len;
    sl_strbuf_append_n(&c->scratch, j->comp.buf, j->comp.len);
    return 0;
}

/* Decode column col (its value found by the parser) into vals. */
static int sl__json_field(sl__json_codec *j, int col, const char *rec, sl_error *err)
{
    sl_codec *c = &j->base;
    sl_type t = c->types[col];
    const char *span = rec + j->span_off[col];
    size_t slen = j->span_len[col];
    bool text_col = sl_type_is_string(t.id);
    int rc;
    if (sl_type_is_composite(t.id) && j->kind[col] != SL__JV_NONE && j->kind[col] != SL__JV_NULL)
        return sl__json_composite_field(j, col, span, slen, err);
    switch ((sl__jkind)j->kind[col]) {
    case SL__JV_NONE:
    case SL__JV_NULL: return 0; /* NULL (NOT NULL checked by the caller) */
    case SL__JV_STRING: {
        const char *s = span + 1;
        size_t n = slen - 2;
        if (j->escaped[col]) { /* room for the whole record was reserved: no move */
            char *to = j->unesc.buf + j->unesc.len;
            n = sl__json_unescape(s, n, to);
            j->unesc.len += n;
            s = to;
        }
        if (text_col) { /* the parser checked its UTF-8 */
            sl__codec_set_string(c, col, s, n);
            return 0;
        }
        rc = sl__codec_parse_text(c, col, s, n, j->iso);
        return rc == SL__PARSE_OK ? 0 : sl__codec_bad_value(c, err, col, rc, s, n, true);
    }
    case SL__JV_NUMBER:
        if (!text_col && !sl_type_is_numeric(t.id))
            return sl__codec_bad_value(c, err, col, SL__PARSE_INVALID, span, slen, false);
        rc = sl__codec_parse_text(c, col, span, slen, j->iso);
        return rc == SL__PARSE_OK ? 0 : sl__codec_bad_value(c, err, col, rc, span, slen, false);
    case SL__JV_TRUE:
    case SL__JV_FALSE:
        if (t.id != SL_TYPE_BOOLEAN && !text_col)
            return sl__codec_bad_value(c, err, col, SL__PARSE_INVALID, span, slen, false);
        rc = sl__codec_parse_text(c, col, span, slen, j->iso);
        return rc == SL__PARSE_OK ? 0 : sl__codec_bad_value(c, err, col, rc, span, slen, false);
    case SL__JV_OBJECT:
    case SL__JV_ARRAY:
        if (text_col) {
            rc = sl__codec_parse_text(c, col, span, slen, j->iso);
            if (rc == SL__PARSE_OK)
                return 0;
        }
        {
            const char *k = j->kind[col] == SL__JV_OBJECT ? "a JSON object" : "a JSON array";
            return sl__codec_bad_value(c, err, col, SL__PARSE_INVALID, k, strlen(k), false);
        }
    }
    return sl__codec_malformed(c, err, "field \"%s\": unexpected JSON value", c->names[col]);
}

/* "invalid JSON at [line L, ]column C: why" (1-based, in bytes). */
static int sl__json_invalid(sl_codec *c, const sl__jparse *p, sl_error *err)
{
    int line = 1;
    size_t bol = 0;
    for (size_t i = 0; i < p->at && i < p->n; i++)
        if (p->s[i] == '\n') {
            line++;
            bol = i + 1;
        }
    int col = (int)(p->at - bol) + 1;
    return line > 1 ? sl__codec_malformed(c, err, "invalid JSON at line %d, column %d: %s", line,
                                          col, p->why)
                    : sl__codec_malformed(c, err, "invalid JSON at column %d: %s", col, p->why);
}

static int sl__json_decode(sl_codec *c, const char *rec, size_t len, sl_chunk *out,
                           sl_error *err)
{
    sl__json_codec *j = (sl__json_codec *)c;
    sl__jparse p = {rec, len, 0, 0, NULL};
    sl__jp_ws(&p);
    if (p.i == len)
        return SL_CODEC_NONE;
    if (rec[p.i] != '{') { /* valid JSON that is not an object, or not JSON */
        sl__jkind kind = SL__JV_NONE;
        bool esc = false;
        if (sl__jp_value(&p, 0, &kind, &esc)) {
            sl__jp_ws(&p);
            if (p.i != len)
                sl__jp_fail(&p, p.i, "the end of the record was expected");
        }
        if (p.why)
            return sl__json_invalid(c, &p, err);
        const char *what = kind == SL__JV_ARRAY    ? "an array"
                           : kind == SL__JV_STRING ? "a string"
                           : kind == SL__JV_NUMBER ? "a number"
                           : kind == SL__JV_NULL   ? "null"
                                                   : "a boolean";
        return sl__codec_malformed(c, err, "expected a JSON object, found %s", what);
    }
    if (!sl__json_parse(j, &p))
        return sl__json_invalid(c, &p, err);
    sl__codec_row_begin(c);
    sl_strbuf_reset(&j->unesc);
    sl_strbuf_reserve(&j->unesc, len + 1); /* unescaped strings are never longer */
    for (int i = 0; i < c->ncols; i++) {
        if (j->kind[i] == SL__JV_NONE && (j->fail_missing || c->types[i].not_null))
            return sl__codec_malformed(c, err, "field \"%s\" is missing", c->names[i]);
        int rc = sl__json_field(j, i, rec, err);
        if (rc != 0)
            return rc;
        if (c->vals[i].null && c->types[i].not_null)
            return sl__codec_malformed(c, err, "field \"%s\" is null, but the column is NOT NULL",
                                       c->names[i]);
    }
    sl__codec_row_commit(c, out);
    return SL_CODEC_ROW;
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
        i = sl__json_plain_run(s, i, n);
        if (i >= n)
            break;
        unsigned char ch = (unsigned char)s[i];
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

static void sl__json_value(sl__json_codec *j, const sl_vector *v, int r, sl_strbuf *out);

/* An ARRAY as a JSON array, a MAP as a JSON object (keys: their text, as
** CAST(key AS STRING) spells it). */
static void sl__json_composite_value(sl__json_codec *j, const sl_vector *v, int r, sl_strbuf *out)
{
    sl_type t = v->type;
    bool map = t.id == SL_TYPE_MAP;
    const uint8_t *p = (const uint8_t *)v->v.str[r].ptr;
    uint32_t c;
    size_t *o;
    if (!sl_array_split(p, v->v.str[r].len, t, &c, &o)) {
        sl_strbuf_append(out, "null"); /* malformed: never produced by Sluice */
        return;
    }
    sl_strbuf_append_char(out, map ? '{' : '[');
    bool first = true; /* no entry written yet */
    for (uint32_t i = 0; i < c; i++) {
        sl_type et = map ? ((i & 1) ? sl_type_value(t) : sl_type_key(t)) : sl_type_elem(t);
        sl_value_box x;
        sl_value_box_init(&x, et);
        sl_vector_value_get(p + o[i], o[i + 1] - o[i], &x.v, 0);
        if (map && !(i & 1) && x.isnull && j->null_key != 2) { /* a NULL key: FAIL or DROP */
            j->null_key_seen |= j->null_key == 0;
            i++; /* and its value */
            continue;
        }
        if (map && (i & 1))
            sl_strbuf_append_char(out, ':');
        else if (!first)
            sl_strbuf_append_char(out, ',');
        first = false;
        if (map && !(i & 1)) { /* a key: a JSON string */
            if (x.isnull) {
                sl__json_string(out, j->null_literal, strlen(j->null_literal));
            } else if (sl_type_is_string(et.id)) {
                sl__json_string(out, x.val.str.ptr, x.val.str.len);
            } else {
                sl_strbuf key = SL_STRBUF_INIT;
                sl_value_format(&key, &x.v, 0);
                sl__json_string(out, key.buf ? key.buf : "", key.len);
                sl_strbuf_free(&key);
            }
        } else if (x.isnull) {
            sl_strbuf_append(out, "null");
        } else {
            sl__json_value(j, &x.v, 0, out);
        }
    }
    sl_strbuf_append_char(out, map ? '}' : ']');
    sl_free(o);
}

static void sl__json_value(sl__json_codec *j, const sl_vector *v, int r, sl_strbuf *out)
{
    switch (v->type.id) {
    case SL_TYPE_ARRAY:
    case SL_TYPE_MAP: sl__json_composite_value(j, v, r, out); break;
    case SL_TYPE_BOOLEAN: sl_strbuf_append(out, v->v.b[r] ? "true" : "false"); break;
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT: sl_strbuf_append_i64(out, v->v.i64[r]); break;
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

/* Write the key of a member at nesting level lv (a comma before all but
** the first). */
static void sl__json_key(sl__json_codec *j, int lv, const char *k, size_t n, sl_strbuf *out)
{
    if (!j->first[lv])
        sl_strbuf_append_char(out, ',');
    j->first[lv] = false;
    sl__json_string(out, k, n);
    sl_strbuf_append_char(out, ':');
}

static int sl__json_encode(sl_codec *c, const sl_chunk *in, int r, sl_strbuf *out,
                           sl_error *err)
{
    sl__json_codec *j = (sl__json_codec *)c;
    if (sl__codec_check_dates(c, in, r, err) != 0)
        return -1;
    sl_strbuf_append_char(out, '{');
    int open = 0; /* nested objects open: a ROW's leaves are consecutive columns */
    j->first[0] = true;
    for (int i = 0; i < c->ncols; i++) {
        const sl_vector *v = &in->cols[sl__codec_col(c, i)];
        bool null = v->nulls[r] != 0;
        if (null && j->ignore_nulls)
            continue;
        const char *name = c->names[i], *leaf = name;
        int lv = 0;
        if (j->ngroups) {
            for (const char *dot; (dot = strchr(leaf, '.')) != NULL; leaf = dot + 1, lv++) {
                size_t n = (size_t)(dot - leaf);
                if (lv < open && j->open_len[lv] == n && memcmp(j->open_name[lv], leaf, n) == 0)
                    continue;
                for (; open > lv; open--)
                    sl_strbuf_append_char(out, '}');
                sl__json_key(j, lv, leaf, n, out);
                sl_strbuf_append_char(out, '{');
                j->open_name[lv] = leaf;
                j->open_len[lv] = n;
                j->first[++open] = true;
            }
            for (; open > lv; open--)
                sl_strbuf_append_char(out, '}');
        }
        sl__json_key(j, lv, leaf, strlen(leaf), out);
        if (null)
            sl_strbuf_append(out, "null");
        else
            sl__json_value(j, v, r, out);
        if (j->null_key_seen) {
            j->null_key_seen = false;
            return sl_error_set(err, SL_ERR_NULL_NOT_ALLOWED, -1,
                                "column \"%s\": a MAP with a NULL key cannot be written as JSON",
                                c->names[i]);
        }
    }
    for (; open > 0; open--)
        sl_strbuf_append_char(out, '}');
    sl_strbuf_append_char(out, '}');
    return 0;
}

static void sl__json_free(sl_codec *c)
{
    sl__json_codec *j = (sl__json_codec *)c;
    sl_free(j->order);
    sl_free(j->name_len);
    sl_free(j->kind);
    sl_free(j->escaped);
    sl_free(j->span_off);
    sl_free(j->span_len);
    sl_strbuf_free(&j->unesc);
    sl_strbuf_free(&j->key);
    sl_strbuf_free(&j->path);
    for (int g = 0; g < j->ngroups; g++)
        sl_free(j->groups[g]);
    sl_free(j->groups);
    sl_free(j->open_name);
    sl_free(j->open_len);
    sl_free(j->first);
    if (j->el) {
        sl__codec_fini(j->el);
        sl_free(j->el);
    }
    sl_strbuf_free(&j->comp);
    sl_strbuf_free(&j->elesc);
    sl_free(j->null_literal);
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
    const sl_kv *nk = sl_kvlist_find(opts, "json.map-null-key.mode");
    int null_key = 0;
    if (nk && nk->value) {
        if (sl_strcasecmp(nk->value, "DROP") == 0) {
            null_key = 1;
        } else if (sl_strcasecmp(nk->value, "LITERAL") == 0) {
            null_key = 2;
        } else if (sl_strcasecmp(nk->value, "FAIL") != 0) {
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, nk->value_pos,
                         "invalid value for option 'json.map-null-key.mode': \"%s\"", nk->value);
            return NULL;
        }
    }
    const sl_kv *nl = sl_kvlist_find(opts, "json.map-null-key.literal");
    sl__json_codec *j = sl_calloc(1, sizeof *j);
    sl__codec_init(&j->base, &sl__json_ops, "JSON", ncols, names, types);
    j->null_key = null_key;
    j->null_literal = sl_strdup(nl && nl->value ? nl->value : "null");
    j->base.ignore_errors = ignore;
    j->fail_missing = fail_missing;
    j->iso = iso;
    j->ignore_nulls = ignore_nulls;
    j->plain_decimal = plain;
    size_t n = (size_t)(ncols ? ncols : 1);
    j->order = sl_calloc(n, sizeof(int));
    j->name_len = sl_calloc(n, sizeof(size_t));
    j->kind = sl_calloc(n, 1);
    j->escaped = sl_calloc(n, sizeof(bool));
    j->span_off = sl_calloc(n, sizeof(size_t));
    j->span_len = sl_calloc(n, sizeof(size_t));
    for (int i = 0; i < ncols; i++)
        j->name_len[i] = strlen(names[i]);
    for (int i = 0; i < ncols; i++) { /* insertion sort by name: ncols is small */
        int k = i;
        while (k > 0 && strcmp(names[j->order[k - 1]], names[i]) > 0) {
            j->order[k] = j->order[k - 1];
            k--;
        }
        j->order[k] = i;
    }
    /* the nested objects: every proper prefix of a dotted name */
    for (int i = 0; i < ncols; i++) {
        int d = 0;
        for (const char *dot = strchr(names[i], '.'); dot; dot = strchr(dot + 1, '.'), d++) {
            size_t glen = (size_t)(dot - names[i]);
            if (sl__json_group(j, names[i], glen) < 0) {
                j->groups = sl_realloc(j->groups, (size_t)(j->ngroups + 1) * sizeof(char *));
                j->groups[j->ngroups++] = sl_strndup(names[i], glen);
            }
        }
        if (d > j->maxd)
            j->maxd = d;
    }
    static const char *const el_name[] = {"element"};
    const sl_type el_type[] = {sl_type_make(SL_TYPE_INT)};
    j->el = sl_calloc(1, sizeof(sl_codec));
    sl__codec_init(j->el, &sl__json_ops, "JSON", 1, el_name, el_type);
    j->open_name = sl_calloc((size_t)j->maxd + 1, sizeof(char *));
    j->open_len = sl_calloc((size_t)j->maxd + 1, sizeof(size_t));
    j->first = sl_calloc((size_t)j->maxd + 2, sizeof(bool));
    return &j->base;
}
