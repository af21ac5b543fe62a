/*
** checkpoint.c — checkpoint storage in the data directory (see sl_exec.h).
**
**   jobs/<job>/chk-<N>/state-<name>   state blobs, each written atomically
**   jobs/<job>/chk-<N>/_metadata      written last: it makes chk-<N> a checkpoint
**   jobs/<job>/_latest                the newest sealed N, written after _metadata
**
** Job and state names are used in file names with every byte outside
** [A-Za-z0-9._-] written as %XX, so any name is safe and distinct.
**
** Integrity (DESIGN.md section 10): _metadata (format version 2) lists every
** state file with its size and XXH3 checksum and carries a checksum of its
** own bytes (sl_checksum_embed). sl_chk_latest refuses a newest checkpoint
** whose _metadata is damaged or whose state files are missing or of the
** wrong size, and sl_chk_read_state refuses a state file whose checksum does
** not match: both XX001 naming the checkpoint and the file. Never an older
** checkpoint instead: resuming from one would commit again epochs the sinks
** already hold. Version 1 (before checksums) is still read, unverified.
** Writers of one checkpoint may be several tasks at once (a mutex guards the
** list of files written per checkpoint).
**
** Times in _metadata: "time", when it was sealed, and "triggered", when
** the coordinator triggered it (the barrier left the sources; RECONCILE's
** commit_boundary dates a Kafka transaction's epoch by it). Checkpoints
** sealed before "triggered" was recorded, and those sealed at recovery
** (sl_chk_seal_existing: the trigger is not known any more), lack it.
**
** Storage: the data directory's files by default; a store opened at
** another location ('execution.checkpointing.dir') keeps the same layout
** there, <dir>/<job>/chk-<N>/..., in a local directory or in the storage of
** a scheme the connectors registered (sl_chk_fs: s3://). Every read and
** write goes through the few routines of "Storage" below, so the format and
** its checks are one whatever holds the bytes. A registered storage has no
** directories and no fsync: each object is written whole (S3's PUT is
** atomic and durable once answered), and a "directory" is a key prefix.
**
** Main routines: sl_chk_open, sl_chk_write_state, sl_chk_seal,
** sl_chk_seal_existing, sl_chk_latest, sl_chk_read_state, sl_chk_times,
** sl_chk_prune.
*/
#include "sl_exec.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SL_CHK_FORMAT "sluice-checkpoint"
#define SL_CHK_VERSION 2 /* 2: checksums; 1: none (still read) */
#define SL_CHK_LATEST "_latest" /* in the job's directory: the newest sealed checkpoint */
#define SL_CHK_LATEST_FORMAT "sluice-latest-checkpoint"

/* The hint of every damaged or missing checkpoint. */
static const char sl__no_fallback[] =
    "An older checkpoint is not used instead: the sinks may already hold what came after it, "
    "which would be written again. Restore the checkpoint directory from a copy, or start the "
    "job afresh under a new 'pipeline.name' (from a savepoint with 'execution.savepoint.path').";

/* A state file of a checkpoint being written. */
typedef struct sl__file {
    char *name;    /* "state-<safe name>" */
    uint64_t size; /* bytes */
    uint64_t sum;  /* sl_checksum of them */
} sl__file;

typedef struct sl__pending {
    int64_t id;      /* checkpoint */
    sl_list *files;  /* sl__file*: state files written for it */
    bool unsynced;   /* the directory has renames not yet fsynced (sl_chk_sync) */
} sl__pending;

/* A checkpoint's _metadata as read and checked (sl__meta_load). */
typedef struct sl__meta {
    json_t *root;    /* the document */
    int version;     /* 1 or 2 */
    bool savepoint;  /* a savepoint */
    json_t *files;   /* its "files" array (borrowed from root) */
} sl__meta;

struct sl_chk_store {
    char *dir;          /* data_dir/jobs/<job>, <checkpoint dir>/<job>, or its URI */
    char *job;          /* the job's name */
    const sl_chk_fs *fs;/* the registered storage of dir's scheme; NULL = local files */
    void *ctx;          /* its client (fs->open) */
    pthread_mutex_t mu; /* guards pending */
    sl_list *pending;   /* sl__pending*: checkpoints being written */
};

/* ------------------------------------------------------------------------
** Storage: local files, or a registered scheme's (sl_chk_fs).
*/
#define SL__MAX_FS 8
static pthread_mutex_t sl__fs_mu = PTHREAD_MUTEX_INITIALIZER;
static const sl_chk_fs *sl__fs_table[SL__MAX_FS];
static int sl__nfs;

void sl_chk_fs_register(const sl_chk_fs *fs)
{
    pthread_mutex_lock(&sl__fs_mu);
    bool known = false;
    for (int i = 0; i < sl__nfs; i++)
        known |= strcmp(sl__fs_table[i]->scheme, fs->scheme) == 0;
    if (!known && SL_ALWAYS(sl__nfs < SL__MAX_FS))
        sl__fs_table[sl__nfs++] = fs;
    pthread_mutex_unlock(&sl__fs_mu);
}

/* Length of location's "<scheme>:" before "//" (0: a plain path). */
static size_t sl__scheme_len(const char *location)
{
    size_t n = 0;
    while ((location[n] >= 'a' && location[n] <= 'z') || (location[n] >= '0' && location[n] <= '9'))
        n++;
    return n > 0 && strncmp(location + n, "://", 3) == 0 ? n : 0;
}

int sl_chk_fs_find(const char *location, const sl_chk_fs **fs, sl_error *err)
{
    *fs = NULL;
    size_t n = sl__scheme_len(location);
    if (n == 0 || (n == 4 && strncmp(location, "file", 4) == 0))
        return 0;
    pthread_mutex_lock(&sl__fs_mu);
    for (int i = 0; i < sl__nfs && !*fs; i++) {
        const char *sch = sl__fs_table[i]->scheme; /* "s3" or "s3,s3a,s3p" */
        for (const char *p = sch; *p && !*fs;) {
            size_t k = strcspn(p, ",");
            if (k == n && strncmp(p, location, n) == 0)
                *fs = sl__fs_table[i];
            p += k + (p[k] == ',');
        }
    }
    pthread_mutex_unlock(&sl__fs_mu);
    if (!*fs) {
        sl_error_set(err, SL_ERR_NOT_SUPPORTED, -1,
                     "checkpoints cannot be stored at \"%s\": no storage for scheme \"%.*s\"",
                     location, (int)n, location);
        sl_error_hint(err, "Use a local directory, or s3://bucket/path.");
        return -1;
    }
    return 0;
}

