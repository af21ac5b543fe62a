/*
** test_connectors_codec.c — the row codecs (json, csv, raw): decoding into
** chunks checked against independently written expectations for every
** supported type (NULLs, range limits, exact decimals, negative
** timestamps, UTF-8), every format option, malformed records of every kind
** (SQLSTATE, message, detail; skip mode; the chunk left exactly as it was),
** exact encoded text, Jansson reading the JSON back, and encode -> decode
** round trips. Records are copied into heap buffers of exactly their size,
** so ASan catches any read past the length.
*/
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>

#include "sl_connector.h"
#include "formats/codec_int.h" /* sl__codec_fmt_double */
#include "sl_test.h"

/* ------------------------------------------------------------------------
** Fixtures.
*/

/* The all-types table. */
enum { C_B, C_TI, C_SI, C_I, C_BI, C_F, C_D, C_DEC, C_BIG, C_S, C_C, C_BIN, C_DT, C_TM, C_TS,
       C_LTZ, NCOLS };
static const char *const cnames[NCOLS] = {"b",   "ti", "si",  "i",  "bi", "f",  "d",  "dec",
                                         "big", "s",  "c",   "bin", "dt", "tm", "ts", "ltz"};
static sl_type types[NCOLS];

static void init_types(void)
{
    types[C_B] = sl_type_make(SL_TYPE_BOOLEAN);
    types[C_TI] = sl_type_make(SL_TYPE_TINYINT);
    types[C_SI] = sl_type_make(SL_TYPE_SMALLINT);
    types[C_I] = sl_type_make(SL_TYPE_INT);
    types[C_BI] = sl_type_make(SL_TYPE_BIGINT);
    types[C_F] = sl_type_make(SL_TYPE_FLOAT);
    types[C_D] = sl_type_make(SL_TYPE_DOUBLE);
    types[C_DEC] = sl_type_make_p(SL_TYPE_DECIMAL, 10, 2);
    types[C_BIG] = sl_type_make_p(SL_TYPE_DECIMAL, 38, 10);
    types[C_S] = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    types[C_C] = sl_type_make_p(SL_TYPE_CHAR, 3, 0);
    types[C_BIN] = sl_type_make_p(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0);
    types[C_DT] = sl_type_make(SL_TYPE_DATE);
    types[C_TM] = sl_type_make_p(SL_TYPE_TIME, 0, 0);
    types[C_TS] = sl_type_make_p(SL_TYPE_TIMESTAMP, 3, 0);
    types[C_LTZ] = sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, 3, 0);
}

/* Options from key, value, ..., NULL. */
static sl_kvlist *vopts(const char *key, va_list ap)
{
    sl_kvlist *l = sl_kvlist_new();
    for (int i = 0; key; i++) {
        const char *value = va_arg(ap, const char *);
        sl_kvlist_add(l, key, value, 100 * (i + 1), 100 * (i + 1) + 50);
        key = va_arg(ap, const char *);
    }
    return l;
}

/* A codec for ncols columns (cnames / types) with options key, value, ...,
** NULL; REQUIREs success. */
static sl_codec *codec_for(int ncols, const char *const *ns, const sl_type *ts, const char *key, ...)
{
    va_list ap;
    va_start(ap, key);
    sl_kvlist *l = vopts(key, ap);
    va_end(ap);
    sl_error err = SL_ERROR_INIT;
    sl_codec *c = sl_codec_new(l, ncols, ns, ts, &err);
    if (!c)
        fprintf(stderr, "sl_codec_new: %s\n", err.message ? err.message : "?");
    sl_error_reset(&err);
    sl_kvlist_free(l);
    REQUIRE(c != NULL);
    return c;
}

/* sl_codec_new must fail with sqlstate and message. */
static void expect_new_fails(int ncols, const char *const *ns, const sl_type *ts,
                             const char *sqlstate, const char *message, const char *key, ...)
{
    va_list ap;
    va_start(ap, key);
    sl_kvlist *l = vopts(key, ap);
    va_end(ap);
    sl_error err = SL_ERROR_INIT;
    sl_codec *c = sl_codec_new(l, ncols, ns, ts, &err);
    CHECK(c == NULL);
    CHECK_STR(err.sqlstate, sqlstate);
    CHECK_STR(err.message, message);
    sl_codec_free(c);
    sl_error_reset(&err);
    sl_kvlist_free(l);
}

static sl_chunk *chunk(int ncols, const sl_type *ts)
{
    return sl_chunk_new(ncols, ts, 16);
}

/* Decode text[0..n) from an exact-size heap copy; checks that out gained
** exactly one row on SL_CODEC_ROW and is untouched (rows and arena)
** otherwise. */
static int decn(sl_codec *c, const char *text, size_t n, sl_chunk *out, sl_error *err)
{
    char *buf = malloc(n ? n : 1);
    memcpy(buf, text, n);
    int rows = out->nrows;
    size_t arena = out->arena.total;
    int rc = sl_codec_decode(c, buf, n, out, err);
    if (rc == SL_CODEC_ROW) {
        CHECK_INT(out->nrows, rows + 1);
    } else {
        CHECK_INT(out->nrows, rows);
        CHECK(out->arena.total == arena);
    }
    free(buf);
    return rc;
}

static int dec(sl_codec *c, const char *text, sl_chunk *out, sl_error *err)
{
    return decn(c, text, strlen(text), out, err);
}

/* Decoding text must fail with 22P02, message and detail (checked when
** not NULL), and leave out as it was. */
static void expect_bad(sl_codec *c, sl_chunk *out, const char *text, const char *message,
                       const char *detail)
{
    sl_error err = SL_ERROR_INIT;
    int rc = dec(c, text, out, &err);
    CHECK_INT(rc, -1);
    if (rc != -1)
        fprintf(stderr, "  record: %s\n", text);
    CHECK_STR(err.sqlstate, "22P02");
    CHECK_STR(err.message, message);
    if (detail)
        CHECK_STR(err.detail, detail);
    sl_error_reset(&err);
}

/* Decoding text in skip mode: SKIPPED, no error, out untouched. */
static void expect_skipped(sl_codec *c, sl_chunk *out, const char *text)
{
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(dec(c, text, out, &err), SL_CODEC_SKIPPED);
    CHECK(!sl_error_isset(&err));
    sl_error_reset(&err);
}

/* Decode one good record into a fresh row; returns its index. */
static int dec_ok(sl_codec *c, sl_chunk *out, const char *text)
{
    sl_error err = SL_ERROR_INIT;
    int rc = dec(c, text, out, &err);
    if (rc != SL_CODEC_ROW)
        fprintf(stderr, "decode failed (%d): %s\n  %s\n  record: %s\n", rc,
                err.message ? err.message : "", err.detail ? err.detail : "", text);
    sl_error_reset(&err);
    REQUIRE(rc == SL_CODEC_ROW);
    return out->nrows - 1;
}

/* Encode row r; returns a malloc'ed string. REQUIREs success. */
static char *enc(sl_codec *c, const sl_chunk *in, int r)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_error err = SL_ERROR_INIT;
    int rc = sl_codec_encode(c, in, r, &sb, &err);
    if (rc != 0)
        fprintf(stderr, "encode failed: %s\n", err.message ? err.message : "");
    sl_error_reset(&err);
    REQUIRE(rc == 0);
    return sl_strbuf_detach(&sb);
}

static bool isnull(const sl_chunk *c, int col, int r)
{
    return c->cols[col].nulls[r] != 0;
}

static int64_t i64(const sl_chunk *c, int col, int r)
{
    CHECK(!isnull(c, col, r));
    return c->cols[col].v.i64[r];
}

static double f64(const sl_chunk *c, int col, int r)
{
    CHECK(!isnull(c, col, r));
    return c->cols[col].v.f64[r];
}

/* String value equals exactly s[0..n). */
static bool str_is(const sl_chunk *c, int col, int r, const char *s, size_t n)
{
    if (isnull(c, col, r))
        return false;
    const sl_str *v = &c->cols[col].v.str[r];
    return v->len == n && (n == 0 || memcmp(v->ptr, s, n) == 0);
}
#define STR_IS(c, col, r, lit) str_is(c, col, r, lit, sizeof(lit) - 1)

/* An i128 from decimal digits (independent of sl_dec_parse). */
static sl_i128 i128_of(const char *s)
{
    bool neg = *s == '-';
    if (neg)
        s++;
    sl_i128 v = 0;
    for (; *s; s++)
        v = v * 10 + (*s - '0');
    return neg ? -v : v;
}

static bool dec_is(const sl_chunk *c, int col, int r, const char *unscaled)
{
    return !isnull(c, col, r) && c->cols[col].v.i128[r] == i128_of(unscaled);
}

#define DAYS_2026_01_31 20484
#define NS_2026_01_31_NOON 1769860800000000000LL
#define NS_PER_S 1000000000LL

/* ------------------------------------------------------------------------
** Codec creation.
*/
static void t_new_errors(void)
{
    init_types();
    expect_new_fails(NCOLS, cnames, types, "0A000", "format 'avro' has no row codec", "format",
                     "avro", NULL);
    expect_new_fails(NCOLS, cnames, types, "0A000", "the table has no format", NULL);
    sl_type iv[1] = {sl_type_make(SL_TYPE_INTERVAL_DT)};
    const char *n1[1] = {"x"};
    expect_new_fails(1, n1, iv, "0A000",
                     "format 'json' does not support type INTERVAL SECOND(3) (column \"x\")",
                     "format", "json", NULL);
    expect_new_fails(1, n1, iv, "0A000",
                     "format 'csv' does not support type INTERVAL SECOND(3) (column \"x\")",
                     "format", "csv", NULL);
    sl_type d1[1] = {sl_type_make_p(SL_TYPE_DECIMAL, 10, 2)};
    expect_new_fails(1, n1, d1, "0A000",
                     "format 'raw' does not support type DECIMAL(10, 2) (column \"x\")", "format",
                     "raw", NULL);
    expect_new_fails(2, cnames, types, "0A000", "format 'raw' needs a table with exactly one column",
                     "format", "raw", NULL);
    sl_type s1[1] = {sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0)};
    expect_new_fails(1, n1, s1, "0A000", "format 'raw' does not support charset 'UTF-16' yet",
                     "format", "raw", "raw.charset", "UTF-16", NULL);
    expect_new_fails(1, n1, s1, "22023",
                     "the CSV field delimiter, quote and escape characters must differ, and the "
                     "delimiter cannot be a line break",
                     "format", "csv", "csv.field-delimiter", "\"", NULL);
    expect_new_fails(1, n1, s1, "22023",
                     "option 'csv.null-literal' cannot contain the field delimiter", "format",
                     "csv", "csv.null-literal", "a,b", NULL);
    expect_new_fails(1, n1, s1, "22023",
                     "invalid value for option 'csv.field-delimiter': \"ab\" is not a single "
                     "character",
                     "format", "csv", "csv.field-delimiter", "ab", NULL);
}

