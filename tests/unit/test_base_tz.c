/*
** test_base_tz.c — time zones (sl_tz.h): names (regions, Java's GMT
** offsets, refused forms), offsets of real zones against the C library's
** localtime_r as an independent reader (1900 .. 2100, so the POSIX footer
** rule past 2037 is checked too), java.time's gap and overlap rules, and the
** TZif reader on truncated, inconsistent and hand-built files.
**
** This process is single-threaded, so setenv("TZ") is fine here (the
** engine itself never uses it).
*/
#include "sl_test.h"

#include "../../base/sl_base.h"
#include "../../base/sl_time.h"
#include "../../base/sl_tz.h"

#include <time.h>

static int64_t ts_of(int64_t y, int mo, int d, int h, int mi, int s)
{
    return (sl_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s) * SL_NANOS_PER_SEC;
}

static sl_tz *open_ok(const char *name)
{
    sl_error err = SL_ERROR_INIT;
    sl_tz *tz = NULL;
    int rc = sl_tz_open(name, &tz, &err);
    if (rc != 0)
        fprintf(stderr, "open %s: %s\n", name, err.message);
    sl_error_reset(&err);
    return tz;
}

static void t_names(void)
{
    sl_tz *tz = open_ok("UTC");
    REQUIRE(tz);
    CHECK_STR(sl_tz_name(tz), "UTC");
    CHECK_INT(sl_tz_offset(tz, 1700000000), 0);
    sl_tz_free(tz);
    struct {
        const char *in, *canon;
        int32_t off;
    } fixed[] = {{"GMT+8", "GMT+08:00", 8 * 3600},      {"GMT+08:00", "GMT+08:00", 8 * 3600},
                 {"GMT-03:00", "GMT-03:00", -3 * 3600}, {"GMT+0530", "GMT+05:30", 19800},
                 {"GMT-18", "GMT-18:00", -18 * 3600},   {"GMT+0", "GMT", 0}};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        tz = open_ok(fixed[i].in);
        REQUIRE(tz);
        CHECK_STR(sl_tz_name(tz), fixed[i].canon);
        CHECK_INT(sl_tz_offset(tz, 0), fixed[i].off);
        sl_tz_free(tz);
    }
    const char *bad[] = {"Mars/Olympus", "UTC+8", "+08:00", "Z", "GMT+19", "GMT+18:30",
                         "GMT+8:30", "GMT+830", "GMT+", "utc", "europe/berlin", "../etc/passwd",
                         "Europe/../Europe/Berlin", "/usr/share/zoneinfo/UTC", "posix/Europe/Berlin",
                         "right/UTC", "Europe", "zone.tab", "", "Europe//Berlin", "Europe/Berlin/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sl_error err = SL_ERROR_INIT;
        tz = (sl_tz *)1;
        CHECK_INT(sl_tz_open(bad[i], &tz, &err), -1);
        CHECK(tz == NULL);
        if (strcmp(err.sqlstate, "22023") != 0)
            fprintf(stderr, "name %s: %s %s\n", bad[i], err.sqlstate, err.message);
        CHECK_STR(err.sqlstate, "22023");
        CHECK(err.hint != NULL);
        sl_error_reset(&err);
    }
    tz = open_ok("Europe/Berlin");
    REQUIRE(tz);
    CHECK_STR(sl_tz_name(tz), "Europe/Berlin");
    sl_tz_free(tz);
}

/* Offsets of every 6th hour-ish instant against glibc under TZ=zone. */
static void t_against_libc(void)
{
    const char *zones[] = {"Europe/Berlin", "America/Los_Angeles", "Asia/Shanghai",
                           "Australia/Sydney", "America/Sao_Paulo", "Asia/Kolkata",
                           "Pacific/Chatham", "Africa/Casablanca", "Etc/GMT+8"};
    char *old = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    for (size_t z = 0; z < sizeof zones / sizeof zones[0]; z++) {
        sl_tz *tz = open_ok(zones[z]);
        REQUIRE(tz);
        setenv("TZ", zones[z], 1);
        tzset();
        int bad = 0;
        /* 1901 .. 2100 in steps of 3 h 17 min (crosses every transition's
        ** neighbourhood at many times of day). */
        for (int64_t t = -2177452800LL; t < 4102444800LL && bad < 5; t += 3 * 3600 + 17 * 60) {
            time_t tt = (time_t)t;
            struct tm tm;
            localtime_r(&tt, &tm);
            if (sl_tz_offset(tz, t) != tm.tm_gmtoff) {
                fprintf(stderr, "%s at %lld: %d, libc %ld\n", zones[z], (long long)t,
                        sl_tz_offset(tz, t), tm.tm_gmtoff);
                bad++;
            }
        }
        CHECK_INT(bad, 0);
        sl_tz_free(tz);
    }
    if (old) {
        setenv("TZ", old, 1);
        free(old);
    } else {
        unsetenv("TZ");
    }
    tzset();
}

