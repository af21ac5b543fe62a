/*
** test_exec_double_digits.c — sl_double_digits (exec/eval_fn.c), the
** shortest digits of a DOUBLE or FLOAT that the engine's text and the
** server's float4/float8 text are laid out from, against the algorithm it
** replaced, kept here as the reference: the digit count p found by
** bisection, each try printed by glibc's printf ("%.*e", halves to even)
** and read back by glibc's strtod (as a float when single). The two share
** no code: the function under test works through double-conversion.
**
** Values: every power of two (double and float) and its neighbours, powers
** of ten and their neighbours, the edges (0, -0, the largest and least
** values, the least normals), values with ties at their shortest length
** (m * 2^e with few fraction bits), short decimals as people write them,
** and millions of random bit patterns — each with min_digits 1 (the
** server's) and 2 (the engine's), as a double and as a float. SEED in the
** environment picks other random values (the default is fixed). Once, by
** hand, the same comparison ran over one float in 13 of the whole range and
** every float below 2^-117 and in [2, 2048): no difference.
*/
#include "sl_test.h"

#include "../../exec/sl_exec.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>

/* ------------------------------------------------------------------------
** The reference: Sluice's sl_double_digits before double-conversion.
*/

/* The text "%.*e" gives for p significant digits of d (1 <= p <= 17),
** rounded in decimal from full, d's 17 digits ("%.16e"): the same text
** unless the digits dropped are a 5 and zeros, where printf is asked. */
static void ref_digits_e(double d, const char *full, int p, char *out, size_t cap)
{
    const char *q = full;
    bool neg = *q == '-';
    if (neg)
        q++;
    char dg[24];
    int n = 0;
    for (; *q && *q != 'e'; q++)
        if (*q >= '0' && *q <= '9' && n < (int)sizeof dg)
            dg[n++] = *q;
    if (p == n && *q == 'e' && strlen(full) < cap) {
        memcpy(out, full, strlen(full) + 1);
        return;
    }
    if (p > n || *q != 'e') {
        snprintf(out, cap, "%.*e", p - 1, d);
        return;
    }
    int exp = atoi(q + 1);
    bool half = dg[p] == '5';
    for (int i = p + 1; half && i < n; i++)
        half = dg[i] == '0';
    if (half) {
        snprintf(out, cap, "%.*e", p - 1, d);
        return;
    }
    if (dg[p] >= '5') {
        int i = p - 1;
        while (i >= 0 && dg[i] == '9')
            dg[i--] = '0';
        if (i >= 0) {
            dg[i]++;
        } else {
            dg[0] = '1';
            exp++;
        }
    }
    char *o = out;
    if (neg)
        *o++ = '-';
    *o++ = dg[0];
    if (p > 1) {
        *o++ = '.';
        memcpy(o, dg + 1, (size_t)p - 1);
        o += p - 1;
    }
    *o++ = 'e';
    *o++ = exp < 0 ? '-' : '+';
    int a = exp < 0 ? -exp : exp;
    if (a >= 100)
        *o++ = (char)('0' + a / 100);
    *o++ = (char)('0' + a / 10 % 10);
    *o++ = (char)('0' + a % 10);
    *o = 0;
}

