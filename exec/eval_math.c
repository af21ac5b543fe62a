/*
** eval_math.c — Flink's further numeric, hash, random and date-field
** functions for the evaluator (the registry entries are
** planner/functions.c's): LN, LOG10, LOG2, LOG, EXP, the trigonometric and
** hyperbolic functions, DEGREES, RADIANS, SIGN, PI, E, TRUNCATE, BIN, HEX,
** GREATEST, LEAST, RAND, RAND_INTEGER, UUID, MD5, SHA1, SHA224, SHA256,
** SHA384, SHA512, SHA2, and YEAR, QUARTER, MONTH, WEEK, DAYOFYEAR,
** DAYOFMONTH, DAYOFWEEK, HOUR, MINUTE, SECOND.
**
** Floating-point functions follow java.lang.Math through libm (NaN and
** infinities as Java gives them: LN(0) is -Infinity, LN(-1) NaN). RAND and
** RAND_INTEGER are java.util.Random's generator (the same sequence as Flink
** for a seed: one generator per expression, advanced row by row). Digests
** are OpenSSL's (EVP), as lower-case hex. Date fields are read from a DATE
** or TIMESTAMP; a TIMESTAMP_LTZ argument is shifted to the session's time
** zone by the compiler (sl__fn_time_field). WEEK is the ISO week,
** DAYOFWEEK 1 (Sunday) .. 7.
**
** Main routines: sl__compile_fn_math, sl__fn_double_args, sl__fn_time_field.
*/
#include "eval_int.h"
#include "../base/sl_decimal.h"
#include "../base/sl_time.h"

#include <inttypes.h>
#include <math.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <string.h>
#include <time.h>

bool sl__fn_double_args(int id)
{
    switch (id) {
    case SL_FN_LN:
    case SL_FN_LOG10:
    case SL_FN_LOG2:
    case SL_FN_LOG:
    case SL_FN_EXP:
    case SL_FN_SIN:
    case SL_FN_COS:
    case SL_FN_TAN:
    case SL_FN_ASIN:
    case SL_FN_ACOS:
    case SL_FN_ATAN:
    case SL_FN_ATAN2:
    case SL_FN_COT:
    case SL_FN_SINH:
    case SL_FN_COSH:
    case SL_FN_TANH:
    case SL_FN_DEGREES:
    case SL_FN_RADIANS: return true;
    default: return false;
    }
}

bool sl__fn_time_field(int id)
{
    return (id >= SL_FN_YEAR && id <= SL_FN_SECOND) || id == SL_FN_EXTRACT;
}

/* ========================================================================
** Floating point.
*/

static int sl__k_dfn(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const double *a = nd->kids[0]->v.f64;
    const double *b = nd->nkids > 1 ? nd->kids[1]->v.f64 : NULL;
    double *r = nd->v.f64;
    (void)sel;
    switch (nd->op) {
    case SL_FN_LN: for (int i = 0; i < n; i++) r[i] = log(a[i]); break;
    case SL_FN_LOG10: for (int i = 0; i < n; i++) r[i] = log10(a[i]); break;
    case SL_FN_LOG2: for (int i = 0; i < n; i++) r[i] = log(a[i]) / log(2.0); break;
    case SL_FN_LOG:
        /* LOG(x) = LN(x); LOG(base, x) */
        for (int i = 0; i < n; i++)
            r[i] = b ? log(b[i]) / log(a[i]) : log(a[i]);
        break;
    case SL_FN_EXP: for (int i = 0; i < n; i++) r[i] = exp(a[i]); break;
    case SL_FN_SIN: for (int i = 0; i < n; i++) r[i] = sin(a[i]); break;
    case SL_FN_COS: for (int i = 0; i < n; i++) r[i] = cos(a[i]); break;
    case SL_FN_TAN: for (int i = 0; i < n; i++) r[i] = tan(a[i]); break;
    case SL_FN_COT: for (int i = 0; i < n; i++) r[i] = 1.0 / tan(a[i]); break;
    case SL_FN_ASIN: for (int i = 0; i < n; i++) r[i] = asin(a[i]); break;
    case SL_FN_ACOS: for (int i = 0; i < n; i++) r[i] = acos(a[i]); break;
    case SL_FN_ATAN: for (int i = 0; i < n; i++) r[i] = atan(a[i]); break;
    case SL_FN_ATAN2: for (int i = 0; i < n; i++) r[i] = atan2(a[i], b[i]); break;
    case SL_FN_SINH: for (int i = 0; i < n; i++) r[i] = sinh(a[i]); break;
    case SL_FN_COSH: for (int i = 0; i < n; i++) r[i] = cosh(a[i]); break;
    case SL_FN_TANH: for (int i = 0; i < n; i++) r[i] = tanh(a[i]); break;
    /* java.lang.Math.toDegrees / toRadians: one multiplication by the constant */
    case SL_FN_DEGREES: for (int i = 0; i < n; i++) r[i] = a[i] * 57.29577951308232; break;
    case SL_FN_RADIANS: for (int i = 0; i < n; i++) r[i] = a[i] * 0.017453292519943295; break;
    default: break;
    }
    return 0;
}

