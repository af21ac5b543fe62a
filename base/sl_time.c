/*
** sl_time.c — the calendar, SQL date/time text forms, Java/Flink date
** patterns and interval arithmetic over the integer representations fixed in
** sl_time.h.
**
** Main routines:
**   sl_days_from_civil / sl_civil_from_days   proleptic Gregorian <-> day number
**                                             (Howard Hinnant's era arithmetic)
**   sl_date_* / sl_time_* / sl_ts_*           SQL literal parse and format
**   sl_ts_format_pattern / sl_ts_parse_pattern  SimpleDateFormat-style patterns
**   sl_ts_add_months / sl_date_add_months     month arithmetic, day clamped
**   sl_ts_add_millis                          overflow-checked millis
**
** Conventions: every divide that can see a negative operand is a floor divide
** (times before 1970 format and truncate like those after); every sum or
** product that can leave int64 goes through __builtin_*_overflow. Input text
** is (pointer, length) and never read past length.
**
** Pattern decisions (Flink's DATE_FORMAT / TO_TIMESTAMP follow Java):
**   - 'S' repeated n times is n fraction-of-second digits (java.time), so
**     SSS is milliseconds; parsing needs exactly n digits.
**   - 'yy' parses with a fixed window: 00..69 -> 2000..2069, 70..99 ->
**     1970..1999. It formats as the year modulo 100.
**   - Numeric fields of 2+ letters parse exactly that many digits (so
**     "yyyyMMdd" works); a single letter takes 1 or 2 digits (y: 1..4).
**   - Fields absent from a parse pattern default to 1970-01-01 00:00:00.
**   - Month and day names are English; parsing them ignores ASCII case.
*/
#include "sl_time.h"

#include <errno.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------
** Integer helpers.
*/

/* Floor division and modulo for b > 0 (no overflow for any a). */
static int64_t sl__floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if (a % b < 0)
        q--;
    return q;
}

static int64_t sl__floor_mod(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return r < 0 ? r + b : r;
}

static const int64_t sl__pow10[10] = {
    1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
};

static int sl__clamp_precision(int p)
{
    return p < 0 ? 0 : p > 9 ? 9 : p;
}

/* ------------------------------------------------------------------------
** Calendar.
*/

bool sl_is_leap_year(int64_t year)
{
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int sl_days_in_month(int64_t year, int month)
{
    static const int dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12)
        return 0;
    if (month == 2 && sl_is_leap_year(year))
        return 29;
    return dim[month - 1];
}

/* Days since 1970-01-01 of y-m-d (m 1..12, d 1..31). Exact for |y| up to
** 10^12; wider years give a meaningless (but defined) number. The era
** product runs in unsigned arithmetic so no input is undefined behaviour. */
int64_t sl_days_from_civil(int64_t y, int m, int d)
{
    int64_t mm = m, dd = d;
    if (mm <= 2)
        y = y == INT64_MIN ? y : y - 1;
    int64_t era = sl__floor_div(y, 400);
    int64_t yoe = sl__floor_mod(y, 400);                           /* 0..399 */
    int64_t doy = (153 * (mm > 2 ? mm - 3 : mm + 9) + 2) / 5 + dd - 1; /* 0..365 */
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;           /* 0..146096 */
    uint64_t r = (uint64_t)era * 146097u + (uint64_t)doe - 719468u;
    return (int64_t)r;
}

/* Civil date of a day number; total over int64 (years up to ~2.5e16). */
void sl_civil_from_days(int64_t days, int64_t *y, int *m, int *d)
{
    /* Shift the epoch to 0000-03-01 without overflowing: split first. */
    int64_t era = sl__floor_div(days, 146097);
    int64_t doe = sl__floor_mod(days, 146097) + 719468;
    era += doe / 146097;
    doe %= 146097;                                                        /* 0..146096 */
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* 0..399 */
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               /* 0..365 */
    int64_t mp = (5 * doy + 2) / 153;                                    /* 0..11 */
    int64_t day = doy - (153 * mp + 2) / 5 + 1;
    int64_t mon = mp < 10 ? mp + 3 : mp - 9;
    *y = era * 400 + yoe + (mon <= 2);
    *m = (int)mon;
    *d = (int)day;
}

