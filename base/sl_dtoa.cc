/*
** sl_dtoa.cc — the C++ shim between Sluice's C and double-conversion
** (sl_dtoa.h says what each function gives). The library's own static
** functions only: no converter objects, exceptions or allocation, so the
** C code that calls these needs nothing of the C++ runtime beyond what the
** library itself links.
**
** Main routines: sl_dtoa_shortest, sl_dtoa_precision, sl_dtoa_strtod.
*/
#include "sl_dtoa.h"

#include <double-conversion/double-to-string.h>
#include <double-conversion/strtod.h>

using double_conversion::DoubleToStringConverter;

extern "C" int sl_dtoa_shortest(double d, bool single, char *digits, int *point)
{
    bool sign;
    int n = 0;
    if (single)
        d = static_cast<float>(d);
    DoubleToStringConverter::DoubleToAscii(
        d < 0 ? -d : d,
        single ? DoubleToStringConverter::SHORTEST_SINGLE : DoubleToStringConverter::SHORTEST, 0,
        digits, SL_DTOA_DIGITS, &sign, &n, point);
    return n;
}

extern "C" int sl_dtoa_precision(double d, int p, char *digits, int *point)
{
    bool sign;
    int n = 0;
    DoubleToStringConverter::DoubleToAscii(d < 0 ? -d : d, DoubleToStringConverter::PRECISION, p,
                                           digits, SL_DTOA_DIGITS, &sign, &n, point);
    return n;
}

extern "C" double sl_dtoa_strtod(const char *digits, int n, int point)
{
    return double_conversion::Strtod(double_conversion::Vector<const char>(digits, n), point - n);
}
