/*
** sl_tz.c — time zones (sl_tz.h): names resolved to fixed offsets or to
** TZif files of the system's tz database, a bounds-checked TZif reader
** (RFC 8536, versions 1-4) with its POSIX TZ footer rule, and the
** instant <-> local date-time conversions with java.time's gap and overlap
** rules.
**
** A zone is immutable once built, so one zone can be read by every task of
** a job at once.
**
** Main routines: sl_tz_open (names), sl_tz_parse_tzif (the file),
** sl__rule_parse / sl__rule_offset (the footer), sl_tz_offset,
** sl_tz_to_local, sl_tz_from_local.
*/
#include "sl_tz.h"
#include "sl_time.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SL__TZ_MAX_FILE (1 << 20)   /* a TZif file is a few KB; refuse anything huge */
#define SL__TZ_MAX_OFFSET 93600     /* |UTC offset| < 26 h (RFC 8536 allows -89999..93599) */
#define SL__DEFAULT_ZONEINFO "/usr/share/zoneinfo"

/* One transition date of a POSIX TZ rule: Mm.w.d, Jn or n, at time
** seconds after local midnight (of the offset in effect before it). */
typedef struct sl__tzdate {
    char kind;     /* 'M', 'J' (1..365, no Feb 29) or 'n' (0..365) */
    int m, w, d;   /* M: month 1..12, week 1..5 (5 = last), weekday 0..6 (Sunday = 0) */
    int n;         /* J / n: the day */
    int32_t time;  /* seconds (may be negative or past 24 h, RFC 8536) */
} sl__tzdate;

/* A POSIX TZ rule ("CET-1CEST,M3.5.0,M10.5.0/3"); offsets are seconds east. */
typedef struct sl__tzrule {
    int32_t std_off;       /* standard time */
    bool has_dst;          /* a daylight-saving part */
    int32_t dst_off;       /* daylight-saving time */
    sl__tzdate start, end; /* dst starts (in standard time) and ends (in dst) */
} sl__tzrule;

struct sl_tz {
    char *name;          /* as opened */
    int n;               /* transitions */
    int64_t *at;         /* transition instants, seconds, strictly ascending */
    int32_t *off;        /* offset from at[i] on */
    int32_t first_off;   /* offset before at[0] (time type 0) */
    bool has_rule;       /* rule applies from at[n-1] on (everywhere when n = 0) */
    sl__tzrule rule;     /* the footer rule */
};

/* ------------------------------------------------------------------------
** Helpers.
*/