/* Day of week, 0 = Sunday (1970-01-01 was a Thursday). */
static int sl__day_of_week(int64_t days)
{
    return (int)sl__floor_mod(days + 4, 7);
}

/* days * SL_NANOS_PER_DAY + tod (0 <= tod < a day), or -1 when it leaves
** int64; *out is written only on success. Negative days are combined as
** (days + 1) * day + (tod - day): the day 1677-09-21 itself starts before
** INT64_MIN although its later instants are in range. */
static int sl__combine(int64_t days, int64_t tod, int64_t *out)
{
    int64_t base, v;
    if (days < 0) {
        days++;
        tod -= SL_NANOS_PER_DAY;
    }
    if (__builtin_mul_overflow(days, SL_NANOS_PER_DAY, &base) ||
        __builtin_add_overflow(base, tod, &v))
        return -1;
    *out = v;
    return 0;
}

/* ------------------------------------------------------------------------
** Text scanning over (s, len) with a cursor.
*/

static bool sl__is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Exactly n digits at *pos into *out. */
static int sl__digits(const char *s, size_t len, size_t *pos, int n, int64_t *out)
{
    int64_t v = 0;
    if (len - *pos < (size_t)n)
        return -1;
    for (int i = 0; i < n; i++) {
        char c = s[*pos + (size_t)i];
        if (!sl__is_digit(c))
            return -1;
        v = v * 10 + (c - '0');
    }
    *pos += (size_t)n;
    *out = v;
    return 0;
}

/* min..max digits (greedy) at *pos into *out. */
static int sl__digits_range(const char *s, size_t len, size_t *pos, int min, int max, int64_t *out)
{
    int64_t v = 0;
    int n = 0;
    while (n < max && *pos < len && sl__is_digit(s[*pos])) {
        v = v * 10 + (s[*pos] - '0');
        (*pos)++;
        n++;
    }
    if (n < min)
        return -1;
    *out = v;
    return 0;
}

static int sl__expect(const char *s, size_t len, size_t *pos, char c)
{
    if (*pos >= len || s[*pos] != c)
        return -1;
    (*pos)++;
    return 0;
}

/* YYYY-MM-DD at *pos, validated, into a day number. */
static int sl__scan_date(const char *s, size_t len, size_t *pos, int64_t *days)
{
    int64_t y, m, d;
    if (sl__digits(s, len, pos, 4, &y) || sl__expect(s, len, pos, '-') ||
        sl__digits(s, len, pos, 2, &m) || sl__expect(s, len, pos, '-') ||
        sl__digits(s, len, pos, 2, &d))
        return -1;
    if (m < 1 || m > 12 || d < 1 || d > sl_days_in_month(y, (int)m))
        return -1;
    *days = sl_days_from_civil(y, (int)m, (int)d);
    return 0;
}

/* HH:MM[:SS[.f{1,9}]] at *pos into nanoseconds since midnight. */
static int sl__scan_tod(const char *s, size_t len, size_t *pos, int64_t *nanos)
{
    int64_t h, mi, sec = 0, frac = 0;
    if (sl__digits(s, len, pos, 2, &h) || sl__expect(s, len, pos, ':') ||
        sl__digits(s, len, pos, 2, &mi))
        return -1;
    if (*pos < len && s[*pos] == ':') {
        (*pos)++;
        if (sl__digits(s, len, pos, 2, &sec))
            return -1;
        if (*pos < len && s[*pos] == '.') {
            (*pos)++;
            size_t start = *pos;
            if (sl__digits_range(s, len, pos, 1, 9, &frac))
                return -1;
            frac *= sl__pow10[9 - (*pos - start)];
        }
    }
    if (h > 23 || mi > 59 || sec > 59)
        return -1;
    *nanos = ((h * 60 + mi) * 60 + sec) * SL_NANOS_PER_SEC + frac;
    return 0;
}

