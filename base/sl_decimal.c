/*
** sl_decimal.c — exact DECIMAL(p, s) arithmetic on scaled 128-bit integers.
**
** A value is a signed __int128 with an implied scale (see sl_decimal.h).
** Every operation splits its operands into sign and magnitude, computes the
** exact result, rounds it HALF_UP (away from zero on .5) to the result scale
** and checks the result precision. Nothing ever wraps: a result that does
** not fit is -1.
**
** The common cases stay in 128-bit arithmetic: add/sub of operands whose
** scales align below 10^38 (no work at all for equal scales), products of
** operands below 2^64, quotients whose scaled dividend fits 128 bits.
** Everything else goes through a small unsigned 256-bit type (sl__u256, four
** 64-bit limbs): products of two 38-digit values, operands aligned across
** very different scales, scaled dividends (divided by Knuth's algorithm D).
** The exact result is then rounded back (sl__finish).
**
** Multiplications are done on unsigned types only (clang's UBSan lowers a
** signed 128-bit multiply to __muloti4, which libgcc lacks).
**
** Main routines: sl_dec_parse, sl_dec_format, sl_dec_rescale, sl_dec_add,
** sl_dec_sub, sl_dec_mul, sl_dec_div, sl_dec_mod, sl_dec_cmp, sl_dec_round,
** sl_dec_floor, sl_dec_ceil, and the integer / double conversions.
*/
#include "sl_decimal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 sl__u128;

/* Unsigned 256-bit integer. */
typedef struct sl__u256 {
    uint64_t w[4]; /* little-endian limbs: w[0] is the least significant */
} sl__u256;

#define SL__P19 ((sl__u128)10000000000000000000ULL)
/* Exponents are saturated here while parsing: any larger one overflows or
** rounds to zero anyway. */
#define SL__EXP_CAP ((int64_t)1000000000000000LL)

static const uint64_t sl__pow10_64[20] = {
    1ULL,
    10ULL,
    100ULL,
    1000ULL,
    10000ULL,
    100000ULL,
    1000000ULL,
    10000000ULL,
    100000000ULL,
    1000000000ULL,
    10000000000ULL,
    100000000000ULL,
    1000000000000ULL,
    10000000000000ULL,
    100000000000000ULL,
    1000000000000000ULL,
    10000000000000000ULL,
    100000000000000000ULL,
    1000000000000000000ULL,
    10000000000000000000ULL,
};

static const sl__u128 sl__pow10_128[SL_DEC_MAX_DIGITS + 1] = {
    (sl__u128)1ULL,
    (sl__u128)10ULL,
    (sl__u128)100ULL,
    (sl__u128)1000ULL,
    (sl__u128)10000ULL,
    (sl__u128)100000ULL,
    (sl__u128)1000000ULL,
    (sl__u128)10000000ULL,
    (sl__u128)100000000ULL,
    (sl__u128)1000000000ULL,
    (sl__u128)10000000000ULL,
    (sl__u128)100000000000ULL,
    (sl__u128)1000000000000ULL,
    (sl__u128)10000000000000ULL,
    (sl__u128)100000000000000ULL,
    (sl__u128)1000000000000000ULL,
    (sl__u128)10000000000000000ULL,
    (sl__u128)100000000000000000ULL,
    (sl__u128)1000000000000000000ULL,
    (sl__u128)10000000000000000000ULL,
    SL__P19 * 10ULL,
    SL__P19 * 100ULL,
    SL__P19 * 1000ULL,
    SL__P19 * 10000ULL,
    SL__P19 * 100000ULL,
    SL__P19 * 1000000ULL,
    SL__P19 * 10000000ULL,
    SL__P19 * 100000000ULL,
    SL__P19 * 1000000000ULL,
    SL__P19 * 10000000000ULL,
    SL__P19 * 100000000000ULL,
    SL__P19 * 1000000000000ULL,
    SL__P19 * 10000000000000ULL,
    SL__P19 * 100000000000000ULL,
    SL__P19 * 1000000000000000ULL,
    SL__P19 * 10000000000000000ULL,
    SL__P19 * 100000000000000000ULL,
    SL__P19 * 1000000000000000000ULL,
    SL__P19 * 10000000000000000000ULL,
};

