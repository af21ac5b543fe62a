/*
** test_base_time.c — dates, times and timestamps (sl_time.h): the calendar
** against an independent day-by-day walk, SQL literal parse/format round
** trips including times before 1970 and the int64 range limits, invalid
** literals, Java/Flink patterns, month/millis arithmetic.
**
** Every parser is fed an exact-size malloc'd copy of its text (no NUL), so
** ASan catches any read past the length.
*/
#include "sl_test.h"

#include "../../base/sl_base.h"
#include "../../base/sl_time.h"

/* ------------------------------------------------------------------------
** Helpers: exact-size copies of the text for the parsers.
*/

static char *dup_exact(const char *txt, size_t *n)
{
    *n = strlen(txt);
    char *b = malloc(*n ? *n : 1);
    if (*n)
        memcpy(b, txt, *n);
    return b;
}

static int parse_date(const char *txt, int64_t *out)
{
    size_t n;
    char *b = dup_exact(txt, &n);
    int rc = sl_date_parse(b, n, out);
    free(b);
    return rc;
}

static int parse_time(const char *txt, int64_t *out)
{
    size_t n;
    char *b = dup_exact(txt, &n);
    int rc = sl_time_parse(b, n, out);
    free(b);
    return rc;
}

static int parse_ts(const char *txt, int64_t *out)
{
    size_t n;
    char *b = dup_exact(txt, &n);
    int rc = sl_ts_parse(b, n, out);
    free(b);
    return rc;
}

static int parse_pat(const char *txt, const char *pattern, int64_t *out)
{
    size_t n;
    char *b = dup_exact(txt, &n);
    int rc = sl_ts_parse_pattern(b, n, pattern, out);
    free(b);
    return rc;
}

/* Formatted pattern output in a static buffer ("<invalid>" for -1). */
static const char *fmt_pat(int64_t nanos, const char *pattern)
{
    static char out[256];
    sl_strbuf sb = SL_STRBUF_INIT;
    int rc = sl_ts_format_pattern(nanos, pattern, &sb);
    snprintf(out, sizeof(out), "%s", rc == 0 ? sl_strbuf_cstr(&sb) : "<invalid>");
    if (rc != 0 && sb.len != 0)
        snprintf(out, sizeof(out), "<invalid, but wrote output>");
    sl_strbuf_free(&sb);
    return out;
}

static const char *fmt_ts(int64_t nanos, int p)
{
    static char buf[64];
    int n = sl_ts_format(nanos, p, buf);
    if (n != (int)strlen(buf))
        return "<bad length>";
    return buf;
}

/* Nanoseconds of a civil timestamp (tests only; within range). */
static int64_t ts_of(int64_t y, int mo, int d, int h, int mi, int s, int64_t ns)
{
    return sl_days_from_civil(y, mo, d) * SL_NANOS_PER_DAY +
           ((int64_t)h * 3600 + mi * 60 + s) * SL_NANOS_PER_SEC + ns;
}

/* A deterministic pseudo-random sequence (xorshift64*). */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

/* ------------------------------------------------------------------------
** Calendar.
*/

static void t_calendar_known(void)
{
    CHECK_INT(sl_days_from_civil(1970, 1, 1), 0);
    CHECK_INT(sl_days_from_civil(1969, 12, 31), -1);
    CHECK_INT(sl_days_from_civil(2000, 3, 1), 11017);
    CHECK_INT(sl_days_from_civil(2026, 11, 30), 20787);
    CHECK_INT(sl_days_from_civil(2026, 1, 31), 20484);
    CHECK_INT(sl_days_from_civil(1, 1, 1), -719162);
    CHECK_INT(sl_days_from_civil(0, 3, 1), -719468);
    CHECK_INT(sl_days_from_civil(9999, 12, 31), 2932896);
    CHECK_INT(sl_days_from_civil(1677, 9, 21), -106752);
    CHECK_INT(sl_days_from_civil(2262, 4, 11), 106751);

    int64_t y;
    int m, d;
    sl_civil_from_days(-1, &y, &m, &d);
    CHECK(y == 1969 && m == 12 && d == 31);
    sl_civil_from_days(11016, &y, &m, &d);
    CHECK(y == 2000 && m == 2 && d == 29);
    sl_civil_from_days(-719469, &y, &m, &d); /* day before 0000-03-01 */
    CHECK(y == 0 && m == 2 && d == 29);
    sl_civil_from_days(-719529, &y, &m, &d); /* day before 0000-01-01 */
    CHECK(y == -1 && m == 12 && d == 31);

    CHECK(sl_is_leap_year(2000) && sl_is_leap_year(2024) && sl_is_leap_year(0));
    CHECK(sl_is_leap_year(-4) && sl_is_leap_year(1600) && sl_is_leap_year(-400));
    CHECK(!sl_is_leap_year(1900) && !sl_is_leap_year(2100) && !sl_is_leap_year(2026));
    CHECK(!sl_is_leap_year(-100) && !sl_is_leap_year(-1) && !sl_is_leap_year(1));
    CHECK_INT(sl_days_in_month(2024, 2), 29);
    CHECK_INT(sl_days_in_month(2026, 2), 28);
    CHECK_INT(sl_days_in_month(1900, 2), 28);
    CHECK_INT(sl_days_in_month(2026, 4), 30);
    CHECK_INT(sl_days_in_month(2026, 12), 31);
    CHECK_INT(sl_days_in_month(2026, 0), 0);
    CHECK_INT(sl_days_in_month(2026, 13), 0);
}