/* ------------------------------------------------------------------------
** JSON decoding.
*/
static const char json_all[] =
    "{\"b\":true,\"ti\":-128,\"si\":32767,\"i\":-2147483648,\"bi\":9223372036854775807,"
    "\"f\":0.1,\"d\":0.1,\"dec\":12.34,\"big\":0.1,\"s\":\"h\\u00e9llo \\ud83d\\ude00\","
    "\"c\":\"abc\",\"bin\":\"AAEC/w==\",\"dt\":\"2026-01-31\",\"tm\":\"12:00:00\","
    "\"ts\":\"2026-01-31 12:00:00.123\",\"ltz\":\"1969-12-31 23:59:59.999Z\"}";

static void t_json_all_types(void)
{
    init_types();
    sl_codec *c = codec_for(NCOLS, cnames, types, "format", "json", NULL);
    sl_chunk *ch = chunk(NCOLS, types);
    int r = dec_ok(c, ch, json_all);
    CHECK_INT(ch->kinds[r], SL_ROW_INSERT);
    CHECK(!isnull(ch, C_B, r) && ch->cols[C_B].v.b[r] == 1);
    CHECK_INT(i64(ch, C_TI, r), -128);
    CHECK_INT(i64(ch, C_SI, r), 32767);
    CHECK_INT(i64(ch, C_I, r), -2147483647LL - 1);
    CHECK(i64(ch, C_BI, r) == INT64_MAX);
    CHECK(f64(ch, C_F, r) == (double)0.1f);
    CHECK(f64(ch, C_D, r) == 0.1);
    CHECK(dec_is(ch, C_DEC, r, "1234"));
    CHECK(dec_is(ch, C_BIG, r, "1000000000")); /* exactly 0.1 at scale 10 */
    CHECK(STR_IS(ch, C_S, r, "h\xc3\xa9llo \xf0\x9f\x98\x80"));
    CHECK(STR_IS(ch, C_C, r, "abc"));
    CHECK(STR_IS(ch, C_BIN, r, "\x00\x01\x02\xff"));
    CHECK_INT(i64(ch, C_DT, r), DAYS_2026_01_31);
    CHECK_INT(i64(ch, C_TM, r), 12 * 3600 * NS_PER_S);
    CHECK_INT(i64(ch, C_TS, r), NS_2026_01_31_NOON + 123000000);
    CHECK_INT(i64(ch, C_LTZ, r), -1000000); /* 1 ms before the epoch */

    /* the other limits, field order free, whitespace, extra fields ignored */
    r = dec_ok(c, ch,
               " {\"extra\": [1, {\"x\": \"}\"}], \"ti\" : 127, \"si\":-32768, \"i\":2147483647,"
               "\"bi\":-9223372036854775808, \"b\": false,\"unknown\":123456789012345678901234567890}\n");
    CHECK_INT(i64(ch, C_TI, r), 127);
    CHECK_INT(i64(ch, C_SI, r), -32768);
    CHECK_INT(i64(ch, C_I, r), 2147483647);
    CHECK(i64(ch, C_BI, r) == INT64_MIN);
    CHECK(ch->cols[C_B].v.b[r] == 0);
    for (int col = C_F; col < NCOLS; col++)
        CHECK(isnull(ch, col, r));
    sl_chunk_free(ch);
    sl_codec_free(c);
}

static void t_json_nulls_and_missing(void)
{
    init_types();
    sl_codec *c = codec_for(NCOLS, cnames, types, "format", "json", NULL);
    sl_chunk *ch = chunk(NCOLS, types);
    int r = dec_ok(c, ch, "{}");
    for (int col = 0; col < NCOLS; col++)
        CHECK(isnull(ch, col, r));
    r = dec_ok(c, ch,
               "{\"b\":null,\"ti\":null,\"si\":null,\"i\":null,\"bi\":null,\"f\":null,\"d\":null,"
               "\"dec\":null,\"big\":null,\"s\":null,\"c\":null,\"bin\":null,\"dt\":null,"
               "\"tm\":null,\"ts\":null,\"ltz\":null}");
    for (int col = 0; col < NCOLS; col++)
        CHECK(isnull(ch, col, r));
    /* cnames are case-sensitive */
    r = dec_ok(c, ch, "{\"I\":5,\"S\":\"x\"}");
    CHECK(isnull(ch, C_I, r) && isnull(ch, C_S, r));
    sl_codec_free(c);

    c = codec_for(NCOLS, cnames, types, "format", "json", "json.fail-on-missing-field", "true",
                  NULL);
    expect_bad(c, ch, "{\"b\":true}", "malformed JSON record", "field \"ti\" is missing");
    sl_codec_free(c);
    c = codec_for(NCOLS, cnames, types, "format", "json", "json.fail-on-missing-field", "true",
                  "json.ignore-parse-errors", "true", NULL);
    expect_skipped(c, ch, "{\"b\":true}");
    sl_codec_free(c);

    /* NOT NULL columns */
    sl_type nn[2] = {sl_type_make(SL_TYPE_INT), sl_type_make(SL_TYPE_INT)};
    nn[0].not_null = true;
    const char *n2[2] = {"id", "v"};
    c = codec_for(2, n2, nn, "format", "json", NULL);
    sl_chunk *c2 = chunk(2, nn);
    expect_bad(c, c2, "{\"id\":null,\"v\":1}", "malformed JSON record",
               "field \"id\" is null, but the column is NOT NULL");
    expect_bad(c, c2, "{\"v\":1}", "malformed JSON record", "field \"id\" is missing");
    r = dec_ok(c, c2, "{\"id\":1}");
    CHECK_INT(i64(c2, 0, r), 1);
    CHECK(isnull(c2, 1, r));
    sl_chunk_free(c2);
    sl_codec_free(c);
    sl_chunk_free(ch);
}

static void t_json_integers(void)
{
    init_types();
    sl_codec *c = codec_for(NCOLS, cnames, types, "format", "json", NULL);
    sl_chunk *ch = chunk(NCOLS, types);
    int r = dec_ok(c, ch, "{\"i\":\"12\",\"ti\":\" -7 \",\"si\":2.0,\"bi\":1e2}");
    CHECK_INT(i64(ch, C_I, r), 12); /* numeric strings, as Flink */
    CHECK_INT(i64(ch, C_TI, r), -7);
    CHECK_INT(i64(ch, C_SI, r), 2);
    CHECK_INT(i64(ch, C_BI, r), 100);
    /* beyond 2^53: exact, not via a double */
    r = dec_ok(c, ch, "{\"bi\":9007199254740993}");
    CHECK(i64(ch, C_BI, r) == 9007199254740993LL);
    sl_chunk_reset(ch);
    expect_bad(c, ch, "{\"ti\":128}", "malformed JSON record",
               "field \"ti\": 128 is out of range for TINYINT");
    expect_bad(c, ch, "{\"ti\":-129}", "malformed JSON record",
               "field \"ti\": -129 is out of range for TINYINT");
    expect_bad(c, ch, "{\"si\":32768}", "malformed JSON record",
               "field \"si\": 32768 is out of range for SMALLINT");
    expect_bad(c, ch, "{\"i\":2147483648}", "malformed JSON record",
               "field \"i\": 2147483648 is out of range for INT");
    expect_bad(c, ch, "{\"bi\":9223372036854775808}", "malformed JSON record",
               "field \"bi\": 9223372036854775808 is out of range for BIGINT");
    expect_bad(c, ch, "{\"bi\":-9223372036854775809}", "malformed JSON record",
               "field \"bi\": -9223372036854775809 is out of range for BIGINT");
    expect_bad(c, ch, "{\"i\":\"abc\"}", "malformed JSON record",
               "field \"i\": \"abc\" is not a valid INT");
    expect_bad(c, ch, "{\"i\":1.5}", "malformed JSON record", "field \"i\": 1.5 is not a valid INT");
    expect_bad(c, ch, "{\"i\":true}", "malformed JSON record",
               "field \"i\": true is not a valid INT");
    expect_bad(c, ch, "{\"i\":{\"a\":1}}", "malformed JSON record",
               "field \"i\": a JSON object is not a valid INT");
    expect_bad(c, ch, "{\"i\":[1]}", "malformed JSON record",
               "field \"i\": a JSON array is not a valid INT");
    expect_bad(c, ch, "{\"i\":\"\"}", "malformed JSON record", "field \"i\": \"\" is not a valid INT");
    sl_chunk_free(ch);
    sl_codec_free(c);
}

static void t_json_decimals(void)
{
    init_types();
    sl_codec *c = codec_for(NCOLS, cnames, types, "format", "json", NULL);
    sl_chunk *ch = chunk(NCOLS, types);
    /* DECIMAL(38, 10) extremes: 28 integer digits, 10 fraction digits */
    int r = dec_ok(c, ch,
                   "{\"big\":9999999999999999999999999999.9999999999,\"dec\":99999999.99}");
    CHECK(dec_is(ch, C_BIG, r, "99999999999999999999999999999999999999"));
    CHECK(dec_is(ch, C_DEC, r, "9999999999"));
    r = dec_ok(c, ch, "{\"big\":-9999999999999999999999999999.9999999999,\"dec\":-0.01}");
    CHECK(dec_is(ch, C_BIG, r, "-99999999999999999999999999999999999999"));
    CHECK(dec_is(ch, C_DEC, r, "-1"));
    /* integers beyond 64 bits; exponents; HALF_UP; numeric strings */
    r = dec_ok(c, ch, "{\"big\":1234567890123456789012345678,\"dec\":1.5e3}");
    CHECK(dec_is(ch, C_BIG, r, "12345678901234567890123456780000000000"));
    CHECK(dec_is(ch, C_DEC, r, "150000"));
    r = dec_ok(c, ch, "{\"big\":0.00000000005,\"dec\":\"12.345\"}");
    CHECK(dec_is(ch, C_BIG, r, "1"));
    CHECK(dec_is(ch, C_DEC, r, "1235"));
    r = dec_ok(c, ch, "{\"big\":0.1,\"dec\":0.1}");
    CHECK(dec_is(ch, C_BIG, r, "1000000000"));
    CHECK(dec_is(ch, C_DEC, r, "10"));
    sl_chunk_reset(ch);
    expect_bad(c, ch, "{\"dec\":\"12,5\"}", "malformed JSON record",
               "field \"dec\": \"12,5\" is not a valid DECIMAL(10, 2)");
    expect_bad(c, ch, "{\"dec\":123456789}", "malformed JSON record",
               "field \"dec\": 123456789 is out of range for DECIMAL(10, 2)");
    expect_bad(c, ch, "{\"big\":10000000000000000000000000000}", "malformed JSON record",
               "field \"big\": 10000000000000000000000000000 is out of range for DECIMAL(38, 10)");
    expect_bad(c, ch, "{\"dec\":false}", "malformed JSON record",
               "field \"dec\": false is not a valid DECIMAL(10, 2)");
    sl_chunk_free(ch);
    sl_codec_free(c);
}