/* ------------------------------------------------------------------------
** Text formatting into a caller's buffer.
*/

/* v (>= 0) as at least width digits, zero-padded; returns chars written. */
static int sl__put_uint(char *buf, uint64_t v, int width)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n < width)
        tmp[n++] = '0';
    for (int i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    return n;
}

/* Year as Java's LocalDate prints it: 4 digits, '-' before negative years,
** '+' before years past 9999. */
static int sl__put_year(char *buf, int64_t y)
{
    int n = 0;
    if (y < 0) {
        buf[n++] = '-';
        return n + sl__put_uint(buf + n, 0 - (uint64_t)y, 4);
    }
    if (y > 9999)
        buf[n++] = '+';
    return n + sl__put_uint(buf + n, (uint64_t)y, 4);
}

static int sl__put_date(char *buf, int64_t days)
{
    int64_t y;
    int m, d, n;
    sl_civil_from_days(days, &y, &m, &d);
    n = sl__put_year(buf, y);
    buf[n++] = '-';
    n += sl__put_uint(buf + n, (uint64_t)m, 2);
    buf[n++] = '-';
    n += sl__put_uint(buf + n, (uint64_t)d, 2);
    return n;
}

/* HH:MM:SS[.f] of tod (0 .. SL_NANOS_PER_DAY-1). */
static int sl__put_tod(char *buf, int64_t tod, int precision)
{
    int64_t secs = tod / SL_NANOS_PER_SEC, frac = tod % SL_NANOS_PER_SEC;
    int n = 0;
    n += sl__put_uint(buf + n, (uint64_t)(secs / 3600), 2);
    buf[n++] = ':';
    n += sl__put_uint(buf + n, (uint64_t)(secs / 60 % 60), 2);
    buf[n++] = ':';
    n += sl__put_uint(buf + n, (uint64_t)(secs % 60), 2);
    precision = sl__clamp_precision(precision);
    if (precision > 0) {
        buf[n++] = '.';
        n += sl__put_uint(buf + n, (uint64_t)(frac / sl__pow10[9 - precision]), precision);
    }
    return n;
}

/* ------------------------------------------------------------------------
** SQL text forms.
*/

int sl_date_parse(const char *s, size_t len, int64_t *days)
{
    size_t pos = 0;
    int64_t v;
    if (sl__scan_date(s, len, &pos, &v) || pos != len)
        return -1;
    *days = v;
    return 0;
}

int sl_date_format(int64_t days, char *buf)
{
    int n = sl__put_date(buf, days);
    buf[n] = '\0';
    return n;
}

int sl_time_parse(const char *s, size_t len, int64_t *nanos)
{
    size_t pos = 0;
    int64_t v;
    if (sl__scan_tod(s, len, &pos, &v) || pos != len)
        return -1;
    *nanos = v;
    return 0;
}

/* A value outside one day is reduced modulo a day (defensive; never fails). */
int sl_time_format(int64_t nanos, int precision, char *buf)
{
    int n = sl__put_tod(buf, sl__floor_mod(nanos, SL_NANOS_PER_DAY), precision);
    buf[n] = '\0';
    return n;
}

int sl_ts_parse(const char *s, size_t len, int64_t *nanos)
{
    size_t pos = 0;
    int64_t days, tod = 0, v;
    if (sl__scan_date(s, len, &pos, &days))
        return -1;
    if (pos < len) {
        if (s[pos] != ' ' && s[pos] != 'T')
            return -1;
        pos++;
        if (sl__scan_tod(s, len, &pos, &tod))
            return -1;
    }
    if (pos != len)
        return -1;
    if (sl__combine(days, tod, &v))
        return -2;
    *nanos = v;
    return 0;
}

/* Date, separator, time of day; the shared body of the two formatters. */
static int sl__put_ts(char *buf, int64_t nanos, int precision, char sep)
{
    int n = sl__put_date(buf, sl__floor_div(nanos, SL_NANOS_PER_DAY));
    buf[n++] = sep;
    n += sl__put_tod(buf + n, sl__floor_mod(nanos, SL_NANOS_PER_DAY), precision);
    return n;
}

