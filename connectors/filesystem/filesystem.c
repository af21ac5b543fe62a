/*
** filesystem.c — the 'filesystem' connector: reads and writes files under a
** directory in one of the formats (Flink's FileSystem connector and option
** names).
**
** This file holds the declaration (options, capabilities, check) and what
** the source (fs_source.c) and the sink (fs_sink.c) share: the directory
** listing, the clock and the test knobs (fs_int.h). As a sink it writes
** hidden in-progress files and makes them visible by rename at checkpoint
** commit: exactly-once, append-only. As a source, files are read line by
** line from a stored (file, offset) position: replayable.
**
** Main routines: sl__fs_list.
*/
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fs_int.h"

size_t sl__fs_block_size = 64 * 1024;
size_t sl__fs_max_line = 16 * 1024 * 1024;
int64_t (*sl__fs_clock)(void) = sl_monotonic_nanos;

static int sl__fs_name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

sl_list *sl__fs_list(const char *dir, bool (*keep)(const char *name), sl_error *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        int e = errno;
        sl_error_set(err, e == ENOENT ? SL_ERR_UNDEFINED_FILE : SL_ERR_IO, -1,
                     "could not open directory \"%s\": %s", dir, strerror(e));
        return NULL;
    }
    sl_list *l = sl_list_new();
    struct dirent *de;
    errno = 0;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (!keep || keep(de->d_name))
            sl_list_push(l, sl_strdup(de->d_name));
        errno = 0;
    }
    int e = errno;
    closedir(d);
    if (e != 0) {
        sl_list_free(l, sl_free);
        sl_error_set(err, SL_ERR_IO, -1, "could not read directory \"%s\": %s", dir,
                     strerror(e));
        return NULL;
    }
    if (l->n > 1)
        qsort(l->items, (size_t)l->n, sizeof(void *), sl__fs_name_cmp);
    return l;
}