/* location without a "file://" scheme (a local path); borrowed. */
static const char *sl__local_path(const char *location)
{
    return strncmp(location, "file://", 7) == 0 ? location + 7 : location;
}

void sl_chk_entry_free(void *p)
{
    sl_chk_entry *e = p;
    sl_free(e->name);
    sl_free(e);
}

/* Bytes of the files under path (local), 0 when unreadable. */
static int64_t sl__dir_bytes(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int64_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *p = sl_path_join(path, e->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0)
            n += S_ISDIR(sb.st_mode) ? sl__dir_bytes(p) : (int64_t)sb.st_size;
        sl_free(p);
    }
    closedir(d);
    return n;
}

/* Write path whole. Local: atomically (temp, fsync, rename), and with
** later_sync the directory's fsync is left to sl__sync_dir. */
static int sl__put(const sl_chk_store *st, const char *path, const void *data, size_t len,
                   bool later_sync, sl_error *err)
{
    if (st->fs)
        return st->fs->put(st->ctx, path, data, len, err);
    return later_sync ? sl_fs_write_replace(path, data, len, err)
                      : sl_fs_write_atomic(path, data, len, err);
}

/* Read path whole: *found = false (and 0) when it does not exist. */
static int sl__get(const sl_chk_store *st, const char *path, char **data, size_t *len,
                   bool *found, sl_error *err)
{
    *data = NULL;
    *len = 0;
    if (st->fs)
        return st->fs->get(st->ctx, path, data, len, found, err);
    *found = sl_fs_exists(path);
    return *found ? sl_fs_read_file(path, data, len, err) : 0;
}

/* The entries directly under dir (sl_chk_entry *) appended to out; *exists
** = false when there is no dir. A local directory's size is not walked
** here (0): every checkpoint lists the job's directory, and only
** sl_chk_bytes wants the sizes under a chk-<N>. */
static int sl__list(const sl_chk_store *st, const char *dir, sl_list *out, bool *exists,
                    sl_error *err)
{
    if (st->fs)
        return st->fs->list(st->ctx, dir, out, exists, err);
    DIR *d = opendir(dir);
    *exists = d != NULL;
    if (!d && !sl_fs_exists(dir))
        return 0;
    if (!d)
        return sl_error_set(err, SL_ERR_IO, -1, "could not open directory \"%s\"", dir);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char *p = sl_path_join(dir, de->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0) {
            sl_chk_entry *e = sl_calloc(1, sizeof *e);
            e->name = sl_strdup(de->d_name);
            e->dir = S_ISDIR(sb.st_mode);
            e->size = e->dir ? 0 : (int64_t)sb.st_size; /* sl_chk_bytes walks directories */
            sl_list_push(out, e);
        }
        sl_free(p);
    }
    closedir(d);
    return 0;
}

static int sl__remove_tree(const sl_chk_store *st, const char *dir, sl_error *err)
{
    return st->fs ? st->fs->remove_tree(st->ctx, dir, err) : sl_fs_remove_tree(dir, err);
}

/* A new store of location dir (a local path, or a URI of a registered
** scheme opened with opts). */
static int sl__store_new(const char *dir, const char *job, const sl_kvlist *opts,
                         sl_chk_store **out, sl_error *err)
{
    *out = NULL;
    const sl_chk_fs *fs = NULL;
    if (sl_chk_fs_find(dir, &fs, err) != 0)
        return -1;
    void *ctx = NULL;
    if (fs && !(ctx = fs->open(dir, opts, err)))
        return -1;
    sl_chk_store *st = sl_calloc(1, sizeof *st);
    st->dir = sl_strdup(fs ? dir : sl__local_path(dir));
    for (size_t n = strlen(st->dir); n > 1 && st->dir[n - 1] == '/' &&
                                     (!fs || n > sl__scheme_len(dir) + 3);
         n--)
        st->dir[n - 1] = '\0';
    st->job = sl_strdup(job);
    st->fs = fs;
    st->ctx = ctx;
    pthread_mutex_init(&st->mu, NULL);
    st->pending = sl_list_new();
    *out = st;
    return 0;
}

bool sl_chk_is_local(const sl_chk_store *st)
{
    return st->fs == NULL;
}

/* name with bytes outside [A-Za-z0-9._-] as %XX; caller frees */
static char *sl__safe_name(const char *name)
{
    sl_strbuf sb = SL_STRBUF_INIT;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                     (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-';
        if (plain && !(p == (const unsigned char *)name && *p == '.'))
            sl_strbuf_append_char(&sb, (char)*p);
        else
            sl_strbuf_appendf(&sb, "%%%02X", *p);
    }
    return sl_strbuf_detach(&sb);
}

int sl_job_name_check(const char *name, int pos, sl_error *err)
{
    static const char where[] = "A job's name is its identity: its checkpoints and its record "
                                "live in jobs/<name>/ of the data directory.";
    size_t len = strlen(name), file = 0;
    if (len == 0) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, pos, "a job name must not be empty");
        sl_error_detail(err, "%s", where);
        sl_error_hint(err, "RESET 'pipeline.name' to have a name derived from the statement, "
                           "or SET it to a name of your own.");
        return -1;
    }
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, pos, "\"%s\" is not a valid job name", name);
        sl_error_detail(err, "%s", where);
        return -1;
    }
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                     (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-';
        file += plain ? 1 : 3;
        if (*p == '/' || *p < 0x20 || *p == 0x7f) {
            sl_error_set(err, SL_ERR_INVALID_PARAMETER, pos,
                         "a job name must not contain %s (byte %d is 0x%02X)",
                         *p == '/' ? "'/'" : "control characters",
                         (int)(p - (const unsigned char *)name) + 1, *p);
            sl_error_detail(err, "%s", where);
            return -1;
        }
    }
    if (file > SL_JOB_NAME_MAX) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, pos, "job name is too long (%zu bytes)", len);
        sl_error_detail(err, "A job name may take at most %d bytes as a file name: letters, "
                             "digits, '.', '_' and '-' take one, any other byte three (%%XX).",
                        SL_JOB_NAME_MAX);
        return -1;
    }
    return 0;
}

