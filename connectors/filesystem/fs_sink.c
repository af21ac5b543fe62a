/*
** fs_sink.c — the filesystem sink: exactly-once part files by atomic rename
** (DESIGN.md section 5, a preparable participant), partitioned (PARTITIONED
** BY) with Flink's partition commit.
**
** Two storages behind the one sink (sl__fs_store): local files, described
** here, and S3 ('path' = 's3://bucket/prefix'), where an in-progress file
** is a multipart upload completed at commit — the same names, rolling,
** formats, partitions and epoch protocol; its own section below ("The S3
** storage") says what differs.
**
** File names (in the directory 'path', or in a partition directory under it,
** "a=1/b=x", fs_partition.c; <ext> is the format name: json, csv, raw):
**
**   final        part-<id>-<subtask>-<epoch>-<seq>.<ext>
**   in progress  .part-<id>-<subtask>-<epoch>-<seq>.<ext>.inprogress.<inc>
**
** <id> is 16 hex digits of the 64-bit FNV-1a hash of the job name, a NUL
** and the table name: stable across restarts, different between jobs.
** <epoch> is the checkpoint that seals the file and <seq> counts the files
** of that epoch (rolling, partitions), from 0. A final name is unique
** across restarts without any persisted counter: an epoch is decided at
** most once, and the files of an undecided epoch are deleted by recover()
** before the epoch number is used again. <inc> (16 random hex digits) tells
** this incarnation's in-progress files from an earlier one's. The leading
** '.' hides in-progress files from readers (our own source skips names
** starting with '.' or '_', as Flink does).
**
** Partitions: one open file per partition being written (at most
** SL__FS_MAX_OPEN; the one idle longest is closed beyond), the partition
** columns left out of the records. With 'sink.partition-commit.policy.kind'
** = 'success-file' every partition written is pending until its trigger
** says it is due, checked at pre_commit(N) with the watermark as of the
** barrier (ops->watermark; INT64_MAX at the end of the input: all due) or
** the processing time; pre_commit(N) lists the due ones as "success" lines
** (commit(N) writes their success files after renaming N's files: every
** file of the partition is committed by then, as epochs commit in order)
** and the others as "pending" lines, which recover() takes back.
**
** Protocol:
**   begin(N)       nothing is opened until the first row;
**   write          +I rows only (an append-only sink: anything else is
**                  XX000, the planner prevents it), each encoded with the
**                  format + '\n' (line framing: a value the lines cannot
**                  carry, such as a raw value holding a line break, fails
**                  with 22023 rather than reading back differently), into
**                  the current in-progress file; it rolls (fsync, close;
**                  pending for the epoch) when it
**                  reaches 'sink.rolling-policy.file-size', or before a row
**                  when it has been open for rollover-interval or idle for
**                  inactivity-interval (the time policies are checked at
**                  each write; 'check-interval' is accepted and unused —
**                  every checkpoint closes the file anyway);
**   pre_commit(N)  closes the open files (fsync), fsyncs their directories
**                  and returns the committable: one line per file,
**                  "file <in-progress name> <final name> <size>[ <partition
**                  directory>]\n", then "success <partition directory>\n"
**                  per partition due and "pending <time ms> <first row ms>
**                  <partition directory>\n" per partition waiting; empty
**                  for an epoch without rows and partitions;
**   commit         renames each in-progress file to its final name without
**                  ever replacing an existing file (renameat2 NOREPLACE, or
**                  link + unlink where the filesystem lacks it), then
**                  fsyncs the directory. Idempotent: in-progress gone and
**                  final present with the recorded size = committed
**                  already; both names on the same file = an interrupted
**                  link commit, finished. Both missing is 58030 "data of a
**                  committed checkpoint is missing" (never a silent
**                  success); a different file under the final name is
**                  58030 as well (a job name reused over old output);
**   abort          deletes the listed in-progress files (missing is fine);
**   recover        commits the decided committables, takes their pending
**                  partitions back, then deletes every in-progress file of
**                  this job, table and subtask left by an earlier
**                  incarnation (its epochs were not decided), in the
**                  partition directories too.
**                  Final files and other jobs' files are never touched.
**   free           closes without deleting (like a crash): what was not
**                  pre-committed and committed is cleaned by the next
**                  recover().
**
** Main routines: sl__fs_sink_create and the sl_sink_ops below.
*/
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_int.h"

#define SL__FS_WBUF (64 * 1024) /* write to the file in blocks of this size */
#define SL__FS_MAX_OPEN 256     /* open in-progress files (partitions) at most */
#define SL__FS_S3_MAX_OPEN 16   /* ... on S3, where each buffers up to 5 MiB */

/* A file (or, in a committable, a partition to commit or still pending). */
typedef struct sl__fs_part {
    char kind;        /* 'f' file, 's' partition to commit, 'p' partition pending */
    char *pdir;       /* partition directory under dir ("" = none) */
    char *inprogress; /* in-progress name (in dir/pdir; S3: NULL) */
    char *final;      /* final name (S3: the object's whole key) */
    char *upload;     /* S3: the multipart upload id (NULL: a local file) */
    sl_list *etags;   /* S3: the ETags of its parts 1..n (char *, hex MD5s) */
    int64_t size;     /* bytes */
    int64_t ptime_ms; /* 'p': the partition's time */
    int64_t made_ms;  /* 'p': when its first row was written (processing time) */
} sl__fs_part;

/* An open in-progress file: one per partition being written. */
typedef struct sl__fs_bucket {
    /* (S3: an upload; its parts' ETags in cur.etags, the next part number
    ** is their count + 1.) */
    int fd;            /* the file */
    sl__fs_part cur;   /* its names and size (written + buffered) */
    int64_t opened_ns; /* when it was opened */
    int64_t write_ns;  /* last row written */
    sl_strbuf wbuf;    /* encoded rows not yet written */
} sl__fs_bucket;

typedef struct sl__fs_store sl__fs_store;
typedef struct sl__fs_uploader sl__fs_uploader;

typedef struct sl__fs_sink {
    const sl__fs_store *store; /* local files or S3 */
    sl__s3 *s3;           /* S3: the client (NULL: local files) */
    char *bucket;         /* S3: the bucket */
    sl_kvlist *opts;      /* S3: the table's options (the uploader's client) */
    sl__fs_uploader *uploader; /* S3: the part uploader (NULL: not started yet) */
    char *key_prefix;     /* S3: the keys' prefix ("" or "a/b", no '/' at its end) */
    int max_open;         /* open files at most (S3: each buffers up to a part) */
    size_t flush_at;      /* write the buffered rows out at this size */
    char *dir;            /* output directory (S3: the s3:// URI, for messages) */
    char *prefix;         /* "part-<id>-<subtask>-" */
    char *ext;            /* file extension: the format name */
    char inc[17];         /* this incarnation: 16 hex digits */
    sl_codec *codec;      /* the table's format (its non-partition columns) */
    int64_t roll_size;    /* bytes */
    int64_t roll_age_ns;  /* rollover-interval */
    int64_t roll_idle_ns; /* inactivity-interval */
    bool open;            /* an epoch is open (begin called, pre_commit not yet) */
    int64_t epoch;        /* the open (or last) epoch */
    bool any_epoch;       /* begin was called at least once */
    int seq;              /* next file number of the epoch */
    sl_list *buckets;     /* open files (sl__fs_bucket *) */
    int last;             /* the bucket the last row went to (-1: none) */
    sl_strbuf rec;        /* one encoded row */
    sl_strbuf pdir;       /* the partition directory of a row */
    sl_strbuf tmp;        /* scratch */
    sl_list *parts;       /* closed files of the open epoch (sl__fs_part *) */
    /* Partitions. */
    sl__fs_layout lay;       /* PARTITIONED BY */
    char **names;            /* the table's column names (owned, for lay) */
    int ncols;               /* their number */
    sl__fs_commit_opts co;   /* partition commit */
    sl_list *pending;        /* written partitions not yet committed ('p' sl__fs_part *) */
    int64_t watermark;       /* as of the last barrier (ns; INT64_MAX: input ended) */
} sl__fs_sink;

