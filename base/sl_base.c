/*
** sl_base.c — memory, errors, strings, lists, key/value lists, files, text
** helpers and logging (see sl_base.h).
*/
#include "sl_base.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/file.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */

void sl_panic(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "sluice: PANIC at %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

void *sl_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        SL_PANIC("out of memory (%zu bytes)", n);
    return p;
}

void *sl_calloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        SL_PANIC("out of memory (%zu x %zu bytes)", count, size);
    return p;
}

void *sl_realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        SL_PANIC("out of memory (%zu bytes)", n);
    return q;
}

/* Large tables probed at random (hash tables of state): a probe is a cache
** miss anyway, and with 4 KB pages a TLB miss too. */
#define SL__HUGE ((size_t)2 << 20)

void sl_advise_huge(void *p, size_t n)
{
    uintptr_t lo = ((uintptr_t)p + SL__HUGE - 1) & ~(uintptr_t)(SL__HUGE - 1);
    uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)(SL__HUGE - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}

void *sl_malloc_huge(size_t n)
{
    void *p = NULL;
    if (n < SL__HUGE)
        return sl_malloc(n);
    if (posix_memalign(&p, SL__HUGE, n) != 0)
        SL_PANIC("out of memory (%zu bytes)", n);
    sl_advise_huge(p, n);
    return p;
}

void *sl_calloc_huge(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        SL_PANIC("out of memory (%zu x %zu bytes)", count, size);
    size_t n = count * size;
    void *p = sl_malloc_huge(n ? n : 1);
    memset(p, 0, n); /* written, not calloc'ed: see sl_base.h */
    return p;
}

char *sl_strdup(const char *s)
{
    return s ? sl_strndup(s, strlen(s)) : NULL;
}

char *sl_strndup(const char *s, size_t n)
{
    size_t len = 0;
    while (len < n && s[len])
        len++;
    char *d = sl_malloc(len + 1);
    memcpy(d, s, len);
    d[len] = 0;
    return d;
}

char *sl_vsprintf(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        SL_PANIC("bad format string: %s", fmt);
    char *s = sl_malloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *sl_sprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = sl_vsprintf(fmt, ap);
    va_end(ap);
    return s;
}

void sl_free(void *p)
{
    free(p);
}

/* ------------------------------------------------------------------------
** Errors
*/

int sl_error_setv(sl_error *e, const char *sqlstate, int position, const char *fmt, va_list ap)
{
    if (!e || sl_error_isset(e))
        return -1;
    e->severity = SL_SEV_ERROR;
    snprintf(e->sqlstate, sizeof e->sqlstate, "%s", sqlstate ? sqlstate : SL_ERR_INTERNAL);
    e->message = sl_vsprintf(fmt, ap);
    e->position = position;
    return -1;
}

int sl_error_set(sl_error *e, const char *sqlstate, int position, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sl_error_setv(e, sqlstate, position, fmt, ap);
    va_end(ap);
    return -1;
}

void sl_error_detail(sl_error *e, const char *fmt, ...)
{
    if (!e)
        return;
    va_list ap;
    va_start(ap, fmt);
    sl_free(e->detail);
    e->detail = sl_vsprintf(fmt, ap);
    va_end(ap);
}

void sl_error_hint(sl_error *e, const char *fmt, ...)
{
    if (!e)
        return;
    va_list ap;
    va_start(ap, fmt);
    sl_free(e->hint);
    e->hint = sl_vsprintf(fmt, ap);
    va_end(ap);
}

bool sl_error_isset(const sl_error *e)
{
    return e && e->sqlstate[0] != 0;
}

void sl_error_reset(sl_error *e)
{
    if (!e)
        return;
    sl_free(e->message);
    sl_free(e->detail);
    sl_free(e->hint);
    sl_error zero = SL_ERROR_INIT;
    *e = zero;
}

void sl_error_move(sl_error *dst, sl_error *src)
{
    sl_error_reset(dst);
    *dst = *src;
    sl_error zero = SL_ERROR_INIT;
    *src = zero;
}

void sl_error_copy(sl_error *dst, const sl_error *src)
{
    sl_error_reset(dst);
    *dst = *src;
    dst->message = sl_strdup(src->message);
    dst->detail = sl_strdup(src->detail);
    dst->hint = sl_strdup(src->hint);
}