char *sl_chk_job_dir(const char *data_dir, const char *job)
{
    /* The empty name would be jobs/ itself: "%" cannot be any other name's
    ** file name (an escape is always % and two hex digits). Names are
    ** checked before they get here (sl_job_name_check); this keeps a path
    ** inside jobs/<one directory>/ whatever a caller passes. */
    char *safe = job[0] ? sl__safe_name(job) : sl_strdup("%");
    char *jobs = sl_path_join(data_dir, "jobs");
    char *dir = sl_path_join(jobs, safe);
    sl_free(jobs);
    sl_free(safe);
    return dir;
}

char *sl_chk_location(const char *data_dir, const char *base, const char *job)
{
    if (!base)
        return sl_chk_job_dir(data_dir, job);
    char *safe = job[0] ? sl__safe_name(job) : sl_strdup("%");
    size_t n = strlen(base);
    while (n > 1 && base[n - 1] == '/')
        n--;
    char *dir = sl_sprintf("%.*s/%s", (int)n, base, safe);
    sl_free(safe);
    return dir;
}

int sl_chk_open_at(const char *data_dir, const char *base, const sl_kvlist *opts,
                   const char *job, sl_chk_store **out, sl_error *err)
{
    *out = NULL;
    /* Escaping makes '/', '.' and control bytes safe; an empty name or one
    ** too long for a file name cannot be. */
    if (!job[0] || strlen(job) > SL_JOB_NAME_MAX) {
        sl_job_name_check(job, -1, err);
        return -1;
    }
    char *dir = sl_chk_location(data_dir, base, job);
    int rc = sl__store_new(dir, job, opts, out, err);
    sl_free(dir);
    if (rc == 0 && !(*out)->fs && sl_fs_mkdir_p((*out)->dir, err) != 0) {
        sl_chk_close(*out);
        *out = NULL;
        rc = -1;
    }
    return rc;
}

int sl_chk_open(const char *data_dir, const char *job, sl_chk_store **out, sl_error *err)
{
    return sl_chk_open_at(data_dir, NULL, NULL, job, out, err);
}

static void sl__file_free(void *p)
{
    sl__file *f = p;
    sl_free(f->name);
    sl_free(f);
}

static void sl__pending_free(void *p)
{
    sl__pending *pd = p;
    sl_list_free(pd->files, sl__file_free);
    sl_free(pd);
}

/* Add (or replace) a state file of pending checkpoint pd; takes name. */
static void sl__pending_add(sl__pending *pd, char *name, uint64_t size, uint64_t sum)
{
    sl__file *f = NULL;
    for (int i = 0; i < pd->files->n && !f; i++)
        if (strcmp(((sl__file *)pd->files->items[i])->name, name) == 0)
            f = pd->files->items[i];
    if (f) {
        sl_free(name);
    } else {
        f = sl_calloc(1, sizeof *f);
        f->name = name;
        sl_list_push(pd->files, f);
    }
    f->size = size;
    f->sum = sum;
}

void sl_chk_close(sl_chk_store *st)
{
    if (!st)
        return;
    sl_list_free(st->pending, sl__pending_free);
    if (st->fs)
        st->fs->close(st->ctx);
    pthread_mutex_destroy(&st->mu);
    sl_free(st->dir);
    sl_free(st->job);
    sl_free(st);
}

char *sl_chk_path(const sl_chk_store *st, int64_t id)
{
    return sl_sprintf("%s/chk-%lld", st->dir, (long long)id);
}

/* The pending record of checkpoint id (created); call with mu held. */
static sl__pending *sl__pending_of(sl_chk_store *st, int64_t id)
{
    for (int i = 0; i < st->pending->n; i++) {
        sl__pending *pd = st->pending->items[i];
        if (pd->id == id)
            return pd;
    }
    sl__pending *pd = sl_calloc(1, sizeof *pd);
    pd->id = id;
    pd->files = sl_list_new();
    sl_list_push(st->pending, pd);
    return pd;
}

int sl_chk_write_state(sl_chk_store *st, int64_t id, const char *name, const void *data,
                       size_t len, sl_error *err)
{
    char *dir = sl_chk_path(st, id);
    char *safe = sl__safe_name(name);
    char *file = sl_sprintf("state-%s", safe);
    char *path = sl_path_join(dir, file);
    int rc = st->fs ? 0 : sl_fs_mkdir_p(dir, err);
    if (rc == 0)
        rc = sl__put(st, path, data, len, true, err); /* the directory: sl_chk_sync */
    if (rc == 0) {
        uint64_t sum = sl_checksum(data, len);
        pthread_mutex_lock(&st->mu);
        sl__pending *pd = sl__pending_of(st, id);
        sl__pending_add(pd, sl_strdup(file), len, sum);
        pd->unsynced = true;
        pthread_mutex_unlock(&st->mu);
    }
    sl_free(path);
    sl_free(file);
    sl_free(safe);
    sl_free(dir);
    return rc;
}

/* Write jobs/<job>/_latest naming checkpoint id, after its _metadata: the
** newest checkpoint sealed, so that one deleted later (its directory, or its
** _metadata) is reported as missing instead of passed over. A crash before
** this write leaves the previous id in it, which the newer sealed checkpoint
** then overrides. */
static int sl__latest_write(const sl_chk_store *st, int64_t id, sl_error *err)
{
    char *text = sl_sprintf("{\"format\": \"%s\", \"checkpoint\": %lld, \"%s\": \"%s\"}\n",
                            SL_CHK_LATEST_FORMAT, (long long)id, SL_CHECKSUM_KEY,
                            SL_CHECKSUM_ZERO);
    char *path = sl_path_join(st->dir, SL_CHK_LATEST);
    int rc = sl_checksum_embed(text, strlen(text));
    if (SL_ALWAYS(rc == 0))
        rc = sl__put(st, path, text, strlen(text), false, err);
    sl_free(path);
    sl_free(text);
    return rc;
}