static const sl_option_spec sl__filesystem_options[] = {
    {.key = "path", .type = SL_OPT_STRING, .required = true,
     .description = "The directory to read from or write to: a local path, a file:// URI, or "
                    "s3://bucket/prefix (written as S3 multipart uploads, completed at "
                    "checkpoint commit; the s3.* options)."},
    {.key = "s3.access-key", .type = SL_OPT_STRING,
     .description = "s3:// paths: the access key id (unset: AWS_ACCESS_KEY_ID)."},
    {.key = "s3.secret-key", .type = SL_OPT_STRING, .secret = true,
     .description = "s3:// paths: the secret access key (unset: AWS_SECRET_ACCESS_KEY)."},
    {.key = "s3.endpoint", .type = SL_OPT_STRING,
     .description = "s3:// paths: the S3 endpoint, e.g. 'http://127.0.0.1:8333' (unset: "
                    "AWS_ENDPOINT_URL, else https://s3.<region>.amazonaws.com)."},
    {.key = "s3.region", .type = SL_OPT_STRING,
     .description = "s3:// paths: the region requests are signed for (SigV4; unset: AWS_REGION, "
                    "else us-east-1)."},
    {.key = "s3.path.style.access", .type = SL_OPT_BOOL,
     .description = "s3:// paths: address the bucket in the URL's path (http://host/bucket/key) "
                    "rather than its host name (http://bucket.host/key); unset: path style when "
                    "'s3.endpoint' is set."},
    {.key = "source.monitor-interval", .type = SL_OPT_DURATION,
     .description = "How often the source looks for new files; unset means read the files "
                    "present at start, then end (bounded)."},
    {.key = "lookup.join.cache.ttl", .type = SL_OPT_DURATION, .default_value = "60 min",
     .description = "Lookup joins: how long the files loaded into memory are used before they "
                    "are read again."},
    {.key = "sink.rolling-policy.file-size", .type = SL_OPT_MEMSIZE, .default_value = "128 mb",
     .description = "Roll to a new part file once the current one reaches this size. Every checkpoint "
                    "also closes the open files: they are committed at checkpoints."},
    {.key = "sink.rolling-policy.rollover-interval", .type = SL_OPT_DURATION,
     .default_value = "30 min",
     .description = "Roll to a new part file once the current one has been open this long (checked "
                    "before each row is written)."},
    {.key = "sink.rolling-policy.check-interval", .type = SL_OPT_DURATION,
     .default_value = "1 min",
     .description = "Accepted for Flink's sake and unused: the time-based policies are checked "
                    "before each row is written, and every checkpoint closes the open files."},
    {.key = "sink.rolling-policy.inactivity-interval", .type = SL_OPT_DURATION,
     .default_value = "30 min",
     .description = "Roll to a new part file once the current one has received no rows for "
                    "this long (checked before each row is written)."},
    {.key = "partition.default-name", .type = SL_OPT_STRING,
     .default_value = "__DEFAULT_PARTITION__",
     .description = "Partition directory name used when the partition value is NULL or empty "
                    "(PARTITIONED BY); read back as NULL."},
    {.key = "sink.partition-commit.trigger", .type = SL_OPT_ENUM,
     .enum_values = "process-time|partition-time", .default_value = "process-time",
     .description = "When a partition is committed: 'process-time' once the processing time "
                    "passes its creation time plus the delay, 'partition-time' once the "
                    "watermark passes its time (extracted from its values) plus the delay."},
    {.key = "sink.partition-commit.delay", .type = SL_OPT_DURATION, .default_value = "0 s",
     .description = "How long after its time a partition is committed."},
    {.key = "sink.partition-commit.watermark-time-zone", .type = SL_OPT_STRING,
     .default_value = "UTC",
     .description = "The time zone of partition times, compared with the watermark "
                    "(trigger 'partition-time')."},
    {.key = "sink.partition-commit.policy.kind", .type = SL_OPT_STRING,
     .description = "How a partition is committed: 'success-file' writes the success file "
                    "into its directory ('metastore' and 'custom' are not supported)."},
    {.key = "sink.partition-commit.policy.class", .type = SL_OPT_STRING,
     .description = "A Java class committing partitions: not supported."},
    {.key = "sink.partition-commit.success-file.name", .type = SL_OPT_STRING,
     .default_value = "_SUCCESS",
     .description = "The name of the success file of policy 'success-file'."},
    {.key = "partition.time-extractor.kind", .type = SL_OPT_ENUM, .enum_values = "default|custom",
     .default_value = "default",
     .description = "How a partition's time is extracted from its values ('custom', a Java "
                    "class, is not supported)."},
    {.key = "partition.time-extractor.class", .type = SL_OPT_STRING,
     .description = "A Java class extracting partition times: not supported."},
    {.key = "partition.time-extractor.timestamp-pattern", .type = SL_OPT_STRING,
     .description = "The partition's time as a text with $column for partition values, e.g. "
                    "'$dt $hm:00'; unset: the first partition value."},
    {.key = "partition.time-extractor.timestamp-formatter", .type = SL_OPT_STRING,
     .default_value = "yyyy-MM-dd HH:mm:ss",
     .description = "The pattern the partition's time text is parsed with (Java's "
                    "DateTimeFormatter letters)."},
};

const char *sl__fs_local_path(const char *v)
{
    if (v && strncmp(v, "file://", 7) == 0)
        return v + 7;
    if (v && strncmp(v, "file:/", 6) == 0)
        return v + 5;
    return v;
}

