/*
** test_server_types.c — the wire forms of values (server/types.c) against
** vectors written out here from PostgreSQL's documented formats: numeric's
** base-10000 binary form, microseconds since 2000-01-01, float4out /
** float8out's shortest text, interval and timestamptz text, and parameters
** decoded from text and binary (22P03 for bad binary data).
*/
#include "sl_test.h"

#include "../../server/server_int.h"

/* Hex of a byte string into a rotating buffer. */
static const char *H(const sl_strbuf *b)
{
    static char bufs[4][512];
    static int k;
    char *o = bufs[k++ % 4];
    size_t n = 0;
    for (size_t i = 0; i < b->len && n + 3 < sizeof bufs[0]; i++)
        n += (size_t)snprintf(o + n, 4, "%02x", (unsigned char)b->buf[i]);
    o[n] = '\0';
    return o;
}

static const char *text_of(sl_type_id id, int p, int s, const char *v, const sl_pgzone *z)
{
    static sl_strbuf b;
    sl_strbuf_reset(&b);
    sl_pgtext_append(&b, sl_type_make_p(id, p, s), v, strlen(v), z);
    return sl_strbuf_cstr(&b);
}

static const char *bin_of(sl_type_id id, int p, int s, const char *v, const sl_pgzone *z)
{
    static sl_strbuf b;
    sl_strbuf_reset(&b);
    if (sl_pgbin_append(&b, sl_type_make_p(id, p, s), v, strlen(v), z) != 0)
        return "(error)";
    return H(&b);
}

static const char *param(int32_t oid, int fmt, const char *v, size_t n, const sl_pgzone *z,
                         char *sqlstate)
{
    static sl_strbuf b;
    sl_strbuf_reset(&b);
    sl_error err = SL_ERROR_INIT;
    sqlstate[0] = '\0';
    if (sl_pgparam_decode(&b, oid, fmt, v, n, 2, z, &err) != 0) {
        strcpy(sqlstate, err.sqlstate);
        if (fmt == 1) /* names the parameter */
            CHECK(strstr(err.message, "parameter 2") != NULL);
        sl_error_reset(&err);
        return "(error)";
    }
    return sl_strbuf_cstr(&b);
}

static void t_numeric_binary(void)
{
    CHECK_STR(bin_of(SL_TYPE_DECIMAL, 10, 4, "-1234.5600", NULL), "000200004000000404d215e0");
    CHECK_STR(bin_of(SL_TYPE_DECIMAL, 10, 4, "0.0001", NULL), "0001ffff000000040001");
    CHECK_STR(bin_of(SL_TYPE_DECIMAL, 10, 0, "10000", NULL), "00010001000000000001");
    CHECK_STR(bin_of(SL_TYPE_DECIMAL, 10, 0, "0", NULL), "0000000000000000");
    CHECK_STR(bin_of(SL_TYPE_DECIMAL, 20, 9, "123456789.987654321", NULL),
              "0006000200000009000109291a852694153803e8");
    CHECK_STR(bin_of(SL_TYPE_DECIMAL, 10, 1, "-0.5", NULL), "0001ffff400000011388");
    CHECK_STR(bin_of(SL_TYPE_DECIMAL, 10, 1, "1.x", NULL), "(error)");
    char st[6];
    /* and back: digits [1] weight -1 dscale 6 -> 0.000100 */
    CHECK_STR(param(SL_OID_NUMERIC, 1, "\x00\x01\xff\xff\x00\x00\x00\x06\x00\x01", 10, NULL, st),
              "0.000100");
    CHECK_STR(param(SL_OID_NUMERIC, 1, "\x00\x02\x00\x00\x40\x00\x00\x04\x04\xd2\x15\xe0", 12,
                    NULL, st),
              "-1234.5600");
    CHECK_STR(param(SL_OID_NUMERIC, 1, "\x00\x01\x00\x01\x00\x00\x00\x00\x00\x01", 10, NULL, st),
              "10000");
    CHECK_STR(param(SL_OID_NUMERIC, 1, "\x00\x00\x00\x00\xc0\x00\x00\x00", 8, NULL, st), "NaN");
    CHECK_STR(param(SL_OID_NUMERIC, 1, "\x00\x01\x00\x00\x00\x00\x00\x00\x27\x10", 10, NULL, st),
              "(error)"); /* digit 10000 */
    CHECK_STR(st, "22P03");
    CHECK_STR(param(SL_OID_NUMERIC, 1, "\x00\x02\x00\x00", 4, NULL, st), "(error)");
}

