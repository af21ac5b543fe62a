/*
** fs_source.c — the filesystem source: the lines of the files under 'path'
** decoded with the table's format.
**
** Files. 'path' names one file, or a directory: then every regular file in
** it (not in subdirectories) whose name does not start with '.' or '_'
** (hidden, as Flink skips them: in-progress part files of the sink), read
** in name order (strcmp, byte order). With parallelism p, subtask k reads
** the files whose name hashes (64-bit FNV-1a) to k modulo p. A hash and not
** the index in the listing: the listing changes as files appear, and an
** index would move a file from one subtask to another between a checkpoint
** and a restart (read twice or never); the hash of a name never changes.
**
** PARTITIONED BY: the files are those under the partition directories
** <col1>=<v1>/<col2>=<v2>/ (named after the partition columns in order;
** other entries are not read), named by their path relative to the
** directory (the same order, hash and position); each row's partition
** columns come from the path (fs_partition.c: %XX unescaped, the default
** name NULL), converted by a csv codec over those columns.
**
** Records are lines: split on '\n' (where sl_codec_line_end says: a csv
** record continues over line breaks inside a quoted field), a trailing '\r'
** stripped, each given to sl_codec_decode. Files are read in blocks
** (sl__fs_block_size, 64 KiB), never whole; a record longer than
** sl__fs_max_line (16 MiB) is an error (54000) naming file:line (the line
** where the record starts). A malformed record fails the source (22P02,
** the codec's message; the detail adds `in <file>:<line>: <record>` with
** the first 200 bytes of the record); with '<format>.ignore-parse-errors'
** the codec skips it and skipped() counts it.
**
** Position (text): "v1 <offset> <line> <name>" — the file being read, the
** byte offset just after the last record handed out, the number of lines
** consumed before that offset (for file:line in messages), and the name
** (may hold any byte but NUL; empty before the first file). Files of this
** subtask named before <name> are done; the source continues in <name> at
** <offset>, then with the names after it. A file that vanished is skipped;
** one shorter than the stored offset is an error (XX001): it was rewritten.
**
** Bounded ('source.monitor-interval' unset): the files present at start,
** then SL_SOURCE_END; a last line without '\n' is a record (the files are
** complete). Continuous: the directory is listed again every monitor
** interval and the source moves to a newer file (a name after the current
** one) once it has consumed the current one. Only complete lines are
** consumed: a last line without '\n' is held back until its '\n' arrives
** (appended lines of the newest file are read as they come). A file whose
** last line never completes therefore holds this subtask back; it is
** reported once (sl_log warning) when newer files wait behind it. As in
** Flink, write files under a hidden name and rename them when complete;
** files named before the current one that appear later are not read.
**
** poll returns within about 100 ms: after 50 ms of reading, or after one
** wait of at most 100 ms (continuous mode, nothing new).
**
** METADATA columns (Flink's keys, declared in filesystem.c) are filled from
** the file a record comes from: file.path (absolute), file.name, file.size
** and file.modification-time as fstat tells them when the file is opened
** (at the start, or again at the position after a restore: a file that is
** not changed gives the same values on replay).
**
** S3 ('path' = 's3://bucket/prefix', fs_s3.c): the same with objects for
** files. The listing is ListObjectsV2 under "<prefix>/" (every page), the
** names the keys after it: "<name>" (unpartitioned; keys further down are
** not read, as subdirectories are not) or "<col>=<v>/.../<name>"; names
** whose last segment starts with '.' or '_' are skipped (in-progress
** uploads are not listed anyway). An object is read with ranged GETs of
** SL__FS_S3_BLOCK bytes from the position's offset; its size and
** modification time come from a HeadObject when it is opened (a vanished
** object is skipped, one shorter than the position is XX001, as files).
** Objects do not grow: in continuous mode only new keys are read. 'path'
** names a prefix, never a single object.
**
** Main routines: sl__fs_source_create and the sl_source_ops below.
*/
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fs_int.h"

#define SL__FS_POLL_WORK_NS (50 * 1000000LL)  /* read for at most this long per poll */
#define SL__FS_IDLE_WAIT_NS (100 * 1000000LL) /* longest wait in one poll */
#define SL__FS_SHOW_BYTES   200               /* bytes of a bad record in messages */
#define SL__FS_S3_BLOCK     (1024 * 1024)     /* bytes per ranged GET of an S3 object */