/* The storage behind the sink: what differs between local files (made
** visible by rename) and S3 (multipart uploads made visible by their
** completion). Everything else — encoding, rolling, partitions, the
** committable, the epoch protocol — is the sink's and the same for both.
** Each returns 0 or -1 with err. */
struct sl__fs_store {
    /* Create bucket b's in-progress file (b->cur's names are set). */
    int (*open)(sl__fs_sink *s, sl__fs_bucket *b, sl_error *err);
    /* Write b->wbuf out (called when it holds s->flush_at bytes). */
    int (*flush)(sl__fs_sink *s, sl__fs_bucket *b, sl_error *err);
    /* The rest of b->wbuf, then make the file durable (still invisible);
    ** the file is done whatever the result. */
    int (*finish)(sl__fs_sink *s, sl__fs_bucket *b, sl_error *err);
    /* Forget an open file without finishing it (free: like a crash). */
    void (*drop)(sl__fs_bucket *b);
    /* Make a pre-committed file visible under its final name, idempotent. */
    int (*commit)(sl__fs_sink *s, const sl__fs_part *part, sl_error *err);
    /* Discard a pre-committed file; one already gone is fine. */
    int (*abort)(sl__fs_sink *s, const sl__fs_part *part, sl_error *err);
    /* After commits or aborts of parts: make the names durable. */
    int (*sync)(sl__fs_sink *s, const sl_list *parts, sl_error *err);
    /* The success file of partition pdir (policy 'success-file'). */
    int (*success)(sl__fs_sink *s, const char *pdir, sl_error *err);
    /* recover(): discard every in-progress file of this job, table and
    ** subtask that an earlier incarnation left. */
    int (*clean)(sl__fs_sink *s, sl_error *err);
};

static void sl__fs_part_free(void *p)
{
    sl__fs_part *part = p;
    if (!part)
        return;
    sl_free(part->pdir);
    sl_free(part->inprogress);
    sl_free(part->final);
    sl_free(part->upload);
    sl_list_free(part->etags, sl_free);
    sl_free(part);
}

/* dir/pdir: the directory of a partition (allocated). */
static char *sl__fs_pdir_path(const sl__fs_sink *s, const char *pdir)
{
    return pdir && pdir[0] ? sl_path_join(s->dir, pdir) : sl_strdup(s->dir);
}

static int sl__fs_io(sl_error *err, const char *what, const char *dir, const char *name)
{
    int e = errno;
    char *p = name ? sl_path_join(dir, name) : sl_strdup(dir);
    sl_error_set(err, e == ENOENT ? SL_ERR_UNDEFINED_FILE : SL_ERR_IO, -1,
                 "could not %s \"%s\": %s", what, p, strerror(e));
    sl_free(p);
    return -1;
}

/* ------------------------------------------------------------------------
** The open in-progress files.
*/
static int sl__fs_local_flush(sl__fs_sink *s, sl__fs_bucket *b, sl_error *err)
{
    size_t off = 0;
    while (off < b->wbuf.len) {
        ssize_t w = write(b->fd, b->wbuf.buf + off, b->wbuf.len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            char *d = sl__fs_pdir_path(s, b->cur.pdir);
            int rc = sl__fs_io(err, "write file", d, b->cur.inprogress);
            sl_free(d);
            return rc;
        }
        off += (size_t)w;
    }
    sl_strbuf_reset(&b->wbuf);
    return 0;
}

/* Flush, fsync and close the file. */
static int sl__fs_local_finish(sl__fs_sink *s, sl__fs_bucket *b, sl_error *err)
{
    char *d = sl__fs_pdir_path(s, b->cur.pdir);
    int rc = sl__fs_local_flush(s, b, err);
    if (rc == 0 && fsync(b->fd) != 0)
        rc = sl__fs_io(err, "fsync file", d, b->cur.inprogress);
    if (close(b->fd) != 0 && rc == 0)
        rc = sl__fs_io(err, "close file", d, b->cur.inprogress);
    sl_free(d);
    return rc;
}

static void sl__fs_local_drop(sl__fs_bucket *b)
{
    close(b->fd);
}

/* Finish bucket i's file; it becomes pending for the epoch and the bucket
** goes away. */
static int sl__fs_close_part(sl__fs_sink *s, int i, sl_error *err)
{
    sl__fs_bucket *b = s->buckets->items[i];
    int rc = s->store->finish(s, b, err);
    sl__fs_part *part = sl_malloc(sizeof *part);
    *part = b->cur;
    sl_list_push(s->parts, part); /* listed even on failure: abort() can delete it */
    sl_strbuf_free(&b->wbuf);
    sl_free(b);
    memmove(&s->buckets->items[i], &s->buckets->items[i + 1],
            (size_t)(s->buckets->n - i - 1) * sizeof(void *));
    s->buckets->n--;
    s->last = -1;
    return rc;
}

static int sl__fs_close_all(sl__fs_sink *s, sl_error *err)
{
    int rc = 0;
    while (s->buckets->n > 0)
        if (sl__fs_close_part(s, s->buckets->n - 1, err) != 0 && rc == 0)
            rc = -1;
    return rc;
}

/* A new written partition waits for its commit (success-file policy). */
static int sl__fs_track(sl__fs_sink *s, const char *pdir, sl_error *err)
{
    for (int i = 0; i < s->pending->n; i++)
        if (strcmp(((sl__fs_part *)s->pending->items[i])->pdir, pdir) == 0)
            return 0;
    sl__fs_part *pp = sl_calloc(1, sizeof *pp);
    pp->kind = 'p';
    pp->pdir = sl_strdup(pdir);
    pp->made_ms = sl_now_nanos() / 1000000;
    if (s->co.partition_time &&
        sl__fs_partition_time(&s->co, &s->lay, pdir, &pp->ptime_ms, err) != 0) {
        sl__fs_part_free(pp);
        return -1;
    }
    sl_list_push(s->pending, pp);
    return 0;
}

/* The in-progress file of b, created (never an existing one). */
static int sl__fs_local_open(sl__fs_sink *s, sl__fs_bucket *b, sl_error *err)
{
    char *d = sl__fs_pdir_path(s, b->cur.pdir);
    if (b->cur.pdir[0] && sl_fs_mkdir_p(d, err) != 0) {
        sl_free(d);
        return -1;
    }
    b->cur.inprogress = sl_sprintf(".%s.inprogress.%s", b->cur.final, s->inc);
    char *p = sl_path_join(d, b->cur.inprogress);
    b->fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    sl_free(p);
    int rc = b->fd < 0 ? sl__fs_io(err, "create file", d, b->cur.inprogress) : 0;
    sl_free(d);
    return rc;
}

/* Open a file for partition pdir: the bucket's index, or -1 with err. */
static int sl__fs_open_part(sl__fs_sink *s, const char *pdir, int64_t now, sl_error *err)
{
    if (s->buckets->n >= s->max_open) { /* close the one idle longest */
        int old = 0;
        for (int i = 1; i < s->buckets->n; i++)
            if (((sl__fs_bucket *)s->buckets->items[i])->write_ns <
                ((sl__fs_bucket *)s->buckets->items[old])->write_ns)
                old = i;
        if (sl__fs_close_part(s, old, err) != 0)
            return -1;
    }
    if (s->co.success_file && s->lay.npart > 0 && sl__fs_track(s, pdir, err) != 0)
        return -1;
    sl__fs_bucket *b = sl_calloc(1, sizeof *b);
    b->cur.kind = 'f';
    b->cur.pdir = sl_strdup(pdir);
    b->cur.final = sl_sprintf("%s%" PRId64 "-%d.%s", s->prefix, s->epoch, s->seq, s->ext);
    s->seq++;
    if (s->store->open(s, b, err) != 0) {
        sl__fs_part tmp = b->cur;
        sl_free(tmp.pdir);
        sl_free(tmp.inprogress);
        sl_free(tmp.final);
        sl_free(tmp.upload);
        sl_list_free(tmp.etags, sl_free);
        sl_free(b);
        return -1;
    }
    b->opened_ns = b->write_ns = now;
    sl_list_push(s->buckets, b);
    return s->buckets->n - 1;
}

