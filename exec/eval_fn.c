/*
** eval_fn.c — scalar functions and LIKE for the evaluator (eval.c):
** string functions on UTF-8 code points (UPPER/LOWER: ASCII and Latin-1
** only), math (ABS, ROUND, FLOOR, CEIL, POWER, SQRT), time functions over
** base/sl_time.h (DATE_FORMAT, TO_TIMESTAMP, TO_DATE, UNIX_TIMESTAMP,
** FROM_UNIXTIME, CONVERT_TZ, CURRENT_TIMESTAMP & co. from the injected clock, in the
** session's time zone sl_eval_env.tz), CONCAT,
** LIKE with constant patterns compiled once (exact / prefix / suffix /
** contains fast paths, a backtracking matcher otherwise), and Java's
** Double.toString for CAST(DOUBLE AS STRING).
**
** Every function here is strict (NULL in any argument -> NULL) and skips
** rows that are not selected (see eval_int.h). Choices: UPPER/LOWER map
** ASCII and Latin-1 (U+00C0..U+00FE) only, other code points unchanged;
** POSITION(needle, haystack); LIKE has no escape character unless ESCAPE
** is given, and an escape followed by anything but %, _ or itself is 22025;
** TO_TIMESTAMP / TO_DATE / UNIX_TIMESTAMP / DATE_FORMAT give NULL for text
** that does not parse (or a bad pattern), 22008 for a date and time outside
** the TIMESTAMP range; where Flink gives NULL but the
** planner typed the result NOT NULL (SUBSTRING with a negative length of
** NOT NULL arguments), the empty string is returned instead; ROUND(DOUBLE, d)
** scales by 10^d and rounds half away from zero.
**
** Main routines: sl__compile_fn, sl__compile_like, sl__compile_regex, sl__format_double.
*/
#include "eval_int.h"
#include "../base/sl_dtoa.h"
#include "../base/sl_pgtype.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ========================================================================
** UTF-8.
*/

/* Length of the UTF-8 sequence starting with byte c (1 for invalid bytes). */
static inline size_t sl__u8len(unsigned char c)
{
    return c < 0x80 ? 1 : c < 0xE0 ? (c < 0xC0 ? 1 : 2) : c < 0xF0 ? 3 : c < 0xF8 ? 4 : 1;
}

/* ========================================================================
** Shortest digits of a double (sl_double_digits) and Java's
** Double.toString / Float.toString.
*/

/* |a| (finite, non-zero) exactly as m * 10^k, m < 10^18 and not a multiple
** of 10: returns m's digit count (the value's significant digits), 0 when
** there are more than 18 of them (or more than this cheap test finds:
** integers above 2^60). a = odd * 2^e: for e < 0 its digits are those of
** odd * 5^-e, at least 19 of them once -e > 26. */
static int sl__exact_digits(double a, uint64_t *m, int *k)
{
    uint64_t b;
    memcpy(&b, &a, sizeof b);
    int be = (int)(b >> 52 & 0x7ff);
    uint64_t odd = b & ((1ull << 52) - 1);
    if (be)
        odd |= 1ull << 52;
    int e = (be ? be : 1) - 1075, tz = __builtin_ctzll(odd);
    odd >>= tz;
    e += tz;
    uint64_t v;
    *k = 0;
    if (e >= 0) {
        if (e + 64 - __builtin_clzll(odd) > 60)
            return 0;
        for (v = odd << e; v % 10 == 0; v /= 10)
            ++*k;
    } else {
        if (e < -26)
            return 0;
        unsigned __int128 w = odd;
        for (int i = 0; i < -e; i++)
            w *= 5;
        if (w >= 1000000000000000000ull)
            return 0;
        v = (uint64_t)w;
        *k = e;
    }
    *m = v;
    int n = 1;
    for (uint64_t p = 10; p <= v && n < 19; p *= 10)
        n++;
    return n;
}

/* Is the gap to the next value below |a| half the gap above (a power of
** two, not the least normal): the value's reading interval is lopsided. */
static bool sl__lopsided(double a, bool single)
{
    if (single) {
        float f = (float)a;
        uint32_t b;
        memcpy(&b, &f, sizeof b);
        return (b & 0x7fffff) == 0 && (b >> 23 & 0xff) > 1;
    }
    uint64_t b;
    memcpy(&b, &a, sizeof b);
    return (b & ((1ull << 52) - 1)) == 0 && (b >> 52 & 0x7ff) > 1;
}

/* |a| to p significant digits as printf's "%.*e" rounds (halves to even;
** the library rounds them up: a half is exact, so it is a value with
** p + 1 significant digits, len of em * 10^ek when len > 0). Returns p. */
static int sl__digits_p(double a, int p, int len, uint64_t em, int ek, char *dg, int *point)
{
    int n = sl_dtoa_precision(a, p, dg, point);
    if (len == p + 1 && em % 10 == 5 && em / 10 % 2 == 0) { /* round down */
        uint64_t t = em / 10;
        for (int i = p - 1; i >= 0; i--, t /= 10)
            dg[i] = (char)('0' + t % 10);
        *point = len + ek;
        n = p;
    }
    return n;
}

int sl_double_digits(double d, bool single, int min_digits, char *digits, int *exp, bool *neg)
{
    /* The result is the fewest digits p >= min_digits whose printf-rounded
    ** text reads back as d, as a bisection over p found it (kept
    ** byte-identical to what Sluice wrote before double-conversion; the
    ** bisection is in test_exec_double_digits). Where the reading interval
    ** is even on both sides, reading back is monotonic in p and the
    ** rounded text of p digits is the library's shortest: one call. Left
    ** for the search below: a lopsided interval (a power of two) whose
    ** digits are not exact, a value whose exact digits are one more than the
    ** shortest (a tie: printf and the library may round it apart), and
    ** fewer digits than min_digits. */
    *neg = signbit(d);
    double a = fabs(d);
    if (a == 0 || !isfinite(a)) { /* outside the contract: not a crash */
        digits[0] = '0';
        digits[1] = 0;
        *exp = 0;
        return 1;
    }
    if (single) {
        float f = (float)a;
        if (isfinite(f) && f != 0)
            a = f;
        else
            single = false; /* not a float: its own digits */
    }
    uint64_t em = 0;
    int ek = 0, point = 0;
    int len = sl__exact_digits(a, &em, &ek);
    int n = sl_dtoa_shortest(a, single, digits, &point);
    bool lopsided = sl__lopsided(a, single);
    if (n >= min_digits && len != n + 1 && (!lopsided || len == n)) {
        /* the library's shortest */
    } else if (n < min_digits && !lopsided) {
        n = sl__digits_p(a, min_digits, len, em, ek, digits, &point); /* it reads back */
    } else {
        /* Search as printf and strtod did: digits p rounded as printf does,
        ** read back (as a float when single) as strtod does. The first try
        ** is two short of the most; the best try is kept. */
        char e[SL_DTOA_DIGITS];
        int lo = min_digits, hi = single ? 9 : 17, best = 0; /* hi always reads back */
        bool first = true;
        while (lo < hi) {
            int p = first && hi - 2 > lo ? hi - 2 : (lo + hi) / 2, ep;
            first = false;
            int k = sl__digits_p(a, p, len, em, ek, e, &ep);
            double back = sl_dtoa_strtod(e, k, ep);
            if (single ? (float)back == (float)a : back == a) {
                hi = p;
                best = k;
                memcpy(digits, e, (size_t)k);
                point = ep;
            } else {
                lo = p + 1;
            }
        }
        n = best ? best : sl__digits_p(a, lo, len, em, ek, digits, &point);
    }
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = 0;
    *exp = point - 1;
    return n;
}