static void t_json_floats(void)
{
    init_types();
    sl_codec *c = codec_for(NCOLS, cnames, types, "format", "json", NULL);
    sl_chunk *ch = chunk(NCOLS, types);
    int r = dec_ok(c, ch, "{\"f\":3.4028234663852886e38,\"d\":-1.7976931348623157e308}");
    CHECK(f64(ch, C_F, r) == (double)3.4028234663852886e38f);
    CHECK(f64(ch, C_D, r) == -1.7976931348623157e308);
    r = dec_ok(c, ch, "{\"f\":\"NaN\",\"d\":\"-Infinity\"}");
    CHECK(isnan(f64(ch, C_F, r)));
    CHECK(isinf(f64(ch, C_D, r)) && f64(ch, C_D, r) < 0);
    r = dec_ok(c, ch, "{\"f\":12,\"d\":\" 5e-324 \"}");
    CHECK(f64(ch, C_F, r) == 12.0);
    CHECK(f64(ch, C_D, r) == 5e-324);
    sl_chunk_reset(ch);
    r = dec_ok(c, ch, "{\"f\":3.4028235E38,\"d\":-3.4028235E38}"); /* Java's Float.MAX_VALUE */
    CHECK(f64(ch, C_F, r) == (double)FLT_MAX);
    CHECK(f64(ch, C_D, r) == -3.4028235E38);
    expect_bad(c, ch, "{\"f\":3.4028236e38}", "malformed JSON record",
               "field \"f\": 3.4028236e38 is out of range for FLOAT");
    expect_bad(c, ch, "{\"f\":1e39}", "malformed JSON record",
               "field \"f\": 1e39 is out of range for FLOAT");
    expect_bad(c, ch, "{\"d\":\"1e400\"}", "malformed JSON record",
               "field \"d\": \"1e400\" is out of range for DOUBLE");
    expect_bad(c, ch, "{\"d\":\"0x10\"}", "malformed JSON record",
               "field \"d\": \"0x10\" is not a valid DOUBLE");
    sl_chunk_free(ch);
    sl_codec_free(c);
}

static void t_json_strings_and_bytes(void)
{
    init_types();
    sl_codec *c = codec_for(NCOLS, cnames, types, "format", "json", NULL);
    sl_chunk *ch = chunk(NCOLS, types);
    int r = dec_ok(c, ch, "{\"s\":\"\",\"c\":\"a\\u0000b\",\"bin\":\"\"}");
    CHECK(STR_IS(ch, C_S, r, ""));
    CHECK(STR_IS(ch, C_C, r, "a\0b"));
    CHECK(STR_IS(ch, C_BIN, r, ""));
    r = dec_ok(c, ch, "{\"s\":\"q\\\"\\\\\\/\\b\\f\\n\\r\\t\",\"bin\":\"aGk\"}");
    CHECK(STR_IS(ch, C_S, r, "q\"\\/\b\f\n\r\t"));
    CHECK(STR_IS(ch, C_BIN, r, "hi")); /* padding optional */
    /* numbers, booleans and containers into a string column: their text */
    r = dec_ok(c, ch, "{\"s\":1.50,\"c\":true}");
    CHECK(STR_IS(ch, C_S, r, "1.50"));
    CHECK(STR_IS(ch, C_C, r, "true"));
    r = dec_ok(c, ch, "{\"s\":{\"a\": [1, 2.0]}}");
    CHECK(STR_IS(ch, C_S, r, "{\"a\": [1, 2.0]}"));
    /* a repeated key: the last one wins, for numbers too */
    r = dec_ok(c, ch, "{\"big\":1,\"s\":\"x\",\"big\":2.5,\"s\":\"y\"}");
    CHECK(dec_is(ch, C_BIG, r, "25000000000"));
    CHECK(STR_IS(ch, C_S, r, "y"));
    /* an escaped key still finds its column, and its number text */
    r = dec_ok(c, ch, "{\"\\u0062ig\":0.3,\"\\u0073\":\"z\"}");
    CHECK(dec_is(ch, C_BIG, r, "3000000000"));
    CHECK(STR_IS(ch, C_S, r, "z"));
    sl_chunk_reset(ch);
    expect_bad(c, ch, "{\"bin\":\"A\"}", "malformed JSON record",
               "field \"bin\": \"A\" is not a valid BYTES");
    expect_bad(c, ch, "{\"bin\":\"AA=A\"}", "malformed JSON record",
               "field \"bin\": \"AA=A\" is not a valid BYTES");
    expect_bad(c, ch, "{\"bin\":\"@@@@\"}", "malformed JSON record",
               "field \"bin\": \"@@@@\" is not a valid BYTES");
    expect_bad(c, ch, "{\"bin\":12}", "malformed JSON record",
               "field \"bin\": 12 is not a valid BYTES");
    sl_chunk_free(ch);
    sl_codec_free(c);
}

static void t_json_times(void)
{
    init_types();
    sl_codec *c = codec_for(NCOLS, cnames, types, "format", "json", NULL);
    sl_chunk *ch = chunk(NCOLS, types);
    /* truncated to the column's precision, toward the past */
    int r = dec_ok(c, ch,
                   "{\"ts\":\"1960-06-15 08:30:00.123999\",\"ltz\":\"2026-01-31 12:00:00Z\","
                   "\"dt\":\"1900-01-01\",\"tm\":\"23:59:59.999\"}");
    CHECK_INT(i64(ch, C_TS, r), -301246200LL * NS_PER_S + 123000000);
    CHECK_INT(i64(ch, C_LTZ, r), NS_2026_01_31_NOON);
    CHECK_INT(i64(ch, C_DT, r), -25567);
    CHECK_INT(i64(ch, C_TM, r), 86399 * NS_PER_S);
    r = dec_ok(c, ch, "{\"ts\":\"1969-12-31 23:59:59.9999\"}");
    CHECK_INT(i64(ch, C_TS, r), -1000000);
    sl_chunk_reset(ch);
    expect_bad(c, ch, "{\"ts\":\"2026-01-31T12:00:00\"}", "malformed JSON record",
               "field \"ts\": \"2026-01-31T12:00:00\" is not a valid TIMESTAMP(3)");
    expect_bad(c, ch, "{\"ts\":\"2026-01-31\"}", "malformed JSON record",
               "field \"ts\": \"2026-01-31\" is not a valid TIMESTAMP(3)");
    expect_bad(c, ch, "{\"ts\":\"2026-01-31 12:00:00Z\"}", "malformed JSON record",
               "field \"ts\": \"2026-01-31 12:00:00Z\" is not a valid TIMESTAMP(3)");
    expect_bad(c, ch, "{\"ltz\":\"2026-01-31 12:00:00\"}", "malformed JSON record",
               "field \"ltz\": \"2026-01-31 12:00:00\" is not a valid TIMESTAMP_LTZ(3)");
    expect_bad(c, ch, "{\"dt\":\"2026-02-30\"}", "malformed JSON record",
               "field \"dt\": \"2026-02-30\" is not a valid DATE");
    expect_bad(c, ch, "{\"dt\":20260131}", "malformed JSON record",
               "field \"dt\": 20260131 is not a valid DATE");
    expect_bad(c, ch, "{\"tm\":\"24:00:00\"}", "malformed JSON record",
               "field \"tm\": \"24:00:00\" is not a valid TIME(0)");
    sl_codec_free(c);

    c = codec_for(NCOLS, cnames, types, "format", "json", "json.timestamp-format.standard",
                  "ISO-8601", NULL);
    r = dec_ok(c, ch, "{\"ts\":\"2026-01-31T12:00:00.5\",\"ltz\":\"1969-12-31T23:59:59.999Z\"}");
    CHECK_INT(i64(ch, C_TS, r), NS_2026_01_31_NOON + 500000000);
    CHECK_INT(i64(ch, C_LTZ, r), -1000000);
    expect_bad(c, ch, "{\"ts\":\"2026-01-31 12:00:00\"}", "malformed JSON record",
               "field \"ts\": \"2026-01-31 12:00:00\" is not a valid TIMESTAMP(3)");
    sl_chunk_free(ch);
    sl_codec_free(c);
}

static void t_json_malformed(void)
{
    init_types();
    sl_codec *c = codec_for(NCOLS, cnames, types, "format", "json", NULL);
    sl_codec *skip = codec_for(NCOLS, cnames, types, "format", "json", "json.ignore-parse-errors",
                               "true", NULL);
    sl_chunk *ch = chunk(NCOLS, types);
    dec_ok(c, ch, "{\"i\":1,\"s\":\"keep\"}"); /* out is non-empty: it must stay as it is */
    static const char *const bad[] = {
        "{\"i\":}", "{\"i\":1,}", "{\"i\":1", "[1,2]", "\"x\"", "12", "null", "{\"i\":1} x",
        "{\"s\":\"\xff\"}", "{\"s\":\"a\nb\"}", "{'i':1}", "{\"i\":01}", "{\"i\":1e999}",
        "{\"a\\u0000\":1}", "{\"i\":1}{\"i\":2}", "{\"s\":\"\\ud800\"}", "{\"i\":-}",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        expect_bad(c, ch, bad[k], "malformed JSON record", NULL);
        expect_skipped(skip, ch, bad[k]);
    }
    /* every prefix of a good record fails cleanly (a truncated buffer) */
    for (size_t n = 1; n < strlen(json_all); n++) {
        sl_error err = SL_ERROR_INIT;
        int rc = decn(c, json_all, n, ch, &err);
        CHECK_INT(rc, -1);
        CHECK_STR(err.sqlstate, "22P02");
        sl_error_reset(&err);
    }
    expect_bad(c, ch, "{\"i\":}", "malformed JSON record", NULL);
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(dec(c, "{\"i\":1,\"x\":}", ch, &err), -1);
    REQUIRE(err.detail != NULL);
    CHECK(strncmp(err.detail, "invalid JSON at column 12: ", 27) == 0);
    sl_error_reset(&err);
    CHECK_INT(dec(c, "{\"i\":1,\n\"x\":}", ch, &err), -1);
    REQUIRE(err.detail != NULL);
    CHECK(strncmp(err.detail, "invalid JSON at line 2, column 5: ", 34) == 0);
    sl_error_reset(&err);
    expect_bad(c, ch, "[1,2]", "malformed JSON record", "expected a JSON object, found an array");
    expect_bad(c, ch, "12", "malformed JSON record", "expected a JSON object, found a number");
    /* a bad value shows at most 64 bytes, escaped */
    expect_bad(c, ch,
               "{\"i\":\"0123456789012345678901234567890123456789012345678901234567890123456789\"}",
               "malformed JSON record",
               "field \"i\": \"0123456789012345678901234567890123456789012345678901234567890123...\" "
               "is out of range for INT");
    expect_bad(c, ch, "{\"i\":\"\\u0001\\\"\"}", "malformed JSON record",
               "field \"i\": \"\\x01\\\"\" is not a valid INT");
    /* the first row is intact */
    CHECK_INT(ch->nrows, 1);
    CHECK_INT(i64(ch, C_I, 0), 1);
    CHECK(STR_IS(ch, C_S, 0, "keep"));
    /* blank records are not records */
    CHECK_INT(dec(c, "", ch, &err), SL_CODEC_NONE);
    CHECK_INT(dec(c, " \r\n\t", ch, &err), SL_CODEC_NONE);
    CHECK(!sl_error_isset(&err));
    sl_chunk_free(ch);
    sl_codec_free(c);
    sl_codec_free(skip);
}