/* Every day from 1600-01-01 to 2400-12-31 against counters advanced one
** day at a time with their own month-length table. */
static void t_calendar_walk(void)
{
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int64_t y = 1600, day_no = -135140; /* 1600-01-01 (from an outside source) */
    int m = 1, d = 1, bad = 0;
    long count = 0;
    for (;;) {
        int64_t ry;
        int rm, rd;
        if (sl_days_from_civil(y, m, d) != day_no)
            bad++;
        sl_civil_from_days(day_no, &ry, &rm, &rd);
        if (ry != y || rm != m || rd != d)
            bad++;
        if (bad && bad < 5)
            fprintf(stderr, "mismatch at %lld-%02d-%02d (%lld)\n", (long long)y, m, d,
                    (long long)day_no);
        count++;
        if (y == 2400 && m == 12 && d == 31)
            break;
        bool leap = (y % 4 == 0) && ((y % 100 != 0) || (y % 400 == 0));
        int len = mdays[m - 1] + (m == 2 && leap);
        day_no++;
        if (++d > len) {
            d = 1;
            if (++m > 12) {
                m = 1;
                y++;
            }
        }
    }
    CHECK_INT(bad, 0);
    CHECK_INT(day_no, 157419); /* 2400-12-31 (from an outside source) */
    CHECK_INT(count, 157419 + 135140 + 1);
}

/* Round trips far from 1970 and no UB at the int64 extremes. */
static void t_calendar_extremes(void)
{
    uint64_t seed = 42;
    int bad = 0;
    for (int i = 0; i < 200000; i++) {
        /* days within +-3.6e14 (years within +-1e12) */
        int64_t days = (int64_t)(rng_next(&seed) % 730000000000000ULL) - 365000000000000LL;
        int64_t y;
        int m, d;
        sl_civil_from_days(days, &y, &m, &d);
        if (m < 1 || m > 12 || d < 1 || d > sl_days_in_month(y, m) ||
            sl_days_from_civil(y, m, d) != days)
            bad++;
    }
    CHECK_INT(bad, 0);
    int64_t y;
    int m, d;
    sl_civil_from_days(INT64_MAX, &y, &m, &d);
    CHECK(m >= 1 && m <= 12 && d >= 1 && d <= 31 && y > 0);
    sl_civil_from_days(INT64_MIN, &y, &m, &d);
    CHECK(m >= 1 && m <= 12 && d >= 1 && d <= 31 && y < 0);
    (void)sl_days_from_civil(INT64_MAX, 12, 31); /* defined, if meaningless */
    (void)sl_days_from_civil(INT64_MIN, 1, 1);
}

/* ------------------------------------------------------------------------
** SQL literal forms.
*/

static void t_date_text(void)
{
    int64_t v = 12345;
    char buf[64];
    CHECK_INT(parse_date("1970-01-01", &v), 0);
    CHECK_INT(v, 0);
    CHECK_INT(parse_date("1969-12-31", &v), 0);
    CHECK_INT(v, -1);
    CHECK_INT(parse_date("2024-02-29", &v), 0);
    CHECK_INT(v, sl_days_from_civil(2024, 2, 29));
    CHECK_INT(parse_date("2000-02-29", &v), 0);
    CHECK_INT(parse_date("0000-01-01", &v), 0);
    CHECK_INT(v, -719528);
    CHECK_INT(parse_date("9999-12-31", &v), 0);
    CHECK_INT(v, 2932896);

    static const char *const bad[] = {
        "2026-02-29", "2024-02-30", "1900-02-29", "2026-04-31", "2026-13-01", "2026-00-10",
        "2026-01-00", "2026-01-32", "26-01-01",   "2026-1-01",  "2026-01-1",  "2026/01/01",
        "2026-01-01 ", " 2026-01-01", "2026-01-01x", "",         "2026",       "2026-01",
        "2026-01-0",  "+2026-01-01", "-001-01-01", "20260101",   "2026-01-01T00:00",
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
        v = 777;
        if (parse_date(bad[i], &v) != -1) {
            fprintf(stderr, "accepted bad date '%s'\n", bad[i]);
            CHECK(0);
        }
        CHECK_INT(v, 777); /* untouched on error */
    }

    CHECK_INT(sl_date_format(0, buf), 10);
    CHECK_STR(buf, "1970-01-01");
    sl_date_format(-1, buf);
    CHECK_STR(buf, "1969-12-31");
    sl_date_format(20787, buf);
    CHECK_STR(buf, "2026-11-30");
    sl_date_format(-719528, buf);
    CHECK_STR(buf, "0000-01-01");
    sl_date_format(-719529, buf);
    CHECK_STR(buf, "-0001-12-31");
    sl_date_format(2932897, buf);
    CHECK_STR(buf, "+10000-01-01");
    sl_date_format(sl_days_from_civil(33, 3, 3), buf);
    CHECK_STR(buf, "0033-03-03");
    CHECK(sl_date_format(INT64_MIN, buf) < 40);
    CHECK(sl_date_format(INT64_MAX, buf) < 40);

    /* every date of years 0..9999 formats and parses back (step 1 day) */
    int bad_rt = 0;
    for (int64_t dn = -719528; dn <= 2932896; dn++) {
        int n = sl_date_format(dn, buf);
        char *b = malloc((size_t)n);
        memcpy(b, buf, (size_t)n);
        int64_t back = 0;
        if (sl_date_parse(b, (size_t)n, &back) != 0 || back != dn)
            bad_rt++;
        free(b);
    }
    CHECK_INT(bad_rt, 0);
}