int sl_ts_format(int64_t nanos, int precision, char *buf)
{
    int n = sl__put_ts(buf, nanos, precision, ' ');
    buf[n] = '\0';
    return n;
}

int sl_ts_format_iso(int64_t nanos, int precision, bool zulu, char *buf)
{
    int n = sl__put_ts(buf, nanos, precision, 'T');
    if (zulu)
        buf[n++] = 'Z';
    buf[n] = '\0';
    return n;
}

/* Floor to a multiple of 10^(9-p). The one value whose floor leaves int64
** (the first instants of 1677-09-21 at p <= 8) rounds up instead. */
static inline int64_t sl__truncate_to(int64_t nanos, int64_t unit)
{
    int64_t r = sl__floor_mod(nanos, unit), out;
    if (__builtin_sub_overflow(nanos, r, &out))
        return nanos + (unit - r); /* r > 0 here and nanos is near INT64_MIN */
    return out;
}

int64_t sl_time_truncate(int64_t nanos, int precision)
{
    /* The common precisions divide by a constant, which the compiler turns
    ** into a multiply: a division by a unit read from the table was a sixth
    ** of a datagen source's time. */
    switch (sl__clamp_precision(precision)) {
    case 9: return nanos;
    case 6: return sl__truncate_to(nanos, 1000);
    case 3: return sl__truncate_to(nanos, 1000000);
    case 0: return sl__truncate_to(nanos, 1000000000);
    default: return sl__truncate_to(nanos, sl__pow10[9 - sl__clamp_precision(precision)]);
    }
}

/* ------------------------------------------------------------------------
** Java/Flink patterns. A pattern is read as a sequence of tokens: a field
** (a run of one letter) or literal text (unquoted non-letters, quoted text,
** or '' for a quote).
*/

typedef struct sl__ptok {
    char letter;     /* field letter, or 0 for literal text */
    int count;       /* field width (letters in the run) */
    const char *lit; /* literal text (not NUL-terminated) */
    size_t lit_len;  /* its length */
} sl__ptok;

typedef struct sl__pscan {
    const char *p; /* next pattern character */
    bool quoted;   /* inside '...' */
} sl__pscan;

static const char *const sl__month_names[12] = {
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December",
};
static const char *const sl__day_names[7] = {
    "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
};

/* Whether count letters c form a supported field. */
static bool sl__field_ok(char c, int count)
{
    switch (c) {
    case 'y': return count <= 4;
    case 'M': return count <= 4;
    case 'd': case 'H': case 'h': case 'm': case 's': return count <= 2;
    case 'S': return count <= 9;
    case 'E': return count <= 4;
    case 'a': return count == 1;
    default: return false;
    }
}

/* Next token: 1 with *t set, 0 at the end, -1 for an invalid pattern
** (unknown letter or width, unterminated quote). */
static int sl__pattern_next(sl__pscan *ps, sl__ptok *t)
{
    const char *p = ps->p;
    t->letter = 0;
    t->count = 0;
    for (;;) {
        if (*p == '\0')
            return ps->quoted ? -1 : 0;
        if (*p == '\'') {
            if (p[1] == '\'') { /* '' is a quote, inside or outside quotes */
                t->lit = p;
                t->lit_len = 1;
                ps->p = p + 2;
                return 1;
            }
            ps->quoted = !ps->quoted;
            p++;
            continue;
        }
        break;
    }
    const char *start = p;
    if (ps->quoted) {
        while (*p && *p != '\'')
            p++;
    } else if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) {
        while (*p == *start)
            p++;
        if (p - start > 64 || !sl__field_ok(*start, (int)(p - start)))
            return -1;
        t->letter = *start;
        t->count = (int)(p - start);
    } else {
        while (*p && *p != '\'' && !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
            p++;
    }
    t->lit = start;
    t->lit_len = (size_t)(p - start);
    ps->p = p;
    return 1;
}

