/*
** fs_partition.c — partitions of the filesystem connector (PARTITIONED BY),
** as Flink's FileSystem connector lays them out and commits them.
**
** Layout: a row of a table PARTITIONED BY (a, b) lives in the file
** <path>/a=<va>/b=<vb>/part-...; the partition columns are not in the file.
** A value is its text as Flink writes it (Java's toString of the value:
** true, 2026-01-01T10:05, 2026-01-01T10:05:00Z; else CAST(... AS STRING)
** text), escaped as Flink (Hive's
** FileUtils.escapePathName): the bytes 0x01-0x1F, 0x7F and " # % ' * / : =
** ? \ { [ ] ^ become %XX (upper-case hex); NULL and the empty string are
** 'partition.default-name' (__DEFAULT_PARTITION__). Reading unescapes %XX
** and takes the default name as NULL.
**
** Partition commit: the options 'sink.partition-commit.*' and
** 'partition.time-extractor.*' (Flink's names and defaults), checked when
** the table is declared (sl__fs_commit_check) and read by the sink
** (sl__fs_commit_opts_read). A partition's time (trigger partition-time)
** is Flink's DefaultPartTimeExtractor's: the timestamp pattern with each
** $<column> replaced by the partition's value (no pattern: the first
** partition value), parsed with the formatter (unset: yyyy-[M]M-[d]d[
** [H]H:[m]m[:[s]s[.f]]]; a pattern that does not match a date-time is
** tried as a date at 00:00), as a local date-time of the watermark time
** zone.
**
** Main routines: sl__fs_partition_dir, sl__fs_partition_values,
** sl__fs_commit_check, sl__fs_commit_opts_read, sl__fs_partition_time.
*/
#include <stdlib.h>
#include <string.h>

#include "fs_int.h"

/* ------------------------------------------------------------------------
** Path names.
*/
static bool sl__fs_escaped(unsigned char ch)
{
    return (ch >= 0x01 && ch <= 0x1F) || ch == 0x7F || strchr("\"#%'*/:=?\\{[]^", ch) != NULL;
}

static void sl__fs_escape(sl_strbuf *sb, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch && sl__fs_escaped(ch)) {
            sl_strbuf_append_char(sb, '%');
            sl_strbuf_append_char(sb, hex[ch >> 4]);
            sl_strbuf_append_char(sb, hex[ch & 15]);
        } else {
            sl_strbuf_append_char(sb, (char)ch);
        }
    }
}

static int sl__fs_hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

void sl__fs_unescape(sl_strbuf *sb, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int hi = s[i] == '%' && i + 2 < n ? sl__fs_hexval(s[i + 1]) : -1;
        int lo = hi >= 0 ? sl__fs_hexval(s[i + 2]) : -1;
        if (lo >= 0) {
            sl_strbuf_append_char(sb, (char)(hi * 16 + lo));
            i += 2;
        } else {
            sl_strbuf_append_char(sb, s[i]);
        }
    }
}

/* Java's LocalTime.toString fraction and seconds: ":ss" when either is not
** zero (always when force), then .SSS / .SSSSSS / .SSSSSSSSS as needed. */
static void sl__fs_java_secs(sl_strbuf *sb, int64_t sec, int64_t nano, bool force)
{
    if (sec || nano || force)
        sl_strbuf_appendf(sb, ":%02d", (int)sec);
    if (nano % 1000000 == 0 && nano)
        sl_strbuf_appendf(sb, ".%03d", (int)(nano / 1000000));
    else if (nano % 1000 == 0 && nano)
        sl_strbuf_appendf(sb, ".%06d", (int)(nano / 1000));
    else if (nano)
        sl_strbuf_appendf(sb, ".%09d", (int)nano);
}

/* A partition value's text as Flink writes it: the external Java object's
** toString (Boolean: true; LocalDateTime: 2026-01-01T10:05; LocalTime:
** 10:05:30; Instant: 2026-01-01T10:05:00Z), else CAST(... AS STRING). False
** for NULL. */
static bool sl__fs_value_text(sl_strbuf *sb, const sl_vector *v, int r)
{
    if (v->nulls[r])
        return false;
    int64_t x = v->v.i64[r], ns = INT64_C(1000000000);
    switch (v->type.id) {
    case SL_TYPE_BOOLEAN:
        sl_strbuf_append(sb, v->v.b[r] ? "true" : "false");
        return true;
    case SL_TYPE_TIME:
        sl_strbuf_appendf(sb, "%02d:%02d", (int)(x / ns / 3600), (int)(x / ns / 60 % 60));
        sl__fs_java_secs(sb, x / ns % 60, x % ns, false);
        return true;
    case SL_TYPE_TIMESTAMP:
    case SL_TYPE_TIMESTAMP_LTZ: {
        int64_t days = x / (86400 * ns), tod = x % (86400 * ns), y = 0;
        if (tod < 0)
            tod += 86400 * ns, days--;
        int m = 0, d = 0;
        sl_civil_from_days(days, &y, &m, &d);
        sl_strbuf_appendf(sb, "%04lld-%02d-%02dT%02d:%02d", (long long)y, m, d,
                          (int)(tod / ns / 3600), (int)(tod / ns / 60 % 60));
        bool instant = v->type.id == SL_TYPE_TIMESTAMP_LTZ;
        sl__fs_java_secs(sb, tod / ns % 60, tod % ns, instant);
        if (instant)
            sl_strbuf_append_char(sb, 'Z');
        return true;
    }
    default:
        return sl_value_format(sb, v, r);
    }
}