/* ------------------------------------------------------------------------
** JSON encoding.
*/

/* A chunk row with every column set from the all-types record. */
static void fill_all(sl_chunk *ch, int r)
{
    sl_chunk_set_bool(ch, C_B, r, true);
    sl_chunk_set_i64(ch, C_TI, r, -128);
    sl_chunk_set_i64(ch, C_SI, r, 32767);
    sl_chunk_set_i64(ch, C_I, r, -2147483647LL - 1);
    sl_chunk_set_i64(ch, C_BI, r, INT64_MAX);
    sl_chunk_set_f64(ch, C_F, r, (double)0.1f);
    sl_chunk_set_f64(ch, C_D, r, 0.1);
    sl_chunk_set_i128(ch, C_DEC, r, 1234);
    sl_chunk_set_i128(ch, C_BIG, r, i128_of("-99999999999999999999999999999999999999"));
    sl_chunk_set_str(ch, C_S, r, "h\xc3\xa9\"\\\n\x01/", 8);
    sl_chunk_set_str(ch, C_C, r, "abc", 3);
    sl_chunk_set_str(ch, C_BIN, r, "\x00\x01\x02\xff", 4);
    sl_chunk_set_i64(ch, C_DT, r, DAYS_2026_01_31);
    sl_chunk_set_i64(ch, C_TM, r, 12 * 3600 * NS_PER_S);
    sl_chunk_set_i64(ch, C_TS, r, NS_2026_01_31_NOON + 123000000);
    sl_chunk_set_i64(ch, C_LTZ, r, -1000000);
}

static void t_json_encode(void)
{
    init_types();
    sl_codec *c = codec_for(NCOLS, cnames, types, "format", "json", NULL);
    sl_chunk *ch = chunk(NCOLS, types);
    int r = sl_chunk_append_row(ch, SL_ROW_INSERT);
    fill_all(ch, r);
    char *s = enc(c, ch, r);
    CHECK_STR(s, "{\"b\":true,\"ti\":-128,\"si\":32767,\"i\":-2147483648,\"bi\":9223372036854775807,"
                 "\"f\":0.1,\"d\":0.1,\"dec\":12.34,"
                 "\"big\":-9999999999999999999999999999.9999999999,"
                 "\"s\":\"h\xc3\xa9\\\"\\\\\\n\\u0001/\",\"c\":\"abc\",\"bin\":\"AAEC/w==\","
                 "\"dt\":\"2026-01-31\",\"tm\":\"12:00:00\",\"ts\":\"2026-01-31 12:00:00.123\","
                 "\"ltz\":\"1969-12-31 23:59:59.999Z\"}");
    /* Jansson reads it back to the same values */
    json_error_t je;
    json_t *j = json_loads(s, JSON_DECODE_INT_AS_REAL, &je);
    REQUIRE(j != NULL);
    CHECK(json_is_true(json_object_get(j, "b")));
    CHECK(json_real_value(json_object_get(j, "i")) == -2147483648.0);
    CHECK(json_real_value(json_object_get(j, "d")) == 0.1);
    CHECK(json_string_length(json_object_get(j, "s")) == 8);
    CHECK(memcmp(json_string_value(json_object_get(j, "s")), "h\xc3\xa9\"\\\n\x01/", 8) == 0);
    CHECK_STR(json_string_value(json_object_get(j, "ltz")), "1969-12-31 23:59:59.999Z");
    CHECK_INT(json_object_size(j), NCOLS);
    json_decref(j);
    /* decoding it gives the row back */
    r = dec_ok(c, ch, s);
    CHECK(ch->cols[C_B].v.b[r] == 1 && i64(ch, C_TI, r) == -128 && i64(ch, C_BI, r) == INT64_MAX);
    CHECK(f64(ch, C_F, r) == (double)0.1f && f64(ch, C_D, r) == 0.1);
    CHECK(dec_is(ch, C_BIG, r, "-99999999999999999999999999999999999999"));
    CHECK(STR_IS(ch, C_S, r, "h\xc3\xa9\"\\\n\x01/"));
    CHECK(STR_IS(ch, C_BIN, r, "\x00\x01\x02\xff"));
    CHECK_INT(i64(ch, C_LTZ, r), -1000000);
    free(s);

    /* NULLs: null, or left out */
    r = sl_chunk_append_row(ch, SL_ROW_INSERT);
    sl_chunk_set_i64(ch, C_I, r, 7);
    s = enc(c, ch, r);
    CHECK_STR(s, "{\"b\":null,\"ti\":null,\"si\":null,\"i\":7,\"bi\":null,\"f\":null,\"d\":null,"
                 "\"dec\":null,\"big\":null,\"s\":null,\"c\":null,\"bin\":null,\"dt\":null,"
                 "\"tm\":null,\"ts\":null,\"ltz\":null}");
    free(s);
    sl_codec_free(c);
    c = codec_for(NCOLS, cnames, types, "format", "json", "json.encode.ignore-null-fields", "true",
                  NULL);
    s = enc(c, ch, r);
    CHECK_STR(s, "{\"i\":7}");
    free(s);
    sl_chunk_set_null(ch, C_I, r);
    s = enc(c, ch, r);
    CHECK_STR(s, "{}");
    free(s);
    sl_codec_free(c);
    sl_chunk_free(ch);
}

static void t_json_encode_values(void)
{
    init_types();
    sl_codec *c = codec_for(NCOLS, cnames, types, "format", "json", "json.encode.ignore-null-fields",
                            "true", NULL);
    sl_codec *plain = codec_for(NCOLS, cnames, types, "format", "json",
                                "json.encode.ignore-null-fields", "true",
                                "json.encode.decimal-as-plain-number", "true", NULL);
    sl_codec *iso = codec_for(NCOLS, cnames, types, "format", "json",
                              "json.encode.ignore-null-fields", "true",
                              "json.timestamp-format.standard", "ISO-8601", NULL);
    sl_chunk *ch = chunk(NCOLS, types);
    int r = sl_chunk_append_row(ch, SL_ROW_INSERT);
    /* DECIMAL: BigDecimal.toString() by default (Flink), plain on request */
    sl_chunk_set_i128(ch, C_BIG, r, 1000); /* 0.0000001000 */
    sl_chunk_set_i128(ch, C_DEC, r, -5);   /* -0.05 */
    char *s = enc(c, ch, r), *p = enc(plain, ch, r);
    CHECK_STR(s, "{\"dec\":-0.05,\"big\":1.000E-7}");
    CHECK_STR(p, "{\"dec\":-0.05,\"big\":0.0000001000}");
    free(s), free(p);
    sl_chunk_set_i128(ch, C_BIG, r, 0);
    s = enc(c, ch, r), p = enc(plain, ch, r);
    CHECK_STR(s, "{\"dec\":-0.05,\"big\":0E-10}");
    CHECK_STR(p, "{\"dec\":-0.05,\"big\":0.0000000000}");
    free(s), free(p);
    sl_chunk_set_i128(ch, C_BIG, r, -10000); /* -0.000001: adjusted exponent -6, plain */
    s = enc(c, ch, r);
    CHECK_STR(s, "{\"dec\":-0.05,\"big\":-0.0000010000}");
    free(s);
    /* they read back as the same decimals */
    int r2 = dec_ok(c, ch, "{\"big\":1.000E-7,\"dec\":-5E-2}");
    CHECK(dec_is(ch, C_BIG, r2, "1000"));
    CHECK(dec_is(ch, C_DEC, r2, "-5"));
    r = sl_chunk_append_row(ch, SL_ROW_INSERT);
    /* doubles: shortest exact text; specials as strings */
    sl_chunk_set_f64(ch, C_D, r, 1.0);
    sl_chunk_set_f64(ch, C_F, r, (double)3.14f);
    s = enc(c, ch, r);
    CHECK_STR(s, "{\"f\":3.14,\"d\":1.0}");
    free(s);
    sl_chunk_set_f64(ch, C_D, r, NAN);
    sl_chunk_set_f64(ch, C_F, r, -INFINITY);
    s = enc(c, ch, r);
    CHECK_STR(s, "{\"f\":\"-Infinity\",\"d\":\"NaN\"}");
    free(s);
    sl_chunk_set_f64(ch, C_D, r, 1e300);
    sl_chunk_set_f64(ch, C_F, r, -0.0);
    s = enc(c, ch, r);
    CHECK_STR(s, "{\"f\":-0.0,\"d\":1e+300}");
    free(s);
    /* strings: invalid UTF-8 becomes U+FFFD; output stays valid JSON */
    r = sl_chunk_append_row(ch, SL_ROW_INSERT);
    sl_chunk_set_str(ch, C_S, r, "a\xff" "b\xc3(\xed\xa0\x80\x7f\x1f", 10);
    s = enc(c, ch, r);
    CHECK_STR(s, "{\"s\":\"a\\ufffdb\\ufffd(\\ufffd\\ufffd\\ufffd\x7f\\u001f\"}");
    json_t *j = json_loads(s, 0, NULL);
    CHECK(j != NULL);
    json_decref(j);
    free(s);
    /* ISO-8601 times */
    r = sl_chunk_append_row(ch, SL_ROW_INSERT);
    sl_chunk_set_i64(ch, C_TS, r, -1000000);
    sl_chunk_set_i64(ch, C_LTZ, r, NS_2026_01_31_NOON);
    s = enc(iso, ch, r);
    CHECK_STR(s, "{\"ts\":\"1969-12-31T23:59:59.999\",\"ltz\":\"2026-01-31T12:00:00.000Z\"}");
    r2 = dec_ok(iso, ch, s);
    CHECK_INT(i64(ch, C_TS, r2), -1000000);
    CHECK_INT(i64(ch, C_LTZ, r2), NS_2026_01_31_NOON);
    free(s);
    /* column cnames are escaped too */
    const char *odd[1] = {"we\"ird"};
    sl_type t1[1] = {sl_type_make(SL_TYPE_INT)};
    sl_codec *oc = codec_for(1, odd, t1, "format", "json", NULL);
    sl_chunk *c1 = chunk(1, t1);
    r = dec_ok(oc, c1, "{\"we\\\"ird\":3}");
    s = enc(oc, c1, r);
    CHECK_STR(s, "{\"we\\\"ird\":3}");
    free(s);
    sl_chunk_free(c1);
    sl_codec_free(oc);
    sl_chunk_free(ch);
    sl_codec_free(c);
    sl_codec_free(plain);
    sl_codec_free(iso);
}