/* Doubles 10^0 .. 10^22 are exact. */
static const double sl__pow10_dbl[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* ------------------------------------------------------------------------
** 128-bit helpers.
*/

/* |v| without overflow (|INT128_MIN| = 2^127 is representable unsigned). */
static inline sl__u128 sl__mag(sl_i128 v)
{
    return v < 0 ? (sl__u128)0 - (sl__u128)v : (sl__u128)v;
}

/* Precision clamped to what 128 bits can check: 0..38. */
static inline int sl__pclamp(int p)
{
    return p < 0 ? 0 : p > SL_DEC_MAX_DIGITS ? SL_DEC_MAX_DIGITS : p;
}

/* Store sign and magnitude into *out when m < 10^p: 0, else -1. */
static inline int sl__store(bool neg, sl__u128 m, int p, sl_i128 *out)
{
    if (m >= sl__pow10_128[sl__pclamp(p)])
        return -1;
    *out = neg ? -(sl_i128)m : (sl_i128)m;
    return 0;
}

/* m / 10^k rounded HALF_UP, for 1 <= k (any k; 10^39 > 2^128 rounds to 0). */
static sl__u128 sl__div_pow10_round(sl__u128 m, long long k)
{
    if (k > SL_DEC_MAX_DIGITS)
        return 0; /* m < 2^128 < 3.5e38: m / 10^39 < 0.35 */
    if (k <= 19 && (m >> 64) == 0) {
        uint64_t m64 = (uint64_t)m, d = sl__pow10_64[k];
        uint64_t q = m64 / d;
        return q + (m64 % d >= d / 2);
    }
    sl__u128 d = sl__pow10_128[k];
    sl__u128 q = m / d;
    return q + (m % d >= d / 2);
}

/* Magnitude m at scale s1 to scale s2 (HALF_UP), checked against p2. */
static int sl__rescale_mag(bool neg, sl__u128 m, long long s1, int p2, long long s2, sl_i128 *out)
{
    int pc = sl__pclamp(p2);
    if (s2 > s1) {
        long long k = s2 - s1;
        if (m != 0) {
            if (k >= pc)
                return -1; /* m * 10^k >= 10^k >= 10^p */
            if (m >= sl__pow10_128[pc - k])
                return -1;
            m *= sl__pow10_128[k];
        }
    } else if (s2 < s1) {
        m = sl__div_pow10_round(m, s1 - s2);
    }
    return sl__store(neg, m, pc, out);
}

/* ------------------------------------------------------------------------
** 256-bit unsigned helpers.
*/

static inline sl__u256 sl__u256_from(sl__u128 x)
{
    sl__u256 r = {{(uint64_t)x, (uint64_t)(x >> 64), 0, 0}};
    return r;
}

static inline bool sl__u256_fits128(const sl__u256 *x)
{
    return (x->w[2] | x->w[3]) == 0;
}

static inline sl__u128 sl__u256_lo(const sl__u256 *x)
{
    return ((sl__u128)x->w[1] << 64) | x->w[0];
}

static inline bool sl__u256_iszero(const sl__u256 *x)
{
    return (x->w[0] | x->w[1] | x->w[2] | x->w[3]) == 0;
}

/* -1, 0, 1. */
static int sl__u256_cmp(const sl__u256 *a, const sl__u256 *b)
{
    for (int i = 3; i >= 0; i--) {
        if (a->w[i] != b->w[i])
            return a->w[i] < b->w[i] ? -1 : 1;
    }
    return 0;
}

/* x += y; true on carry out of 256 bits. */
static bool sl__u256_add(sl__u256 *x, const sl__u256 *y)
{
    uint64_t carry = 0;
    for (int i = 0; i < 4; i++) {
        sl__u128 t = (sl__u128)x->w[i] + y->w[i] + carry;
        x->w[i] = (uint64_t)t;
        carry = (uint64_t)(t >> 64);
    }
    return carry != 0;
}

/* x -= y modulo 2^256 (callers ensure x >= y, or want the wrap). */
static void sl__u256_sub(sl__u256 *x, const sl__u256 *y)
{
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t xi = x->w[i], yi = y->w[i];
        uint64_t d = xi - yi;
        uint64_t b1 = xi < yi;
        x->w[i] = d - borrow;
        borrow = b1 | (d < borrow);
    }
}