int sl__format_double(double d, bool is_float, char *buf)
{
    if (isnan(d))
        return sprintf(buf, "NaN");
    if (isinf(d))
        return sprintf(buf, d < 0 ? "-Infinity" : "Infinity");
    if (d == 0)
        return sprintf(buf, signbit(d) ? "-0.0" : "0.0");
    /* shortest %e text that reads back as the same value, with at least two
    ** digits as Java writes them (d.d): the closest such, so Double.MIN_VALUE
    ** is 4.9E-324, not 5.0E-324 */
    char digits[24];
    int exp;
    bool neg;
    int nd = sl_double_digits(d, is_float, 2, digits, &exp, &neg);
    char *o = buf;
    if (neg)
        *o++ = '-';
    double a = fabs(d);
    if (a >= 1e-3 && a < 1e7) {
        if (exp >= 0) {
            for (int i = 0; i <= exp; i++)
                *o++ = i < nd ? digits[i] : '0';
            *o++ = '.';
            if (nd > exp + 1)
                for (int i = exp + 1; i < nd; i++)
                    *o++ = digits[i];
            else
                *o++ = '0';
        } else {
            *o++ = '0';
            *o++ = '.';
            for (int i = 0; i < -exp - 1; i++)
                *o++ = '0';
            for (int i = 0; i < nd; i++)
                *o++ = digits[i];
        }
        *o = 0;
    } else {
        *o++ = digits[0];
        *o++ = '.';
        if (nd > 1)
            for (int i = 1; i < nd; i++)
                *o++ = digits[i];
        else
            *o++ = '0';
        *o++ = 'E';
        if (exp < 0)
            *o++ = '-';
        int ae = exp < 0 ? -exp : exp; /* at most 324 */
        if (ae >= 100)
            *o++ = (char)('0' + ae / 100);
        if (ae >= 10)
            *o++ = (char)('0' + ae / 10 % 10);
        *o++ = (char)('0' + ae % 10);
        *o = 0;
    }
    return (int)(o - buf);
}

/* ========================================================================
** Common kernel scaffolding.
*/

/* Result is NULL for every row (a strict function with an untyped NULL). */
int sl__k_all_null(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    memset(nd->nulls, 1, (size_t)ev->n);
    return 0;
}

void sl__null_result(sl__node *nd, int i)
{
    if (!nd->type.not_null) {
        nd->nulls[i] = 1;
    } else if (nd->phys == SL_PHYS_STR) {
        nd->v.str[i].ptr = "";
        nd->v.str[i].len = 0;
    } else {
        memset((char *)nd->v.raw + (size_t)i * (nd->phys == SL_PHYS_I128 ? 16 : 8), 0,
               nd->phys == SL_PHYS_I128 ? 16 : nd->phys == SL_PHYS_BOOL ? 1 : 8);
    }
}

const char *sl__cstr(sl__eval *ev, const sl_str *s, char *buf, size_t cap)
{
    char *d = s->len < cap ? buf : sl_arena_alloc(ev->arena, (size_t)s->len + 1);
    if (s->len)
        memcpy(d, s->ptr, s->len);
    d[s->len] = 0;
    return d;
}

/* ========================================================================
** String functions.
*/

/* Latin-1 aware case mapping of a UTF-8 string (lengths are preserved). */
static int sl__k_case_map(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl_str *a = nd->kids[0]->v.str;
    bool upper = nd->op == SL_FN_UPPER;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        uint32_t len = a[i].len;
        unsigned char *d = len ? sl_arena_alloc(ev->arena, len) : NULL;
        const unsigned char *s = (const unsigned char *)a[i].ptr;
        for (uint32_t j = 0; j < len; j++) {
            unsigned char c = s[j];
            if (upper) {
                if (c >= 'a' && c <= 'z')
                    c -= 32;
                else if (c == 0xC3 && j + 1 < len && s[j + 1] >= 0xA0 && s[j + 1] <= 0xBE &&
                         s[j + 1] != 0xB7) {
                    d[j++] = c;
                    c = (unsigned char)(s[j] - 0x20);
                }
            } else {
                if (c >= 'A' && c <= 'Z')
                    c += 32;
                else if (c == 0xC3 && j + 1 < len && s[j + 1] >= 0x80 && s[j + 1] <= 0x9E &&
                         s[j + 1] != 0x97) {
                    d[j++] = c;
                    c = (unsigned char)(s[j] + 0x20);
                }
            }
            d[j] = c;
        }
        nd->v.str[i].ptr = d ? (const char *)d : "";
        nd->v.str[i].len = len;
    }
    return 0;
}

/* SUBSTRING(s, pos[, len]) as Flink: 1-based in code points; pos 0 is 1; a
** negative pos counts from the end; a negative length gives NULL. */
static int sl__k_substring(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl_str *a = nd->kids[0]->v.str;
    const int64_t *pos = nd->kids[1]->v.i64;
    const int64_t *ln = nd->nkids > 2 ? nd->kids[2]->v.i64 : NULL;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        int64_t len = ln ? ln[i] : INT64_MAX;
        if (len < 0) {
            sl__null_result(nd, i);
            continue;
        }
        const char *s = a[i].ptr;
        size_t nb = a[i].len;
        int64_t nchars = (int64_t)sl_utf8_count(s, nb), start;
        if (pos[i] > 0)
            start = pos[i] - 1;
        else if (pos[i] < 0)
            start = nchars + pos[i];
        else
            start = 0;
        if (start < 0 || start >= nchars) {
            nd->v.str[i].ptr = "";
            nd->v.str[i].len = 0;
            continue;
        }
        int64_t end = nchars - start < len ? nchars : start + len;
        size_t b0 = sl_utf8_skip(s, nb, (size_t)start);
        size_t b1 = b0 + sl_utf8_skip(s + b0, nb - b0, (size_t)(end - start));
        nd->v.str[i].ptr = s + b0;
        nd->v.str[i].len = (uint32_t)(b1 - b0);
    }
    return 0;
}

/* TRIM / LTRIM / RTRIM of spaces (aliases the input bytes). */
static int sl__k_trim(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl_str *a = nd->kids[0]->v.str;
    bool left = nd->op != SL_FN_RTRIM, right = nd->op != SL_FN_LTRIM;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        const char *p = a[i].ptr, *e = a[i].ptr + a[i].len;
        while (left && p < e && *p == ' ')
            p++;
        while (right && e > p && e[-1] == ' ')
            e--;
        nd->v.str[i].ptr = p;
        nd->v.str[i].len = (uint32_t)(e - p);
    }
    return 0;
}

static int sl__k_char_length(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl_str *a = nd->kids[0]->v.str;
    for (int i = 0; i < n; i++)
        if (SL__LIVE(nd, sel, i))
            nd->v.i64[i] = (int64_t)sl_utf8_count(a[i].ptr, a[i].len);
    return 0;
}

/* Byte offset of needle in hay, or -1. */
static long sl__find(const char *hay, size_t hn, const char *needle, size_t nn)
{
    if (nn == 0)
        return 0;
    const char *r = hn >= nn ? memmem(hay, hn, needle, nn) : NULL;
    return r ? (long)(r - hay) : -1;
}

/* REPLACE(s, from, to): every non-overlapping occurrence; empty from = s. */
static int sl__k_replace(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl_str *a = nd->kids[0]->v.str, *f = nd->kids[1]->v.str, *t = nd->kids[2]->v.str;
    sl_strbuf *sb = nd->aux;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        if (f[i].len == 0) {
            nd->v.str[i] = a[i];
            continue;
        }
        sl_strbuf_reset(sb);
        const char *p = a[i].ptr;
        size_t rest = a[i].len;
        long at;
        while ((at = sl__find(p, rest, f[i].ptr, f[i].len)) >= 0) {
            sl_strbuf_append_n(sb, p, (size_t)at);
            sl_strbuf_append_n(sb, t[i].ptr, t[i].len);
            p += (size_t)at + f[i].len;
            rest -= (size_t)at + f[i].len;
        }
        sl_strbuf_append_n(sb, p, rest);
        sl__set_str(nd, ev, i, sb->buf ? sb->buf : "", sb->len);
    }
    return 0;
}

/* POSITION(needle, haystack): 1-based code point index, 0 if absent. */
static int sl__k_position(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl_str *needle = nd->kids[0]->v.str, *hay = nd->kids[1]->v.str;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        long at = sl__find(hay[i].ptr, hay[i].len, needle[i].ptr, needle[i].len);
        nd->v.i64[i] = at < 0 ? 0 : (int64_t)sl_utf8_count(hay[i].ptr, (size_t)at) + 1;
    }
    return 0;
}