static void t_gap_overlap(void)
{
    sl_tz *tz = open_ok("Europe/Berlin");
    REQUIRE(tz);
    int64_t out;
    /* Ordinary times. */
    CHECK_INT(sl_tz_from_local(tz, ts_of(2026, 1, 15, 12, 0, 0), &out), 0);
    CHECK_INT(out, ts_of(2026, 1, 15, 11, 0, 0));
    CHECK_INT(sl_tz_to_local(tz, ts_of(2026, 7, 1, 10, 0, 0), &out), 0);
    CHECK_INT(out, ts_of(2026, 7, 1, 12, 0, 0));
    /* Gap: 2026-03-29 02:00 -> 03:00; 02:30 is 03:30 CEST = 01:30 UTC. */
    CHECK_INT(sl_tz_from_local(tz, ts_of(2026, 3, 29, 2, 30, 0), &out), 0);
    CHECK_INT(out, ts_of(2026, 3, 29, 1, 30, 0));
    CHECK_INT(sl_tz_to_local(tz, out, &out), 0);
    CHECK_INT(out, ts_of(2026, 3, 29, 3, 30, 0));
    /* Overlap: 2026-10-25 03:00 -> 02:00; 02:30 takes CEST (+2) = 00:30 UTC. */
    CHECK_INT(sl_tz_from_local(tz, ts_of(2026, 10, 25, 2, 30, 0), &out), 0);
    CHECK_INT(out, ts_of(2026, 10, 25, 0, 30, 0));
    CHECK_INT(sl_tz_to_local(tz, ts_of(2026, 10, 25, 1, 30, 0), &out), 0);
    CHECK_INT(out, ts_of(2026, 10, 25, 2, 30, 0)); /* the second 02:30 */
    /* java.util.Calendar's rule: the later offset in an overlap, the same
    ** as java.time in a gap and elsewhere. */
    CHECK_INT(sl_tz_from_local_later(tz, ts_of(2026, 10, 25, 2, 30, 0), &out), 0);
    CHECK_INT(out, ts_of(2026, 10, 25, 1, 30, 0));
    CHECK_INT(sl_tz_from_local_later(tz, ts_of(2026, 3, 29, 2, 30, 0), &out), 0);
    CHECK_INT(out, ts_of(2026, 3, 29, 1, 30, 0));
    CHECK_INT(sl_tz_from_local_later(tz, ts_of(2026, 7, 1, 12, 0, 0), &out), 0);
    CHECK_INT(out, ts_of(2026, 7, 1, 10, 0, 0));
    /* Past the file's transitions (2037): the footer rule. 2050-03-27 is
    ** the last Sunday of March. */
    CHECK_INT(sl_tz_from_local(tz, ts_of(2050, 3, 27, 2, 30, 0), &out), 0);
    CHECK_INT(out, ts_of(2050, 3, 27, 1, 30, 0));
    /* Range limits. */
    CHECK_INT(sl_tz_to_local(tz, INT64_MAX - 10, &out), -1);
    CHECK_INT(sl_tz_from_local(tz, INT64_MIN + 10, &out), -1);
    sl_tz_free(tz);
    tz = open_ok("America/Los_Angeles");
    REQUIRE(tz);
    /* 2026-03-08 02:00 PST -> 03:00 PDT: 02:15 is 03:15 PDT = 10:15 UTC. */
    CHECK_INT(sl_tz_from_local(tz, ts_of(2026, 3, 8, 2, 15, 0), &out), 0);
    CHECK_INT(out, ts_of(2026, 3, 8, 10, 15, 0));
    /* 2026-11-01 01:30 happens twice: PDT (-7) first = 08:30 UTC. */
    CHECK_INT(sl_tz_from_local(tz, ts_of(2026, 11, 1, 1, 30, 0), &out), 0);
    CHECK_INT(out, ts_of(2026, 11, 1, 8, 30, 0));
    sl_tz_free(tz);
    /* Fractions before 1970 keep their nanoseconds. */
    tz = open_ok("GMT+08:00");
    CHECK_INT(sl_tz_to_local(tz, -1, &out), 0);
    CHECK_INT(out, 8 * 3600 * SL_NANOS_PER_SEC - 1);
    CHECK_INT(sl_tz_from_local(tz, out, &out), 0);
    CHECK_INT(out, -1);
    sl_tz_free(tz);
    /* NULL is UTC. */
    CHECK_INT(sl_tz_to_local(NULL, 5, &out), 0);
    CHECK_INT(out, 5);
}