/* PI(), E(). */
static int sl__k_const_double(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    (void)sel;
    memset(nd->nulls, 0, (size_t)ev->n);
    double v = nd->op == SL_FN_PI ? M_PI : M_E;
    for (int i = 0; i < ev->n; i++)
        nd->v.f64[i] = v;
    return 0;
}

/* SIGN(x): -1, 0 or 1 of x's type. */
static int sl__k_sign(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl__node *a = nd->kids[0];
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        switch (nd->phys) {
        case SL_PHYS_I64: nd->v.i64[i] = (a->v.i64[i] > 0) - (a->v.i64[i] < 0); break;
        case SL_PHYS_F64: {
            double x = a->v.f64[i];
            nd->v.f64[i] = isnan(x) ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : x;
            break;
        }
        case SL_PHYS_I128: {
            sl_i128 x = a->v.i128[i], one = sl_dec_pow10(nd->type.scale);
            nd->v.i128[i] = x > 0 ? one : x < 0 ? -one : 0;
            break;
        }
        default: break;
        }
    }
    return 0;
}

/* TRUNCATE(x [, d]): x cut toward zero to d (0) decimal places. */
static int sl__k_truncate(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl__node *a = nd->kids[0];
    const int64_t *dv = nd->nkids > 1 ? nd->kids[1]->v.i64 : NULL;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        int64_t d = dv ? dv[i] : 0;
        if (d > 400) /* past every type's digits: the same result, and no overflow */
            d = 400;
        if (d < -400)
            d = -400;
        switch (nd->phys) {
        case SL_PHYS_I64: {
            int64_t x = a->v.i64[i];
            if (d < 0) {
                int64_t m = 1;
                for (int64_t k = 0; k < -d && m <= INT64_MAX / 10; k++)
                    m *= 10;
                x = -d > 18 ? 0 : x - x % m;
            }
            nd->v.i64[i] = x;
            break;
        }
        case SL_PHYS_F64: {
            double x = a->v.f64[i], r = x;
            if (isfinite(x) && d < -300) {
                r = 0.0;
            } else if (isfinite(x) && d <= 300) {
                double m = pow(10.0, (double)d);
                double y = x * m;
                if (isfinite(y) && fabs(y) < 9007199254740992.0)
                    r = trunc(y) / m;
                else if (d < 0)
                    r = 0.0;
            }
            nd->v.f64[i] = nd->type.id == SL_TYPE_FLOAT ? (double)(float)r : r;
            break;
        }
        case SL_PHYS_I128: {
            int sa = a->type.scale, s2 = nd->type.scale;
            sl_i128 v = a->v.i128[i];
            if (d < sa) {
                int64_t k = sa - d;
                if (k > 38)
                    v = 0;
                else {
                    sl_i128 m = sl_dec_pow10((int)k);
                    v = v / m * m;
                }
            }
            /* the dropped digits are zero: rescaling is exact */
            if (s2 < sa)
                v /= sl_dec_pow10(sa - s2);
            else if (s2 > sa)
                v *= sl_dec_pow10(s2 - sa);
            nd->v.i128[i] = v;
            break;
        }
        default: break;
        }
    }
    return 0;
}

