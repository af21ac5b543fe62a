/*
** types.c — Sluice types as PostgreSQL clients see them: the type OID, size
** and modifier of a result column (RowDescription), and the PostgreSQL text
** form of each value (DataRow), so that drivers parse what they receive with
** the parsers they already have.
**
**   Sluice             PostgreSQL              typmod
**   BOOLEAN            bool (16)
**   TINYINT/SMALLINT   int2 (21)
**   INT                int4 (23)
**   BIGINT             int8 (20)
**   FLOAT / DOUBLE     float4 (700) / float8 (701)
**   DECIMAL(p, s)      numeric (1700)          ((p << 16) | s) + 4
**   CHAR(n)            bpchar (1042)           n + 4
**   VARCHAR(n)         varchar (1043)          n + 4
**   STRING             text (25)
**   BINARY/VARBINARY   bytea (17)
**   DATE / TIME(p)     date (1082) / time (1083)             p (at most 6)
**   TIMESTAMP(p)       timestamp (1114)        p (at most 6)
**   TIMESTAMP_LTZ(p)   timestamptz (1184)      p (at most 6)
**   INTERVAL ...       interval (1186)
**
** Values cross in three forms. The engine's text (sl_result_sink rows,
** sl_param values) is what CAST(x AS STRING) spells: TRUE, 1.0E10, x'0aff',
** TIMESTAMP_LTZ as local time of the session's zone, INTERVAL as "+1
** 02:03:04.500" / "+1-02". PostgreSQL's text form is what its output
** functions print (t, 1e+10, \\x0aff, "2026-01-31 12:00:00+01", "1 day
** 02:03:04.5"); its binary form is what its send / recv functions use:
** network order integers, IEEE floats, numeric as base-10000 digits with
** weight, sign and display scale, date as days and timestamps as
** microseconds since 2000-01-01, interval as (microseconds, days, months).
** A session whose sluice.result_format is 'engine' (the sluice shell's)
** gets the engine's text as it is: query.c then skips sl_pgtext_append.
**
** The mapping of types itself is base/sl_pgtype.c (sl_pgtype_of).
**
** Main routines: sl_pgtype_from_oid, sl_pgtext_append,
** sl_pgbin_append, sl_pgparam_decode, sl_pgzone_update.
*/
#include "server_int.h"

#include "../base/sl_dtoa.h"
#include "../exec/sl_exec.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sl_type sl_pgtype_from_oid(int32_t oid)
{
    switch (oid) {
    case SL_OID_BOOL: return sl_type_make(SL_TYPE_BOOLEAN);
    case SL_OID_INT2: return sl_type_make(SL_TYPE_SMALLINT);
    case SL_OID_INT4: return sl_type_make(SL_TYPE_INT);
    case SL_OID_INT8: return sl_type_make(SL_TYPE_BIGINT);
    case SL_OID_FLOAT4: return sl_type_make(SL_TYPE_FLOAT);
    case SL_OID_FLOAT8: return sl_type_make(SL_TYPE_DOUBLE);
    case SL_OID_NUMERIC: return sl_type_make_p(SL_TYPE_DECIMAL, SL_DECIMAL_MAX_PRECISION, 18);
    case SL_OID_TEXT:
    case SL_OID_VARCHAR:
    case SL_OID_BPCHAR: return sl_type_make_p(SL_TYPE_VARCHAR, SL_MAX_LENGTH, 0);
    case SL_OID_BYTEA: return sl_type_make_p(SL_TYPE_VARBINARY, SL_MAX_LENGTH, 0);
    case SL_OID_DATE: return sl_type_make(SL_TYPE_DATE);
    case SL_OID_TIME: return sl_type_make_p(SL_TYPE_TIME, 6, 0);
    case SL_OID_TIMESTAMP: return sl_type_make_p(SL_TYPE_TIMESTAMP, 6, 0);
    case SL_OID_TIMESTAMPTZ: return sl_type_make_p(SL_TYPE_TIMESTAMP_LTZ, 6, 0);
    default: return sl_type_make(SL_TYPE_NULL);
    }
}

