/*
** state_rocks.c — RocksDB for the 'rocksdb' state backend (state_rocks.h).
**
** Why RocksDB: it is Flink's own choice for state larger than memory, and
** its SST files are immutable once written, which makes an incremental
** checkpoint a set of hard links: a checkpoint holds links to the SSTs the
** database has at that moment, so consecutive checkpoints share every file
** they have in common and only the SSTs written since take new bytes. The
** file system counts the links: pruning a checkpoint unlinks its names,
** and a file another checkpoint (or the working database) still names
** survives. A non-incremental checkpoint copies the SSTs instead.
**
** The working directory is scratch: the write-ahead log is off (a crash
** restores from the last checkpoint, whose memtables were flushed into
** SSTs by the checkpoint itself), and a restore always starts from a fresh
** directory populated from the checkpoint: SSTs hard-linked (RocksDB never
** writes them again; it deletes its own name for them after a compaction,
** which leaves the checkpoint's), everything else (MANIFEST, CURRENT,
** OPTIONS) copied, because RocksDB appends to and renames those.
**
** Main routines: sl_rocks_open, sl_rocks_get, sl_rocks_put, sl_rocks_commit,
** sl_rocks_checkpoint, sl_rocks_close.
*/
#include "state_rocks.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <rocksdb/c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct sl_rocks {
    char *dir;                   /* working directory (owned; removed at close) */
    rocksdb_t *db;               /* the database */
    rocksdb_options_t *opts;     /* its options */
    rocksdb_readoptions_t *ropts;
    rocksdb_writeoptions_t *wopts; /* the WAL off */
    rocksdb_writebatch_t *batch; /* writes not yet committed */
};

/* err from RocksDB's error string (freed). */
static int sl__rerr(sl_error *err, char *rerr, const char *what, const char *dir)
{
    sl_error_set(err, SL_ERR_IO, -1, "RocksDB state backend: %s in \"%s\" failed: %s", what,
                 dir, rerr ? rerr : "?");
    rocksdb_free(rerr);
    return -1;
}

/* Copy file src to dst (created 0644, fsynced). */
static int sl__copy_file(const char *src, const char *dst, sl_error *err)
{
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return sl_error_set(err, SL_ERR_IO, -1, "could not open \"%s\": %s", src, strerror(errno));
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        close(in);
        return sl_error_set(err, SL_ERR_IO, -1, "could not create \"%s\": %s", dst,
                            strerror(errno));
    }
    char buf[1 << 16];
    int rc = 0;
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n == 0)
            break;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = sl_error_set(err, SL_ERR_IO, -1, "could not read \"%s\": %s", src, strerror(errno));
            break;
        }
        for (ssize_t off = 0; off < n && rc == 0;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                rc = sl_error_set(err, SL_ERR_IO, -1, "could not write \"%s\": %s", dst,
                                  strerror(errno));
            else
                off += w;
        }
        if (rc)
            break;
    }
    if (rc == 0 && fsync(out) != 0)
        rc = sl_error_set(err, SL_ERR_IO, -1, "could not fsync \"%s\": %s", dst, strerror(errno));
    close(in);
    close(out);
    return rc;
}

static bool sl__is_sst(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".sst") == 0;
}

/* Fill the empty directory dir from checkpoint directory from: SSTs as
** hard links (copies across file systems), the rest as copies. */
static int sl__populate(const char *dir, const char *from, sl_error *err)
{
    DIR *d = opendir(from);
    if (!d)
        return sl_error_set(err, errno == ENOENT ? SL_ERR_UNDEFINED_FILE : SL_ERR_IO, -1,
                            "RocksDB checkpoint \"%s\" cannot be read: %s", from, strerror(errno));
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *src = sl_path_join(from, e->d_name);
        char *dst = sl_path_join(dir, e->d_name);
        if (!sl__is_sst(e->d_name) || link(src, dst) != 0)
            rc = sl__copy_file(src, dst, err);
        sl_free(src);
        sl_free(dst);
    }
    closedir(d);
    return rc;
}

int sl_rocks_open(const char *dir, const char *from, sl_rocks **out, sl_error *err)
{
    *out = NULL;
    char *wd;
    if (dir) {
        if (sl_fs_remove_tree(dir, err) != 0 || sl_fs_mkdir_p(dir, err) != 0)
            return -1;
        wd = sl_strdup(dir);
    } else {
        const char *tmp = getenv("TMPDIR");
        wd = sl_sprintf("%s/sluice-rocks-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(wd)) {
            sl_error_set(err, SL_ERR_IO, -1, "could not create \"%s\": %s", wd, strerror(errno));
            sl_free(wd);
            return -1;
        }
    }
    if (from && sl__populate(wd, from, err) != 0) {
        sl_error ignored = SL_ERROR_INIT;
        sl_fs_remove_tree(wd, &ignored);
        sl_error_reset(&ignored);
        sl_free(wd);
        return -1;
    }
    sl_rocks *r = sl_calloc(1, sizeof *r);
    r->dir = wd;
    r->opts = rocksdb_options_create();
    rocksdb_options_set_create_if_missing(r->opts, 1);
    /* Groups are read back by point lookups: a bloom filter per SST spares
    ** the misses (a new key) reading every level's blocks. */
    rocksdb_block_based_table_options_t *t = rocksdb_block_based_options_create();
    rocksdb_block_based_options_set_filter_policy(t, rocksdb_filterpolicy_create_bloom(10));
    rocksdb_options_set_block_based_table_factory(r->opts, t);
    rocksdb_block_based_options_destroy(t);
    rocksdb_options_set_compression(r->opts, rocksdb_lz4_compression);
    rocksdb_options_set_max_open_files(r->opts, 1000);
    r->ropts = rocksdb_readoptions_create();
    r->wopts = rocksdb_writeoptions_create();
    rocksdb_writeoptions_disable_WAL(r->wopts, 1);
    r->batch = rocksdb_writebatch_create();
    char *rerr = NULL;
    r->db = rocksdb_open(r->opts, wd, &rerr);
    if (rerr) {
        sl__rerr(err, rerr, "opening the database", wd);
        r->db = NULL;
        sl_rocks_close(r);
        return -1;
    }
    *out = r;
    return 0;
}

