/*
** fuzz_codec.c — libFuzzer target for the json and csv row codecs.
**
** The first input byte picks the format (bit 0) and one of four option
** sets (bits 1-2); the rest is one record, copied into a buffer of exactly
** its size so ASan catches any read past the length. The table has one
** column of every supported type (json: also an ARRAY<INT> and a
** MAP<STRING, ARRAY<DOUBLE>>, which csv refuses). For any bytes:
**   - decode returns ROW, SKIPPED, NONE or -1 with 22P02 "malformed <F>
**     record" and a detail, and leaves the chunk untouched unless a row
**     was added; the json codec's parser and Jansson agree on what is
**     JSON (Jansson is the oracle);
**   - a decoded row encodes, and the encoded record decodes (same codec)
**     to equal values — also as a line of a file: the line framing
**     (sl_codec_line_end) finds exactly the encoded record before the '\n'
**     the filesystem sink adds, and a record followed by "\n" (a Kafka
**     message with a line break) decodes to the same row;
**   - the same row written by a default json codec reads back equal too
**     (so every csv value is representable in json).
** Any violation abort()s, so the fuzzer reports it.
**
** Main routine: LLVMFuzzerTestOneInput.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sl_connector.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { NCOLS = 18, NCSV = 16 };
static const char *const sl__names[NCOLS] = {"b",   "ti", "si",  "i",  "bi", "f",  "d",  "dec",
                                             "big", "s",  "c",   "bin", "dt", "tm", "ts", "ltz",
                                             "arr", "m"};
static int sl__ncols = NCOLS; /* the columns of this input's tables */

static void sl__types(sl_type *t)
{
    t[0] = sl_type_make(SL_TYPE_BOOLEAN);
    t[1] = sl_type_make(SL_TYPE_TINYINT);
    t[2] = sl_type_make(SL_TYPE_SMALLINT);
    t[3] = sl_type_make(SL_TYPE_INT);
    t[4] = sl_type_make(SL_TYPE_BIGINT);
    t[5] = sl_type_make(SL_TYPE_FLOAT);
    t[6] = sl_type_make(SL_TYPE_DOUBLE);
    t[7] = sl_type_make_p(SL_TYPE_DECIMAL, 10, 2);
    t[8] = sl_type_make_p(SL_TYPE_DECIMAL, 38, 10);
    t[9] = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    t[10] = sl_type_make_p(SL_TYPE_CHAR, 3, 0);
    t[11] = sl_type_make_p(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0);
    t[12] = sl_type_make(SL_TYPE_DATE);
    t[13] = sl_type_make_p(SL_TYPE_TIME, 3, 0);
    t[14] = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    t[15] = sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, 6, 0);
    t[16] = sl_type_array_of(sl_type_make(SL_TYPE_INT));
    t[17] = sl_type_map_of(sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0),
                           sl_type_array_of(sl_type_make(SL_TYPE_DOUBLE)));
}

/* Option sets: key, value, ..., NULL. */
static const char *const sl__json_sets[4][9] = {
    {"format", "json", NULL},
    {"format", "json", "json.timestamp-format.standard", "ISO-8601",
     "json.encode.decimal-as-plain-number", "true", NULL},
    {"format", "json", "json.ignore-parse-errors", "true", "json.encode.ignore-null-fields",
     "true", NULL},
    {"format", "json", "json.fail-on-missing-field", "true", NULL},
};
static const char *const sl__csv_sets[4][13] = {
    {"format", "csv", NULL},
    {"format", "csv", "csv.field-delimiter", ";", "csv.disable-quote-character", "true",
     "csv.escape-character", "\\", "csv.null-literal", "\\N", NULL},
    {"format", "csv", "csv.quote-character", "'", "csv.escape-character", "\\",
     "csv.allow-comments", "true", "csv.null-literal", "NULL", "csv.ignore-parse-errors", "true",
     NULL},
    {"format", "csv", "csv.field-delimiter", "\\t", "csv.null-literal", "", NULL},
};