/* LPAD / RPAD(s, len, pad) as Flink: the result has exactly len code
** points (s is cut to len); len < 0 or an empty pad give NULL. */
static int sl__k_pad(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl_str *a = nd->kids[0]->v.str, *pad = nd->kids[2]->v.str;
    const int64_t *ln = nd->kids[1]->v.i64;
    bool left = nd->op == SL_FN_LPAD;
    sl_strbuf *sb = nd->aux;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        int64_t len = ln[i];
        if (len < 0 || pad[i].len == 0) {
            sl__null_result(nd, i);
            continue;
        }
        if (len > 1000000)
            return sl__fail(ev, nd, SL_ERR_PROGRAM_LIMIT, "requested length too large");
        size_t nchars = sl_utf8_count(a[i].ptr, a[i].len);
        size_t keep = nchars < (size_t)len ? nchars : (size_t)len;
        size_t npad = (size_t)len - keep;
        size_t keep_b = sl_utf8_skip(a[i].ptr, a[i].len, keep);
        size_t padchars = sl_utf8_count(pad[i].ptr, pad[i].len);
        sl_strbuf_reset(sb);
        if (!left)
            sl_strbuf_append_n(sb, a[i].ptr, keep_b);
        while (npad > 0) {
            size_t take = npad < padchars ? npad : padchars;
            sl_strbuf_append_n(sb, pad[i].ptr, sl_utf8_skip(pad[i].ptr, pad[i].len, take));
            npad -= take;
        }
        if (left)
            sl_strbuf_append_n(sb, a[i].ptr, keep_b);
        sl__set_str(nd, ev, i, sb->buf ? sb->buf : "", sb->len);
    }
    return 0;
}

/* CONCAT(a, b, ...) and a || b: NULL if any argument is NULL. */
static int sl__k_concat(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        size_t total = 0;
        for (int k = 0; k < nd->nkids; k++)
            total += nd->kids[k]->v.str[i].len;
        char *d = total ? sl_arena_alloc(ev->arena, total) : NULL, *o = d;
        for (int k = 0; k < nd->nkids; k++) {
            const sl_str *s = &nd->kids[k]->v.str[i];
            if (s->len) {
                memcpy(o, s->ptr, s->len);
                o += s->len;
            }
        }
        nd->v.str[i].ptr = d ? d : "";
        nd->v.str[i].len = (uint32_t)total;
    }
    return 0;
}

/* ========================================================================
** Math.
*/

static int sl__k_abs(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl__node *a = nd->kids[0];
    switch (nd->phys) {
    case SL_PHYS_I64:
        for (int i = 0; i < n; i++) {
            int64_t x = a->v.i64[i];
            if (SL__LIVE(nd, sel, i) && (x == INT64_MIN || -x > nd->hi))
                return sl__fail(ev, nd, SL_ERR_NUMERIC_RANGE, "%s out of range",
                                nd->type.id == SL_TYPE_INT        ? "integer"
                                : nd->type.id == SL_TYPE_SMALLINT ? "smallint"
                                : nd->type.id == SL_TYPE_TINYINT  ? "tinyint"
                                                                  : "bigint");
            nd->v.i64[i] = x < 0 && x != INT64_MIN ? -x : x;
        }
        break;
    case SL_PHYS_F64:
        for (int i = 0; i < n; i++)
            nd->v.f64[i] = fabs(a->v.f64[i]);
        break;
    case SL_PHYS_I128:
        for (int i = 0; i < n; i++)
            if (SL__LIVE(nd, sel, i))
                nd->v.i128[i] = a->v.i128[i] < 0 ? -a->v.i128[i] : a->v.i128[i];
        break;
    default: break;
    }
    return 0;
}

/* 10^k as int64 for 0 <= k <= 18. */
static int64_t sl__p10(int k)
{
    int64_t r = 1;
    while (k-- > 0)
        r *= 10;
    return r;
}

/* ROUND(x[, d]) HALF_UP; FLOOR; CEIL (op selects). */
static int sl__k_round(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl__node *a = nd->kids[0];
    const int64_t *dv = nd->nkids > 1 ? nd->kids[1]->v.i64 : NULL;
    int op = nd->op;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        int64_t d = dv ? dv[i] : 0;
        if (d > 100)
            d = 100;
        if (d < -100)
            d = -100;
        switch (nd->phys) {
        case SL_PHYS_I64: {
            int64_t x = a->v.i64[i];
            if (op == SL_FN_ROUND && d < 0) {
                if (d < -18) {
                    x = 0;
                } else {
                    int64_t m = sl__p10((int)-d), q = x / m, r = x % m;
                    if ((r < 0 ? -r : r) * 2 >= m)
                        q += x < 0 ? -1 : 1;
                    if (__builtin_mul_overflow(q, m, &x) || x < nd->lo || x > nd->hi)
                        return sl__fail(ev, nd, SL_ERR_NUMERIC_RANGE, "integer out of range");
                }
            }
            nd->v.i64[i] = x;
            break;
        }
        case SL_PHYS_F64: {
            double x = a->v.f64[i], r;
            if (op == SL_FN_FLOOR)
                r = floor(x);
            else if (op == SL_FN_CEIL)
                r = ceil(x);
            else if (!isfinite(x) || d > 15)
                r = x;
            else {
                double m = pow(10.0, (double)d);
                r = round(x * m) / m;
                if (!isfinite(r))
                    r = x;
            }
            nd->v.f64[i] = nd->type.id == SL_TYPE_FLOAT ? (double)(float)r : r;
            break;
        }
        case SL_PHYS_I128: {
            int sa = a->type.scale, p2 = nd->type.precision, s2 = nd->type.scale, rc;
            if (op == SL_FN_FLOOR)
                rc = sl_dec_floor(a->v.i128[i], sa, p2, s2, &nd->v.i128[i]);
            else if (op == SL_FN_CEIL)
                rc = sl_dec_ceil(a->v.i128[i], sa, p2, s2, &nd->v.i128[i]);
            else
                rc = sl_dec_round(a->v.i128[i], sa, (int)d, p2, s2, &nd->v.i128[i]);
            if (rc < 0) {
                sl__fail(ev, nd, SL_ERR_NUMERIC_RANGE, "numeric field overflow");
                sl_error_detail(ev->err, "A field with precision %d, scale %d cannot hold the result.",
                                p2, s2);
                return -1;
            }
            break;
        }
        default: break;
        }
    }
    return 0;
}

static int sl__k_power_sqrt(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const double *a = nd->kids[0]->v.f64;
    if (nd->op == SL_FN_SQRT) {
        for (int i = 0; i < n; i++)
            nd->v.f64[i] = sqrt(a[i]);
    } else {
        const double *b = nd->kids[1]->v.f64;
        for (int i = 0; i < n; i++)
            nd->v.f64[i] = pow(a[i], b[i]);
    }
    return 0;
}

/* ========================================================================
** Time functions.
*/

#define SL__DEFAULT_TS_PATTERN "yyyy-MM-dd HH:mm:ss"

/* The session's time zone (sl_eval_env.tz): instant -> local date-time
** and back (java.time's rules in gaps and overlaps). Out of range is 22008
** at nd. */
static int sl__to_local(sl__eval *ev, const sl__node *nd, int64_t instant, int64_t *local)
{
    if (sl_tz_to_local(ev->env->tz, instant, local) != 0)
        return sl__fail(ev, nd, "22008", "timestamp out of range");
    return 0;
}

static int sl__from_local(sl__eval *ev, const sl__node *nd, int64_t local, int64_t *instant)
{
    if (sl_tz_from_local(ev->env->tz, local, instant) != 0)
        return sl__fail(ev, nd, "22008", "timestamp out of range");
    return 0;
}

/* sl__tz_shift's kernel: op 1 = to local, 0 = from local. */
static int sl__k_tz_shift(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const int64_t *a = nd->kids[0]->v.i64;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        int rc = nd->op ? sl__to_local(ev, nd, a[i], &nd->v.i64[i])
                        : sl__from_local(ev, nd, a[i], &nd->v.i64[i]);
        if (rc < 0)
            return -1;
    }
    return 0;
}

sl__node *sl__tz_shift(sl_eval_prog *p, sl__node *k, bool to_local)
{
    if (!k)
        return NULL;
    sl_type t = k->type;
    t.id = to_local ? SL_TYPE_TIMESTAMP : SL_TYPE_TIMESTAMP_LTZ;
    sl__node *nd = sl__node_new(p, SL__N_OP, t, k->pos, 1);
    nd->kids[0] = k;
    nd->op = to_local;
    nd->run = sl__k_tz_shift;
    nd->is_volatile = true; /* the zone is the evaluation's */
    nd->can_fail = true;
    return nd;
}