void sl__fs_partition_dir(const sl_chunk *c, int r, const sl__fs_layout *lay, sl_strbuf *out,
                          sl_strbuf *tmp)
{
    for (int i = 0; i < lay->npart; i++) {
        int col = lay->part[i];
        if (i)
            sl_strbuf_append_char(out, '/');
        sl__fs_escape(out, lay->names[col], strlen(lay->names[col]));
        sl_strbuf_append_char(out, '=');
        sl_strbuf_reset(tmp);
        if (!sl__fs_value_text(tmp, &c->cols[col], r) || tmp->len == 0)
            sl_strbuf_append(out, lay->default_name);
        else
            sl__fs_escape(out, tmp->buf, tmp->len);
    }
}

void sl__fs_partition_norm(sl_type_id t, const char *v, sl_strbuf *out)
{
    size_t n = strlen(v), at = 0;
    bool ts = t == SL_TYPE_TIMESTAMP || t == SL_TYPE_TIMESTAMP_LTZ;
    if ((ts || t == SL_TYPE_TIME) && n > 0) {
        if (ts && n >= 16 && v[10] == 'T') { /* 2026-01-01T10:05[:ss[.f]][Z] */
            sl_strbuf_append_n(out, v, 10);
            sl_strbuf_append_char(out, ' ');
            at = 11;
        }
        size_t end = n;
        bool z = end > at && v[end - 1] == 'Z';
        if (z)
            end--;
        sl_strbuf_append_n(out, v + at, end - at);
        if (end - at == 5 && v[at + 2] == ':') /* HH:mm */
            sl_strbuf_append(out, ":00");
        if (z && t == SL_TYPE_TIMESTAMP_LTZ) /* the csv text of an instant */
            sl_strbuf_append_char(out, 'Z');
        return;
    }
    sl_strbuf_append(out, v);
}