static int ref_double_digits(double d, bool single, int min_digits, char *digits, int *exp,
                             bool *neg)
{
    char e[40], best[40] = "", full[40];
    snprintf(full, sizeof full, "%.16e", d);
    int lo = min_digits, hi = single ? 9 : 17;
    bool first = true;
    while (lo < hi) {
        int p = first && hi - 2 > lo ? hi - 2 : (lo + hi) / 2;
        first = false;
        ref_digits_e(d, full, p, e, sizeof e);
        double back = strtod(e, NULL);
        if (single ? (float)back == (float)d : back == d) {
            hi = p;
            memcpy(best, e, sizeof best);
        } else {
            lo = p + 1;
        }
    }
    if (best[0])
        memcpy(e, best, sizeof e);
    else
        ref_digits_e(d, full, lo, e, sizeof e);
    int nd = 0;
    const char *q = e;
    *neg = *q == '-';
    if (*neg)
        q++;
    for (; *q && *q != 'e'; q++)
        if (*q >= '0' && *q <= '9' && nd < 20)
            digits[nd++] = *q;
    *exp = atoi(q + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = 0;
    return nd;
}

/* ------------------------------------------------------------------------
** Comparing.
*/

static long g_compared, g_mismatches;

/* d as a double and, when it is a float, as a float; min_digits 1 and 2. */
static void same(double d)
{
    for (int single = 0; single < 2; single++) {
        if (single && (double)(float)d != d)
            continue;
        for (int min = 1; min <= 2; min++) {
            char got[24], want[24];
            int gexp = 99, wexp = -99;
            bool gneg = false, wneg = true;
            memset(got, 'x', sizeof got);
            int gn = sl_double_digits(d, single, min, got, &gexp, &gneg);
            int wn = ref_double_digits(d, single, min, want, &wexp, &wneg);
            g_compared++;
            if (gn != wn || strcmp(got, want) != 0 || gexp != wexp || gneg != wneg ||
                (int)strlen(got) != gn) {
                if (g_mismatches++ < 20)
                    fprintf(stderr, "%a (%.17g) single=%d min=%d: got %s e%d%s (n %d), want %s e%d%s\n",
                            d, d, single, min, got, gexp, gneg ? " neg" : "", gn, want, wexp,
                            wneg ? " neg" : "");
            }
        }
    }
}

/* d, -d and their neighbours (k steps each way). */
static void same_around(double d, int k)
{
    double lo = d, hi = d;
    if (!isfinite(d))
        return;
    same(d);
    same(-d);
    for (int i = 0; i < k; i++) {
        lo = nextafter(lo, 0);
        hi = nextafter(hi, INFINITY);
        if (lo != 0 && isfinite(lo))
            same(lo);
        if (isfinite(hi))
            same(hi);
    }
    if ((double)(float)d == d && isfinite((float)d)) { /* float neighbours */
        float fl = (float)d, fh = (float)d;
        for (int i = 0; i < k; i++) {
            fl = nextafterf(fl, 0);
            fh = nextafterf(fh, INFINITY);
            if (fl != 0)
                same(fl);
            if (isfinite(fh))
                same(fh);
        }
    }
}

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
    /* splitmix64 */
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double bits_double(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static float bits_float(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

#define EXPECT_SAME()                                                                  \
    do {                                                                               \
        if (g_mismatches)                                                              \
            fprintf(stderr, "%ld of %ld comparisons differ\n", g_mismatches, g_compared); \
        CHECK_INT(g_mismatches, 0);                                                    \
        g_mismatches = 0;                                                              \
        g_compared = 0;                                                                \
    } while (0)

/* ------------------------------------------------------------------------
** Tests.
*/

static void t_known(void)
{
    char dg[24];
    int exp;
    bool neg;
    CHECK_INT(sl_double_digits(0.1, false, 1, dg, &exp, &neg), 1);
    CHECK_STR(dg, "1");
    CHECK_INT(exp, -1);
    CHECK(!neg);
    CHECK_INT(sl_double_digits(-1234.5, false, 1, dg, &exp, &neg), 5);
    CHECK_STR(dg, "12345");
    CHECK_INT(exp, 3);
    CHECK(neg);
    /* Java writes Double.MIN_VALUE 4.9E-324 (two digits), PostgreSQL 5e-324 */
    sl_double_digits(4.9406564584124654e-324, false, 2, dg, &exp, &neg);
    CHECK_STR(dg, "49");
    CHECK_INT(exp, -324);
    sl_double_digits(4.9406564584124654e-324, false, 1, dg, &exp, &neg);
    CHECK_STR(dg, "5");
    CHECK_INT(sl_double_digits(1.0 / 3, false, 1, dg, &exp, &neg), 16);
    CHECK_STR(dg, "3333333333333333");
    CHECK_INT(sl_double_digits(1.0f / 3, true, 1, dg, &exp, &neg), 8);
    CHECK_STR(dg, "33333334");
    CHECK_INT(exp, -1);
    /* a tie at 17 digits: printf's half-to-even, not the library's half-up */
    sl_double_digits(1125899906842624.25, false, 1, dg, &exp, &neg);
    CHECK_STR(dg, "11258999068426242");
    CHECK_INT(exp, 15);
    /* 2^-24: the even 16-digit rounding does not read back, so 17 digits */
    sl_double_digits(0x1p-24, false, 1, dg, &exp, &neg);
    CHECK_STR(dg, "59604644775390625");
    CHECK_INT(exp, -8);
    same(1125899906842624.25);
    same(0x1p-24);
    EXPECT_SAME();
}

static void t_edges(void)
{
    const double v[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 10.0, 0.1, 0.2, 0.3, 1e23, 9.5, 25.0, 0.125,
                        DBL_MAX, DBL_MIN, DBL_TRUE_MIN, FLT_MAX, FLT_MIN, FLT_TRUE_MIN,
                        (double)FLT_MAX * 2, 1.7976931348623157e308, 2.2250738585072009e-308,
                        9007199254740992.0, 9007199254740993.0, 123456789012345678.0,
                        5e-324, 1e-323, 3.4028235e38, 1.17549435e-38, 1.4e-45, 16777216.0,
                        0.30000000000000004, 1e21, 1e22, 4.35, 2.675, 1.005, 100.0, 1e-7};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        same_around(v[i], 3);
    EXPECT_SAME();
}

/* Every power of two of double and float, with neighbours: the lopsided
** reading intervals. */
static void t_powers_of_two(void)
{
    for (int e = -1074; e <= 1023; e++)
        same_around(ldexp(1.0, e), 2);
    for (int e = -149; e <= 127; e++) /* as floats: the float neighbours too */
        same_around((double)ldexpf(1.0f, e), 2);
    EXPECT_SAME();
}

static void t_powers_of_ten(void)
{
    for (int e = -323; e <= 308; e++) {
        char buf[16];
        snprintf(buf, sizeof buf, "1e%d", e);
        same_around(strtod(buf, NULL), 3);
        same_around((double)strtof(buf, NULL), 3);
    }
    EXPECT_SAME();
}

/* m * 2^e with few fraction bits: exact decimals one digit longer than
** the shortest, where printf and the library round a half differently. */
static void t_ties(void)
{
    for (int i = 0; i < 250000; i++) {
        int e = -(int)(rnd() % 27) - 1;           /* -27 .. -1 */
        int bits = 1 + (int)(rnd() % 53);          /* mantissa width */
        uint64_t m = (rnd() >> (64 - bits)) | 1;  /* odd */
        double d = ldexp((double)m, e);
        same(d);
        uint32_t fm = (uint32_t)(m & 0xffffff) | 1; /* float-sized */
        same((double)ldexpf((float)fm, e));
    }
    /* [2^50, 2^51) with .25 / .75: 17-digit ties */
    for (int i = 0; i < 100000; i++)
        same(1125899906842624.0 + (double)(rnd() % 1125899906842624ull) + 0.25 +
             0.5 * (double)(rnd() & 1));
    EXPECT_SAME();
}

/* Short decimals as people write them: 1 to 17 digits, any exponent. */
static void t_short_decimals(void)
{
    for (int i = 0; i < 300000; i++) {
        char buf[48];
        int nd = 1 + (int)(rnd() % 17);
        uint64_t m = rnd() % 100000000000000000ull;
        int e = (int)(rnd() % 640) - 330;
        if (i % 4 == 0)
            e = (int)(rnd() % 20) - 10;
        snprintf(buf, sizeof buf, "%.*" PRIu64 "e%d", nd, m % (uint64_t)pow(10, nd), e);
        double d = strtod(buf, NULL);
        if (d != 0 && isfinite(d))
            same(d);
        float f = strtof(buf, NULL);
        if (f != 0 && isfinite(f))
            same(f);
    }
    EXPECT_SAME();
}

static void t_random_doubles(void)
{
    for (int i = 0; i < 1000000; i++) {
        double d = bits_double(rnd());
        if (isfinite(d))
            same(d);
    }
    for (int i = 0; i < 500000; i++) /* denormals */
        same(bits_double(rnd() & 0x800fffffffffffffull));
    for (int i = 0; i < 500000; i++) /* [0, 1): what datagen and RAND() give */
        same((double)(rnd() >> 11) * 0x1p-53);
    EXPECT_SAME();
}

static void t_random_floats(void)
{
    for (int i = 0; i < 1000000; i++) {
        float f = bits_float((uint32_t)rnd());
        if (isfinite(f))
            same(f);
    }
    for (int i = 0; i < 200000; i++) /* denormals */
        same(bits_float((uint32_t)rnd() & 0x807fffffu));
    EXPECT_SAME();
}

int main(void)
{
    const char *seed = getenv("SEED");
    if (seed)
        g_rng = strtoull(seed, NULL, 0);
    static const sl_t_case cases[] = {
        {"t_known", t_known},
        {"t_edges", t_edges},
        {"t_powers_of_two", t_powers_of_two},
        {"t_powers_of_ten", t_powers_of_ten},
        {"t_ties", t_ties},
        {"t_short_decimals", t_short_decimals},
        {"t_random_doubles", t_random_doubles},
        {"t_random_floats", t_random_floats},
    };
    return sl_t_run(cases, (int)(sizeof cases / sizeof cases[0]));
}