/* Broken-down timestamp. */
typedef struct sl__tm {
    int64_t year;    /* proleptic year */
    int month, day;  /* 1..12, 1..31 */
    int hour;        /* 0..23 */
    int minute, sec; /* 0..59 */
    int64_t frac;    /* nanoseconds 0..999999999 */
    int64_t days;    /* day number (for the day of week) */
} sl__tm;

static void sl__append_num(sl_strbuf *sb, int64_t v, int width)
{
    char buf[32];
    int n = 0;
    if (v < 0) {
        buf[n++] = '-';
        n += sl__put_uint(buf + n, 0 - (uint64_t)v, width);
    } else {
        n = sl__put_uint(buf, (uint64_t)v, width);
    }
    sl_strbuf_append_n(sb, buf, (size_t)n);
}

static void sl__format_field(sl_strbuf *sb, const sl__ptok *t, const sl__tm *tm)
{
    switch (t->letter) {
    case 'y':
        if (t->count == 2)
            sl__append_num(sb, sl__floor_mod(tm->year, 100), 2);
        else
            sl__append_num(sb, tm->year, t->count);
        break;
    case 'M':
        if (t->count >= 3)
            sl_strbuf_append_n(sb, sl__month_names[tm->month - 1],
                               t->count == 3 ? 3 : strlen(sl__month_names[tm->month - 1]));
        else
            sl__append_num(sb, tm->month, t->count);
        break;
    case 'd': sl__append_num(sb, tm->day, t->count); break;
    case 'H': sl__append_num(sb, tm->hour, t->count); break;
    case 'h': sl__append_num(sb, tm->hour % 12 == 0 ? 12 : tm->hour % 12, t->count); break;
    case 'm': sl__append_num(sb, tm->minute, t->count); break;
    case 's': sl__append_num(sb, tm->sec, t->count); break;
    case 'S': sl__append_num(sb, tm->frac / sl__pow10[9 - t->count], t->count); break;
    case 'a': sl_strbuf_append(sb, tm->hour < 12 ? "AM" : "PM"); break;
    case 'E': {
        const char *name = sl__day_names[sl__day_of_week(tm->days)];
        sl_strbuf_append_n(sb, name, t->count == 4 ? strlen(name) : 3);
        break;
    }
    default: break; /* sl__field_ok admitted nothing else */
    }
}

int sl_ts_format_pattern(int64_t nanos, const char *pattern, sl_strbuf *sb)
{
    sl__pscan ps = {pattern, false};
    sl__ptok t;
    int rc;
    while ((rc = sl__pattern_next(&ps, &t)) == 1) {
    }
    if (rc < 0)
        return -1;

    sl__tm tm;
    int64_t tod = sl__floor_mod(nanos, SL_NANOS_PER_DAY), secs = tod / SL_NANOS_PER_SEC;
    tm.days = sl__floor_div(nanos, SL_NANOS_PER_DAY);
    sl_civil_from_days(tm.days, &tm.year, &tm.month, &tm.day);
    tm.hour = (int)(secs / 3600);
    tm.minute = (int)(secs / 60 % 60);
    tm.sec = (int)(secs % 60);
    tm.frac = tod % SL_NANOS_PER_SEC;

    size_t start = sb->len;
    ps = (sl__pscan){pattern, false};
    while (sl__pattern_next(&ps, &t) == 1) {
        if (t.letter)
            sl__format_field(sb, &t, &tm);
        else
            sl_strbuf_append_n(sb, t.lit, t.lit_len);
    }
    if (sb->len == start)
        sl_strbuf_append_n(sb, "", 0); /* an empty result is still a C string */
    return 0;
}

int64_t sl_ts_pattern_unit(const char *pattern)
{
    sl__pscan ps = {pattern, false};
    sl__ptok t;
    int64_t unit = SL_NANOS_PER_DAY;
    int rc;
    while ((rc = sl__pattern_next(&ps, &t)) == 1) {
        int64_t u = SL_NANOS_PER_DAY;
        switch (t.letter) {
        case 'H': case 'h': case 'a': u = 3600 * SL_NANOS_PER_SEC; break;
        case 'm': u = 60 * SL_NANOS_PER_SEC; break;
        case 's': u = SL_NANOS_PER_SEC; break;
        case 'S': u = 1; break;
        default: break; /* y M d E: a day; literal text */
        }
        unit = u < unit ? u : unit;
    }
    return rc < 0 ? -1 : unit;
}

