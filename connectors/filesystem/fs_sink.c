/*
** fs_sink.c — the filesystem sink: exactly-once part files by atomic rename
** (DESIGN.md section 5, a preparable participant).
**
** File names (all in the directory 'path'; <ext> is the format name: json,
** csv, raw):
**
**   final        part-<id>-<subtask>-<epoch>-<seq>.<ext>
**   in progress  .part-<id>-<subtask>-<epoch>-<seq>.<ext>.inprogress.<inc>
**
** <id> is 16 hex digits of the 64-bit FNV-1a hash of the job name, a NUL
** and the table name: stable across restarts, different between jobs.
** <epoch> is the checkpoint that seals the file and <seq> counts the files
** of that epoch (rolling), from 0. A final name is unique across restarts
** without any persisted counter: an epoch is decided at most once, and the
** files of an undecided epoch are deleted by recover() before the epoch
** number is used again. <inc> (16 random hex digits) tells this
** incarnation's in-progress files from an earlier one's. The leading '.'
** hides in-progress files from readers (our own source skips names
** starting with '.' or '_', as Flink does).
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
**   pre_commit(N)  closes the current file (fsync), fsyncs the directory
**                  and returns the committable: one line per file,
**                  "file <in-progress name> <final name> <size>\n"; empty
**                  for an epoch without rows;
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
**   recover        commits the decided committables, then deletes every
**                  in-progress file of this job, table and subtask left by
**                  an earlier incarnation (its epochs were not decided).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs_int.h"

#define SL__FS_WBUF (64 * 1024) /* write to the file in blocks of this size */

typedef struct sl__fs_part {
    char *inprogress; /* in-progress name (in the directory) */
    char *final;      /* final name */
    int64_t size;     /* bytes */
} sl__fs_part;

typedef struct sl__fs_sink {
    char *dir;            /* output directory */
    char *prefix;         /* "part-<id>-<subtask>-" */
    char *ext;            /* file extension: the format name */
    char inc[17];         /* this incarnation: 16 hex digits */
    sl_codec *codec;      /* the table's format */
    int64_t roll_size;    /* bytes */
    int64_t roll_age_ns;  /* rollover-interval */
    int64_t roll_idle_ns; /* inactivity-interval */
    bool open;            /* an epoch is open (begin called, pre_commit not yet) */
    int64_t epoch;        /* the open (or last) epoch */
    bool any_epoch;       /* begin was called at least once */
    int seq;              /* next file number of the epoch */
    /* The current in-progress file. */
    int fd;                /* -1: none open */
    sl__fs_part cur;       /* its names and size (written + buffered) */
    int64_t cur_opened_ns; /* when it was opened */
    int64_t cur_write_ns;  /* last row written */
    sl_strbuf wbuf;        /* encoded rows not yet written */
    sl_strbuf rec;         /* one encoded row */
    sl_list *parts;        /* closed files of the open epoch (sl__fs_part *) */
} sl__fs_sink;