static int64_t sl__fdiv(int64_t a, int64_t b)
{
    return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

static uint32_t sl__be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t sl__be64(const uint8_t *p)
{
    return (int64_t)((uint64_t)sl__be32(p) << 32 | sl__be32(p + 4));
}

sl_tz *sl_tz_fixed(const char *name, int32_t offset_seconds)
{
    sl_tz *tz = sl_calloc(1, sizeof *tz);
    tz->name = sl_strdup(name);
    tz->first_off = offset_seconds;
    return tz;
}

void sl_tz_free(sl_tz *tz)
{
    if (!tz)
        return;
    sl_free(tz->name);
    sl_free(tz->at);
    sl_free(tz->off);
    sl_free(tz);
}

const char *sl_tz_name(const sl_tz *tz)
{
    return tz ? tz->name : "UTC";
}

/* ------------------------------------------------------------------------
** POSIX TZ rules (the TZif footer).
*/

/* A zone abbreviation: 3+ letters, or <...> with letters, digits, + and -. */
static bool sl__rule_name(const char **pp)
{
    const char *p = *pp;
    if (*p == '<') {
        p++;
        while (*p && *p != '>')
            p++;
        if (*p != '>')
            return false;
        *pp = p + 1;
        return true;
    }
    const char *s = p;
    while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z'))
        p++;
    if (p - s < 3)
        return false;
    *pp = p;
    return true;
}

/* [+-]hh[:mm[:ss]] with hours up to max_h, into seconds. */
static bool sl__rule_hms(const char **pp, int max_h, int32_t *out)
{
    const char *p = *pp;
    int sign = 1;
    if (*p == '+' || *p == '-')
        sign = *p++ == '-' ? -1 : 1;
    int part[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        if (k > 0) {
            if (*p != ':')
                break;
            p++;
        }
        if (*p < '0' || *p > '9')
            return false;
        int v = 0, digits = 0;
        while (*p >= '0' && *p <= '9' && digits < 3) {
            v = v * 10 + (*p++ - '0');
            digits++;
        }
        part[k] = v;
    }
    if (part[0] > max_h || part[1] > 59 || part[2] > 59)
        return false;
    *out = sign * (part[0] * 3600 + part[1] * 60 + part[2]);
    *pp = p;
    return true;
}

static bool sl__rule_int(const char **pp, int lo, int hi, int *out)
{
    const char *p = *pp;
    if (*p < '0' || *p > '9')
        return false;
    int v = 0;
    while (*p >= '0' && *p <= '9' && v <= hi)
        v = v * 10 + (*p++ - '0');
    if (v < lo || v > hi)
        return false;
    *out = v;
    *pp = p;
    return true;
}

/* ",date[/time]" */
static bool sl__rule_date(const char **pp, sl__tzdate *d)
{
    const char *p = *pp;
    if (*p++ != ',')
        return false;
    memset(d, 0, sizeof *d);
    if (*p == 'M') {
        p++;
        d->kind = 'M';
        if (!sl__rule_int(&p, 1, 12, &d->m) || *p++ != '.' || !sl__rule_int(&p, 1, 5, &d->w) ||
            *p++ != '.' || !sl__rule_int(&p, 0, 6, &d->d))
            return false;
    } else if (*p == 'J') {
        p++;
        d->kind = 'J';
        if (!sl__rule_int(&p, 1, 365, &d->n))
            return false;
    } else {
        d->kind = 'n';
        if (!sl__rule_int(&p, 0, 365, &d->n))
            return false;
    }
    d->time = 7200; /* 02:00 */
    if (*p == '/') {
        p++;
        if (!sl__rule_hms(&p, 167, &d->time))
            return false;
    }
    *pp = p;
    return true;
}

/* Parse a POSIX TZ string of len bytes (no NUL inside); false when it is
** not one. POSIX offsets count west; ours count east. */
static bool sl__rule_parse(const char *text, size_t len, sl__tzrule *r)
{
    char buf[128];
    if (len == 0 || len >= sizeof buf || memchr(text, '\0', len))
        return false;
    memcpy(buf, text, len);
    buf[len] = '\0';
    const char *p = buf;
    memset(r, 0, sizeof *r);
    int32_t west;
    if (!sl__rule_name(&p) || !sl__rule_hms(&p, 24, &west))
        return false;
    r->std_off = -west;
    if (!*p)
        return true;
    if (!sl__rule_name(&p))
        return false;
    r->has_dst = true;
    r->dst_off = r->std_off + 3600;
    if (*p && *p != ',') {
        if (!sl__rule_hms(&p, 24, &west))
            return false;
        r->dst_off = -west;
    }
    if (!*p) { /* no dates: POSIX leaves them to the implementation; US rules */
        r->start = (sl__tzdate){'M', 3, 2, 0, 0, 7200};
        r->end = (sl__tzdate){'M', 11, 1, 0, 0, 7200};
        return true;
    }
    return sl__rule_date(&p, &r->start) && sl__rule_date(&p, &r->end) && *p == '\0';
}

/* The instant (seconds) at which date d of year y happens in local time of
** offset off. */
static int64_t sl__rule_instant(int64_t y, const sl__tzdate *d, int32_t off)
{
    int64_t day;
    if (d->kind == 'M') {
        int64_t first = sl_days_from_civil(y, d->m, 1);
        int dow = (int)(((first + 4) % 7 + 7) % 7); /* 1970-01-01 was a Thursday */
        int mday = 1 + (d->d - dow + 7) % 7 + (d->w - 1) * 7;
        int dim = sl_days_in_month(y, d->m);
        while (mday > dim)
            mday -= 7;
        day = first + mday - 1;
    } else if (d->kind == 'J') {
        day = sl_days_from_civil(y, 1, 1) + d->n - 1 + (sl_is_leap_year(y) && d->n >= 60);
    } else {
        day = sl_days_from_civil(y, 1, 1) + d->n;
    }
    return day * 86400 + d->time - off;
}

static int32_t sl__rule_offset(const sl__tzrule *r, int64_t t)
{
    if (!r->has_dst)
        return r->std_off;
    int64_t y;
    int m, d;
    sl_civil_from_days(sl__fdiv(t + r->std_off, 86400), &y, &m, &d);
    int64_t start = sl__rule_instant(y, &r->start, r->std_off);
    int64_t end = sl__rule_instant(y, &r->end, r->dst_off);
    bool dst = start < end ? (t >= start && t < end) : !(t >= end && t < start);
    return dst ? r->dst_off : r->std_off;
}

/* ------------------------------------------------------------------------
** TZif files.
*/

/* The six counts of a TZif header. */
typedef struct sl__tzhead {
    uint32_t isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
} sl__tzhead;

static int sl__corrupt(sl_error *err, const char *name, const char *why)
{
    sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "time zone file of \"%s\" is corrupt: %s", name,
                 why);
    return -1;
}