int sl__fs_partition_values(const sl__fs_layout *lay, const char *rel, char **values)
{
    const char *p = rel;
    for (int i = 0; i < lay->npart; i++) {
        const char *slash = strchr(p, '/');
        const char *eq = memchr(p, '=', slash ? (size_t)(slash - p) : strlen(p));
        if (!slash || !eq)
            return -1;
        const char *name = lay->names[lay->part[i]];
        sl_strbuf k = SL_STRBUF_INIT, v = SL_STRBUF_INIT;
        sl__fs_unescape(&k, p, (size_t)(eq - p));
        bool ok = strcmp(sl_strbuf_cstr(&k), name) == 0;
        sl_strbuf_free(&k);
        if (!ok)
            return -1;
        size_t vn = (size_t)(slash - eq - 1);
        if (vn == strlen(lay->default_name) && memcmp(eq + 1, lay->default_name, vn) == 0) {
            values[i] = NULL;
        } else {
            sl__fs_unescape(&v, eq + 1, vn);
            values[i] = sl_strdup(sl_strbuf_cstr(&v));
        }
        sl_strbuf_free(&v);
        p = slash + 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
** Partition commit options.
*/
static int sl__fs_refuse(sl_error *err, const sl_kv *kv, const char *what, const char *why)
{
    sl_error_set(err, SL_ERR_NOT_SUPPORTED, kv->value_pos, "%s is not supported", what);
    sl_error_detail(err, "%s", why);
    return -1;
}

/* Each $name of the pattern must be a partition column. */
static int sl__fs_check_pattern(const sl_kv *kv, const sl_table_shape *shape, sl_error *err)
{
    for (const char *p = strchr(kv->value, '$'); p; p = strchr(p + 1, '$')) {
        size_t best = 0;
        for (int i = 0; i < shape->npart; i++) {
            const char *n = shape->names[shape->part[i]];
            size_t l = strlen(n);
            if (strncmp(p + 1, n, l) == 0 && l > best)
                best = l;
        }
        if (best == 0) {
            size_t l = 0;
            while (p[1 + l] && (p[1 + l] == '_' || (p[1 + l] >= 'a' && p[1 + l] <= 'z') ||
                                (p[1 + l] >= 'A' && p[1 + l] <= 'Z') ||
                                (p[1 + l] >= '0' && p[1 + l] <= '9')))
                l++;
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->value_pos,
                         "invalid value for option 'partition.time-extractor.timestamp-pattern': "
                         "\"$%.*s\" is not a partition column",
                         (int)l, p + 1);
            sl_error_detail(err, "The pattern names partition columns as $column, e.g. "
                                 "'$dt $hm:00'.");
            return -1;
        }
    }
    return 0;
}

int sl__fs_commit_check(const sl_kvlist *opts, const sl_table_shape *shape, sl_error *err)
{
    const sl_kv *kv = sl_kvlist_find(opts, "sink.partition-commit.policy.kind");
    if (kv) {
        const char *p = kv->value;
        while (*p) {
            const char *comma = strchr(p, ',');
            size_t n = comma ? (size_t)(comma - p) : strlen(p);
            while (n > 0 && (p[0] == ' ' || p[0] == '\t'))
                p++, n--;
            while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
                n--;
            if (n == 9 && strncmp(p, "metastore", 9) == 0)
                return sl__fs_refuse(err, kv, "partition commit policy 'metastore'",
                                     "It adds the partition to a Hive metastore; Sluice has "
                                     "none. Use 'success-file'.");
            if (n == 6 && strncmp(p, "custom", 6) == 0)
                return sl__fs_refuse(err, kv, "partition commit policy 'custom'",
                                     "It runs a Java class ('sink.partition-commit.policy.class'). "
                                     "Use 'success-file'.");
            if (!(n == 12 && strncmp(p, "success-file", 12) == 0)) {
                sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->value_pos,
                             "invalid value for option 'sink.partition-commit.policy.kind': "
                             "\"%.*s\"",
                             (int)n, p);
                sl_error_detail(err, "Expected a comma-separated list of: success-file, "
                                     "metastore, custom.");
                return -1;
            }
            p = comma ? comma + 1 : p + n;
        }
    }
    kv = sl_kvlist_find(opts, "partition.time-extractor.kind");
    if (kv && sl_strcasecmp(kv->value, "custom") == 0)
        return sl__fs_refuse(err, kv, "partition time extractor 'custom'",
                             "It runs a Java class ('partition.time-extractor.class'). Use "
                             "'default' with 'partition.time-extractor.timestamp-pattern'.");
    kv = sl_kvlist_find(opts, "partition.time-extractor.class");
    if (kv)
        return sl__fs_refuse(err, kv, "option 'partition.time-extractor.class'",
                             "It names a Java class. Use "
                             "'partition.time-extractor.timestamp-pattern'.");
    kv = sl_kvlist_find(opts, "sink.partition-commit.policy.class");
    if (kv)
        return sl__fs_refuse(err, kv, "option 'sink.partition-commit.policy.class'",
                             "It names a Java class. Use 'success-file'.");
    kv = sl_kvlist_find(opts, "partition.time-extractor.timestamp-pattern");
    if (kv && shape && sl__fs_check_pattern(kv, shape, err) != 0)
        return -1;
    kv = sl_kvlist_find(opts, "partition.time-extractor.timestamp-formatter");
    if (kv) {
        sl_strbuf sb = SL_STRBUF_INIT;
        int rc = sl_ts_format_pattern(0, kv->value, &sb);
        sl_strbuf_free(&sb);
        if (rc != 0 || !kv->value[0])
            return sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->value_pos,
                                "invalid value for option "
                                "'partition.time-extractor.timestamp-formatter': \"%s\" is not a "
                                "date-time pattern",
                                kv->value);
    }
    kv = sl_kvlist_find(opts, "sink.partition-commit.watermark-time-zone");
    if (kv) {
        sl_tz *tz = NULL;
        if (sl_tz_open(kv->value, &tz, err) != 0) {
            err->position = kv->value_pos;
            return -1;
        }
        sl_tz_free(tz);
    }
    const char *name = sl_kvlist_get(opts, "sink.partition-commit.success-file.name");
    kv = sl_kvlist_find(opts, "sink.partition-commit.success-file.name");
    if (name && (!name[0] || strchr(name, '/') || strcmp(name, ".") == 0 ||
                 strcmp(name, "..") == 0))
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, kv->value_pos,
                            "invalid value for option 'sink.partition-commit.success-file.name': "
                            "\"%s\" is not a file name",
                            name);
    return 0;
}