static void t_time_text(void)
{
    int64_t v = 0;
    char buf[64];
    CHECK_INT(parse_time("00:00:00", &v), 0);
    CHECK_INT(v, 0);
    CHECK_INT(parse_time("12:34", &v), 0);
    CHECK_INT(v, (12 * 3600 + 34 * 60) * SL_NANOS_PER_SEC);
    CHECK_INT(parse_time("23:59:59.999999999", &v), 0);
    CHECK_INT(v, SL_NANOS_PER_DAY - 1);
    CHECK_INT(parse_time("01:02:03.5", &v), 0);
    CHECK_INT(v, 3723 * SL_NANOS_PER_SEC + 500000000);
    CHECK_INT(parse_time("01:02:03.000001", &v), 0);
    CHECK_INT(v, 3723 * SL_NANOS_PER_SEC + 1000);

    static const char *const bad[] = {
        "24:00:00", "12:60",    "12:00:60", "1:02:03",  "12:3",      "12",       "",
        "12:00:",   "12:00:00.", "12:00.5", "12:00:00.1234567890", "12:00:00 ", "-1:00:00",
        "12:00:00Z", "ab:cd:ef", "12-00-00", "99:99:99",
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
        if (parse_time(bad[i], &v) != -1) {
            fprintf(stderr, "accepted bad time '%s'\n", bad[i]);
            CHECK(0);
        }
    }

    int64_t t = 3723 * SL_NANOS_PER_SEC + 123456789;
    CHECK_INT(sl_time_format(t, 0, buf), 8);
    CHECK_STR(buf, "01:02:03");
    sl_time_format(t, 3, buf);
    CHECK_STR(buf, "01:02:03.123");
    sl_time_format(t, 9, buf);
    CHECK_STR(buf, "01:02:03.123456789");
    sl_time_format(SL_NANOS_PER_DAY - 1, 6, buf);
    CHECK_STR(buf, "23:59:59.999999");
    sl_time_format(-1, 9, buf); /* defensive: reduced modulo a day */
    CHECK_STR(buf, "23:59:59.999999999");
}

static void t_ts_text(void)
{
    int64_t v = 0;
    CHECK_INT(parse_ts("2026-01-31 12:00:00.123", &v), 0);
    CHECK_INT(v, 1769860800123000000LL);
    CHECK_STR(fmt_ts(v, 3), "2026-01-31 12:00:00.123");
    CHECK_STR(fmt_ts(v, 0), "2026-01-31 12:00:00");
    CHECK_STR(fmt_ts(v, 1), "2026-01-31 12:00:00.1");
    CHECK_STR(fmt_ts(v, 6), "2026-01-31 12:00:00.123000");
    CHECK_STR(fmt_ts(v, 9), "2026-01-31 12:00:00.123000000");
    CHECK_INT(parse_ts("2026-01-31T12:00:00.123", &v), 0);
    CHECK_INT(v, 1769860800123000000LL);
    CHECK_INT(parse_ts("2026-01-31", &v), 0);
    CHECK_INT(v, 20484 * SL_NANOS_PER_DAY);
    CHECK_INT(parse_ts("2026-01-31 12:30", &v), 0);
    CHECK_INT(v, ts_of(2026, 1, 31, 12, 30, 0, 0));
    CHECK_INT(parse_ts("1970-01-01 00:00:00", &v), 0);
    CHECK_INT(v, 0);

    /* before 1970: floor division everywhere */
    CHECK_INT(parse_ts("1969-12-31 23:59:59.999", &v), 0);
    CHECK_INT(v, -1000000);
    CHECK_STR(fmt_ts(-1000000, 3), "1969-12-31 23:59:59.999");
    CHECK_STR(fmt_ts(-1, 9), "1969-12-31 23:59:59.999999999");
    CHECK_STR(fmt_ts(-1, 0), "1969-12-31 23:59:59");
    CHECK_STR(fmt_ts(-SL_NANOS_PER_DAY, 3), "1969-12-31 00:00:00.000");
    CHECK_STR(fmt_ts(-SL_NANOS_PER_DAY - 1, 1), "1969-12-30 23:59:59.9");
    CHECK_INT(parse_ts("1900-02-28 01:02:03.456789", &v), 0);
    CHECK_STR(fmt_ts(v, 6), "1900-02-28 01:02:03.456789");
    CHECK_INT(v, ts_of(1900, 2, 28, 1, 2, 3, 456789000));

    static const char *const bad[] = {
        "2026-02-29 00:00:00", "2024-02-30 00:00:00", "2026-01-31 24:00:00",
        "2026-01-31 12:60:00", "2026-01-31 12:00:00.1234567890", "2026-01-31 12:00:00x",
        "2026-01-31 12:00:00 ", "", "2026-01-31 ", "2026-01-31T", "2026-01-31X12:00:00",
        "2026-01-31  12:00:00", "2026-01-31 12", "2026-01-31 12:00:00.", "2026-01-31t12:00:00",
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
        v = 777;
        if (parse_ts(bad[i], &v) != -1) {
            fprintf(stderr, "accepted bad timestamp '%s'\n", bad[i]);
            CHECK(0);
        }
        CHECK_INT(v, 777);
    }
    /* well-formed but outside the range: -2, so callers can say so */
    static const char *const far[] = {
        "0000-01-01 00:00:00", "9999-12-31 23:59:59", "1677-09-20 23:59:59",
        "2262-04-12 00:00:00",
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(far); i++) {
        v = 777;
        CHECK_INT(parse_ts(far[i], &v), -2);
        CHECK_INT(v, 777);
    }
}