typedef struct sl__fs_source {
    char *dir;          /* directory of the files */
    char *single;       /* 'path' named this one file in dir (else NULL) */
    sl__s3 *s3;         /* S3: the client (NULL: local files); dir is then the URI */
    char *key_prefix;   /* S3: the keys' prefix ("" or "a/b") */
    bool opened;        /* a file (object) is open */
    int64_t read_at;    /* S3: the object's bytes up to here are in buf (or consumed) */
    int subtask;        /* this instance */
    int parallelism;    /* instances reading the table */
    bool continuous;    /* 'source.monitor-interval' set */
    int64_t monitor_ns; /* listing interval (continuous) */
    sl_codec *codec;    /* the table's format */
    int64_t skipped;    /* records skipped as malformed */
    /* Position. */
    char *file;     /* file being read (NULL: none yet) */
    int64_t offset; /* byte offset after the last record handed out */
    int64_t line;   /* lines consumed before offset */
    /* Reading. */
    int fd;               /* open file (-1: not open) */
    char *buf;            /* bytes read from the file; buf[start] is at offset */
    size_t start;         /* first unconsumed byte in buf */
    size_t len;           /* bytes in buf */
    size_t cap;           /* bytes allocated */
    size_t scanned;       /* bytes after start the codec's line scanner has seen */
    sl_list *listing;     /* names of this subtask's files, sorted (NULL: not listed) */
    int64_t next_list_ns; /* continuous: when to list again */
    bool ended;           /* bounded input exhausted */
    bool warned_stall;    /* the held-back-line warning was logged for file */
    /* PARTITIONED BY: the files are under <col>=<value>/ directories. */
    sl__fs_layout lay;    /* the partition columns */
    char **names;         /* the table's column names (owned, for lay) */
    int ncols;            /* their number */
    sl_codec *pcodec;     /* csv over the partition columns: their values' types */
    sl_type_id *ptypes;   /* the partition columns' types */
    sl_strbuf prec;       /* the current file's partition values as a csv record */
    /* METADATA columns. */
    int nmeta;            /* how many */
    int *meta_cols;       /* their column indexes */
    int *meta_keys;       /* their keys (sl__fs_meta_key) */
    char *abs_dir;        /* dir as an absolute path (file.path) */
    int64_t file_size;    /* the open file's size and modification time (ns), at open */
    int64_t file_mtime;
} sl__fs_source;

typedef enum sl__fs_meta_key {
    SL__FSM_PATH, SL__FSM_NAME, SL__FSM_SIZE, SL__FSM_MTIME,
} sl__fs_meta_key;

static const char *const sl__fs_meta_keys[] = {
    [SL__FSM_PATH] = "file.path", [SL__FSM_NAME] = "file.name", [SL__FSM_SIZE] = "file.size",
    [SL__FSM_MTIME] = "file.modification-time",
};

/* Fill the metadata columns of row `row` of out from the file being read. */
static void sl__fs_meta_fill(const sl__fs_source *s, sl_chunk *out, int row)
{
    for (int k = 0; k < s->nmeta; k++) {
        int c = s->meta_cols[k];
        switch ((sl__fs_meta_key)s->meta_keys[k]) {
        case SL__FSM_PATH: {
            char *p = sl_path_join(s->abs_dir, s->file);
            sl_chunk_set_str(out, c, row, p, strlen(p));
            sl_free(p);
            break;
        }
        case SL__FSM_NAME: { /* the file's own name, not its partition directories */
            const char *slash = strrchr(s->file, '/'), *name = slash ? slash + 1 : s->file;
            sl_chunk_set_str(out, c, row, name, strlen(name));
            break;
        }
        case SL__FSM_SIZE:
            sl_chunk_set_i64(out, c, row, s->file_size);
            break;
        case SL__FSM_MTIME: /* TIMESTAMP_LTZ(3): whole milliseconds */
            sl_chunk_set_i64(out, c, row, sl_time_truncate(s->file_mtime, 3));
            break;
        }
    }
}

/* ------------------------------------------------------------------------
** Files of this subtask.
*/
static bool sl__fs_visible(const char *name)
{
    return name[0] != '.' && name[0] != '_';
}

static bool sl__fs_mine(const sl__fs_source *s, const char *name)
{
    if (s->parallelism <= 1)
        return true;
    uint64_t h = sl_hash_bytes(name, strlen(name), SL_HASH_INIT);
    return (int)(h % (uint64_t)s->parallelism) == s->subtask;
}

static int sl__fs_rel_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The visible names under dir/rel that are partition directories of level
** `level` (named <column>=...), down to the files of the last level, as
** paths relative to dir, into names. */
static int sl__fs_list_partitions(const sl__fs_source *s, const char *rel, int level,
                                  sl_list *names, sl_error *err)
{
    char *d = rel[0] ? sl_path_join(s->dir, rel) : sl_strdup(s->dir);
    sl_list *l = sl__fs_list(d, sl__fs_visible, err);
    sl_free(d);
    if (!l)
        return -1;
    int rc = 0;
    const char *col = level < s->lay.npart ? s->lay.names[s->lay.part[level]] : NULL;
    for (int i = 0; rc == 0 && i < l->n; i++) {
        char *name = l->items[i];
        char *sub = rel[0] ? sl_path_join(rel, name) : sl_strdup(name);
        if (!col) {
            sl_list_push(names, sub); /* regular or not: relist checks */
            continue;
        }
        const char *eq = strchr(name, '=');
        sl_strbuf k = SL_STRBUF_INIT;
        if (eq)
            sl__fs_unescape(&k, name, (size_t)(eq - name));
        if (eq && strcmp(sl_strbuf_cstr(&k), col) == 0) {
            char *p = sl_path_join(s->dir, sub);
            if (sl_fs_is_dir(p))
                rc = sl__fs_list_partitions(s, sub, level + 1, names, err);
            sl_free(p);
        }
        sl_strbuf_free(&k);
        sl_free(sub);
    }
    sl_list_free(l, sl_free);
    return rc;
}