/* The bucket of partition pdir, or -1. */
static int sl__fs_find_bucket(sl__fs_sink *s, const char *pdir)
{
    if (s->last >= 0 && s->last < s->buckets->n &&
        strcmp(((sl__fs_bucket *)s->buckets->items[s->last])->cur.pdir, pdir) == 0)
        return s->last;
    for (int i = 0; i < s->buckets->n; i++)
        if (strcmp(((sl__fs_bucket *)s->buckets->items[i])->cur.pdir, pdir) == 0)
            return i;
    return -1;
}

/* ------------------------------------------------------------------------
** Committables, one line each:
**   file <in-progress> <final> <size>[ <partition directory>]
**   s3 <key> <upload id> <part ETags, ','-separated> <size>
**                          (the key percent-encoded: no blank, no line break)
**   success <partition directory>            (commit it after the files)
**   pending <time ms> <made ms> <partition directory>   (written, not due)
*/
static bool sl__fs_name_ok(const char *p, size_t n)
{
    if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
        return false;
    for (size_t i = 0; i < n; i++)
        if (p[i] == '/' || p[i] == ' ' || p[i] == '\n' || p[i] == 0)
            return false;
    return true;
}

/* A partition directory: components "k=v" (no "." or ".."), no NUL. */
static bool sl__fs_pdir_ok(const char *p, size_t n)
{
    size_t at = 0;
    while (at < n) {
        const char *sl = memchr(p + at, '/', n - at);
        size_t l = sl ? (size_t)(sl - (p + at)) : n - at;
        if (l == 0 || !memchr(p + at, '=', l) || memchr(p + at, 0, l))
            return false;
        at += l + 1;
        if (sl && at == n)
            return false;
    }
    return true;
}

static bool sl__fs_parse_num(const char *p, size_t n, int64_t *out)
{
    bool neg = n > 0 && p[0] == '-';
    int64_t v = 0;
    if (n == (size_t)neg || n - (size_t)neg > 18)
        return false;
    for (size_t i = (size_t)neg; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return false;
        v = v * 10 + (p[i] - '0');
    }
    *out = neg ? -v : v;
    return true;
}

/* The next space-separated field of [*q, eol) (last: up to eol). */
static bool sl__fs_field(const char **q, const char *eol, bool last, const char **f, size_t *fl)
{
    const char *sp = last ? eol : memchr(*q, ' ', (size_t)(eol - *q));
    if (!sp || *q > eol)
        return false;
    *f = *q;
    *fl = (size_t)(sp - *q);
    *q = sp + 1;
    return true;
}

static sl__fs_part *sl__fs_parse_line(const char *p, const char *eol)
{
    const char *f[5];
    size_t fl[5];
    sl__fs_part part = {0};
    const char *q = p;
    bool ok;
    if ((size_t)(eol - p) > 5 && memcmp(p, "file ", 5) == 0) {
        q = p + 5;
        const char *sp3;
        ok = sl__fs_field(&q, eol, false, &f[0], &fl[0]) &&
             sl__fs_field(&q, eol, false, &f[1], &fl[1]);
        sp3 = ok ? memchr(q, ' ', (size_t)(eol - q)) : NULL;
        ok = ok && sl__fs_field(&q, eol, sp3 == NULL, &f[2], &fl[2]);
        f[3] = sp3 ? q : eol;
        fl[3] = sp3 ? (size_t)(eol - q) : 0;
        ok = ok && sl__fs_name_ok(f[0], fl[0]) && sl__fs_name_ok(f[1], fl[1]) &&
             sl__fs_parse_num(f[2], fl[2], &part.size) && part.size >= 0 &&
             (fl[3] == 0 ? !sp3 : sl__fs_pdir_ok(f[3], fl[3]));
        part.kind = 'f';
    } else if ((size_t)(eol - p) > 3 && memcmp(p, "s3 ", 3) == 0) {
        q = p + 3;
        ok = sl__fs_field(&q, eol, false, &f[0], &fl[0]) &&
             sl__fs_field(&q, eol, false, &f[1], &fl[1]) &&
             sl__fs_field(&q, eol, false, &f[2], &fl[2]) &&
             sl__fs_field(&q, eol, true, &f[4], &fl[4]) && fl[0] > 0 &&
             sl__fs_name_ok(f[1], fl[1]) && fl[2] > 0 &&
             sl__fs_parse_num(f[4], fl[4], &part.size) && part.size > 0;
        /* ETags: 32 hex digits each, ','-separated. */
        for (size_t i = 0; ok && i < fl[2]; i++)
            ok = f[2][i] == ',' ? (i + 1) % 33 == 0
                                : ((f[2][i] >= '0' && f[2][i] <= '9') ||
                                   (f[2][i] >= 'a' && f[2][i] <= 'f')) && (i + 1) % 33 != 0;
        ok = ok && (fl[2] + 1) % 33 == 0;
        if (!ok)
            return NULL;
        sl__fs_part *r = sl_calloc(1, sizeof *r);
        r->kind = 'f';
        r->size = part.size;
        r->pdir = sl_strdup("");
        sl_strbuf k = SL_STRBUF_INIT;
        sl__fs_unescape(&k, f[0], fl[0]);
        size_t klen = k.len;
        r->final = sl_strbuf_detach(&k);
        r->upload = sl_strndup(f[1], fl[1]);
        r->etags = sl_list_new();
        for (size_t i = 0; i < fl[2]; i += 33)
            sl_list_push(r->etags, sl_strndup(f[2] + i, 32));
        if (strlen(r->final) != klen) { /* a NUL in the key */
            sl__fs_part_free(r);
            return NULL;
        }
        return r;
    } else if ((size_t)(eol - p) > 8 && memcmp(p, "success ", 8) == 0) {
        f[3] = p + 8;
        fl[3] = (size_t)(eol - f[3]);
        ok = sl__fs_pdir_ok(f[3], fl[3]);
        part.kind = 's';
    } else if ((size_t)(eol - p) > 8 && memcmp(p, "pending ", 8) == 0) {
        q = p + 8;
        ok = sl__fs_field(&q, eol, false, &f[0], &fl[0]) &&
             sl__fs_field(&q, eol, false, &f[1], &fl[1]) &&
             sl__fs_parse_num(f[0], fl[0], &part.ptime_ms) &&
             sl__fs_parse_num(f[1], fl[1], &part.made_ms);
        f[3] = q;
        fl[3] = ok ? (size_t)(eol - q) : 0;
        ok = ok && sl__fs_pdir_ok(f[3], fl[3]);
        part.kind = 'p';
    } else {
        return NULL;
    }
    if (!ok)
        return NULL;
    sl__fs_part *r = sl_malloc(sizeof *r);
    *r = part;
    r->pdir = sl_strndup(f[3], fl[3]);
    if (part.kind == 'f') {
        r->inprogress = sl_strndup(f[0], fl[0]);
        r->final = sl_strndup(f[1], fl[1]);
    }
    return r;
}

/* Parse a committable into a list of sl__fs_part; NULL with err (XX001). */
static sl_list *sl__fs_parse_committable(const char *c, size_t len, sl_error *err)
{
    sl_list *l = sl_list_new();
    const char *p = c, *end = c + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        sl__fs_part *part = eol ? sl__fs_parse_line(p, eol) : NULL;
        if (!part) {
            sl_list_free(l, sl__fs_part_free);
            sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "invalid filesystem sink committable");
            sl_error_detail(err, "The stored committable is \"%.*s\".",
                            (int)(len > 300 ? 300 : len), c);
            return NULL;
        }
        sl_list_push(l, part);
        p = eol + 1;
    }
    return l;
}

/* ------------------------------------------------------------------------
** Commit of one file (in directory d = dir/pdir).
*/
static int sl__fs_missing(const char *d, const sl__fs_part *part, sl_error *err)
{
    char *p = sl_path_join(d, part->final);
    sl_error_set(err, SL_ERR_IO, -1, "data of a committed checkpoint is missing");
    sl_error_detail(err, "Neither the in-progress file \"%s\" nor the part file \"%s\" exists.",
                    part->inprogress, p);
    sl_error_hint(err, "Something removed files from the output directory; the rows of this "
                       "checkpoint are lost from it.");
    sl_free(p);
    return -1;
}