sl_type sl_pgparam_type(int32_t oid, const char *v, size_t n)
{
    sl_type t = sl_pgtype_from_oid(oid);
    if (t.id != SL_TYPE_DECIMAL || !v)
        return t;
    int int_digits = 0, frac_digits = 0;
    bool frac = false, leading = true;
    for (size_t i = 0; i < n; i++) {
        if (v[i] == '.') {
            frac = true;
        } else if (v[i] >= '0' && v[i] <= '9') {
            if (frac) {
                frac_digits++;
            } else if (!(leading && v[i] == '0')) {
                leading = false;
                int_digits++;
            }
        } else if (v[i] != '-' && v[i] != '+') {
            return t; /* NaN, Infinity, exponents: the engine says what it thinks */
        }
    }
    if (int_digits > SL_DECIMAL_MAX_PRECISION)
        return sl_type_make_p(SL_TYPE_DECIMAL, SL_DECIMAL_MAX_PRECISION, 0);
    if (int_digits + frac_digits > SL_DECIMAL_MAX_PRECISION)
        frac_digits = SL_DECIMAL_MAX_PRECISION - int_digits;
    int p = int_digits + frac_digits;
    return sl_type_make_p(SL_TYPE_DECIMAL, p > 0 ? p : 1, frac_digits);
}

/* ------------------------------------------------------------------------
** The session's zone
*/

void sl_pgzone_update(sl_pgzone *z, sl_session *s)
{
    const char *name = s ? sl_session_param(s, "TimeZone") : NULL;
    if (!name || !*name)
        name = "default";
    if (z->name && strcmp(z->name, name) == 0)
        return;
    sl_pgzone_free(z);
    z->name = sl_strdup(name);
    sl_error err = SL_ERROR_INIT;
    if (sl_tz_open(name, &z->tz, &err) != 0) {
        sl_log(SL_LOG_WARN, "time zone \"%s\": %s; timestamptz values are shown in UTC", name,
               err.message ? err.message : "unknown");
        z->tz = NULL;
    }
    sl_error_reset(&err);
}

void sl_pgzone_free(sl_pgzone *z)
{
    sl_free(z->name);
    if (z->tz)
        sl_tz_free(z->tz);
    z->name = NULL;
    z->tz = NULL;
}

/* ------------------------------------------------------------------------
** Helpers over the engine's text
*/

/* v[0..n) as a NUL-terminated copy in buf (cap bytes); false when longer. */
static bool sl__cstr(const char *v, size_t n, char *buf, size_t cap)
{
    if (n >= cap)
        return false;
    memcpy(buf, v, n);
    buf[n] = '\0';
    return true;
}

/* Days between 1970-01-01 and 2000-01-01 (PostgreSQL's epoch). */
#define SL__PG_EPOCH_DAYS 10957
#define SL__PG_EPOCH_MICROS (SL__PG_EPOCH_DAYS * 86400LL * 1000000LL)