/* Whether rel ("a=1/b=2/name" or "name") is a readable object name: the
** partition directories of the table's columns in order, then a visible
** name. */
static bool sl__fs_s3_readable(const sl__fs_source *s, const char *rel)
{
    const char *p = rel;
    for (int level = 0; level < s->lay.npart; level++) {
        const char *sl = strchr(p, '/'), *eq = strchr(p, '=');
        if (!sl || !eq || eq > sl || !sl__fs_visible(p))
            return false;
        sl_strbuf k = SL_STRBUF_INIT;
        sl__fs_unescape(&k, p, (size_t)(eq - p));
        bool ok = strcmp(sl_strbuf_cstr(&k), s->lay.names[s->lay.part[level]]) == 0;
        sl_strbuf_free(&k);
        if (!ok)
            return false;
        p = sl + 1;
    }
    return p[0] && !strchr(p, '/') && sl__fs_visible(p);
}

/* The S3 listing: names relative to the prefix, in key order (byte order:
** what ListObjectsV2 returns, sorted again to be sure). */
static sl_list *sl__fs_s3_names(const sl__fs_source *s, sl_error *err)
{
    char *under = s->key_prefix[0] ? sl_sprintf("%s/", s->key_prefix) : sl_strdup("");
    sl_list *objs = sl_list_new(), *names = NULL;
    if (sl__s3_list(s->s3, under, 0, objs, err) == 0) {
        names = sl_list_new();
        size_t ul = strlen(under);
        for (int i = 0; i < objs->n; i++) {
            const sl__s3_obj *o = objs->items[i];
            if (strncmp(o->key, under, ul) == 0 && sl__fs_s3_readable(s, o->key + ul))
                sl_list_push(names, sl_strdup(o->key + ul));
        }
        if (names->n > 1)
            qsort(names->items, (size_t)names->n, sizeof(void *), sl__fs_rel_cmp);
    }
    sl_list_free(objs, sl__s3_obj_free);
    sl_free(under);
    return names;
}

/* Refresh s->listing: this subtask's regular, visible files, sorted. */
static int sl__fs_relist(sl__fs_source *s, sl_error *err)
{
    sl_list *names;
    if (s->s3) {
        names = sl__fs_s3_names(s, err);
        if (!names)
            return -1;
    } else if (s->single) {
        names = sl_list_new();
        sl_list_push(names, sl_strdup(s->single));
    } else if (s->lay.npart > 0) {
        names = sl_list_new();
        if (sl__fs_list_partitions(s, "", 0, names, err) != 0) {
            sl_list_free(names, sl_free);
            return -1;
        }
        if (names->n > 1)
            qsort(names->items, (size_t)names->n, sizeof(void *), sl__fs_rel_cmp);
    } else {
        names = sl__fs_list(s->dir, sl__fs_visible, err);
        if (!names)
            return -1;
    }
    sl_list *mine = sl_list_new();
    for (int i = 0; i < names->n; i++) {
        char *name = names->items[i];
        bool regular = true; /* (an object is) */
        if (!s->s3) {
            char *p = sl_path_join(s->dir, name);
            struct stat st;
            regular = stat(p, &st) == 0 && S_ISREG(st.st_mode);
            sl_free(p);
        }
        if (regular && sl__fs_mine(s, name)) {
            sl_list_push(mine, name);
            names->items[i] = NULL;
        }
    }
    sl_list_free(names, sl_free);
    sl_list_free(s->listing, sl_free);
    s->listing = mine;
    if (s->continuous)
        s->next_list_ns = sl__fs_clock() + s->monitor_ns;
    return 0;
}

/* The first listed name after s->file (all names when no file yet), or NULL. */
static const char *sl__fs_next_name(const sl__fs_source *s)
{
    for (int i = 0; s->listing && i < s->listing->n; i++) {
        const char *n = s->listing->items[i];
        if (!s->file || strcmp(n, s->file) > 0)
            return n;
    }
    return NULL;
}

static void sl__fs_close_file(sl__fs_source *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    s->opened = false;
    s->start = s->len = s->scanned = 0;
}