static void t_float_text(void)
{
    CHECK_STR(text_of(SL_TYPE_DOUBLE, 0, 0, "0.1", NULL), "0.1");
    CHECK_STR(text_of(SL_TYPE_DOUBLE, 0, 0, "1.0E20", NULL), "1e+20");
    CHECK_STR(text_of(SL_TYPE_DOUBLE, 0, 0, "1.0E-5", NULL), "1e-05");
    CHECK_STR(text_of(SL_TYPE_DOUBLE, 0, 0, "1.0E-4", NULL), "0.0001");
    CHECK_STR(text_of(SL_TYPE_DOUBLE, 0, 0, "100.0", NULL), "100");
    CHECK_STR(text_of(SL_TYPE_DOUBLE, 0, 0, "1.23456789012345E14", NULL), "123456789012345");
    CHECK_STR(text_of(SL_TYPE_DOUBLE, 0, 0, "1.234567890123456E15", NULL), "1.234567890123456e+15");
    CHECK_STR(text_of(SL_TYPE_DOUBLE, 0, 0, "-2.5E-300", NULL), "-2.5e-300");
    CHECK_STR(text_of(SL_TYPE_DOUBLE, 0, 0, "0.30000000000000004", NULL), "0.30000000000000004");
    CHECK_STR(text_of(SL_TYPE_DOUBLE, 0, 0, "NaN", NULL), "NaN");
    CHECK_STR(text_of(SL_TYPE_DOUBLE, 0, 0, "-Infinity", NULL), "-Infinity");
    CHECK_STR(text_of(SL_TYPE_DOUBLE, 0, 0, "-0.0", NULL), "-0");
    CHECK_STR(text_of(SL_TYPE_FLOAT, 0, 0, "0.1", NULL), "0.1");
    CHECK_STR(text_of(SL_TYPE_FLOAT, 0, 0, "100000.0", NULL), "100000");
    CHECK_STR(text_of(SL_TYPE_FLOAT, 0, 0, "1000000.0", NULL), "1e+06");
    CHECK_STR(text_of(SL_TYPE_FLOAT, 0, 0, "3.4028235E38", NULL), "3.4028235e+38");
    CHECK_STR(bin_of(SL_TYPE_DOUBLE, 0, 0, "1.5", NULL), "3ff8000000000000");
    CHECK_STR(bin_of(SL_TYPE_FLOAT, 0, 0, "1.5", NULL), "3fc00000");
    CHECK_STR(bin_of(SL_TYPE_DOUBLE, 0, 0, "Infinity", NULL), "7ff0000000000000");
}