static void sl__fs_part_free(void *p)
{
    sl__fs_part *part = p;
    if (!part)
        return;
    sl_free(part->inprogress);
    sl_free(part->final);
    sl_free(part);
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
** The current in-progress file.
*/
static int sl__fs_flush(sl__fs_sink *s, sl_error *err)
{
    size_t off = 0;
    while (off < s->wbuf.len) {
        ssize_t w = write(s->fd, s->wbuf.buf + off, s->wbuf.len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return sl__fs_io(err, "write file", s->dir, s->cur.inprogress);
        }
        off += (size_t)w;
    }
    sl_strbuf_reset(&s->wbuf);
    return 0;
}

static int sl__fs_open_part(sl__fs_sink *s, int64_t now, sl_error *err)
{
    s->cur.final = sl_sprintf("%s%" PRId64 "-%d.%s", s->prefix, s->epoch, s->seq, s->ext);
    s->cur.inprogress = sl_sprintf(".%s.inprogress.%s", s->cur.final, s->inc);
    s->cur.size = 0;
    s->seq++;
    char *p = sl_path_join(s->dir, s->cur.inprogress);
    s->fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    sl_free(p);
    if (s->fd < 0) {
        int rc = sl__fs_io(err, "create file", s->dir, s->cur.inprogress);
        sl_free(s->cur.inprogress);
        sl_free(s->cur.final);
        memset(&s->cur, 0, sizeof s->cur);
        return rc;
    }
    s->cur_opened_ns = s->cur_write_ns = now;
    return 0;
}

/* Flush, fsync and close the current file; it becomes pending for the epoch. */
static int sl__fs_close_part(sl__fs_sink *s, sl_error *err)
{
    if (s->fd < 0)
        return 0;
    int rc = sl__fs_flush(s, err);
    if (rc == 0 && fsync(s->fd) != 0)
        rc = sl__fs_io(err, "fsync file", s->dir, s->cur.inprogress);
    if (close(s->fd) != 0 && rc == 0)
        rc = sl__fs_io(err, "close file", s->dir, s->cur.inprogress);
    s->fd = -1;
    sl__fs_part *part = sl_malloc(sizeof *part);
    *part = s->cur;
    memset(&s->cur, 0, sizeof s->cur);
    sl_list_push(s->parts, part); /* listed even on failure: abort() can delete it */
    return rc;
}

/* ------------------------------------------------------------------------
** Committables: "file <in-progress> <final> <size>\n" per file.
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

/* Parse a committable into a list of sl__fs_part; NULL with err (XX001). */
static sl_list *sl__fs_parse_committable(const char *c, size_t len, sl_error *err)
{
    sl_list *l = sl_list_new();
    const char *p = c, *end = c + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *f[3];
        size_t fl[3];
        bool ok = eol && (size_t)(eol - p) > 5 && memcmp(p, "file ", 5) == 0;
        const char *q = p + 5;
        for (int i = 0; ok && i < 3; i++) {
            const char *sp = i < 2 ? memchr(q, ' ', (size_t)(eol - q)) : eol;
            if (!sp) {
                ok = false;
                break;
            }
            f[i] = q;
            fl[i] = (size_t)(sp - q);
            q = sp + 1;
        }
        int64_t size = 0;
        if (ok) {
            ok = sl__fs_name_ok(f[0], fl[0]) && sl__fs_name_ok(f[1], fl[1]) && fl[2] > 0 &&
                 fl[2] < 19;
            for (size_t i = 0; ok && i < fl[2]; i++) {
                if (f[2][i] < '0' || f[2][i] > '9')
                    ok = false;
                else
                    size = size * 10 + (f[2][i] - '0');
            }
        }
        if (!ok) {
            sl_list_free(l, sl__fs_part_free);
            sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "invalid filesystem sink committable");
            sl_error_detail(err, "The stored committable is \"%.*s\".",
                            (int)(len > 300 ? 300 : len), c);
            return NULL;
        }
        sl__fs_part *part = sl_malloc(sizeof *part);
        part->inprogress = sl_strndup(f[0], fl[0]);
        part->final = sl_strndup(f[1], fl[1]);
        part->size = size;
        sl_list_push(l, part);
        p = eol + 1;
    }
    return l;
}

/* ------------------------------------------------------------------------
** Commit of one file.
*/
static int sl__fs_missing(sl__fs_sink *s, const sl__fs_part *part, sl_error *err)
{
    char *p = sl_path_join(s->dir, part->final);
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
static int sl__fs_check_committed(sl__fs_sink *s, const sl__fs_part *part, sl_error *err)
{
    char *fp = sl_path_join(s->dir, part->final);
    struct stat st;
    int rc = 0;
    if (stat(fp, &st) != 0) {
        rc = errno == ENOENT ? sl__fs_missing(s, part, err)
                             : sl__fs_io(err, "stat file", s->dir, part->final);
    } else if ((int64_t)st.st_size != part->size) {
        rc = sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                          "committed part file \"%s\" has %" PRId64 " bytes, expected %" PRId64, fp,
                          (int64_t)st.st_size, part->size);
    }
    sl_free(fp);
    return rc;
}