/* Append the significant digits[0..nd) (no trailing zeros; nd >= 1) with
** decimal exponent exp (the first digit's), as PostgreSQL's float4out /
** float8out print them with extra_float_digits > 0: fixed notation for
** decimal exponents -4 .. 14 (float4: .. 5), else d.ddde+XX. */
static void sl__pgfloat_layout(sl_strbuf *out, bool neg, const char *digits, int nd, int exp,
                               bool single)
{
    if (neg)
        sl_strbuf_append_char(out, '-');
    if (exp >= -4 && exp < (single ? 6 : 15)) {
        if (exp < 0) {
            sl_strbuf_append(out, "0.");
            for (int i = 0; i < -exp - 1; i++)
                sl_strbuf_append_char(out, '0');
            sl_strbuf_append_n(out, digits, (size_t)nd);
            return;
        }
        for (int i = 0; i <= exp; i++)
            sl_strbuf_append_char(out, i < nd ? digits[i] : '0');
        if (nd > exp + 1) {
            sl_strbuf_append_char(out, '.');
            sl_strbuf_append_n(out, digits + exp + 1, (size_t)(nd - exp - 1));
        }
        return;
    }
    sl_strbuf_append_char(out, digits[0]);
    if (nd > 1) {
        sl_strbuf_append_char(out, '.');
        sl_strbuf_append_n(out, digits + 1, (size_t)(nd - 1));
    }
    sl_strbuf_appendf(out, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
}

/* Append the shortest decimal that reads back as d (float4 when single),
** laid out as sl__pgfloat_layout (the engine's sl_double_digits). */
static void sl__pgfloat(sl_strbuf *out, double d, bool single)
{
    if (isnan(d)) {
        sl_strbuf_append(out, "NaN");
        return;
    }
    if (isinf(d)) {
        sl_strbuf_append(out, d < 0 ? "-Infinity" : "Infinity");
        return;
    }
    if (d == 0) {
        sl_strbuf_append(out, signbit(d) ? "-0" : "0");
        return;
    }
    char digits[24];
    int exp;
    bool neg;
    int nd = sl_double_digits(d, single, 1, digits, &exp, &neg);
    sl__pgfloat_layout(out, neg, digits, nd, exp, single);
}

/* A FLOAT / DOUBLE result as the engine wrote it (its shortest text that
** reads back, with at least two digits: sl_value_format) in PostgreSQL's
** form: the engine's digits are laid out again, not searched for a second
** time (formatting a DOUBLE was most of a streamed row's cost). Only
** when they are two digits may one be enough. -1 for text that is not a
** number. */
static int sl__pgfloat_text(sl_strbuf *out, const char *v, size_t n, bool single)
{
    size_t i = 0;
    bool neg = i < n && v[i] == '-';
    if (neg || (i < n && v[i] == '+'))
        i++;
    if (n - i == 3 && memcmp(v + i, "NaN", 3) == 0) {
        sl_strbuf_append(out, "NaN");
        return 0;
    }
    if (n - i == 8 && memcmp(v + i, "Infinity", 8) == 0) {
        sl_strbuf_append(out, neg ? "-Infinity" : "Infinity");
        return 0;
    }
    char digits[24];
    int nd = 0, point = -1, lead = 0; /* point: digits before the '.' */
    bool any = false;
    for (; i < n && (isdigit((unsigned char)v[i]) || (v[i] == '.' && point < 0)); i++) {
        if (v[i] == '.') {
            point = nd + lead;
            continue;
        }
        any = true;
        if (nd == 0 && v[i] == '0') {
            lead++;
            continue;
        }
        if (nd >= 18)
            return -1; /* more digits than the engine writes */
        digits[nd++] = v[i];
    }
    if (!any)
        return -1;
    if (point < 0)
        point = nd + lead;
    long e10 = 0;
    if (i < n && (v[i] == 'E' || v[i] == 'e')) {
        char *end;
        char buf[16];
        if (!sl__cstr(v + i + 1, n - i - 1, buf, sizeof buf))
            return -1;
        e10 = strtol(buf, &end, 10);
        if (end == buf || *end != '\0')
            return -1;
        i = n;
    }
    if (i != n)
        return -1;
    if (nd == 0) {
        sl_strbuf_append(out, neg ? "-0" : "0");
        return 0;
    }
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    int exp = (int)(point - lead - 1 + e10);
    if (nd == 2) { /* the engine writes two digits at least: is one enough? */
        double d = sl_dtoa_strtod(digits, 2, exp + 1); /* as strtod reads them */
        sl__pgfloat(out, neg ? -d : d, single); /* the shortest, from one digit */
        return 0;
    }
    sl__pgfloat_layout(out, neg, digits, nd, exp, single);
    return 0;
}

/* Append a date-time text without the zeros that end its fraction (and
** without the '.' when nothing is left), as PostgreSQL prints them. */
static void sl__trim_fraction(sl_strbuf *out, const char *v, size_t n)
{
    const char *dot = memchr(v, '.', n);
    const char *colon = memchr(v, ':', n);
    if (dot && colon && dot > colon) {
        while (n > 0 && v[n - 1] == '0')
            n--;
        if (n > 0 && v[n - 1] == '.')
            n--;
    }
    sl_strbuf_append_n(out, v, n);
}

/* Seconds east of UTC as PostgreSQL prints an offset: +01, -03:30, +00:20:15. */
static void sl__offset(sl_strbuf *out, int64_t secs)
{
    char sign = secs < 0 ? '-' : '+';
    int64_t a = secs < 0 ? -secs : secs;
    sl_strbuf_appendf(out, "%c%02d", sign, (int)(a / 3600));
    if (a % 3600)
        sl_strbuf_appendf(out, ":%02d", (int)(a / 60 % 60));
    if (a % 60)
        sl_strbuf_appendf(out, ":%02d", (int)(a % 60));
}

/* The engine's INTERVAL DAY TO SECOND text "+d hh:mm:ss.fff" as
** milliseconds; the engine's INTERVAL YEAR TO MONTH text "+y-mm" as months. */
static int sl__interval_dt(const char *v, size_t n, int64_t *ms)
{
    char buf[64];
    unsigned long long d, h, mi, s, f = 0;
    char sign;
    int fl = 0;
    if (!sl__cstr(v, n, buf, sizeof buf))
        return -1;
    int k = sscanf(buf, "%c%llu %llu:%llu:%llu.%n", &sign, &d, &h, &mi, &s, &fl);
    if (k < 5 || (sign != '+' && sign != '-'))
        return -1;
    if (fl > 0) { /* fraction digits, as milliseconds */
        int digits = 0;
        for (const char *q = buf + fl; *q && digits < 3; q++, digits++)
            f = f * 10 + (unsigned long long)(*q - '0');
        for (; digits < 3; digits++)
            f *= 10;
    }
    int64_t a = (int64_t)((((d * 24 + h) * 60 + mi) * 60 + s) * 1000 + f);
    *ms = sign == '-' ? -a : a;
    return 0;
}

static int sl__interval_ym(const char *v, size_t n, int64_t *months)
{
    char buf[64];
    unsigned long long y, m;
    char sign;
    if (!sl__cstr(v, n, buf, sizeof buf) || sscanf(buf, "%c%llu-%llu", &sign, &y, &m) != 3 ||
        (sign != '+' && sign != '-'))
        return -1;
    int64_t a = (int64_t)(y * 12 + m);
    *months = sign == '-' ? -a : a;
    return 0;
}

/* PostgreSQL's interval text (IntervalStyle postgres): "1 year 2 mons",
** "-3 days -04:05:06.5", "00:00:00". */
static void sl__pginterval(sl_strbuf *out, int64_t months, int64_t days, int64_t micros)
{
    size_t start = out->len;
    int64_t y = months / 12, m = months % 12;
    if (y)
        sl_strbuf_appendf(out, "%lld year%s", (long long)y, y == 1 ? "" : "s");
    if (m)
        sl_strbuf_appendf(out, "%s%lld mon%s", out->len > start ? " " : "", (long long)m,
                          m == 1 ? "" : "s");
    if (days)
        sl_strbuf_appendf(out, "%s%lld day%s", out->len > start ? " " : "", (long long)days,
                          days == 1 ? "" : "s");
    if (micros || out->len == start) {
        uint64_t a = micros < 0 ? 0 - (uint64_t)micros : (uint64_t)micros;
        sl_strbuf_appendf(out, "%s%s%02llu:%02llu:%02llu", out->len > start ? " " : "",
                          micros < 0 ? "-" : "", (unsigned long long)(a / 3600000000ULL),
                          (unsigned long long)(a / 60000000ULL % 60),
                          (unsigned long long)(a / 1000000ULL % 60));
        if (a % 1000000ULL) {
            char f[8];
            snprintf(f, sizeof f, "%06llu", (unsigned long long)(a % 1000000ULL));
            int fl = 6;
            while (fl > 0 && f[fl - 1] == '0')
                fl--;
            sl_strbuf_append_char(out, '.');
            sl_strbuf_append_n(out, f, (size_t)fl);
        }
    }
}

/* The instant of a TIMESTAMP_LTZ text (local time of z) in nanoseconds. */
static int sl__ltz_instant(const char *v, size_t n, const sl_pgzone *z, int64_t *instant,
                           int64_t *local)
{
    if (sl_ts_parse(v, n, local) != 0)
        return -1;
    return sl_tz_from_local(z ? z->tz : NULL, *local, instant);
}

/* ------------------------------------------------------------------------
** Results: text form
*/

void sl_pgtext_append(sl_strbuf *out, sl_type t, const char *v, size_t n, const sl_pgzone *z)
{
    char buf[64];
    switch (t.id) {
    case SL_TYPE_BOOLEAN:
        sl_strbuf_append_char(out, n > 0 && (v[0] == 'T' || v[0] == 't') ? 't' : 'f');
        return;
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY: /* x'0a1b' -> \x0a1b */
        if (n >= 3 && v[0] == 'x' && v[1] == '\'' && v[n - 1] == '\'') {
            sl_strbuf_append(out, "\\x");
            sl_strbuf_append_n(out, v + 2, n - 3);
            return;
        }
        break;
    case SL_TYPE_FLOAT:
    case SL_TYPE_DOUBLE:
        if (sl__pgfloat_text(out, v, n, t.id == SL_TYPE_FLOAT) == 0)
            return;
        if (sl__cstr(v, n, buf, sizeof buf)) {
            char *end;
            double d = strtod(buf, &end);
            if (end != buf && *end == '\0') {
                sl__pgfloat(out, d, t.id == SL_TYPE_FLOAT);
                return;
            }
        }
        break;
    case SL_TYPE_TIME:
    case SL_TYPE_TIMESTAMP: sl__trim_fraction(out, v, n); return;
    case SL_TYPE_TIMESTAMP_LTZ: {
        int64_t local, instant;
        if (sl__ltz_instant(v, n, z, &instant, &local) != 0)
            break;
        sl__trim_fraction(out, v, n);
        sl__offset(out, (local - instant) / SL_NANOS_PER_SEC);
        return;
    }
    case SL_TYPE_INTERVAL_DT: {
        int64_t ms;
        if (sl__interval_dt(v, n, &ms) != 0)
            break;
        int64_t days = ms / 86400000, rest = ms % 86400000;
        sl__pginterval(out, 0, days, rest * 1000);
        return;
    }
    case SL_TYPE_INTERVAL_YM: {
        int64_t months;
        if (sl__interval_ym(v, n, &months) != 0)
            break;
        sl__pginterval(out, months, 0, 0);
        return;
    }
    default: break;
    }
    sl_strbuf_append_n(out, v, n);
}

/* ------------------------------------------------------------------------
** Results: binary form
*/

static void sl__be16(sl_strbuf *out, int16_t v) { sl_pgout_int16(out, v); }
static void sl__be32(sl_strbuf *out, int32_t v) { sl_pgout_int32(out, v); }
static void sl__be64(sl_strbuf *out, int64_t v)
{
    sl_pgout_int32(out, (int32_t)((uint64_t)v >> 32));
    sl_pgout_int32(out, (int32_t)(uint64_t)v);
}

/* A decimal text ([-]ddd[.ddd]) as PostgreSQL's numeric binary form. */
static int sl__numeric_send(sl_strbuf *out, const char *v, size_t n)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && (v[i] == '-' || v[i] == '+'))
        neg = v[i++] == '-';
    size_t int_start = i;
    while (i < n && isdigit((unsigned char)v[i]))
        i++;
    size_t int_len = i - int_start, frac_start = i, frac_len = 0;
    if (i < n && v[i] == '.') {
        frac_start = ++i;
        while (i < n && isdigit((unsigned char)v[i]))
            i++;
        frac_len = i - frac_start;
    }
    if (i != n || int_len + frac_len == 0 || frac_len > 0x3FFF)
        return -1;
    /* Digits on a base-10000 grid: the integer part padded left, the
    ** fraction right, to multiples of 4. */
    size_t int_groups = (int_len + 3) / 4, frac_groups = (frac_len + 3) / 4;
    size_t ng = int_groups + frac_groups;
    int16_t *g = sl_malloc(sizeof(int16_t) * (ng ? ng : 1));
    size_t pad = int_groups * 4 - int_len;
    for (size_t k = 0; k < ng; k++) {
        int d = 0;
        for (size_t j = 0; j < 4; j++) {
            size_t pos = k * 4 + j; /* position on the grid */
            int digit = 0;
            if (k < int_groups) {
                if (pos >= pad)
                    digit = v[int_start + pos - pad] - '0';
            } else {
                size_t fp = pos - int_groups * 4;
                if (fp < frac_len)
                    digit = v[frac_start + fp] - '0';
            }
            d = d * 10 + digit;
        }
        g[k] = (int16_t)d;
    }
    size_t first = 0, last = ng;
    while (first < last && g[first] == 0)
        first++;
    while (last > first && g[last - 1] == 0)
        last--;
    int weight = first < last ? (int)int_groups - 1 - (int)first : 0;
    sl__be16(out, (int16_t)(last - first));
    sl__be16(out, (int16_t)weight);
    sl__be16(out, (int16_t)(neg && first < last ? 0x4000 : 0));
    sl__be16(out, (int16_t)frac_len);
    for (size_t k = first; k < last; k++)
        sl__be16(out, g[k]);
    sl_free(g);
    return 0;
}