/* BIN(x): Long.toBinaryString; HEX(x): Long.toHexString upper-cased, HEX(s):
** the bytes of s in upper-case hex. */
static int sl__k_radix(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl__node *a = nd->kids[0];
    static const char hx[] = "0123456789ABCDEF";
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        if (a->phys == SL_PHYS_STR) {
            uint32_t len = a->v.str[i].len;
            const unsigned char *p = (const unsigned char *)a->v.str[i].ptr;
            char *d = len ? sl_arena_alloc(ev->arena, (size_t)len * 2) : NULL;
            for (uint32_t j = 0; j < len; j++) {
                d[2 * j] = hx[p[j] >> 4];
                d[2 * j + 1] = hx[p[j] & 15];
            }
            nd->v.str[i].ptr = d ? d : "";
            nd->v.str[i].len = len * 2;
            continue;
        }
        uint64_t x = (uint64_t)a->v.i64[i];
        char buf[65];
        int k = 64;
        buf[k] = 0;
        int shift = nd->op == SL_FN_BIN ? 1 : 4;
        do {
            buf[--k] = hx[x & (uint64_t)((1 << shift) - 1)];
            x >>= shift;
        } while (x);
        sl__set_str(nd, ev, i, buf + k, (size_t)(64 - k));
    }
    return 0;
}

/* GREATEST / LEAST over kids of the result type; NULL if any is NULL. */
static int sl__k_greatest(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    int sign = nd->op == SL_FN_GREATEST ? 1 : -1;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        int best = 0;
        for (int k = 1; k < nd->nkids; k++) {
            const sl__node *x = nd->kids[k], *y = nd->kids[best];
            int c = 0;
            switch (nd->phys) {
            case SL_PHYS_BOOL: c = (x->v.b[i] > y->v.b[i]) - (x->v.b[i] < y->v.b[i]); break;
            case SL_PHYS_I64: c = (x->v.i64[i] > y->v.i64[i]) - (x->v.i64[i] < y->v.i64[i]); break;
            case SL_PHYS_F64: c = (x->v.f64[i] > y->v.f64[i]) - (x->v.f64[i] < y->v.f64[i]); break;
            case SL_PHYS_I128:
                c = (x->v.i128[i] > y->v.i128[i]) - (x->v.i128[i] < y->v.i128[i]);
                break;
            case SL_PHYS_STR: {
                const sl_str *s = &x->v.str[i], *t = &y->v.str[i];
                size_t m = s->len < t->len ? s->len : t->len;
                c = m ? memcmp(s->ptr, t->ptr, m) : 0;
                if (c == 0)
                    c = (s->len > t->len) - (s->len < t->len);
                break;
            }
            default: break;
            }
            if (c * sign > 0)
                best = k;
        }
        const sl__node *w = nd->kids[best];
        switch (nd->phys) {
        case SL_PHYS_BOOL: nd->v.b[i] = w->v.b[i]; break;
        case SL_PHYS_I64: nd->v.i64[i] = w->v.i64[i]; break;
        case SL_PHYS_F64: nd->v.f64[i] = w->v.f64[i]; break;
        case SL_PHYS_I128: nd->v.i128[i] = w->v.i128[i]; break;
        case SL_PHYS_STR: nd->v.str[i] = w->v.str[i]; break;
        default: break;
        }
    }
    return 0;
}

/* ========================================================================
** Random values: java.util.Random.
*/

typedef struct sl__jrand {
    uint64_t seed;   /* the 48-bit state */
    bool seeded;     /* set from the seed argument (first row) or the clock */
} sl__jrand;