/* ------------------------------------------------------------------------
** String buffer
*/

static void sl__strbuf_grow(sl_strbuf *sb, size_t extra)
{
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < need)
        cap *= 2;
    sb->buf = sl_realloc(sb->buf, cap);
    sb->cap = cap;
}

void sl_strbuf_reserve(sl_strbuf *sb, size_t extra)
{
    sl__strbuf_grow(sb, extra);
    sb->buf[sb->len] = 0;
}

void sl_strbuf_append_n(sl_strbuf *sb, const char *s, size_t n)
{
    sl__strbuf_grow(sb, n);
    if (n)
        memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
    sb->buf[sb->len] = 0;
}

void sl_strbuf_append(sl_strbuf *sb, const char *s)
{
    sl_strbuf_append_n(sb, s, strlen(s));
}

char *sl_i64_put(char *p, int64_t v)
{
    char tmp[24], *t = tmp + sizeof tmp;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        *--t = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--t = '-';
    size_t n = (size_t)(tmp + sizeof tmp - t);
    memcpy(p, t, n);
    return p + n;
}

void sl_strbuf_append_i64(sl_strbuf *sb, int64_t v)
{
    sl_strbuf_reserve(sb, SL_I64_DIGITS);
    sb->len = (size_t)(sl_i64_put(sb->buf + sb->len, v) - sb->buf);
    sb->buf[sb->len] = 0;
}

void sl_strbuf_appendv(sl_strbuf *sb, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        SL_PANIC("bad format string: %s", fmt);
    sl__strbuf_grow(sb, (size_t)n);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void sl_strbuf_appendf(sl_strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sl_strbuf_appendv(sb, fmt, ap);
    va_end(ap);
}

void sl_strbuf_append_quoted(sl_strbuf *sb, const char *s, char q)
{
    sl_strbuf_append_char(sb, q);
    for (; *s; s++) {
        if (*s == q)
            sl_strbuf_append_char(sb, q);
        sl_strbuf_append_char(sb, *s);
    }
    sl_strbuf_append_char(sb, q);
}

const char *sl_strbuf_cstr(sl_strbuf *sb)
{
    return sb->buf ? sb->buf : "";
}

void sl_strbuf_reset(sl_strbuf *sb)
{
    sb->len = 0;
    if (sb->buf)
        sb->buf[0] = 0;
}

char *sl_strbuf_detach(sl_strbuf *sb)
{
    char *s = sb->buf ? sb->buf : sl_strdup("");
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    return s;
}

void sl_strbuf_free(sl_strbuf *sb)
{
    sl_free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
}

/* ------------------------------------------------------------------------
** Arena
*/

struct sl_arena_block {
    sl_arena_block *next; /* older block */
    size_t size;          /* bytes of data[] */
    _Alignas(16) unsigned char data[];
};

#define SL_ARENA_BLOCK 65536

void *sl_arena_alloc(sl_arena *a, size_t n)
{
    size_t need = (n + 15) & ~(size_t)15;
    if (!a->head || a->used + need > a->head->size) {
        size_t size = need > SL_ARENA_BLOCK ? need : SL_ARENA_BLOCK;
        sl_arena_block *b = sl_malloc(sizeof(sl_arena_block) + size);
        b->size = size;
        b->next = a->head;
        a->head = b;
        a->used = 0;
    }
    void *p = a->head->data + a->used;
    a->used += need;
    a->total += need;
    return p;
}

void *sl_arena_memdup(sl_arena *a, const void *p, size_t n)
{
    void *d = sl_arena_alloc(a, n ? n : 1);
    if (n)
        memcpy(d, p, n);
    return d;
}

void sl_arena_reset(sl_arena *a)
{
    if (!a->head)
        return;
    sl_arena_block *keep = a->head, *b = keep->next;
    while (b) {
        sl_arena_block *next = b->next;
        sl_free(b);
        b = next;
    }
    keep->next = NULL;
    a->used = 0;
    a->total = 0;
}

void sl_arena_free(sl_arena *a)
{
    sl_arena_block *b = a->head;
    while (b) {
        sl_arena_block *next = b->next;
        sl_free(b);
        b = next;
    }
    a->head = NULL;
    a->used = a->total = 0;
}

/* ------------------------------------------------------------------------
** Pointer list
*/

sl_list *sl_list_new(void)
{
    return sl_calloc(1, sizeof(sl_list));
}

void sl_list_push(sl_list *l, void *item)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 4;
        l->items = sl_realloc(l->items, (size_t)l->cap * sizeof(void *));
    }
    l->items[l->n++] = item;
}

