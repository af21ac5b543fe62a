/*
** sl_dtoa.h — decimal digits of doubles and floats, and digits back to a
** double, through Google's double-conversion library (Debian's
** libdouble-conversion-dev; the library V8 and Chromium print numbers
** with). sl_dtoa.cc is the C++ shim behind these C functions; nothing else
** in Sluice is C++.
**
** Digits come without sign, point or exponent: digits[0..n) with the value
** 0.d1d2...dn * 10^point (so 1.5 is "15", point 1; 0.05 is "5", point -1).
** The callers give finite, non-zero values; the sign is theirs to keep.
**
** Main routines: sl_dtoa_shortest, sl_dtoa_precision, sl_dtoa_strtod.
*/
#ifndef SL_DTOA_H
#define SL_DTOA_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SL_DTOA_DIGITS 18 /* room for the digits of any call here and a NUL */

/* The fewest digits that read back as |d| (as the float (float)d when
** single) under round-half-even reading (strtod), the closest to |d| of
** those; a tie between two closest is broken as the library does. Returns
** n (1..17; 1..9 when single). */
int sl_dtoa_shortest(double d, bool single, char *digits, int *point);

/* |d| rounded to exactly p significant digits (1 <= p <= 17), halves away
** from zero (printf rounds halves to even: see sl_double_digits). Returns
** p; digits may end in zeros. */
int sl_dtoa_precision(double d, int p, char *digits, int *point);

/* The double nearest to 0.d1d2...dn * 10^point, halves to even (as
** strtod reads the same text). digits[0] is not '0'; 1 <= n <= 17. */
double sl_dtoa_strtod(const char *digits, int n, int point);

#ifdef __cplusplus
}
#endif

#endif