/* The final file exists and the in-progress one is gone: committed before
** when the size matches. */
static int sl__fs_check_committed(const char *d, const sl__fs_part *part, sl_error *err)
{
    char *fp = sl_path_join(d, part->final);
    struct stat st;
    int rc = 0;
    if (stat(fp, &st) != 0) {
        rc = errno == ENOENT ? sl__fs_missing(d, part, err)
                             : sl__fs_io(err, "stat file", d, part->final);
    } else if ((int64_t)st.st_size != part->size) {
        rc = sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                          "committed part file \"%s\" has %" PRId64 " bytes, expected %" PRId64, fp,
                          (int64_t)st.st_size, part->size);
    }
    sl_free(fp);
    return rc;
}

static int sl__fs_commit_one(const char *d, const sl__fs_part *part, sl_error *err)
{
    char *ip = sl_path_join(d, part->inprogress);
    char *fp = sl_path_join(d, part->final);
    struct stat ist, fst;
    int rc = 0;
    if (stat(ip, &ist) != 0) {
        rc = errno == ENOENT ? sl__fs_check_committed(d, part, err)
                             : sl__fs_io(err, "stat file", d, part->inprogress);
        goto out;
    }
    if ((int64_t)ist.st_size != part->size) {
        rc = sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                          "in-progress file \"%s\" has %" PRId64 " bytes, expected %" PRId64, ip,
                          (int64_t)ist.st_size, part->size);
        goto out;
    }
    if (renameat2(AT_FDCWD, ip, AT_FDCWD, fp, RENAME_NOREPLACE) == 0)
        goto out;
    if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) {
        /* No RENAME_NOREPLACE here: link (fails on an existing name), unlink. */
        if (link(ip, fp) == 0) {
            if (unlink(ip) != 0)
                rc = sl__fs_io(err, "remove file", d, part->inprogress);
            goto out;
        }
    }
    if (errno == ENOENT) { /* renamed meanwhile */
        rc = sl__fs_check_committed(d, part, err);
    } else if (errno == EEXIST) {
        if (stat(fp, &fst) == 0 && fst.st_dev == ist.st_dev && fst.st_ino == ist.st_ino) {
            /* An interrupted link commit: finish it. */
            if (unlink(ip) != 0 && errno != ENOENT)
                rc = sl__fs_io(err, "remove file", d, part->inprogress);
        } else {
            rc = sl_error_set(err, SL_ERR_IO, -1, "part file \"%s\" exists already", fp);
            sl_error_detail(err,
                            "Another file has the name the in-progress file \"%s\" must "
                            "be committed under; it is not replaced.",
                            part->inprogress);
            sl_error_hint(err, "Was the job name reused for a new job writing into the same "
                               "directory? Give the new job another name, or move the old "
                               "output away.");
        }
    } else {
        rc = sl__fs_io(err, "rename file", d, part->inprogress);
    }
out:
    sl_free(ip);
    sl_free(fp);
    return rc;
}

/* fsync dir/pdir of each listed entry of kind k, and the directories above
** it up to dir (new partition directories), each once. */
static int sl__fs_sync_dirs(sl__fs_sink *s, const sl_list *parts, char k, sl_error *err)
{
    sl_list *done = sl_list_new();
    int rc = 0;
    bool root = false;
    for (int i = 0; rc == 0 && i < parts->n; i++) {
        const sl__fs_part *part = parts->items[i];
        if (part->kind != k)
            continue;
        char *rel = sl_strdup(part->pdir);
        while (rc == 0 && rel[0]) {
            bool seen = false;
            for (int j = 0; j < done->n && !seen; j++)
                seen = strcmp(done->items[j], rel) == 0;
            if (seen)
                break;
            char *d = sl_path_join(s->dir, rel);
            rc = sl_fs_sync_dir(d, err);
            sl_free(d);
            sl_list_push(done, sl_strdup(rel));
            char *sl = strrchr(rel, '/');
            if (sl)
                *sl = 0;
            else
                rel[0] = 0;
        }
        sl_free(rel);
        root = true;
    }
    if (rc == 0 && root)
        rc = sl_fs_sync_dir(s->dir, err);
    sl_list_free(done, sl_free);
    return rc;
}

/* The success file of partition pdir (policy 'success-file'): an empty
** file, made durable; one there already is fine. */
static int sl__fs_write_success(sl__fs_sink *s, const char *pdir, sl_error *err)
{
    char *d = sl__fs_pdir_path(s, pdir);
    char *p = sl_path_join(d, s->co.success_name);
    int rc = 0;
    int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        rc = sl__fs_io(err, "create file", d, s->co.success_name);
    else if (fsync(fd) != 0)
        rc = sl__fs_io(err, "fsync file", d, s->co.success_name);
    if (fd >= 0)
        close(fd);
    if (rc == 0)
        rc = sl_fs_sync_dir(d, err);
    sl_free(p);
    sl_free(d);
    return rc;
}

/* ------------------------------------------------------------------------
** Operations.
*/
static int sl__fs_begin(sl_sink *sink, int64_t epoch, sl_error *err)
{
    sl__fs_sink *s = sink->impl;
    if (s->open)
        return sl_error_set(err, SL_ERR_INTERNAL, -1,
                            "filesystem sink: epoch %" PRId64 " begun while %" PRId64
                            " is still open",
                            epoch, s->epoch);
    if (s->any_epoch && epoch <= s->epoch)
        return sl_error_set(err, SL_ERR_INTERNAL, -1,
                            "filesystem sink: epoch %" PRId64 " begun after %" PRId64, epoch,
                            s->epoch);
    s->open = true;
    s->any_epoch = true;
    s->epoch = epoch;
    s->seq = 0;
    return 0;
}

static bool sl__fs_should_roll_before(const sl__fs_sink *s, const sl__fs_bucket *b, int64_t now)
{
    return b->cur.size > 0 &&
           (now - b->opened_ns >= s->roll_age_ns || now - b->write_ns >= s->roll_idle_ns);
}

static int sl__fs_write(sl_sink *sink, const sl_chunk *c, sl_error *err)
{
    sl__fs_sink *s = sink->impl;
    if (!s->open)
        return sl_error_set(err, SL_ERR_INTERNAL, -1, "filesystem sink: write outside an epoch");
    for (int r = 0; r < c->nrows; r++)
        if (c->kinds[r] != SL_ROW_INSERT)
            return sl_error_set(err, SL_ERR_INTERNAL, -1,
                                "the filesystem sink accepts only inserts (+I), got a %s row",
                                sl_row_kind_name((sl_row_kind)c->kinds[r]));
    if (c->nrows == 0)
        return 0;
    int64_t now = sl__fs_clock();
    for (int r = 0; r < c->nrows; r++) {
        sl_strbuf_reset(&s->pdir);
        if (s->lay.npart > 0)
            sl__fs_partition_dir(c, r, &s->lay, &s->pdir, &s->tmp);
        const char *pdir = sl_strbuf_cstr(&s->pdir);
        int bi = sl__fs_find_bucket(s, pdir);
        if (bi >= 0 && sl__fs_should_roll_before(s, s->buckets->items[bi], now)) {
            if (sl__fs_close_part(s, bi, err) != 0)
                return -1;
            bi = -1;
        }
        sl_strbuf_reset(&s->rec);
        if (sl_codec_encode(s->codec, c, r, &s->rec, err) != 0)
            return -1;
        sl_strbuf_append_char(&s->rec, '\n');
        if (bi < 0 && (bi = sl__fs_open_part(s, pdir, now, err)) < 0)
            return -1;
        s->last = bi;
        sl__fs_bucket *b = s->buckets->items[bi];
        sl_strbuf_append_n(&b->wbuf, s->rec.buf, s->rec.len);
        b->cur.size += (int64_t)s->rec.len;
        b->write_ns = now;
        if (b->wbuf.len >= s->flush_at && s->store->flush(s, b, err) != 0)
            return -1;
        if (b->cur.size >= s->roll_size && sl__fs_close_part(s, bi, err) != 0)
            return -1;
    }
    return 0;
}