static int sl__fs_commit_one(sl__fs_sink *s, const sl__fs_part *part, sl_error *err)
{
    char *ip = sl_path_join(s->dir, part->inprogress);
    char *fp = sl_path_join(s->dir, part->final);
    struct stat ist, fst;
    int rc = 0;
    if (stat(ip, &ist) != 0) {
        rc = errno == ENOENT ? sl__fs_check_committed(s, part, err)
                             : sl__fs_io(err, "stat file", s->dir, part->inprogress);
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
                rc = sl__fs_io(err, "remove file", s->dir, part->inprogress);
            goto out;
        }
    }
    if (errno == ENOENT) { /* renamed meanwhile */
        rc = sl__fs_check_committed(s, part, err);
    } else if (errno == EEXIST) {
        if (stat(fp, &fst) == 0 && fst.st_dev == ist.st_dev && fst.st_ino == ist.st_ino) {
            /* An interrupted link commit: finish it. */
            if (unlink(ip) != 0 && errno != ENOENT)
                rc = sl__fs_io(err, "remove file", s->dir, part->inprogress);
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
        rc = sl__fs_io(err, "rename file", s->dir, part->inprogress);
    }
out:
    sl_free(ip);
    sl_free(fp);
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

static bool sl__fs_should_roll_before(const sl__fs_sink *s, int64_t now)
{
    return s->fd >= 0 && s->cur.size > 0 &&
           (now - s->cur_opened_ns >= s->roll_age_ns || now - s->cur_write_ns >= s->roll_idle_ns);
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
        if (sl__fs_should_roll_before(s, now) && sl__fs_close_part(s, err) != 0)
            return -1;
        sl_strbuf_reset(&s->rec);
        if (sl_codec_encode(s->codec, c, r, &s->rec, err) != 0)
            return -1;
        sl_strbuf_append_char(&s->rec, '\n');
        if (s->fd < 0 && sl__fs_open_part(s, now, err) != 0)
            return -1;
        sl_strbuf_append_n(&s->wbuf, s->rec.buf, s->rec.len);
        s->cur.size += (int64_t)s->rec.len;
        s->cur_write_ns = now;
        if (s->wbuf.len >= SL__FS_WBUF && sl__fs_flush(s, err) != 0)
            return -1;
        if (s->cur.size >= s->roll_size && sl__fs_close_part(s, err) != 0)
            return -1;
    }
    return 0;
}

static int sl__fs_pre_commit(sl_sink *sink, int64_t epoch, sl_strbuf *committable, sl_error *err)
{
    sl__fs_sink *s = sink->impl;
    if (!s->open || epoch != s->epoch)
        return sl_error_set(
            err, SL_ERR_INTERNAL, -1,
            "filesystem sink: pre-commit of epoch %" PRId64 ", which is not the open one", epoch);
    if (sl__fs_close_part(s, err) != 0)
        return -1;
    if (s->parts->n > 0 && sl_fs_sync_dir(s->dir, err) != 0)
        return -1;
    for (int i = 0; i < s->parts->n; i++) {
        const sl__fs_part *part = s->parts->items[i];
        sl_strbuf_appendf(committable, "file %s %s %" PRId64 "\n", part->inprogress, part->final,
                          part->size);
    }
    sl_list_free(s->parts, sl__fs_part_free);
    s->parts = sl_list_new();
    s->open = false;
    return 0;
}

static int sl__fs_commit(sl_sink *sink, const char *committable, size_t len, sl_error *err)
{
    sl__fs_sink *s = sink->impl;
    sl_list *parts = sl__fs_parse_committable(committable, len, err);
    if (!parts)
        return -1;
    int rc = 0;
    for (int i = 0; rc == 0 && i < parts->n; i++)
        rc = sl__fs_commit_one(s, parts->items[i], err);
    if (rc == 0 && parts->n > 0)
        rc = sl_fs_sync_dir(s->dir, err);
    sl_list_free(parts, sl__fs_part_free);
    return rc;
}

