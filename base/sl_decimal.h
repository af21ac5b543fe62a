/*
** sl_decimal.h — exact DECIMAL(p, s) arithmetic on scaled 128-bit integers.
**
** A value of DECIMAL(p, s) is the integer v with value = v / 10^s and
** |v| < 10^p, p <= 38. Never double: every operation is exact or reports
** overflow. Rounding is HALF_UP (away from zero on .5), as Flink/Java's
** BigDecimal ROUND_HALF_UP does for DECIMAL casts and division.
**
** Results are computed exactly, then rescaled to the result type the planner
** inferred (sl_type_arith) and checked against its precision: a value that
** does not fit is an overflow (-1 and SQLSTATE 22003 from the caller's
** point of view), never a silently wrong number.
**
** Main routines: sl_dec_parse, sl_dec_format, sl_dec_rescale, sl_dec_add,
** sl_dec_sub, sl_dec_mul, sl_dec_div, sl_dec_mod, sl_dec_cmp, conversions.
*/
#ifndef SL_DECIMAL_H
#define SL_DECIMAL_H

#include "sl_base.h"

typedef __int128 sl_i128;

#define SL_DEC_MAX_DIGITS 38
#define SL_DEC_STR_MAX 42 /* sign, 38 digits, point, leading 0, NUL */

/* 10^n for 0 <= n <= 38. */
sl_i128 sl_dec_pow10(int n);
/* True when |v| < 10^p. */
bool sl_dec_fits(sl_i128 v, int p);

/* Parse decimal text ("-12.345", "+0.5", "12", "1.5e3", " 7 " is rejected)
** into DECIMAL(p, s): the value is rounded HALF_UP to s fraction digits.
** 0, or -1 when the text is not a number (*overflow false) or the value does
** not fit p (*overflow true). */
int sl_dec_parse(const char *text, size_t len, int p, int s, sl_i128 *out, bool *overflow);
/* Canonical text with exactly s fraction digits ("-0.50", "12", "0.05");
** buf must hold SL_DEC_STR_MAX bytes. Returns the length. */
int sl_dec_format(sl_i128 v, int s, char *buf);

/* Change scale from s1 to s2 (HALF_UP when scale shrinks) and check the
** result fits p2. 0 or -1 on overflow. */
int sl_dec_rescale(sl_i128 v, int s1, int p2, int s2, sl_i128 *out);

/* Arithmetic: operands a (scale sa) and b (scale sb); the result is
** rounded HALF_UP to scale s and must fit precision p. 0 or -1 on overflow;
** division and modulo by zero return -2. Intermediate products that exceed
** 128 bits are handled exactly (256-bit intermediate), not wrapped. */
int sl_dec_add(sl_i128 a, int sa, sl_i128 b, int sb, int p, int s, sl_i128 *out);
int sl_dec_sub(sl_i128 a, int sa, sl_i128 b, int sb, int p, int s, sl_i128 *out);
int sl_dec_mul(sl_i128 a, int sa, sl_i128 b, int sb, int p, int s, sl_i128 *out);
int sl_dec_div(sl_i128 a, int sa, sl_i128 b, int sb, int p, int s, sl_i128 *out);
int sl_dec_mod(sl_i128 a, int sa, sl_i128 b, int sb, int p, int s, sl_i128 *out);
/* -1, 0, 1 comparing a (scale sa) with b (scale sb) exactly. */
int sl_dec_cmp(sl_i128 a, int sa, sl_i128 b, int sb);

/* ROUND(v, d) / FLOOR / CEIL of a value of scale s, giving scale s2
** (the planner's result type; d may be negative: ROUND(1234.5, -2) = 1200). */
int sl_dec_round(sl_i128 v, int s, int d, int p2, int s2, sl_i128 *out);
int sl_dec_floor(sl_i128 v, int s, int p2, int s2, sl_i128 *out);
int sl_dec_ceil(sl_i128 v, int s, int p2, int s2, sl_i128 *out);

/* Conversions. From integer: exact (overflow if it does not fit p). From
** double: the shortest decimal text that round-trips the double, then
** rounded HALF_UP (NaN/inf: -1). To integer: truncates toward zero as CAST
** does (overflow -1 when outside int64). To double: nearest double. */
int sl_dec_from_i64(int64_t v, int p, int s, sl_i128 *out);
int sl_dec_from_double(double d, int p, int s, sl_i128 *out);
int sl_dec_to_i64(sl_i128 v, int s, int64_t *out);
double sl_dec_to_double(sl_i128 v, int s);

#endif /* SL_DECIMAL_H */