/* Read jobs/<job>/_latest: 0 with *id (-1 when there is none, as in a job
** directory from before it existed), or -1 with XX001 when it is damaged. */
static int sl__latest_read(const sl_chk_store *st, int64_t *id, sl_error *err)
{
    *id = -1;
    char *path = sl_path_join(st->dir, SL_CHK_LATEST);
    char *text = NULL;
    size_t len = 0;
    bool found = false;
    int rc = sl__get(st, path, &text, &len, &found, err);
    if (rc == 0 && found) {
        json_error_t jerr;
        json_t *o = sl_checksum_verify(text, len) == 1 ? json_loadb(text, len, 0, &jerr) : NULL;
        json_t *fmt = json_object_get(o, "format"), *chk = json_object_get(o, "checkpoint");
        if (json_is_string(fmt) && strcmp(json_string_value(fmt), SL_CHK_LATEST_FORMAT) == 0 &&
            json_is_integer(chk) && json_integer_value(chk) >= 0) {
            *id = json_integer_value(chk);
        } else {
            rc = sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                              "the record of job \"%s\"'s newest checkpoint is damaged",
                              st->job);
            sl_error_detail(err, "File: %s. Its checksum does not match, or it does not parse.",
                            path);
            sl_error_hint(err, "Remove the file to resume from the newest checkpoint present, "
                               "if you know it is the newest the job took.");
        }
        json_decref(o);
    }
    sl_free(text);
    sl_free(path);
    return rc;
}

static int sl__xdigit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* "%016llx" of a checksum. */
static void sl__hex(uint64_t v, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)v);
}

int sl_chk_sync(sl_chk_store *st, int64_t id, sl_error *err)
{
    pthread_mutex_lock(&st->mu);
    sl__pending *pd = sl__pending_of(st, id);
    bool unsynced = pd->unsynced;
    pd->unsynced = false;
    pthread_mutex_unlock(&st->mu);
    if (!unsynced || st->fs) /* a registered storage's objects are durable once written */
        return 0;
    char *dir = sl_chk_path(st, id);
    int rc = sl_fs_sync_dir(dir, err);
    sl_free(dir);
    if (rc != 0) { /* still to do */
        pthread_mutex_lock(&st->mu);
        sl__pending_of(st, id)->unsynced = true;
        pthread_mutex_unlock(&st->mu);
    }
    return rc;
}

int sl_chk_seal(sl_chk_store *st, int64_t id, bool savepoint, int64_t triggered_ns,
                int64_t time_ns, sl_error *err)
{
    char *dir = sl_chk_path(st, id);
    int rc = st->fs ? 0 : sl_fs_mkdir_p(dir, err);
    if (rc == 0)
        rc = sl_chk_sync(st, id, err); /* the state files before the _metadata naming them */
    int bad = 0; /* a Jansson call failed (allocation, or a name that is not UTF-8) */
    json_t *files = json_array();
    pthread_mutex_lock(&st->mu);
    for (int i = 0; i < st->pending->n; i++) {
        sl__pending *pd = st->pending->items[i];
        if (pd->id != id)
            continue;
        for (int f = 0; f < pd->files->n; f++) {
            const sl__file *sf = pd->files->items[f];
            char hex[17];
            sl__hex(sf->sum, hex);
            json_t *o = json_object();
            bad |= json_object_set_new(o, "name", json_string(sf->name));
            bad |= json_object_set_new(o, "size", json_integer((json_int_t)sf->size));
            bad |= json_object_set_new(o, "xxh3", json_string(hex));
            bad |= json_array_append_new(files, o);
        }
        sl__pending_free(pd);
        memmove(&st->pending->items[i], &st->pending->items[i + 1],
                (size_t)(st->pending->n - i - 1) * sizeof(void *));
        st->pending->n--;
        break;
    }
    pthread_mutex_unlock(&st->mu);
    json_t *meta = json_object();
    bad |= json_object_set_new(meta, "format", json_string(SL_CHK_FORMAT));
    bad |= json_object_set_new(meta, "version", json_integer(SL_CHK_VERSION));
    bad |= json_object_set_new(meta, "job", json_string(st->job));
    bad |= json_object_set_new(meta, "checkpoint", json_integer(id));
    bad |= json_object_set_new(meta, "savepoint", json_boolean(savepoint));
    bad |= json_object_set_new(meta, "time", json_integer(time_ns));
    if (triggered_ns > 0) /* not known for a checkpoint sealed at recovery */
        bad |= json_object_set_new(meta, "triggered", json_integer(triggered_ns));
    bad |= json_object_set_new(meta, "files", files);
    bad |= json_object_set_new(meta, SL_CHECKSUM_KEY, json_string(SL_CHECKSUM_ZERO));
    char *text = bad ? NULL : json_dumps(meta, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(meta);
    if (rc == 0 && (!text || sl_checksum_embed(text, strlen(text)) != 0)) {
        rc = sl_error_set(err, SL_ERR_INTERNAL, -1,
                          "could not encode the _metadata of checkpoint %lld of job \"%s\"",
                          (long long)id, st->job);
        sl_error_detail(err, "A name in it is not valid UTF-8, or memory ran out.");
    }
    if (rc == 0) {
        char *path = sl_path_join(dir, "_metadata");
        rc = sl__put(st, path, text, strlen(text), false, err);
        sl_free(path);
    }
    if (rc == 0)
        rc = sl__latest_write(st, id, err);
    free(text);
    sl_free(dir);
    return rc;
}

int sl_chk_seal_existing(sl_chk_store *st, int64_t id, int64_t time_ns, sl_error *err)
{
    char *dir = sl_chk_path(st, id);
    sl_list *ents = sl_list_new();
    bool exists = false;
    int rc = sl__list(st, dir, ents, &exists, err);
    if (rc == 0 && !exists)
        rc = sl_error_set(err, SL_ERR_UNDEFINED_FILE, -1,
                          "checkpoint directory \"%s\" does not exist", dir);
    /* Every state file was durable before the decision: checksum what is there. */
    sl_list *files = sl_list_new();
    for (int i = 0; rc == 0 && i < ents->n; i++) {
        const sl_chk_entry *e = ents->items[i];
        size_t n = strlen(e->name);
        if (e->dir || strncmp(e->name, "state-", 6) != 0 ||
            (n > 4 && !strcmp(e->name + n - 4, ".tmp")))
            continue; /* not a state file, or one a crash left half-written */
        char *path = sl_path_join(dir, e->name), *data = NULL;
        size_t len = 0;
        bool found = false;
        rc = sl__get(st, path, &data, &len, &found, err);
        if (rc == 0 && found) {
            sl__file *f = sl_calloc(1, sizeof *f);
            f->name = sl_strdup(e->name);
            f->size = len;
            f->sum = sl_checksum(data, len);
            sl_list_push(files, f);
        }
        sl_free(data);
        sl_free(path);
    }
    sl_list_free(ents, sl_chk_entry_free);
    sl_free(dir);
    if (rc != 0) {
        sl_list_free(files, sl__file_free);
        return -1;
    }
    pthread_mutex_lock(&st->mu);
    sl__pending *pd = sl__pending_of(st, id);
    sl_list_free(pd->files, sl__file_free);
    pd->files = files;
    pthread_mutex_unlock(&st->mu);
    return sl_chk_seal(st, id, false, 0, time_ns, err);
}

/* Parse "chk-<N>"; -1 if the name is not one. */
static int64_t sl__chk_id(const char *name)
{
    if (strncmp(name, "chk-", 4) != 0 || !name[4])
        return -1;
    char *end = NULL;
    long long v = strtoll(name + 4, &end, 10);
    return *end || v < 0 ? -1 : v;
}

/* XX001 for checkpoint id of st: "checkpoint N of job "j" is damaged: <what>",
** detail naming the file and what was found, and the hint of what to do. */
static int sl__damaged(const sl_chk_store *st, int64_t id, const char *file, sl_error *err,
                       const char *what, const char *found)
{
    char *dir = sl_chk_path(st, id);
    char *path = sl_path_join(dir, file);
    if (st->job[0])
        sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "checkpoint %lld of job \"%s\" is damaged: %s",
                     (long long)id, st->job, what);
    else
        sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1, "checkpoint %s is damaged: %s", dir, what);
    sl_error_detail(err, "File: %s. %s", path, found);
    sl_error_hint(err, "%s", sl__no_fallback);
    sl_free(path);
    sl_free(dir);
    return -1;
}