static void t_time_forms(void)
{
    sl_pgzone ist = {NULL, sl_tz_fixed("+05:30", 19800)};
    CHECK_STR(text_of(SL_TYPE_TIMESTAMP, 3, 0, "2024-01-02 03:04:05.500", NULL),
              "2024-01-02 03:04:05.5");
    CHECK_STR(text_of(SL_TYPE_TIMESTAMP, 3, 0, "2024-01-02 03:04:05.000", NULL),
              "2024-01-02 03:04:05");
    CHECK_STR(text_of(SL_TYPE_TIMESTAMP, 0, 0, "2024-01-02 03:04:05", NULL), "2024-01-02 03:04:05");
    CHECK_STR(text_of(SL_TYPE_TIMESTAMP_LTZ, 3, 0, "2024-01-02 03:04:05.120", &ist),
              "2024-01-02 03:04:05.12+05:30");
    CHECK_STR(text_of(SL_TYPE_TIMESTAMP_LTZ, 3, 0, "2024-01-02 03:04:05.000", NULL),
              "2024-01-02 03:04:05+00");
    /* microseconds since 2000-01-01 */
    CHECK_STR(bin_of(SL_TYPE_TIMESTAMP, 6, 0, "2000-01-01 00:00:01", NULL), "00000000000f4240");
    CHECK_STR(bin_of(SL_TYPE_TIMESTAMP, 6, 0, "1999-12-31 23:59:59.999999", NULL),
              "ffffffffffffffff");
    /* 05:30 local in +05:30 is 2000-01-01 00:00 UTC */
    CHECK_STR(bin_of(SL_TYPE_TIMESTAMP_LTZ, 6, 0, "2000-01-01 05:30:00", &ist), "0000000000000000");
    CHECK_STR(bin_of(SL_TYPE_DATE, 0, 0, "2000-01-02", NULL), "00000001");
    CHECK_STR(bin_of(SL_TYPE_DATE, 0, 0, "1999-12-31", NULL), "ffffffff");
    CHECK_STR(bin_of(SL_TYPE_TIME, 0, 0, "00:00:01.5", NULL), "000000000016e360");
    char st[6];
    CHECK_STR(param(SL_OID_TIMESTAMP, 1, "\x00\x00\x00\x00\x00\x0f\x42\x40", 8, NULL, st),
              "2000-01-01 00:00:01.000000");
    CHECK_STR(param(SL_OID_TIMESTAMPTZ, 1, "\x00\x00\x00\x00\x00\x00\x00\x00", 8, &ist, st),
              "2000-01-01 05:30:00.000000");
    CHECK_STR(param(SL_OID_DATE, 1, "\xff\xff\xff\xff", 4, NULL, st), "1999-12-31");
    CHECK_STR(param(SL_OID_DATE, 1, "\xff\xff\xff", 3, NULL, st), "(error)");
    CHECK_STR(st, "22P03");
    /* text with an offset: the same instant as local time of the zone */
    CHECK_STR(param(SL_OID_TIMESTAMPTZ, 0, "2024-03-01 12:30:45.5+02", 24, &ist, st),
              "2024-03-01 16:00:45.5");
    CHECK_STR(param(SL_OID_TIMESTAMPTZ, 0, "2024-03-01 12:30:45-03:30", 25, &ist, st),
              "2024-03-01 21:30:45");
    CHECK_STR(param(SL_OID_TIMESTAMP, 0, "2024-03-01 12:30:45+02", 22, &ist, st),
              "2024-03-01 12:30:45");
    CHECK_STR(param(SL_OID_TIMESTAMPTZ, 0, "2024-03-01 12:30:45", 19, &ist, st),
              "2024-03-01 12:30:45");
    sl_tz_free(ist.tz);
}

static void t_interval_text(void)
{
    CHECK_STR(text_of(SL_TYPE_INTERVAL_DT, 0, 0, "+1 02:03:04.500", NULL), "1 day 02:03:04.5");
    CHECK_STR(text_of(SL_TYPE_INTERVAL_DT, 0, 0, "-2 00:00:00.000", NULL), "-2 days");
    CHECK_STR(text_of(SL_TYPE_INTERVAL_DT, 0, 0, "-0 01:00:00.000", NULL), "-01:00:00");
    CHECK_STR(text_of(SL_TYPE_INTERVAL_DT, 0, 0, "+0 00:00:00.000", NULL), "00:00:00");
    CHECK_STR(text_of(SL_TYPE_INTERVAL_YM, 0, 0, "+1-02", NULL), "1 year 2 mons");
    CHECK_STR(text_of(SL_TYPE_INTERVAL_YM, 0, 0, "+2-01", NULL), "2 years 1 mon");
    CHECK_STR(text_of(SL_TYPE_INTERVAL_YM, 0, 0, "-0-01", NULL), "-1 mons");
    /* binary: microseconds, days, months */
    CHECK_STR(bin_of(SL_TYPE_INTERVAL_DT, 0, 0, "+1 00:00:01.000", NULL),
              "00000000000f42400000000100000000");
    CHECK_STR(bin_of(SL_TYPE_INTERVAL_YM, 0, 0, "+1-02", NULL), "0000000000000000000000000000000e");
}