/* CURRENT_TIMESTAMP, NOW (the instant), LOCALTIMESTAMP (millisecond
** precision), CURRENT_DATE (in the session's time zone), UNIX_TIMESTAMP():
** from the injected clock. */
static int sl__k_now(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    int n = ev->n;
    int64_t now = ev->env->now_nanos, v;
    switch (nd->op) {
    case SL_FN_CURRENT_DATE:
        if (sl__to_local(ev, nd, now, &v) < 0)
            return -1;
        v = v / SL_NANOS_PER_DAY - (v % SL_NANOS_PER_DAY < 0);
        break;
    case SL_FN_LOCALTIMESTAMP:
        if (sl__to_local(ev, nd, now, &v) < 0)
            return -1;
        v = sl_time_truncate(v, 3);
        break;
    case SL_FN_UNIX_TIMESTAMP:
        v = now / SL_NANOS_PER_SEC - (now % SL_NANOS_PER_SEC < 0);
        break;
    default: v = sl_time_truncate(now, 3); break;
    }
    memset(nd->nulls, 0, (size_t)n);
    for (int i = 0; i < n; i++)
        nd->v.i64[i] = v;
    return 0;
}

/* Timestamp of a DATE_FORMAT argument (TIMESTAMP or string); false when a
** string does not parse. */
static bool sl__ts_arg(const sl__node *k, int i, int64_t *ts)
{
    if (k->phys == SL_PHYS_I64) {
        *ts = k->v.i64[i];
        return true;
    }
    return sl_ts_parse(k->v.str[i].ptr, k->v.str[i].len, ts) == 0;
}

/* DATE_FORMAT's scratch: the text of the last instant formatted, reused
** while the instants stay in the same unit of the pattern (a day for
** 'yyyy-MM-dd': event times move slowly, row after row). */
typedef struct sl__fmt_memo {
    sl_strbuf sb;      /* the last text */
    sl_strbuf pattern; /* its pattern */
    int64_t unit;      /* the pattern's unit (sl_ts_pattern_unit), 0 = nothing kept */
    int64_t key;       /* the instant's unit number */
} sl__fmt_memo;

static void sl__fmt_memo_free(void *p)
{
    sl__fmt_memo *m = p;
    sl_strbuf_free(&m->sb);
    sl_strbuf_free(&m->pattern);
    sl_free(m);
}

/* DATE_FORMAT(ts, pattern) and FROM_UNIXTIME(seconds[, pattern]); the
** instants of FROM_UNIXTIME and of a TIMESTAMP_LTZ are formatted as local
** date-times of the session's time zone. */
static int sl__k_format(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl__node *a = nd->kids[0];
    sl__fmt_memo *m = nd->aux;
    sl_strbuf *sb = &m->sb;
    /* a constant pattern (the usual case) is read and checked once */
    bool kpat = nd->nkids < 2 || nd->kids[1]->kind == SL__N_CONST;
    const char *pattern = NULL;
    char pb[128];
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        bool fresh = !pattern || !kpat;
        if (fresh)
            pattern = nd->nkids > 1 ? sl__cstr(ev, &nd->kids[1]->v.str[i], pb, sizeof pb)
                                    : SL__DEFAULT_TS_PATTERN;
        int64_t ts;
        if (nd->op == SL_FN_FROM_UNIXTIME) {
            if (__builtin_mul_overflow(a->v.i64[i], SL_NANOS_PER_SEC, &ts))
                return sl__fail(ev, nd, "22008", "timestamp out of range");
            if (sl__to_local(ev, nd, ts, &ts) < 0)
                return -1;
        } else if (!sl__ts_arg(a, i, &ts)) {
            sl__null_result(nd, i);
            continue;
        } else if (a->type.id == SL_TYPE_TIMESTAMP_LTZ && sl__to_local(ev, nd, ts, &ts) < 0) {
            return -1;
        }
        if (fresh && (m->unit <= 0 || strcmp(sl_strbuf_cstr(&m->pattern), pattern) != 0)) {
            sl_strbuf_reset(&m->pattern);
            sl_strbuf_append(&m->pattern, pattern);
            m->unit = sl_ts_pattern_unit(pattern);
            m->key = INT64_MIN; /* no text kept for it yet */
        }
        int64_t key = m->unit > 0 ? ts / m->unit - (ts % m->unit < 0) : INT64_MIN; /* floor */
        if (key != m->key || key == INT64_MIN) {
            sl_strbuf_reset(sb);
            if (sl_ts_format_pattern(ts, pattern, sb) < 0) {
                m->key = INT64_MIN;
                sl__null_result(nd, i);
                continue;
            }
            m->key = key;
        }
        sl__set_str(nd, ev, i, sb->buf ? sb->buf : "", sb->len);
    }
    return 0;
}

/* TO_TIMESTAMP(s[, pattern]) -> TIMESTAMP(3); TO_DATE(s[, pattern]);
** UNIX_TIMESTAMP(s[, pattern]) -> seconds of the instant the text names
** in the session's time zone (text after the pattern is ignored, as Flink's
** SimpleDateFormat does). Unparsable text gives NULL. */
static int sl__k_parse_time(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl_str *a = nd->kids[0]->v.str;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        int64_t ts;
        int rc;
        if (nd->nkids > 1) {
            char pb[128];
            const char *pattern = sl__cstr(ev, &nd->kids[1]->v.str[i], pb, sizeof pb);
            rc = nd->op == SL_FN_UNIX_TIMESTAMP
                     ? sl_ts_parse_pattern_prefix(a[i].ptr, a[i].len, pattern, &ts)
                     : sl_ts_parse_pattern(a[i].ptr, a[i].len, pattern, &ts);
        } else if (nd->op == SL_FN_TO_DATE) {
            rc = sl_date_parse(a[i].ptr, a[i].len, &ts);
            if (rc == 0) {
                nd->v.i64[i] = ts;
                continue;
            }
        } else if (nd->op == SL_FN_UNIX_TIMESTAMP) {
            rc = sl_ts_parse_pattern_prefix(a[i].ptr, a[i].len, SL__DEFAULT_TS_PATTERN, &ts);
        } else {
            rc = sl_ts_parse(a[i].ptr, a[i].len, &ts);
        }
        if (rc == -2) /* a real date and time, outside the range: not NULL */
            return sl__ts_range_error(ev, nd);
        if (rc < 0) {
            sl__null_result(nd, i);
            continue;
        }
        switch (nd->op) {
        case SL_FN_TO_DATE:
            nd->v.i64[i] = ts / SL_NANOS_PER_DAY - (ts % SL_NANOS_PER_DAY < 0);
            break;
        case SL_FN_UNIX_TIMESTAMP:
            /* Flink parses with java.util's calendar: in a daylight-saving
            ** overlap the later offset (CAST takes the earlier). */
            if (sl_tz_from_local_later(ev->env->tz, ts, &ts) != 0)
                return sl__fail(ev, nd, "22008", "timestamp out of range");
            nd->v.i64[i] = ts / SL_NANOS_PER_SEC - (ts % SL_NANOS_PER_SEC < 0);
            break;
        default: nd->v.i64[i] = sl_time_truncate(ts, 3); break;
        }
    }
    return 0;
}

/* CONVERT_TZ(s, from, to) (Flink's DateTimeUtils.convertTz): the text s
** read as 'yyyy-MM-dd HH:mm:ss' (as java.text.SimpleDateFormat: text after
** it ignored) in zone from (java.util.Calendar's rule in an overlap: the
** later offset; a gap moves forward), written in zone to as
** 'yyyy-MM-dd HH:mm:ss'. Text that does not parse gives NULL; a name that
** is not a zone (base/sl_tz.h) is GMT, as java.util.TimeZone makes it. The
** zones opened are kept in aux (a few names: usually two constants). */
#define SL__TZ_CACHE 8

typedef struct sl__tz_cache {
    char *name[SL__TZ_CACHE];
    sl_tz *tz[SL__TZ_CACHE]; /* NULL: UTC */
    int next;                /* slot replaced next */
} sl__tz_cache;