static void sl__meta_free(sl__meta *m)
{
    json_decref(m->root);
    memset(m, 0, sizeof *m);
}

/* Entry i of a checked "files" array: its name, and for version 2 its size
** and checksum (NULL for version 1). */
static const char *sl__meta_file(const sl__meta *m, size_t i, json_int_t *size, const char **sum)
{
    json_t *f = json_array_get(m->files, i);
    if (m->version == 1) {
        *size = -1;
        *sum = NULL;
        return json_string_value(f);
    }
    *size = json_integer_value(json_object_get(f, "size"));
    *sum = json_string_value(json_object_get(f, "xxh3"));
    return json_string_value(json_object_get(f, "name"));
}

/* Is entry f of a version-v "files" array well-formed? */
static bool sl__file_ok(const json_t *f, int v)
{
    if (v == 1)
        return json_is_string(f) && strncmp(json_string_value(f), "state-", 6) == 0 &&
               !strchr(json_string_value(f), '/');
    const json_t *name = json_object_get(f, "name"), *size = json_object_get(f, "size"),
                 *sum = json_object_get(f, "xxh3");
    return json_is_object(f) && json_is_string(name) &&
           strncmp(json_string_value(name), "state-", 6) == 0 &&
           !strchr(json_string_value(name), '/') && json_is_integer(size) &&
           json_integer_value(size) >= 0 && json_is_string(sum) &&
           strlen(json_string_value(sum)) == 16;
}

/* Read and check chk-<id>/_metadata: 1 loaded into *m, 0 there is none
** (not a checkpoint), -1 damaged (XX001 naming it) or unreadable. */
static int sl__meta_load(const sl_chk_store *st, int64_t id, sl__meta *m, sl_error *err)
{
    memset(m, 0, sizeof *m);
    char *dir = sl_chk_path(st, id);
    char *path = sl_path_join(dir, "_metadata");
    sl_free(dir);
    bool exists = false;
    char *text = NULL;
    size_t len = 0;
    int rc = sl__get(st, path, &text, &len, &exists, err);
    sl_free(path);
    if (!exists || rc != 0) {
        sl_free(text);
        return rc;
    }
    /* The checksum first: nothing in a damaged file is trusted, its version included. */
    int sum = sl_checksum_verify(text, len);
    json_error_t jerr;
    json_t *root = sum != 0 ? json_loadb(text, len, 0, &jerr) : NULL;
    sl_free(text);
    const char *why = NULL;
    json_t *fmt = json_object_get(root, "format"), *ver = json_object_get(root, "version");
    json_t *files = json_object_get(root, "files"), *chk = json_object_get(root, "checkpoint");
    json_int_t version = json_is_integer(ver) ? json_integer_value(ver) : 0;
    if (sum == 0)
        why = "its checksum does not match its contents";
    else if (!root)
        why = "it is not valid JSON";
    else if (!json_is_string(fmt) || strcmp(json_string_value(fmt), SL_CHK_FORMAT) != 0 ||
             !json_is_integer(ver))
        why = "it is not a checkpoint's _metadata";
    else if (version > SL_CHK_VERSION)
        why = "it was written by a newer version of Sluice";
    else if (version < 1 || (version >= 2) != (sum == 1))
        why = version >= 2  ? "it lacks its checksum"
              : version == 1 ? "a version 1 _metadata has no checksum"
                             : "it has an unknown format version";
    else if (!json_is_integer(chk) || json_integer_value(chk) != id)
        why = "it names another checkpoint";
    else if (!json_is_array(files) || !json_is_boolean(json_object_get(root, "savepoint")))
        why = "it lacks the list of state files";
    for (size_t i = 0; !why && i < json_array_size(files); i++)
        if (!sl__file_ok(json_array_get(files, i), (int)version))
            why = "an entry of its list of state files is malformed";
    if (why) {
        json_decref(root);
        char *found = sl_sprintf("It cannot be used: %s.", why);
        sl__damaged(st, id, "_metadata", err, "_metadata cannot be used", found);
        sl_free(found);
        return -1;
    }
    m->root = root;
    m->version = (int)version; /* 1 or 2 */
    m->savepoint = json_is_true(json_object_get(root, "savepoint"));
    m->files = files;
    return 1;
}