static int sl__fs_abort(sl_sink *sink, const char *committable, size_t len, sl_error *err)
{
    sl__fs_sink *s = sink->impl;
    sl_list *parts = sl__fs_parse_committable(committable, len, err);
    if (!parts)
        return -1;
    int rc = 0;
    for (int i = 0; rc == 0 && i < parts->n; i++) {
        const sl__fs_part *part = parts->items[i];
        char *ip = sl_path_join(s->dir, part->inprogress);
        if (unlink(ip) != 0 && errno != ENOENT)
            rc = sl__fs_io(err, "remove file", s->dir, part->inprogress);
        sl_free(ip);
    }
    if (rc == 0 && parts->n > 0)
        rc = sl_fs_sync_dir(s->dir, err);
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

static int sl__fs_recover(sl_sink *sink, const char *const *committables, const size_t *lens, int n,
                          sl_error *err)
{
    sl__fs_sink *s = sink->impl;
    for (int i = 0; i < n; i++)
        if (sl__fs_commit(sink, committables[i], lens[i], err) != 0)
            return -1;
    sl_list *names = sl__fs_list(s->dir, NULL, err);
    if (!names)
        return -1;
    int rc = 0, removed = 0;
    for (int i = 0; rc == 0 && i < names->n; i++) {
        const char *name = names->items[i];
        const char *inc = strrchr(name, '.');
        if (!sl__fs_is_ours(s, name) || strcmp(inc + 1, s->inc) == 0)
            continue; /* not ours, or this incarnation's own */
        char *p = sl_path_join(s->dir, name);
        if (unlink(p) != 0 && errno != ENOENT)
            rc = sl__fs_io(err, "remove file", s->dir, name);
        else
            removed++;
        sl_free(p);
    }
    if (rc == 0 && removed > 0)
        rc = sl_fs_sync_dir(s->dir, err);
    sl_list_free(names, sl_free);
    return rc;
}

static void sl__fs_sink_free(sl_sink *sink)
{
    if (!sink)
        return;
    sl__fs_sink *s = sink->impl;
    if (s->fd >= 0)
        close(s->fd);
    sl_free(s->cur.inprogress);
    sl_free(s->cur.final);
    sl_list_free(s->parts, sl__fs_part_free);
    sl_strbuf_free(&s->wbuf);
    sl_strbuf_free(&s->rec);
    sl_codec_free(s->codec);
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
};

/* ------------------------------------------------------------------------
** Creation.
*/
static int sl__fs_opt_ms(const sl_kvlist *opts, const char *key, int64_t def_ms, int64_t *out_ns,
                         sl_error *err)
{
    const sl_kv *kv = sl_kvlist_find(opts, key);
    int64_t ms = def_ms;
    if (kv && sl_option_parse_duration_ms(kv->value, &ms, kv->value_pos, err) != 0)
        return -1;
    *out_ns = (ms > 0 ? ms : 1) * 1000000;
    return 0;
}

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
    if (!path || !path->value || !path->value[0])
        return sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1, "option 'path' is required");
    const char *format = sl_kvlist_get(args->options, "format");
    int64_t roll_size = INT64_C(128) * 1024 * 1024;
    const sl_kv *kv = sl_kvlist_find(args->options, "sink.rolling-policy.file-size");
    if (kv && sl_option_parse_memsize(kv->value, &roll_size, kv->value_pos, err) != 0)
        return -1;
    int64_t age_ns, idle_ns;
    if (sl__fs_opt_ms(args->options, "sink.rolling-policy.rollover-interval", 30 * 60 * 1000,
                      &age_ns, err) != 0 ||
        sl__fs_opt_ms(args->options, "sink.rolling-policy.inactivity-interval", 30 * 60 * 1000,
                      &idle_ns, err) != 0)
        return -1;
    if (sl_fs_mkdir_p(path->value, err) != 0)
        return -1;
    sl_codec *codec = sl_codec_new_physical(args->options, args->ncols, args->names, args->types,
                                            args->meta, err); /* VIRTUAL metadata: not written */
    if (codec)
        sl_codec_set_line_framing(codec); /* what the filesystem source reads back */
    if (!codec)
        return -1;
    sl__fs_sink *s = sl_calloc(1, sizeof *s);
    s->dir = sl_strdup(path->value);
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
    s->fd = -1;
    s->parts = sl_list_new();
    sl_sink *sink = sl_calloc(1, sizeof *sink);
    sink->ops = &sl__fs_sink_ops;
    sink->impl = s;
    *out = sink;
    return 0;
}