/* x += 1 (callers know it cannot carry out). */
static void sl__u256_inc(sl__u256 *x)
{
    for (int i = 0; i < 4; i++) {
        if (++x->w[i] != 0)
            break;
    }
}

/* x *= m; true on overflow of 256 bits. */
static bool sl__u256_mul64(sl__u256 *x, uint64_t m)
{
    uint64_t carry = 0;
    for (int i = 0; i < 4; i++) {
        sl__u128 t = (sl__u128)x->w[i] * m + carry;
        x->w[i] = (uint64_t)t;
        carry = (uint64_t)(t >> 64);
    }
    return carry != 0;
}

/* x *= 10^k for k >= 0; false when the product does not fit 256 bits. */
static bool sl__u256_scale_up(sl__u256 *x, long long k)
{
    if (k <= 0 || sl__u256_iszero(x))
        return true;
    if (k > 77)
        return false; /* 10^78 > 2^256 */
    while (k > 0) {
        int c = k > 19 ? 19 : (int)k;
        if (sl__u256_mul64(x, sl__pow10_64[c]))
            return false;
        k -= c;
    }
    return true;
}

/* Exact a * b. */
static sl__u256 sl__u256_mul128(sl__u128 a, sl__u128 b)
{
    uint64_t a0 = (uint64_t)a, a1 = (uint64_t)(a >> 64);
    uint64_t b0 = (uint64_t)b, b1 = (uint64_t)(b >> 64);
    sl__u128 p00 = (sl__u128)a0 * b0, p01 = (sl__u128)a0 * b1;
    sl__u128 p10 = (sl__u128)a1 * b0, p11 = (sl__u128)a1 * b1;
    sl__u128 mid = (p00 >> 64) + (uint64_t)p01 + (uint64_t)p10;
    sl__u128 high = (mid >> 64) + (p01 >> 64) + (p10 >> 64) + (uint64_t)p11;
    sl__u256 r;
    r.w[0] = (uint64_t)p00;
    r.w[1] = (uint64_t)mid;
    r.w[2] = (uint64_t)high;
    r.w[3] = (uint64_t)(high >> 64) + (uint64_t)(p11 >> 64);
    return r;
}

/* x /= d for d != 0; returns the remainder. */
static uint64_t sl__u256_divmod64(sl__u256 *x, uint64_t d)
{
    uint64_t rem = 0;
    for (int i = 3; i >= 0; i--) {
        sl__u128 cur = ((sl__u128)rem << 64) | x->w[i];
        x->w[i] = (uint64_t)(cur / d);
        rem = (uint64_t)(cur % d);
    }
    return rem;
}

/* q = n / d, r = n % d for 2^64 <= d < 2^128: Knuth's algorithm D in base
** 2^64. With a divisor of exactly two limbs the qhat test below compares
** against the whole divisor, so qhat is exact and no add-back is needed. */
static void sl__u256_divmod_2limb(const sl__u256 *n, sl__u128 d, sl__u256 *q, sl__u128 *r)
{
    int sh = __builtin_clzll((uint64_t)(d >> 64));
    sl__u128 dn = d << sh; /* normalized: top bit set */
    uint64_t dh = (uint64_t)(dn >> 64), dl = (uint64_t)dn;
    uint64_t u[5]; /* n << sh */
    if (sh == 0) {
        memcpy(u, n->w, sizeof(n->w));
        u[4] = 0;
    } else {
        u[4] = n->w[3] >> (64 - sh);
        for (int i = 3; i > 0; i--)
            u[i] = (n->w[i] << sh) | (n->w[i - 1] >> (64 - sh));
        u[0] = n->w[0] << sh;
    }
    sl__u256 quo = sl__u256_from(0);
    for (int j = 2; j >= 0; j--) {
        sl__u128 num = ((sl__u128)u[j + 2] << 64) | u[j + 1];
        sl__u128 qhat = num / dh, rhat = num % dh;
        while ((qhat >> 64) != 0 || qhat * dl > ((rhat << 64) | u[j])) {
            qhat--;
            rhat += dh;
            if ((rhat >> 64) != 0)
                break;
        }
        /* u[j..j+2] -= qhat * dn. The difference is the partial remainder,
        ** < dn < 2^128, so it is computed modulo 2^128 and the top limb is 0. */
        sl__u128 rem = (((sl__u128)u[j + 1] << 64) | u[j]) - qhat * dn;
        u[j + 2] = 0;
        u[j + 1] = (uint64_t)(rem >> 64);
        u[j] = (uint64_t)rem;
        quo.w[j] = (uint64_t)qhat;
    }
    *q = quo;
    *r = (((sl__u128)u[1] << 64) | u[0]) >> sh;
}