int sl_chk_times(sl_chk_store *st, int64_t id, int64_t *triggered_ns, int64_t *time_ns,
                 sl_error *err)
{
    *triggered_ns = *time_ns = 0;
    sl__meta m;
    int rc = sl__meta_load(st, id, &m, err);
    if (rc <= 0)
        return rc < 0 ? -1 : 0;
    json_t *t = json_object_get(m.root, "time"), *tr = json_object_get(m.root, "triggered");
    *time_ns = json_is_integer(t) ? json_integer_value(t) : 0;
    *triggered_ns = json_is_integer(tr) ? json_integer_value(tr) : 0;
    json_decref(m.root);
    return 1;
}

/* Every state file _metadata lists is there with its size. 0, or -1 with
** XX001 naming the first that is not. */
static int sl__files_present(const sl_chk_store *st, int64_t id, const sl__meta *m, sl_error *err)
{
    char *dir = sl_chk_path(st, id);
    sl_list *ents = sl_list_new();
    bool exists = false;
    int rc = sl__list(st, dir, ents, &exists, err);
    for (size_t i = 0; rc == 0 && i < json_array_size(m->files); i++) {
        json_int_t size;
        const char *sum;
        const char *name = sl__meta_file(m, i, &size, &sum);
        const sl_chk_entry *e = NULL;
        for (int k = 0; k < ents->n && !e; k++)
            if (strcmp(((sl_chk_entry *)ents->items[k])->name, name) == 0 &&
                !((sl_chk_entry *)ents->items[k])->dir)
                e = ents->items[k];
        if (!e) {
            char *what = sl_sprintf("state file \"%s\" is missing", name);
            rc = sl__damaged(st, id, name, err, what,
                             "_metadata lists it, but it does not exist.");
            sl_free(what);
        } else if (size >= 0 && (json_int_t)e->size != size) {
            char *what = sl_sprintf("state file \"%s\" has the wrong size", name);
            char *found = sl_sprintf("_metadata says %lld bytes; it has %lld.", (long long)size,
                                     (long long)e->size);
            rc = sl__damaged(st, id, name, err, what, found);
            sl_free(found);
            sl_free(what);
        }
    }
    sl_list_free(ents, sl_chk_entry_free);
    sl_free(dir);
    return rc;
}

/* Is chk-<id> sealed? 1 yes (with *savepoint), 0 no, -1 its _metadata is
** damaged (err set). */
static int sl__sealed(const sl_chk_store *st, int64_t id, bool *savepoint, sl_error *err)
{
    sl__meta m;
    int rc = sl__meta_load(st, id, &m, err);
    if (rc == 1)
        *savepoint = m.savepoint;
    sl__meta_free(&m);
    return rc;
}

/* Checkpoint ids present as chk-<N> directories, ascending. */
static int sl__list_ids(const sl_chk_store *st, int64_t **ids, int *n, sl_error *err)
{
    *ids = NULL;
    *n = 0;
    sl_list *ents = sl_list_new();
    bool exists = false;
    if (sl__list(st, st->dir, ents, &exists, err) != 0 ||
        (!exists && !st->fs && sl_error_set(err, SL_ERR_IO, -1,
                                            "could not open directory \"%s\"", st->dir))) {
        sl_list_free(ents, sl_chk_entry_free);
        return -1;
    }
    int cap = 0;
    for (int i = 0; i < ents->n; i++) {
        const sl_chk_entry *e = ents->items[i];
        int64_t id = e->dir ? sl__chk_id(e->name) : -1;
        if (id < 0)
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            *ids = sl_realloc(*ids, (size_t)cap * sizeof(int64_t));
        }
        (*ids)[(*n)++] = id;
    }
    sl_list_free(ents, sl_chk_entry_free);
    for (int i = 1; i < *n; i++) /* insertion sort: few entries */
        for (int j = i; j > 0 && (*ids)[j - 1] > (*ids)[j]; j--) {
            int64_t t = (*ids)[j];
            (*ids)[j] = (*ids)[j - 1];
            (*ids)[j - 1] = t;
        }
    return 0;
}

/* Whether two owner texts name the same owner: their first lines. */
static bool sl__same_owner(const char *a, const char *b)
{
    size_t n = strcspn(a, "\n");
    return n == strcspn(b, "\n") && strncmp(a, b, n) == 0;
}

int sl_chk_claim(sl_chk_store *st, const char *owner, char **holder, sl_error *err)
{
    *holder = NULL;
    char *path = sl_path_join(st->dir, "_owner");
    bool existed = false;
    int rc = 0;
    if (st->fs) {
        rc = st->fs->put_new(st->ctx, path, owner, strlen(owner), &existed, err);
    } else {
        /* Written whole under a name of its own, then linked: link() fails
        ** with EEXIST when another claim came first, atomically, and the
        ** file is never seen half-written. */
        char *tmp = sl_sprintf("%s.%d.tmp", path, (int)getpid());
        rc = sl_fs_write_atomic(tmp, owner, strlen(owner), err);
        if (rc == 0 && link(tmp, path) != 0) {
            if (errno == EEXIST)
                existed = true;
            else
                rc = sl_error_set(err, SL_ERR_IO, -1, "could not create \"%s\": %s", path,
                                  strerror(errno));
        } else if (rc == 0) {
            rc = sl_fs_sync_dir(st->dir, err);
        }
        unlink(tmp);
        sl_free(tmp);
    }
    if (rc == 0 && existed) {
        char *text = NULL;
        size_t len = 0;
        bool found = false;
        rc = sl__get(st, path, &text, &len, &found, err);
        if (rc == 0 && found && !sl__same_owner(text, owner)) {
            *holder = text;
            text = NULL;
            rc = 1;
        }
        sl_free(text);
    }
    sl_free(path);
    return rc;
}

