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

/* ------------------------------------------------------------------------
** S3 (fs_s3.c): the client of s3:// paths, libcurl (SigV4) + libexpat.
*/
typedef struct sl__s3 sl__s3;

/* An object of a listing, or an upload of ListMultipartUploads. */
typedef struct sl__s3_obj {
    char *key;    /* the object key */
    int64_t size; /* bytes (objects) */
    char *etag;   /* without quotes (objects) */
    char *upload; /* upload id (uploads) */
} sl__s3_obj;
void sl__s3_obj_free(void *o);

/* Whether v is an s3:// (s3a://, s3p://) URI. */
bool sl__s3_is_uri(const char *v);
/* "s3://bucket/a/b/" -> bucket "bucket", prefix "a/b" (no leading or
** trailing '/'; "" for the bucket's root). -1 when it is not a valid one. */
int sl__s3_parse_uri(const char *uri, char **bucket, char **prefix);

/* A client of bucket with the table's options ('s3.access-key',
** 's3.secret-key', 's3.endpoint', 's3.region', 's3.path.style.access';
** AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT_URL
** when unset). NULL with err (28000 without credentials). No request yet. */
sl__s3 *sl__s3_open(const sl_kvlist *opts, const char *bucket, sl_error *err);
void sl__s3_free(sl__s3 *c);
/* How long a request is tried again (transport failures, 5xx): 30 s. */
void sl__s3_set_budget(sl__s3 *c, int64_t ms);

/* Operations: 0, or -1 with err (see fs_s3.c for the SQLSTATEs). */
int sl__s3_put(sl__s3 *c, const char *key, const void *data, size_t len, sl_error *err);
/* PUT only when the key does not exist yet (If-None-Match: *, atomic in
** S3): *existed = true (and 0) when it did, nothing written. */
int sl__s3_put_new(sl__s3 *c, const char *key, const void *data, size_t len, bool *existed,
                   sl_error *err);
/* DeleteObject (a key that does not exist is fine). */
int sl__s3_delete(sl__s3 *c, const char *key, sl_error *err);
/* The client's bucket. */
const char *sl__s3_bucket_name(const sl__s3 *c);
/* *found = false on 404; else *size, *etag (allocated) and *mtime_ms (its
** Last-Modified; 0 when none); etag and mtime_ms may be NULL. */
int sl__s3_head(sl__s3 *c, const char *key, bool *found, int64_t *size, char **etag,
                int64_t *mtime_ms, sl_error *err);
/* Bytes [off, off+len) (len < 0: to the end) appended to out; *found =
** false on NoSuchKey. A range at or past the end reads nothing. */
int sl__s3_get(sl__s3 *c, const char *key, int64_t off, int64_t len, sl_strbuf *out, bool *found,
               sl_error *err);
/* ListObjectsV2 under prefix (every page; max > 0: the first max keys
** only), appended to out (sl__s3_obj *) in key order. */
int sl__s3_list(sl__s3 *c, const char *prefix, int max, sl_list *out, sl_error *err);
int sl__s3_mpu_create(sl__s3 *c, const char *key, char **upload_id, sl_error *err);
/* *etag = the part's MD5 as hex (what S3 answered, checked). */
int sl__s3_mpu_part(sl__s3 *c, const char *key, const char *upload_id, int part, const void *data,
                    size_t len, char **etag, sl_error *err);
/* Parts 1..n with these ETags, only when no object is at the key yet
** (If-None-Match: *). *no_upload = true (and 0) on NoSuchUpload or when an
** object is there (412): the caller tells by the object whether it is the
** upload's, completed before. */
int sl__s3_mpu_complete(sl__s3 *c, const char *key, const char *upload_id,
                        const char *const *etags, int n, bool *no_upload, sl_error *err);
/* Abort; NoSuchUpload is fine. */
int sl__s3_mpu_abort(sl__s3 *c, const char *key, const char *upload_id, sl_error *err);
/* ListMultipartUploads under prefix (every page), appended to out. */
int sl__s3_mpu_list(sl__s3 *c, const char *prefix, sl_list *out, sl_error *err);
/* The plan-time check: the credentials work and the bucket exists (a
** ListObjectsV2 of one key); with write, a multipart upload of a probe key
** is started and aborted (the identity may write). */
int sl__s3_check(sl__s3 *c, const char *prefix, bool write, sl_error *err);

/* Pure helpers (the unit test's). */
void sl__s3_md5_hex(const void *p, size_t n, char out[33]);
/* The ETag of a multipart object from its parts' ETags (hex MD5s):
** "<MD5 of the parts' binary MD5s>-<n>" appended to out; -1 for a bad ETag. */
int sl__s3_multipart_etag(const char *const *etags, int n, sl_strbuf *out);
void sl__s3_uri_encode(sl_strbuf *out, const char *s, bool keep_slash);
int sl__s3_parse_error(const char *xml, size_t len, char **code, char **message);
int sl__s3_parse_initiate(const char *xml, size_t len, char **upload_id);
int sl__s3_parse_list(const char *xml, size_t len, sl_list *out, bool *truncated, char **next);
int sl__s3_parse_uploads(const char *xml, size_t len, sl_list *out, bool *truncated,
                         char **next_key, char **next_upload);

#endif /* SL_FS_INT_H */