/* Decode every record, encode each row, decode that, and compare. */
static void roundtrip(sl_codec *c, const char *const *recs, size_t n)
{
    sl_chunk *a = chunk(NCOLS, types), *b = chunk(NCOLS, types);
    for (size_t k = 0; k < n; k++) {
        int r = dec_ok(c, a, recs[k]);
        char *s = enc(c, a, r);
        int r2 = dec_ok(c, b, s);
        for (int col = 0; col < NCOLS; col++) {
            const sl_vector *va = &a->cols[col], *vb = &b->cols[col];
            bool same = va->nulls[r] == vb->nulls[r2];
            if (same && !va->nulls[r]) {
                switch (va->phys) {
                case SL_PHYS_BOOL: same = va->v.b[r] == vb->v.b[r2]; break;
                case SL_PHYS_I64: same = va->v.i64[r] == vb->v.i64[r2]; break;
                case SL_PHYS_F64:
                    same = va->v.f64[r] == vb->v.f64[r2] ||
                           (isnan(va->v.f64[r]) && isnan(vb->v.f64[r2]));
                    break;
                case SL_PHYS_I128: same = va->v.i128[r] == vb->v.i128[r2]; break;
                case SL_PHYS_STR:
                    same = va->v.str[r].len == vb->v.str[r2].len &&
                           memcmp(va->v.str[r].ptr, vb->v.str[r2].ptr, va->v.str[r].len) == 0;
                    break;
                }
            }
            if (!same)
                fprintf(stderr, "roundtrip: column %s differs\n  record: %s\n  encoded: %s\n",
                        cnames[col], recs[k], s);
            CHECK(same);
        }
        free(s);
    }
    sl_chunk_free(a);
    sl_chunk_free(b);
}

static void t_json_roundtrip(void)
{
    init_types();
    static const char *const recs[] = {
        json_all,
        "{}",
        "{\"f\":1.17549435e-38,\"d\":4.9e-324,\"big\":-0.0000000001,\"dec\":0}",
        "{\"f\":\"Infinity\",\"d\":\"NaN\",\"ts\":\"1677-09-21 00:12:43.146\","
        "\"ltz\":\"2262-04-11 23:47:16.854Z\"}",
        "{\"s\":\"\\u0000\\u001f\\u2028 \\\"x\\\"\",\"c\":\"\",\"bin\":\"/+/+\"}",
        "{\"d\":123456789012345680000,\"f\":16777217,\"big\":1e-10}",
    };
    sl_codec *c = codec_for(NCOLS, cnames, types, "format", "json", NULL);
    roundtrip(c, recs, sizeof recs / sizeof recs[0]);
    sl_codec_free(c);
    c = codec_for(NCOLS, cnames, types, "format", "json", "json.timestamp-format.standard",
                  "ISO-8601", "json.encode.decimal-as-plain-number", "true", NULL);
    static const char *const iso[] = {
        "{\"ts\":\"2026-01-31T12:00:00.123\",\"ltz\":\"1969-12-31T23:59:59.999Z\",\"big\":1e-10}",
    };
    roundtrip(c, iso, 1);
    sl_codec_free(c);
}

/* ------------------------------------------------------------------------
** CSV.
*/
static const char csv_all[] =
    "true,-128,32767,-2147483648,9223372036854775807,0.1,0.1,12.34,0.1,h\xc3\xa9llo,abc,AAEC/w==,"
    "2026-01-31,12:00:00,2026-01-31 12:00:00.123,1969-12-31 23:59:59.999Z";

static void t_csv_all_types(void)
{
    init_types();
    sl_codec *c = codec_for(NCOLS, cnames, types, "format", "csv", NULL);
    sl_chunk *ch = chunk(NCOLS, types);
    int r = dec_ok(c, ch, csv_all);
    CHECK(ch->cols[C_B].v.b[r] == 1);
    CHECK_INT(i64(ch, C_TI, r), -128);
    CHECK_INT(i64(ch, C_SI, r), 32767);
    CHECK_INT(i64(ch, C_I, r), -2147483647LL - 1);
    CHECK(i64(ch, C_BI, r) == INT64_MAX);
    CHECK(f64(ch, C_F, r) == (double)0.1f);
    CHECK(f64(ch, C_D, r) == 0.1);
    CHECK(dec_is(ch, C_DEC, r, "1234"));
    CHECK(dec_is(ch, C_BIG, r, "1000000000"));
    CHECK(STR_IS(ch, C_S, r, "h\xc3\xa9llo"));
    CHECK(STR_IS(ch, C_C, r, "abc"));
    CHECK(STR_IS(ch, C_BIN, r, "\x00\x01\x02\xff"));
    CHECK_INT(i64(ch, C_DT, r), DAYS_2026_01_31);
    CHECK_INT(i64(ch, C_TM, r), 12 * 3600 * NS_PER_S);
    CHECK_INT(i64(ch, C_TS, r), NS_2026_01_31_NOON + 123000000);
    CHECK_INT(i64(ch, C_LTZ, r), -1000000);
    /* empty fields: NULL (the default null literal is the empty field), a
    ** quoted empty field is the empty string / empty bytes; blanks around
    ** non-strings are ignored, kept around strings */
    r = dec_ok(c, ch, " FALSE ,  127,,,,,,,9999999999999999999999999999.9999999999, x ,\"\",\"\",,,,");
    CHECK(ch->cols[C_B].v.b[r] == 0);
    CHECK_INT(i64(ch, C_TI, r), 127);
    for (int col = C_SI; col <= C_DEC; col++)
        CHECK(isnull(ch, col, r));
    CHECK(dec_is(ch, C_BIG, r, "99999999999999999999999999999999999999"));
    CHECK(STR_IS(ch, C_S, r, " x "));
    CHECK(STR_IS(ch, C_C, r, ""));
    CHECK(STR_IS(ch, C_BIN, r, ""));
    for (int col = C_DT; col < NCOLS; col++)
        CHECK(isnull(ch, col, r));
    sl_chunk_free(ch);
    sl_codec_free(c);
}

/* A two-column table: s STRING, i INT. */
static const char *const n_si[2] = {"s", "i"};
static sl_type t_si[2];
static void init_si(void)
{
    t_si[0] = sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    t_si[1] = sl_type_make(SL_TYPE_INT);
}

static void t_csv_quoting(void)
{
    init_si();
    sl_codec *c = codec_for(2, n_si, t_si, "format", "csv", NULL);
    sl_chunk *ch = chunk(2, t_si);
    int r = dec_ok(c, ch, "\"a,b\"\"c\",\"12\"");
    CHECK(STR_IS(ch, 0, r, "a,b\"c"));
    CHECK_INT(i64(ch, 1, r), 12);
    r = dec_ok(c, ch, "\"\",\"\"");
    CHECK(STR_IS(ch, 0, r, ""));
    CHECK(isnull(ch, 1, r));
    r = dec_ok(c, ch, "ab\"c,3"); /* a quote inside an unquoted field is a character */
    CHECK(STR_IS(ch, 0, r, "ab\"c"));
    r = dec_ok(c, ch, "\"line\nbreak\r\",4"); /* given one record, a quoted line break is kept */
    CHECK(STR_IS(ch, 0, r, "line\nbreak\r"));
    r = dec_ok(c, ch, "'x',5");
    CHECK(STR_IS(ch, 0, r, "'x'"));
    sl_codec_free(c);

    c = codec_for(2, n_si, t_si, "format", "csv", "csv.quote-character", "'", NULL);
    r = dec_ok(c, ch, "'a;''b',6");
    CHECK(STR_IS(ch, 0, r, "a;'b"));
    r = dec_ok(c, ch, "\"q\",7");
    CHECK(STR_IS(ch, 0, r, "\"q\""));
    sl_codec_free(c);

    c = codec_for(2, n_si, t_si, "format", "csv", "csv.disable-quote-character", "true", NULL);
    r = dec_ok(c, ch, "\"a\",8");
    CHECK(STR_IS(ch, 0, r, "\"a\""));
    sl_codec_free(c);

    c = codec_for(2, n_si, t_si, "format", "csv", "csv.escape-character", "\\", NULL);
    r = dec_ok(c, ch, "a\\,b\\\\,9");
    CHECK(STR_IS(ch, 0, r, "a,b\\"));
    CHECK_INT(i64(ch, 1, r), 9);
    r = dec_ok(c, ch, "\"a\\\"b\",1\\0");
    CHECK(STR_IS(ch, 0, r, "a\"b"));
    CHECK_INT(i64(ch, 1, r), 10);
    expect_bad(c, ch, "a,1\\", "malformed CSV record",
               "field \"i\": escape character at the end of the line at byte 4");
    sl_codec_free(c);

    c = codec_for(2, n_si, t_si, "format", "csv", "csv.field-delimiter", "\\t", NULL);
    r = dec_ok(c, ch, "a,b\t11");
    CHECK(STR_IS(ch, 0, r, "a,b"));
    CHECK_INT(i64(ch, 1, r), 11);
    sl_codec_free(c);
    c = codec_for(2, n_si, t_si, "format", "csv", "csv.field-delimiter", "|", NULL);
    r = dec_ok(c, ch, "a,b|12");
    CHECK(STR_IS(ch, 0, r, "a,b"));
    sl_codec_free(c);
    sl_chunk_free(ch);
}

static void t_csv_nulls_and_comments(void)
{
    init_si();
    sl_codec *c = codec_for(2, n_si, t_si, "format", "csv", "csv.null-literal", "NULL", NULL);
    sl_chunk *ch = chunk(2, t_si);
    int r = dec_ok(c, ch, "NULL,NULL");
    CHECK(isnull(ch, 0, r) && isnull(ch, 1, r));
    r = dec_ok(c, ch, "\"NULL\",");
    CHECK(STR_IS(ch, 0, r, "NULL")); /* quoted: a string */
    CHECK(isnull(ch, 1, r));
    r = dec_ok(c, ch, "null,1");
    CHECK(STR_IS(ch, 0, r, "null"));
    expect_bad(c, ch, "x,\"NULL\"", "malformed CSV record",
               "field \"i\": \"NULL\" is not a valid INT");
    sl_codec_free(c);

    sl_error err = SL_ERROR_INIT;
    c = codec_for(2, n_si, t_si, "format", "csv", "csv.allow-comments", "true", NULL);
    CHECK_INT(dec(c, "# a comment, 1", ch, &err), SL_CODEC_NONE);
    CHECK_INT(dec(c, "", ch, &err), SL_CODEC_NONE);
    r = dec_ok(c, ch, " #x,1");
    CHECK(STR_IS(ch, 0, r, " #x"));
    sl_codec_free(c);
    c = codec_for(2, n_si, t_si, "format", "csv", NULL);
    r = dec_ok(c, ch, "# not a comment,1");
    CHECK(STR_IS(ch, 0, r, "# not a comment"));
    CHECK_INT(dec(c, "", ch, &err), SL_CODEC_NONE);
    CHECK(!sl_error_isset(&err));
    sl_codec_free(c);

    /* a NOT NULL column */
    sl_type nn[2] = {t_si[0], t_si[1]};
    nn[1].not_null = true;
    c = codec_for(2, n_si, nn, "format", "csv", NULL);
    expect_bad(c, ch, "a,", "malformed CSV record",
               "field \"i\" is null, but the column is NOT NULL");
    sl_codec_free(c);
    sl_chunk_free(ch);
}