/* s->prec: the partition values of s->file as one csv record (a value
** quoted, NULL an empty field) that s->pcodec decodes. */
static void sl__fs_partition_record(sl__fs_source *s)
{
    char **vals = sl_calloc((size_t)s->lay.npart, sizeof(char *));
    sl_strbuf_reset(&s->prec);
    bool ok = sl__fs_partition_values(&s->lay, s->file, vals) == 0;
    for (int i = 0; i < s->lay.npart; i++) {
        if (i)
            sl_strbuf_append_char(&s->prec, ',');
        if (ok && vals[i]) {
            sl_strbuf v = SL_STRBUF_INIT;
            sl__fs_partition_norm(s->ptypes[i], vals[i], &v);
            sl_strbuf_append_char(&s->prec, '"');
            for (const char *c = sl_strbuf_cstr(&v); *c; c++) {
                if (*c == '"')
                    sl_strbuf_append_char(&s->prec, '"');
                sl_strbuf_append_char(&s->prec, *c);
            }
            sl_strbuf_append_char(&s->prec, '"');
            sl_strbuf_free(&v);
        }
        sl_free(vals[i]);
    }
    sl_free(vals);
}

/* The object key of name. */
static char *sl__fs_s3_key_of(const sl__fs_source *s, const char *name)
{
    return s->key_prefix[0] ? sl_sprintf("%s/%s", s->key_prefix, name) : sl_strdup(name);
}

static int sl__fs_s3_open_current(sl__fs_source *s, sl_error *err)
{
    char *key = sl__fs_s3_key_of(s, s->file);
    bool found = false;
    int64_t size = 0, mtime_ms = 0;
    int rc = sl__s3_head(s->s3, key, &found, &size, NULL, &mtime_ms, err);
    sl_free(key);
    if (rc != 0)
        return -1;
    if (!found)
        return 1;
    if (size < s->offset) {
        char *p = sl_path_join(s->dir, s->file);
        sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                     "object \"%s\" is shorter than the position to resume from", p);
        sl_error_detail(err, "The object has %" PRId64 " bytes; the position is byte %" PRId64 ".",
                        size, s->offset);
        sl_error_hint(err, "Objects must not be replaced once the source has read them.");
        sl_free(p);
        return -1;
    }
    s->opened = true;
    s->read_at = s->offset;
    s->file_size = size;
    s->file_mtime = mtime_ms * 1000000;
    s->start = s->len = s->scanned = 0;
    s->warned_stall = false;
    if (s->lay.npart > 0)
        sl__fs_partition_record(s);
    return 0;
}

/* Open s->file at s->offset. 0 when open, 1 when the file vanished, -1 with err. */
static int sl__fs_open_current(sl__fs_source *s, sl_error *err)
{
    if (s->s3)
        return sl__fs_s3_open_current(s, err);
    char *p = sl_path_join(s->dir, s->file);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT) {
            sl_free(p);
            return 1;
        }
        sl_error_set(err, SL_ERR_IO, -1, "could not open file \"%s\": %s", p, strerror(e));
        sl_free(p);
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || lseek(fd, (off_t)s->offset, SEEK_SET) < 0) {
        sl_error_set(err, SL_ERR_IO, -1, "could not read file \"%s\": %s", p, strerror(errno));
        close(fd);
        sl_free(p);
        return -1;
    }
    if ((int64_t)st.st_size < s->offset) {
        sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                     "file \"%s\" is shorter than the position to resume from", p);
        sl_error_detail(err, "The file has %" PRId64 " bytes; the position is byte %" PRId64 ".",
                        (int64_t)st.st_size, s->offset);
        sl_error_hint(err, "Files must not be rewritten or truncated once the source has read "
                           "them.");
        close(fd);
        sl_free(p);
        return -1;
    }
    sl_free(p);
    s->fd = fd;
    s->opened = true;
    s->file_size = (int64_t)st.st_size;
    s->file_mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    s->start = s->len = s->scanned = 0;
    s->warned_stall = false;
    if (s->lay.npart > 0)
        sl__fs_partition_record(s);
    return 0;
}

/* Make the next file (after s->file) current and open it. 0 when a file is
** open, 1 when there is none (yet), -1 with err. */
static int sl__fs_advance(sl__fs_source *s, sl_error *err)
{
    for (;;) {
        const char *next = sl__fs_next_name(s);
        if (!next)
            return 1;
        sl_free(s->file);
        s->file = sl_strdup(next);
        s->offset = 0;
        s->line = 0;
        int rc = sl__fs_open_current(s, err);
        if (rc <= 0)
            return rc;
        /* Vanished since the listing: go on with the next name. */
    }
}

/* ------------------------------------------------------------------------
** Records.
*/
static void sl__fs_show_record(sl_strbuf *sb, const char *rec, size_t len)
{
    size_t n = len;
    if (n > SL__FS_SHOW_BYTES) {
        n = SL__FS_SHOW_BYTES;
        while (n > 0 && ((unsigned char)rec[n] & 0xC0) == 0x80)
            n--; /* do not cut a UTF-8 sequence */
    }
    sl_strbuf_append_n(sb, rec, n);
    if (n < len)
        sl_strbuf_append(sb, "...");
}