/* q = n / d, r = n % d for d != 0. */
static void sl__u256_divmod(const sl__u256 *n, const sl__u256 *d, sl__u256 *q, sl__u256 *r)
{
    if (sl__u256_cmp(n, d) < 0) {
        *q = sl__u256_from(0);
        *r = *n;
        return;
    }
    if (sl__u256_fits128(n)) { /* then d fits too */
        sl__u128 nn = sl__u256_lo(n), dd = sl__u256_lo(d);
        *q = sl__u256_from(nn / dd);
        *r = sl__u256_from(nn % dd);
        return;
    }
    if (sl__u256_fits128(d)) {
        if (d->w[1] == 0) {
            *q = *n;
            *r = sl__u256_from(sl__u256_divmod64(q, d->w[0]));
        } else {
            sl__u128 rem;
            sl__u256_divmod_2limb(n, sl__u256_lo(d), q, &rem);
            *r = sl__u256_from(rem);
        }
        return;
    }
    /* Divisor above 128 bits (only outside the contract: in-contract callers
    ** shortcut n < d): shift-subtract from the highest set bit of n. */
    int top = 255;
    while (top > 0 && !((n->w[top / 64] >> (top % 64)) & 1))
        top--;
    sl__u256 quo = sl__u256_from(0), rem = sl__u256_from(0);
    for (int i = top; i >= 0; i--) {
        uint64_t out = rem.w[3] >> 63; /* bit shifted out: rem >= 2^256 > d */
        rem.w[3] = (rem.w[3] << 1) | (rem.w[2] >> 63);
        rem.w[2] = (rem.w[2] << 1) | (rem.w[1] >> 63);
        rem.w[1] = (rem.w[1] << 1) | (rem.w[0] >> 63);
        rem.w[0] = (rem.w[0] << 1) | ((n->w[i / 64] >> (i % 64)) & 1);
        if (out || sl__u256_cmp(&rem, d) >= 0) {
            sl__u256_sub(&rem, d); /* modulo 2^256: exact because rem - d < d */
            quo.w[i / 64] |= (uint64_t)1 << (i % 64);
        }
    }
    *q = quo;
    *r = rem;
}

/* x = x / 10^k rounded HALF_UP, k >= 1. HALF_UP depends only on the first
** dropped digit, so truncate by 10^(k-1) and round on the last digit. */
static void sl__u256_div_pow10_round(sl__u256 *x, long long k)
{
    if (k > 78) { /* x < 1.2e77: x / 10^78 < 0.12 */
        *x = sl__u256_from(0);
        return;
    }
    for (long long t = k - 1; t > 0;) {
        int c = t > 19 ? 19 : (int)t;
        sl__u256_divmod64(x, sl__pow10_64[c]);
        t -= c;
    }
    if (sl__u256_divmod64(x, 10) >= 5)
        sl__u256_inc(x);
}

/* The exact magnitude m at scale from, rounded HALF_UP to scale s and
** checked against p. */
static int sl__finish(bool neg, sl__u256 m, long long from, int p, long long s, sl_i128 *out)
{
    if (sl__u256_fits128(&m))
        return sl__rescale_mag(neg, sl__u256_lo(&m), from, p, s, out);
    if (s > from) {
        if (!sl__u256_scale_up(&m, s - from))
            return -1;
    } else if (s < from) {
        sl__u256_div_pow10_round(&m, from - s);
    }
    if (!sl__u256_fits128(&m))
        return -1;
    return sl__store(neg, sl__u256_lo(&m), p, out);
}