/* Read the header at data[off..]; its data block's size (times of tsize
** bytes) into *size. */
static int sl__tzif_head(const uint8_t *data, size_t len, size_t off, int tsize, sl__tzhead *h,
                         uint64_t *size, const char *name, sl_error *err)
{
    if (len < off || len - off < 44)
        return sl__corrupt(err, name, "truncated header");
    const uint8_t *p = data + off;
    if (memcmp(p, "TZif", 4) != 0)
        return sl__corrupt(err, name, "no TZif header");
    h->isutcnt = sl__be32(p + 20);
    h->isstdcnt = sl__be32(p + 24);
    h->leapcnt = sl__be32(p + 28);
    h->timecnt = sl__be32(p + 32);
    h->typecnt = sl__be32(p + 36);
    h->charcnt = sl__be32(p + 40);
    if (h->typecnt == 0 || h->charcnt == 0 || (h->isutcnt && h->isutcnt != h->typecnt) ||
        (h->isstdcnt && h->isstdcnt != h->typecnt))
        return sl__corrupt(err, name, "inconsistent counts");
    /* 64-bit sums of 32-bit counts cannot overflow. */
    *size = (uint64_t)h->timecnt * (uint64_t)(tsize + 1) + (uint64_t)h->typecnt * 6 +
            h->charcnt + (uint64_t)h->leapcnt * (uint64_t)(tsize + 4) + h->isstdcnt + h->isutcnt;
    if (*size > len - off - 44)
        return sl__corrupt(err, name, "truncated data");
    return 0;
}

int sl_tz_parse_tzif(const uint8_t *data, size_t len, const char *name, sl_tz **out,
                     sl_error *err)
{
    *out = NULL;
    sl__tzhead h;
    uint64_t size;
    if (sl__tzif_head(data, len, 0, 4, &h, &size, name, err) != 0)
        return -1;
    char version = (char)data[4];
    int tsize = 4;
    size_t off = 44; /* the data block in use */
    if (version >= '2') {
        size_t h2 = 44 + (size_t)size;
        if (sl__tzif_head(data, len, h2, 8, &h, &size, name, err) != 0)
            return -1;
        tsize = 8;
        off = h2 + 44;
    } else if (version != '\0') {
        return sl__corrupt(err, name, "unknown version");
    }
    if (h.leapcnt)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "time zone \"%s\" counts leap seconds, which Sluice does not support",
                            name);
    const uint8_t *times = data + off;
    const uint8_t *idx = times + (size_t)h.timecnt * (size_t)tsize;
    const uint8_t *types = idx + h.timecnt;
    sl_tz *tz = sl_calloc(1, sizeof *tz);
    tz->name = sl_strdup(name);
    tz->n = (int)h.timecnt;
    tz->at = sl_calloc((size_t)h.timecnt + 1, sizeof(int64_t));
    tz->off = sl_calloc((size_t)h.timecnt + 1, sizeof(int32_t));
    int32_t *toff = sl_calloc(h.typecnt, sizeof(int32_t));
    const char *why = NULL;
    for (uint32_t i = 0; i < h.typecnt && !why; i++) {
        const uint8_t *tt = types + (size_t)i * 6;
        int32_t o = (int32_t)sl__be32(tt);
        if (o <= -SL__TZ_MAX_OFFSET || o >= SL__TZ_MAX_OFFSET)
            why = "offset out of range";
        else if (tt[4] > 1 || tt[5] >= h.charcnt)
            why = "invalid local time type";
        toff[i] = o;
    }
    for (uint32_t i = 0; i < h.timecnt && !why; i++) {
        int64_t t = tsize == 8 ? sl__be64(times + (size_t)i * 8)
                               : (int64_t)(int32_t)sl__be32(times + (size_t)i * 4);
        if (i > 0 && t <= tz->at[i - 1])
            why = "transitions out of order";
        else if (idx[i] >= h.typecnt)
            why = "invalid transition type";
        else {
            tz->at[i] = t;
            tz->off[i] = toff[idx[i]];
        }
    }
    tz->first_off = toff[0];
    sl_free(toff);
    if (!why && tsize == 8) {
        /* The footer: "\n<POSIX TZ>\n" (may be empty). */
        size_t foot = off + (size_t)size;
        if (len - foot < 2 || data[foot] != '\n')
            why = "missing footer";
        else {
            const uint8_t *s = data + foot + 1;
            const uint8_t *nl = memchr(s, '\n', len - foot - 1);
            if (!nl)
                why = "unterminated footer";
            else if (nl > s) {
                if (!sl__rule_parse((const char *)s, (size_t)(nl - s), &tz->rule))
                    why = "invalid footer rule";
                tz->has_rule = true;
            }
        }
    }
    if (why) {
        sl_tz_free(tz);
        return sl__corrupt(err, name, why);
    }
    *out = tz;
    return 0;
}