int sl_pgbin_append(sl_strbuf *out, sl_type t, const char *v, size_t n, const sl_pgzone *z)
{
    char buf[64];
    char *end;
    switch (t.id) {
    case SL_TYPE_BOOLEAN:
        sl_strbuf_append_char(out, n > 0 && (v[0] == 'T' || v[0] == 't') ? 1 : 0);
        return 0;
    case SL_TYPE_TINYINT:
    case SL_TYPE_SMALLINT:
    case SL_TYPE_INT:
    case SL_TYPE_BIGINT: {
        if (!sl__cstr(v, n, buf, sizeof buf))
            return -1;
        errno = 0;
        long long x = strtoll(buf, &end, 10);
        if (end == buf || *end || errno)
            return -1;
        if (t.id == SL_TYPE_BIGINT)
            sl__be64(out, x);
        else if (t.id == SL_TYPE_INT)
            sl__be32(out, (int32_t)x);
        else
            sl__be16(out, (int16_t)x);
        return 0;
    }
    case SL_TYPE_FLOAT:
    case SL_TYPE_DOUBLE: {
        if (!sl__cstr(v, n, buf, sizeof buf))
            return -1;
        double d = strtod(buf, &end);
        if (end == buf || *end)
            return -1;
        if (t.id == SL_TYPE_FLOAT) {
            float f = (float)d;
            uint32_t u;
            memcpy(&u, &f, 4);
            sl__be32(out, (int32_t)u);
        } else {
            uint64_t u;
            memcpy(&u, &d, 8);
            sl__be64(out, (int64_t)u);
        }
        return 0;
    }
    case SL_TYPE_DECIMAL: return sl__numeric_send(out, v, n);
    case SL_TYPE_BINARY:
    case SL_TYPE_VARBINARY:
        if (n < 3 || v[0] != 'x' || v[1] != '\'' || v[n - 1] != '\'' || (n - 3) % 2)
            return -1;
        for (size_t i = 2; i + 1 < n - 1; i += 2) {
            int hi = sl_hex_digit(v[i]), lo = sl_hex_digit(v[i + 1]);
            if (hi < 0 || lo < 0)
                return -1;
            sl_strbuf_append_char(out, (char)(hi << 4 | lo));
        }
        return 0;
    case SL_TYPE_DATE: {
        int64_t days;
        if (sl_date_parse(v, n, &days) != 0)
            return -1;
        sl__be32(out, (int32_t)(days - SL__PG_EPOCH_DAYS));
        return 0;
    }
    case SL_TYPE_TIME: {
        int64_t nanos;
        if (sl_time_parse(v, n, &nanos) != 0)
            return -1;
        sl__be64(out, nanos / 1000);
        return 0;
    }
    case SL_TYPE_TIMESTAMP:
    case SL_TYPE_TIMESTAMP_LTZ: {
        int64_t local, instant;
        if (t.id == SL_TYPE_TIMESTAMP ? sl_ts_parse(v, n, &instant) != 0
                                      : sl__ltz_instant(v, n, z, &instant, &local) != 0)
            return -1;
        /* floor to microseconds, then PostgreSQL's epoch */
        int64_t us = instant / 1000 - (instant % 1000 < 0 ? 1 : 0);
        sl__be64(out, us - SL__PG_EPOCH_MICROS);
        return 0;
    }
    case SL_TYPE_INTERVAL_DT: {
        int64_t ms;
        if (sl__interval_dt(v, n, &ms) != 0)
            return -1;
        sl__be64(out, ms % 86400000 * 1000);
        sl__be32(out, (int32_t)(ms / 86400000));
        sl__be32(out, 0);
        return 0;
    }
    case SL_TYPE_INTERVAL_YM: {
        int64_t months;
        if (sl__interval_ym(v, n, &months) != 0)
            return -1;
        sl__be64(out, 0);
        sl__be32(out, 0);
        sl__be32(out, (int32_t)months);
        return 0;
    }
    default: /* CHAR, VARCHAR and whatever else is text */
        sl_strbuf_append_n(out, v, n);
        return 0;
    }
}

