/*
** fs_int.h — internals shared by the filesystem connector's files
** (filesystem.c: declaration; fs_source.c: the line source; fs_sink.c: the
** exactly-once part-file sink). Not a public header: only files under
** connectors/filesystem/ and the connector's unit test include it.
**
** Besides the two create functions it holds the few knobs the unit test
** turns (block size, line limit, the clock) and the directory listing both
** sides use.
*/
#ifndef SL_FS_INT_H
#define SL_FS_INT_H

#include "../sl_connector_int.h"
#include "sl_tz.h"

/* Create functions attached to sl__connector_filesystem. */
int sl__fs_source_create(const sl_source_args *args, sl_source **out, sl_error *err);
int sl__fs_sink_create(const sl_sink_args *args, sl_sink **out, sl_error *err);
/* fs_lookup.c: the lookup provider (every file in memory, reloaded after
** 'lookup.join.cache.ttl') and its EXPLAIN text. */
int sl__fs_lookup_create(const sl_lookup_args *args, sl_lookup **out, sl_error *err);
void sl__fs_lookup_describe(const sl_kvlist *opts, sl_strbuf *out);

/* Knobs (process-wide; only tests change them). */
extern size_t sl__fs_block_size;      /* bytes per read() of the source: 64 KiB */
extern size_t sl__fs_max_line;        /* longest record the source accepts: 16 MiB */
extern int64_t (*sl__fs_clock)(void); /* monotonic ns: rolling and monitor intervals */

/* The names of the entries of dir that satisfy keep (NULL: all), sorted by
** strcmp (byte order, not locale). Caller frees with sl_list_free(l, sl_free).
** NULL with err (58P01 / 58030) when dir cannot be read. */
sl_list *sl__fs_list(const char *dir, bool (*keep)(const char *name), sl_error *err);

/* The local path of a 'path' option: a "file://" or "file:" URI's path,
** else the value itself (points into v). */
const char *sl__fs_local_path(const char *v);

/* ------------------------------------------------------------------------
** Partitions (fs_partition.c).
*/
typedef struct sl__fs_layout {
    int npart;                /* PARTITIONED BY columns (0 = none) */
    const int *part;          /* their indexes among the table's columns */
    const char *const *names; /* the table's column names */
    const char *default_name; /* 'partition.default-name' */
} sl__fs_layout;

/* The partition directory of row r of c: "a=<va>/b=<vb>" (escaped). tmp is
** scratch. */
void sl__fs_partition_dir(const sl_chunk *c, int r, const sl__fs_layout *lay, sl_strbuf *out,
                          sl_strbuf *tmp);
/* The partition values of a path relative to the table's directory
** ("a=1/b=x/part-0"): values[i] (unescaped, allocated; NULL for the
** default name). -1 when rel does not start with the npart directories
** named after the partition columns in order. */
int sl__fs_partition_values(const sl__fs_layout *lay, const char *rel, char **values);
/* The text Flink writes for a temporal value (2026-01-01T10:05, a 'Z' for
** an instant) as the csv codec reads it (2026-01-01 10:05:00[Z]); other
** values as they are. */
void sl__fs_partition_norm(sl_type_id t, const char *v, sl_strbuf *out);
/* %XX -> the byte. */
void sl__fs_unescape(sl_strbuf *sb, const char *s, size_t n);

/* The partition-commit options, read. */
typedef struct sl__fs_commit_opts {
    bool partition_time; /* trigger partition-time (else process-time) */
    int64_t delay_ms;    /* 'sink.partition-commit.delay' */
    bool success_file;   /* the policy writes the success file */
    char *success_name;  /* its name */
    char *pattern;       /* timestamp pattern, or NULL */
    char *formatter;     /* timestamp formatter, or NULL (flexible) */
    sl_tz *tz;           /* watermark time zone (NULL = UTC) */
} sl__fs_commit_opts;

/* Check the options of partition commit and time extraction (0A000 for
** what needs a Hive metastore or a Java class; 22023 for bad values).
** shape may be NULL (then the pattern's $names are not checked). */
int sl__fs_commit_check(const sl_kvlist *opts, const sl_table_shape *shape, sl_error *err);
int sl__fs_commit_opts_read(const sl_kvlist *opts, sl__fs_commit_opts *o, sl_error *err);
void sl__fs_commit_opts_free(sl__fs_commit_opts *o);
/* The time of partition rel ("a=1/b=2") in ms since the epoch. */
int sl__fs_partition_time(const sl__fs_commit_opts *o, const sl__fs_layout *lay, const char *rel,
                          int64_t *ms, sl_error *err);

#endif /* SL_FS_INT_H */