/* The int64 limits, just inside and just outside. */
static void t_ts_range(void)
{
    int64_t v = 0;
    CHECK_INT(parse_ts("1677-09-21 00:12:43.145224192", &v), 0);
    CHECK_INT(v, INT64_MIN);
    CHECK_INT(parse_ts("1677-09-21 00:12:43.145224191", &v), -2);
    CHECK_INT(parse_ts("1677-09-21 00:12:43", &v), -2);
    CHECK_INT(parse_ts("1677-09-21 00:12:44", &v), 0);
    CHECK_INT(parse_ts("2262-04-11 23:47:16.854775807", &v), 0);
    CHECK_INT(v, INT64_MAX);
    CHECK_INT(parse_ts("2262-04-11 23:47:16.854775808", &v), -2);
    CHECK_INT(parse_ts("2262-04-11 23:47:17", &v), -2);
    CHECK_INT(parse_ts("2262-04-11 23:47:16", &v), 0);
    CHECK_INT(parse_ts("2262-04-11", &v), 0);
    CHECK_INT(parse_ts("1677-09-21", &v), -2); /* midnight is before the minimum */
    CHECK_INT(parse_ts("1677-09-22", &v), 0);

    CHECK_STR(fmt_ts(INT64_MIN, 9), "1677-09-21 00:12:43.145224192");
    CHECK_STR(fmt_ts(INT64_MAX, 9), "2262-04-11 23:47:16.854775807");
    CHECK_STR(fmt_ts(INT64_MIN, 0), "1677-09-21 00:12:43");
    char buf[64];
    CHECK_INT(sl_ts_format_iso(INT64_MIN, 9, true, buf), 30);
    CHECK_STR(buf, "1677-09-21T00:12:43.145224192Z");
}

/* Format at every precision then parse: the value truncated to p digits. */
static void t_ts_roundtrip(void)
{
    uint64_t seed = 7;
    int bad = 0;
    char buf[64];
    for (int i = 0; i < 100000; i++) {
        int64_t v = (int64_t)rng_next(&seed);
        if (i < 20)
            v = (i % 2 ? INT64_MAX : INT64_MIN) + (i % 2 ? -(i / 2) : i / 2);
        for (int p = 0; p <= 9; p++) {
            int n = sl_ts_format(v, p, buf);
            if (n != 19 + (p ? p + 1 : 0))
                bad++;
            char *b = malloc((size_t)n);
            memcpy(b, buf, (size_t)n);
            int64_t back = 0;
            int64_t want = sl_time_truncate(v, p);
            int rc = sl_ts_parse(b, (size_t)n, &back);
            /* Truncating a value in the minimum second can leave the range. */
            bool representable = !(want > v);
            if (representable ? (rc != 0 || back != want) : rc != -2) {
                if (bad < 5)
                    fprintf(stderr, "round trip %lld p=%d: '%s' -> rc %d %lld\n", (long long)v, p,
                            buf, rc, (long long)back);
                bad++;
            }
            free(b);
        }
    }
    CHECK_INT(bad, 0);
}

static void t_truncate(void)
{
    CHECK_INT(sl_time_truncate(1234567891, 3), 1234000000);
    CHECK_INT(sl_time_truncate(1234567891, 0), 1000000000);
    CHECK_INT(sl_time_truncate(1234567891, 9), 1234567891);
    CHECK_INT(sl_time_truncate(1234567891, 6), 1234567000);
    CHECK_INT(sl_time_truncate(-1, 3), -1000000);
    CHECK_INT(sl_time_truncate(-1, 0), -1000000000);
    CHECK_INT(sl_time_truncate(-1000000, 3), -1000000);
    CHECK_INT(sl_time_truncate(-1000001, 3), -2000000);
    CHECK_INT(sl_time_truncate(-1500000000, 0), -2000000000);
    CHECK_INT(sl_time_truncate(INT64_MAX, 0), INT64_MAX - 854775807);
    CHECK_INT(sl_time_truncate(INT64_MAX, 9), INT64_MAX);
    CHECK_INT(sl_time_truncate(INT64_MIN, 9), INT64_MIN);
    /* the floor would leave int64: the first whole unit inside instead */
    CHECK_INT(sl_time_truncate(INT64_MIN, 0), INT64_MIN + 854775808);
    CHECK_INT(sl_time_truncate(INT64_MIN, 3), INT64_MIN + 775808);
    CHECK_INT(sl_time_truncate(INT64_MIN, 8), INT64_MIN + 8);
    /* out-of-range precisions are clamped */
    CHECK_INT(sl_time_truncate(1234567891, -5), 1000000000);
    CHECK_INT(sl_time_truncate(1234567891, 12), 1234567891);
}

static void t_iso(void)
{
    char buf[64];
    int64_t v = 1769860800123000000LL;
    CHECK_INT(sl_ts_format_iso(v, 3, false, buf), 23);
    CHECK_STR(buf, "2026-01-31T12:00:00.123");
    CHECK_INT(sl_ts_format_iso(v, 3, true, buf), 24);
    CHECK_STR(buf, "2026-01-31T12:00:00.123Z");
    sl_ts_format_iso(v, 0, true, buf);
    CHECK_STR(buf, "2026-01-31T12:00:00Z");
    sl_ts_format_iso(-1, 6, false, buf);
    CHECK_STR(buf, "1969-12-31T23:59:59.999999");
}