static void sl__fs_watermark(sl_sink *sink, int64_t wm)
{
    sl__fs_sink *s = sink->impl;
    s->watermark = wm;
}

/* Is pending partition pp due for its commit (Flink's triggers)? */
static bool sl__fs_due(const sl__fs_sink *s, const sl__fs_part *pp, int64_t now_ms)
{
    if (s->watermark == INT64_MAX) /* the input ended: every partition (endInput) */
        return true;
    if (s->co.partition_time) {
        if (s->watermark == INT64_MIN)
            return false;
        int64_t wm_ms = s->watermark >= 0 ? s->watermark / 1000000
                                          : -((-s->watermark + 999999) / 1000000);
        return wm_ms > pp->ptime_ms + s->co.delay_ms;
    }
    return s->co.delay_ms == 0 || now_ms > pp->made_ms + s->co.delay_ms;
}

static int sl__fs_pre_commit(sl_sink *sink, int64_t epoch, sl_strbuf *committable, sl_error *err)
{
    sl__fs_sink *s = sink->impl;
    if (!s->open || epoch != s->epoch)
        return sl_error_set(
            err, SL_ERR_INTERNAL, -1,
            "filesystem sink: pre-commit of epoch %" PRId64 ", which is not the open one", epoch);
    if (sl__fs_close_all(s, err) != 0)
        return -1;
    if (s->parts->n > 0 && s->store->sync(s, s->parts, err) != 0)
        return -1;
    for (int i = 0; i < s->parts->n; i++) {
        const sl__fs_part *part = s->parts->items[i];
        if (part->upload) {
            sl_strbuf_append(committable, "s3 ");
            sl__s3_uri_encode(committable, part->final, true);
            sl_strbuf_appendf(committable, " %s ", part->upload);
            for (int k = 0; k < part->etags->n; k++)
                sl_strbuf_appendf(committable, "%s%s", k ? "," : "",
                                  (const char *)part->etags->items[k]);
            sl_strbuf_appendf(committable, " %" PRId64 "\n", part->size);
        } else {
            sl_strbuf_appendf(committable, "file %s %s %" PRId64 "%s%s\n", part->inprogress,
                              part->final, part->size, part->pdir[0] ? " " : "", part->pdir);
        }
    }
    int64_t now_ms = sl_now_nanos() / 1000000;
    int keep = 0;
    for (int i = 0; i < s->pending->n; i++) {
        sl__fs_part *pp = s->pending->items[i];
        if (sl__fs_due(s, pp, now_ms)) {
            sl_strbuf_appendf(committable, "success %s\n", pp->pdir);
            sl__fs_part_free(pp);
        } else {
            sl_strbuf_appendf(committable, "pending %" PRId64 " %" PRId64 " %s\n", pp->ptime_ms,
                              pp->made_ms, pp->pdir);
            s->pending->items[keep++] = pp;
        }
    }
    s->pending->n = keep;
    sl_list_free(s->parts, sl__fs_part_free);
    s->parts = sl_list_new();
    s->open = false;
    return 0;
}

/* A committable's files are of the sink's storage (a table whose 'path'
** changed between local and s3:// cannot commit the other's files). */
static int sl__fs_same_store(const sl__fs_sink *s, const sl_list *parts, sl_error *err)
{
    for (int i = 0; i < parts->n; i++) {
        const sl__fs_part *part = parts->items[i];
        if (part->kind == 'f' && (part->upload != NULL) != (s->s3 != NULL)) {
            sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                         "a committable of the filesystem sink names %s, but its 'path' is %s",
                         part->upload ? "an S3 upload" : "a local file", s->dir);
            sl_error_hint(err, "Was the table's 'path' changed while its job had checkpoints?");
            return -1;
        }
    }
    return 0;
}

static int sl__fs_commit(sl_sink *sink, const char *committable, size_t len, sl_error *err)
{
    sl__fs_sink *s = sink->impl;
    sl_list *parts = sl__fs_parse_committable(committable, len, err);
    if (!parts)
        return -1;
    int rc = sl__fs_same_store(s, parts, err), nfiles = 0;
    for (int i = 0; rc == 0 && i < parts->n; i++) {
        const sl__fs_part *part = parts->items[i];
        if (part->kind != 'f')
            continue;
        rc = s->store->commit(s, part, err);
        nfiles++;
    }
    if (rc == 0 && nfiles > 0)
        rc = s->store->sync(s, parts, err);
    /* Then the partitions due: every file of theirs is committed now. */
    for (int i = 0; rc == 0 && i < parts->n; i++) {
        const sl__fs_part *part = parts->items[i];
        if (part->kind == 's' && s->co.success_file)
            rc = s->store->success(s, part->pdir, err);
    }
    sl_list_free(parts, sl__fs_part_free);
    return rc;
}

static int sl__fs_abort(sl_sink *sink, const char *committable, size_t len, sl_error *err)
{
    sl__fs_sink *s = sink->impl;
    sl_list *parts = sl__fs_parse_committable(committable, len, err);
    if (!parts)
        return -1;
    int rc = sl__fs_same_store(s, parts, err), nfiles = 0;
    for (int i = 0; rc == 0 && i < parts->n; i++) {
        const sl__fs_part *part = parts->items[i];
        if (part->kind != 'f')
            continue;
        nfiles++;
        rc = s->store->abort(s, part, err);
    }
    if (rc == 0 && nfiles > 0)
        rc = s->store->sync(s, parts, err);
    sl_list_free(parts, sl__fs_part_free);
    return rc;
}

/* An in-progress file of this job, table and subtask (any incarnation). */
static bool sl__fs_is_ours(const sl__fs_sink *s, const char *name)
{
    size_t n = strlen(s->prefix);
    return name[0] == '.' && strncmp(name + 1, s->prefix, n) == 0 &&
           strstr(name + 1 + n, ".inprogress.") != NULL;
}

/* Delete earlier incarnations' in-progress files in dir/rel and, depth
** levels down, in its partition directories ("k=v"). */
static int sl__fs_clean(sl__fs_sink *s, const char *rel, int depth, sl_error *err)
{
    char *d = sl__fs_pdir_path(s, rel);
    sl_list *names = sl__fs_list(d, NULL, err);
    if (!names) {
        sl_free(d);
        return -1;
    }
    int rc = 0, removed = 0;
    for (int i = 0; rc == 0 && i < names->n; i++) {
        const char *name = names->items[i];
        const char *inc = strrchr(name, '.');
        if (depth > 0 && name[0] != '.' && strchr(name, '=')) {
            char *p = sl_path_join(d, name);
            bool isdir = sl_fs_is_dir(p);
            sl_free(p);
            if (isdir) {
                char *sub = rel[0] ? sl_path_join(rel, name) : sl_strdup(name);
                rc = sl__fs_clean(s, sub, depth - 1, err);
                sl_free(sub);
            }
            continue;
        }
        if (!sl__fs_is_ours(s, name) || strcmp(inc + 1, s->inc) == 0)
            continue; /* not ours, or this incarnation's own */
        char *p = sl_path_join(d, name);
        if (unlink(p) != 0 && errno != ENOENT)
            rc = sl__fs_io(err, "remove file", d, name);
        else
            removed++;
        sl_free(p);
    }
    if (rc == 0 && removed > 0)
        rc = sl_fs_sync_dir(d, err);
    sl_list_free(names, sl_free);
    sl_free(d);
    return rc;
}

static int sl__fs_local_commit(sl__fs_sink *s, const sl__fs_part *part, sl_error *err)
{
    char *d = sl__fs_pdir_path(s, part->pdir);
    int rc = sl__fs_commit_one(d, part, err);
    sl_free(d);
    return rc;
}