void sl_rocks_close(sl_rocks *r)
{
    if (!r)
        return;
    if (r->db)
        rocksdb_close(r->db);
    rocksdb_writebatch_destroy(r->batch);
    rocksdb_writeoptions_destroy(r->wopts);
    rocksdb_readoptions_destroy(r->ropts);
    rocksdb_options_destroy(r->opts);
    sl_error ignored = SL_ERROR_INIT;
    sl_fs_remove_tree(r->dir, &ignored); /* scratch: the checkpoints hold their own links */
    sl_error_reset(&ignored);
    sl_free(r->dir);
    sl_free(r);
}

void sl_rocks_put(sl_rocks *r, const char *key, size_t klen, const char *val, size_t vlen)
{
    rocksdb_writebatch_put(r->batch, key, klen, val, vlen);
}

void sl_rocks_delete(sl_rocks *r, const char *key, size_t klen)
{
    rocksdb_writebatch_delete(r->batch, key, klen);
}

int sl_rocks_commit(sl_rocks *r, sl_error *err)
{
    if (rocksdb_writebatch_count(r->batch) == 0)
        return 0;
    char *rerr = NULL;
    rocksdb_write(r->db, r->wopts, r->batch, &rerr);
    if (rerr)
        return sl__rerr(err, rerr, "a write", r->dir);
    rocksdb_writebatch_clear(r->batch);
    return 0;
}

int sl_rocks_get(sl_rocks *r, const char *key, size_t klen, char **val, size_t *vlen,
                 sl_error *err)
{
    *val = NULL;
    *vlen = 0;
    if (sl_rocks_commit(r, err) != 0)
        return -1;
    char *rerr = NULL;
    rocksdb_pinnableslice_t *s = rocksdb_get_pinned(r->db, r->ropts, key, klen, &rerr);
    if (rerr)
        return sl__rerr(err, rerr, "a read", r->dir);
    if (!s)
        return 0;
    size_t n = 0;
    const char *p = rocksdb_pinnableslice_value(s, &n);
    *val = sl_malloc(n ? n : 1);
    if (n)
        memcpy(*val, p, n);
    *vlen = n;
    rocksdb_pinnableslice_destroy(s);
    return 1;
}

/* Replace every hard link in dir by a copy of its own (a full checkpoint). */
static int sl__unshare(const char *dir, sl_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return sl_error_set(err, SL_ERR_IO, -1, "could not read \"%s\": %s", dir, strerror(errno));
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *path = sl_path_join(dir, e->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && st.st_nlink > 1) {
            char *tmp = sl_sprintf("%s.copy", path);
            rc = sl__copy_file(path, tmp, err);
            if (rc == 0 && rename(tmp, path) != 0)
                rc = sl_error_set(err, SL_ERR_IO, -1, "could not rename \"%s\": %s", tmp,
                                  strerror(errno));
            sl_free(tmp);
        }
        sl_free(path);
    }
    closedir(d);
    return rc;
}

int sl_rocks_checkpoint(sl_rocks *r, const char *dir, bool incremental, sl_error *err)
{
    if (sl_rocks_commit(r, err) != 0)
        return -1;
    /* RocksDB creates dir itself (through a temporary name it renames):
    ** only its parent must exist. A leftover of an attempt that crashed
    ** before its checkpoint was sealed is not a checkpoint: replace it. */
    char *parent = sl_strdup(dir);
    char *slash = strrchr(parent, '/');
    if (slash)
        *slash = '\0';
    int rc = (slash ? sl_fs_mkdir_p(parent, err) : 0) == 0 && sl_fs_remove_tree(dir, err) == 0
                 ? 0
                 : -1;
    sl_free(parent);
    if (rc)
        return -1;
    char *rerr = NULL;
    rocksdb_checkpoint_t *c = rocksdb_checkpoint_object_create(r->db, &rerr);
    if (rerr)
        return sl__rerr(err, rerr, "a checkpoint", r->dir);
    /* log_size_for_flush 0: flush the memtables first, so the checkpoint
    ** is SSTs only (the WAL is off). */
    rocksdb_checkpoint_create(c, dir, 0, &rerr);
    rocksdb_checkpoint_object_destroy(c);
    if (rerr)
        return sl__rerr(err, rerr, "a checkpoint", dir);
    if (!incremental && sl__unshare(dir, err) != 0)
        return -1;
    return sl_fs_sync_dir(dir, err);
}
