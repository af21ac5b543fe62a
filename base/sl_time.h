/*
** sl_time.h — dates, times, timestamps and intervals as integers, with
** parsing and formatting (SQL literals, Java/Flink date patterns).
**
** Representations (the runtime's, fixed here):
**   DATE            int64 days since 1970-01-01 (proleptic Gregorian)
**   TIME(p)         int64 nanoseconds since midnight, 0 .. 86399999999999
**   TIMESTAMP(p)    int64 nanoseconds since 1970-01-01 00:00:00 (no zone)
**   TIMESTAMP_LTZ   int64 nanoseconds since the epoch, UTC (an instant)
**   INTERVAL_DT     int64 milliseconds;  INTERVAL_YM  int64 months
** Timestamps therefore span 1677-09-21 .. 2262-04-11; a value outside that
** range is an error, never a wrapped number. Values carry all 9 fraction
** digits; a TIMESTAMP(p) value is truncated to p digits where the type says
** so (sl_time_truncate).
**
** Main routines: sl_date_parse/format, sl_time_parse/format,
** sl_ts_parse/format, sl_ts_parse_pattern / sl_ts_format_pattern (Java
** SimpleDateFormat-style patterns as Flink's DATE_FORMAT and TO_TIMESTAMP
** use), sl_ts_add_months, calendar helpers.
*/
#ifndef SL_TIME_H
#define SL_TIME_H

#include "sl_base.h"

#define SL_NANOS_PER_SEC 1000000000LL
#define SL_NANOS_PER_MILLI 1000000LL
#define SL_NANOS_PER_DAY 86400000000000LL

/* Calendar. */
bool sl_is_leap_year(int64_t year);
int sl_days_in_month(int64_t year, int month); /* month 1..12 */
int64_t sl_days_from_civil(int64_t y, int m, int d);   /* days since 1970-01-01 */
void sl_civil_from_days(int64_t days, int64_t *y, int *m, int *d);

/* SQL text forms. Parsers accept exactly the SQL literal forms and return
** 0, or -1 for malformed text or an invalid calendar value; digits beyond
** nanoseconds are an error. Formatters write into buf (>= 40 bytes) and
** return the length; precision = fraction digits written (0..9). */
int sl_date_parse(const char *s, size_t len, int64_t *days);               /* YYYY-MM-DD */
int sl_date_format(int64_t days, char *buf);
int sl_time_parse(const char *s, size_t len, int64_t *nanos);              /* HH:MM[:SS[.f]] */
int sl_time_format(int64_t nanos, int precision, char *buf);
/* "YYYY-MM-DD HH:MM:SS[.fffffffff]"; also accepts 'T' for the space and a
** date alone (midnight). -2 (instead of -1) for a well-formed value outside
** the representable range (sl_ts_parse_pattern likewise). */
int sl_ts_parse(const char *s, size_t len, int64_t *nanos);
int sl_ts_format(int64_t nanos, int precision, char *buf);
/* ISO-8601 with zone for JSON's 'json.timestamp-format.standard' = 'ISO-8601':
** "2026-01-31T12:00:00.123Z" for LTZ, without Z for TIMESTAMP. */
int sl_ts_format_iso(int64_t nanos, int precision, bool zulu, char *buf);

/* Truncate nanos to p fraction digits (toward negative infinity, so that
** times before 1970 truncate consistently). */
int64_t sl_time_truncate(int64_t nanos, int precision);

/* Java/Flink patterns: yyyy, yy, MM, M, dd, d, HH, H, hh, mm, m, ss, s,
** SSS (millis; S..SSSSSSSSS fraction digits), a (AM/PM), EEE, 'quoted text',
** '' for a quote; other letters are errors at compile time of the pattern.
** Parse returns 0 or -1 when text does not match; format never fails for a
** valid pattern (-1 for an invalid pattern). Output is NUL-terminated in sb. */
int sl_ts_format_pattern(int64_t nanos, const char *pattern, sl_strbuf *sb);
/* The finest unit (ns) pattern's fields show: SL_NANOS_PER_DAY for dates
** only (yyyy-MM-dd), an hour, a minute, a second, or 1 with fractions
** (two instants in the same unit format the same); -1 for an invalid one. */
int64_t sl_ts_pattern_unit(const char *pattern);
int sl_ts_parse_pattern(const char *s, size_t len, const char *pattern, int64_t *nanos);
/* The same, but text after the pattern's last field is ignored, as
** java.text.SimpleDateFormat.parse(String) does (Flink's UNIX_TIMESTAMP:
** '2026-01-31 12:00:00.250' with the default pattern is 12:00:00). */
int sl_ts_parse_pattern_prefix(const char *s, size_t len, const char *pattern, int64_t *nanos);

/* Interval arithmetic on timestamps: add months (day clamped to the month's
** last day, as Flink does: 2026-01-31 + 1 month = 2026-02-28), add
** milliseconds. -1 when the result leaves the representable range. */
int sl_ts_add_months(int64_t nanos, int64_t months, int64_t *out);
int sl_ts_add_millis(int64_t nanos, int64_t millis, int64_t *out);
int sl_date_add_months(int64_t days, int64_t months, int64_t *out);

/* Units of EXTRACT, TIMESTAMPADD and TIMESTAMPDIFF by name (case-insensitive:
** YEAR QUARTER MONTH WEEK DAY HOUR MINUTE SECOND MILLISECOND DOY DOW, and
** SQL_TSI_ / plural spellings are not accepted); SL_TUNIT_NONE if unknown. */
typedef enum sl_tunit {
    SL_TUNIT_NONE = 0, SL_TUNIT_YEAR, SL_TUNIT_QUARTER, SL_TUNIT_MONTH, SL_TUNIT_WEEK, SL_TUNIT_DAY,
    SL_TUNIT_HOUR, SL_TUNIT_MINUTE, SL_TUNIT_SECOND, SL_TUNIT_MILLISECOND, SL_TUNIT_DOY,
    SL_TUNIT_DOW
} sl_tunit;
sl_tunit sl_tunit_parse(const char *s, size_t len);

/* The wall clock in nanoseconds since the epoch (UTC). The runtime injects
** its own clock for tests; this is the real one. */
int64_t sl_now_nanos(void);

/* The monotonic clock in nanoseconds (for timeouts and intervals). */
int64_t sl_monotonic_nanos(void);
/* The same clock read cheaply, a few milliseconds behind (the kernel's
** tick): for a check made per row. */
int64_t sl_monotonic_coarse_nanos(void);
/* Sleep for ns nanoseconds (<= 0: not at all), through signals. */
void sl_sleep_nanos(int64_t ns);

#endif /* SL_TIME_H */
