/*
** sl_tz.h — time zones: the session's 'table.local-time-zone' as rules
** that convert between instants (TIMESTAMP_LTZ) and local date-times
** (TIMESTAMP), read from the system's tz database (TZif files under
** /usr/share/zoneinfo, or $TZDIR) by a small bounds-checked reader of our
** own — never setenv("TZ") / localtime, which are process-global while jobs
** of different sessions run at once.
**
** Zone names (Flink's rule: a name java.util.TimeZone and java.time.ZoneId
** both accept and agree on):
**   - a tz database region: 'Europe/Berlin', 'America/Los_Angeles', 'UTC',
**     'Etc/GMT+8' (case-sensitive, as Java);
**   - a fixed offset 'GMT+8', 'GMT-03:00', 'GMT+0830' (hours 0..18, minutes
**     0..59), named in Java's normal form 'GMT+08:00';
**   - 'default': the machine's zone — $TZ when set (a zone name, a file's
**     path or a POSIX TZ string; an optional leading ':' ignored; anything
**     else is UTC, as in the C library), else /etc/localtime, else UTC.
** 'UTC+8', '+08:00', 'Z' and the POSIX 'posix/' and 'right/' trees are
** refused (Java's TimeZone does not know them).
**
** Conversions follow java.time: an instant has exactly one offset; a local
** date-time in a gap (spring forward) moves forward by the gap's length
** (02:30 in a one-hour gap is 03:30 at the later offset); one in an overlap
** (fall back) takes the earlier offset (the one before the transition);
** sl_tz_from_local_later takes the later one, as java.util.Calendar does.
** After the last transition of a file, its POSIX TZ footer rule
** ("CET-1CEST,M3.5.0,M10.5.0/3") applies.
**
** Main routines: sl_tz_open, sl_tz_parse_tzif, sl_tz_free, sl_tz_offset,
** sl_tz_to_local, sl_tz_from_local.
*/
#ifndef SL_TZ_H
#define SL_TZ_H

#include "sl_base.h"

typedef struct sl_tz sl_tz;

/* Look up a zone by name (see above). 0 with *out, or -1 with err: 22023
** with a hint for a name that is not a zone, XX001 for a zone file that is
** corrupt. */
int sl_tz_open(const char *name, sl_tz **out, sl_error *err);

/* A zone from the bytes of a TZif file (versions 1 to 4). Every count and
** length in the file is checked against len before it is used; a file that
** is truncated or inconsistent is an error (XX001, naming the zone), one
** with leap seconds 22023. The name is copied. */
int sl_tz_parse_tzif(const uint8_t *data, size_t len, const char *name, sl_tz **out,
                     sl_error *err);

/* A zone at a fixed offset from UTC (seconds east), named name. */
sl_tz *sl_tz_fixed(const char *name, int32_t offset_seconds);

void sl_tz_free(sl_tz *tz);

/* The zone's name as the user wrote it (regions) or in Java's normal form
** (fixed offsets). */
const char *sl_tz_name(const sl_tz *tz);

/* The UTC offset (seconds east) at an instant (seconds since the epoch).
** A NULL zone is UTC. */
int32_t sl_tz_offset(const sl_tz *tz, int64_t epoch_seconds);

/* Instant (nanoseconds since the epoch) to local date-time (nanoseconds
** since 1970-01-01 00:00 local), and back with java.time's gap and overlap
** rules. 0, or -1 when the result leaves the int64 nanosecond range. A
** NULL zone is UTC. */
int sl_tz_to_local(const sl_tz *tz, int64_t instant_nanos, int64_t *local_nanos);
int sl_tz_from_local(const sl_tz *tz, int64_t local_nanos, int64_t *instant_nanos);
/* The same with java.util.Calendar's rule in an overlap: the later offset
** (standard time). Flink's UNIX_TIMESTAMP(string) parses with it. */
int sl_tz_from_local_later(const sl_tz *tz, int64_t local_nanos, int64_t *instant_nanos);

#endif /* SL_TZ_H */