static void sl__tz_cache_free(void *aux)
{
    sl__tz_cache *c = aux;
    for (int k = 0; k < SL__TZ_CACHE; k++) {
        sl_free(c->name[k]);
        sl_tz_free(c->tz[k]);
    }
    sl_free(c);
}

/* The zone named s (NULL: UTC, also for a name that is not a zone). */
static const sl_tz *sl__tz_cached(sl__tz_cache *c, sl__eval *ev, const sl_str *s)
{
    for (int k = 0; k < SL__TZ_CACHE; k++)
        if (c->name[k] && strlen(c->name[k]) == s->len && memcmp(c->name[k], s->ptr, s->len) == 0)
            return c->tz[k];
    char buf[128];
    const char *name = sl__cstr(ev, s, buf, sizeof buf);
    sl_tz *tz = NULL;
    sl_error e = SL_ERROR_INIT;
    /* 'default' is the machine's zone to sl_tz_open, an unknown name (GMT) to Java */
    if (strcmp(name, "default") == 0 || strlen(name) != s->len || sl_tz_open(name, &tz, &e) != 0)
        tz = NULL;
    sl_error_reset(&e);
    int k = c->next;
    c->next = (k + 1) % SL__TZ_CACHE;
    sl_free(c->name[k]);
    sl_tz_free(c->tz[k]);
    c->name[k] = sl_strndup(s->ptr, s->len);
    c->tz[k] = tz;
    return tz;
}

static int sl__k_convert_tz(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl_str *a = nd->kids[0]->v.str, *from = nd->kids[1]->v.str, *to = nd->kids[2]->v.str;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        int64_t local, instant;
        int rc = sl_ts_parse_pattern_prefix(a[i].ptr, a[i].len, SL__DEFAULT_TS_PATTERN, &local);
        if (rc == -2) /* a real date and time, outside the range: not NULL */
            return sl__ts_range_error(ev, nd);
        if (rc < 0) {
            sl__null_result(nd, i);
            continue;
        }
        const sl_tz *tf = sl__tz_cached(nd->aux, ev, &from[i]);
        const sl_tz *tt = sl__tz_cached(nd->aux, ev, &to[i]);
        if (sl_tz_from_local_later(tf, local, &instant) != 0 ||
            sl_tz_to_local(tt, instant, &local) != 0)
            return sl__ts_range_error(ev, nd);
        char buf[64];
        int len = sl_ts_format(local, 0, buf);
        sl__set_str(nd, ev, i, buf, (size_t)len);
    }
    return 0;
}

/* TO_TIMESTAMP_LTZ(epoch[, precision]): epoch seconds (op 0) or
** milliseconds as an instant; 22008 past the TIMESTAMP range. */
static int sl__k_to_ltz(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const int64_t *a = nd->kids[0]->v.i64;
    int64_t unit = nd->op == 0 ? SL_NANOS_PER_SEC : SL_NANOS_PER_MILLI;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        if (__builtin_mul_overflow(a[i], unit, &nd->v.i64[i]))
            return sl__fail(ev, nd, "22008", "timestamp out of range");
    }
    return 0;
}

/* ========================================================================
** Compilation of function calls.
*/

static void sl__free_strbuf(void *p)
{
    sl_strbuf_free(p);
    sl_free(p);
}

void sl__with_strbuf(sl__node *nd)
{
    nd->aux = sl_calloc(1, sizeof(sl_strbuf));
    nd->aux_free = sl__free_strbuf;
}

/* PostgreSQL's catalog functions over planner/syscat.c's relations: one
** owner ("sluice", the role every object belongs to), every relation of
** pg_catalog and public visible, every database UTF8; an array is kept as
** its text (ARRAY_TO_STRING gives it back). */
static int sl__k_pg_catalog(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        switch (nd->op) {
        case SL_FN_PG_GET_USERBYID: sl__set_str(nd, ev, i, "sluice", 6); break;
        case SL_FN_PG_ENCODING_TO_CHAR: {
            bool utf8 = nd->kids[0]->v.i64[i] == 6;
            sl__set_str(nd, ev, i, utf8 ? "UTF8" : "", utf8 ? 4 : 0);
            break;
        }
        case SL_FN_PG_TABLE_IS_VISIBLE: nd->v.b[i] = 1; break;
        case SL_FN_PG_REGOID: nd->v.i64[i] = nd->kids[0]->v.i64[i]; break;
        case SL_FN_PG_REGCLASS: {
            if (nd->kids[0]->phys != SL_PHYS_STR) {
                nd->v.i64[i] = nd->kids[0]->v.i64[i];
                break;
            }
            /* schema.name, else pg_catalog for pg_* (searched first, as in
            ** PostgreSQL), else public */
            const sl_str *a = &nd->kids[0]->v.str[i];
            size_t d = 0;
            while (d < a->len && d < 10 && a->ptr[d] >= '0' && a->ptr[d] <= '9')
                d++;
            if (d > 0 && d == a->len) { /* an oid, as PostgreSQL's regclass input */
                int64_t oid = 0;
                for (size_t k = 0; k < d; k++)
                    oid = oid * 10 + (a->ptr[k] - '0');
                nd->v.i64[i] = oid;
                break;
            }
            const char *dot = memchr(a->ptr, '.', a->len);
            char schema[64];
            size_t off = 0;
            if (dot && (size_t)(dot - a->ptr) < sizeof schema) {
                memcpy(schema, a->ptr, (size_t)(dot - a->ptr));
                schema[dot - a->ptr] = 0;
                off = (size_t)(dot - a->ptr) + 1;
            } else {
                snprintf(schema, sizeof schema, "%s",
                         a->len > 3 && memcmp(a->ptr, "pg_", 3) == 0 ? "pg_catalog" : "public");
            }
            nd->v.i64[i] = sl_pg_relation_oid(schema, a->ptr + off, a->len - off);
            break;
        }
        case SL_FN_PG_SIZE_PRETTY: {
            /* PostgreSQL's: bytes below 10 kB, then kB, MB... half rounded */
            static const char *const units[] = {"kB", "MB", "GB", "TB", "PB"};
            int64_t v = nd->kids[0]->v.i64[i];
            char buf[48];
            int len;
            if (v > -10240 && v < 10240) {
                len = snprintf(buf, sizeof buf, "%" PRId64 " bytes", v);
            } else {
                v /= 512; /* one extra bit for rounding */
                size_t u = 0;
                while (u + 1 < SL_ARRAY_LEN(units) && (v <= -20479 || v >= 20479)) {
                    v /= 1024;
                    u++;
                }
                len = snprintf(buf, sizeof buf, "%" PRId64 " %s", (v + (v < 0 ? -1 : 1)) / 2,
                               units[u]);
            }
            sl__set_str(nd, ev, i, buf, (size_t)len);
            break;
        }
        case SL_FN_FORMAT_TYPE: {
            sl_strbuf sb = SL_STRBUF_INIT;
            sl_pgtype_format(&sb, nd->kids[0]->v.i64[i], nd->kids[1]->v.i64[i]);
            sl__set_str(nd, ev, i, sb.buf ? sb.buf : "", sb.len);
            sl_strbuf_free(&sb);
            break;
        }
        default: {
            const sl_str *a = &nd->kids[0]->v.str[i];
            sl__set_str(nd, ev, i, a->ptr, a->len);
        }
        }
    }
    return 0;
}

/* PostgreSQL's catalog functions that read the session's objects, through
** the evaluation's sl_eval_env.catalog_def: NULL where there is none (no
** such object, or no catalog: a streaming job). */
static int sl__k_pg_def(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    sl_strbuf sb = SL_STRBUF_INIT;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        int64_t arg = nd->nkids > 1 && nd->kids[1]->phys == SL_PHYS_I64 ? nd->kids[1]->v.i64[i] : 0;
        sl_strbuf_reset(&sb);
        int found = ev->env && ev->env->catalog_def
                        ? ev->env->catalog_def(ev->env->catalog_ctx, nd->op, nd->kids[0]->v.i64[i],
                                               arg, &sb)
                        : 0;
        if (nd->op == SL_FN_PG_RELATION_IS_PUBLISHABLE)
            nd->v.b[i] = found > 0;
        else if (nd->op == SL_FN_PG_TABLE_SIZE && found > 0)
            nd->v.i64[i] = strtoll(sl_strbuf_cstr(&sb), NULL, 10);
        else if (found > 0)
            sl__set_str(nd, ev, i, sb.buf ? sb.buf : "", sb.len);
        else
            sl__null_result(nd, i);
    }
    sl_strbuf_free(&sb);
    return 0;
}