/* One of names (full, or their first 3 letters when short) at *pos,
** ignoring ASCII case; its index, or -1. */
static int sl__scan_name(const char *s, size_t len, size_t *pos, const char *const *names, int n,
                         bool short_form)
{
    for (int i = 0; i < n; i++) {
        size_t nl = short_form ? 3 : strlen(names[i]);
        if (len - *pos >= nl && sl_strncasecmp(s + *pos, names[i], nl) == 0) {
            *pos += nl;
            return i;
        }
    }
    return -1;
}

/* Parsed field values; -1 where the pattern had no such field. */
typedef struct sl__pfields {
    int64_t year, month, day, hour24, hour12, ampm, minute, sec, frac, dow;
} sl__pfields;

static int sl__parse_field(const char *s, size_t len, size_t *pos, const sl__ptok *t,
                           sl__pfields *f)
{
    int64_t v;
    int fixed = t->count >= 2 ? t->count : 0; /* exact digits, or 0 for 1..2 */
#define SL__NUM(dst)                                                                   \
    do {                                                                               \
        if (fixed ? sl__digits(s, len, pos, fixed, &v)                                 \
                  : sl__digits_range(s, len, pos, 1, 2, &v))                           \
            return -1;                                                                 \
        (dst) = v;                                                                     \
    } while (0)
    switch (t->letter) {
    case 'y':
        if (t->count == 2) {
            if (sl__digits(s, len, pos, 2, &v))
                return -1;
            f->year = v < 70 ? 2000 + v : 1900 + v;
        } else if (t->count == 4) {
            if (sl__digits(s, len, pos, 4, &v))
                return -1;
            f->year = v;
        } else {
            if (sl__digits_range(s, len, pos, 1, 4, &v))
                return -1;
            f->year = v;
        }
        return 0;
    case 'M':
        if (t->count >= 3) {
            int i = sl__scan_name(s, len, pos, sl__month_names, 12, t->count == 3);
            if (i < 0)
                return -1;
            f->month = i + 1;
        } else {
            SL__NUM(f->month);
        }
        return 0;
    case 'd': SL__NUM(f->day); return 0;
    case 'H': SL__NUM(f->hour24); return 0;
    case 'h': SL__NUM(f->hour12); return 0;
    case 'm': SL__NUM(f->minute); return 0;
    case 's': SL__NUM(f->sec); return 0;
    case 'S':
        if (sl__digits(s, len, pos, t->count, &v))
            return -1;
        f->frac = v * sl__pow10[9 - t->count];
        return 0;
    case 'a':
        if (len - *pos >= 2 && (s[*pos + 1] == 'M' || s[*pos + 1] == 'm')) {
            char c = s[*pos];
            if (c == 'A' || c == 'a' || c == 'P' || c == 'p') {
                f->ampm = (c == 'P' || c == 'p');
                *pos += 2;
                return 0;
            }
        }
        return -1;
    case 'E': {
        int i = sl__scan_name(s, len, pos, sl__day_names, 7, t->count < 4);
        if (i < 0)
            return -1;
        f->dow = i;
        return 0;
    }
    default: return -1;
    }
#undef SL__NUM
}

/* java.text.SimpleDateFormat's reading of a numeric field that does not
** abut another field (yyyy, MM, dd, HH, mm, ss; not yy): blanks before it
** skipped, then any number of digits (here up to 9). */
static bool sl__loose_field(const sl__ptok *t)
{
    switch (t->letter) {
    case 'y': return t->count != 2;
    case 'M': return t->count <= 2;
    case 'd':
    case 'H':
    case 'm':
    case 's': return true;
    default: return false;
    }
}