static int sl__filesystem_check(const sl_connector *c, const sl_kvlist *opts,
                                const sl_table_shape *shape, sl_error *err)
{
    const sl_kv *path = sl_kvlist_find(opts, "path");
    if (path && path->value[0] == 0)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, path->value_pos,
                            "option 'path' must not be empty");
    if (path && sl__s3_is_uri(path->value)) {
        char *bucket = NULL, *prefix = NULL;
        int rc = sl__s3_parse_uri(path->value, &bucket, &prefix);
        sl_free(bucket);
        sl_free(prefix);
        if (rc != 0) {
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, path->value_pos,
                         "option 'path' is not a valid S3 URI: \"%s\"", path->value);
            sl_error_hint(err, "Write s3://<bucket>/<prefix>: a bucket name of 3 to 63 lower-case "
                               "letters, digits, '-' and '.', a prefix without empty, '.' or "
                               "'..' segments.");
            return -1;
        }
    } else if (path && strncmp(path->value, "file:", 5) != 0 && strstr(path->value, "://")) {
        return sl_error_set(err, SL_ERR_NOT_SUPPORTED, path->value_pos,
                            "option 'path' must be a local path, a file:// URI or an s3:// URI");
    }
    return sl__fs_commit_check(opts, shape, err);
}

/* An s3:// table: the credentials work and the bucket exists (a
** ListObjectsV2 of one key); when it is written, the identity may write too
** (a multipart upload of a probe key started and aborted: nothing becomes
** visible). A clear error when the query is planned, not at run time. */
static int sl__filesystem_s3_check(const sl_kvlist *opts, bool write, sl_error *err)
{
    const char *path = sl_kvlist_get(opts, "path");
    if (!path || !sl__s3_is_uri(path))
        return 0;
    char *bucket = NULL, *prefix = NULL;
    if (sl__s3_parse_uri(path, &bucket, &prefix) != 0)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                            "option 'path' is not a valid S3 URI: \"%s\"", path);
    sl__s3 *s3 = sl__s3_open(opts, bucket, err);
    int rc = -1;
    if (s3) {
        sl__s3_set_budget(s3, 3000); /* a plan waits a few seconds at most */
        rc = sl__s3_check(s3, prefix, write, err);
    }
    sl__s3_free(s3);
    sl_free(bucket);
    sl_free(prefix);
    if (rc != 0)
        sl_option_scrub_error(err, opts);
    return rc;
}

static int sl__filesystem_check_sink(const sl_connector *c, const sl_kvlist *opts,
                                     const sl_table_shape *shape, sl_error *err)
{
    return sl__filesystem_s3_check(opts, true, err);
}

static int sl__filesystem_check_source(const sl_connector *c, const sl_kvlist *opts,
                                       const sl_table_shape *shape, sl_error *err)
{
    return sl__filesystem_s3_check(opts, false, err);
}

/* On s3:// the files are multipart uploads completed at commit: the
** mechanism EXPLAIN shows (no request; check_sink asks the server). */
static int sl__filesystem_probe(const sl_kvlist *opts, int64_t timeout_ms, sl_sink_probe *out,
                                sl_error *err)
{
    if (sl__s3_is_uri(sl_kvlist_get(opts, "path")))
        out->mech = SL_MECH_MULTIPART_UPLOAD;
    return 0;
}

/* Flink's filesystem metadata (FileSystemTableSource.ReadableFileInfo);
** the sink writes none. */
static const sl_metadata_spec sl__filesystem_metadata[] = {
    {"file.path", "STRING NOT NULL", SL_TYPE_VARCHAR, 0, true, false,
     "Full path of the input file."},
    {"file.name", "STRING NOT NULL", SL_TYPE_VARCHAR, 0, true, false,
     "Name of the file, i.e. the farthest element from the root of the filepath."},
    {"file.size", "BIGINT NOT NULL", SL_TYPE_BIGINT, 0, true, false,
     "Byte count of the file."},
    {"file.modification-time", "TIMESTAMP_LTZ(3) NOT NULL", SL_TYPE_TIMESTAMP_LTZ, 3, true,
     false, "Modification time of the file."},
};

/* Files are read again from the start: every row can come back. */
static int sl__fs_replay_horizon(const sl_kvlist *opts, int64_t timeout_ms, int64_t *horizon_ms,
                                 const char **what, sl_error *err)
{
    *horizon_ms = INT64_MAX;
    *what = "the files are read again from the start";
    return 0;
}