/* Add "in <file>:<line>: <record>" to the detail of err. */
static void sl__fs_locate_error(sl__fs_source *s, sl_error *err, const char *rec, size_t len)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    if (err->detail && err->detail[0])
        sl_strbuf_appendf(&sb, "%s\n", err->detail);
    char *p = sl_path_join(s->dir, s->file);
    sl_strbuf_appendf(&sb, "in %s:%" PRId64 ": ", p, s->line + 1);
    sl_free(p);
    sl__fs_show_record(&sb, rec, len);
    sl_error_detail(err, "%s", sl_strbuf_cstr(&sb));
    sl_strbuf_free(&sb);
}

/* Decode the record buf[start .. start+reclen) (its line break left out)
** that ends a line of consumed bytes; on success the position moves past
** it. */
static int sl__fs_emit(sl__fs_source *s, size_t reclen, size_t consumed, sl_chunk *out,
                       sl_error *err)
{
    const char *rec = s->buf + s->start;
    int rc = sl_codec_decode(s->codec, rec, reclen, out, err);
    if (rc < 0) {
        if (!sl_error_isset(err))
            sl_error_set(err, SL_ERR_INVALID_TEXT, -1, "malformed record");
        sl__fs_locate_error(s, err, rec, reclen);
        return -1;
    }
    if (rc == SL_CODEC_SKIPPED)
        s->skipped++;
    if (rc == SL_CODEC_ROW && s->pcodec) {
        int prc = sl_codec_decode_fill(s->pcodec, sl_strbuf_cstr(&s->prec), s->prec.len, out,
                                       out->nrows - 1, err);
        if (prc != SL_CODEC_ROW) {
            out->nrows--; /* the row without its partition values */
            char *why = prc < 0 && err->detail ? sl_strdup(err->detail) : NULL;
            char *p = sl_path_join(s->dir, s->file);
            sl_error_reset(err);
            sl_error_set(err, SL_ERR_INVALID_TEXT, -1, "invalid partition value in path \"%s\"",
                         p);
            if (why)
                sl_error_detail(err, "%s", why);
            sl_free(why);
            sl_free(p);
            return -1;
        }
    }
    if (rc == SL_CODEC_ROW && s->nmeta)
        sl__fs_meta_fill(s, out, out->nrows - 1);
    for (const char *p = memchr(rec, '\n', reclen); p; /* a multi-line record (csv quotes) */
         p = memchr(p + 1, '\n', reclen - (size_t)(p + 1 - rec)))
        s->line++;
    s->start += consumed;
    s->scanned = 0;
    s->offset += (int64_t)consumed;
    s->line++;
    return 0;
}

/* Read the next block into buf. >0 bytes read, 0 at end of file, -1 with err. */
static ssize_t sl__fs_read_block(sl__fs_source *s, sl_error *err)
{
    if (s->start > 0) {
        memmove(s->buf, s->buf + s->start, s->len - s->start);
        s->len -= s->start;
        s->start = 0;
    }
    size_t block = sl__fs_block_size ? sl__fs_block_size : 1;
    if (s->cap - s->len < block) { /* grow geometrically: long lines stay linear */
        s->cap = s->len + block > 2 * s->cap ? s->len + block : 2 * s->cap;
        s->buf = sl_realloc(s->buf, s->cap);
    }
    if (s->s3) { /* a ranged GET; nothing past the size seen at open */
        int64_t want = s->file_size - s->read_at;
        if (want <= 0)
            return 0;
        if (want > SL__FS_S3_BLOCK)
            want = SL__FS_S3_BLOCK;
        char *key = sl__fs_s3_key_of(s, s->file);
        sl_strbuf got = SL_STRBUF_INIT;
        bool found = false;
        int rc = sl__s3_get(s->s3, key, s->read_at, want, &got, &found, err);
        sl_free(key);
        if (rc == 0 && (!found || got.len == 0)) {
            char *p = sl_path_join(s->dir, s->file);
            rc = sl_error_set(err, SL_ERR_IO, -1, "object \"%s\" vanished or shrank while read", p);
            sl_free(p);
        }
        if (rc != 0) {
            sl_strbuf_free(&got);
            return -1;
        }
        if (s->cap - s->len < got.len) {
            s->cap = s->len + got.len > 2 * s->cap ? s->len + got.len : 2 * s->cap;
            s->buf = sl_realloc(s->buf, s->cap);
        }
        memcpy(s->buf + s->len, got.buf, got.len);
        s->len += got.len;
        s->read_at += (int64_t)got.len;
        ssize_t r = (ssize_t)got.len;
        sl_strbuf_free(&got);
        return r;
    }
    for (;;) {
        ssize_t r = read(s->fd, s->buf + s->len, block);
        if (r >= 0) {
            s->len += (size_t)r;
            return r;
        }
        if (errno != EINTR) {
            char *p = sl_path_join(s->dir, s->file);
            sl_error_set(err, SL_ERR_IO, -1, "could not read file \"%s\": %s", p, strerror(errno));
            sl_free(p);
            return -1;
        }
    }
}