static void sl__jrand_seed(sl__jrand *r, int64_t seed)
{
    r->seed = ((uint64_t)seed ^ 0x5DEECE66DULL) & ((1ULL << 48) - 1);
    r->seeded = true;
}

static int32_t sl__jrand_next(sl__jrand *r, int bits)
{
    r->seed = (r->seed * 0x5DEECE66DULL + 0xBULL) & ((1ULL << 48) - 1);
    return (int32_t)(r->seed >> (48 - bits));
}

static double sl__jrand_double(sl__jrand *r)
{
    int64_t hi = sl__jrand_next(r, 26), lo = sl__jrand_next(r, 27);
    return (double)((hi << 27) + lo) * 0x1.0p-53;
}

/* Random.nextInt(bound), bound > 0. */
static int32_t sl__jrand_int(sl__jrand *r, int32_t bound)
{
    int32_t v = sl__jrand_next(r, 31), m = bound - 1;
    if ((bound & m) == 0)
        return (int32_t)(((int64_t)bound * v) >> 31);
    for (int32_t u = v; u - (v = u % bound) + m < 0; u = sl__jrand_next(r, 31)) {
    }
    return v;
}

/* RAND([seed]), RAND_INTEGER([seed,] bound): one generator per expression,
** seeded by the first row's seed (Flink: a literal seed) or by entropy. */
static int sl__k_rand(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    sl__jrand *r = nd->aux;
    bool seeded_arg = nd->op == SL_FN_RAND ? nd->nkids > 0 : nd->nkids > 1;
    const int64_t *bound = nd->op == SL_FN_RAND_INTEGER ? nd->kids[nd->nkids - 1]->v.i64 : NULL;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        if (!r->seeded) {
            int64_t s;
            if (seeded_arg)
                s = nd->kids[0]->v.i64[i];
            else if (RAND_bytes((unsigned char *)&s, sizeof s) != 1)
                s = (int64_t)time(NULL) ^ (int64_t)(intptr_t)r;
            sl__jrand_seed(r, s);
        }
        if (bound) {
            if (bound[i] <= 0 || bound[i] > INT32_MAX)
                return sl__fail(ev, nd, SL_ERR_INVALID_PARAMETER,
                                "bound of RAND_INTEGER must be positive and fit INT");
            nd->v.i64[i] = sl__jrand_int(r, (int32_t)bound[i]);
        } else {
            nd->v.f64[i] = sl__jrand_double(r);
        }
    }
    return 0;
}

/* UUID(): a random (version 4) UUID. */
static int sl__k_uuid(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    memset(nd->nulls, 0, (size_t)ev->n);
    static const char hx[] = "0123456789abcdef";
    for (int i = 0; i < ev->n; i++) {
        if (sel && !sel[i])
            continue;
        unsigned char b[16];
        if (RAND_bytes(b, sizeof b) != 1)
            return sl__fail(ev, nd, SL_ERR_INTERNAL, "no random bytes for UUID");
        b[6] = (unsigned char)((b[6] & 0x0F) | 0x40);
        b[8] = (unsigned char)((b[8] & 0x3F) | 0x80);
        char t[36];
        int o = 0;
        for (int j = 0; j < 16; j++) {
            if (j == 4 || j == 6 || j == 8 || j == 10)
                t[o++] = '-';
            t[o++] = hx[b[j] >> 4];
            t[o++] = hx[b[j] & 15];
        }
        sl__set_str(nd, ev, i, t, sizeof t);
    }
    return 0;
}

/* ========================================================================
** Digests.
*/