static void t_csv_malformed(void)
{
    init_types();
    init_si();
    sl_codec *c = codec_for(2, n_si, t_si, "format", "csv", NULL);
    sl_codec *skip = codec_for(2, n_si, t_si, "format", "csv", "csv.ignore-parse-errors", "true",
                               NULL);
    sl_chunk *ch = chunk(2, t_si);
    dec_ok(c, ch, "keep,1");
    expect_bad(c, ch, "a", "malformed CSV record", "expected 2 fields, found 1");
    expect_bad(c, ch, "a,1,", "malformed CSV record", "expected 2 fields, found 3");
    expect_bad(c, ch, "a,1,x,y", "malformed CSV record", "expected 2 fields, found 4");
    expect_bad(c, ch, "\"ab,1", "malformed CSV record",
               "field \"s\": unterminated quoted field starting at byte 1");
    expect_bad(c, ch, "\"ab\"x,1", "malformed CSV record",
               "field \"s\": unexpected character after the closing quote at byte 5");
    expect_bad(c, ch, "a,\"1", "malformed CSV record",
               "field \"i\": unterminated quoted field starting at byte 3");
    expect_bad(c, ch, "a,1,\"x", "malformed CSV record",
               "field 3: unterminated quoted field starting at byte 5");
    expect_bad(c, ch, "a,1.5", "malformed CSV record", "field \"i\": \"1.5\" is not a valid INT");
    expect_bad(c, ch, "a,99999999999", "malformed CSV record",
               "field \"i\": \"99999999999\" is out of range for INT");
    expect_bad(c, ch, "a\xc3(,1", "malformed CSV record", "field \"s\": invalid UTF-8 at byte 2");
    static const char *const bad[] = {"a", "a,1,", "\"ab,1", "\"ab\"x,1", "a,x", "\xff,1", "\"a\"b,1"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        expect_skipped(skip, ch, bad[k]);
    CHECK_INT(ch->nrows, 1);
    CHECK(STR_IS(ch, 0, 0, "keep"));
    sl_codec_free(c);
    sl_codec_free(skip);
    sl_chunk_free(ch);

    /* per-type messages on the all-types table */
    c = codec_for(NCOLS, cnames, types, "format", "csv", NULL);
    ch = chunk(NCOLS, types);
    expect_bad(c, ch, "true,1,1,1,1,1,1,\"12,5\",1,s,c,,,,,", "malformed CSV record",
               "field \"dec\": \"12,5\" is not a valid DECIMAL(10, 2)");
    expect_bad(c, ch, "yes,1,1,1,1,1,1,1,1,s,c,,,,,", "malformed CSV record",
               "field \"b\": \"yes\" is not a valid BOOLEAN");
    expect_bad(c, ch, "true,1,1,1,1,1,1,1,1,s,c,!!,,,,", "malformed CSV record",
               "field \"bin\": \"!!\" is not a valid BYTES");
    expect_bad(c, ch, "true,1,1,1,1,1,1,1,1,s,c,,,,2026-01-31T12:00:00,", "malformed CSV record",
               "field \"ts\": \"2026-01-31T12:00:00\" is not a valid TIMESTAMP(3)");
    /* every prefix of a good line fails cleanly or decodes */
    for (size_t n = 0; n < strlen(csv_all); n++) {
        sl_error err = SL_ERROR_INIT;
        int rc = decn(c, csv_all, n, ch, &err);
        CHECK(rc == -1 || rc == SL_CODEC_NONE || rc == SL_CODEC_ROW);
        if (rc == SL_CODEC_ROW)
            sl_chunk_reset(ch);
        sl_error_reset(&err);
    }
    sl_codec_free(c);
    sl_chunk_free(ch);
}

static void t_csv_encode(void)
{
    init_types();
    init_si();
    sl_codec *c = codec_for(NCOLS, cnames, types, "format", "csv", NULL);
    sl_chunk *ch = chunk(NCOLS, types);
    int r = sl_chunk_append_row(ch, SL_ROW_INSERT);
    fill_all(ch, r);
    char *s = enc(c, ch, r);
    CHECK_STR(s, "true,-128,32767,-2147483648,9223372036854775807,0.1,0.1,12.34,"
                 "-9999999999999999999999999999.9999999999,\"h\xc3\xa9\"\"\\\n\x01/\",abc,AAEC/w==,"
                 "2026-01-31,12:00:00,2026-01-31 12:00:00.123,1969-12-31 23:59:59.999Z");
    r = dec_ok(c, ch, s);
    CHECK(STR_IS(ch, C_S, r, "h\xc3\xa9\"\\\n\x01/"));
    CHECK(dec_is(ch, C_BIG, r, "-99999999999999999999999999999999999999"));
    free(s);
    r = sl_chunk_append_row(ch, SL_ROW_INSERT);
    s = enc(c, ch, r);
    CHECK_STR(s, ",,,,,,,,,,,,,,,");
    free(s);
    sl_chunk_set_i128(ch, C_BIG, r, 1000); /* CSV decimals are plain */
    sl_chunk_set_f64(ch, C_D, r, NAN);
    s = enc(c, ch, r);
    CHECK_STR(s, ",,,,,,NaN,,0.0000001000,,,,,,,");
    free(s);
    sl_codec_free(c);
    sl_chunk_free(ch);

    ch = chunk(2, t_si);
    r = sl_chunk_append_row(ch, SL_ROW_INSERT);
    c = codec_for(2, n_si, t_si, "format", "csv", NULL);
    s = enc(c, ch, r);
    CHECK_STR(s, ",");
    free(s);
    sl_chunk_set_str(ch, 0, r, "#x", 2);
    sl_chunk_set_i64(ch, 1, r, -1);
    s = enc(c, ch, r);
    CHECK_STR(s, "#x,-1");
    free(s);
    sl_chunk_set_str(ch, 0, r, "a\rb", 3);
    s = enc(c, ch, r);
    CHECK_STR(s, "\"a\rb\",-1");
    free(s);
    sl_codec_free(c);

    c = codec_for(2, n_si, t_si, "format", "csv", "csv.allow-comments", "true", "csv.null-literal",
                  "N", "csv.field-delimiter", ";", NULL);
    sl_chunk_set_str(ch, 0, r, "#x", 2);
    s = enc(c, ch, r);
    CHECK_STR(s, "\"#x\";-1");
    free(s);
    sl_chunk_set_str(ch, 0, r, "N", 1);
    sl_chunk_set_null(ch, 1, r);
    s = enc(c, ch, r);
    CHECK_STR(s, "\"N\";N");
    int r2 = dec_ok(c, ch, s);
    CHECK(STR_IS(ch, 0, r2, "N"));
    CHECK(isnull(ch, 1, r2));
    free(s);
    sl_codec_free(c);

    c = codec_for(2, n_si, t_si, "format", "csv", "csv.disable-quote-character", "true",
                  "csv.escape-character", "\\", "csv.null-literal", "N", NULL);
    sl_chunk_set_str(ch, 0, r, "a,b\\c\nN", 7);
    sl_chunk_set_i64(ch, 1, r, 5);
    s = enc(c, ch, r);
    CHECK_STR(s, "a\\,b\\\\c\\\nN,5");
    r2 = dec_ok(c, ch, s);
    CHECK(STR_IS(ch, 0, r2, "a,b\\c\nN"));
    free(s);
    sl_chunk_set_str(ch, 0, r, "N", 1);
    s = enc(c, ch, r);
    CHECK_STR(s, "\\N,5");
    r2 = dec_ok(c, ch, s);
    CHECK(STR_IS(ch, 0, r2, "N"));
    free(s);
    sl_codec_free(c);

    c = codec_for(2, n_si, t_si, "format", "csv", "csv.disable-quote-character", "true", NULL);
    sl_chunk_set_str(ch, 0, r, "a,b", 3);
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_strbuf_append(&sb, "before|");
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(sl_codec_encode(c, ch, r, &sb, &err), -1);
    CHECK_STR(err.sqlstate, "22023");
    CHECK_STR(err.message, "cannot write CSV record");
    CHECK_STR(sl_strbuf_cstr(&sb), "before|"); /* nothing of the failed record */
    sl_error_reset(&err);
    sl_strbuf_free(&sb);
    sl_codec_free(c);
    sl_chunk_free(ch);

    /* one column: an empty value must not become an empty line */
    sl_type t1[1] = {t_si[0]};
    c = codec_for(1, n_si, t1, "format", "csv", NULL);
    ch = chunk(1, t1);
    r = sl_chunk_append_row(ch, SL_ROW_INSERT);
    sl_chunk_set_str(ch, 0, r, "", 0);
    s = enc(c, ch, r);
    CHECK_STR(s, "\"\"");
    r2 = dec_ok(c, ch, s);
    CHECK(STR_IS(ch, 0, r2, ""));
    free(s);
    sl_codec_free(c);
    sl_chunk_free(ch);
}

static void t_csv_roundtrip(void)
{
    init_types();
    static const char *const recs[] = {
        csv_all,
        ",,,,,,,,,,,,,,,",
        "false,0,0,0,0,1.17549435e-38,4.9e-324,-0.01,-0.0000000001,\"a,\"\"b\"\"\",x y,/+/+,"
        "1677-09-22,23:59:59,1677-09-21 00:12:43.146,2262-04-11 23:47:16.854Z",
        "true,1,1,1,1,Infinity,NaN,0,0,\"\r\n\",\"#\",,,,,",
    };
    sl_codec *c = codec_for(NCOLS, cnames, types, "format", "csv", NULL);
    roundtrip(c, recs, sizeof recs / sizeof recs[0]);
    sl_codec_free(c);
    static const char *const esc[] = {
        "true;1;1;1;1;1;1;1;1;a\\;b\\\\;\\N;;;;;",
        "\\N;\\N;\\N;\\N;\\N;\\N;\\N;\\N;\\N;x;y;\\N;\\N;\\N;\\N;\\N",
    };
    c = codec_for(NCOLS, cnames, types, "format", "csv", "csv.field-delimiter", ";",
                  "csv.disable-quote-character", "true", "csv.escape-character", "\\",
                  "csv.null-literal", "\\N", NULL);
    roundtrip(c, esc, sizeof esc / sizeof esc[0]);
    sl_codec_free(c);
}

/* ------------------------------------------------------------------------
** raw.
*/
static void t_raw(void)
{
    const char *n1[1] = {"v"};
    struct {
        sl_type_id id;
        const char *bytes;
        size_t n;
        int64_t be, le;
    } ints[] = {
        {SL_TYPE_TINYINT, "\xff", 1, -1, -1},
        {SL_TYPE_SMALLINT, "\x80\x01", 2, -32767, 0x0180},
        {SL_TYPE_INT, "\x00\x00\x01\x02", 4, 258, 0x02010000},
        {SL_TYPE_BIGINT, "\x80\x00\x00\x00\x00\x00\x00\x00", 8, INT64_MIN, 128},
    };
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
        sl_type t[1] = {sl_type_make(ints[k].id)};
        sl_codec *be = codec_for(1, n1, t, "format", "raw", NULL);
        sl_codec *le = codec_for(1, n1, t, "format", "raw", "raw.endianness", "little-endian", NULL);
        sl_chunk *ch = chunk(1, t);
        int r = sl_chunk_append_row(ch, SL_ROW_INSERT);
        sl_error err = SL_ERROR_INIT;
        CHECK_INT(decn(be, ints[k].bytes, ints[k].n, ch, &err), SL_CODEC_ROW);
        CHECK(i64(ch, 0, r + 1) == ints[k].be);
        CHECK_INT(decn(le, ints[k].bytes, ints[k].n, ch, &err), SL_CODEC_ROW);
        CHECK(i64(ch, 0, r + 2) == ints[k].le);
        for (int e = 0; e < 2; e++) {
            sl_strbuf sb = SL_STRBUF_INIT;
            CHECK_INT(sl_codec_encode(e ? le : be, ch, r + 1 + e, &sb, &err), 0);
            CHECK(sb.len == ints[k].n && memcmp(sb.buf, ints[k].bytes, sb.len) == 0);
            sl_strbuf_free(&sb);
        }
        /* wrong size */
        char *tn = sl_type_to_string(t[0]);
        char want[100];
        snprintf(want, sizeof want, "field \"v\": expected %zu byte%s for %s, found %zu",
                 ints[k].n, ints[k].n == 1 ? "" : "s", tn, ints[k].n + 1);
        sl_free(tn);
        char *longer = malloc(ints[k].n + 1);
        memset(longer, 0, ints[k].n + 1);
        CHECK_INT(decn(be, longer, ints[k].n + 1, ch, &err), -1);
        CHECK_STR(err.message, "malformed raw record");
        CHECK_STR(err.detail, want);
        sl_error_reset(&err);
        free(longer);
        /* an empty record reads as NULL; NULL is a null record, and an
        ** empty line with line framing */
        CHECK_INT(decn(be, "", 0, ch, &err), SL_CODEC_ROW);
        CHECK(isnull(ch, 0, ch->nrows - 1));
        CHECK_INT(sl_codec_decode(be, NULL, 0, ch, &err), SL_CODEC_ROW);
        CHECK(isnull(ch, 0, ch->nrows - 1));
        sl_strbuf sb = SL_STRBUF_INIT;
        CHECK_INT(sl_codec_encode(be, ch, r, &sb, &err), SL_CODEC_NULL_RECORD);
        CHECK(sb.len == 0);
        sl_codec_set_line_framing(be);
        CHECK_INT(sl_codec_encode(be, ch, r, &sb, &err), 0);
        CHECK(sb.len == 0);
        sl_strbuf_free(&sb);
        sl_chunk_free(ch);
        sl_codec_free(be);
        sl_codec_free(le);
    }
    /* floats, booleans */
    sl_type tf[1] = {sl_type_make(SL_TYPE_FLOAT)}, td[1] = {sl_type_make(SL_TYPE_DOUBLE)},
            tb[1] = {sl_type_make(SL_TYPE_BOOLEAN)};
    sl_codec *c = codec_for(1, n1, tf, "format", "raw", NULL);
    sl_chunk *ch = chunk(1, tf);
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(decn(c, "\x3f\xc0\x00\x00", 4, ch, &err), SL_CODEC_ROW); /* 1.5f */
    CHECK(f64(ch, 0, 0) == 1.5);
    sl_codec_free(c);
    sl_chunk_free(ch);
    c = codec_for(1, n1, td, "format", "raw", "raw.endianness", "little-endian", NULL);
    ch = chunk(1, td);
    CHECK_INT(decn(c, "\x00\x00\x00\x00\x00\x00\xf8\xbf", 8, ch, &err), SL_CODEC_ROW); /* -1.5 */
    CHECK(f64(ch, 0, 0) == -1.5);
    char *s = enc(c, ch, 0);
    CHECK(memcmp(s, "\x00\x00\x00\x00\x00\x00\xf8\xbf", 8) == 0);
    free(s);
    sl_codec_free(c);
    sl_chunk_free(ch);
    c = codec_for(1, n1, tb, "format", "raw", NULL);
    ch = chunk(1, tb);
    CHECK_INT(decn(c, "\x02", 1, ch, &err), SL_CODEC_ROW);
    CHECK(ch->cols[0].v.b[0] == 1);
    CHECK_INT(decn(c, "\x00", 1, ch, &err), SL_CODEC_ROW);
    CHECK(ch->cols[0].v.b[1] == 0);
    sl_codec_free(c);
    sl_chunk_free(ch);

    /* strings and bytes: as they are, empty is empty, a null record is
    ** NULL; bytes are not validated, strings must be UTF-8 */
    sl_type ts[1] = {sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0)},
            tby[1] = {sl_type_make_p(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0)};
    for (int k = 0; k < 2; k++) {
        const char *v = k ? "a\0\xff,\n" : "a\0\xc3\xa9\n";
        size_t vn = k ? 5 : 6;
        c = codec_for(1, n1, k ? tby : ts, "format", "raw", "raw.charset", "utf-8", NULL);
        ch = chunk(1, k ? tby : ts);
        CHECK_INT(decn(c, v, vn, ch, &err), SL_CODEC_ROW);
        CHECK(str_is(ch, 0, 0, v, vn));
        CHECK_INT(decn(c, "", 0, ch, &err), SL_CODEC_ROW);
        CHECK(str_is(ch, 0, 1, "", 0));
        CHECK_INT(sl_codec_decode(c, NULL, 0, ch, &err), SL_CODEC_ROW);
        CHECK(isnull(ch, 0, 2));
        sl_strbuf sb = SL_STRBUF_INIT;
        CHECK_INT(sl_codec_encode(c, ch, 0, &sb, &err), 0);
        CHECK(sb.len == vn && memcmp(sb.buf, v, sb.len) == 0);
        CHECK_INT(sl_codec_encode(c, ch, 2, &sb, &err), SL_CODEC_NULL_RECORD);
        CHECK(sb.len == vn);
        CHECK(!sl_error_isset(&err));
        /* line framing: a line break, a trailing CR and NULL cannot be written */
        sl_codec_set_line_framing(c);
        CHECK_INT(sl_codec_encode(c, ch, 0, &sb, &err), -1);
        CHECK_STR(err.sqlstate, "22023");
        CHECK_STR(err.message, "cannot write raw record");
        CHECK_STR(err.detail, "field \"v\": the value holds a line break (byte 5), which would "
                              "split the record");
        sl_error_reset(&err);
        CHECK_INT(sl_codec_encode(c, ch, 2, &sb, &err), -1);
        CHECK_STR(err.detail, "field \"v\": the value is NULL, which a line cannot represent (an "
                              "empty line reads back as the empty value)");
        sl_error_reset(&err);
        CHECK_INT(sl_codec_encode(c, ch, 1, &sb, &err), 0); /* the empty value is fine */
        CHECK(sb.len == vn);
        sl_strbuf_free(&sb);
        sl_codec_free(c);
        sl_chunk_free(ch);
    }
    CHECK(!sl_error_isset(&err));
    /* invalid UTF-8 in a string is a malformed record */
    c = codec_for(1, n1, ts, "format", "raw", NULL);
    ch = chunk(1, ts);
    CHECK_INT(decn(c, "ab\xff", 3, ch, &err), -1);
    CHECK_STR(err.sqlstate, "22P02");
    CHECK_STR(err.message, "malformed raw record");
    CHECK_STR(err.detail, "field \"v\": invalid UTF-8 at byte 3");
    CHECK_INT(ch->nrows, 0);
    sl_error_reset(&err);
    sl_codec_free(c);
    sl_chunk_free(ch);
    /* line framing: a number whose bytes hold a line break */
    sl_type tbi[1] = {sl_type_make(SL_TYPE_BIGINT)};
    c = codec_for(1, n1, tbi, "format", "raw", NULL);
    sl_codec_set_line_framing(c);
    ch = chunk(1, tbi);
    CHECK_INT(decn(c, "\0\0\0\0\0\0\0\x0a", 8, ch, &err), SL_CODEC_ROW);
    CHECK_INT(decn(c, "\0\0\0\0\0\0\0\x0d", 8, ch, &err), SL_CODEC_ROW);
    sl_strbuf sb = SL_STRBUF_INIT;
    CHECK_INT(sl_codec_encode(c, ch, 0, &sb, &err), -1);
    CHECK_STR(err.detail, "field \"v\": the value holds a line break (byte 8), which would "
                          "split the record");
    sl_error_reset(&err);
    CHECK_INT(sl_codec_encode(c, ch, 1, &sb, &err), -1);
    CHECK_STR(err.detail,
              "field \"v\": the value ends in a carriage return, which the reader drops");
    sl_error_reset(&err);
    CHECK(sb.len == 0);
    sl_strbuf_free(&sb);
    sl_codec_free(c);
    sl_chunk_free(ch);
}