/* ------------------------------------------------------------------------
** Java/Flink patterns.
*/

static void t_pattern_format(void)
{
    int64_t v = ts_of(2026, 1, 31, 13, 5, 9, 123456789); /* a Saturday */
    CHECK_STR(fmt_pat(v, "yyyy-MM-dd HH:mm:ss"), "2026-01-31 13:05:09");
    CHECK_STR(fmt_pat(v, "yyyy-MM-dd'T'HH:mm:ss.SSS"), "2026-01-31T13:05:09.123");
    CHECK_STR(fmt_pat(v, "dd/MM/yyyy"), "31/01/2026");
    CHECK_STR(fmt_pat(v, "yyyyMMdd"), "20260131");
    CHECK_STR(fmt_pat(v, "HH:mm"), "13:05");
    CHECK_STR(fmt_pat(v, "yyyy-MM-dd hh:mm:ss a"), "2026-01-31 01:05:09 PM");
    CHECK_STR(fmt_pat(v, "yy M d H m s"), "26 1 31 13 5 9");
    CHECK_STR(fmt_pat(v, "S SS SSSSSS SSSSSSSSS"), "1 12 123456 123456789");
    CHECK_STR(fmt_pat(v, "EEE, d MMM yyyy"), "Sat, 31 Jan 2026");
    CHECK_STR(fmt_pat(v, "EEEE d MMMM"), "Saturday 31 January");
    CHECK_STR(fmt_pat(v, "h 'o''clock' a"), "1 o'clock PM");
    CHECK_STR(fmt_pat(v, "''yyyy''"), "'2026'");
    CHECK_STR(fmt_pat(v, "'literal'"), "literal");
    CHECK_STR(fmt_pat(v, ""), "");
    CHECK_STR(fmt_pat(v, "[yyyy]"), "[2026]");
    CHECK_STR(fmt_pat(ts_of(2026, 1, 31, 0, 0, 0, 0), "hh a"), "12 AM");
    CHECK_STR(fmt_pat(ts_of(2026, 1, 31, 12, 0, 0, 0), "hh a"), "12 PM");
    CHECK_STR(fmt_pat(ts_of(2005, 3, 4, 0, 0, 0, 0), "yy"), "05");
    CHECK_STR(fmt_pat(-1, "yyyy-MM-dd HH:mm:ss.SSS EEE"), "1969-12-31 23:59:59.999 Wed");
    CHECK_STR(fmt_pat(INT64_MIN, "yyyy-MM-dd HH:mm:ss.SSSSSSSSS"), "1677-09-21 00:12:43.145224192");

    /* the finest unit a pattern shows (DATE_FORMAT reuses a text within it) */
    CHECK(sl_ts_pattern_unit("yyyy-MM-dd") == SL_NANOS_PER_DAY);
    CHECK(sl_ts_pattern_unit("EEE 'at' yyyy") == SL_NANOS_PER_DAY);
    CHECK(sl_ts_pattern_unit("yyyy-MM-dd hh a") == 3600 * SL_NANOS_PER_SEC);
    CHECK(sl_ts_pattern_unit("'HH:mm' MM/dd HH:mm") == 60 * SL_NANOS_PER_SEC);
    CHECK(sl_ts_pattern_unit("ss") == SL_NANOS_PER_SEC);
    CHECK(sl_ts_pattern_unit("HH:mm:ss.S") == 1);
    CHECK(sl_ts_pattern_unit("'literal only'") == SL_NANOS_PER_DAY);
    CHECK(sl_ts_pattern_unit("yyyy-QQ") == -1);
    CHECK(sl_ts_pattern_unit("'open") == -1);

    /* appends to what is there and leaves it untouched on an invalid pattern */
    sl_strbuf sb = SL_STRBUF_INIT;
    sl_strbuf_append(&sb, "x=");
    CHECK_INT(sl_ts_format_pattern(v, "yyyy", &sb), 0);
    CHECK_STR(sl_strbuf_cstr(&sb), "x=2026");
    CHECK_INT(sl_ts_format_pattern(v, "yyyy-QQ", &sb), -1);
    CHECK_STR(sl_strbuf_cstr(&sb), "x=2026");
    sl_strbuf_free(&sb);
    CHECK_INT(sl_ts_format_pattern(v, "", &sb), 0);
    CHECK(sb.buf != NULL && sb.buf[0] == '\0');
    sl_strbuf_free(&sb);

    static const char *const invalid[] = {
        "yyyy-MM-dd X", "Q", "'unterminated", "yyyy'T", "yyyyy", "MMMMM", "ddd", "HHH",
        "SSSSSSSSSS", "aa", "EEEEE", "D", "u", "z", "G", "Z",
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(invalid); i++) {
        if (strcmp(fmt_pat(v, invalid[i]), "<invalid>") != 0) {
            fprintf(stderr, "accepted bad pattern '%s'\n", invalid[i]);
            CHECK(0);
        }
        int64_t out;
        CHECK_INT(parse_pat("2026", invalid[i], &out), -1);
    }
}