/* ------------------------------------------------------------------------
** Public routines.
*/

sl_i128 sl_dec_pow10(int n)
{
    SL_ALWAYS(n >= 0 && n <= SL_DEC_MAX_DIGITS);
    return (sl_i128)sl__pow10_128[n];
}

bool sl_dec_fits(sl_i128 v, int p)
{
    if (p > SL_DEC_MAX_DIGITS)
        return true; /* |v| <= 2^127 < 10^39 */
    return sl__mag(v) < sl__pow10_128[sl__pclamp(p)];
}

int sl_dec_rescale(sl_i128 v, int s1, int p2, int s2, sl_i128 *out)
{
    return sl__rescale_mag(v < 0, sl__mag(v), s1, p2, s2, out);
}

/* a + b, or a - b when sub: sign and magnitude aligned in 256 bits. */
static int sl__addsub_slow(sl_i128 a, int sa, sl_i128 b, int sb, bool sub, int p, int s,
                           sl_i128 *out)
{
    bool na = a < 0, nb = (b < 0) != sub;
    long long c = sa > sb ? sa : sb;
    sl__u256 ma = sl__u256_from(sl__mag(a)), mb = sl__u256_from(sl__mag(b));
    if (!sl__u256_scale_up(&ma, c - sa) || !sl__u256_scale_up(&mb, c - sb))
        return -1; /* only outside the contract (scales > 38 apart and beyond) */
    bool neg;
    if (na == nb) {
        if (sl__u256_add(&ma, &mb))
            return -1;
        neg = na;
    } else if (sl__u256_cmp(&ma, &mb) >= 0) {
        sl__u256_sub(&ma, &mb);
        neg = na;
    } else {
        sl__u256_sub(&mb, &ma);
        ma = mb;
        neg = nb;
    }
    return sl__finish(neg, ma, c, p, s, out);
}

/* Bring the operand of the smaller scale to the larger one when that stays
** below 10^38 (so within 128 bits): the cheap path for mixed scales. */
static inline void sl__align128(sl_i128 *a, int *sa, sl_i128 *b, int *sb)
{
    sl_i128 *v = *sa < *sb ? a : b;
    int k = *sa < *sb ? *sb - *sa : *sa - *sb;
    if (k > SL_DEC_MAX_DIGITS)
        return;
    sl__u128 m = sl__mag(*v);
    if (m >= sl__pow10_128[SL_DEC_MAX_DIGITS - k])
        return;
    m *= sl__pow10_128[k];
    *v = *v < 0 ? -(sl_i128)m : (sl_i128)m;
    *sa = *sb = *sa > *sb ? *sa : *sb;
}

int sl_dec_add(sl_i128 a, int sa, sl_i128 b, int sb, int p, int s, sl_i128 *out)
{
    sl_i128 r;
    if (sa != sb)
        sl__align128(&a, &sa, &b, &sb);
    if (sa == sb && !__builtin_add_overflow(a, b, &r)) {
        if (s == sa) {
            if (sl__mag(r) >= sl__pow10_128[sl__pclamp(p)])
                return -1;
            *out = r;
            return 0;
        }
        return sl_dec_rescale(r, sa, p, s, out);
    }
    return sl__addsub_slow(a, sa, b, sb, false, p, s, out);
}

int sl_dec_sub(sl_i128 a, int sa, sl_i128 b, int sb, int p, int s, sl_i128 *out)
{
    sl_i128 r;
    if (sa != sb)
        sl__align128(&a, &sa, &b, &sb);
    if (sa == sb && !__builtin_sub_overflow(a, b, &r)) {
        if (s == sa) {
            if (sl__mag(r) >= sl__pow10_128[sl__pclamp(p)])
                return -1;
            *out = r;
            return 0;
        }
        return sl_dec_rescale(r, sa, p, s, out);
    }
    return sl__addsub_slow(a, sa, b, sb, true, p, s, out);
}