static void t_params(void)
{
    char st[6];
    CHECK_STR(param(SL_OID_INT4, 1, "\x00\x00\x00\x7b", 4, NULL, st), "123");
    CHECK_STR(param(SL_OID_INT2, 1, "\xff\xfe", 2, NULL, st), "-2");
    CHECK_STR(param(SL_OID_INT8, 1, "\x80\x00\x00\x00\x00\x00\x00\x00", 8, NULL, st),
              "-9223372036854775808");
    CHECK_STR(param(SL_OID_INT4, 1, "\x00\x7b", 2, NULL, st), "(error)");
    CHECK_STR(st, "22P03");
    CHECK_STR(param(SL_OID_FLOAT8, 1, "\x3f\xb9\x99\x99\x99\x99\x99\x9a", 8, NULL, st), "0.1");
    CHECK_STR(param(SL_OID_FLOAT4, 1, "\x3f\xc0\x00\x00", 4, NULL, st), "1.5");
    CHECK_STR(param(SL_OID_BOOL, 1, "\x01", 1, NULL, st), "TRUE");
    CHECK_STR(param(SL_OID_BOOL, 1, "\x02", 1, NULL, st), "(error)");
    CHECK_STR(param(SL_OID_BYTEA, 1, "\x00\xff\x10", 3, NULL, st), "00ff10");
    CHECK_STR(param(SL_OID_TEXT, 1, "h\xc3\xa9", 3, NULL, st), "h\xc3\xa9");
    CHECK_STR(param(0, 1, "abc", 3, NULL, st), "abc");
    /* text forms PostgreSQL accepts, in the engine's spelling */
    CHECK_STR(param(SL_OID_BOOL, 0, "yes", 3, NULL, st), "TRUE");
    CHECK_STR(param(SL_OID_BOOL, 0, " f ", 3, NULL, st), "FALSE");
    CHECK_STR(param(SL_OID_BOOL, 0, "o", 1, NULL, st), "(error)");
    CHECK_STR(st, "22P02");
    CHECK_STR(param(SL_OID_BYTEA, 0, "\\x0AFF", 6, NULL, st), "0aff");
    CHECK_STR(param(SL_OID_BYTEA, 0, "a\\\\b\\001", 8, NULL, st), "615c6201");
    CHECK_STR(param(SL_OID_BYTEA, 0, "\\x0g", 4, NULL, st), "(error)");
    CHECK_STR(param(SL_OID_INT4, 0, "42", 2, NULL, st), "42");
}

static void t_oids(void)
{
    CHECK_INT(sl_pgtype_from_oid(SL_OID_INT8).id, SL_TYPE_BIGINT);
    CHECK_INT(sl_pgtype_from_oid(SL_OID_TIMESTAMPTZ).id, SL_TYPE_TIMESTAMP_LTZ);
    CHECK_INT(sl_pgtype_from_oid(0).id, SL_TYPE_NULL);
    CHECK_INT(sl_pgtype_from_oid(600).id, SL_TYPE_NULL); /* point: unknown */
    sl_type t = sl_pgparam_type(SL_OID_NUMERIC, "-00123.4500", 11);
    CHECK_INT(t.id, SL_TYPE_DECIMAL);
    CHECK_INT(t.precision, 7);
    CHECK_INT(t.scale, 4);
    t = sl_pgparam_type(SL_OID_NUMERIC, "123456789012345678901234567890.123456789", 40);
    CHECK_INT(t.precision, 38);
    CHECK_INT(t.scale, 8);
    t = sl_pgparam_type(SL_OID_NUMERIC, "0", 1);
    CHECK_INT(t.precision, 1);
    CHECK_INT(t.scale, 0);
}

SL_TESTS(t_numeric_binary, t_float_text, t_time_forms, t_interval_text, t_params, t_oids)