static void t_pattern_parse(void)
{
    int64_t v = 0;
    CHECK_INT(parse_pat("2026-01-31 12:00:00", "yyyy-MM-dd HH:mm:ss", &v), 0);
    CHECK_INT(v, ts_of(2026, 1, 31, 12, 0, 0, 0));
    CHECK_INT(parse_pat("2026-01-31T12:00:00.123", "yyyy-MM-dd'T'HH:mm:ss.SSS", &v), 0);
    CHECK_INT(v, 1769860800123000000LL);
    CHECK_INT(parse_pat("31/01/2026", "dd/MM/yyyy", &v), 0);
    CHECK_INT(v, 20484 * SL_NANOS_PER_DAY);
    CHECK_INT(parse_pat("20260131", "yyyyMMdd", &v), 0);
    CHECK_INT(v, 20484 * SL_NANOS_PER_DAY);
    CHECK_INT(parse_pat("13:05", "HH:mm", &v), 0);
    CHECK_INT(v, ts_of(1970, 1, 1, 13, 5, 0, 0));
    CHECK_INT(parse_pat("2026-01-31 01:05:09 PM", "yyyy-MM-dd hh:mm:ss a", &v), 0);
    CHECK_INT(v, ts_of(2026, 1, 31, 13, 5, 9, 0));
    CHECK_INT(parse_pat("2026-01-31 12:05:09 am", "yyyy-MM-dd hh:mm:ss a", &v), 0);
    CHECK_INT(v, ts_of(2026, 1, 31, 0, 5, 9, 0));
    CHECK_INT(parse_pat("2026-01-31 12:05:09 PM", "yyyy-MM-dd hh:mm:ss a", &v), 0);
    CHECK_INT(v, ts_of(2026, 1, 31, 12, 5, 9, 0));
    CHECK_INT(parse_pat("1/2/2026 3:4:5", "d/M/yyyy H:m:s", &v), 0);
    CHECK_INT(v, ts_of(2026, 2, 1, 3, 4, 5, 0));
    CHECK_INT(parse_pat("26-01-31", "yy-MM-dd", &v), 0);
    CHECK_INT(v, 20484 * SL_NANOS_PER_DAY);
    CHECK_INT(parse_pat("69-01-01", "yy-MM-dd", &v), 0);
    CHECK_INT(v, sl_days_from_civil(2069, 1, 1) * SL_NANOS_PER_DAY);
    CHECK_INT(parse_pat("70-01-01", "yy-MM-dd", &v), 0);
    CHECK_INT(v, 0);
    CHECK_INT(parse_pat("99-12-31", "yy-MM-dd", &v), 0);
    CHECK_INT(v, sl_days_from_civil(1999, 12, 31) * SL_NANOS_PER_DAY);
    CHECK_INT(parse_pat("12:00:00.123456", "HH:mm:ss.SSSSSS", &v), 0);
    CHECK_INT(v, ts_of(1970, 1, 1, 12, 0, 0, 123456000));
    CHECK_INT(parse_pat("1969-12-31 23:59:59.999", "yyyy-MM-dd HH:mm:ss.SSS", &v), 0);
    CHECK_INT(v, -1000000);
    CHECK_INT(parse_pat("Sat, 31 Jan 2026", "EEE, d MMM yyyy", &v), 0);
    CHECK_INT(v, 20484 * SL_NANOS_PER_DAY);
    CHECK_INT(parse_pat("saturday 31 JANUARY 2026", "EEEE d MMMM yyyy", &v), 0);
    CHECK_INT(v, 20484 * SL_NANOS_PER_DAY);
    CHECK_INT(parse_pat("2026'T", "yyyy''''T'", &v), -1); /* T outside quotes: bad pattern */
    CHECK_INT(parse_pat("2026'T", "yyyy'''T'", &v), 0);   /* yyyy, quoted "'T" */
    CHECK_INT(v, sl_days_from_civil(2026, 1, 1) * SL_NANOS_PER_DAY);
    CHECK_INT(parse_pat("1 o'clock", "h 'o''clock'", &v), 0);
    CHECK_INT(v, ts_of(1970, 1, 1, 1, 0, 0, 0));
    CHECK_INT(parse_pat("1677-09-21 00:12:44", "yyyy-MM-dd HH:mm:ss", &v), 0);
    CHECK_INT(parse_pat("2262-04-11 23:47:16.854775807", "yyyy-MM-dd HH:mm:ss.SSSSSSSSS", &v), 0);
    CHECK_INT(v, INT64_MAX);

    static const struct {
        const char *text, *pattern;
    } bad[] = {
        {"2026-02-29 00:00:00", "yyyy-MM-dd HH:mm:ss"},
        {"2024-02-30", "yyyy-MM-dd"},
        {"2026-01-31 24:00:00", "yyyy-MM-dd HH:mm:ss"},
        {"2026-01-31 12:60:00", "yyyy-MM-dd HH:mm:ss"},
        {"2026-01-31 12:00:60", "yyyy-MM-dd HH:mm:ss"},
        {"2026-01-31 12:00:00 ", "yyyy-MM-dd HH:mm:ss"},
        {"2026-01-31 12:00", "yyyy-MM-dd HH:mm:ss"},
        {"2026-1-31", "yyyy-MM-dd"},
        {"26-01-31", "yyyy-MM-dd"},
        {"2026-01-31T12:00:00.12", "yyyy-MM-dd'T'HH:mm:ss.SSS"},
        {"2026-01-31T12:00:00.1234", "yyyy-MM-dd'T'HH:mm:ss.SSS"},
        {"2026-01-31 12:00:00", "yyyy-MM-dd'T'HH:mm:ss"},
        {"00:05 PM", "hh:mm a"},
        {"13:05 PM", "hh:mm a"},
        {"01:05 XM", "hh:mm a"},
        {"01:05 P", "hh:mm a"},
        {"Fri, 31 Jan 2026", "EEE, d MMM yyyy"}, /* it was a Saturday */
        {"Sat, 31 Jxn 2026", "EEE, d MMM yyyy"},
        {"", "yyyy"},
        {"", "HH:mm"},
        {"2026", ""},
        {"123:00", "H:mm"},
        {"2026-13-01", "yyyy-MM-dd"},
        {"2026-00-01", "yyyy-MM-dd"},
        {"2026-01-00", "yyyy-MM-dd"},
    };
    for (size_t i = 0; i < SL_ARRAY_LEN(bad); i++) {
        v = 777;
        if (parse_pat(bad[i].text, bad[i].pattern, &v) != -1) {
            fprintf(stderr, "accepted '%s' for pattern '%s'\n", bad[i].text, bad[i].pattern);
            CHECK(0);
        }
        CHECK_INT(v, 777);
    }
    /* a real date and time outside the range: -2 (TO_TIMESTAMP's 22008) */
    v = 777;
    CHECK_INT(parse_pat("1677-09-21 00:12:43", "yyyy-MM-dd HH:mm:ss", &v), -2);
    CHECK_INT(parse_pat("2262-04-11 23:47:17", "yyyy-MM-dd HH:mm:ss", &v), -2);
    CHECK_INT(parse_pat("9999-12-31", "yyyy-MM-dd", &v), -2);
    CHECK_INT(v, 777);
    CHECK_INT(parse_pat("", "", &v), 0); /* nothing to read: the epoch */
    CHECK_INT(v, 0);
}