int sl_dec_mul(sl_i128 a, int sa, sl_i128 b, int sb, int p, int s, sl_i128 *out)
{
    bool neg = (a < 0) != (b < 0);
    sl__u128 ma = sl__mag(a), mb = sl__mag(b);
    long long sc = (long long)sa + sb;
    if ((ma >> 64) == 0 && (mb >> 64) == 0)
        return sl__rescale_mag(neg, ma * mb, sc, p, s, out);
    return sl__finish(neg, sl__u256_mul128(ma, mb), sc, p, s, out);
}

int sl_dec_div(sl_i128 a, int sa, sl_i128 b, int sb, int p, int s, sl_i128 *out)
{
    if (b == 0)
        return -2;
    bool neg = (a < 0) != (b < 0);
    sl__u128 ma = sl__mag(a), mb = sl__mag(b);
    /* q = a * 10^e / b rounded, with e = s + sb - sa. */
    long long e = (long long)s + sb - sa;
    if (e >= 0 && e <= SL_DEC_MAX_DIGITS &&
        ((e <= 19 && (ma >> 64) == 0) || ma < sl__pow10_128[SL_DEC_MAX_DIGITS - e])) {
        sl__u128 n = ma * sl__pow10_128[e];
        sl__u128 q = n / mb, r = n % mb;
        q += (r >= mb - r); /* 2r >= b without overflow */
        return sl__store(neg, q, p, out);
    }
    sl__u256 n = sl__u256_from(ma), d = sl__u256_from(mb), q, r;
    if (e >= 0) {
        /* n >= 2^256 means q >= 2^256 / 2^127 > 10^38: overflow */
        if (!sl__u256_scale_up(&n, e))
            return -1;
    } else if (!sl__u256_scale_up(&d, -e)) {
        *out = 0; /* d >= 2^256 > 2 |a|: rounds to 0 */
        return 0;
    }
    sl__u256_divmod(&n, &d, &q, &r);
    sl__u256 half = d;
    sl__u256_sub(&half, &r); /* d - r */
    if (sl__u256_cmp(&r, &half) >= 0)
        sl__u256_inc(&q);
    if (!sl__u256_fits128(&q))
        return -1;
    return sl__store(neg, sl__u256_lo(&q), p, out);
}

int sl_dec_mod(sl_i128 a, int sa, sl_i128 b, int sb, int p, int s, sl_i128 *out)
{
    if (b == 0)
        return -2;
    bool neg = a < 0; /* the sign of the dividend, as Java and Flink */
    sl__u128 ma = sl__mag(a), mb = sl__mag(b);
    if (sa == sb)
        return sl__rescale_mag(neg, ma % mb, sa, p, s, out);
    long long c = sa > sb ? sa : sb;
    sl__u256 n = sl__u256_from(ma), d = sl__u256_from(mb), q, r;
    if (!sl__u256_scale_up(&n, c - sa))
        return -1; /* only outside the contract */
    if (!sl__u256_scale_up(&d, c - sb))
        r = n; /* d >= 2^256 > n */
    else
        sl__u256_divmod(&n, &d, &q, &r);
    return sl__finish(neg, r, c, p, s, out);
}

int sl_dec_cmp(sl_i128 a, int sa, sl_i128 b, int sb)
{
    if (sa == sb)
        return (a > b) - (a < b);
    int ga = (a > 0) - (a < 0), gb = (b > 0) - (b < 0);
    if (ga != gb)
        return ga < gb ? -1 : 1;
    if (ga == 0)
        return 0;
    long long c = sa > sb ? sa : sb;
    sl__u256 ma = sl__u256_from(sl__mag(a)), mb = sl__u256_from(sl__mag(b));
    bool oka = sl__u256_scale_up(&ma, c - sa), okb = sl__u256_scale_up(&mb, c - sb);
    int m;
    if (!oka || !okb) /* only outside the contract: the one that overflowed is larger */
        m = oka ? -1 : 1;
    else
        m = sl__u256_cmp(&ma, &mb);
    return ga > 0 ? m : -m;
}