static int sl__fs_line_too_long(sl__fs_source *s, sl_error *err)
{
    char *p = sl_path_join(s->dir, s->file);
    sl_error_set(err, SL_ERR_PROGRAM_LIMIT, -1, "record too long in %s:%" PRId64, p, s->line + 1);
    sl_error_detail(err, "A line (record) may hold at most %zu bytes.", sl__fs_max_line);
    sl_free(p);
    return -1;
}

/* Nothing to read right now (continuous mode): wait for the next listing,
** at most SL__FS_IDLE_WAIT_NS, then list if due. */
static int sl__fs_idle(sl__fs_source *s, sl_error *err)
{
    int64_t wait = s->next_list_ns - sl__fs_clock();
    sl_sleep_nanos(wait < SL__FS_IDLE_WAIT_NS ? wait : SL__FS_IDLE_WAIT_NS);
    if (sl__fs_clock() >= s->next_list_ns)
        return sl__fs_relist(s, err);
    return 0;
}

/* ------------------------------------------------------------------------
** Operations.
*/
static int sl__fs_poll(sl_source *src, sl_chunk *out, sl_error *err)
{
    sl__fs_source *s = src->impl;
    if (s->ended)
        return SL_SOURCE_END;
    if (!s->listing && sl__fs_relist(s, err) != 0)
        return -1;
    int64_t deadline = sl__fs_clock() + SL__FS_POLL_WORK_NS;
    bool waited = false;
    while (!sl_chunk_full(out)) {
        if (!s->opened) {
            /* (Re)open the current file at the position (after a seek), else
            ** the next one. */
            int rc = s->file ? sl__fs_open_current(s, err) : 1;
            if (rc < 0)
                return -1;
            if (rc == 1)
                rc = sl__fs_advance(s, err);
            if (rc < 0)
                return -1;
            if (rc == 1) { /* no file to read */
                if (!s->continuous) {
                    s->ended = true;
                    return SL_SOURCE_END;
                }
                if (out->nrows > 0 || waited)
                    return SL_SOURCE_MORE;
                waited = true;
                if (sl__fs_idle(s, err) != 0)
                    return -1;
                continue;
            }
        }
        /* A complete record in the buffer? */
        size_t avail = s->len - s->start, reclen;
        size_t end = sl_codec_line_end(s->codec, s->buf + s->start, avail, &s->scanned, &reclen);
        if (end < avail) {
            if (end > sl__fs_max_line)
                return sl__fs_line_too_long(s, err);
            if (sl__fs_emit(s, reclen, end + 1, out, err) != 0)
                return -1;
            continue;
        }
        if (avail > sl__fs_max_line)
            return sl__fs_line_too_long(s, err);
        if (sl__fs_clock() > deadline)
            return SL_SOURCE_MORE;
        ssize_t r = sl__fs_read_block(s, err);
        if (r < 0)
            return -1;
        if (r > 0)
            continue;
        /* End of the file (for now; an S3 object never grows). */
        if ((!s->continuous || s->s3) && avail > 0) { /* the last line, without '\n' */
            size_t scanned = 0;
            sl_codec_line_end(s->codec, s->buf + s->start, avail, &scanned, &reclen);
            if (sl__fs_emit(s, reclen, avail, out, err) != 0)
                return -1;
            continue;
        }
        if (!s->continuous) {
            sl__fs_close_file(s);
            int rc = sl__fs_advance(s, err);
            if (rc < 0)
                return -1;
            if (rc == 1) {
                s->ended = true;
                return SL_SOURCE_END;
            }
            continue;
        }
        /* Continuous: move on only from a completely consumed file. */
        if (avail == 0 && sl__fs_next_name(s)) {
            sl__fs_close_file(s);
            int rc = sl__fs_advance(s, err);
            if (rc < 0)
                return -1;
            if (rc == 0)
                continue;
        }
        if (avail > 0 && !s->warned_stall && sl__fs_next_name(s)) {
            char *p = sl_path_join(s->dir, s->file);
            sl_log(SL_LOG_WARN,
                   "filesystem source: %s ends with an incomplete line (no newline); newer "
                   "files are read once it is complete",
                   p);
            sl_free(p);
            s->warned_stall = true;
        }
        if (out->nrows > 0 || waited)
            return SL_SOURCE_MORE;
        waited = true;
        if (sl__fs_idle(s, err) != 0)
            return -1;
    }
    return SL_SOURCE_MORE;
}

static int sl__fs_position(sl_source *src, sl_strbuf *out, sl_error *err)
{
    sl__fs_source *s = src->impl;
    sl_strbuf_appendf(out, "v1 %" PRId64 " %" PRId64 " %s", s->offset, s->line,
                      s->file ? s->file : "");
    return 0;
}