int sl__fs_commit_opts_read(const sl_kvlist *opts, sl__fs_commit_opts *o, sl_error *err)
{
    memset(o, 0, sizeof *o);
    if (sl__fs_commit_check(opts, NULL, err) != 0)
        return -1;
    const char *trig = sl_kvlist_get(opts, "sink.partition-commit.trigger");
    o->partition_time = trig && sl_strcasecmp(trig, "partition-time") == 0;
    const sl_kv *kv = sl_kvlist_find(opts, "sink.partition-commit.delay");
    if (kv && sl_option_parse_duration_ms(kv->value, &o->delay_ms, kv->value_pos, err) != 0)
        return -1;
    const char *pol = sl_kvlist_get(opts, "sink.partition-commit.policy.kind");
    o->success_file = pol && strstr(pol, "success-file") != NULL;
    const char *name = sl_kvlist_get(opts, "sink.partition-commit.success-file.name");
    o->success_name = sl_strdup(name ? name : "_SUCCESS");
    o->pattern = sl_strdup(sl_kvlist_get(opts, "partition.time-extractor.timestamp-pattern"));
    o->formatter = sl_strdup(sl_kvlist_get(opts, "partition.time-extractor.timestamp-formatter"));
    const char *tz = sl_kvlist_get(opts, "sink.partition-commit.watermark-time-zone");
    if (tz && sl_tz_open(tz, &o->tz, err) != 0) {
        sl__fs_commit_opts_free(o);
        return -1;
    }
    return 0;
}

void sl__fs_commit_opts_free(sl__fs_commit_opts *o)
{
    sl_free(o->success_name);
    sl_free(o->pattern);
    sl_free(o->formatter);
    sl_tz_free(o->tz);
    memset(o, 0, sizeof *o);
}

int sl__fs_partition_time(const sl__fs_commit_opts *o, const sl__fs_layout *lay, const char *rel,
                          int64_t *ms, sl_error *err)
{
    char **vals = sl_calloc((size_t)lay->npart, sizeof(char *));
    char *with_slash = sl_sprintf("%s/", rel);
    int rc = sl__fs_partition_values(lay, with_slash, vals);
    sl_strbuf ts = SL_STRBUF_INIT;
    if (rc == 0 && !o->pattern) {
        sl_strbuf_append(&ts, vals[0] ? vals[0] : "");
    } else if (rc == 0) {
        for (const char *p = o->pattern; *p;) {
            int best = -1;
            size_t bl = 0;
            for (int i = 0; *p == '$' && i < lay->npart; i++) {
                const char *n = lay->names[lay->part[i]];
                size_t l = strlen(n);
                if (strncmp(p + 1, n, l) == 0 && l > bl)
                    best = i, bl = l;
            }
            if (best >= 0) {
                sl_strbuf_append(&ts, vals[best] ? vals[best] : "");
                p += 1 + bl;
            } else {
                sl_strbuf_append_char(&ts, *p++);
            }
        }
    }
    int64_t local = 0;
    if (rc == 0) {
        const char *t = sl_strbuf_cstr(&ts);
        if (o->formatter) {
            rc = sl_ts_parse_pattern(t, ts.len, o->formatter, &local);
        } else {
            rc = sl_ts_parse(t, ts.len, &local);
            if (rc != 0) {
                int64_t days = 0;
                rc = sl_date_parse(t, ts.len, &days);
                if (rc == 0 && (days > 106750 || days < -106750)) /* the ns range */
                    rc = -1;
                local = rc == 0 ? days * 86400 * INT64_C(1000000000) : 0;
            }
        }
        if (rc != 0) {
            sl_error_set(err, SL_ERR_DATETIME_FORMAT, -1,
                         "cannot extract the time of partition \"%s\" from \"%s\"", rel, t);
            if (o->formatter)
                sl_error_detail(err, "'partition.time-extractor.timestamp-formatter' is \"%s\".",
                                o->formatter);
            else
                sl_error_detail(err, "Without 'partition.time-extractor.timestamp-formatter' the "
                                     "time is read as yyyy-MM-dd[ HH:mm[:ss[.S]]].");
            sl_error_hint(err, "Set 'partition.time-extractor.timestamp-pattern' to build the "
                               "time from the partition values, e.g. '$dt $hm:00'.");
        }
    } else {
        rc = sl_error_set(err, SL_ERR_INTERNAL, -1, "not a partition directory: \"%s\"", rel);
    }
    int64_t inst = local;
    if (rc == 0 && sl_tz_from_local(o->tz, local, &inst) != 0)
        rc = sl_error_set(err, SL_ERR_DATETIME_OVERFLOW, -1,
                          "time of partition \"%s\" is out of range", rel);
    if (rc == 0)
        *ms = inst >= 0 ? inst / 1000000 : -((-inst + 999999) / 1000000);
    for (int i = 0; i < lay->npart; i++)
        sl_free(vals[i]);
    sl_free(vals);
    sl_free(with_slash);
    sl_strbuf_free(&ts);
    return rc;
}