int sl_dec_round(sl_i128 v, int s, int d, int p2, int s2, sl_i128 *out)
{
    if (d >= s)
        return sl_dec_rescale(v, s, p2, s2, out);
    /* q = v / 10^(s - d) rounded: the value q * 10^-d, i.e. q at scale d. */
    sl__u128 q = sl__div_pow10_round(sl__mag(v), (long long)s - d);
    return sl__finish(v < 0, sl__u256_from(q), d, p2, s2, out);
}

/* FLOOR (toward -inf) or CEIL (toward +inf) to an integer, at scale s2. */
static int sl__floor_ceil(sl_i128 v, int s, int p2, int s2, bool ceil, sl_i128 *out)
{
    if (s <= 0)
        return sl_dec_rescale(v, s, p2, s2, out);
    bool neg = v < 0;
    sl__u128 m = sl__mag(v), q, r;
    if (s > SL_DEC_MAX_DIGITS) {
        q = 0;
        r = m;
    } else {
        q = m / sl__pow10_128[s];
        r = m % sl__pow10_128[s];
    }
    if (r != 0 && neg != ceil)
        q++;
    return sl__rescale_mag(neg, q, 0, p2, s2, out);
}

int sl_dec_floor(sl_i128 v, int s, int p2, int s2, sl_i128 *out)
{
    return sl__floor_ceil(v, s, p2, s2, false, out);
}

int sl_dec_ceil(sl_i128 v, int s, int p2, int s2, sl_i128 *out)
{
    return sl__floor_ceil(v, s, p2, s2, true, out);
}

static inline bool sl__isdigit(char c)
{
    return c >= '0' && c <= '9';
}

/* Digit j of the mantissa: integer digits text[i0 .. i0+ni), then fraction
** digits from text[f0]. */
static inline int sl__mant_digit(const char *text, size_t i0, size_t ni, size_t f0, size_t j)
{
    return (j < ni ? text[i0 + j] : text[f0 + (j - ni)]) - '0';
}