/* ------------------------------------------------------------------------
** Parameters
*/

static uint16_t sl__rd16(const char *p)
{
    uint16_t x;
    memcpy(&x, p, 2);
    return ntohs(x);
}

static uint32_t sl__rd32(const char *p)
{
    uint32_t x;
    memcpy(&x, p, 4);
    return ntohl(x);
}

static uint64_t sl__rd64(const char *p)
{
    return (uint64_t)sl__rd32(p) << 32 | sl__rd32(p + 4);
}

static void sl__hex_append(sl_strbuf *out, const unsigned char *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        sl_strbuf_append_char(out, hex[p[i] >> 4]);
        sl_strbuf_append_char(out, hex[p[i] & 15]);
    }
}

/* PostgreSQL's numeric binary form as decimal text. */
static int sl__numeric_recv(sl_strbuf *out, const char *v, size_t n)
{
    if (n < 8)
        return -1;
    int nd = (int16_t)sl__rd16(v), weight = (int16_t)sl__rd16(v + 2);
    uint16_t sign = sl__rd16(v + 4), dscale = sl__rd16(v + 6);
    if (nd < 0 || n != 8 + 2 * (size_t)nd || dscale > 0x3FFF)
        return -1;
    if (sign == 0xC000) {
        sl_strbuf_append(out, "NaN");
        return 0;
    }
    if (sign == 0xD000 || sign == 0xF000) {
        sl_strbuf_append(out, sign == 0xF000 ? "-Infinity" : "Infinity");
        return 0;
    }
    if (sign != 0 && sign != 0x4000)
        return -1;
    const char *d = v + 8;
    for (int i = 0; i < nd; i++)
        if (sl__rd16(d + 2 * i) > 9999)
            return -1;
    if (sign == 0x4000 && nd > 0)
        sl_strbuf_append_char(out, '-');
    if (weight < 0) {
        sl_strbuf_append_char(out, '0');
    } else {
        for (int i = 0; i <= weight; i++) {
            int g = i < nd ? sl__rd16(d + 2 * i) : 0;
            sl_strbuf_appendf(out, i == 0 ? "%d" : "%04d", g);
        }
    }
    if (dscale > 0) {
        sl_strbuf_append_char(out, '.');
        int written = 0;
        for (int i = weight + 1; written < dscale; i++) {
            int g = i >= 0 && i < nd ? sl__rd16(d + 2 * i) : 0;
            char q[8];
            snprintf(q, sizeof q, "%04d", g);
            for (int j = 0; j < 4 && written < dscale; j++, written++)
                sl_strbuf_append_char(out, q[j]);
        }
    }
    return 0;
}