static int sl__parse_loose(const char *s, size_t len, size_t *pos, const sl__ptok *t,
                           sl__pfields *f)
{
    int64_t v;
    while (*pos < len && (s[*pos] == ' ' || s[*pos] == '\t'))
        (*pos)++;
    if (sl__digits_range(s, len, pos, 1, 9, &v))
        return -1;
    switch (t->letter) {
    case 'y': f->year = v; break;
    case 'M': f->month = v; break;
    case 'd': f->day = v; break;
    case 'H': f->hour24 = v; break;
    case 'm': f->minute = v; break;
    default: f->sec = v; break;
    }
    return 0;
}

/* The fields read leniently, as java.util's lenient calendar takes them: a
** value past its range carries into the next larger unit (month 13 is
** January of the next year, day 0 the last of the month before, 24:00 the
** next day's midnight). -2 outside the TIMESTAMP range. */
static int sl__lenient_combine(const sl__pfields *f, int64_t *nanos)
{
    int64_t year = f->year >= 0 ? f->year : 1970, month = f->month >= 0 ? f->month : 1;
    int64_t day = f->day >= 0 ? f->day : 1;
    int64_t secs = (f->hour24 >= 0 ? f->hour24 : 0) * 3600 + (f->minute >= 0 ? f->minute : 0) * 60 +
                   (f->sec >= 0 ? f->sec : 0);
    year += sl__floor_div(month - 1, 12);
    month = sl__floor_mod(month - 1, 12) + 1;
    int64_t days = sl_days_from_civil(year, (int)month, 1) + day - 1 + secs / 86400;
    if (f->dow >= 0 && f->dow != sl__day_of_week(days))
        return -1;
    if (sl__combine(days, secs % 86400 * SL_NANOS_PER_SEC + (f->frac >= 0 ? f->frac : 0), nanos))
        return -2;
    return 0;
}

/* prefix: java.text.SimpleDateFormat.parse(String) — text after the
** pattern ignored, numeric fields read loosely (sl__loose_field) and taken
** leniently (sl__lenient_combine); else java.time's strict reading. */
static int sl__ts_parse_pattern(const char *s, size_t len, const char *pattern, bool prefix,
                                int64_t *nanos)
{
    sl__pfields f = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
    sl__pscan ps = {pattern, false};
    sl__ptok t;
    size_t pos = 0;
    int rc;
    bool lenient = prefix;
    while ((rc = sl__pattern_next(&ps, &t)) == 1) {
        if (t.letter) {
            bool loose = false;
            if (prefix && sl__loose_field(&t)) {
                sl__pscan peek = ps;
                sl__ptok nt;
                loose = !(sl__pattern_next(&peek, &nt) == 1 && nt.letter);
            }
            if (t.letter == 'h' || t.letter == 'a')
                lenient = false; /* 12-hour clocks: the strict reading */
            if (loose ? sl__parse_loose(s, len, &pos, &t, &f) : sl__parse_field(s, len, &pos, &t, &f))
                return -1;
        } else {
            if (len - pos < t.lit_len || memcmp(s + pos, t.lit, t.lit_len) != 0)
                return -1;
            pos += t.lit_len;
        }
    }
    if (rc < 0 || (pos != len && !prefix))
        return -1;
    if (lenient)
        return sl__lenient_combine(&f, nanos);

    int64_t year = f.year >= 0 ? f.year : 1970, month = f.month >= 0 ? f.month : 1;
    int64_t day = f.day >= 0 ? f.day : 1, hour = 0;
    if (f.hour24 >= 0) {
        if (f.hour24 > 23)
            return -1;
        hour = f.hour24;
    } else if (f.hour12 >= 0) {
        if (f.hour12 < 1 || f.hour12 > 12)
            return -1;
        hour = f.hour12 % 12 + (f.ampm == 1 ? 12 : 0);
    } else if (f.ampm == 1) {
        hour = 12;
    }
    int64_t minute = f.minute >= 0 ? f.minute : 0, sec = f.sec >= 0 ? f.sec : 0;
    int64_t frac = f.frac >= 0 ? f.frac : 0;
    if (month < 1 || month > 12 || day < 1 || day > sl_days_in_month(year, (int)month) ||
        minute > 59 || sec > 59)
        return -1;
    int64_t days = sl_days_from_civil(year, (int)month, (int)day);
    if (f.dow >= 0 && f.dow != sl__day_of_week(days))
        return -1;
    int64_t tod = ((hour * 60 + minute) * 60 + sec) * SL_NANOS_PER_SEC + frac, v;
    if (sl__combine(days, tod, &v))
        return -2;
    *nanos = v;
    return 0;
}