void sl_list_free(sl_list *l, void (*free_item)(void *))
{
    if (!l)
        return;
    if (free_item)
        for (int i = 0; i < l->n; i++)
            free_item(l->items[i]);
    sl_free(l->items);
    sl_free(l);
}

/* ------------------------------------------------------------------------
** Key/value list
*/

sl_kvlist *sl_kvlist_new(void)
{
    return sl_calloc(1, sizeof(sl_kvlist));
}

void sl_kvlist_add(sl_kvlist *l, const char *key, const char *value, int key_pos, int value_pos)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 4;
        l->items = sl_realloc(l->items, (size_t)l->cap * sizeof(sl_kv));
    }
    sl_kv *kv = &l->items[l->n++];
    kv->key = sl_strdup(key);
    kv->value = sl_strdup(value);
    kv->key_pos = key_pos;
    kv->value_pos = value_pos;
}

void sl_kvlist_set(sl_kvlist *l, const char *key, const char *value, int key_pos, int value_pos)
{
    for (int i = 0; i < l->n; i++) {
        if (strcmp(l->items[i].key, key) == 0) {
            sl_free(l->items[i].value);
            l->items[i].value = sl_strdup(value);
            l->items[i].key_pos = key_pos;
            l->items[i].value_pos = value_pos;
            return;
        }
    }
    sl_kvlist_add(l, key, value, key_pos, value_pos);
}

bool sl_kvlist_remove(sl_kvlist *l, const char *key)
{
    for (int i = 0; i < l->n; i++) {
        if (strcmp(l->items[i].key, key) == 0) {
            sl_free(l->items[i].key);
            sl_free(l->items[i].value);
            memmove(&l->items[i], &l->items[i + 1], (size_t)(l->n - i - 1) * sizeof(sl_kv));
            l->n--;
            return true;
        }
    }
    return false;
}

const sl_kv *sl_kvlist_find(const sl_kvlist *l, const char *key)
{
    if (!l)
        return NULL;
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->items[i].key, key) == 0)
            return &l->items[i];
    return NULL;
}

const char *sl_kvlist_get(const sl_kvlist *l, const char *key)
{
    const sl_kv *kv = sl_kvlist_find(l, key);
    return kv ? kv->value : NULL;
}

sl_kvlist *sl_kvlist_dup(const sl_kvlist *l)
{
    if (!l)
        return NULL;
    sl_kvlist *d = sl_kvlist_new();
    for (int i = 0; i < l->n; i++)
        sl_kvlist_add(d, l->items[i].key, l->items[i].value, l->items[i].key_pos,
                      l->items[i].value_pos);
    return d;
}

void sl_kvlist_free(sl_kvlist *l)
{
    if (!l)
        return;
    for (int i = 0; i < l->n; i++) {
        sl_free(l->items[i].key);
        sl_free(l->items[i].value);
    }
    sl_free(l->items);
    sl_free(l);
}

/* ------------------------------------------------------------------------
** Files
*/

static int sl__io_error(sl_error *err, const char *what, const char *path)
{
    int e = errno;
    return sl_error_set(err, e == ENOENT ? SL_ERR_UNDEFINED_FILE : SL_ERR_IO, -1,
                        "could not %s \"%s\": %s", what, path, strerror(e));
}

static int sl__fsync_dir_of(const char *path, sl_error *err)
{
    char *copy = sl_strdup(path);
    int rc = sl_fs_sync_dir(dirname(copy), err);
    sl_free(copy);
    return rc;
}

/* Large files (checkpoint state) bypass the page cache: O_DIRECT writes
** through an aligned buffer. Through the page cache every byte is copied
** into pages the kernel must first find, which on a virtual machine whose
** free memory the host takes back costs about 10 ms a megabyte of the
** writer's CPU (a 13 MB state file: 140 ms buffered, 11 ms direct, here);
** checkpoint files are rarely read back, so caching them is no loss. */
#define SL__DIRECT_MIN (1u << 20) /* smaller files are written as usual */
#define SL__DIRECT_ALIGN 4096u    /* buffer, offset and length alignment */
#define SL__DIRECT_BUF (1u << 20)