static int sl__k_digest(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl_str *a = nd->kids[0]->v.str;
    const int64_t *bits = nd->op == SL_FN_SHA2 ? nd->kids[1]->v.i64 : NULL;
    static const char hx[] = "0123456789abcdef";
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        const EVP_MD *md = NULL;
        int which = nd->op;
        if (bits) /* SHA2(s, 224 | 256 | 384 | 512) */
            which = bits[i] == 224   ? SL_FN_SHA224
                    : bits[i] == 256 ? SL_FN_SHA256
                    : bits[i] == 384 ? SL_FN_SHA384
                    : bits[i] == 512 ? SL_FN_SHA512
                                     : -1;
        switch (which) {
        case SL_FN_MD5: md = EVP_md5(); break;
        case SL_FN_SHA1: md = EVP_sha1(); break;
        case SL_FN_SHA224: md = EVP_sha224(); break;
        case SL_FN_SHA256: md = EVP_sha256(); break;
        case SL_FN_SHA384: md = EVP_sha384(); break;
        case SL_FN_SHA512: md = EVP_sha512(); break;
        default: break;
        }
        if (!md)
            return sl__fail(ev, nd, SL_ERR_INVALID_PARAMETER,
                            "SHA2 bit length must be 224, 256, 384 or 512, not %" PRId64, bits[i]);
        unsigned char dg[EVP_MAX_MD_SIZE];
        unsigned int dn = 0;
        if (EVP_Digest(a[i].len ? a[i].ptr : "", a[i].len, dg, &dn, md, NULL) != 1)
            return sl__fail(ev, nd, SL_ERR_INTERNAL, "digest failed");
        char t[2 * EVP_MAX_MD_SIZE];
        for (unsigned j = 0; j < dn; j++) {
            t[2 * j] = hx[dg[j] >> 4];
            t[2 * j + 1] = hx[dg[j] & 15];
        }
        sl__set_str(nd, ev, i, t, 2 * (size_t)dn);
    }
    return 0;
}

/* ========================================================================
** Date fields.
*/

/* ISO week number of the day (days since 1970-01-01). */
static int64_t sl__iso_week(int64_t days)
{
    int64_t dow = ((days + 3) % 7 + 7) % 7; /* 0 = Monday */
    int64_t thursday = days - dow + 3;      /* the week's Thursday decides its year */
    int64_t y;
    int m, d;
    sl_civil_from_days(thursday, &y, &m, &d);
    return (thursday - sl_days_from_civil(y, 1, 1)) / 7 + 1;
}

static int sl__k_time_field(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    const sl__node *a = nd->kids[0];
    bool is_date = a->type.id == SL_TYPE_DATE;
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        int64_t v = a->v.i64[i], days, tod = 0;
        if (is_date) {
            days = v;
        } else {
            days = v / SL_NANOS_PER_DAY - (v % SL_NANOS_PER_DAY < 0);
            tod = v - days * SL_NANOS_PER_DAY;
        }
        int64_t y;
        int m, d;
        sl_civil_from_days(days, &y, &m, &d);
        int64_t r = 0;
        switch (nd->op) {
        case SL_FN_YEAR: r = y; break;
        case SL_FN_QUARTER: r = (m + 2) / 3; break;
        case SL_FN_MONTH: r = m; break;
        case SL_FN_WEEK: r = sl__iso_week(days); break;
        case SL_FN_DAYOFYEAR: r = days - sl_days_from_civil(y, 1, 1) + 1; break;
        case SL_FN_DAYOFMONTH: r = d; break;
        case SL_FN_DAYOFWEEK: r = ((days + 4) % 7 + 7) % 7 + 1; break; /* 1970-01-01: Thursday (5) */
        case SL_FN_HOUR: r = tod / (3600 * SL_NANOS_PER_SEC); break;
        case SL_FN_MINUTE: r = tod / (60 * SL_NANOS_PER_SEC) % 60; break;
        case SL_FN_SECOND: r = tod / SL_NANOS_PER_SEC % 60; break;
        default: break;
        }
        nd->v.i64[i] = r;
    }
    return 0;
}

/* The unit of a call's first argument (a constant string: the binder
** checked it). */
static sl_tunit sl__unit_arg(const sl__node *nd)
{
    const sl__node *u = nd->kids[0];
    if (u->kind != SL__N_CONST || u->nulls[0])
        return SL_TUNIT_NONE;
    return sl_tunit_parse(u->v.str[0].ptr, u->v.str[0].len);
}