const sl_connector sl__connector_filesystem = {
    .name = "filesystem",
    .description = "Files in a directory, in one of the formats.",
    .options = sl__filesystem_options,
    .noptions = (int)SL_ARRAY_LEN(sl__filesystem_options),
    .has_format = true,
    .caps = {
        .source = true,
        .sink = true,
        .source_replayable = true,
        .source_bound = SL_BOUND_UNLESS_SET,
        .source_bound_option = "source.monitor-interval",
        .sink_max = SL_GUARANTEE_EXACTLY_ONCE,
        .sink_mech = SL_MECH_ATOMIC_RENAME,
        .sink_updates = false,
        .sink_default = SL_GUARANTEE_EXACTLY_ONCE,
        .sink_target_option = "path",
        .sink_target_path = true,
        .partitioned = true,
        .probe = sl__filesystem_probe,
    },
    .check = sl__filesystem_check,
    .check_sink = sl__filesystem_check_sink,
    .check_source = sl__filesystem_check_source,
    .create_source = sl__fs_source_create,
    .create_sink = sl__fs_sink_create,
    .notes =
        "`'path'` = `'s3://bucket/prefix'` (also `s3a://`, `s3p://`) writes and reads S3 "
        "objects, as Flink's S3 filesystem does. The sink writes each part file "
        "(`<prefix>/[<partition>/]part-<id>-<subtask>-<epoch>-<seq>.<ext>`, the same names, "
        "rolling policy and formats as on local files) as a multipart upload: rows are "
        "buffered and sent in parts of 5 MiB, the rest as the last part when the checkpoint "
        "pre-commits; S3 lists and serves the object only once the upload is completed, "
        "which the checkpoint's commit does (exactly-once, mechanism `multipart-upload`). "
        "A restart completes the uploads of decided checkpoints (an upload S3 no longer knows "
        "counts as committed when the object has the recorded size and multipart ETag; "
        "missing is an error, 58030) and aborts every other upload of the job, table and "
        "subtask under the prefix. The uploads of the epoch a job was writing when it stopped "
        "stay (invisible) until the job runs again; for a job that never does, a bucket "
        "lifecycle rule (AbortIncompleteMultipartUpload) removes them. The upload is "
        "completed only where no object is (`If-None-Match: *`): a job name reused over old "
        "output fails the commit with 58030 naming the part file, as on local files, instead "
        "of replacing it. Each open part file buffers up to 5 MiB, and a thread per sink instance sends the "
        "full parts while the next ones fill (at most 16 open files per instance).\n\n"
        "The source lists the objects under `<prefix>/` (names starting with `.` or `_` are "
        "skipped), reads them in key order with ranged GETs, and stores the object's name and "
        "byte offset in checkpoints; with `'source.monitor-interval'` it lists again and reads "
        "objects named after the current one.\n\n"
        "Credentials: `'s3.access-key'` and `'s3.secret-key'`, else `AWS_ACCESS_KEY_ID` and "
        "`AWS_SECRET_ACCESS_KEY`; requests are signed with SigV4 for `'s3.region'` (else "
        "`AWS_REGION`, else us-east-1). Planning an INSERT into the table checks that the "
        "credentials work (28000 unknown key, 28P01 wrong secret), the bucket exists (58P01) "
        "and the identity may write (42501: a multipart upload of a probe key is started and "
        "aborted); planning a read checks the first two. Transport failures and 5xx answers "
        "are retried for up to 30 s.",
    .metadata = sl__filesystem_metadata,
    .nmetadata = (int)SL_ARRAY_LEN(sl__filesystem_metadata),
    .create_lookup = sl__fs_lookup_create,
    .replay_horizon = sl__fs_replay_horizon,
    .lookup_describe = sl__fs_lookup_describe,
};