/* A microsecond timestamp (PostgreSQL's epoch) as the engine's text; local
** time of z when ltz. */
static int sl__ts_recv(sl_strbuf *out, int64_t us, bool ltz, const sl_pgzone *z)
{
    int64_t nanos;
    if (us == INT64_MAX || us == INT64_MIN || /* 'infinity', '-infinity' */
        __builtin_add_overflow(us, SL__PG_EPOCH_MICROS, &us) ||
        __builtin_mul_overflow(us, 1000, &nanos))
        return -1;
    if (ltz && sl_tz_to_local(z ? z->tz : NULL, nanos, &nanos) != 0)
        return -1;
    char buf[64];
    sl_ts_format(nanos, 6, buf);
    sl_strbuf_append(out, buf);
    return 0;
}

static int sl__bin_param(sl_strbuf *out, int32_t oid, const char *v, size_t n,
                         const sl_pgzone *z)
{
    char buf[64];
    switch (oid) {
    case SL_OID_BOOL:
        if (n != 1 || (unsigned char)v[0] > 1)
            return -1;
        sl_strbuf_append(out, v[0] ? "TRUE" : "FALSE");
        return 0;
    case SL_OID_INT2:
        if (n != 2)
            return -1;
        sl_strbuf_append_i64(out, (int16_t)sl__rd16(v));
        return 0;
    case SL_OID_INT4:
        if (n != 4)
            return -1;
        sl_strbuf_append_i64(out, (int32_t)sl__rd32(v));
        return 0;
    case SL_OID_INT8:
        if (n != 8)
            return -1;
        sl_strbuf_append_i64(out, (int64_t)sl__rd64(v));
        return 0;
    case SL_OID_FLOAT4: {
        if (n != 4)
            return -1;
        uint32_t u = sl__rd32(v);
        float f;
        memcpy(&f, &u, 4);
        sl__pgfloat(out, f, true);
        return 0;
    }
    case SL_OID_FLOAT8: {
        if (n != 8)
            return -1;
        uint64_t u = sl__rd64(v);
        double d;
        memcpy(&d, &u, 8);
        sl__pgfloat(out, d, false);
        return 0;
    }
    case SL_OID_NUMERIC: return sl__numeric_recv(out, v, n);
    case SL_OID_DATE: {
        if (n != 4)
            return -1;
        int32_t days = (int32_t)sl__rd32(v);
        if (days == INT32_MAX || days == INT32_MIN)
            return -1;
        sl_date_format((int64_t)days + SL__PG_EPOCH_DAYS, buf);
        sl_strbuf_append(out, buf);
        return 0;
    }
    case SL_OID_TIME: {
        if (n != 8)
            return -1;
        int64_t us = (int64_t)sl__rd64(v);
        if (us < 0 || us > 86400000000LL)
            return -1;
        sl_time_format(us * 1000 % SL_NANOS_PER_DAY, 6, buf);
        sl_strbuf_append(out, buf);
        return 0;
    }
    case SL_OID_TIMESTAMP:
    case SL_OID_TIMESTAMPTZ:
        if (n != 8)
            return -1;
        return sl__ts_recv(out, (int64_t)sl__rd64(v), oid == SL_OID_TIMESTAMPTZ, z);
    case SL_OID_BYTEA: sl__hex_append(out, (const unsigned char *)v, n); return 0;
    default: /* text, varchar, bpchar, unknown: the bytes themselves */
        sl_strbuf_append_n(out, v, n);
        return 0;
    }
}