/* The elements of an array kept as its text '{a,"b c",NULL}' (PostgreSQL's
** array output), one per call from *at (0 to begin): false past the last.
** The element's text goes to el (quotes and backslashes removed); *null
** tells an unquoted NULL. Nested arrays are not read (their braces stay). */
bool sl_array_text_next(const char *a, size_t an, size_t *at, sl_strbuf *el, bool *null)
{
    size_t i = *at;
    if (i == 0) {
        while (i < an && a[i] != '{')
            i++;
        i++;
    }
    while (i < an && a[i] == ' ')
        i++;
    if (i >= an || a[i] == '}')
        return false;
    sl_strbuf_reset(el);
    bool quoted = a[i] == '"';
    if (quoted)
        i++;
    while (i < an && (quoted ? a[i] != '"' : a[i] != ',' && a[i] != '}')) {
        if (a[i] == '\\' && i + 1 < an)
            i++;
        sl_strbuf_append_char(el, a[i]);
        i++;
    }
    if (quoted && i < an)
        i++; /* the closing quote */
    *null = !quoted && el->len == 4 && memcmp(el->buf, "NULL", 4) == 0;
    if (i < an && a[i] == ',')
        i++;
    *at = i;
    return true;
}

/* x = ANY (array): TRUE when an element's text is x's, else NULL when an
** element is NULL, else FALSE. */
static int sl__any_eq(const char *x, size_t xn, const char *a, size_t an)
{
    sl_strbuf el = SL_STRBUF_INIT;
    size_t at = 0;
    bool null, has_null = false;
    int r = 0;
    while (r == 0 && sl_array_text_next(a, an, &at, &el, &null)) {
        if (null)
            has_null = true;
        else if (el.len == xn && (xn == 0 || memcmp(el.buf, x, xn) == 0))
            r = 1;
    }
    sl_strbuf_free(&el);
    return r ? r : has_null ? -1 : 0;
}

/* array_to_string(array, sep [, null_text]) (the NULLs left out without
** null_text), array_upper(array, 1) (the number of elements, NULL for an
** empty array or another dimension) and array[i] (element i from 1, NULL
** out of range), over arrays kept as their text. */
static int sl__k_array(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    sl_strbuf el = SL_STRBUF_INIT, out = SL_STRBUF_INIT;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        const sl_str *a = &nd->kids[0]->v.str[i];
        size_t at = 0;
        bool null;
        int64_t k = 0;
        if (nd->op == SL_FN_ARRAY_TO_STRING) {
            const sl_str *sep = &nd->kids[1]->v.str[i];
            const sl_str *nt = nd->nkids > 2 ? &nd->kids[2]->v.str[i] : NULL;
            sl_strbuf_reset(&out);
            while (sl_array_text_next(a->ptr, a->len, &at, &el, &null)) {
                if (null && !nt)
                    continue;
                if (k++ > 0)
                    sl_strbuf_append_n(&out, sep->ptr, sep->len);
                if (null)
                    sl_strbuf_append_n(&out, nt->ptr, nt->len);
                else
                    sl_strbuf_append_n(&out, el.buf ? el.buf : "", el.len);
            }
            sl__set_str(nd, ev, i, out.buf ? out.buf : "", out.len);
        } else if (nd->op == SL_FN_ARRAY_UPPER) {
            while (sl_array_text_next(a->ptr, a->len, &at, &el, &null))
                k++;
            if (k == 0 || nd->kids[1]->v.i64[i] != 1)
                sl__null_result(nd, i);
            else
                nd->v.i64[i] = k;
        } else { /* SL_FN_PG_SUBSCRIPT */
            int64_t want = nd->kids[1]->v.i64[i];
            bool found = false;
            while (!found && sl_array_text_next(a->ptr, a->len, &at, &el, &null))
                found = ++k == want;
            if (found && !null)
                sl__set_str(nd, ev, i, el.buf ? el.buf : "", el.len);
            else
                sl__null_result(nd, i);
        }
    }
    sl_strbuf_free(&el);
    sl_strbuf_free(&out);
    return 0;
}

static int sl__k_any_eq(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        char num[32];
        const char *x = num;
        size_t xn;
        if (nd->kids[0]->phys == SL_PHYS_STR) {
            x = nd->kids[0]->v.str[i].ptr;
            xn = nd->kids[0]->v.str[i].len;
        } else {
            xn = (size_t)snprintf(num, sizeof num, "%" PRId64, nd->kids[0]->v.i64[i]);
        }
        const sl_str *a = &nd->kids[1]->v.str[i];
        int r = sl__any_eq(x, xn, a->ptr, a->len);
        if (r < 0)
            sl__null_result(nd, i);
        else
            nd->v.b[i] = (uint8_t)r;
    }
    return 0;
}

int sl__compile_fn(sl__node *nd, const sl_bexpr *b, sl_error *err)
{
    int id = nd->op;
    /* not strict: NULL is FALSE; NULL strings after CONCAT_WS's separator are skipped */
    bool strict = !(id == SL_FN_IS_ALPHA || id == SL_FN_IS_DIGIT || id == SL_FN_IS_DECIMAL ||
                    (id == SL_FN_CONCAT_WS && nd->kids[0]->type.id != SL_TYPE_NULL));
    for (int k = 0; k < nd->nkids && strict; k++) {
        if (nd->kids[k]->type.id == SL_TYPE_NULL) {
            nd->run = sl__k_all_null;
            return 0;
        }
    }
    switch (id) {
    case SL_FN_UPPER:
    case SL_FN_LOWER: nd->run = sl__k_case_map; return 0;
    case SL_FN_SUBSTRING: nd->run = sl__k_substring; return 0;
    case SL_FN_TRIM:
    case SL_FN_LTRIM:
    case SL_FN_RTRIM:
        if (nd->nkids > 1) /* a set of characters to strip */
            return sl__compile_fn_str(nd, err);
        nd->run = sl__k_trim;
        return 0;
    case SL_FN_CHAR_LENGTH: nd->run = sl__k_char_length; return 0;
    case SL_FN_PG_GET_USERBYID:
    case SL_FN_PG_TABLE_IS_VISIBLE:
    case SL_FN_PG_ENCODING_TO_CHAR:
    case SL_FN_PG_REGCLASS:
    case SL_FN_PG_REGOID:
    case SL_FN_FORMAT_TYPE:
    case SL_FN_PG_SIZE_PRETTY:
    case SL_FN_PG_GET_EXPR: nd->run = sl__k_pg_catalog; return 0;
    case SL_FN_ANY_EQ: nd->run = sl__k_any_eq; return 0;
    case SL_FN_ARRAY_TO_STRING:
    case SL_FN_ARRAY_UPPER:
    case SL_FN_PG_SUBSCRIPT: nd->run = sl__k_array; return 0;
    case SL_FN_PG_GET_INDEXDEF:
    case SL_FN_PG_GET_CONSTRAINTDEF:
    case SL_FN_PG_GET_VIEWDEF:
    case SL_FN_COL_DESCRIPTION:
    case SL_FN_OBJ_DESCRIPTION:
    case SL_FN_PG_GET_STATISTICSOBJDEF_COLUMNS:
    case SL_FN_PG_TABLE_SIZE:
    case SL_FN_PG_RELATION_IS_PUBLISHABLE:
        nd->run = sl__k_pg_def;
        nd->is_volatile = true; /* the catalog is read when the rows are */
        return 0;
    case SL_FN_REPLACE: nd->run = sl__k_replace; sl__with_strbuf(nd); return 0;
    case SL_FN_POSITION: nd->run = sl__k_position; return 0;
    case SL_FN_LPAD:
    case SL_FN_RPAD: nd->run = sl__k_pad; sl__with_strbuf(nd); nd->can_fail = true; return 0;
    case SL_FN_CONCAT:
    case SL_FN_CONCAT_FN: nd->run = sl__k_concat; return 0;
    case SL_FN_ABS: nd->run = sl__k_abs; nd->can_fail = true; return 0;
    case SL_FN_ROUND:
    case SL_FN_FLOOR:
    case SL_FN_CEIL:
        if (nd->nkids == 2 && id != SL_FN_ROUND) /* FLOOR / CEIL (t TO unit) */
            return sl__compile_fn_math(nd, err);
        nd->run = sl__k_round;
        nd->can_fail = true;
        return 0;
    case SL_FN_POWER:
    case SL_FN_SQRT: nd->run = sl__k_power_sqrt; return 0; /* kids coerced by the caller */
    case SL_FN_DATE_FORMAT:
    case SL_FN_FROM_UNIXTIME:
        nd->run = sl__k_format;
        nd->aux = sl_calloc(1, sizeof(sl__fmt_memo));
        nd->aux_free = sl__fmt_memo_free;
        /* the session's time zone is the evaluation's: never folded */
        nd->is_volatile = id == SL_FN_FROM_UNIXTIME ||
                          nd->kids[0]->type.id == SL_TYPE_TIMESTAMP_LTZ;
        nd->can_fail = nd->is_volatile;
        return 0;
    case SL_FN_TO_TIMESTAMP:
    case SL_FN_TO_DATE: nd->run = sl__k_parse_time; return 0;
    case SL_FN_CONVERT_TZ:
        nd->run = sl__k_convert_tz;
        nd->aux = sl_calloc(1, sizeof(sl__tz_cache));
        nd->aux_free = sl__tz_cache_free;
        nd->can_fail = true; /* out of range */
        return 0;
    case SL_FN_TO_TIMESTAMP_LTZ: {
        /* the binder admitted only the literal 0 or 3; op = the precision */
        const sl__node *pk = nd->nkids > 1 ? nd->kids[1] : NULL;
        nd->op = pk && pk->kind == SL__N_CONST && !pk->nulls[0] && pk->v.i64[0] == 0 ? 0 : 3;
        nd->run = sl__k_to_ltz;
        nd->can_fail = true;
        return 0;
    }
    case SL_FN_UNIX_TIMESTAMP:
        if (nd->nkids == 0) {
            nd->run = sl__k_now;
            nd->is_volatile = true;
        } else {
            nd->run = sl__k_parse_time;
            nd->is_volatile = true; /* the session's time zone */
            nd->can_fail = true;    /* out of range in it */
        }
        return 0;
    case SL_FN_CURRENT_TIMESTAMP:
    case SL_FN_NOW:
    case SL_FN_PROCTIME:
    case SL_FN_LOCALTIMESTAMP:
    case SL_FN_CURRENT_DATE:
        nd->run = sl__k_now;
        nd->is_volatile = true;
        return 0;
    default: {
        int rc = sl__compile_fn_str(nd, err);
        if (rc > 0)
            rc = sl__compile_fn_math(nd, err);
        if (rc > 0)
            rc = sl__compile_fn_array(nd, err);
        if (rc > 0) {
            sl_error_set(err, SL_ERR_NOT_SUPPORTED, b->pos,
                         "function %s is not supported by the evaluator", b->fn->name);
            return -1;
        }
        return rc;
    }
    }
}