static void sl__fail(const char *what, const char *rec, size_t n, const char *extra)
{
    fprintf(stderr, "fuzz_codec: %s\n  record (%zu bytes): %.*s\n  %s\n", what, n, (int)n, rec,
            extra ? extra : "");
    abort();
}

static sl_codec *sl__codec(const char *const *set, const sl_type *types)
{
    sl_kvlist *l = sl_kvlist_new();
    for (int i = 0; set[i]; i += 2)
        sl_kvlist_add(l, set[i], set[i + 1], -1, -1);
    sl_error err = SL_ERROR_INIT;
    sl_codec *c = sl_codec_new(l, sl__ncols, sl__names, types, &err);
    if (!c)
        sl__fail("sl_codec_new failed", "", 0, err.message);
    sl_kvlist_free(l);
    return c;
}

static bool sl__same(const sl_chunk *a, int ra, const sl_chunk *b, int rb, int *col)
{
    for (int i = 0; i < sl__ncols; i++) {
        const sl_vector *va = &a->cols[i], *vb = &b->cols[i];
        bool same = (va->nulls[ra] != 0) == (vb->nulls[rb] != 0);
        if (same && !va->nulls[ra]) {
            switch (va->phys) {
            case SL_PHYS_BOOL: same = va->v.b[ra] == vb->v.b[rb]; break;
            case SL_PHYS_I64: same = va->v.i64[ra] == vb->v.i64[rb]; break;
            case SL_PHYS_F64:
                same = va->v.f64[ra] == vb->v.f64[rb] ||
                       (isnan(va->v.f64[ra]) && isnan(vb->v.f64[rb]));
                break;
            case SL_PHYS_I128: same = va->v.i128[ra] == vb->v.i128[rb]; break;
            case SL_PHYS_STR:
                same = va->v.str[ra].len == vb->v.str[rb].len &&
                       (va->v.str[ra].len == 0 ||
                        memcmp(va->v.str[ra].ptr, vb->v.str[rb].ptr, va->v.str[ra].len) == 0);
                break;
            }
        }
        if (!same) {
            *col = i;
            return false;
        }
    }
    return true;
}

/* The json codec's own parser against Jansson, the oracle: they must agree
** on what is JSON. A number outside double's range is JSON that Jansson
** refuses ("real number overflow"); the codec reads it by its column's type. */
static void sl__jansson_agrees(const char *rec, size_t n, int rc, const sl_error *err)
{
    size_t blank = 0;
    while (blank < n && (rec[blank] == ' ' || rec[blank] == '\t' || rec[blank] == '\r' ||
                         rec[blank] == '\n'))
        blank++;
    if (blank == n)
        return; /* not a record (Jansson: not JSON) */
    json_error_t je;
    json_t *root = json_loadb(rec, n, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL,
                              &je);
    bool jansson_ok = root != NULL;
    json_decref(root);
    bool ours_ok = !(rc == -1 && err->detail && strncmp(err->detail, "invalid JSON at ", 16) == 0);
    if (rc == SL_CODEC_SKIPPED) /* skip mode hides the detail: decide by Jansson's reason */
        return;
    /* Jansson stops at a NUL byte as at the end of its input; the codec
    ** refuses one outside a string's escapes, as JSON does. */
    if (jansson_ok && !ours_ok && !memchr(rec, 0, n))
        sl__fail("the json parser refuses what Jansson accepts", rec, n, err->detail);
    if (!jansson_ok && ours_ok && !strstr(je.text, "overflow"))
        sl__fail("the json parser accepts what Jansson refuses", rec, n, je.text);
}