/* A text bool as PostgreSQL's boolin reads it. */
static int sl__bool_text(sl_strbuf *out, const char *v, size_t n)
{
    while (n > 0 && isspace((unsigned char)*v))
        v++, n--;
    while (n > 0 && isspace((unsigned char)v[n - 1]))
        n--;
    static const char *const yes[] = {"t", "true", "y", "yes", "on", "1"};
    static const char *const no[] = {"f", "false", "n", "no", "off", "0"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        if (n > 0 && n <= strlen(yes[i]) && strncasecmp(v, yes[i], n) == 0 &&
            (n > 1 || i != 4)) {
            sl_strbuf_append(out, "TRUE");
            return 0;
        }
        if (n > 0 && n <= strlen(no[i]) && strncasecmp(v, no[i], n) == 0 && (n > 1 || i != 4)) {
            sl_strbuf_append(out, "FALSE");
            return 0;
        }
    }
    return -1;
}

/* bytea's text input: \x hex, or the escape format (\\ and \ooo). */
static int sl__bytea_text(sl_strbuf *out, const char *v, size_t n)
{
    if (n >= 2 && v[0] == '\\' && v[1] == 'x') {
        size_t digits = 0;
        for (size_t i = 2; i < n; i++) {
            if (isspace((unsigned char)v[i]))
                continue;
            if (sl_hex_digit(v[i]) < 0)
                return -1;
            sl_strbuf_append_char(out, (char)tolower((unsigned char)v[i]));
            digits++;
        }
        return digits % 2 ? -1 : 0;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char b = (unsigned char)v[i];
        if (b == '\\') {
            if (i + 1 < n && v[i + 1] == '\\') {
                i++;
            } else if (i + 3 < n && v[i + 1] >= '0' && v[i + 1] <= '3' && v[i + 2] >= '0' &&
                       v[i + 2] <= '7' && v[i + 3] >= '0' && v[i + 3] <= '7') {
                b = (unsigned char)((v[i + 1] - '0') << 6 | (v[i + 2] - '0') << 3 |
                                    (v[i + 3] - '0'));
                i += 3;
            } else {
                return -1;
            }
        }
        sl__hex_append(out, &b, 1);
    }
    return 0;
}