/* Write the first bytes of data (len) to fd, at its start, with O_DIRECT:
** how many were written (a multiple of SL__DIRECT_ALIGN, or len with the
** file then cut to len), 0 when the file system refuses O_DIRECT. fd is
** left at that offset without O_DIRECT; the caller writes the rest. */
static size_t sl__write_direct(int fd, const void *data, size_t len)
{
    int fl = fcntl(fd, F_GETFL);
    void *buf = NULL;
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_DIRECT) != 0)
        return 0;
    if (posix_memalign(&buf, SL__DIRECT_ALIGN, SL__DIRECT_BUF) != 0) {
        fcntl(fd, F_SETFL, fl);
        return 0;
    }
    size_t done = 0;
    bool all = false;
    while (done < len) {
        size_t n = len - done < SL__DIRECT_BUF ? len - done : SL__DIRECT_BUF;
        size_t padded = (n + SL__DIRECT_ALIGN - 1) & ~(size_t)(SL__DIRECT_ALIGN - 1);
        memcpy(buf, (const char *)data + done, n);
        memset((char *)buf + n, 0, padded - n); /* the last block's tail, cut below */
        ssize_t w;
        do
            w = pwrite(fd, buf, padded, (off_t)done);
        while (w < 0 && errno == EINTR);
        if (w != (ssize_t)padded)
            break; /* refused or short: the rest the usual way, from done */
        if (n < padded) { /* the end: cut the padding off */
            all = ftruncate(fd, (off_t)len) == 0;
            break;
        }
        done += n;
        all = done == len;
    }
    free(buf);
    if (all)
        done = len;
    else if (ftruncate(fd, (off_t)done) != 0)
        done = 0; /* start over from nothing */
    fcntl(fd, F_SETFL, fl);
    lseek(fd, (off_t)done, SEEK_SET);
    return done;
}

static int sl__write_replace(const char *path, const void *data, size_t len, bool sync_dir,
                             sl_error *err)
{
    char *tmp = sl_sprintf("%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        int rc = sl__io_error(err, "create file", tmp);
        sl_free(tmp);
        return rc;
    }
    if (fchmod(fd, 0600) != 0) { /* a leftover tmp keeps its mode: the rename would too */
        sl__io_error(err, "change the mode of file", tmp);
        close(fd);
        unlink(tmp);
        sl_free(tmp);
        return -1;
    }
    size_t done = len >= SL__DIRECT_MIN ? sl__write_direct(fd, data, len) : 0;
    const char *p = (const char *)data + done;
    size_t left = len - done;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            sl__io_error(err, "write file", tmp);
            close(fd);
            unlink(tmp);
            sl_free(tmp);
            return -1;
        }
        p += w;
        left -= (size_t)w;
    }
    if (len >= SL__DIRECT_MIN && ftruncate(fd, (off_t)len) != 0) { /* no direct padding left */
        sl__io_error(err, "truncate file", tmp);
        close(fd);
        unlink(tmp);
        sl_free(tmp);
        return -1;
    }
    if (fsync(fd) != 0) {
        sl__io_error(err, "fsync file", tmp);
        close(fd);
        unlink(tmp);
        sl_free(tmp);
        return -1;
    }
    close(fd);
    if (rename(tmp, path) != 0) {
        sl__io_error(err, "rename file", tmp);
        unlink(tmp);
        sl_free(tmp);
        return -1;
    }
    sl_free(tmp);
    return sync_dir ? sl__fsync_dir_of(path, err) : 0;
}

int sl_fs_write_atomic(const char *path, const void *data, size_t len, sl_error *err)
{
    return sl__write_replace(path, data, len, true, err);
}

int sl_fs_write_replace(const char *path, const void *data, size_t len, sl_error *err)
{
    return sl__write_replace(path, data, len, false, err);
}