/* ========================================================================
** LIKE.
*/

/* Pattern tokens: 0..255 a literal byte, SL__ONE = '_', SL__ANY = '%'. */
#define SL__ONE 256
#define SL__ANY 257

/* Tokenize pattern p with escape esc (NULL = none): 0, or -1 for an
** invalid escape sequence. *out holds 2 * n + 1 tokens. */
static int sl__like_tokens(const char *p, size_t pn, const sl_str *esc, uint16_t *out, size_t *nout)
{
    size_t k = 0;
    for (size_t i = 0; i < pn;) {
        if (esc && esc->len > 0 && pn - i >= esc->len && memcmp(p + i, esc->ptr, esc->len) == 0) {
            i += esc->len;
            if (i >= pn)
                return -1;
            if (p[i] == '%' || p[i] == '_') {
                out[k++] = (unsigned char)p[i++];
            } else if (pn - i >= esc->len && memcmp(p + i, esc->ptr, esc->len) == 0) {
                for (uint32_t j = 0; j < esc->len; j++)
                    out[k++] = (unsigned char)p[i++];
            } else {
                return -1;
            }
            continue;
        }
        if (p[i] == '%') {
            if (k == 0 || out[k - 1] != SL__ANY)
                out[k++] = SL__ANY;
            i++;
        } else if (p[i] == '_') {
            out[k++] = SL__ONE;
            i++;
        } else {
            out[k++] = (unsigned char)p[i++];
        }
    }
    *nout = k;
    return 0;
}

/* Match s against tokens (backtracking on the last %; '_' is one code point). */
static bool sl__like_match(const char *s, size_t sn, const uint16_t *t, size_t tn)
{
    size_t si = 0, ti = 0, star_t = (size_t)-1, star_s = 0;
    while (si < sn) {
        if (ti < tn) {
            uint16_t c = t[ti];
            if (c == SL__ANY) {
                star_t = ++ti;
                star_s = si;
                continue;
            }
            if (c == SL__ONE) {
                si += sl__u8len((unsigned char)s[si]);
                if (si > sn)
                    si = sn;
                ti++;
                continue;
            }
            if ((unsigned char)s[si] == c) {
                si++;
                ti++;
                continue;
            }
        }
        if (star_t == (size_t)-1)
            return false;
        ti = star_t;
        star_s += sl__u8len((unsigned char)s[star_s]);
        if (star_s > sn)
            return false;
        si = star_s;
    }
    while (ti < tn && t[ti] == SL__ANY)
        ti++;
    return ti == tn;
}

typedef enum sl__like_kind {
    SL__LIKE_EXACT, SL__LIKE_PREFIX, SL__LIKE_SUFFIX, SL__LIKE_CONTAINS, SL__LIKE_ALL,
    SL__LIKE_GENERAL
} sl__like_kind;

typedef struct sl__like {
    sl__like_kind kind; /* fast path */
    char *lit;          /* the literal bytes of EXACT/PREFIX/SUFFIX/CONTAINS */
    size_t nlit;        /* their length */
    uint16_t *tok;      /* tokens (GENERAL) */
    size_t ntok;        /* token count */
} sl__like;

static void sl__like_free(void *p)
{
    sl__like *l = p;
    if (!l)
        return;
    sl_free(l->lit);
    sl_free(l->tok);
    sl_free(l);
}

/* Constant pattern: compiled once. */
static int sl__k_like_const(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    if (nd->kids[0]->run(nd->kids[0], ev, sel) < 0)
        return -1;
    int n = ev->n;
    const sl__node *a = nd->kids[0];
    const sl__like *l = nd->aux;
    memcpy(nd->nulls, a->nulls, (size_t)n);
    const sl_str *s = a->v.str;
    uint8_t *r = nd->v.b;
    const char *lit = l->lit;
    size_t m = l->nlit;
    switch (l->kind) {
    case SL__LIKE_EXACT:
        for (int i = 0; i < n; i++)
            r[i] = SL__LIVE(nd, sel, i) && s[i].len == m && memcmp(s[i].ptr, lit, m) == 0;
        break;
    case SL__LIKE_PREFIX:
        for (int i = 0; i < n; i++)
            r[i] = SL__LIVE(nd, sel, i) && s[i].len >= m && memcmp(s[i].ptr, lit, m) == 0;
        break;
    case SL__LIKE_SUFFIX:
        for (int i = 0; i < n; i++)
            r[i] = SL__LIVE(nd, sel, i) && s[i].len >= m &&
                   memcmp(s[i].ptr + s[i].len - m, lit, m) == 0;
        break;
    case SL__LIKE_CONTAINS:
        for (int i = 0; i < n; i++)
            r[i] = SL__LIVE(nd, sel, i) && s[i].len >= m && memmem(s[i].ptr, s[i].len, lit, m);
        break;
    case SL__LIKE_ALL:
        for (int i = 0; i < n; i++)
            r[i] = 1;
        break;
    case SL__LIKE_GENERAL:
        for (int i = 0; i < n; i++)
            r[i] = SL__LIVE(nd, sel, i) && sl__like_match(s[i].ptr, s[i].len, l->tok, l->ntok);
        break;
    }
    if (nd->op == SL_FN_NOT_LIKE)
        for (int i = 0; i < n; i++)
            r[i] = (!r[i]);
    return 0;
}