int sl_chk_unclaim(sl_chk_store *st, sl_error *err)
{
    char *path = sl_path_join(st->dir, "_owner");
    int rc = sl__remove_tree(st, path, err);
    sl_free(path);
    return rc;
}

int sl_chk_ids(sl_chk_store *st, int64_t **ids, int *n, sl_error *err)
{
    return sl__list_ids(st, ids, n, err);
}

int sl_chk_latest(sl_chk_store *st, int64_t *id, sl_error *err)
{
    *id = -1;
    int64_t *ids;
    int n;
    if (sl__list_ids(st, &ids, &n, err) != 0)
        return -1;
    int rc = 0;
    for (int i = n - 1; i >= 0; i--) {
        sl__meta m;
        int r = sl__meta_load(st, ids[i], &m, err);
        if (r == 1) /* the newest checkpoint must be whole: never read past it */
            r = sl__files_present(st, ids[i], &m, err) == 0 ? 1 : -1;
        sl__meta_free(&m);
        if (r == 0)
            continue; /* no _metadata: an attempt, not a checkpoint */
        if (r == 1)
            *id = ids[i];
        rc = r < 0 ? -1 : 0;
        break;
    }
    sl_free(ids);
    /* The newest sealed checkpoint must not be older than the one recorded
    ** as sealed: a missing newer one (deleted, or its _metadata) is named. */
    int64_t recorded = -1;
    if (rc == 0 && sl__latest_read(st, &recorded, err) != 0)
        rc = -1;
    if (rc == 0 && recorded > *id) {
        char *dir = sl_chk_path(st, recorded), *path = sl_path_join(st->dir, SL_CHK_LATEST);
        sl_list *ents = sl_list_new();
        bool there = false;
        sl_error ignored = SL_ERROR_INIT;
        sl__list(st, dir, ents, &there, &ignored);
        sl_error_reset(&ignored);
        sl_list_free(ents, sl_chk_entry_free);
        rc = sl_error_set(err, SL_ERR_DATA_CORRUPTED, -1,
                          "checkpoint %lld of job \"%s\" is missing", (long long)recorded,
                          st->job);
        if (*id >= 0)
            sl_error_detail(err, "%s says it was sealed, but %s%s; the newest checkpoint present "
                                 "is %lld.", path, dir, there ? " has no _metadata"
                                                                         : " does not exist",
                            (long long)*id);
        else
            sl_error_detail(err, "%s says it was sealed, but %s%s; no checkpoint is present.",
                            path, dir, there ? " has no _metadata" : " does not exist");
        sl_error_hint(err, "%s", sl__no_fallback);
        *id = -1;
        sl_free(path);
        sl_free(dir);
    }
    return rc;
}

int sl_chk_read_state(sl_chk_store *st, int64_t id, const char *name, char **data, size_t *len,
                      sl_error *err)
{
    *data = NULL;
    *len = 0;
    char *dir = sl_chk_path(st, id);
    char *safe = sl__safe_name(name);
    char *file = sl_sprintf("state-%s", safe);
    char *path = sl_path_join(dir, file);
    sl__meta m;
    int rc = sl__meta_load(st, id, &m, err);
    /* Without _metadata (a checkpoint a participant decided before it was
    ** sealed: sl_chk_seal_existing) there is nothing to check against. */
    json_int_t size = -1;
    const char *sum = NULL;
    bool listed = rc == 0;
    for (size_t i = 0; rc == 1 && !listed && i < json_array_size(m.files); i++)
        listed = strcmp(sl__meta_file(&m, i, &size, &sum), file) == 0;
    if (rc >= 0 && !listed) {
        rc = sl_error_set(err, SL_ERR_UNDEFINED_FILE, -1, "checkpoint %s holds no state \"%s\"",
                          dir, name);
    } else if (rc >= 0) {
        bool there = false;
        rc = sl__get(st, path, data, len, &there, err);
        if (rc == 0 && !there && !m.root)
            rc = sl_error_set(err, SL_ERR_UNDEFINED_FILE, -1, "checkpoint %s holds no state \"%s\"",
                              dir, name);
        else if (rc == 0 && !there) {
            char *what = sl_sprintf("state file \"%s\" is missing", file);
            rc = sl__damaged(st, id, file, err, what,
                             "_metadata lists it, but it does not exist.");
            sl_free(what);
        } else if (rc == 0 && sum) {
            char hex[17];
            sl__hex(sl_checksum(*data, *len), hex);
            if ((json_int_t)*len != size || strcmp(hex, sum) != 0) {
                char *what = sl_sprintf("state file \"%s\" does not match its checksum", file);
                char *found = sl_sprintf("_metadata says %lld bytes with XXH3 %s; the file has "
                                         "%zu bytes with XXH3 %s.",
                                         (long long)size, sum, *len, hex);
                rc = sl__damaged(st, id, file, err, what, found);
                sl_free(found);
                sl_free(what);
                sl_free(*data);
                *data = NULL;
                *len = 0;
            }
        }
    }
    sl__meta_free(&m);
    sl_free(path);
    sl_free(file);
    sl_free(safe);
    sl_free(dir);
    return rc;
}

int64_t sl_chk_bytes(sl_chk_store *st, int64_t id)
{
    char *dir = sl_chk_path(st, id);
    if (!st->fs) { /* RocksDB's files-op-* directories included */
        int64_t n = sl__dir_bytes(dir);
        sl_free(dir);
        return n;
    }
    sl_list *ents = sl_list_new();
    bool exists = false;
    sl_error ignored = SL_ERROR_INIT;
    int64_t n = 0;
    if (sl__list(st, dir, ents, &exists, &ignored) == 0)
        for (int i = 0; i < ents->n; i++)
            n += ((sl_chk_entry *)ents->items[i])->size;
    sl_error_reset(&ignored);
    sl_list_free(ents, sl_chk_entry_free);
    sl_free(dir);
    return n;
}