int sl_fs_read_file(const char *path, char **out, size_t *len, sl_error *err)
{
    *out = NULL;
    if (len)
        *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sl__io_error(err, "open file", path);
    sl_strbuf sb = SL_STRBUF_INIT;
    char buf[65536];
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            sl__io_error(err, "read file", path);
            close(fd);
            sl_strbuf_free(&sb);
            return -1;
        }
        if (r == 0)
            break;
        sl_strbuf_append_n(&sb, buf, (size_t)r);
    }
    close(fd);
    if (len)
        *len = sb.len;
    *out = sl_strbuf_detach(&sb);
    return 0;
}

int sl_fs_mkdir_p(const char *path, sl_error *err)
{
    return sl_fs_mkdir_mode(path, 0755, err);
}

int sl_fs_mkdir_mode(const char *path, unsigned mode, sl_error *err)
{
    if (!path[0])
        return sl_error_set(err, SL_ERR_IO, -1, "could not create directory: the name is empty");
    char *p = sl_strdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            int rc = sl__io_error(err, "create directory", p);
            sl_free(p);
            return rc;
        }
        *s = '/';
    }
    if (mkdir(p, (mode_t)mode) != 0 && errno != EEXIST) {
        int rc = sl__io_error(err, "create directory", p);
        sl_free(p);
        return rc;
    }
    sl_free(p);
    if (!sl_fs_is_dir(path))
        return sl_error_set(err, SL_ERR_IO, -1, "\"%s\" exists but is not a directory", path);
    return 0;
}

bool sl_fs_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

bool sl_fs_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int sl_fs_lock(const char *path, const char *what, int *fd, sl_error *err)
{
    *fd = -1;
    int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (f < 0)
        return sl__io_error(err, "open lock file", path);
    if (flock(f, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        char pid[32] = "";
        ssize_t n = pread(f, pid, sizeof pid - 1, 0);
        close(f);
        if (e != EWOULDBLOCK) {
            errno = e;
            return sl__io_error(err, "lock", path);
        }
        pid[n > 0 ? n : 0] = 0;
        pid[strcspn(pid, "\n")] = 0;
        sl_error_set(err, SL_ERR_OBJECT_IN_USE, -1, "%s is in use by another sluice process%s%s%s",
                     what, pid[0] ? " (pid " : "", pid, pid[0] ? ")" : "");
        sl_error_hint(err, "Only one process may use a data directory at a time. Stop the other "
                           "process, or use another --data-dir.");
        return -1;
    }
    char pid[32];
    int len = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    if (ftruncate(f, 0) != 0 || pwrite(f, pid, (size_t)len, 0) != len) {
        sl__io_error(err, "write lock file", path);
        close(f);
        return -1;
    }
    *fd = f;
    return 0;
}

void sl_fs_unlock(int fd)
{
    if (fd >= 0)
        close(fd);
}

static int sl__rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return (flag == FTW_DP ? rmdir(path) : unlink(path)) == 0 || errno == ENOENT ? 0 : -1;
}

int sl_fs_remove_tree(const char *path, sl_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : sl__io_error(err, "stat", path);
    if (nftw(path, sl__rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        return sl__io_error(err, "remove", path);
    return 0;
}

int sl_fs_sync_dir(const char *dir, sl_error *err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return sl__io_error(err, "open directory", dir);
    int rc = 0;
    if (fsync(fd) != 0 && errno != EINVAL)
        rc = sl__io_error(err, "fsync directory", dir);
    close(fd);
    return rc;
}

char *sl_path_join(const char *a, const char *b)
{
    size_t la = strlen(a);
    if (la > 0 && a[la - 1] == '/')
        return sl_sprintf("%s%s", a, b);
    return sl_sprintf("%s/%s", a, b);
}

/* ------------------------------------------------------------------------
** Text helpers
*/

void sl_text_linecol(const char *text, size_t offset, int *line, int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < offset && text[i]; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

int sl_strcasecmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = tolower((unsigned char)*a), cb = tolower((unsigned char)*b);
        if (ca != cb || !ca)
            return ca - cb;
    }
}

int sl_strncasecmp(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int ca = tolower((unsigned char)a[i]), cb = tolower((unsigned char)b[i]);
        if (ca != cb || !ca)
            return ca - cb;
    }
    return 0;
}

int sl_hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