/* Pattern (and escape) per row. */
static int sl__k_like_dyn(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl_str *s = nd->kids[0]->v.str, *p = nd->kids[1]->v.str;
    const sl_str *e = nd->nkids > 2 ? nd->kids[2]->v.str : NULL;
    uint16_t stack[256];
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        size_t need = (size_t)p[i].len * 2 + 1, nt;
        uint16_t *tok = need <= 256 ? stack : sl_arena_alloc(ev->arena, need * sizeof(uint16_t));
        if (e && sl_utf8_count(e[i].ptr, e[i].len) != 1) {
            sl__fail(ev, nd, "22025", "invalid escape string");
            sl_error_hint(ev->err, "Escape string must be one character.");
            return -1;
        }
        if (sl__like_tokens(p[i].ptr, p[i].len, e ? &e[i] : NULL, tok, &nt) < 0)
            return sl__fail(ev, nd, "22025", "invalid escape sequence in LIKE pattern");
        bool m = sl__like_match(s[i].ptr, s[i].len, tok, nt);
        nd->v.b[i] = nd->op == SL_FN_NOT_LIKE ? !m : m;
    }
    return 0;
}

int sl__compile_like(sl__node *nd, sl_error *err)
{
    for (int k = 0; k < nd->nkids; k++) {
        if (nd->kids[k]->type.id == SL_TYPE_NULL) {
            nd->run = sl__k_all_null;
            return 0;
        }
    }
    nd->run = sl__k_like_dyn;
    nd->can_fail = nd->nkids > 2;
    const sl__node *pk = nd->kids[1], *ek = nd->nkids > 2 ? nd->kids[2] : NULL;
    if (pk->kind != SL__N_CONST || (ek && ek->kind != SL__N_CONST))
        return 0;
    if (pk->nulls[0] || (ek && ek->nulls[0])) {
        nd->run = sl__k_all_null;
        return 0;
    }
    const sl_str *p = &pk->v.str[0], *e = ek ? &ek->v.str[0] : NULL;
    if (e && sl_utf8_count(e->ptr, e->len) != 1) {
        nd->can_fail = true; /* the error is raised for the rows that evaluate it */
        return 0;
    }
    sl__like *l = sl_calloc(1, sizeof *l);
    l->tok = sl_malloc(((size_t)p->len * 2 + 1) * sizeof(uint16_t));
    if (sl__like_tokens(p->ptr, p->len, e, l->tok, &l->ntok) < 0) {
        sl__like_free(l);
        nd->can_fail = true;
        return 0;
    }
    /* classify: runs of literal bytes between % (no _) */
    size_t nany = 0, none = 0, first_lit = (size_t)-1, last_lit = 0;
    for (size_t i = 0; i < l->ntok; i++) {
        if (l->tok[i] == SL__ANY)
            nany++;
        else if (l->tok[i] == SL__ONE)
            none++;
        else {
            if (first_lit == (size_t)-1)
                first_lit = i;
            last_lit = i;
        }
    }
    bool lead = l->ntok > 0 && l->tok[0] == SL__ANY;
    bool trail = l->ntok > 0 && l->tok[l->ntok - 1] == SL__ANY;
    l->kind = SL__LIKE_GENERAL;
    if (none == 0) {
        size_t nlit = first_lit == (size_t)-1 ? 0 : last_lit - first_lit + 1;
        bool contiguous = nlit + nany == l->ntok && nany == (size_t)lead + (size_t)trail;
        if (nlit == 0 && nany > 0)
            l->kind = SL__LIKE_ALL;
        else if (contiguous || nany == 0) {
            l->kind = nany == 0 ? SL__LIKE_EXACT
                      : lead && trail ? SL__LIKE_CONTAINS
                      : lead         ? SL__LIKE_SUFFIX
                                     : SL__LIKE_PREFIX;
            l->nlit = nlit;
            l->lit = sl_malloc(nlit ? nlit : 1);
            for (size_t i = 0; i < nlit; i++)
                l->lit[i] = (char)l->tok[first_lit + i];
        }
    }
    nd->aux = l;
    nd->aux_free = sl__like_free;
    nd->run = sl__k_like_const;
    nd->can_fail = false;
    (void)err;
    return 0;
}

/* ------------------------------------------------------------------------
** POSIX regular expressions: s ~ p, s !~ p, ~* and !~* (case-insensitive),
** PostgreSQL's operators, through libc's regcomp/regexec (extended syntax).
** A pattern is compiled once per expression: a constant one when the
** expression is compiled, a per-row one when it differs from the last row's
** (the cache keeps the last). An invalid pattern is 2201B.
*/
typedef struct sl__regex {
    regex_t re;    /* the compiled pattern */
    bool ok;       /* re holds a compiled pattern */
    char *pat;     /* its text (NUL-terminated) */
    size_t npat;   /* its length */
    char *buf;     /* a subject copied to be NUL-terminated */
    size_t cap;    /* buf's size */
} sl__regex;

static void sl__regex_free(void *p)
{
    sl__regex *r = p;
    if (!r)
        return;
    if (r->ok)
        regfree(&r->re);
    sl_free(r->pat);
    sl_free(r->buf);
    sl_free(r);
}

/* Compile pattern p[0..n) into r unless it is r's already. 0, or -1 with
** the message of regerror in msg. */
static int sl__regex_set(sl__regex *r, const char *p, size_t n, bool icase, char *msg, size_t cap)
{
    if (r->ok && r->npat == n && memcmp(r->pat, p, n) == 0)
        return 0;
    if (r->ok)
        regfree(&r->re);
    r->ok = false;
    sl_free(r->pat);
    r->pat = sl_strndup(p, n);
    r->npat = n;
    if (memchr(p, 0, n)) {
        snprintf(msg, cap, "pattern contains a NUL byte");
        return -1;
    }
    int rc = regcomp(&r->re, r->pat, REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0));
    if (rc != 0) {
        regerror(rc, &r->re, msg, cap);
        return -1;
    }
    r->ok = true;
    return 0;
}

static bool sl__regex_match(sl__regex *r, const char *s, size_t n)
{
    if (n + 1 > r->cap) {
        r->cap = n + 1 > 64 ? n + 1 : 64;
        r->buf = sl_realloc(r->buf, r->cap);
    }
    memcpy(r->buf, s, n);
    r->buf[n] = 0;
    return regexec(&r->re, r->buf, 0, NULL, 0) == 0;
}

static int sl__k_regex(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl_str *s = nd->kids[0]->v.str, *p = nd->kids[1]->v.str;
    sl__regex *r = nd->aux;
    bool icase = nd->op == SL_FN_IREGEX || nd->op == SL_FN_NOT_IREGEX;
    bool neg = nd->op == SL_FN_NOT_REGEX || nd->op == SL_FN_NOT_IREGEX;
    bool konst = nd->kids[1]->kind == SL__N_CONST;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        char msg[256];
        const sl_str *pi = konst ? &p[0] : &p[i];
        if (sl__regex_set(r, pi->ptr, pi->len, icase, msg, sizeof msg) < 0)
            return sl__fail(ev, nd, "2201B", "invalid regular expression: %s", msg);
        bool m = sl__regex_match(r, s[i].ptr, s[i].len);
        nd->v.b[i] = neg ? !m : m;
    }
    return 0;
}

int sl__compile_regex(sl__node *nd, sl_error *err)
{
    for (int k = 0; k < nd->nkids; k++)
        if (nd->kids[k]->type.id == SL_TYPE_NULL) {
            nd->run = sl__k_all_null;
            return 0;
        }
    sl__regex *r = sl_calloc(1, sizeof *r);
    nd->aux = r;
    nd->aux_free = sl__regex_free;
    nd->run = sl__k_regex;
    nd->can_fail = true;
    const sl__node *pk = nd->kids[1];
    if (pk->kind == SL__N_CONST && !pk->nulls[0]) {
        char msg[256];
        bool icase = nd->op == SL_FN_IREGEX || nd->op == SL_FN_NOT_IREGEX;
        if (sl__regex_set(r, pk->v.str[0].ptr, pk->v.str[0].len, icase, msg, sizeof msg) < 0)
            return sl_error_set(err, "2201B", nd->pos, "invalid regular expression: %s", msg);
        nd->can_fail = false;
    }
    return 0;
}