/* format(pattern) then parse(pattern) is the identity for full patterns. */
static void t_pattern_roundtrip(void)
{
    static const char *const patterns[] = {
        "yyyy-MM-dd HH:mm:ss.SSSSSSSSS",
        "yyyyMMddHHmmssSSSSSSSSS",
        "EEEE, dd MMMM yyyy hh:mm:ss.SSSSSSSSS a",
        "d/M/yyyy H:m:s.SSSSSSSSS",
        "'at' HH 'h' mm 'm' ss 's' SSSSSSSSS 'on' yyyy-MM-dd",
    };
    uint64_t seed = 99;
    int bad = 0;
    for (size_t p = 0; p < SL_ARRAY_LEN(patterns); p++) {
        for (int i = 0; i < 20000; i++) {
            int64_t v = (int64_t)rng_next(&seed);
            sl_strbuf sb = SL_STRBUF_INIT;
            int64_t back = 0;
            if (sl_ts_format_pattern(v, patterns[p], &sb) != 0)
                bad++;
            char *b = malloc(sb.len);
            memcpy(b, sb.buf, sb.len);
            if (sl_ts_parse_pattern(b, sb.len, patterns[p], &back) != 0 || back != v) {
                if (bad < 5)
                    fprintf(stderr, "pattern round trip '%s': '%s'\n", patterns[p], sb.buf);
                bad++;
            }
            free(b);
            sl_strbuf_free(&sb);
        }
    }
    CHECK_INT(bad, 0);
}

/* ------------------------------------------------------------------------
** Arithmetic.
*/