/* Nanoseconds of a fixed unit (WEEK .. MILLISECOND), 0 for a calendar one. */
static int64_t sl__unit_nanos(sl_tunit u)
{
    switch (u) {
    case SL_TUNIT_WEEK: return 7 * SL_NANOS_PER_DAY;
    case SL_TUNIT_DAY: return SL_NANOS_PER_DAY;
    case SL_TUNIT_HOUR: return 3600 * SL_NANOS_PER_SEC;
    case SL_TUNIT_MINUTE: return 60 * SL_NANOS_PER_SEC;
    case SL_TUNIT_SECOND: return SL_NANOS_PER_SEC;
    case SL_TUNIT_MILLISECOND: return SL_NANOS_PER_MILLI;
    default: return 0;
    }
}

/* Months of a calendar unit (YEAR, QUARTER, MONTH). */
static int64_t sl__unit_months(sl_tunit u)
{
    return u == SL_TUNIT_YEAR ? 12 : u == SL_TUNIT_QUARTER ? 3 : u == SL_TUNIT_MONTH ? 1 : 0;
}

/* Nanoseconds of a DATE (days) or TIMESTAMP value of kid k, row i. */
static int64_t sl__as_nanos(const sl__node *k, int i)
{
    return k->type.id == SL_TYPE_DATE ? k->v.i64[i] * SL_NANOS_PER_DAY : k->v.i64[i];
}

/* Days d plus m months, the day clamped to the month's end (saturates far
** outside the DATE range: only compared). */
static int64_t sl__add_months_days(int64_t d, int64_t m)
{
    int64_t out;
    if (sl_date_add_months(d, m, &out) < 0)
        return m < 0 ? INT64_MIN : INT64_MAX;
    return out;
}

/* Whole months from day d1 to day d0 (Calcite's DateTimeUtils.subtractMonths:
** the most m with d1 + m months <= d0, negated for d0 < d1). */
static int64_t sl__months_days(int64_t d0, int64_t d1)
{
    if (d0 < d1)
        return -sl__months_days(d1, d0);
    int64_t m = (d0 - d1) / 31;
    for (;;) {
        if (sl__add_months_days(d1, m) >= d0 || sl__add_months_days(d1, m + 1) > d0)
            return m;
        m++;
    }
}

/* Whole months from t1 to t0 (nanoseconds): by days, one less when t0's
** day is t1's plus those months but its time of day is earlier. */
static int64_t sl__months_between(int64_t t0, int64_t t1)
{
    int64_t n0 = ((t0 % SL_NANOS_PER_DAY) + SL_NANOS_PER_DAY) % SL_NANOS_PER_DAY;
    int64_t n1 = ((t1 % SL_NANOS_PER_DAY) + SL_NANOS_PER_DAY) % SL_NANOS_PER_DAY;
    int64_t d0 = (t0 - n0) / SL_NANOS_PER_DAY, d1 = (t1 - n1) / SL_NANOS_PER_DAY;
    int64_t x = sl__months_days(d0, d1);
    if (sl__add_months_days(d1, x) == d0 && n0 < n1)
        x--;
    return x;
}