/* Parse a non-negative decimal integer ending at a blank; advances *p. */
static bool sl__fs_parse_i64(const char **p, const char *end, int64_t *out)
{
    const char *q = *p;
    int64_t v = 0;
    if (q >= end || *q < '0' || *q > '9')
        return false;
    while (q < end && *q >= '0' && *q <= '9') {
        if (v > (INT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (*q++ - '0');
    }
    if (q >= end || *q != ' ')
        return false;
    *p = q + 1;
    *out = v;
    return true;
}

static int sl__fs_seek(sl_source *src, const char *pos, size_t len, sl_error *err)
{
    sl__fs_source *s = src->impl;
    const char *p = pos, *end = pos + len;
    int64_t offset, line;
    if (len < 3 || memcmp(p, "v1 ", 3) != 0 || (p += 3, !sl__fs_parse_i64(&p, end, &offset)) ||
        !sl__fs_parse_i64(&p, end, &line) || memchr(p, 0, (size_t)(end - p)) != NULL ||
        ((end == p) && (offset != 0 || line != 0))) {
        sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "invalid filesystem source position");
        sl_error_detail(err, "The stored position is \"%.*s\".", (int)(len > 200 ? 200 : len), pos);
        return -1;
    }
    sl__fs_close_file(s);
    sl_free(s->file);
    s->file = end > p ? sl_strndup(p, (size_t)(end - p)) : NULL;
    s->offset = offset;
    s->line = line;
    s->ended = false;
    return 0;
}

static int64_t sl__fs_skipped(sl_source *src)
{
    sl__fs_source *s = src->impl;
    return s->skipped;
}

static void sl__fs_source_free_parts(sl__fs_source *s)
{
    sl_codec_free(s->pcodec);
    sl_free(s->ptypes);
    sl_strbuf_free(&s->prec);
    for (int i = 0; i < s->ncols && s->names; i++)
        sl_free(s->names[i]);
    sl_free(s->names);
    sl_free((void *)s->lay.part);
    sl_free((void *)s->lay.default_name);
}

static void sl__fs_source_free(sl_source *src)
{
    if (!src)
        return;
    sl__fs_source *s = src->impl;
    sl__fs_close_file(s);
    sl__fs_source_free_parts(s);
    sl_codec_free(s->codec);
    sl_list_free(s->listing, sl_free);
    sl_free(s->buf);
    sl_free(s->file);
    sl_free(s->dir);
    sl_free(s->abs_dir);
    sl_free(s->meta_cols);
    sl_free(s->meta_keys);
    sl_free(s->single);
    sl__s3_free(s->s3);
    sl_free(s->key_prefix);
    sl_free(s);
    sl_free(src);
}

static const sl_source_ops sl__fs_source_ops = {
    .poll = sl__fs_poll,
    .position = sl__fs_position,
    .seek = sl__fs_seek,
    .skipped = sl__fs_skipped,
    .free = sl__fs_source_free,
};

/* PARTITIONED BY: the codec reads the other columns from the files, a csv
** codec the partition columns from the path. */
static int sl__fs_source_partitions(sl__fs_source *s, const sl_source_args *args, sl_error *err)
{
    s->ncols = args->ncols;
    s->names = sl_calloc((size_t)args->ncols + 1, sizeof(char *));
    for (int i = 0; i < args->ncols; i++)
        s->names[i] = sl_strdup(args->names[i]);
    int *part = sl_calloc((size_t)args->npart + 1, sizeof(int));
    const char **pnames = sl_calloc((size_t)args->npart + 1, sizeof(char *));
    sl_type *ptypes = sl_calloc((size_t)args->npart + 1, sizeof(sl_type));
    s->ptypes = sl_calloc((size_t)args->npart + 1, sizeof(sl_type_id));
    for (int k = 0; k < args->npart; k++) {
        part[k] = args->part[k];
        pnames[k] = args->names[part[k]];
        ptypes[k] = args->types[part[k]];
        s->ptypes[k] = ptypes[k].id;
    }
    const char *defname = sl_kvlist_get(args->options, "partition.default-name");
    s->lay = (sl__fs_layout){args->npart, part, (const char *const *)s->names,
                             sl_strdup(defname && defname[0] ? defname : "__DEFAULT_PARTITION__")};
    sl_kvlist *po = sl_kvlist_new();
    sl_kvlist_add(po, "format", "csv", -1, -1);
    s->pcodec = sl_codec_new(po, args->npart, pnames, ptypes, err);
    sl_kvlist_free(po);
    if (s->pcodec)
        sl_codec_map_columns(s->pcodec, args->ncols, part);
    sl_free(pnames);
    sl_free(ptypes);
    return s->pcodec ? 0 : -1;
}

int sl__fs_source_create(const sl_source_args *args, sl_source **out, sl_error *err)
{
    *out = NULL;
    const sl_kv *path = sl_kvlist_find(args->options, "path");
    bool s3 = path && sl__s3_is_uri(path->value);
    const char *where = path ? (s3 ? path->value : sl__fs_local_path(path->value)) : NULL;
    if (!where || !where[0])
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1, "option 'path' is required");
    const sl_kv *mon = sl_kvlist_find(args->options, "source.monitor-interval");
    int64_t monitor_ms = 0;
    if (mon && sl_option_parse_duration_ms(mon->value, &monitor_ms, mon->value_pos, err) != 0)
        return -1;
    char *bucket = NULL, *key_prefix = NULL;
    sl__s3 *client = NULL;
    if (s3) {
        if (sl__s3_parse_uri(where, &bucket, &key_prefix) != 0)
            return sl_error_set(err, SL_ERR_INVALID_PARAMETER, path->value_pos,
                                "option 'path' is not a valid s3:// URI: \"%s\"", where);
        client = sl__s3_open(args->options, bucket, err);
        sl_free(bucket);
        if (!client) {
            sl_free(key_prefix);
            return -1;
        }
    }
    struct stat st = {.st_mode = S_IFDIR}; /* (S3: a prefix) */
    if (!s3 && stat(where, &st) != 0) {
        int e = errno;
        return sl_error_set(err, e == ENOENT ? SL_ERR_UNDEFINED_FILE : SL_ERR_IO, path->value_pos,
                            "could not read \"%s\": %s", where, strerror(e));
    }
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, path->value_pos,
                            "\"%s\" is neither a file nor a directory", where);
    /* The files hold the columns that are neither partition nor metadata columns. */
    int nd = 0, *dcols = sl_calloc((size_t)args->ncols + 1, sizeof(int));
    const char **dnames = sl_calloc((size_t)args->ncols + 1, sizeof(char *));
    sl_type *dtypes = sl_calloc((size_t)args->ncols + 1, sizeof(sl_type));
    for (int i = 0; i < args->ncols; i++) {
        bool is_part = false;
        for (int k = 0; k < args->npart; k++)
            is_part = is_part || args->part[k] == i;
        if (!is_part && !(args->meta && args->meta[i])) { /* metadata: not in the files */
            dcols[nd] = i;
            dnames[nd] = args->names[i];
            dtypes[nd++] = args->types[i];
        }
    }
    sl_codec *codec = sl_codec_new(args->options, nd, dnames, dtypes, err);
    if (codec && nd < args->ncols)
        sl_codec_map_columns(codec, args->ncols, dcols);
    sl_free(dcols);
    sl_free(dnames);
    sl_free(dtypes);
    if (!codec) {
        sl__s3_free(client);
        sl_free(key_prefix);
        return -1;
    }
    sl__fs_source *s = sl_calloc(1, sizeof *s);
    s->s3 = client;
    s->key_prefix = key_prefix;
    if (s3) { /* "s3://bucket/prefix" without a trailing '/': messages, file.path */
        s->dir = key_prefix[0] ? sl_sprintf("s3://%s/%s", sl__s3_bucket_name(client), key_prefix)
                               : sl_sprintf("s3://%s", sl__s3_bucket_name(client));
    } else if (S_ISDIR(st.st_mode)) {
        s->dir = sl_strdup(where);
    } else {
        const char *slash = strrchr(where, '/');
        s->dir = slash ? sl_strndup(where, (size_t)(slash - where) + (slash == where))
                       : sl_strdup(".");
        s->single = sl_strdup(slash ? slash + 1 : where);
    }
    s->subtask = args->subtask;
    s->parallelism = args->parallelism > 0 ? args->parallelism : 1;
    s->continuous = mon != NULL;
    s->monitor_ns = (monitor_ms > 0 ? monitor_ms : 1) * 1000000;
    s->codec = codec;
    s->fd = -1;
    char *abs = s3 ? NULL : realpath(s->dir, NULL); /* malloc'd by libc */
    s->abs_dir = sl_strdup(abs ? abs : s->dir);
    free(abs);
    for (int i = 0; args->meta && i < args->ncols; i++)
        s->nmeta += args->meta[i] != NULL;
    s->meta_cols = sl_calloc((size_t)s->nmeta + 1, sizeof(int));
    s->meta_keys = sl_calloc((size_t)s->nmeta + 1, sizeof(int));
    for (int i = 0, k = 0; args->meta && i < args->ncols; i++) {
        if (!args->meta[i])
            continue;
        int key = -1;
        for (size_t j = 0; j < SL_ARRAY_LEN(sl__fs_meta_keys); j++)
            if (strcmp(args->meta[i], sl__fs_meta_keys[j]) == 0)
                key = (int)j;
        if (key < 0) { /* the planner checked them */
            sl_error_set(err, SL_ERR_INTERNAL, -1, "filesystem: unexpected metadata key '%s'",
                         args->meta[i]);
            sl_codec_free(codec);
            sl_free(s->meta_cols);
            sl_free(s->meta_keys);
            sl_free(s->abs_dir);
            sl_free(s->dir);
            sl_free(s->single);
            sl__s3_free(s->s3);
            sl_free(s->key_prefix);
            sl_free(s);
            return -1;
        }
        s->meta_cols[k] = i;
        s->meta_keys[k++] = key;
    }
    sl_source *src = sl_calloc(1, sizeof *src);
    src->ops = &sl__fs_source_ops;
    src->impl = s;
    if (args->npart > 0 && !s->single && sl__fs_source_partitions(s, args, err) != 0) {
        sl__fs_source_free(src);
        return -1;
    }
    *out = src;
    return 0;
}