/* Decode copy[0..len) with dec into b and compare with row r of a. */
static void sl__decode_same(sl_codec *dec, const char *copy, size_t len, const sl_chunk *a, int r,
                            sl_chunk *b, const char *rec, size_t n, const char *what,
                            sl_strbuf *sb)
{
    sl_error err = SL_ERROR_INIT;
    if (b->nrows == b->cap)
        sl_chunk_reset(b);
    int rc = sl_codec_decode(dec, copy, len, b, &err);
    if (rc != SL_CODEC_ROW) {
        fprintf(stderr, "%s: %s\n", err.message ? err.message : "", err.detail ? err.detail : "");
        sl__fail(what, rec, n, sl_strbuf_cstr(sb));
    }
    int col = -1;
    if (!sl__same(a, r, b, b->nrows - 1, &col)) {
        fprintf(stderr, "column %s differs\n", sl__names[col]);
        sl__fail(what, rec, n, sl_strbuf_cstr(sb));
    }
    sl_error_reset(&err);
}

/* Encode row r of a with enc, decode with dec into b, compare; then as a
** line of a file, and with a line break after it. */
static void sl__roundtrip(sl_codec *enc, sl_codec *dec, const sl_chunk *a, int r, sl_chunk *b,
                          const char *rec, size_t n, const char *what)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_error err = SL_ERROR_INIT;
    if (sl_codec_encode(enc, a, r, &sb, &err) != 0)
        sl__fail("encode failed", rec, n, err.message);
    size_t len = sb.len;
    char *copy = malloc(len + 1);
    if (len)
        memcpy(copy, sb.buf, len);
    copy[len] = '\n';
    sl__decode_same(dec, copy, len, a, r, b, rec, n, what, &sb);
    size_t scanned = 0, reclen = 0;
    size_t end = sl_codec_line_end(dec, copy, len + 1, &scanned, &reclen);
    if (end != len || reclen != len)
        sl__fail("the line framing does not find the encoded record", rec, n,
                 sl_strbuf_cstr(&sb));
    sl__decode_same(dec, copy, len + 1, a, r, b, rec, n, "a record with a line break after it",
                    &sb);
    free(copy);
    sl_strbuf_free(&sb);
    sl_error_reset(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    bool csv = data[0] & 1;
    int set = (data[0] >> 1) & 3;
    size_t n = size - 1;
    char *rec = malloc(n ? n : 1);
    if (n)
        memcpy(rec, data + 1, n);

    sl_type types[NCOLS];
    sl__types(types);
    sl__ncols = csv ? NCSV : NCOLS;
    sl_codec *c = sl__codec(csv ? sl__csv_sets[set] : sl__json_sets[set], types);
    sl_codec *json = sl__codec(sl__json_sets[0], types);
    sl_chunk *a = sl_chunk_new(sl__ncols, types, 4), *b = sl_chunk_new(sl__ncols, types, 4);
    sl_error err = SL_ERROR_INIT;
    size_t arena = a->arena.total;
    int rc = sl_codec_decode(c, rec, n, a, &err);
    if (rc == SL_CODEC_ROW) {
        if (a->nrows != 1)
            sl__fail("ROW without exactly one row", rec, n, NULL);
        sl__roundtrip(c, c, a, 0, b, rec, n, "encoded record does not decode to the same row");
        sl__roundtrip(json, json, a, 0, b, rec, n, "json copy does not decode to the same row");
    } else {
        if (a->nrows != 0 || a->arena.total != arena)
            sl__fail("failed decode changed the chunk", rec, n, NULL);
        if (rc == -1) {
            const char *want = csv ? "malformed CSV record" : "malformed JSON record";
            if (strcmp(err.sqlstate, "22P02") != 0 || !err.message ||
                strcmp(err.message, want) != 0 || !err.detail)
                sl__fail("bad error", rec, n, err.message);
        } else if (rc != SL_CODEC_SKIPPED && rc != SL_CODEC_NONE) {
            sl__fail("bad result", rec, n, NULL);
        } else if (sl_error_isset(&err)) {
            sl__fail("error set without -1", rec, n, err.message);
        }
    }
    if (!csv)
        sl__jansson_agrees(rec, n, rc, &err);
    sl_error_reset(&err);
    sl_chunk_free(a);
    sl_chunk_free(b);
    sl_codec_free(c);
    sl_codec_free(json);
    free(rec);
    return 0;
}