/* TIMESTAMPADD(unit, n, t): t plus n units (months clamp the day, as
** interval arithmetic); TIMESTAMPDIFF(unit, a, b): whole units from a to
** b, toward zero (months as Calcite's subtractMonths, which Flink uses).
** Instants (TIMESTAMP_LTZ) are computed on their UTC date-time. */
static int sl__k_tsadd(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    sl_tunit u = (sl_tunit)(intptr_t)nd->aux;
    int64_t un = sl__unit_nanos(u), um = sl__unit_months(u);
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        if (nd->op == SL_FN_TIMESTAMPDIFF) {
            int64_t a = sl__as_nanos(nd->kids[1], i), b = sl__as_nanos(nd->kids[2], i), r;
            if (un) {
                __int128 d = (__int128)b - a;
                r = (int64_t)(d / un);
            } else {
                r = sl__months_between(b, a) / um;
            }
            if (r > INT32_MAX || r < INT32_MIN)
                return sl__fail(ev, nd, SL_ERR_NUMERIC_RANGE, "integer out of range");
            nd->v.i64[i] = r;
            continue;
        }
        int64_t k = nd->kids[1]->v.i64[i], t = nd->kids[2]->v.i64[i], out;
        bool date_in = nd->kids[2]->type.id == SL_TYPE_DATE;
        bool date_out = nd->type.id == SL_TYPE_DATE;
        int rc;
        if (date_out) {
            if (um)
                rc = k > INT64_MAX / 12 || k < INT64_MIN / 12 ? -1 : sl_date_add_months(t, k * um, &out);
            else
                rc = __builtin_mul_overflow(k, un / SL_NANOS_PER_DAY, &out) ||
                     __builtin_add_overflow(out, t, &out) || out < SL_DATE_MIN_DAYS || out > SL_DATE_MAX_DAYS
                         ? -1 : 0;
        } else {
            int64_t ts = date_in ? t * SL_NANOS_PER_DAY : t;
            if (date_in && ts / SL_NANOS_PER_DAY != t)
                rc = -1;
            else if (um)
                rc = k > INT64_MAX / 12 || k < INT64_MIN / 12 ? -1 : sl_ts_add_months(ts, k * um, &out);
            else
                rc = __builtin_mul_overflow(k, un, &out) || __builtin_add_overflow(out, ts, &out) ? -1 : 0;
        }
        if (rc < 0)
            return date_out ? sl__fail(ev, nd, SL_ERR_DATETIME_OVERFLOW, "date out of range")
                            : sl__ts_range_error(ev, nd);
        nd->v.i64[i] = out;
    }
    return 0;
}

/* FLOOR / CEIL (t TO unit) of a DATE or TIMESTAMP: the start of t's unit,
** or of the next one when t is past the start (CEIL). */
static int sl__k_time_floor(sl__node *nd, sl__eval *ev, const uint8_t *sel)
{
    SL__STRICT_PROLOGUE();
    sl_tunit u = (sl_tunit)(intptr_t)nd->aux;
    const sl__node *a = nd->kids[0];
    bool date = a->type.id == SL_TYPE_DATE, ceil_ = nd->op == SL_FN_CEIL;
    int64_t um = sl__unit_months(u), un = sl__unit_nanos(u);
    for (int i = 0; i < n; i++) {
        if (!SL__LIVE(nd, sel, i))
            continue;
        int64_t v = a->v.i64[i], ns = date ? v * SL_NANOS_PER_DAY : v, out;
        if (date && !um) { /* a day or a shorter unit: the date itself */
            nd->v.i64[i] = v;
            continue;
        }
        if (um) {
            int64_t days = ns / SL_NANOS_PER_DAY - (ns % SL_NANOS_PER_DAY < 0), y;
            int m, d;
            sl_civil_from_days(days, &y, &m, &d);
            int m0 = (m - 1) / (int)um * (int)um + 1;
            int64_t start = sl_days_from_civil(y, m0, 1) * SL_NANOS_PER_DAY;
            out = start;
            if (ceil_ && start != ns && sl_ts_add_months(start, um, &out) < 0)
                return sl__ts_range_error(ev, nd);
        } else {
            int64_t r = ((ns % un) + un) % un;
            out = ns - r;
            if (ceil_ && r && __builtin_add_overflow(out, un, &out))
                return sl__ts_range_error(ev, nd);
        }
        nd->v.i64[i] = date ? out / SL_NANOS_PER_DAY : out;
    }
    return 0;
}

/* ========================================================================
** Compilation.
*/