static int sl__fs_local_abort(sl__fs_sink *s, const sl__fs_part *part, sl_error *err)
{
    char *d = sl__fs_pdir_path(s, part->pdir);
    char *ip = sl_path_join(d, part->inprogress);
    int rc = 0;
    if (unlink(ip) != 0 && errno != ENOENT)
        rc = sl__fs_io(err, "remove file", d, part->inprogress);
    sl_free(ip);
    sl_free(d);
    return rc;
}

static int sl__fs_local_sync(sl__fs_sink *s, const sl_list *parts, sl_error *err)
{
    return sl__fs_sync_dirs(s, parts, 'f', err);
}

static int sl__fs_local_clean(sl__fs_sink *s, sl_error *err)
{
    return sl__fs_clean(s, "", s->lay.npart, err);
}

static const sl__fs_store sl__fs_local_store = {
    .open = sl__fs_local_open,
    .flush = sl__fs_local_flush,
    .finish = sl__fs_local_finish,
    .drop = sl__fs_local_drop,
    .commit = sl__fs_local_commit,
    .abort = sl__fs_local_abort,
    .sync = sl__fs_local_sync,
    .success = sl__fs_write_success,
    .clean = sl__fs_local_clean,
};

/* ------------------------------------------------------------------------
** The S3 storage ('path' = 's3://bucket/prefix'), as Flink's S3 writer:
** the in-progress file is a multipart upload of the key
** "<prefix>/<partition directory>/<final name>", which S3 lists and serves
** only once the upload is completed. Rows are buffered up to
** SL__FS_S3_PART (S3 refuses a part under 5 MiB but the last) and sent as
** parts; at pre_commit the rest goes as the last part, however small (a
** file under 5 MiB is a single-part upload). A parts' upload survives a
** crash of the engine on the server (pre-committed, invisible), and any
** process can complete it later: a preparable participant, like the
** renamed files.
**
**   commit    CompleteMultipartUpload with the committable's part ETags,
**             with If-None-Match: * (never over an object at the key).
**             Idempotent: NoSuchUpload (AWS forgets a completed upload)
**             and 412 (an object is there) are answered by HeadObject — the
**             object with the recorded size and, for a multipart ETag
**             "<MD5 of the parts' MD5s>-<n>", the one computed from the
**             committable's ETags = committed already; missing is 58030
**             "data of a committed checkpoint is missing"; another object
**             is 58030 too.
**   abort     AbortMultipartUpload (NoSuchUpload is fine).
**   recover   after the decided commits, ListMultipartUploads under the
**             prefix: every upload whose key's name starts with this
**             job's, table's and subtask's "part-<id>-<subtask>-" (in the
**             table's prefix or one of its partition directories) is
**             aborted — recover() runs before this incarnation starts any,
**             so each belongs to an epoch that was not decided. Nothing is
**             left as an incomplete upload (which S3 would keep, and bill,
**             forever).
**
** As the local files do, an object already at the final key (a job name
** reused over old output) is never replaced: the conditional Complete
** leaves it, and the commit fails with 58030 naming it.
*/
#define SL__FS_S3_PART (5 * 1024 * 1024) /* S3's smallest part but the last */

/* The part uploader: a thread of the sink instance with a client of its
** own, so that a full part goes out while the next one is being encoded
** (one at a time: at most two parts' bytes in memory, the one being sent
** and the one being filled). Its ETag is collected by the sink's thread,
** which waits for it before the next part, before a file is finished and
** before free: the parts of a file stay in order, and nothing of a bucket
** is freed while its part is in flight. An upload's error is the next
** flush's or finish's. */
struct sl__fs_uploader {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool quit;        /* free: stop */
    bool working;     /* the thread has a part (under mu) */
    bool inflight;    /* a part was handed over and not collected (sink thread only) */
    sl__s3 *s3;       /* the thread's client */
    char *key;        /* the part: its object key, upload id and number */
    char *upload;
    int number;
    sl_strbuf body;   /* its bytes */
    sl_list *etags;   /* its file's ETags, where the sink's thread pushes the result */
    char *etag;       /* the result */
    int rc;
    sl_error err;
};

static void *sl__fs_uploader_main(void *arg)
{
    sl__fs_uploader *u = arg;
    pthread_mutex_lock(&u->mu);
    for (;;) {
        while (!u->quit && !u->working)
            pthread_cond_wait(&u->cv, &u->mu);
        if (u->quit)
            break;
        pthread_mutex_unlock(&u->mu);
        char *etag = NULL;
        sl_error err = SL_ERROR_INIT;
        int rc = sl__s3_mpu_part(u->s3, u->key, u->upload, u->number, u->body.buf, u->body.len,
                                 &etag, &err);
        pthread_mutex_lock(&u->mu);
        u->etag = etag;
        u->rc = rc;
        sl_error_move(&u->err, &err);
        u->working = false;
        pthread_cond_broadcast(&u->cv);
    }
    pthread_mutex_unlock(&u->mu);
    return NULL;
}

/* Wait for the part in flight and collect its ETag (or its error). */
static int sl__fs_uploader_wait(sl__fs_sink *s, sl_error *err)
{
    sl__fs_uploader *u = s->uploader;
    if (!u || !u->inflight)
        return 0;
    pthread_mutex_lock(&u->mu);
    while (u->working)
        pthread_cond_wait(&u->cv, &u->mu);
    pthread_mutex_unlock(&u->mu);
    u->inflight = false;
    sl_free(u->key);
    sl_free(u->upload);
    u->key = u->upload = NULL;
    if (u->rc != 0) {
        sl_error_move(err, &u->err);
        return -1;
    }
    sl_list_push(u->etags, u->etag);
    u->etag = NULL;
    return 0;
}

static void sl__fs_uploader_free(sl__fs_uploader *u)
{
    if (!u)
        return;
    pthread_mutex_lock(&u->mu);
    u->quit = true;
    pthread_cond_broadcast(&u->cv);
    pthread_mutex_unlock(&u->mu);
    pthread_join(u->thread, NULL); /* after a part in flight, if any */
    pthread_mutex_destroy(&u->mu);
    pthread_cond_destroy(&u->cv);
    sl__s3_free(u->s3);
    sl_free(u->key);
    sl_free(u->upload);
    sl_free(u->etag);
    sl_strbuf_free(&u->body);
    sl_error_reset(&u->err);
    sl_free(u);
}

/* "<prefix>/<pdir>/<name>" without empty segments (allocated). */
static char *sl__fs_s3_key(const sl__fs_sink *s, const char *pdir, const char *name)
{
    sl_strbuf k = SL_STRBUF_INIT;
    if (s->key_prefix[0])
        sl_strbuf_appendf(&k, "%s/", s->key_prefix);
    if (pdir && pdir[0])
        sl_strbuf_appendf(&k, "%s/", pdir);
    sl_strbuf_append(&k, name);
    return sl_strbuf_detach(&k);
}

static int sl__fs_s3_open(sl__fs_sink *s, sl__fs_bucket *b, sl_error *err)
{
    char *key = sl__fs_s3_key(s, b->cur.pdir, b->cur.final);
    char *up = NULL;
    if (sl__s3_mpu_create(s->s3, key, &up, err) != 0) {
        sl_free(key);
        return -1;
    }
    sl_free(b->cur.final);
    b->cur.final = key;
    b->cur.upload = up;
    b->cur.etags = sl_list_new();
    return 0;
}

/* b->wbuf as the upload's next part, sent by the uploader thread. */
static int sl__fs_s3_flush(sl__fs_sink *s, sl__fs_bucket *b, sl_error *err)
{
    if (sl__fs_uploader_wait(s, err) != 0)
        return -1;
    sl__fs_uploader *u = s->uploader;
    if (!u) {
        sl__s3 *c = sl__s3_open(s->opts, s->bucket, err);
        if (!c)
            return -1;
        u = sl_calloc(1, sizeof *u);
        u->s3 = c;
        u->err = (sl_error)SL_ERROR_INIT;
        pthread_mutex_init(&u->mu, NULL);
        pthread_cond_init(&u->cv, NULL);
        if (pthread_create(&u->thread, NULL, sl__fs_uploader_main, u) != 0) {
            pthread_mutex_destroy(&u->mu);
            pthread_cond_destroy(&u->cv);
            sl__s3_free(c);
            sl_free(u);
            return sl_error_set(err, SL_ERR_INTERNAL, -1, "could not start a thread");
        }
        s->uploader = u;
    }
    u->key = sl_strdup(b->cur.final);
    u->upload = sl_strdup(b->cur.upload);
    u->number = b->cur.etags->n + 1;
    u->etags = b->cur.etags;
    sl_strbuf tmp = u->body; /* swap: the bucket fills the other buffer */
    u->body = b->wbuf;
    b->wbuf = tmp;
    sl_strbuf_reset(&b->wbuf);
    u->inflight = true;
    pthread_mutex_lock(&u->mu);
    u->working = true;
    pthread_cond_broadcast(&u->cv);
    pthread_mutex_unlock(&u->mu);
    return 0;
}