/* Mapped columns: a codec of two columns reading and writing columns 2
** and 0 of a three-column chunk (a Kafka key or value), and a second codec
** filling the same row (the key after the value). */
static void t_mapped_columns(void)
{
    sl_type ts[3] = {sl_type_make(SL_TYPE_BIGINT), sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0),
                     sl_type_make(SL_TYPE_INT)};
    const char *vnames[2] = {"c", "a"};
    sl_type vts[2] = {ts[2], ts[0]};
    sl_codec *value = codec_for(2, vnames, vts, "format", "json", NULL);
    static const int vmap[2] = {2, 0};
    sl_codec_map_columns(value, 3, vmap);
    const char *knames[1] = {"b"};
    sl_codec *key = codec_for(1, knames, &ts[1], "format", "csv", NULL);
    static const int kmap[1] = {1};
    sl_codec_map_columns(key, 3, kmap);
    sl_chunk *ch = chunk(3, ts);
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(dec(value, "{\"a\":7,\"c\":9,\"b\":\"ignored\"}", ch, &err), SL_CODEC_ROW);
    CHECK_INT(ch->nrows, 1);
    CHECK_INT(i64(ch, 0, 0), 7);
    CHECK_INT(i64(ch, 2, 0), 9);
    CHECK(isnull(ch, 1, 0)); /* not the value's */
    CHECK_INT(sl_codec_decode_fill(key, "k1", 2, ch, 0, &err), SL_CODEC_ROW);
    CHECK_INT(ch->nrows, 1); /* filled, not appended */
    CHECK(str_is(ch, 1, 0, "k1", 2));
    CHECK_INT(i64(ch, 0, 0), 7);
    char *v = enc(value, ch, 0), *k = enc(key, ch, 0);
    CHECK_STR(v, "{\"c\":9,\"a\":7}");
    CHECK_STR(k, "k1");
    sl_free(v);
    sl_free(k);
    /* a malformed key: an error, the caller drops the row */
    CHECK_INT(sl_codec_decode_fill(key, "\"k", 2, ch, 0, &err), -1);
    CHECK_STR(err.sqlstate, "22P02");
    sl_error_reset(&err);
    sl_chunk_free(ch);
    sl_codec_free(value);
    sl_codec_free(key);
}