int sl__compile_fn_math(sl__node *nd, sl_error *err)
{
    int id = nd->op;
    if (sl__fn_double_args(id)) {
        nd->run = sl__k_dfn;
        return 0;
    }
    if (id == SL_FN_EXTRACT) { /* the field function of the unit, on kid 1 */
        static const int field[] = {
            [SL_TUNIT_YEAR] = SL_FN_YEAR,     [SL_TUNIT_QUARTER] = SL_FN_QUARTER,
            [SL_TUNIT_MONTH] = SL_FN_MONTH,   [SL_TUNIT_WEEK] = SL_FN_WEEK,
            [SL_TUNIT_DAY] = SL_FN_DAYOFMONTH, [SL_TUNIT_HOUR] = SL_FN_HOUR,
            [SL_TUNIT_MINUTE] = SL_FN_MINUTE, [SL_TUNIT_SECOND] = SL_FN_SECOND,
            [SL_TUNIT_DOY] = SL_FN_DAYOFYEAR, [SL_TUNIT_DOW] = SL_FN_DAYOFWEEK,
        };
        sl_tunit u = sl__unit_arg(nd);
        if (u == SL_TUNIT_NONE || u == SL_TUNIT_MILLISECOND)
            return sl_error_set(err, SL_ERR_INTERNAL, nd->pos, "EXTRACT without a valid unit");
        sl__node_free(nd->kids[0]);
        nd->kids[0] = nd->kids[1];
        nd->kids[1] = NULL;
        nd->nkids = 1;
        nd->op = field[u];
        id = nd->op;
    }
    if (sl__fn_time_field(id)) {
        nd->run = sl__k_time_field;
        return 0;
    }
    if ((id == SL_FN_FLOOR || id == SL_FN_CEIL) && nd->nkids == 2) {
        const sl__node *uk = nd->kids[1];
        sl_tunit u = uk->kind == SL__N_CONST && !uk->nulls[0]
                         ? sl_tunit_parse(uk->v.str[0].ptr, uk->v.str[0].len)
                         : SL_TUNIT_NONE;
        if (u == SL_TUNIT_NONE)
            return sl_error_set(err, SL_ERR_INTERNAL, nd->pos, "FLOOR / CEIL without a valid unit");
        nd->aux = (void *)(intptr_t)u;
        nd->run = sl__k_time_floor;
        nd->can_fail = id == SL_FN_CEIL;
        return 0;
    }
    if (id == SL_FN_TIMESTAMPADD || id == SL_FN_TIMESTAMPDIFF) {
        sl_tunit u = sl__unit_arg(nd);
        if (u == SL_TUNIT_NONE)
            return sl_error_set(err, SL_ERR_INTERNAL, nd->pos, "%s without a valid unit",
                                id == SL_FN_TIMESTAMPADD ? "TIMESTAMPADD" : "TIMESTAMPDIFF");
        nd->aux = (void *)(intptr_t)u;
        nd->run = sl__k_tsadd;
        nd->can_fail = true;
        return 0;
    }
    switch (id) {
    case SL_FN_PI:
    case SL_FN_E: nd->run = sl__k_const_double; return 0;
    case SL_FN_SIGN: nd->run = sl__k_sign; return 0;
    case SL_FN_TRUNCATE: nd->run = sl__k_truncate; return 0;
    case SL_FN_BIN:
    case SL_FN_HEX: nd->run = sl__k_radix; return 0;
    case SL_FN_GREATEST:
    case SL_FN_LEAST: nd->run = sl__k_greatest; return 0;
    case SL_FN_RAND:
    case SL_FN_RAND_INTEGER:
        nd->run = sl__k_rand;
        nd->aux = sl_calloc(1, sizeof(sl__jrand));
        nd->aux_free = sl_free;
        nd->is_volatile = true;
        nd->can_fail = id == SL_FN_RAND_INTEGER;
        return 0;
    case SL_FN_UUID:
        nd->run = sl__k_uuid;
        nd->is_volatile = true;
        return 0;
    case SL_FN_MD5:
    case SL_FN_SHA1:
    case SL_FN_SHA224:
    case SL_FN_SHA256:
    case SL_FN_SHA384:
    case SL_FN_SHA512:
    case SL_FN_SHA2:
        nd->run = sl__k_digest;
        nd->can_fail = id == SL_FN_SHA2;
        return 0;
    default: return 1;
    }
}