/* b->wbuf as the upload's next part, sent now (the last one). */
static int sl__fs_s3_send(sl__fs_sink *s, sl__fs_bucket *b, sl_error *err)
{
    char *etag = NULL;
    if (sl__s3_mpu_part(s->s3, b->cur.final, b->cur.upload, b->cur.etags->n + 1, b->wbuf.buf,
                        b->wbuf.len, &etag, err) != 0)
        return -1;
    sl_list_push(b->cur.etags, etag);
    sl_strbuf_reset(&b->wbuf);
    return 0;
}

static int sl__fs_s3_finish(sl__fs_sink *s, sl__fs_bucket *b, sl_error *err)
{
    if (sl__fs_uploader_wait(s, err) != 0)
        return -1;
    if (b->wbuf.len == 0 && b->cur.etags->n > 0)
        return 0;
    return sl__fs_s3_send(s, b, err);
}

static void sl__fs_s3_drop(sl__fs_bucket *b)
{
    (void)b; /* the upload stays: the next recover() aborts it */
}

/* The upload is unknown: is its object there (committed before)? */
static int sl__fs_s3_check_committed(sl__fs_sink *s, const sl__fs_part *part, sl_error *err)
{
    bool found = false;
    int64_t size = -1;
    char *etag = NULL;
    if (sl__s3_head(s->s3, part->final, &found, &size, &etag, NULL, err) != 0)
        return -1;
    sl_strbuf want = SL_STRBUF_INIT;
    int rc = 0;
    if (!found) {
        sl_error_set(err, SL_ERR_IO, -1, "data of a committed checkpoint is missing");
        sl_error_detail(err,
                        "Neither the multipart upload \"%s\" nor the object \"s3://%s/%s\" "
                        "exists.",
                        part->upload, s->bucket, part->final);
        sl_error_hint(err, "Something aborted the upload or removed the object; the rows of "
                           "this checkpoint are lost from the output.");
        rc = -1;
    } else {
        bool etag_ok = true;
        /* A multipart ETag ("...-N") must be the one of these parts; another
        ** form (a server computing its own) is not compared. */
        if (etag && strchr(etag, '-') &&
            sl__s3_multipart_etag((const char *const *)part->etags->items, part->etags->n,
                                  &want) == 0)
            etag_ok = strcmp(etag, sl_strbuf_cstr(&want)) == 0;
        if (size != part->size || !etag_ok) {
            sl_error_set(err, SL_ERR_IO, -1,
                         "S3 object \"%s\" is not the one its checkpoint committed", part->final);
            sl_error_detail(err,
                            "It has %" PRId64 " bytes and ETag \"%s\"; the committed upload "
                            "\"%s\" had %" PRId64 " bytes%s%s.",
                            size, etag ? etag : "", part->upload, part->size,
                            want.len ? " and ETag " : "", sl_strbuf_cstr(&want));
            sl_error_hint(err, "Was the job name reused for a new job writing to the same "
                               "prefix? Give the new job another name, or move the old output "
                               "away.");
            rc = -1;
        }
    }
    sl_strbuf_free(&want);
    sl_free(etag);
    return rc;
}

static int sl__fs_s3_commit(sl__fs_sink *s, const sl__fs_part *part, sl_error *err)
{
    bool gone = false;
    if (sl__s3_mpu_complete(s->s3, part->final, part->upload,
                            (const char *const *)part->etags->items, part->etags->n, &gone,
                            err) != 0)
        return -1;
    return gone ? sl__fs_s3_check_committed(s, part, err) : 0;
}

static int sl__fs_s3_abort(sl__fs_sink *s, const sl__fs_part *part, sl_error *err)
{
    return sl__s3_mpu_abort(s->s3, part->final, part->upload, err);
}

static int sl__fs_s3_sync(sl__fs_sink *s, const sl_list *parts, sl_error *err)
{
    return 0; /* S3 acknowledges what it stored */
}

static int sl__fs_s3_success(sl__fs_sink *s, const char *pdir, sl_error *err)
{
    char *key = sl__fs_s3_key(s, pdir, s->co.success_name);
    int rc = sl__s3_put(s->s3, key, "", 0, err);
    sl_free(key);
    return rc;
}

static int sl__fs_s3_clean(sl__fs_sink *s, sl_error *err)
{
    char *under = s->key_prefix[0] ? sl_sprintf("%s/", s->key_prefix) : sl_strdup("");
    sl_list *ups = sl_list_new();
    int rc = sl__s3_mpu_list(s->s3, under, ups, err);
    size_t ul = strlen(under), pl = strlen(s->prefix);
    for (int i = 0; rc == 0 && i < ups->n; i++) {
        const sl__s3_obj *u = ups->items[i];
        if (strncmp(u->key, under, ul) != 0)
            continue;
        const char *rel = u->key + ul, *name = strrchr(rel, '/');
        name = name ? name + 1 : rel;
        if (strncmp(name, s->prefix, pl) != 0)
            continue; /* another job's, table's or subtask's */
        /* In the prefix itself, or in partition directories of ours. */
        if (name > rel && (s->lay.npart == 0 || !sl__fs_pdir_ok(rel, (size_t)(name - 1 - rel))))
            continue;
        rc = sl__s3_mpu_abort(s->s3, u->key, u->upload, err);
    }
    sl_list_free(ups, sl__s3_obj_free);
    sl_free(under);
    return rc;
}

static const sl__fs_store sl__fs_s3_store = {
    .open = sl__fs_s3_open,
    .flush = sl__fs_s3_flush,
    .finish = sl__fs_s3_finish,
    .drop = sl__fs_s3_drop,
    .commit = sl__fs_s3_commit,
    .abort = sl__fs_s3_abort,
    .sync = sl__fs_s3_sync,
    .success = sl__fs_s3_success,
    .clean = sl__fs_s3_clean,
};

static int sl__fs_recover(sl_sink *sink, const char *const *committables, const size_t *lens, int n,
                          sl_error *err)
{
    sl__fs_sink *s = sink->impl;
    for (int i = 0; i < n; i++)
        if (sl__fs_commit(sink, committables[i], lens[i], err) != 0)
            return -1;
    /* The partitions written and not yet committed wait on. */
    for (int i = 0; s->co.success_file && i < n; i++) {
        sl_list *parts = sl__fs_parse_committable(committables[i], lens[i], err);
        if (!parts)
            return -1;
        for (int k = 0; k < parts->n; k++) {
            sl__fs_part *pp = parts->items[k];
            bool dup = pp->kind != 'p';
            for (int j = 0; !dup && j < s->pending->n; j++)
                dup = strcmp(((sl__fs_part *)s->pending->items[j])->pdir, pp->pdir) == 0;
            if (dup)
                continue;
            sl_list_push(s->pending, pp);
            parts->items[k] = NULL;
        }
        sl_list_free(parts, sl__fs_part_free);
    }
    return s->store->clean(s, err);
}