static void t_add_months(void)
{
    int64_t out = 0;
    CHECK_INT(sl_ts_add_months(ts_of(2026, 1, 31, 12, 0, 0, 0), 1, &out), 0);
    CHECK_STR(fmt_ts(out, 0), "2026-02-28 12:00:00");
    CHECK_INT(sl_ts_add_months(ts_of(2024, 1, 31, 12, 0, 0, 5), 1, &out), 0);
    CHECK_STR(fmt_ts(out, 9), "2024-02-29 12:00:00.000000005");
    CHECK_INT(sl_ts_add_months(ts_of(2024, 3, 31, 0, 0, 0, 0), -1, &out), 0);
    CHECK_STR(fmt_ts(out, 0), "2024-02-29 00:00:00");
    CHECK_INT(sl_ts_add_months(ts_of(2024, 2, 29, 0, 0, 0, 0), 12, &out), 0);
    CHECK_STR(fmt_ts(out, 0), "2025-02-28 00:00:00");
    CHECK_INT(sl_ts_add_months(ts_of(2026, 5, 31, 0, 0, 0, 0), -13, &out), 0);
    CHECK_STR(fmt_ts(out, 0), "2025-04-30 00:00:00");
    CHECK_INT(sl_ts_add_months(ts_of(2026, 1, 15, 0, 0, 0, 0), 0, &out), 0);
    CHECK_STR(fmt_ts(out, 0), "2026-01-15 00:00:00");
    CHECK_INT(sl_ts_add_months(ts_of(2026, 12, 15, 0, 0, 0, 0), 1, &out), 0);
    CHECK_STR(fmt_ts(out, 0), "2027-01-15 00:00:00");
    CHECK_INT(sl_ts_add_months(ts_of(2026, 1, 15, 0, 0, 0, 0), -1, &out), 0);
    CHECK_STR(fmt_ts(out, 0), "2025-12-15 00:00:00");
    CHECK_INT(sl_ts_add_months(-1, 1, &out), 0); /* 1969-12-31 23:59:59.999999999 */
    CHECK_STR(fmt_ts(out, 9), "1970-01-31 23:59:59.999999999");
    CHECK_INT(sl_ts_add_months(-1, -10, &out), 0);
    CHECK_STR(fmt_ts(out, 9), "1969-02-28 23:59:59.999999999");

    /* range: leaving the timestamp span or int64 months */
    out = 777;
    CHECK_INT(sl_ts_add_months(INT64_MAX, 1, &out), -1);
    CHECK_INT(sl_ts_add_months(INT64_MIN, -1, &out), -1);
    CHECK_INT(sl_ts_add_months(0, INT64_MAX, &out), -1);
    CHECK_INT(sl_ts_add_months(0, INT64_MIN, &out), -1);
    CHECK_INT(sl_ts_add_months(0, 12 * 300, &out), -1);
    CHECK_INT(out, 777);
    CHECK_INT(sl_ts_add_months(0, 12 * 292, &out), 0); /* 2262-01-01 */
    CHECK_STR(fmt_ts(out, 0), "2262-01-01 00:00:00");
    CHECK_INT(sl_ts_add_months(ts_of(2262, 3, 11, 23, 47, 16, 854775807), 1, &out), 0);
    CHECK_INT(out, INT64_MAX);
    CHECK_INT(sl_ts_add_months(ts_of(2262, 3, 11, 23, 47, 16, 854775808), 1, &out), -1);
    CHECK_INT(sl_ts_add_months(ts_of(1677, 10, 21, 0, 12, 43, 145224192), -1, &out), 0);
    CHECK_INT(out, INT64_MIN);

    CHECK_INT(sl_date_add_months(sl_days_from_civil(2026, 1, 31), 1, &out), 0);
    CHECK_INT(out, sl_days_from_civil(2026, 2, 28));
    CHECK_INT(sl_date_add_months(sl_days_from_civil(2024, 1, 31), 1, &out), 0);
    CHECK_INT(out, sl_days_from_civil(2024, 2, 29));
    CHECK_INT(sl_date_add_months(sl_days_from_civil(2026, 3, 31), -1, &out), 0);
    CHECK_INT(out, sl_days_from_civil(2026, 2, 28));
    CHECK_INT(sl_date_add_months(sl_days_from_civil(2026, 3, 31), -25, &out), 0);
    CHECK_INT(out, sl_days_from_civil(2024, 2, 29));
    CHECK_INT(sl_date_add_months(sl_days_from_civil(9999, 12, 31), 1, &out), 0);
    CHECK_INT(out, sl_days_from_civil(10000, 1, 31));
    CHECK_INT(sl_date_add_months(0, 12 * 1000000LL, &out), 0);
    CHECK_INT(out, sl_days_from_civil(1001970, 1, 1));
    CHECK_INT(sl_date_add_months(0, INT64_MAX, &out), -1);
    CHECK_INT(sl_date_add_months(0, INT64_MIN, &out), -1);
    CHECK_INT(sl_date_add_months(INT64_MAX, 0, &out), -1);
    CHECK_INT(sl_date_add_months(INT64_MIN, INT64_MIN, &out), -1);
}

static void t_add_millis(void)
{
    int64_t out = 0;
    CHECK_INT(sl_ts_add_millis(0, 1, &out), 0);
    CHECK_INT(out, 1000000);
    CHECK_INT(sl_ts_add_millis(0, -1, &out), 0);
    CHECK_STR(fmt_ts(out, 3), "1969-12-31 23:59:59.999");
    CHECK_INT(sl_ts_add_millis(1769860800123000000LL, 86400000, &out), 0);
    CHECK_STR(fmt_ts(out, 3), "2026-02-01 12:00:00.123");
    out = 777;
    CHECK_INT(sl_ts_add_millis(INT64_MAX, 1, &out), -1);
    CHECK_INT(sl_ts_add_millis(INT64_MIN, -1, &out), -1);
    CHECK_INT(sl_ts_add_millis(0, INT64_MAX, &out), -1);
    CHECK_INT(sl_ts_add_millis(0, INT64_MIN, &out), -1);
    CHECK_INT(sl_ts_add_millis(0, INT64_MAX / SL_NANOS_PER_MILLI + 1, &out), -1);
    CHECK_INT(out, 777);
    CHECK_INT(sl_ts_add_millis(0, INT64_MAX / SL_NANOS_PER_MILLI, &out), 0);
    CHECK_INT(out, INT64_MAX / SL_NANOS_PER_MILLI * SL_NANOS_PER_MILLI);
    CHECK_INT(sl_ts_add_millis(INT64_MIN + 1000000, -1, &out), 0);
    CHECK_INT(out, INT64_MIN);
    CHECK_INT(sl_ts_add_millis(INT64_MIN + 999999, -1, &out), -1);
}

/* The real clock: only a sanity bound (2024 .. 2200). */
static void t_now(void)
{
    int64_t a = sl_now_nanos(), b = sl_now_nanos();
    CHECK(a > ts_of(2024, 1, 1, 0, 0, 0, 0));
    CHECK(a < ts_of(2200, 1, 1, 0, 0, 0, 0));
    CHECK(b >= a - SL_NANOS_PER_SEC);
}

SL_TESTS(t_calendar_known, t_calendar_walk, t_calendar_extremes, t_date_text, t_time_text,
         t_ts_text, t_ts_range, t_ts_roundtrip, t_truncate, t_iso, t_pattern_format,
         t_pattern_parse, t_pattern_roundtrip, t_add_months, t_add_millis, t_now)