/* ------------------------------------------------------------------------
** Names.
*/

static int sl__unknown(const char *name, sl_error *err)
{
    sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1, "time zone \"%s\" not recognized", name);
    sl_error_hint(err, "Use a time zone database name such as 'America/Los_Angeles' (with its "
                       "daylight saving time), a fixed offset such as 'GMT+08:00' or 'GMT-03:00', "
                       "'UTC', or 'default' for the machine's zone.");
    return -1;
}

/* 'GMT' followed by +h, +hh, +hh:mm or +hhmm (hours <= 18): Java's custom
** zone ids. 1 when name is one (offset set), 0 when not. */
static int sl__gmt_offset(const char *name, int32_t *offset)
{
    if (strncmp(name, "GMT", 3) != 0 || (name[3] != '+' && name[3] != '-'))
        return 0;
    const char *p = name + 4;
    size_t n = strlen(p);
    int h = 0, m = 0;
    bool digits = true;
    for (size_t i = 0; i < n; i++)
        if (p[i] != ':' && (p[i] < '0' || p[i] > '9'))
            digits = false;
    if (!digits)
        return 0;
    if (n == 1 || n == 2) {
        h = atoi(p);
        if (strchr(p, ':'))
            return 0;
    } else if (n == 5 && p[2] == ':' && !strchr(p + 3, ':')) {
        h = (p[0] - '0') * 10 + (p[1] - '0');
        m = (p[3] - '0') * 10 + (p[4] - '0');
    } else if (n == 4 && !strchr(p, ':')) {
        h = (p[0] - '0') * 10 + (p[1] - '0');
        m = (p[2] - '0') * 10 + (p[3] - '0');
    } else {
        return 0;
    }
    if (h > 18 || m > 59 || (h == 18 && m > 0))
        return 0;
    *offset = (name[3] == '-' ? -1 : 1) * (h * 3600 + m * 60);
    return 1;
}

/* A region name safe to join to the zoneinfo directory: letters, digits,
** '_', '-', '+', '.', components separated by single '/', none starting
** with '.', not the POSIX or leap-second trees. */
static bool sl__region_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 128 || name[0] == '/' || name[n - 1] == '/')
        return false;
    if (strncmp(name, "posix/", 6) == 0 || strncmp(name, "right/", 6) == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-' || c == '+' || c == '.' || c == '/';
        if (!ok || (c == '/' && name[i + 1] == '/'))
            return false;
        if ((i == 0 || name[i - 1] == '/') && c == '.')
            return false;
    }
    return true;
}

/* Load the zone file at path; 1 when there is none (or it is not a regular
** file, or not TZif), 0 with *out, -1 with err. */
static int sl__load_file(const char *path, const char *name, sl_tz **out, sl_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 1;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 44 ||
        st.st_size > SL__TZ_MAX_FILE) {
        fclose(f);
        return 1;
    }
    size_t len = (size_t)st.st_size;
    uint8_t *buf = sl_malloc(len);
    size_t got = fread(buf, 1, len, f);
    fclose(f);
    if (got != len || memcmp(buf, "TZif", 4) != 0) {
        sl_free(buf);
        return 1;
    }
    int rc = sl_tz_parse_tzif(buf, len, name, out, err);
    sl_free(buf);
    return rc;
}

static const char *sl__zoneinfo_dir(void)
{
    const char *d = getenv("TZDIR");
    return d && d[0] ? d : SL__DEFAULT_ZONEINFO;
}

/* A region of the tz database; 1 when there is no such region. */
static int sl__open_region(const char *name, sl_tz **out, sl_error *err)
{
    if (!sl__region_ok(name))
        return 1;
    char *path = sl_sprintf("%s/%s", sl__zoneinfo_dir(), name);
    int rc = sl__load_file(path, name, out, err);
    sl_free(path);
    return rc;
}