int sl_chk_states(sl_chk_store *st, int64_t id, sl_list *names, sl_error *err)
{
    char *dir = sl_chk_path(st, id);
    sl_list *ents = sl_list_new();
    bool exists = false;
    int rc = sl__list(st, dir, ents, &exists, err);
    for (int i = 0; rc == 0 && i < ents->n; i++) {
        const sl_chk_entry *e = ents->items[i];
        size_t n = strlen(e->name);
        if (e->dir || strncmp(e->name, "state-", 6) != 0 ||
            (n > 4 && !strcmp(e->name + n - 4, ".tmp")))
            continue;
        sl_strbuf sb = SL_STRBUF_INIT; /* the name: %XX back to its byte */
        for (const char *p = e->name + 6; *p; p++) {
            int hi, lo;
            if (*p == '%' && p[1] && p[2] && (hi = sl__xdigit(p[1])) >= 0 &&
                (lo = sl__xdigit(p[2])) >= 0) {
                sl_strbuf_append_char(&sb, (char)(hi * 16 + lo));
                p += 2;
            } else {
                sl_strbuf_append_char(&sb, *p);
            }
        }
        sl_list_push(names, sl_strbuf_detach(&sb));
    }
    sl_list_free(ents, sl_chk_entry_free);
    sl_free(dir);
    return rc;
}

int sl_chk_drop(sl_chk_store *st, bool savepoints, int *kept, int *found, sl_error *err)
{
    *kept = *found = 0;
    int64_t *ids;
    int n;
    if (sl__list_ids(st, &ids, &n, err) != 0)
        return -1;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        bool sp = false;
        sl_error ignored = SL_ERROR_INIT; /* damaged: not kept as a savepoint */
        if (sl__sealed(st, ids[i], &sp, &ignored) != 1)
            sp = false;
        sl_error_reset(&ignored);
        (*found)++;
        if (sp && !savepoints) {
            (*kept)++;
            continue;
        }
        char *dir = sl_chk_path(st, ids[i]);
        rc = sl__remove_tree(st, dir, err);
        sl_free(dir);
    }
    sl_free(ids);
    if (rc == 0) {
        char *latest = sl_path_join(st->dir, SL_CHK_LATEST);
        rc = sl__remove_tree(st, latest, err);
        sl_free(latest);
    }
    return rc;
}

const char *sl_chk_dir(const sl_chk_store *st)
{
    return st->dir;
}

int sl_chk_prune(sl_chk_store *st, int keep, sl_error *err)
{
    int64_t *ids;
    int n;
    if (sl__list_ids(st, &ids, &n, err) != 0)
        return -1;
    int64_t newest = -1;
    int kept = 0, rc = 0;
    for (int i = n - 1; i >= 0 && rc == 0; i--) {
        bool sp = false;
        sl_error serr = SL_ERROR_INIT;
        int sealed = sl__sealed(st, ids[i], &sp, &serr);
        if (sealed < 0)
            sl_log(SL_LOG_WARN, "%s", serr.message);
        sl_error_reset(&serr);
        bool remove;
        if (sealed == 1) {
            if (newest < 0)
                newest = ids[i];
            remove = !sp && kept++ >= keep;
        } else {
            /* Unsealed (or corrupt) below the newest sealed one: an abandoned
            ** attempt. Above it, it may be in progress: leave it. */
            remove = newest >= 0 && ids[i] < newest;
        }
        if (remove) {
            char *dir = sl_chk_path(st, ids[i]);
            rc = sl__remove_tree(st, dir, err);
            sl_free(dir);
        }
    }
    sl_free(ids);
    return rc;
}

int sl_chk_open_dir(const char *job_dir, const sl_kvlist *opts, sl_chk_store **out,
                    sl_error *err)
{
    *out = NULL;
    sl_chk_store *st = NULL;
    if (sl__store_new(job_dir, "", opts, &st, err) != 0)
        return -1;
    sl_list *ents = sl_list_new();
    bool exists = false;
    int rc = sl__list(st, st->dir, ents, &exists, err);
    sl_list_free(ents, sl_chk_entry_free);
    if (rc == 0 && !exists)
        rc = sl_error_set(err, SL_ERR_UNDEFINED_FILE, -1, "directory \"%s\" does not exist",
                          job_dir);
    if (rc != 0) {
        sl_chk_close(st);
        return -1;
    }
    *out = st;
    return 0;
}

int sl_chk_open_path(const char *chk_dir, const sl_kvlist *opts, sl_chk_store **out, int64_t *id,
                     sl_error *err)
{
    *out = NULL;
    *id = -1;
    char *path = sl_strdup(chk_dir);
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        path[--n] = '\0';
    char *slash = strrchr(path, '/');
    int64_t chk = sl__chk_id(slash ? slash + 1 : path);
    if (chk < 0) {
        sl_error_set(err, SL_ERR_INVALID_PARAMETER, -1,
                     "\"%s\" is not a checkpoint or savepoint directory", chk_dir);
        sl_error_hint(err, "Give the path of a chk-<N> directory, as printed when a job "
                           "stopped with a savepoint.");
        sl_free(path);
        return -1;
    }
    if (slash == path)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
    sl_chk_store *st = NULL;
    int opened = sl__store_new(slash ? path : ".", "", opts, &st, err);
    sl_free(path);
    if (opened != 0)
        return -1;
    sl__meta m;
    int sealed = sl__meta_load(st, chk, &m, err);
    if (sealed == 1 && sl__files_present(st, chk, &m, err) != 0)
        sealed = -1;
    sl__meta_free(&m);
    if (sealed < 0) {
        sl_chk_close(st);
        return -1;
    }
    if (sealed == 0) {
        sl_error_set(err, SL_ERR_UNDEFINED_FILE, -1,
                     "savepoint \"%s\" does not exist or is not complete", chk_dir);
        sl_error_detail(err, "A checkpoint directory is complete once its _metadata is written.");
        sl_chk_close(st);
        return -1;
    }
    *out = st;
    *id = chk;
    return 0;
}