size_t sl_utf8_count(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

size_t sl_utf8_skip(const char *s, size_t len, size_t k)
{
    size_t i = 0;
    while (k > 0 && i < len) {
        unsigned char c = (unsigned char)s[i];
        i += c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF8 ? 4 : 1;
        k--;
    }
    return i < len ? i : len;
}

int64_t sl_utf8_invalid(const char *s, size_t len)
{
    const unsigned char *z = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        unsigned char c = z[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t n;
        unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
        if (c >= 0xC2 && c <= 0xDF)
            n = 2;
        else if (c >= 0xE0 && c <= 0xEF) {
            n = 3;
            if (c == 0xE0)
                lo = 0xA0; /* overlong */
            else if (c == 0xED)
                hi = 0x9F; /* surrogates */
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 4;
            if (c == 0xF0)
                lo = 0x90; /* overlong */
            else if (c == 0xF4)
                hi = 0x8F; /* past U+10FFFF */
        } else {
            return (int64_t)i;
        }
        for (size_t k = 1; k < n; k++) {
            if (i + k >= len)
                return (int64_t)i; /* truncated sequence */
            unsigned char d = z[i + k];
            if (k == 1 ? (d < lo || d > hi) : (d < 0x80 || d > 0xBF))
                return (int64_t)i;
        }
        i += n;
    }
    return -1;
}

uint64_t sl_hash_bytes(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

int sl_edit_distance(const char *a, const char *b, int cap)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 256 || lb > 256)
        return cap + 1;
    if ((int)(la > lb ? la - lb : lb - la) > cap)
        return cap + 1;
    int prev[257], cur[257];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        int rowmin = cur[0];
        for (size_t j = 1; j <= lb; j++) {
            int cost = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 0 : 1;
            int v = prev[j - 1] + cost;
            if (prev[j] + 1 < v)
                v = prev[j] + 1;
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            cur[j] = v;
            if (v < rowmin)
                rowmin = v;
        }
        if (rowmin > cap)
            return cap + 1;
        memcpy(prev, cur, (lb + 1) * sizeof(int));
    }
    return prev[lb] > cap ? cap + 1 : prev[lb];
}

const char *sl_did_you_mean(const char *word, const char *const *candidates, int n)
{
    int limit = (int)strlen(word) / 3;
    if (limit < 1)
        limit = 1;
    const char *best = NULL;
    int best_d = limit + 1;
    for (int i = 0; i < n; i++) {
        int d = sl_edit_distance(word, candidates[i], limit);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    return best;
}

/* ------------------------------------------------------------------------
** Logging
*/

static int sl__log_default = SL_LOG_WARN;
static bool sl__log_timestamps;

void sl_log_configure(sl_log_level default_level, bool timestamps)
{
    sl__log_default = (int)default_level;
    sl__log_timestamps = timestamps;
}

static int sl__log_threshold(void)
{
    static int level = -1;
    if (level < 0) {
        const char *v = getenv("SLUICE_LOG");
        level = sl__log_default;
        if (v) {
            if (!sl_strcasecmp(v, "error"))
                level = SL_LOG_ERROR;
            else if (!sl_strcasecmp(v, "warn"))
                level = SL_LOG_WARN;
            else if (!sl_strcasecmp(v, "info"))
                level = SL_LOG_INFO;
            else if (!sl_strcasecmp(v, "debug"))
                level = SL_LOG_DEBUG;
        }
    }
    return level;
}

void sl_log(sl_log_level level, const char *fmt, ...)
{
    static const char *const names[] = {"ERROR", "WARN", "INFO", "DEBUG"};
    if ((int)level > sl__log_threshold())
        return;
    /* One line, one write: lines of several threads never interleave. */
    char line[4096];
    size_t n = 0;
    if (sl__log_timestamps) {
        struct timespec ts;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &ts);
        gmtime_r(&ts.tv_sec, &tm);
        n = strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%S", &tm);
        n += (size_t)snprintf(line + n, sizeof line - n, ".%03ldZ ", ts.tv_nsec / 1000000);
    }
    n += (size_t)snprintf(line + n, sizeof line - n, "sluice [%s] ", names[level]);
    va_list ap;
    va_start(ap, fmt);
    if (n < sizeof line)
        n += (size_t)vsnprintf(line + n, sizeof line - n, fmt, ap);
    va_end(ap);
    if (n > sizeof line - 2)
        n = sizeof line - 2;
    line[n++] = '\n';
    fwrite(line, 1, n, stderr);
}