/* Names that need no file, then regions; 1 when name is none of them. */
static int sl__open_named(const char *name, sl_tz **out, sl_error *err)
{
    int32_t off;
    if (strcmp(name, "UTC") == 0 || strcmp(name, "GMT") == 0) {
        *out = sl_tz_fixed(name, 0);
        return 0;
    }
    if (sl__gmt_offset(name, &off)) {
        char canon[16];
        int a = off < 0 ? -off : off;
        if (off == 0)
            snprintf(canon, sizeof canon, "GMT");
        else
            snprintf(canon, sizeof canon, "GMT%c%02d:%02d", off < 0 ? '-' : '+', a / 3600,
                     a / 60 % 60);
        *out = sl_tz_fixed(canon, off);
        return 0;
    }
    return sl__open_region(name, out, err);
}

/* 'default': $TZ (a zone name, a file, or a POSIX TZ string), else
** /etc/localtime, else UTC (as the C library does). */
static int sl__open_default(sl_tz **out, sl_error *err)
{
    const char *tz = getenv("TZ");
    if (tz) {
        if (*tz == ':')
            tz++;
        if (!*tz) {
            *out = sl_tz_fixed("UTC", 0);
            return 0;
        }
        int rc = tz[0] == '/' ? sl__load_file(tz, tz, out, err) : sl__open_named(tz, out, err);
        if (rc <= 0)
            return rc;
        sl__tzrule rule; /* a POSIX TZ string ("CET-1CEST,M3.5.0,M10.5.0/3") */
        *out = sl_tz_fixed(sl__rule_parse(tz, strlen(tz), &rule) ? tz : "UTC", 0);
        if (strcmp((*out)->name, tz) == 0) {
            (*out)->has_rule = true;
            (*out)->rule = rule;
        }
        return 0; /* glibc: an unknown TZ is UTC */
    }
    char link[512];
    ssize_t n = readlink("/etc/localtime", link, sizeof link - 1);
    const char *region = NULL;
    if (n > 0) {
        link[n] = '\0';
        const char *z = strstr(link, "zoneinfo/");
        region = z ? z + strlen("zoneinfo/") : NULL;
    }
    int rc = region ? sl__open_named(region, out, err) : 1;
    if (rc == 1)
        rc = sl__load_file("/etc/localtime", "default", out, err);
    if (rc == 1) {
        *out = sl_tz_fixed("UTC", 0);
        rc = 0;
    }
    return rc;
}

int sl_tz_open(const char *name, sl_tz **out, sl_error *err)
{
    *out = NULL;
    if (strcmp(name, "default") == 0)
        return sl__open_default(out, err);
    int rc = sl__open_named(name, out, err);
    return rc == 1 ? sl__unknown(name, err) : rc;
}

/* ------------------------------------------------------------------------
** Conversions.
*/

int32_t sl_tz_offset(const sl_tz *tz, int64_t t)
{
    if (!tz)
        return 0;
    if (tz->n == 0)
        return tz->has_rule ? sl__rule_offset(&tz->rule, t) : tz->first_off;
    if (t < tz->at[0])
        return tz->first_off;
    if (t >= tz->at[tz->n - 1] && tz->has_rule)
        return sl__rule_offset(&tz->rule, t);
    int lo = 0, hi = tz->n - 1; /* the last at[i] <= t */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (tz->at[mid] <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return tz->off[lo];
}

int sl_tz_to_local(const sl_tz *tz, int64_t instant, int64_t *local)
{
    int64_t off = sl_tz_offset(tz, sl__fdiv(instant, SL_NANOS_PER_SEC));
    return __builtin_add_overflow(instant, off * SL_NANOS_PER_SEC, local) ? -1 : 0;
}

/* Local -> instant; in an overlap the earlier offset, or the later when
** later is set. */
static int sl__from_local(const sl_tz *tz, int64_t local, bool later, int64_t *instant)
{
    int64_t l = sl__fdiv(local, SL_NANOS_PER_SEC);
    /* The offsets a day before and after: around a transition they differ.
    ** Tz database transitions are months apart. */
    int32_t before = sl_tz_offset(tz, l - 86400), after = sl_tz_offset(tz, l + 86400);
    bool vb = sl_tz_offset(tz, l - before) == before;
    bool va = sl_tz_offset(tz, l - after) == after;
    /* Overlap (both valid): the earlier offset (or the later). Gap
    ** (neither): the offset before the gap, which moves the local time
    ** forward by the gap. */
    int64_t off = (vb && !(later && va)) || !va ? before : after;
    return __builtin_sub_overflow(local, off * SL_NANOS_PER_SEC, instant) ? -1 : 0;
}

int sl_tz_from_local(const sl_tz *tz, int64_t local, int64_t *instant)
{
    return sl__from_local(tz, local, false, instant);
}

int sl_tz_from_local_later(const sl_tz *tz, int64_t local, int64_t *instant)
{
    return sl__from_local(tz, local, true, instant);
}