int sl_ts_parse_pattern(const char *s, size_t len, const char *pattern, int64_t *nanos)
{
    return sl__ts_parse_pattern(s, len, pattern, false, nanos);
}

int sl_ts_parse_pattern_prefix(const char *s, size_t len, const char *pattern, int64_t *nanos)
{
    return sl__ts_parse_pattern(s, len, pattern, true, nanos);
}

/* ------------------------------------------------------------------------
** Interval arithmetic.
*/

/* Years whose day numbers sl_days_from_civil computes exactly. */
#define SL__MAX_ARITH_YEAR 1000000000000LL

/* days + months, day clamped to the target month's length. */
static int sl__add_months_days(int64_t days, int64_t months, int64_t *out)
{
    int64_t y, total, ny;
    int m, d, nm, dim;
    sl_civil_from_days(days, &y, &m, &d);
    /* |y| <= ~2.6e16, so y * 12 + 11 fits. */
    if (__builtin_add_overflow(y * 12 + (m - 1), months, &total))
        return -1;
    ny = sl__floor_div(total, 12);
    nm = (int)sl__floor_mod(total, 12) + 1;
    if (ny > SL__MAX_ARITH_YEAR || ny < -SL__MAX_ARITH_YEAR)
        return -1;
    dim = sl_days_in_month(ny, nm);
    *out = sl_days_from_civil(ny, nm, d > dim ? dim : d);
    return 0;
}

int sl_date_add_months(int64_t days, int64_t months, int64_t *out)
{
    return sl__add_months_days(days, months, out);
}

int sl_ts_add_months(int64_t nanos, int64_t months, int64_t *out)
{
    int64_t days;
    if (sl__add_months_days(sl__floor_div(nanos, SL_NANOS_PER_DAY), months, &days))
        return -1;
    return sl__combine(days, sl__floor_mod(nanos, SL_NANOS_PER_DAY), out);
}

int sl_ts_add_millis(int64_t nanos, int64_t millis, int64_t *out)
{
    int64_t delta, v;
    if (__builtin_mul_overflow(millis, SL_NANOS_PER_MILLI, &delta) ||
        __builtin_add_overflow(nanos, delta, &v))
        return -1;
    *out = v;
    return 0;
}

int64_t sl_now_nanos(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * SL_NANOS_PER_SEC + ts.tv_nsec;
}

int64_t sl_monotonic_nanos(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * SL_NANOS_PER_SEC + ts.tv_nsec;
}

int64_t sl_monotonic_coarse_nanos(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec * SL_NANOS_PER_SEC + ts.tv_nsec;
}

void sl_sleep_nanos(int64_t ns)
{
    if (ns <= 0)
        return;
    struct timespec ts = {.tv_sec = (time_t)(ns / SL_NANOS_PER_SEC),
                          .tv_nsec = (long)(ns % SL_NANOS_PER_SEC)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

sl_tunit sl_tunit_parse(const char *s, size_t len)
{
    static const char *const names[] = {NULL,     "YEAR",   "QUARTER", "MONTH",
                                        "WEEK",   "DAY",    "HOUR",    "MINUTE",
                                        "SECOND", "MILLISECOND", "DOY", "DOW"};
    for (int u = 1; u < (int)(sizeof names / sizeof names[0]); u++)
        if (strlen(names[u]) == len && sl_strncasecmp(s, names[u], len) == 0)
            return (sl_tunit)u;
    return SL_TUNIT_NONE;
}