/* ROW columns stored as leaves named by dotted paths: nested objects in
** json, read (null / absent / empty objects, unknown and escaped members,
** any member order) and written nested, decode(encode(row)) == row. */
static void t_json_nested(void)
{
    const char *ns[6] = {"id", "r.a", "r.s.x", "r.s.y", "r.b", "z"};
    sl_type ts[6] = {sl_type_make(SL_TYPE_INT), sl_type_make(SL_TYPE_BIGINT),
                     sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0),
                     sl_type_make(SL_TYPE_DOUBLE), sl_type_make(SL_TYPE_BOOLEAN),
                     sl_type_make(SL_TYPE_INT)};
    sl_codec *c = codec_for(6, ns, ts, "format", "json", NULL);
    sl_chunk *ch = chunk(6, ts);
    int r0 = dec_ok(c, ch, "{\"id\":1,\"r\":{\"a\":10,\"s\":{\"x\":\"one\",\"y\":1.5},\"b\":true},\"z\":3}");
    CHECK_INT(i64(ch, 1, r0), 10);
    CHECK(str_is(ch, 2, r0, "one", 3));
    CHECK(f64(ch, 3, r0) == 1.5);
    CHECK(ch->cols[4].v.b[r0] == 1);
    CHECK_INT(i64(ch, 5, r0), 3);
    int r1 = dec_ok(c, ch, "{\"z\":4,\"r\":{\"s\":{\"y\":2,\"q\":[1,{\"a\":9}],\"x\":\"t\\\"w\"},"
                           "\"\\u0061\":20},\"id\":2,\"x\":{\"r\":1}}");
    CHECK_INT(i64(ch, 0, r1), 2);
    CHECK_INT(i64(ch, 1, r1), 20);
    CHECK(str_is(ch, 2, r1, "t\"w", 3));
    CHECK(f64(ch, 3, r1) == 2.0);
    CHECK(isnull(ch, 4, r1));
    int r2 = dec_ok(c, ch, "{\"id\":3,\"r\":null}");
    int r3 = dec_ok(c, ch, "{\"id\":4}");
    int r4 = dec_ok(c, ch, "{\"id\":5,\"r\":{\"s\":null,\"a\":5}}");
    int r5 = dec_ok(c, ch, "{\"id\":6,\"r\":{}}");
    for (int k = 1; k <= 4; k++) {
        CHECK(isnull(ch, k, r2));
        CHECK(isnull(ch, k, r3));
        CHECK(isnull(ch, k, r5));
    }
    CHECK_INT(i64(ch, 1, r4), 5);
    CHECK(isnull(ch, 2, r4) && isnull(ch, 3, r4));
    expect_bad(c, ch, "{\"id\":7,\"r\":5}", "malformed JSON record",
               "invalid JSON at column 13: a JSON object was expected (a ROW)");
    expect_bad(c, ch, "{\"id\":7,\"r\":{\"s\":[1]}}", "malformed JSON record",
               "invalid JSON at column 18: a JSON object was expected (a ROW)");
    expect_bad(c, ch, "{\"id\":7,\"r\":{\"a\":\"x\"}}", "malformed JSON record", NULL);
    char *e0 = enc(c, ch, r0), *e2 = enc(c, ch, r2), *e4 = enc(c, ch, r4);
    CHECK_STR(e0, "{\"id\":1,\"r\":{\"a\":10,\"s\":{\"x\":\"one\",\"y\":1.5},\"b\":true},\"z\":3}");
    CHECK_STR(e2, "{\"id\":3,\"r\":{\"a\":null,\"s\":{\"x\":null,\"y\":null},\"b\":null},"
                  "\"z\":null}");
    CHECK_STR(e4, "{\"id\":5,\"r\":{\"a\":5,\"s\":{\"x\":null,\"y\":null},\"b\":null},\"z\":null}");
    sl_free(e0);
    sl_free(e2);
    sl_free(e4);
    /* round trip: every row reads back equal */
    sl_chunk *back = chunk(6, ts);
    for (int r = 0; r < ch->nrows; r++) {
        char *e = enc(c, ch, r);
        int b = dec_ok(c, back, e);
        sl_free(e);
        for (int k = 0; k < 6; k++) {
            CHECK(isnull(ch, k, r) == isnull(back, k, b));
            if (isnull(ch, k, r))
                continue;
            if (k == 2)
                CHECK(str_is(back, 2, b, ch->cols[2].v.str[r].ptr, ch->cols[2].v.str[r].len));
            else if (k == 3)
                CHECK(f64(back, 3, b) == f64(ch, 3, r));
            else if (k == 4)
                CHECK(back->cols[4].v.b[b] == ch->cols[4].v.b[r]);
            else
                CHECK(i64(back, k, b) == i64(ch, k, r));
        }
    }
    /* ignore-null-fields leaves out the nulls, objects stay */
    sl_codec *ign = codec_for(6, ns, ts, "format", "json", "json.encode.ignore-null-fields", "true",
                              NULL);
    char *e = enc(ign, ch, r4);
    CHECK_STR(e, "{\"id\":5,\"r\":{\"a\":5}}");
    sl_free(e);
    sl_codec_free(ign);
    /* fail-on-missing-field: a null ROW has its fields (null), an absent one not */
    sl_codec *strict = codec_for(6, ns, ts, "format", "json", "json.fail-on-missing-field", "true",
                                 NULL);
    dec_ok(strict, ch, "{\"id\":3,\"r\":{\"a\":1,\"s\":null,\"b\":false},\"z\":1}");
    dec_ok(strict, ch, "{\"id\":3,\"r\":null,\"z\":1}");
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(dec(strict, "{\"id\":3,\"z\":1}", ch, &err), -1);
    sl_error_reset(&err);
    sl_codec_free(strict);
    sl_chunk_free(back);
    sl_chunk_free(ch);
    sl_codec_free(c);
}

/* ---- DOUBLE text: the fast digits against the search they replaced ----- */

/* The formatter before double-conversion: printf "%.<p>g" for p from 15 (6
** for a FLOAT) until strtod reads it back, ".0" when it has no point or
** exponent. The codecs' text must stay this, byte for byte. */
static void ref_fmt_double(char *buf, size_t cap, double v, bool is_float)
{
    int from = is_float ? 6 : 15, to = is_float ? 9 : 17;
    for (int prec = from; prec <= to; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        double back = strtod(buf, NULL);
        if (is_float ? (float)back == (float)v : back == v)
            break;
    }
    if (!strpbrk(buf, ".e"))
        strcat(buf, ".0");
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int double_text_diffs(double v, bool is_float)
{
    if (isnan(v) || isinf(v) || v == 0)
        return 0;
    char want[64];
    ref_fmt_double(want, sizeof want, v, is_float);
    sl_strbuf got = SL_STRBUF_INIT;
    sl__codec_fmt_double(&got, v, is_float);
    int bad = strcmp(sl_strbuf_cstr(&got), want) != 0;
    if (bad)
        fprintf(stderr, "%a (%s): %s, not %s\n", v, is_float ? "float" : "double",
                sl_strbuf_cstr(&got), want);
    sl_strbuf_free(&got);
    return bad;
}

static void t_double_text(void)
{
    int bad = 0;
    static const double edge[] = {DBL_MIN, DBL_MAX, DBL_TRUE_MIN, FLT_MIN, FLT_MAX, 1e15, 1e16,
                                  1e17, 1e14, 999999999999999.0, 9999999999999998.0,
                                  123456789012345678.0, 0.1 + 0.2, 1e-5, 1e-4, 1e-3,
                                  9.999999999999999e-5, 0.5, 1.5, 2.5, 100.0, 1e21, 1e-7,
                                  5e-324, 4.35, 0.3, 2.0 / 3.0, 1e22, 1e23, 1.7976931348623157e308};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        for (int sign = 0; sign < 2; sign++) {
            double v = sign ? -edge[i] : edge[i];
            bad += double_text_diffs(v, false);
            bad += double_text_diffs((float)v, true);
        }
    for (int e = -1074; e <= 1023; e++) { /* powers of two and their neighbours */
        double v = ldexp(1.0, e);
        bad += double_text_diffs(v, false) + double_text_diffs(nextafter(v, 0), false) +
               double_text_diffs(nextafter(v, INFINITY), false);
        if (e >= -149 && e <= 127)
            bad += double_text_diffs((float)v, true);
    }
    for (int i = 0; i < 300000 && bad < 20; i++) {
        uint64_t b = rng();
        double v;
        memcpy(&v, &b, sizeof v);
        bad += double_text_diffs(v, false);
        uint32_t fb = (uint32_t)(b >> 17);
        float f;
        memcpy(&f, &fb, sizeof f);
        bad += double_text_diffs(f, true);
        /* decimals people write: k / 10^j and k * 10^j */
        double k = (double)(rng() % 100000000), p10 = pow(10, (double)(rng() % 23));
        bad += double_text_diffs(k / p10, false) + double_text_diffs(k * p10, false);
        bad += double_text_diffs((float)(k / p10), true);
    }
    CHECK_INT(bad, 0);
}

SL_TESTS(t_json_nested, t_mapped_columns, t_new_errors, t_json_all_types, t_json_nulls_and_missing, t_json_integers,
         t_json_decimals, t_json_floats, t_json_strings_and_bytes, t_json_times, t_json_malformed,
         t_json_encode, t_json_encode_values, t_json_roundtrip, t_csv_all_types, t_csv_quoting,
         t_csv_nulls_and_comments, t_csv_malformed, t_csv_encode, t_csv_roundtrip, t_raw, t_double_text)