int sl_dec_parse(const char *text, size_t len, int p, int s, sl_i128 *out, bool *overflow)
{
    bool dummy;
    if (!overflow)
        overflow = &dummy;
    *overflow = false;

    size_t i = 0;
    bool neg = false;
    if (i < len && (text[i] == '+' || text[i] == '-'))
        neg = text[i++] == '-';
    size_t i0 = i;
    while (i < len && sl__isdigit(text[i]))
        i++;
    size_t ni = i - i0, f0 = i, nf = 0;
    if (i < len && text[i] == '.') {
        f0 = ++i;
        while (i < len && sl__isdigit(text[i]))
            i++;
        nf = i - f0;
    }
    if (ni + nf == 0)
        return -1;
    int64_t ex = 0;
    if (i < len && (text[i] == 'e' || text[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (text[i] == '+' || text[i] == '-'))
            eneg = text[i++] == '-';
        size_t e0 = i;
        for (; i < len && sl__isdigit(text[i]); i++) {
            if (ex < SL__EXP_CAP)
                ex = ex * 10 + (text[i] - '0');
        }
        if (i == e0)
            return -1;
        if (eneg)
            ex = -ex;
    }
    if (i != len)
        return -1;

    /* The significant digits D (from the first non-zero one); the value
    ** times 10^s is D * 10^E, whose integer part has kept = n + E digits. */
    size_t nt = ni + nf, z = 0;
    while (z < nt && sl__mant_digit(text, i0, ni, f0, z) == 0)
        z++;
    if (z == nt) {
        *out = 0;
        return 0;
    }
    int64_t n = (int64_t)(nt - z);
    int64_t kept = n + ex - (int64_t)nf + s;
    if (kept > SL_DEC_MAX_DIGITS) { /* >= 10^38 */
        *overflow = true;
        return -1;
    }
    sl__u128 q = 0;
    if (kept >= 0) {
        int64_t take = kept < n ? kept : n;
        for (int64_t j = 0; j < take; j++)
            q = q * 10 + (sl__u128)sl__mant_digit(text, i0, ni, f0, z + (size_t)j);
        if (kept > n)
            q *= sl__pow10_128[kept - n];
        else if (kept < n && sl__mant_digit(text, i0, ni, f0, z + (size_t)kept) >= 5)
            q++;
    } /* kept < 0: the first dropped digit is a leading zero, so 0 */
    if (sl__store(neg, q, p, out) != 0) {
        *overflow = true;
        return -1;
    }
    return 0;
}

int sl_dec_format(sl_i128 v, int s, char *buf)
{
    SL_ALWAYS(s >= 0 && s <= SL_DEC_MAX_DIGITS); /* else buf could overflow */
    char tmp[SL_DEC_MAX_DIGITS + 2];             /* digits, least significant first */
    int nd = 0;
    sl__u128 m = sl__mag(v);
    while (m >= SL__P19) { /* at most twice: 2^127 < 10^39 */
        uint64_t c = (uint64_t)(m % SL__P19);
        m /= SL__P19;
        for (int k = 0; k < 19; k++, c /= 10)
            tmp[nd++] = (char)('0' + c % 10);
    }
    uint64_t c = (uint64_t)m;
    do {
        tmp[nd++] = (char)('0' + c % 10);
        c /= 10;
    } while (c != 0);
    while (nd < s + 1)
        tmp[nd++] = '0';

    int n = 0;
    if (v < 0)
        buf[n++] = '-';
    for (int k = nd - 1; k >= s; k--)
        buf[n++] = tmp[k];
    if (s > 0) {
        buf[n++] = '.';
        for (int k = s - 1; k >= 0; k--)
            buf[n++] = tmp[k];
    }
    buf[n] = '\0';
    return n;
}

int sl_dec_from_i64(int64_t v, int p, int s, sl_i128 *out)
{
    return sl_dec_rescale((sl_i128)v, 0, p, s, out);
}

int sl_dec_from_double(double d, int p, int s, sl_i128 *out)
{
    if (!isfinite(d))
        return -1;
    char buf[64];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, d);
        if (prec == 17 || strtod(buf, NULL) == d)
            break;
    }
    /* The locale may print another radix character: whatever is not a
    ** digit, sign or exponent marker is the radix point. */
    char txt[64];
    size_t n = 0;
    bool in_radix = false;
    for (const char *c = buf; *c && n < sizeof(txt) - 1; c++) {
        if (sl__isdigit(*c) || *c == '-' || *c == '+' || *c == 'e' || *c == 'E') {
            txt[n++] = *c;
            in_radix = false;
        } else if (!in_radix) {
            txt[n++] = '.';
            in_radix = true;
        }
    }
    bool overflow;
    return sl_dec_parse(txt, n, p, s, out, &overflow);
}

int sl_dec_to_i64(sl_i128 v, int s, int64_t *out)
{
    if (s < 0) {
        if (sl_dec_rescale(v, s, SL_DEC_MAX_DIGITS, 0, &v) != 0)
            return -1;
        s = 0;
    }
    bool neg = v < 0;
    sl__u128 m = sl__mag(v);
    sl__u128 q = s > SL_DEC_MAX_DIGITS ? 0 : m / sl__pow10_128[s]; /* toward zero */
    if (q > (sl__u128)INT64_MAX + neg)
        return -1;
    if (neg)
        *out = q == (sl__u128)INT64_MAX + 1 ? INT64_MIN : -(int64_t)q;
    else
        *out = (int64_t)q;
    return 0;
}

double sl_dec_to_double(sl_i128 v, int s)
{
    sl__u128 m = sl__mag(v);
    if (s >= 0 && s <= 22 && m <= ((sl__u128)1 << 53)) {
        /* Both operands exact: one correctly rounded division. */
        double r = (double)(uint64_t)m / sl__pow10_dbl[s];
        return v < 0 ? -r : r;
    }
    /* "<digits>e<-s>" has no radix point, so strtod is locale-proof and
    ** correctly rounded. */
    char buf[SL_DEC_STR_MAX + 16];
    int n = sl_dec_format(v, 0, buf);
    snprintf(buf + n, sizeof(buf) - (size_t)n, "e%d", -s);
    return strtod(buf, NULL);
}