static uint8_t *read_zone(const char *name, size_t *len)
{
    char *path = sl_sprintf("/usr/share/zoneinfo/%s", name);
    char *buf = NULL;
    sl_error err = SL_ERROR_INIT;
    int rc = sl_fs_read_file(path, &buf, len, &err);
    sl_error_reset(&err);
    sl_free(path);
    return rc == 0 ? (uint8_t *)buf : NULL;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Every prefix of a real file is refused cleanly (ASan checks that nothing
** is read past it: each prefix is an exact-size copy). */
static void t_truncated(void)
{
    size_t len;
    uint8_t *full = read_zone("Europe/Berlin", &len);
    REQUIRE(full);
    sl_tz *tz = NULL;
    sl_error err = SL_ERROR_INIT;
    CHECK_INT(sl_tz_parse_tzif(full, len, "Europe/Berlin", &tz, &err), 0);
    sl_tz_free(tz);
    int refused = 0;
    for (size_t n = 0; n < len; n++) {
        uint8_t *cut = sl_malloc(n ? n : 1);
        memcpy(cut, full, n);
        tz = NULL;
        if (sl_tz_parse_tzif(cut, n, "Europe/Berlin", &tz, &err) == 0) {
            fprintf(stderr, "prefix of %zu bytes accepted\n", n);
            sl_tz_free(tz);
        } else {
            refused += strcmp(err.sqlstate, "XX001") == 0 && strstr(err.message, "Europe/Berlin");
        }
        sl_error_reset(&err);
        sl_free(cut);
    }
    CHECK_INT(refused, (long long)len);
    sl_free(full);
}

static int parse_fails(const uint8_t *data, size_t len, const char *state)
{
    sl_tz *tz = NULL;
    sl_error err = SL_ERROR_INIT;
    int rc = sl_tz_parse_tzif(data, len, "x", &tz, &err);
    int ok = rc == -1 && tz == NULL && strcmp(err.sqlstate, state) == 0;
    if (!ok)
        fprintf(stderr, "expected %s, got rc %d %s\n", state, rc, err.message ? err.message : "");
    sl_tz_free(tz);
    sl_error_reset(&err);
    return ok;
}

/* Lengths and values that lie: huge counts, indexes past the types,
** transitions out of order, a bad footer, leap seconds. */
static void t_corrupt(void)
{
    size_t len;
    uint8_t *full = read_zone("America/Los_Angeles", &len);
    REQUIRE(full);
    uint8_t *b = sl_malloc(len);
    /* v1 timecnt (offset 32) huge. */
    memcpy(b, full, len);
    put32(b + 32, 0xFFFFFFFFu);
    CHECK(parse_fails(b, len, "XX001"));
    /* typecnt 0. */
    memcpy(b, full, len);
    put32(b + 36, 0);
    CHECK(parse_fails(b, len, "XX001"));
    /* Not TZif. */
    memcpy(b, full, len);
    b[0] = 'X';
    CHECK(parse_fails(b, len, "XX001"));
    /* Unknown version byte. */
    memcpy(b, full, len);
    b[4] = '1';
    CHECK(parse_fails(b, len, "XX001"));
    /* The version 2 header's type count, past the version 1 block. */
    memcpy(b, full, len);
    size_t v1 = 44 + (size_t)full[35] * 5 + (size_t)full[39] * 6 + full[43] + (size_t)full[31] * 8 +
                full[27] + full[23]; /* counts < 256 in this file */
    REQUIRE(v1 + 44 < len && memcmp(b + v1, "TZif", 4) == 0);
    put32(b + v1 + 36, 0x10000000u);
    CHECK(parse_fails(b, len, "XX001"));
    sl_free(b);
    sl_free(full);
}

/* A hand-built version 2 file: no transitions, one type, a footer rule
** (what a "slim" file holds for a zone with a rule). */
static size_t build_v2(uint8_t *buf, uint32_t timecnt, const char *footer, uint32_t leapcnt)
{
    memset(buf, 0, 512);
    size_t p = 0;
    /* v1 header: empty block (typecnt 1, charcnt 4 as RFC 8536 wants). */
    memcpy(buf, "TZif2", 5);
    put32(buf + 36, 1);
    put32(buf + 40, 4);
    p = 44 + 6 + 4;
    memcpy(buf + 44 + 6, "UTC", 4);
    memcpy(buf + p, "TZif2", 5);
    put32(buf + p + 28, leapcnt);
    put32(buf + p + 32, timecnt);
    put32(buf + p + 36, 1);
    put32(buf + p + 40, 4);
    p += 44;
    for (uint32_t i = 0; i < timecnt; i++) { /* times 1000, 1000, ...: out of order when > 1 */
        memset(buf + p, 0, 8);
        buf[p + 6] = 0x03;
        buf[p + 7] = 0xE8;
        p += 8;
    }
    p += timecnt; /* indexes 0 */
    put32(buf + p, (uint32_t)3600); /* +1 h */
    p += 6;
    memcpy(buf + p, "CET", 4);
    p += 4;
    p += (size_t)leapcnt * 12;
    buf[p++] = '\n';
    size_t fl = strlen(footer);
    memcpy(buf + p, footer, fl);
    p += fl;
    buf[p++] = '\n';
    return p;
}

static void t_hand_built(void)
{
    uint8_t buf[512];
    sl_error err = SL_ERROR_INIT;
    sl_tz *tz = NULL;
    size_t n = build_v2(buf, 0, "CET-1CEST,M3.5.0,M10.5.0/3", 0);
    REQUIRE(sl_tz_parse_tzif(buf, n, "slim", &tz, &err) == 0);
    CHECK_INT(sl_tz_offset(tz, ts_of(2026, 1, 1, 0, 0, 0) / SL_NANOS_PER_SEC), 3600);
    CHECK_INT(sl_tz_offset(tz, ts_of(2026, 7, 1, 0, 0, 0) / SL_NANOS_PER_SEC), 7200);
    /* The switch: 2026-03-29 01:00 UTC. */
    CHECK_INT(sl_tz_offset(tz, ts_of(2026, 3, 29, 0, 59, 59) / SL_NANOS_PER_SEC), 3600);
    CHECK_INT(sl_tz_offset(tz, ts_of(2026, 3, 29, 1, 0, 0) / SL_NANOS_PER_SEC), 7200);
    CHECK_INT(sl_tz_offset(tz, ts_of(2026, 10, 25, 0, 59, 59) / SL_NANOS_PER_SEC), 7200);
    CHECK_INT(sl_tz_offset(tz, ts_of(2026, 10, 25, 1, 0, 0) / SL_NANOS_PER_SEC), 3600);
    sl_tz_free(tz);
    /* Southern hemisphere rule (Sydney): dst from October to April. */
    n = build_v2(buf, 0, "AEST-10AEDT,M10.1.0,M4.1.0/3", 0);
    REQUIRE(sl_tz_parse_tzif(buf, n, "syd", &tz, &err) == 0);
    CHECK_INT(sl_tz_offset(tz, ts_of(2026, 1, 1, 0, 0, 0) / SL_NANOS_PER_SEC), 11 * 3600);
    CHECK_INT(sl_tz_offset(tz, ts_of(2026, 7, 1, 0, 0, 0) / SL_NANOS_PER_SEC), 10 * 3600);
    sl_tz_free(tz);
    /* No footer rule: type 0 everywhere. */
    n = build_v2(buf, 0, "", 0);
    REQUIRE(sl_tz_parse_tzif(buf, n, "plain", &tz, &err) == 0);
    CHECK_INT(sl_tz_offset(tz, 0), 3600);
    sl_tz_free(tz);
    /* Broken footers, out-of-order transitions, leap seconds. */
    n = build_v2(buf, 0, "CET-1CEST,M13.5.0,M10.5.0", 0);
    CHECK(parse_fails(buf, n, "XX001"));
    n = build_v2(buf, 0, "C-1", 0);
    CHECK(parse_fails(buf, n, "XX001"));
    n = build_v2(buf, 0, "<+08", 0);
    CHECK(parse_fails(buf, n, "XX001"));
    n = build_v2(buf, 0, "CET-1", 0);
    CHECK(parse_fails(buf, n - 1, "XX001")); /* unterminated footer */
    n = build_v2(buf, 2, "CET-1", 0);
    CHECK(parse_fails(buf, n, "XX001"));
    n = build_v2(buf, 1, "CET-1", 0);
    buf[44 + 6 + 4 + 44 + 8] = 5; /* transition type index past typecnt */
    CHECK(parse_fails(buf, n, "XX001"));
    n = build_v2(buf, 0, "CET-1", 1);
    CHECK(parse_fails(buf, n, "22023"));
}

SL_TESTS(t_names, t_against_libc, t_gap_overlap, t_truncated, t_corrupt, t_hand_built)