/* A timestamp text with a zone offset at its end (+02, -03:30, Z): the
** engine's local text of the same instant in z (ltz), or the text without
** its offset (timestamp: PostgreSQL ignores it there). Text without an
** offset is passed on as it is. */
static void sl__ts_text(sl_strbuf *out, const char *v, size_t n, bool ltz, const sl_pgzone *z)
{
    size_t colon = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] == ':') {
            colon = i;
            break;
        }
    size_t k = n;
    int64_t off = 0;
    if (colon > 0) {
        for (size_t i = colon; i < n; i++)
            if (v[i] == '+' || v[i] == '-' || v[i] == 'Z' || v[i] == 'z') {
                k = i;
                break;
            }
    }
    if (k < n && (v[k] == '+' || v[k] == '-')) {
        int part[3] = {0, 0, 0}, np = 0, digits = 0;
        for (size_t i = k + 1; i < n && np < 3; i++) {
            if (isdigit((unsigned char)v[i])) {
                part[np] = part[np] * 10 + (v[i] - '0');
                if (++digits == 2 && i + 1 < n && isdigit((unsigned char)v[i + 1]) && np < 2) {
                    np++; /* +0530 */
                    digits = 0;
                }
            } else if (v[i] == ':') {
                np++;
                digits = 0;
            } else {
                k = n; /* not an offset */
                break;
            }
        }
        off = (int64_t)part[0] * 3600 + part[1] * 60 + part[2];
        if (k < n && v[k] == '-')
            off = -off;
    }
    size_t end = k;
    while (end > 0 && v[end - 1] == ' ')
        end--;
    int64_t local;
    if (k == n || !ltz || sl_ts_parse(v, end, &local) != 0) {
        sl_strbuf_append_n(out, v, k == n ? n : end);
        return;
    }
    int64_t instant = local - off * SL_NANOS_PER_SEC;
    char buf[64];
    if (sl_tz_to_local(z ? z->tz : NULL, instant, &local) != 0) {
        sl_strbuf_append_n(out, v, n);
        return;
    }
    sl_ts_format(local, 9, buf);
    sl__trim_fraction(out, buf, strlen(buf));
}

int sl_pgparam_decode(sl_strbuf *out, int32_t oid, int format, const char *v, size_t n,
                      int param, const sl_pgzone *z, sl_error *err)
{
    if (format == 1) {
        if (sl__bin_param(out, oid, v, n, z) != 0)
            return sl_error_set(err, "22P03", -1,
                                "incorrect binary data format in bind parameter %d", param);
        return 0;
    }
    switch (oid) {
    case SL_OID_BOOL:
        if (sl__bool_text(out, v, n) != 0)
            return sl_error_set(err, SL_ERR_INVALID_TEXT,
                                -1, "invalid input syntax for type boolean: \"%.*s\"",
                                (int)(n > 64 ? 64 : n), v);
        return 0;
    case SL_OID_BYTEA:
        if (sl__bytea_text(out, v, n) != 0)
            return sl_error_set(err, SL_ERR_INVALID_TEXT, -1,
                                "invalid input syntax for type bytea");
        return 0;
    case SL_OID_TIMESTAMP:
    case SL_OID_TIMESTAMPTZ: sl__ts_text(out, v, n, oid == SL_OID_TIMESTAMPTZ, z); return 0;
    default: sl_strbuf_append_n(out, v, n); return 0;
    }
}