static void sl__fs_sink_free(sl_sink *sink)
{
    if (!sink)
        return;
    sl__fs_sink *s = sink->impl;
    sl__fs_uploader_free(s->uploader); /* first: its part may be a bucket's */
    for (int i = 0; i < s->buckets->n; i++) {
        sl__fs_bucket *b = s->buckets->items[i];
        s->store->drop(b);
        sl_free(b->cur.pdir);
        sl_free(b->cur.inprogress);
        sl_free(b->cur.final);
        sl_free(b->cur.upload);
        sl_list_free(b->cur.etags, sl_free);
        sl_strbuf_free(&b->wbuf);
        sl_free(b);
    }
    sl_list_free(s->buckets, NULL);
    sl_list_free(s->parts, sl__fs_part_free);
    sl_list_free(s->pending, sl__fs_part_free);
    sl_strbuf_free(&s->rec);
    sl_strbuf_free(&s->pdir);
    sl_strbuf_free(&s->tmp);
    sl_codec_free(s->codec);
    sl__fs_commit_opts_free(&s->co);
    for (int i = 0; i < s->ncols; i++)
        sl_free(s->names[i]);
    sl_free(s->names);
    sl_free((void *)s->lay.part);
    sl_free((void *)s->lay.default_name);
    sl__s3_free(s->s3);
    sl_free(s->key_prefix);
    sl_free(s->bucket);
    sl_kvlist_free(s->opts);
    sl_free(s->dir);
    sl_free(s->prefix);
    sl_free(s->ext);
    sl_free(s);
    sl_free(sink);
}

static const sl_sink_ops sl__fs_sink_ops = {
    .begin = sl__fs_begin,
    .write = sl__fs_write,
    .pre_commit = sl__fs_pre_commit,
    .commit = sl__fs_commit,
    .abort = sl__fs_abort,
    .recover = sl__fs_recover,
    .free = sl__fs_sink_free,
    .watermark = sl__fs_watermark,
};

/* ------------------------------------------------------------------------
** Creation.
*/
static void sl__fs_incarnation(char out[17])
{
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) {
        uint64_t t = (uint64_t)sl_monotonic_nanos(), pid = (uint64_t)getpid();
        r = sl_hash_bytes(&pid, sizeof pid, sl_hash_bytes(&t, sizeof t, SL_HASH_INIT));
    }
    snprintf(out, 17, "%016" PRIx64, r);
}

int sl__fs_sink_create(const sl_sink_args *args, sl_sink **out, sl_error *err)
{
    *out = NULL;
    const sl_kv *path = sl_kvlist_find(args->options, "path");
    bool s3 = path && sl__s3_is_uri(path->value);
    const char *dir = path ? (s3 ? path->value : sl__fs_local_path(path->value)) : NULL;
    if (!dir || !dir[0])
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1, "option 'path' is required");
    char *bucket = NULL, *key_prefix = NULL;
    if (s3 && sl__s3_parse_uri(dir, &bucket, &key_prefix) != 0)
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, path->value_pos,
                            "option 'path' is not a valid s3:// URI: \"%s\"", dir);
    const char *format = sl_kvlist_get(args->options, "format");
    const sl_connector *fc = &sl__connector_filesystem;
    int64_t roll_size, age_ns, idle_ns;
    if (sl__option_number(fc, args->options, "sink.rolling-policy.file-size", &roll_size, err) !=
            0 ||
        sl__option_number(fc, args->options, "sink.rolling-policy.rollover-interval", &age_ns,
                          err) != 0 ||
        sl__option_number(fc, args->options, "sink.rolling-policy.inactivity-interval", &idle_ns,
                          err) != 0)
        return -1;
    age_ns = (age_ns > 0 ? age_ns : 1) * SL_NANOS_PER_MILLI; /* ms -> ns */
    idle_ns = (idle_ns > 0 ? idle_ns : 1) * SL_NANOS_PER_MILLI;
    sl__fs_commit_opts co;
    if (sl__fs_commit_opts_read(args->options, &co, err) != 0)
        return -1;
    if (args->npart > 0 && co.success_file && args->parallelism > 1) {
        sl__fs_commit_opts_free(&co);
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1,
                     "partition commit of table \"%s\" needs one sink instance, not %d",
                     args->table ? args->table : "?", args->parallelism);
        sl_error_hint(err, "Set 'sink.parallelism' = '1' on the table.");
        return -1;
    }
    sl__s3 *client = NULL;
    if (s3 ? !(client = sl__s3_open(args->options, bucket, err)) : sl_fs_mkdir_p(dir, err) != 0) {
        sl__fs_commit_opts_free(&co);
        sl_free(bucket);
        sl_free(key_prefix);
        return -1;
    }
    /* The files hold the columns that are neither partition nor metadata columns. */
    int nd = 0, *dcols = sl_calloc((size_t)args->ncols + 1, sizeof(int));
    const char **dnames = sl_calloc((size_t)args->ncols + 1, sizeof(char *));
    sl_type *dtypes = sl_calloc((size_t)args->ncols + 1, sizeof(sl_type));
    for (int i = 0; i < args->ncols; i++) {
        bool is_part = false;
        for (int k = 0; k < args->npart; k++)
            is_part = is_part || args->part[k] == i;
        if (is_part || (args->meta && args->meta[i])) /* VIRTUAL metadata: not written */
            continue;
        dcols[nd] = i;
        dnames[nd] = args->names[i];
        dtypes[nd++] = args->types[i];
    }
    sl_codec *codec = sl_codec_new(args->options, nd, dnames, dtypes, err);
    if (codec) {
        sl_codec_set_line_framing(codec); /* what the filesystem source reads back */
        if (nd < args->ncols)
            sl_codec_map_columns(codec, args->ncols, dcols);
    }
    sl_free(dcols);
    sl_free(dnames);
    sl_free(dtypes);
    if (!codec) {
        sl__fs_commit_opts_free(&co);
        sl__s3_free(client);
        sl_free(bucket);
        sl_free(key_prefix);
        return -1;
    }
    sl__fs_sink *s = sl_calloc(1, sizeof *s);
    s->store = s3 ? &sl__fs_s3_store : &sl__fs_local_store;
    s->s3 = client;
    s->bucket = bucket;
    s->key_prefix = key_prefix;
    s->opts = s3 ? sl_kvlist_dup(args->options) : NULL;
    s->flush_at = s3 ? SL__FS_S3_PART : SL__FS_WBUF;
    s->max_open = s3 ? SL__FS_S3_MAX_OPEN : SL__FS_MAX_OPEN;
    s->dir = sl_strdup(dir);
    const char *job = args->job ? args->job : "";
    const char *table = args->table ? args->table : "";
    uint64_t h = sl_hash_bytes(job, strlen(job) + 1, SL_HASH_INIT);
    h = sl_hash_bytes(table, strlen(table), h);
    s->prefix = sl_sprintf("part-%016" PRIx64 "-%d-", h, args->subtask);
    s->ext = sl_strdup(format ? format : "txt");
    for (char *e = s->ext; *e; e++)
        if (*e >= 'A' && *e <= 'Z')
            *e = (char)(*e - 'A' + 'a');
        else if (!((*e >= 'a' && *e <= 'z') || (*e >= '0' && *e <= '9')))
            *e = '_';
    sl__fs_incarnation(s->inc);
    s->codec = codec;
    s->roll_size = roll_size > 0 ? roll_size : 1;
    s->roll_age_ns = age_ns;
    s->roll_idle_ns = idle_ns;
    s->buckets = sl_list_new();
    s->last = -1;
    s->parts = sl_list_new();
    s->pending = sl_list_new();
    s->co = co;
    s->watermark = INT64_MIN;
    s->ncols = args->ncols;
    s->names = sl_calloc((size_t)args->ncols + 1, sizeof(char *));
    for (int i = 0; i < args->ncols; i++)
        s->names[i] = sl_strdup(args->names[i]);
    int *part = sl_calloc((size_t)args->npart + 1, sizeof(int));
    for (int k = 0; k < args->npart; k++)
        part[k] = args->part[k];
    const char *defname = sl_kvlist_get(args->options, "partition.default-name");
    s->lay = (sl__fs_layout){args->npart, part, (const char *const *)s->names,
                             sl_strdup(defname && defname[0] ? defname : "__DEFAULT_PARTITION__")};
    sl_sink *sink = sl_calloc(1, sizeof *sink);
    sink->ops = &sl__fs_sink_ops;
    sink->impl = s;
    *out = sink;
    return 0;
}
